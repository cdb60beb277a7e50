"""The multiclass perceptron against its plain one-example-at-a-time loop."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_iris

import perceptron_lib as pl
from perceptron_lib import ConvergenceWarning, MulticlassPerceptron, Perceptron
from tests.support.oracles import overflowing_data, plain_multiclass_perceptron, tiny_norm_data

EPOCHS = 8


def _blobs(n, d, k, spread, seed):
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(k, d)) * 2
    y = rng.integers(0, k, size=n)
    return centres[y] + spread * rng.normal(size=(n, d)), y


def _digits():
    X, y = load_digits(return_X_y=True)
    return X[:400] / 16.0, y[:400]


# Named multiclass training sets: X and class indices 0..k-1.
MULTICLASS = {
    "three_points": lambda: (np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]), np.array([0, 1, 2])),
    "blobs_separable": lambda: _blobs(200, 4, 4, 0.3, 1),
    "blobs_overlapping": lambda: _blobs(300, 3, 5, 1.5, 2),
    "iris": lambda: load_iris(return_X_y=True),
    "digits_400": _digits,
    "integer_ties": lambda: (np.array([[0, 1], [1, 0], [1, 1], [0, 0], [2, 2], [-1, 1]], float), np.array([0, 1, 2, 0, 1, 2])),
}


@pytest.fixture(params=sorted(MULTICLASS), ids=sorted(MULTICLASS))
def multiclass_data(request):
    return MULTICLASS[request.param]()


def fit_quietly(model, X, y, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y, **kwargs)


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["with_offset", "through_origin"])
def test_multiclass_matches_plain_loop_exactly(multiclass_data, fit_intercept, multiclass_engine):
    X, y = multiclass_data
    k = int(y.max()) + 1
    W, b, mistakes, epochs, _ = plain_multiclass_perceptron(X, y, k, fit_intercept=fit_intercept, max_epochs=EPOCHS)
    model = fit_quietly(MulticlassPerceptron(fit_intercept=fit_intercept, max_epochs=EPOCHS), X, y)
    np.testing.assert_array_equal(model.coef_, W)
    np.testing.assert_array_equal(model.intercept_, b)
    assert (model.n_mistakes_, model.n_epochs_) == (mistakes, epochs)


def test_multiclass_with_shuffling_and_weights_matches_plain_loop(multiclass_data, multiclass_engine):
    X, y = multiclass_data
    k = int(y.max()) + 1
    rng = np.random.default_rng(4)
    weight = rng.uniform(0.2, 3.0, size=len(y))
    rng_orders = np.random.default_rng(9)
    orders = [rng_orders.permutation(len(y)) for _ in range(EPOCHS)]
    W, b, mistakes, epochs, _ = plain_multiclass_perceptron(X, y, k, max_epochs=EPOCHS, orders=orders, sample_weight=weight)
    model = fit_quietly(MulticlassPerceptron(max_epochs=EPOCHS, shuffle=True, random_state=9), X, y, sample_weight=weight)
    np.testing.assert_array_equal(model.coef_, W)
    np.testing.assert_array_equal(model.intercept_, b)
    assert (model.n_mistakes_, model.n_epochs_) == (mistakes, epochs)


def test_averaged_multiclass_is_the_mean_of_the_weight_history(multiclass_data, multiclass_engine):
    X, y = multiclass_data
    k = int(y.max()) + 1
    W, b, _, _, history = plain_multiclass_perceptron(X, y, k, max_epochs=EPOCHS)
    model = fit_quietly(MulticlassPerceptron(max_epochs=EPOCHS, average=True), X, y)
    np.testing.assert_array_equal(model.last_coef_, W)
    np.testing.assert_array_equal(model.last_intercept_, b)
    scale = max(1.0, np.abs(W).max())
    np.testing.assert_allclose(model.coef_, np.mean([h[0] for h in history], axis=0), rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(model.intercept_, np.mean([h[1] for h in history], axis=0), rtol=1e-12, atol=1e-12 * scale)


def test_prediction_is_the_highest_score_and_the_lowest_class_on_a_tie():
    X, y = MULTICLASS["blobs_overlapping"]()
    model = fit_quietly(MulticlassPerceptron(max_epochs=3), X, y)
    np.testing.assert_array_equal(model.predict(X), np.argmax(X @ model.coef_.T + model.intercept_, axis=1))
    tied = MulticlassPerceptron(fit_intercept=False).fit([[1.0, 0.0], [0.0, 1.0]], ["b", "a"])
    # Two tied updates leave w_a = (-1, 1) and w_b = (1, -1): the origin scores 0 for both.
    assert tied.predict([[0.0, 0.0]])[0] == "a"


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["with_offset", "through_origin"])
def test_two_classes_give_the_binary_perceptron_bit_for_bit(dataset, fit_intercept, multiclass_engine):
    name, X, y, _ = dataset
    binary = fit_quietly(Perceptron(fit_intercept=fit_intercept, max_epochs=EPOCHS), X, y)
    multi = fit_quietly(MulticlassPerceptron(fit_intercept=fit_intercept, max_epochs=EPOCHS), X, y)
    np.testing.assert_array_equal(multi.coef_[1], binary.coef_)
    np.testing.assert_array_equal(multi.coef_[0], -binary.coef_)
    assert multi.intercept_[1] == binary.intercept_
    assert (multi.n_mistakes_, multi.n_epochs_) == (binary.n_mistakes_, binary.n_epochs_)
    np.testing.assert_array_equal(multi.predict(X), binary.predict(X))
    np.testing.assert_array_equal(multi.decision_function(X) > 0, binary.decision_function(X) > 0)


def test_labels_of_any_kind_map_to_sorted_class_indices():
    X, y = MULTICLASS["blobs_separable"]()
    names = np.array(["west", "north", "east", "south"])[y]
    by_index = fit_quietly(MulticlassPerceptron(max_epochs=EPOCHS), X, np.searchsorted(sorted(set(names)), names))
    by_name = fit_quietly(MulticlassPerceptron(max_epochs=EPOCHS), X, names)
    np.testing.assert_array_equal(by_name.classes_, ["east", "north", "south", "west"])
    np.testing.assert_array_equal(by_name.coef_, by_index.coef_)
    assert set(by_name.predict(X)) <= set(names)


def test_separable_blobs_are_separated_after_convergence():
    X, y = MULTICLASS["blobs_separable"]()
    model = MulticlassPerceptron().fit(X, y)
    assert model.converged_ and model.score(X, y) == 1.0


def test_multiclass_rejects_one_class_and_bad_average():
    with pytest.raises(ValueError, match="at least two classes"):
        MulticlassPerceptron().fit([[0.0], [1.0]], [3, 3])
    with pytest.raises(TypeError, match="average must be True or False"):
        MulticlassPerceptron(average="yes").fit([[0.0], [1.0]], [0, 1])


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mistakes_never_exceed_the_multiclass_bound(seed):
    # Any separator bounds the mistakes; the learned one is at hand. With offsets
    # absorbed into X as a constant-1 column, ||W||_F = 1, every own score beating
    # every other by gamma, and every example inside radius R: at most 2 (R / gamma)^2.
    X, y = _blobs(300, 5, 4, 0.4, seed)
    model = MulticlassPerceptron().fit(X, y)
    assert model.converged_
    Z = pl.absorb_offset(X)
    V = np.column_stack([model.coef_, model.intercept_])
    V = V / np.linalg.norm(V)
    scores = Z @ V.T
    own = scores[np.arange(len(y)), y]
    scores[np.arange(len(y)), y] = -np.inf
    gamma = (own - scores.max(axis=1)).min()
    assert gamma > 0
    assert model.n_mistakes_ <= 2 * (pl.radius(Z) / gamma) ** 2


@pytest.mark.parametrize("seed", [132, 150, 156])
def test_exact_where_scores_overflow(seed, multiclass_engine):
    X, y = overflowing_data(seed, n_classes=3)
    W, b, mistakes, epochs, _ = plain_multiclass_perceptron(X, y, 3, max_epochs=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = MulticlassPerceptron(max_epochs=8).fit(X, y)
    np.testing.assert_array_equal(model.coef_, W)
    np.testing.assert_array_equal(model.intercept_, b)
    assert (model.n_mistakes_, model.n_epochs_) == (mistakes, epochs)


@pytest.mark.parametrize("seed", [5036, 5041, 5056])
def test_exact_where_norms_underflow(seed, multiclass_engine):
    X, _, sample_weight = tiny_norm_data(seed)
    y = np.random.default_rng(seed).integers(0, 3, size=len(X))
    y[:3] = [0, 1, 2]
    W, b, mistakes, epochs, _ = plain_multiclass_perceptron(X, y, 3, fit_intercept=False, max_epochs=8,
                                                           sample_weight=sample_weight)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = MulticlassPerceptron(fit_intercept=False, max_epochs=8).fit(X, y, sample_weight=sample_weight)
    np.testing.assert_array_equal(model.coef_, W)
    assert (model.n_mistakes_, model.n_epochs_) == (mistakes, epochs)
