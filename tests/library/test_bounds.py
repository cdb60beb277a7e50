"""Property tests of the bounds the book states beyond Novikoff's theorem.

Freund and Schapire's mistake bound for data that need not be separable, the
family of data sets on which ``(R / gamma)^2`` is met exactly, and the family
whose largest margin is exponentially small in the dimension. Mistakes are
counted by the plain one-example-at-a-time loop of ``conftest``, so a bug in
the library's fast engine cannot hide a bug in a bound.
"""

import numpy as np
import pytest
from scipy.optimize import linprog

import perceptron_lib as pl

from tests.support.oracles import plain_perceptron

# Data that no hyperplane separates, or separates only barely: (builder, seed), named by what they vary.
INSEPARABLE = {
    "flipped_5pct_2d": lambda rng: _flipped(300, 2, 0.05, rng),
    "flipped_20pct_2d": lambda rng: _flipped(300, 2, 0.20, rng),
    "flipped_10pct_30d": lambda rng: _flipped(200, 30, 0.10, rng),
    "xor": lambda rng: (*pl.make_xor(120, spread=0.3, random_state=rng), None),
    "random_labels_5d": lambda rng: (rng.normal(size=(150, 5)), rng.choice([-1.0, 1.0], size=150), None),
    "separable_margin_0_05": lambda rng: pl.make_separable(200, 3, margin=0.05, random_state=rng),
}
SEEDS = range(4)


def _flipped(n, d, fraction, rng):
    X, y, w_star = pl.make_separable(n, d, margin=0.05, random_state=rng)
    return X, pl.flip_labels(y, fraction, random_state=rng), w_star


def _references(X, w_star, rng):
    """Reference directions to measure deviations against: the generating one, and random ones."""
    directions = [rng.normal(size=X.shape[1]) for _ in range(3)]
    if w_star is not None:
        directions.append(w_star)
    return directions


def _deviation_bound_by_hand(X, y, w, gamma, epochs):
    """((R + D) / gamma)^2 with D over the sequence repeated `epochs` times, by the definition."""
    u = np.asarray(w, dtype=float) / np.linalg.norm(w)
    R = max(np.sqrt(x @ x) for x in X)
    sequence = [(x, label) for _ in range(epochs) for x, label in zip(X, y)]
    D = np.sqrt(sum(max(0.0, gamma - label * (u @ x)) ** 2 for x, label in sequence))
    return ((R + D) / gamma) ** 2


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("family", sorted(INSEPARABLE))
@pytest.mark.parametrize("epochs", [1, 3])
def test_mistakes_never_exceed_the_deviation_bound(family, seed, epochs):
    rng = np.random.default_rng(seed)
    X, y, w_star = INSEPARABLE[family](rng)
    _, _, mistakes, _, _, _ = plain_perceptron(X, y, fit_intercept=False, max_epochs=epochs)
    for w in _references(X, w_star, rng):
        for gamma in (0.01, 0.1, 0.5, 2.0):
            bound = pl.deviation_mistake_bound(X, y, w, gamma, epochs=epochs)
            assert bound == pytest.approx(_deviation_bound_by_hand(X, y, w, gamma, epochs))
            assert mistakes <= bound, (family, seed, epochs, gamma)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("family", sorted(INSEPARABLE))
def test_deviation_bound_holds_in_shuffled_orders(family, seed):
    rng = np.random.default_rng(100 + seed)
    X, y, w_star = INSEPARABLE[family](rng)
    orders = [rng.permutation(len(y)) for _ in range(2)]
    _, _, mistakes, _, _, _ = plain_perceptron(X, y, fit_intercept=False, max_epochs=2, orders=orders)
    for w in _references(X, w_star, rng):
        assert mistakes <= pl.deviation_mistake_bound(X, y, w, 0.1, epochs=2)


def test_deviation_bound_is_novikoffs_on_separable_data():
    X, y, w_star = pl.make_separable(100, 4, margin=0.1, random_state=7)
    gamma = pl.margin(X, y, w_star)
    assert np.all(pl.hinge_deviations(X, y, w_star, gamma) == 0)
    for epochs in (1, 10):
        assert pl.deviation_mistake_bound(X, y, w_star, gamma, epochs=epochs) == pytest.approx(
            pl.mistake_bound(X, y, w_star)
        )


def test_hinge_deviations_measure_the_shortfall_from_the_margin():
    X = np.array([[3.0, 0.0], [1.0, 5.0], [0.0, 2.0], [-2.0, 1.0]])
    y = np.array([1.0, 1.0, -1.0, 1.0])
    # Only the direction of w counts: (2, 0) is the unit vector (1, 0).
    assert pl.hinge_deviations(X, y, [2.0, 0.0], 1.5).tolist() == [0.0, 0.5, 1.5, 3.5]


@pytest.mark.parametrize("bad_gamma", [0.0, -1.0, np.inf, np.nan])
def test_deviation_bound_rejects_a_margin_that_is_not_positive(bad_gamma):
    with pytest.raises(ValueError, match="gamma must be a positive finite number"):
        pl.deviation_mistake_bound([[1.0]], [1], [1.0], bad_gamma)


def test_deviation_bound_rejects_the_zero_direction():
    with pytest.raises(ValueError, match="w must be non-zero"):
        pl.hinge_deviations([[1.0, 0.0]], [1], [0.0, 0.0], 1.0)


# The tightness family: k orthogonal examples, bound exactly k, exactly k mistakes.


@pytest.mark.parametrize("k", [1, 2, 3, 5, 8, 13, 40])
@pytest.mark.parametrize("scale", [1.0, 0.01, 250.0])
def test_tight_family_has_bound_k(k, scale):
    X, y, w_star = pl.make_tight(k, radius=scale, random_state=k)
    assert pl.radius(X) == pytest.approx(scale)
    assert pl.margin(X, y, w_star) == pytest.approx(scale / np.sqrt(k))
    assert pl.mistake_bound(X, y, w_star) == pytest.approx(k)


@pytest.mark.parametrize("k", [2, 3, 7, 20])
def test_no_separator_of_the_tight_family_has_a_larger_margin(k):
    # By Cauchy-Schwarz no unit vector beats (1, ..., 1) / sqrt(k); random directions must agree.
    X, y, w_star = pl.make_tight(k, random_state=0)
    rng = np.random.default_rng(k)
    for _ in range(2000):
        u = rng.normal(size=k)
        u /= np.linalg.norm(u)
        assert pl.margin(X, y, u) <= pl.margin(X, y, w_star) + 1e-12


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("k", [1, 2, 4, 9, 30])
def test_perceptron_makes_exactly_k_mistakes_on_the_tight_family_in_every_order(k, seed):
    X, y, w_star = pl.make_tight(k, radius=3.0, random_state=seed)
    rng = np.random.default_rng(seed)
    orders = [rng.permutation(k) for _ in range(3)]
    w, _, mistakes, _, _, converged = plain_perceptron(X, y, fit_intercept=False, max_epochs=3, orders=orders)
    assert converged
    assert mistakes == k == round(pl.mistake_bound(X, y, w_star))
    np.testing.assert_array_equal(w, np.full(k, 3.0))
    model = pl.Perceptron(fit_intercept=False, shuffle=True, random_state=seed).fit(X, y)
    assert model.n_mistakes_ == k


def test_tight_family_rejects_bad_sizes():
    with pytest.raises(ValueError, match="k must be an int"):
        pl.make_tight(0)
    with pytest.raises(ValueError, match="radius must be a positive finite number"):
        pl.make_tight(3, radius=-1.0)


# The small-margin family: margin at most 1 / a_d, and at least a_d mistakes.


@pytest.mark.parametrize("d", [2, 3, 5, 8, 12])
def test_small_margin_family_is_separated_by_the_integer_weights(d):
    X, y, w_sep = pl.make_small_margin(d)
    assert set(np.unique(X)) <= {-1.0, 0.0, 1.0}
    np.testing.assert_array_equal(X @ w_sep, np.ones(d))
    assert pl.is_separated(X, y, w_sep)


@pytest.mark.parametrize("d", [2, 3, 5, 8, 12, 20])
def test_small_margin_family_has_largest_margin_one_over_a_d(d):
    # Largest margin over the box |w_j| <= 1 by linear programming (maximise g subject to X w >= g).
    # The box contains the unit ball, so this is an upper bound on the Euclidean largest margin.
    X, y, _ = pl.make_small_margin(d)
    result = linprog(
        c=np.append(np.zeros(d), -1.0),
        A_ub=np.hstack([-(y[:, None] * X), np.ones((d, 1))]),
        b_ub=np.zeros(d),
        bounds=[(-1.0, 1.0)] * d + [(None, None)],
        method="highs",
    )
    assert result.status == 0
    a_d = pl.small_margin_weights(d)[-1]
    assert -result.fun == pytest.approx(1.0 / a_d)


@pytest.mark.parametrize("d", [2, 3, 4, 6, 8])
def test_perceptron_needs_at_least_a_d_mistakes_on_the_small_margin_family(d):
    X, y, _ = pl.make_small_margin(d)
    w, _, mistakes, _, _, converged = plain_perceptron(X, y, fit_intercept=False, max_epochs=100_000)
    a_d = pl.small_margin_weights(d)[-1]
    assert converged
    assert w[-1] >= a_d
    assert mistakes >= a_d


def test_small_margin_weights_follow_fibonacci():
    fibonacci = [1, 1]
    while len(fibonacci) < 40:
        fibonacci.append(fibonacci[-1] + fibonacci[-2])
    a = pl.small_margin_weights(30)
    # fibonacci[m - 1] is F_m, and a_j = F_{j+2} - 1.
    assert a.tolist() == [fibonacci[j + 1] - 1 for j in range(1, 31)]


def test_small_margin_family_needs_two_dimensions():
    with pytest.raises(ValueError, match="d must be an int in the range \\[2, inf\\)"):
        pl.make_small_margin(1)
