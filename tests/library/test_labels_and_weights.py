"""The estimators take any two labels and weighted examples, and stay exact.

Labels: the weights equal those of the -1/+1 problem with ``classes_[1]``
mapped to +1.  Weights: every update is ``w += s y x``, checked against the
plain loop with the same weights.
"""

import warnings

import numpy as np
import pytest

import perceptron_lib as pl
from perceptron_lib import AveragedPerceptron, ConvergenceWarning, Perceptron, VotedPerceptron

from tests.support.oracles import plain_perceptron

MODELS = [Perceptron, AveragedPerceptron, VotedPerceptron]
EPOCHS = 6


def fit_quietly(model, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y, **kwargs)


def fitted_state(model):
    """Everything a model learned, for comparing two fits bit for bit."""
    state = [model.coef_, model.intercept_, model.n_mistakes_, model.n_epochs_]
    if isinstance(model, VotedPerceptron):
        state += [model.weights_, model.intercepts_, model.counts_]
    return state


def assert_same_fit(a, b):
    for left, right in zip(fitted_state(a), fitted_state(b)):
        np.testing.assert_array_equal(left, right)


def noisy_problem():
    X, y, _ = pl.make_separable(120, 3, margin=0.05, random_state=2)
    return X + 0.2, pl.flip_labels(y, 0.1, random_state=2)


# Each encoding maps -1 to its first label and +1 to its second (the larger, in sorted order).
ENCODINGS = {
    "zero_one": (0, 1),
    "floats": (2.0, 7.0),  # scikit-learn treats non-integral floats as a regression target
    "negative_ints": (-3, -1),
    "strings": ("benign", "malignant"),
    "booleans": (False, True),
}


@pytest.mark.parametrize("model_class", MODELS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("encoding", sorted(ENCODINGS), ids=str)
def test_any_two_labels_train_as_their_plus_minus_one_problem(model_class, encoding):
    X, y = noisy_problem()
    negative, positive = ENCODINGS[encoding]
    labels = np.where(y > 0, np.array([positive], dtype=object), np.array([negative], dtype=object))
    labels = np.array(labels.tolist())  # the natural dtype of the labels: int, float, str or bool
    reference = fit_quietly(model_class(max_epochs=EPOCHS), X, y)
    model = fit_quietly(model_class(max_epochs=EPOCHS), X, labels)
    np.testing.assert_array_equal(model.classes_, [negative, positive])
    assert model.classes_.dtype == labels.dtype
    assert_same_fit(model, reference)
    expected = np.where(reference.predict(X) > 0, positive, negative)
    np.testing.assert_array_equal(model.predict(X), expected)
    assert model.predict(X).dtype == labels.dtype
    assert model.score(X, labels) == reference.score(X, y)


@pytest.mark.parametrize("model_class", MODELS, ids=lambda c: c.__name__)
def test_label_order_in_the_data_does_not_matter_only_sorted_order(model_class):
    X, y = noisy_problem()
    labels = np.where(y > 0, "b", "a")
    first_is_b = np.argsort(labels != "b", kind="stable")  # put every "b" first
    model = fit_quietly(model_class(max_epochs=EPOCHS), X[first_is_b], labels[first_is_b])
    reference = fit_quietly(model_class(max_epochs=EPOCHS), X[first_is_b], y[first_is_b])
    np.testing.assert_array_equal(model.classes_, ["a", "b"])
    assert_same_fit(model, reference)


WEIGHTS = {
    "integers": lambda n, rng: rng.integers(1, 4, size=n).astype(float),
    "fractions": lambda n, rng: rng.uniform(0.1, 3.0, size=n),
    "tiny_and_huge": lambda n, rng: 10.0 ** rng.integers(-6, 7, size=n),
}


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["with_offset", "through_origin"])
@pytest.mark.parametrize("kind", sorted(WEIGHTS), ids=str)
def test_sample_weight_scales_each_update_exactly_as_the_plain_loop(dataset, kind, fit_intercept, screen):
    name, X, y, _ = dataset
    weight = WEIGHTS[kind](len(y), np.random.default_rng(len(y)))
    w, b, mistakes, epochs, history, converged = plain_perceptron(
        X, y, fit_intercept=fit_intercept, max_epochs=EPOCHS, sample_weight=weight)
    model = fit_quietly(Perceptron(fit_intercept=fit_intercept, max_epochs=EPOCHS), X, y, sample_weight=weight)
    np.testing.assert_array_equal(model.coef_, w)
    assert (model.intercept_, model.n_mistakes_, model.n_epochs_, model.converged_) == (b, mistakes, epochs, converged)
    averaged = fit_quietly(AveragedPerceptron(fit_intercept=fit_intercept, max_epochs=EPOCHS), X, y, sample_weight=weight)
    np.testing.assert_array_equal(averaged.last_coef_, w)
    scale = max(1.0, np.abs([h[0] for h in history]).max())
    np.testing.assert_allclose(averaged.coef_, np.mean([h[0] for h in history], axis=0), rtol=1e-12, atol=1e-12 * scale)
    voted = fit_quietly(VotedPerceptron(fit_intercept=fit_intercept, max_epochs=EPOCHS), X, y, sample_weight=weight)
    np.testing.assert_array_equal(voted.weights_[-1], w)
    assert voted.counts_.sum() == len(history) and len(voted.weights_) == mistakes + 1


@pytest.mark.parametrize("model_class", MODELS, ids=lambda c: c.__name__)
def test_weights_of_one_change_nothing_and_zero_removes_the_example(model_class):
    X, y = noisy_problem()
    plain = fit_quietly(model_class(max_epochs=EPOCHS), X, y)
    assert_same_fit(fit_quietly(model_class(max_epochs=EPOCHS), X, y, sample_weight=np.ones(len(y))), plain)
    keep = np.arange(len(y)) % 3 != 0
    removed = fit_quietly(model_class(max_epochs=EPOCHS), X[keep], y[keep])
    zeroed = fit_quietly(model_class(max_epochs=EPOCHS), X, y, sample_weight=keep.astype(float))
    assert_same_fit(zeroed, removed)


def test_a_constant_weight_scales_the_weights_but_not_the_mistakes():
    # A weight of 2 everywhere doubles every update, so every score and every decision
    # keeps its sign: the same mistakes, and weights exactly twice as large.
    X, y = noisy_problem()
    once = fit_quietly(Perceptron(max_epochs=EPOCHS), X, y)
    twice = fit_quietly(Perceptron(max_epochs=EPOCHS), X, y, sample_weight=np.full(len(y), 2.0))
    np.testing.assert_array_equal(twice.coef_, 2 * once.coef_)
    assert (twice.intercept_, twice.n_mistakes_) == (2 * once.intercept_, once.n_mistakes_)


@pytest.mark.parametrize("model_class", MODELS, ids=lambda c: c.__name__)
def test_partial_fit_takes_classes_and_labels_of_any_kind(model_class):
    X, y = pl.four_point_example()
    labels = np.where(y > 0, "spam", "ham")
    online = model_class(fit_intercept=False)
    online.partial_fit(X[:1], labels[:1], classes=["spam", "ham"])
    online.partial_fit(X[1:], labels[1:])
    np.testing.assert_array_equal(online.classes_, ["ham", "spam"])
    reference = model_class(fit_intercept=False).partial_fit(X, y)
    np.testing.assert_array_equal(online.coef_, reference.coef_)
    with pytest.raises(ValueError, match=r"not among the classes \['ham', 'spam'\]: \['eggs'\]"):
        online.partial_fit(X[:1], ["eggs"])
    with pytest.raises(ValueError, match="only one class"):
        model_class().partial_fit(X[:1], labels[:1])
    # The notes' labels need no classes: a stream may start with either label.
    stream = model_class(fit_intercept=False)
    for i in range(len(y)):
        stream.partial_fit(X[i : i + 1], y[i : i + 1])
    np.testing.assert_array_equal(stream.classes_, [-1, 1])
    np.testing.assert_array_equal(stream.coef_, reference.coef_)
