"""One property test for each theorem the book states, over named families of data sets."""

import warnings

import numpy as np
import pytest

import perceptron_lib as pl
from perceptron_lib import AveragedPerceptron, Perceptron, VotedPerceptron

from tests.support.oracles import plain_perceptron

# (n_samples, n_features, margin, radius, seed), named by what they vary.
SEPARABLE = {
    "wide_margin_2d": (50, 2, 0.3, 1.0, 0),
    "narrow_margin_2d": (200, 2, 0.01, 1.0, 1),
    "narrow_margin_20d": (400, 20, 0.02, 1.0, 2),
    "large_radius_5d": (300, 5, 0.5, 10.0, 3),
    "one_feature": (30, 1, 0.05, 1.0, 4),
    "many_features_few_samples": (10, 200, 0.05, 1.0, 5),
}


@pytest.fixture(params=sorted(SEPARABLE), ids=sorted(SEPARABLE))
def separable(request):
    n, d, gamma, r, seed = SEPARABLE[request.param]
    X, y, w_star = pl.make_separable(n, d, margin=gamma, radius=r, random_state=seed)
    return X, y, w_star, gamma, r


def test_make_separable_keeps_its_promises(separable):
    X, y, w_star, gamma, r = separable
    assert np.linalg.norm(w_star) == pytest.approx(1.0)
    assert pl.margin(X, y, w_star) >= gamma - 1e-12
    assert pl.radius(X) <= r + 1e-12
    assert set(np.unique(y)) <= {-1.0, 1.0}


def test_converged_means_the_training_set_is_separated(separable):
    X, y, _, _, _ = separable
    for fit_intercept in (True, False):
        model = Perceptron(fit_intercept=fit_intercept, max_epochs=10_000).fit(X, y)
        assert model.converged_
        assert pl.is_separated(X, y, model.coef_, model.intercept_)
        assert model.score(X, y) == 1.0


def test_mistakes_never_exceed_the_novikoff_bound(separable):
    X, y, w_star, _, _ = separable
    bound = pl.mistake_bound(X, y, w_star)
    model = Perceptron(fit_intercept=False, max_epochs=10_000).fit(X, y)
    assert model.n_mistakes_ <= bound


def test_mistake_bound_with_the_unit_ball_form(separable):
    X, y, w_star, gamma, r = separable
    X_unit = X / r
    model = Perceptron(fit_intercept=False, max_epochs=10_000).fit(X_unit, y)
    assert model.n_mistakes_ <= 1 / pl.margin(X_unit, y, w_star) ** 2


@pytest.mark.parametrize("name", ["one_dimensional", "shifted_cloud", "noisy"])
def test_offset_perceptron_equals_through_origin_perceptron_on_lifted_data(name):
    if name == "one_dimensional":
        X, y = pl.one_dimensional_example()
    elif name == "shifted_cloud":
        X, y, _ = pl.make_separable(200, 3, margin=0.05, random_state=7)
        X = X + np.array([2.0, -1.0, 0.5])
    else:
        X, y = pl.make_xor(40, random_state=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pl.ConvergenceWarning)
        with_offset = Perceptron(max_epochs=200).fit(X, y)
        lifted = Perceptron(fit_intercept=False, max_epochs=200).fit(pl.absorb_offset(X), y)
    w, b = pl.split_offset(lifted.coef_)
    np.testing.assert_array_equal(w, with_offset.coef_)
    assert b == with_offset.intercept_
    assert lifted.n_mistakes_ == with_offset.n_mistakes_


def test_one_dimensional_example_is_separable_only_with_an_offset():
    X, y = pl.one_dimensional_example()
    assert pl.margin(X, y, [-1.0], 2.5) == pytest.approx(0.5)
    assert pl.margin(X, y, [1.0]) < 0 and pl.margin(X, y, [-1.0]) < 0  # every w through 0 fails
    with pytest.warns(pl.ConvergenceWarning):
        assert not Perceptron(fit_intercept=False, max_epochs=50).fit(X, y).converged_
    lifted = Perceptron(fit_intercept=False).fit(pl.absorb_offset(X), y)
    assert lifted.converged_ and pl.is_separated(pl.absorb_offset(X), y, lifted.coef_)


@pytest.mark.parametrize("epochs", [1, 3, 10])
def test_averaged_weights_are_the_average_of_the_weight_history(epochs):
    X, y = pl.make_xor(30, random_state=epochs)
    _, _, _, _, history, _ = plain_perceptron(X, y, max_epochs=epochs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pl.ConvergenceWarning)
        model = AveragedPerceptron(max_epochs=epochs).fit(X, y)
    np.testing.assert_allclose(model.coef_, np.mean([w for w, _ in history], axis=0), rtol=1e-12, atol=1e-13)
    assert model.intercept_ == pytest.approx(np.mean([b for _, b in history]), abs=1e-13)


@pytest.mark.parametrize("epochs", [1, 4])
def test_voted_prediction_is_the_count_weighted_vote(epochs):
    X, y = pl.make_xor(60, spread=0.6, random_state=epochs)
    X_test, _ = pl.make_xor(50, spread=0.6, random_state=100 + epochs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pl.ConvergenceWarning)
        model = VotedPerceptron(max_epochs=epochs).fit(X, y)
    by_hand = np.zeros(len(X_test))
    for w, b, c in zip(model.weights_, model.intercepts_, model.counts_):
        by_hand += c * np.where(X_test @ w + b > 0, 1, -1)
    np.testing.assert_array_equal(model.decision_function(X_test), by_hand)
    np.testing.assert_array_equal(model.predict(X_test), np.where(by_hand > 0, 1, -1))


def test_averaged_prediction_is_the_linearised_vote():
    X, y = pl.make_xor(60, spread=0.6, random_state=3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pl.ConvergenceWarning)
        voted = VotedPerceptron(max_epochs=3).fit(X, y)
        averaged = AveragedPerceptron(max_epochs=3).fit(X, y)
    linear_vote = (voted.counts_[:, None] * voted.weights_).sum(axis=0) / voted.counts_.sum()
    np.testing.assert_allclose(averaged.coef_, linear_vote, rtol=1e-12, atol=1e-13)


def test_weights_need_s_plus_log2_t_bits():
    # Integer coordinates in [-2^s, 2^s); every weight is a signed sum of t of them.
    rng = np.random.default_rng(0)
    s = 4
    X = rng.integers(-(2**s), 2**s, size=(200, 3)).astype(float)
    w_star = np.array([3.0, -2.0, 1.0])
    keep = np.abs(X @ w_star) >= 1
    X, y = X[keep], np.sign(X[keep] @ w_star)
    model = Perceptron(fit_intercept=False).fit(X, y)
    t = model.n_mistakes_
    assert np.all(np.abs(model.coef_) <= t * 2**s)
    assert np.all(model.coef_ == np.round(model.coef_))
