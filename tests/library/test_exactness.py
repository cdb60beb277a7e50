"""Every model gives exactly the weights of the plain one-example-at-a-time loop,
and agrees with scikit-learn's independent implementation."""

import warnings

import numpy as np
import pytest
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.linear_model import SGDClassifier

import perceptron_lib as pl
from perceptron_lib import AveragedPerceptron, ConvergenceWarning, Perceptron, VotedPerceptron

from tests.support.oracles import overflowing_data, plain_perceptron, tiny_norm_data

EPOCHS = 25


def sklearn_perceptron(X, y, *, epochs, fit_intercept=True):
    """scikit-learn's Perceptron configured to make the same updates, for exactly ``epochs`` passes."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SklearnPerceptron(
            shuffle=False, eta0=1, alpha=0, penalty=None, tol=None, max_iter=epochs, fit_intercept=fit_intercept
        ).fit(X, y)


def fit_quietly(model, X, y, **fit_params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y, **fit_params)


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["with_offset", "through_origin"])
def test_perceptron_matches_plain_loop_exactly(dataset, fit_intercept, screen):
    name, X, y, _ = dataset
    w, b, mistakes, epochs, _, converged = plain_perceptron(X, y, fit_intercept=fit_intercept, max_epochs=EPOCHS)
    model = fit_quietly(Perceptron(fit_intercept=fit_intercept, max_epochs=EPOCHS), X, y)
    np.testing.assert_array_equal(model.coef_, w)
    assert model.intercept_ == b
    assert (model.n_mistakes_, model.n_epochs_) == (mistakes, epochs)
    assert model.converged_ == converged
    if name in ('four_point', 'separable_2d') or (name == 'one_dimensional' and fit_intercept):
        assert converged
    result = pl.train_perceptron(X, y, fit_intercept=fit_intercept, max_epochs=EPOCHS)
    np.testing.assert_array_equal(result.w, w)
    assert (result.b, result.n_mistakes, result.n_epochs) == (b, mistakes, epochs)


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["with_offset", "through_origin"])
def test_shuffled_perceptron_matches_plain_loop_in_the_same_orders(dataset, fit_intercept, screen):
    name, X, y, _ = dataset
    rng = np.random.default_rng(11)
    orders = [rng.permutation(len(y)) for _ in range(EPOCHS)]
    w, b, mistakes, epochs, _, _ = plain_perceptron(X, y, fit_intercept=fit_intercept, max_epochs=EPOCHS, orders=orders)
    model = fit_quietly(Perceptron(fit_intercept=fit_intercept, max_epochs=EPOCHS, shuffle=True, random_state=11), X, y)
    np.testing.assert_array_equal(model.coef_, w)
    assert (model.intercept_, model.n_mistakes_, model.n_epochs_) == (b, mistakes, epochs)


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["with_offset", "through_origin"])
def test_perceptron_matches_scikit_learn(dataset, fit_intercept):
    name, X, y, _ = dataset
    ours = fit_quietly(Perceptron(fit_intercept=fit_intercept, max_epochs=EPOCHS), X, y)
    theirs = sklearn_perceptron(X, y, epochs=ours.n_epochs_, fit_intercept=fit_intercept)
    np.testing.assert_allclose(ours.coef_, theirs.coef_.ravel(), rtol=0, atol=1e-12)
    assert ours.intercept_ == pytest.approx(float(theirs.intercept_[0]), abs=1e-12)


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["with_offset", "through_origin"])
def test_averaged_matches_plain_loop_history_and_scikit_learn(dataset, fit_intercept, screen):
    name, X, y, _ = dataset
    epochs = 7
    w, b, mistakes, n_epochs, history, _ = plain_perceptron(X, y, fit_intercept=fit_intercept, max_epochs=epochs)
    model = fit_quietly(AveragedPerceptron(fit_intercept=fit_intercept, max_epochs=epochs), X, y)
    mean_w = np.mean([h[0] for h in history], axis=0)
    mean_b = np.mean([h[1] for h in history])
    np.testing.assert_allclose(model.coef_, mean_w, rtol=1e-12, atol=1e-12)
    assert model.intercept_ == pytest.approx(mean_b, abs=1e-12)
    np.testing.assert_array_equal(model.last_coef_, w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sgd = SGDClassifier(
            loss="perceptron", learning_rate="constant", eta0=1, alpha=0, penalty=None, shuffle=False,
            tol=None, max_iter=n_epochs, average=True, fit_intercept=fit_intercept,
        ).fit(X, y)
    np.testing.assert_allclose(model.coef_, sgd.coef_.ravel(), rtol=1e-9, atol=1e-12)
    assert model.intercept_ == pytest.approx(float(sgd.intercept_[0]), abs=1e-9)


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["with_offset", "through_origin"])
def test_voted_keeps_every_vector_with_its_survival_count(dataset, fit_intercept, screen):
    name, X, y, _ = dataset
    epochs = 7
    w, b, mistakes, n_epochs, history, _ = plain_perceptron(X, y, fit_intercept=fit_intercept, max_epochs=epochs)
    model = fit_quietly(VotedPerceptron(fit_intercept=fit_intercept, max_epochs=epochs), X, y)
    # Rebuild the distinct vectors and how many visits each was held after.
    vectors, counts = [(np.zeros(X.shape[1]), 0.0)], [0]
    for hw, hb in history:
        if not (np.array_equal(hw, vectors[-1][0]) and hb == vectors[-1][1]):
            vectors.append((hw, hb))
            counts.append(0)
        counts[-1] += 1
    assert model.n_mistakes_ == mistakes
    assert len(model.weights_) == mistakes + 1
    assert model.counts_.sum() == len(history)
    # Vectors that a mistake left unchanged cannot happen (an update always moves w or b).
    np.testing.assert_array_equal(model.weights_, np.array([v[0] for v in vectors]))
    np.testing.assert_array_equal(model.intercepts_, np.array([v[1] for v in vectors]))
    np.testing.assert_array_equal(model.counts_, np.array(counts))
    np.testing.assert_array_equal(model.coef_, w)


def test_partial_fit_passes_equal_fit_epochs(dataset):
    name, X, y, _ = dataset
    for cls in (Perceptron, AveragedPerceptron, VotedPerceptron):
        online = cls()
        for _ in range(4):
            online.partial_fit(X, y)
        batch = fit_quietly(cls(max_epochs=4), X, y)
        if batch.n_epochs_ == 4:
            np.testing.assert_allclose(online.coef_, batch.coef_, rtol=1e-12, atol=1e-12)
            assert online.n_mistakes_ == batch.n_mistakes_


def test_first_mistake_search_handles_scores_that_round_to_zero(screen):
    # Every score here is an exact tie or within rounding of one; the block
    # product and the one-at-a-time dot product must judge them identically.
    rng = np.random.default_rng(0)
    base = rng.normal(size=(40, 30))
    X = np.vstack([base, base * (1 + 1e-15), -base])
    y = np.where(rng.random(len(X)) < 0.5, -1.0, 1.0)
    w, b, mistakes, epochs, _, _ = plain_perceptron(X, y, max_epochs=30)
    model = fit_quietly(Perceptron(max_epochs=30), X, y)
    np.testing.assert_array_equal(model.coef_, w)
    assert (model.intercept_, model.n_mistakes_, model.n_epochs_) == (b, mistakes, epochs)


@pytest.mark.parametrize("n_samples", [1, 33, 1000, 70_000], ids=lambda n: f"n={n}")
def test_block_sizes_do_not_change_the_result(n_samples):
    X, y, _ = pl.make_separable(n_samples, 8, margin=0.01, random_state=n_samples)
    X = X + 0.2
    result = pl.train_perceptron(X, y, max_epochs=3)  # the engine alone: n=1 has one class, which estimators refuse
    if n_samples <= 1000:
        w, b, mistakes, epochs, _, _ = plain_perceptron(X, y, max_epochs=3)
        np.testing.assert_array_equal(result.w, w)
        assert result.n_mistakes == mistakes
    else:  # the plain loop is too slow here; scikit-learn's compiled loop stands in for it
        theirs = sklearn_perceptron(X, y, epochs=result.n_epochs)
        np.testing.assert_allclose(result.w, theirs.coef_.ravel(), rtol=0, atol=1e-9)


@pytest.mark.parametrize("scale", [1e-30, 1e-3, 1e3, 1e29, 1e35], ids=lambda s: f"scale={s:g}")
def test_exact_at_every_scale_including_where_float32_cannot_screen(scale, screen):
    X, y = DATA_FOR_SCALES
    w, b, mistakes, epochs, _, _ = plain_perceptron(X * scale, y, max_epochs=20)
    model = fit_quietly(Perceptron(max_epochs=20), X * scale, y)
    np.testing.assert_array_equal(model.coef_, w)
    assert (model.intercept_, model.n_mistakes_, model.n_epochs_) == (b, mistakes, epochs)


DATA_FOR_SCALES = (
    np.random.default_rng(5).normal(size=(300, 6)),
    np.where(np.random.default_rng(6).random(300) < 0.5, -1.0, 1.0),
)


@pytest.mark.parametrize("seed", [12, 24, 35])
def test_exact_where_scores_overflow(seed, screen):
    X, y = overflowing_data(seed)
    w, b, mistakes, epochs, _, _ = plain_perceptron(X, y, max_epochs=10)
    model = fit_quietly(Perceptron(max_epochs=10), X, y)
    np.testing.assert_array_equal(model.coef_, w)
    np.testing.assert_array_equal(model.intercept_, b)
    assert (model.n_mistakes_, model.n_epochs_) == (mistakes, epochs)


@pytest.mark.parametrize("seed", [5002, 5014, 5033, 5076])
def test_exact_where_norms_underflow(seed, screen):
    X, y, sample_weight = tiny_norm_data(seed)
    w, b, mistakes, epochs, _, _ = plain_perceptron(X, y, fit_intercept=False, max_epochs=12, sample_weight=sample_weight)
    model = fit_quietly(Perceptron(fit_intercept=False, max_epochs=12), X, y, sample_weight=sample_weight)
    np.testing.assert_array_equal(model.coef_, w)
    assert (model.n_mistakes_, model.n_epochs_) == (mistakes, epochs)
