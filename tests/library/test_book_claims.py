"""Claims the book makes in words, checked with the library: each test names the chapter and the
statement it checks, and fails if the statement stops being true of ``perceptron_lib``."""

import re
import warnings

import numpy as np
import pytest

import perceptron_lib as pl
from perceptron_lib import ConvergenceWarning, Perceptron, VotedPerceptron

from tests.support.book import BOOK


def updates_of(X, y, *, fit_intercept=False, max_epochs=1000):
    """The weights before and after every update of a run, and the example of each update."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        steps = pl.trace_perceptron(X, y, fit_intercept=fit_intercept, max_epochs=max_epochs)
    before, after, examples = [], [], []
    w = np.zeros(X.shape[1])
    for step in steps:
        if step.mistake:
            before.append(w)
            after.append(np.asarray(step.w, dtype=float))
            examples.append(np.asarray(step.x, dtype=float))
        w = np.asarray(step.w, dtype=float)
    return np.array(before), np.array(after), np.array(examples)


# --- introduction: rescaled data keep the mistakes only if the offset moves by rho^2 y -----------

def mistake_rounds(X, y, *, constant=None):
    """(epoch, example) of every mistake, and the final (w, b): through the origin, or, given a constant c,
    with an offset that moves by c**2 * y on a mistake (the run through the origin on data lifted with c)."""
    if constant is not None:
        X = pl.absorb_offset(X, constant=constant)
    steps = pl.trace_perceptron(X, y, fit_intercept=False, max_epochs=1000)
    w, b = (steps[-1].w, 0.0) if constant is None else pl.split_offset(steps[-1].w, constant=constant)
    return [(s.epoch, s.index) for s in steps if s.mistake], np.asarray(w), b


def test_lifting_with_a_constant_moves_the_offset_by_its_square():
    # The helper above relies on this: lifted with 1 it is the perceptron with an offset step of y.
    X, y, _ = pl.make_separable(40, 2, margin=0.1, random_state=7)
    with_offset = pl.trace_perceptron(X, y, fit_intercept=True, max_epochs=1000)
    rounds, w, b = mistake_rounds(X, y, constant=1.0)
    assert rounds == [(s.epoch, s.index) for s in with_offset if s.mistake]
    np.testing.assert_array_equal(w, with_offset[-1].w)
    assert b == with_offset[-1].b


@pytest.mark.parametrize("rho", [0.1, 10.0])
def test_rescaled_data_need_an_offset_step_of_rho_squared(rho):
    # introduction.md, ex-introduction-3, part 2, on the chapter's data: steps y and rho y change the mistakes,
    # a step of rho^2 y makes them on the same rounds, with w' = rho w and b' = rho^2 b.
    X, y, _ = pl.make_separable(40, 2, margin=0.1, random_state=7)
    original, w, b = mistake_rounds(X, y, constant=1.0)
    assert mistake_rounds(rho * X, y)[0] == mistake_rounds(X, y)[0], "through the origin, rescaling keeps the mistakes"
    for step, constant in [("y", 1.0), ("rho y", np.sqrt(rho))]:
        assert mistake_rounds(rho * X, y, constant=constant)[0] != original, (
            f"with rho = {rho} an offset step of {step} should change the mistakes of rho = 1")
    rounds, w_scaled, b_scaled = mistake_rounds(rho * X, y, constant=rho)
    assert rounds == original, f"with rho = {rho} an offset step of rho^2 y should make the mistakes of rho = 1"
    np.testing.assert_allclose(w_scaled, rho * w, rtol=1e-12)
    assert b_scaled == pytest.approx(rho**2 * b, abs=1e-12)


@pytest.mark.parametrize("seed", range(5))
def test_an_offset_step_of_rho_squared_keeps_the_mistakes_on_any_data(seed):
    # The induction of ex-introduction-3 with b' = rho^2 b; powers of 2 keep the arithmetic exact.
    X, y, _ = pl.make_separable(60, 3, margin=0.05, random_state=seed)
    X = X + np.random.default_rng(seed).normal(size=3)  # a separator away from the origin, so b matters
    original, w, b = mistake_rounds(X, y, constant=1.0)
    for rho in (0.25, 8.0):
        rounds, w_scaled, b_scaled = mistake_rounds(rho * X, y, constant=rho)
        assert rounds == original, f"seed {seed}, rho = {rho}: the mistakes moved"
        np.testing.assert_array_equal(w_scaled, rho * w)
        assert b_scaled == rho**2 * b, f"seed {seed}, rho = {rho}: expected b' = {rho**2 * b}, got {b_scaled}"


# --- convergence: a mistake can make w shorter, and adds at most R^2 to ||w||^2 ----------------

def test_one_mistake_makes_w_shorter_in_the_chapters_example():
    # convergence.md: from w = (2, 0), the example x = (1, 0) with label -1 is a mistake and gives w = (1, 0).
    w, b, updated = pl.perceptron_update(np.array([2.0, 0.0]), 0.0, np.array([1.0, 0.0]), -1)
    assert updated, "the example x = (1, 0), y = -1 scores 2 against w = (2, 0): it must be a mistake"
    np.testing.assert_array_equal(w, [1.0, 0.0])
    assert np.linalg.norm(w) < 2.0, f"the update should shorten w from length 2, got {w}"


def test_the_chapters_run_has_updates_that_make_w_shorter():
    # convergence.md, "Watching the proof happen": 300 points in R^10, margin 0.01, seed 2.
    X, y, _ = pl.make_separable(300, 10, margin=0.01, random_state=2)
    before, after, _ = updates_of(X, y)
    shorter = int(np.sum(np.linalg.norm(after, axis=1) < np.linalg.norm(before, axis=1)))
    assert 0 < shorter < len(after), (
        f"expected some but not all of the {len(after)} updates to shorten w, got {shorter}")


def _flipped():
    X, y, _ = pl.make_separable(200, 3, margin=0.05, random_state=3)
    return X, pl.flip_labels(y, 0.1, random_state=3)


# Runs for the length of w: (X, y) makers, separable or not.
RUNS = {
    "separable_10d": lambda: pl.make_separable(300, 10, margin=0.01, random_state=2)[:2],
    "xor": lambda: pl.make_xor(60, random_state=1),
    "flipped_labels": _flipped,
}


@pytest.mark.parametrize("name", sorted(RUNS))
def test_no_mistake_adds_more_than_the_squared_radius(name):
    X, y = RUNS[name]()
    before, after, examples = updates_of(X, y, max_epochs=30)
    growth = np.sum(after**2, axis=1) - np.sum(before**2, axis=1)
    allowed = np.sum(examples**2, axis=1)  # ||x||^2 <= R^2
    tolerance = 1e-9 * np.maximum(1.0, np.sum(after**2, axis=1))
    worst = int(np.argmax(growth - allowed))
    assert np.all(growth <= allowed + tolerance), (
        f"{name}: update {worst + 1} added {growth[worst]} to ||w||^2, more than ||x||^2 = {allowed[worst]}")
    assert allowed.max() <= pl.radius(X) ** 2 * (1 + 1e-12)


# --- convergence: Step 2 bounds every weight by sqrt(k) R, so 32-bit weights do in ex-convergence-bits --

def sensor_data(seed, n=400, d=100):
    """Data as ex-convergence-bits describes them: 16-bit integer coordinates in R^100, separated through the
    origin with R/gamma <= 1000; only points within R/50 of the hyperplane are kept, so that the run is long."""
    rng = np.random.default_rng(seed)
    top = 2**15 - 1
    X = rng.integers(-top, top + 1, size=(20 * n, d)).astype(float)
    w_star = rng.integers(-20, 21, size=d).astype(float)
    distance = np.abs(X @ w_star) / np.linalg.norm(w_star)
    R = pl.radius(X)
    X = X[(distance >= R / 1000) & (distance <= R / 50)][:n]
    return X, np.where(X @ w_star > 0, 1, -1), w_star


@pytest.mark.parametrize("seed", [0, 1])
def test_on_the_bits_exercises_data_every_weight_stays_within_sqrt_k_r_and_32_bits(seed):
    X, y, w_star = sensor_data(seed)
    top = 2**15 - 1
    assert len(y) == 400 and np.all(np.abs(X) <= top) and np.all(X == np.round(X))
    assert pl.mistake_bound(X, y, w_star) <= 1000**2, "the data must have R/gamma <= 1000, as the exercise says"
    steps = pl.trace_perceptron(X, y, fit_intercept=False, max_epochs=10_000)
    assert pl.is_separated(X, y, steps[-1].w), "the run should converge"
    k = np.cumsum([step.mistake for step in steps])
    largest = np.array([np.abs(step.w).max() for step in steps])
    allowed = np.sqrt(k) * pl.radius(X)
    worst = int(np.argmax(largest - allowed))
    assert np.all(largest <= allowed), (
        f"seed {seed}: after {k[worst]} mistakes a weight reached {largest[worst]}, beyond sqrt(k) R = {allowed[worst]}")
    assert k[-1] > 1000, f"seed {seed}: expected a long run, got {k[-1]} mistakes"
    assert largest.max() < 2**29, f"seed {seed}: the solution promises |w_j| < 2^29, got {largest.max()}"
    # A program that keeps the weights in 32-bit integers and computes the scores in 64 makes the same run.
    X32, y32, w32 = X.astype(np.int32), y.astype(np.int32), np.zeros(X.shape[1], dtype=np.int32)
    changed = True
    while changed:
        changed = False
        for x, label in zip(X32, y32):
            if label * np.dot(w32.astype(np.int64), x.astype(np.int64)) <= 0:
                w32 += label * x
                changed = True
    np.testing.assert_array_equal(w32, steps[-1].w, err_msg="32-bit weights should give the library's weights")


@pytest.mark.parametrize("s", [2, 8, 16])
def test_step_2s_bits_are_never_more_than_the_propositions_once_k_reaches_d(s):
    # convergence.md after prop-convergence-bits: |w_j| < 2^(s-1) sqrt(d k) fits in s + ceil(log2(d k) / 2) bits.
    for d in (1, 2, 5, 100, 1000):
        for k in (1, 2, 3, 57, 1000, 3952, 10**6):
            step_2 = s + int(np.ceil(np.log2(d * k) / 2))
            bound = np.sqrt(k * d) * (2 ** (s - 1) - 1)
            assert bound < 2.0 ** (step_2 - 1), f"s={s}, d={d}, k={k}: sqrt(kd)(2^(s-1)-1) = {bound} needs more bits"
            if k >= d:
                proposition = s + int(np.ceil(np.log2(k)))
                assert step_2 <= proposition, f"s={s}, d={d}, k={k}: Step 2 gives {step_2} bits, the proposition {proposition}"


def test_the_separable_path_goes_farthest_and_stops():
    # convergence.md, fig-convergence-cycling's alt text: 60 epochs on the chapter's three data sets.
    X_sep, y_sep, _ = pl.make_separable(200, 2, margin=0.005, random_state=4)
    data_sets = {
        "separable": (X_sep, y_sep),
        "flipped": (X_sep, pl.flip_labels(y_sep, 0.1, random_state=0)),
        "xor": pl.make_xor(200, spread=0.25, random_state=0),
    }
    farthest, last_mistakes = {}, {}
    for name, (X, y) in data_sets.items():
        learner, norms, mistakes = Perceptron(fit_intercept=False), [], []
        for _ in range(60):
            before = getattr(learner, "n_mistakes_", 0)
            learner.partial_fit(X, y)
            norms.append(np.linalg.norm(learner.coef_))
            mistakes.append(learner.n_mistakes_ - before)
        farthest[name], last_mistakes[name] = max(norms), sum(mistakes[-10:])
    assert last_mistakes["separable"] == 0 and last_mistakes["flipped"] > 0 and last_mistakes["xor"] > 0, last_mistakes
    assert farthest["separable"] > max(farthest["flipped"], farthest["xor"]), (
        f"the separable path should reach farther from the origin than the other two: {farthest}")


# --- beyond: the kernel perceptron stores at most n examples ---------------------------------

def chapter_dual_perceptron():
    """The function ``dual_perceptron`` exactly as book/beyond.md defines it (the library has no kernel perceptron)."""
    text = (BOOK / "beyond.md").read_text(encoding="utf-8")
    cells = re.findall(r"```\{code-cell\} ipython3\n(.*?)```", text, flags=re.DOTALL)
    source = [cell for cell in cells if "def dual_perceptron(" in cell]
    assert len(source) == 1, f"expected one code cell of book/beyond.md to define dual_perceptron, found {len(source)}"
    namespace = {"np": np}
    exec(source[0], namespace)
    return namespace["dual_perceptron"]


def test_the_chapters_dual_perceptron_makes_the_librarys_mistakes():
    dual_perceptron = chapter_dual_perceptron()
    X, y = pl.make_xor(40, random_state=5)
    X_tilde = pl.absorb_offset(X)
    alpha = dual_perceptron(X_tilde @ X_tilde.T, y, max_epochs=15)
    steps = pl.trace_perceptron(X, y, max_epochs=15)
    per_example = np.bincount([s.index for s in steps if s.mistake], minlength=len(y))
    np.testing.assert_array_equal(alpha, per_example, err_msg="alpha_i must count the library's mistakes on example i")


def test_the_kernel_perceptron_stores_at_most_n_examples_however_many_mistakes():
    # beyond.md: the linear kernel with the offset on the chapter's XOR data, 200 epochs.
    dual_perceptron = chapter_dual_perceptron()
    X, y = pl.make_xor(200, random_state=0)
    X_tilde = pl.absorb_offset(X)
    alpha = dual_perceptron(X_tilde @ X_tilde.T, y, max_epochs=200)
    mistakes, stored = int(alpha.sum()), int(np.count_nonzero(alpha))
    assert mistakes > 10 * len(y), f"expected the run not to settle (many more mistakes than {len(y)}), got {mistakes}"
    assert stored <= len(y), f"the kernel perceptron stored {stored} examples, more than the {len(y)} it was given"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        voted = VotedPerceptron(max_epochs=200).fit(X, y)
    assert voted.n_mistakes_ == mistakes
    assert voted.weights_.shape[0] == mistakes + 1, "the voted perceptron keeps one vector per mistake plus the zero vector"


# --- offset: the lifted bound can be far below every bound through the origin ----------------

def test_an_offset_can_give_a_far_smaller_bound():
    # offset.md: 0.01 and 100 labelled +1, -100 labelled -1.
    X, y = np.array([[0.01], [100.0], [-100.0]]), np.array([1, 1, -1])
    through_origin = pl.mistake_bound(X, y, [1.0])  # w = 1 is the only unit vector that separates them
    with pytest.raises(ValueError):
        pl.mistake_bound(X, y, [-1.0])
    assert through_origin == pytest.approx((100 / 0.01) ** 2)
    lifted = pl.mistake_bound(pl.absorb_offset(X), y, [1.0, 50.0])
    assert lifted == pytest.approx((100**2 + 1) * (1 + 50**2) / 50**2)
    assert lifted < through_origin / 1000, f"lifted bound {lifted} should be far below {through_origin}"


def test_for_a_separator_through_the_origin_lifting_only_costs():
    X, y, w_star = pl.make_separable(100, 3, margin=0.1, random_state=8)
    without = pl.mistake_bound(X, y, w_star)
    lifted = pl.mistake_bound(pl.absorb_offset(X), y, np.append(w_star, 0.0))
    assert lifted == pytest.approx((pl.radius(X) ** 2 + 1) / pl.margin(X, y, w_star) ** 2)
    assert lifted > without


# --- hyperplanes and online learning: the margin's sign and stopping with w = 0 --------------

def test_a_margin_of_zero_can_be_right_or_wrong():
    # hyperplanes.md: a point on the boundary is predicted -1.
    x, w, b = np.array([[1.0, 2.0]]), np.array([2.0, -1.0]), 0.0
    assert pl.signed_distance(x, w, b)[0] == 0.0
    assert pl.sign(x @ w + b)[0] == -1, "a score of 0 is predicted -1: right for the label -1, wrong for +1"


def test_the_perceptron_can_stop_with_w_zero_on_one_class():
    # online_learning.md: the numbers 1 and -1, both labelled +1.
    X, y = np.array([[1.0], [-1.0]]), np.array([1, 1])
    model = Perceptron().fit(X, y)
    assert model.converged_ and model.n_mistakes_ == 2
    np.testing.assert_array_equal(model.coef_, [0.0])
    assert model.intercept_ == 2.0
    assert pl.is_separated(X, y, [1.0], 2.0), "the one-class data are still separated by a genuine hyperplane"


def test_a_linear_classifier_with_w_zero_predicts_one_label_everywhere():
    # hyperplanes.md, def-linear-classifier: with w = 0 the score is b everywhere, so there is no boundary.
    points = np.random.default_rng(0).normal(scale=10.0, size=(500, 3))
    for b, label in [(2.0, 1), (0.0, -1), (-0.5, -1)]:
        scores = points @ np.zeros(3) + b
        assert np.all(pl.sign(scores) == label), f"with w = 0 and b = {b} every point should be predicted {label}"


def test_on_the_four_xor_points_an_epoch_ends_where_it_started():
    # convergence.md: the weights return to 0 after the first epoch, which proves the epochs repeat for ever.
    X, y = pl.make_xor(4, spread=0.0)
    steps = pl.trace_perceptron(X, y, fit_intercept=False, max_epochs=1)
    assert all(step.mistake for step in steps), "every visit of the first epoch is a mistake"
    np.testing.assert_array_equal(steps[-1].w, np.zeros(2))


@pytest.mark.parametrize("d", [2, 5, 12])
def test_the_small_margin_input_has_d_squared_coordinates_and_3d_minus_3_non_zero(d):
    # convergence.md, after prop-convergence-small-margin: the size of the input against the 1.618^d updates.
    X, y, w_sep = pl.make_small_margin(d)
    assert X.shape == (d, d) and np.count_nonzero(X) == 3 * d - 3
    assert set(np.unique(X)) <= {-1, 0, 1} and np.all(y == 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        made = Perceptron(fit_intercept=False, max_epochs=10**6).fit(X, y).n_mistakes_
    assert made >= w_sep[-1], f"at least F_(d+2) - 1 = {w_sep[-1]} updates, made {made}"


# --- convergence: a whole-number bound is met by some data, not by all ----------------------

def test_a_whole_number_bound_need_not_be_met():
    # convergence.md: (1, 1)/sqrt(2), (1, 0), (0, 1), all labelled +1, in this order.
    X, y = np.array([[1 / np.sqrt(2), 1 / np.sqrt(2)], [1.0, 0.0], [0.0, 1.0]]), np.ones(3)
    angles = np.linspace(0, 2 * np.pi, 36001)
    best = max(np.min(X @ [np.cos(a), np.sin(a)]) for a in angles)
    assert best == pytest.approx(1 / np.sqrt(2), abs=1e-9), f"the largest margin should be 1/sqrt(2), a scan found {best}"
    bound = pl.mistake_bound(X, y, np.array([1.0, 1.0]) / np.sqrt(2))
    assert bound == pytest.approx(2.0), f"(R/gamma)^2 should be the whole number 2, got {bound}"
    made = Perceptron(fit_intercept=False).fit(X, y).n_mistakes_
    assert made == 1, f"the perceptron should stop after 1 mistake, below the whole-number bound 2, made {made}"


@pytest.mark.parametrize("k", [2, 3, 7])
def test_in_the_tight_family_only_the_all_ones_direction_has_the_largest_margin(k):
    # convergence.md, thm-convergence-tight part 2: every other unit vector has a margin below R / sqrt(k).
    R = 2.0
    X, y, best = pl.make_tight(k, radius=R, random_state=k)
    np.testing.assert_allclose(best, np.ones(k) / np.sqrt(k))
    assert pl.margin(X, y, best) == pytest.approx(R / np.sqrt(k))
    rng = np.random.default_rng(k)
    others = np.vstack([rng.normal(size=(200, k)), best + 1e-3 * rng.normal(size=(200, k))])
    margins = np.array([pl.margin(X, y, w) for w in others])
    assert np.all(margins < R / np.sqrt(k) - 1e-12), (
        f"a unit vector other than (1, ..., 1)/sqrt(k) reached margin {margins.max()}, the largest is {R / np.sqrt(k)}")


# --- offset: the bound of the perceptron with an offset is that of the lifted data ------------

def far_from_the_origin():
    """offset.md's data "far from the origin" and their generating separator (w, b)."""
    X0, y, w = pl.make_separable(200, 2, margin=0.2, random_state=0)
    across = np.array([-w[1], w[0]])
    return X0 + 8 * w + 6 * across, y, w, float(-w @ (8 * w + 6 * across))


def test_with_an_offset_the_unlifted_bound_fails_and_the_lifted_one_holds():
    # Perceptron's docstring and mistake_bound's: with b != 0, (R/gamma)^2 of X bounds nothing.
    X, y, w, b = far_from_the_origin()
    made = Perceptron().fit(X, y).n_mistakes_
    unlifted = pl.mistake_bound(X, y, w, b)
    lifted = pl.mistake_bound(pl.absorb_offset(X), y, np.append(w, b))
    R, gamma, D = pl.radius(X), pl.margin(X, y, w, b), abs(b) / np.linalg.norm(w)
    assert lifted == pytest.approx((R**2 + 1) * (1 + D**2) / gamma**2)
    assert made > unlifted, f"expected more mistakes ({made}) than the unlifted (R/gamma)^2 = {unlifted}"
    assert made <= lifted, f"{made} mistakes exceed the lifted bound {lifted}"
    # beyond.md, ex-beyond-dual-counts: nor is the radius of the lifted data with the unlifted margin a bound.
    assert made > (R**2 + 1) / gamma**2
    # voted_averaged.md, Freund and Schapire's bound: the voted perceptron's training run is this run.
    assert VotedPerceptron().fit(X, y).n_mistakes_ == made


def test_on_two_numbers_the_best_unlifted_bound_fails_for_the_perceptron_with_an_offset():
    # convergence.md, the opening: 5 labelled +1 and 3 labelled -1. The threshold 4 has the largest margin, 1,
    # so every separator has (R/gamma)^2 >= 25, yet the perceptron with an offset makes more mistakes.
    X, y = np.array([[5.0], [3.0]]), np.array([1, -1])
    thresholds = np.linspace(3.001, 4.999, 1999)
    margins = np.array([pl.margin(X, y, [1.0], -t) for t in thresholds])
    assert margins.max() == pytest.approx(1.0) and thresholds[margins.argmax()] == pytest.approx(4.0)
    unlifted = pl.mistake_bound(X, y, [1.0], -4.0)
    assert unlifted == pytest.approx(25.0)
    made = Perceptron().fit(X, y).n_mistakes_
    lifted = pl.mistake_bound(pl.absorb_offset(X), y, [1.0, -4.0])
    assert lifted == pytest.approx((5**2 + 1) * (1 + 4**2) / 1**2)
    assert unlifted < made <= lifted, f"expected 25 < mistakes <= {lifted}, got {made} mistakes"
    assert made == Perceptron(fit_intercept=False).fit(pl.absorb_offset(X), y).n_mistakes_


def test_absorb_offset_lifts_w_and_b_over_the_constant():
    # absorb_offset's docstring: w @ x + b = theta @ (x, constant) with theta = (w, b / constant).
    X, w, b = np.array([[1.0, -2.0], [0.5, 3.0]]), np.array([2.0, 1.0]), 3.0
    for constant in (1.0, 2.0, -0.5):
        theta = np.append(w, b / constant)
        np.testing.assert_allclose(pl.absorb_offset(X, constant=constant) @ theta, X @ w + b)
        w_back, b_back = pl.split_offset(theta, constant=constant)
        np.testing.assert_allclose(w_back, w)
        assert b_back == pytest.approx(b)


@pytest.mark.parametrize("seed", range(20))
def test_every_separator_passes_within_the_radius_of_the_origin(seed):
    # offset.md, prop-offset-near-origin: D <= R for any separator of data with both labels.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(30, 3)) * rng.uniform(0.1, 5) + rng.normal(size=3) * rng.uniform(0, 20)
    w, b = rng.normal(size=3), float(rng.normal() * 10)
    y = np.where(X @ w + b > 0, 1, -1)
    if len(np.unique(y)) < 2:
        b = float(-np.median(X @ w))  # put the hyperplane among the points
        y = np.where(X @ w + b > 0, 1, -1)
    assert pl.is_separated(X, y, w, b)
    D, R = abs(b) / np.linalg.norm(w), pl.radius(X)
    assert D <= R, f"seed {seed}: the separator is at distance {D} from the origin, beyond the radius {R}"


def test_the_far_data_have_d_at_most_r_before_centring():
    X, y, w, b = far_from_the_origin()
    assert abs(b) <= pl.radius(X)


@pytest.mark.parametrize("lam", [0.1, 0.5, 1.0, 4 / 3, 2.0, 10.0])
def test_centring_can_make_every_lifted_bound_worse(lam):
    # offset.md, after prop-offset-centring: -1, 1, 1 labelled -1, +1, +1. Before centring the threshold 0 has the
    # bound 1 + lambda^2; after it (-4/3, 2/3, 2/3) no separator does better than 16/9 + lambda^2.
    X, y = np.array([[-1.0], [1.0], [1.0]]), np.array([-1, 1, 1])
    X_centred = X - X.mean(axis=0)
    np.testing.assert_allclose(X_centred[:, 0], [-4 / 3, 2 / 3, 2 / 3])
    assert pl.radius(X_centred) == pytest.approx(4 / 3)
    before = pl.mistake_bound(pl.absorb_offset(X, constant=lam), y, [1.0, 0.0])
    assert before == pytest.approx(1 + lam**2)
    # Every separator of data on a line with the negative point on the left is w = 1 with a threshold between.
    thresholds = np.linspace(-4 / 3, 2 / 3, 4001)[1:-1]
    after = np.array([pl.mistake_bound(pl.absorb_offset(X_centred, constant=lam), y, [1.0, -t / lam])
                      for t in thresholds])
    assert np.all(after >= 16 / 9 + lam**2 - 1e-12), f"a separator of the centred data has the bound {after.min()}"
    assert after.min() > before, f"with lambda = {lam} centring should make the best bound worse"
    moved = pl.mistake_bound(pl.absorb_offset(X_centred, constant=lam), y, [1.0, 1 / 3 / lam])  # threshold -1/3
    assert moved == pytest.approx((16 / 9 + lam**2) * (1 + 1 / 9 / lam**2))
    if lam in (1.0, 4 / 3):  # the chapter's two constants, 1 and R_c: there the moved threshold is the best
        assert after.min() == pytest.approx(moved), "the threshold 0, moved with the data to -1/3, should be the best"
        assert moved == pytest.approx({1.0: 250 / 81, 4 / 3: 34 / 9}[lam])
    # Only the bound: the perceptron with an offset makes as many mistakes on both.
    assert Perceptron().fit(X, y).n_mistakes_ == Perceptron().fit(X_centred, y).n_mistakes_



# --- offset: the notes' separator (-1, 2.5) has the largest lifted margin, so 493 cannot be improved --

def test_the_notes_separator_has_the_largest_lifted_margin_of_the_one_dimensional_example():
    # offset.md: "the bound of the notes' separator cannot be improved for lambda = 1". A certificate, exact up to
    # rounding: p = (17/29) z_2 + (12/29) z_3 (z_i = y_i x~_i, the two points next to the threshold) is a convex
    # combination of the z_i, so every unit u has min_i u.z_i <= u.p <= |p|; and the margin of (-1, 2.5) is |p|.
    X, y = pl.one_dimensional_example()
    lifted = pl.absorb_offset(X)
    z = y[:, None] * lifted
    np.testing.assert_array_equal(X.ravel(), [1, 2, 3, 4])
    p = (17 / 29) * z[1] + (12 / 29) * z[2]
    np.testing.assert_allclose(p, np.array([-2, 5]) / 29)
    assert pl.margin(lifted, y, [-1, 2.5]) == pytest.approx(np.linalg.norm(p), rel=1e-12)
    assert pl.radius(lifted) ** 2 == pytest.approx(17)
    assert pl.mistake_bound(lifted, y, [-1, 2.5]) == pytest.approx(17 * 29)


# --- offset: symmetry about the origin makes the offset redundant only for separable data -------

@pytest.mark.parametrize("seed", range(10))
def test_on_separable_data_symmetric_about_the_origin_the_offset_is_redundant(seed):
    # offset.md, "When a separate offset is redundant": if (w, b) separates data that hold (-x, -y) with every
    # (x, y), then (w, 0) separates them too, with a margin at least that of (w, b).
    rng = np.random.default_rng(seed)
    w = rng.normal(size=3)
    b = float(rng.choice([-1, 1]) * rng.uniform(1, 3) * np.linalg.norm(w))  # an offset that is not 0
    X = rng.normal(size=(400, 3)) * 4
    y = np.where(X @ w + b > 0, 1, -1)
    X, y = np.vstack([X, -X]), np.append(y, -y)
    keep = y * (X @ w + b) > 0.1 * np.linalg.norm(w)  # drop the pairs (w, b) does not separate, in both copies
    keep = keep[: len(keep) // 2] & keep[len(keep) // 2 :]
    X, y = X[np.tile(keep, 2)], y[np.tile(keep, 2)]
    assert len(np.unique(y)) == 2 and keep.sum() > 20, f"seed {seed}: too few points left ({keep.sum()} pairs)"
    assert pl.is_separated(X, y, w, b)
    assert pl.is_separated(X, y, w, -b), "the mirror images turn the conditions of (w, b) into those of (w, -b)"
    assert pl.margin(X, y, w) >= pl.margin(X, y, w, b) - 1e-12
    assert Perceptron(fit_intercept=False).fit(X, y).converged_


def test_a_symmetric_distribution_that_no_threshold_separates_needs_an_offset():
    # offset.md: 1, 2, 3 labelled -1, +1, -1 with probabilities 0.1, 0.2, 0.2, and their mirror images.
    x = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    y = np.array([1, -1, 1, -1, 1, -1])
    p = np.array([0.2, 0.2, 0.1, 0.1, 0.2, 0.2])
    assert p.sum() == pytest.approx(1.0)
    assert sorted(zip(-x, -y, p)) == sorted(zip(x, y, p)), "every example should come with its mirror image, as likely"

    def errors(w, b):
        predictions = np.where(np.outer(w, x) + np.asarray(b)[:, None] > 0, 1, -1)
        return (predictions != y) @ p

    # Classifiers drawn at random, not the chapter's list of thresholds between neighbouring points.
    rng = np.random.default_rng(0)
    w, b = rng.normal(size=20_000), rng.normal(size=20_000) * 4
    through_origin = errors(np.append(w, 0.0), np.zeros(len(w) + 1)).min()
    with_offset = errors(w, b).min()
    assert through_origin == pytest.approx(0.4), f"the best classifier through the origin errs with {through_origin}"
    assert with_offset == pytest.approx(0.3), f"the best classifier with an offset errs with {with_offset}"
    # The chapter's best ones: the threshold at -2.5 or 2.5, with +1 on its left.
    np.testing.assert_allclose(errors(np.array([-1.0, -1.0]), np.array([-2.5, 2.5])), [0.3, 0.3])
    assert errors(np.array([1.0, 1.0]), np.array([-2.5, 2.5])).min() > 0.3 + 1e-9, "+1 on the right does worse"


# --- beyond: the multiclass perceptron is the two-class perceptron on Kesler's vectors ------------

def test_the_multiclass_update_is_the_two_class_update_on_keslers_vector_of_the_rival():
    # beyond.md, the multiclass perceptron: W stacks every class's (w_c, b_c); zeta_j has (x, 1) in the place of
    # the label y and -(x, 1) in that of class j, so W . zeta_j is y's score minus j's; a mistake is
    # W . zeta_rival <= 0, and the update W += zeta_rival gives the library's weights.
    rng = np.random.default_rng(3)
    C, d, n, epochs = 3, 2, 60, 50
    labels = rng.integers(0, C, size=n)
    X = rng.normal(size=(C, d))[labels] * 3 + rng.normal(size=(n, d))

    def zeta(x, label, j):
        z = np.zeros((C, d + 1))
        z[label], z[j] = np.append(x, 1.0), -np.append(x, 1.0)
        return z.ravel()

    W, mistakes = np.zeros(C * (d + 1)), 0
    for _ in range(epochs):
        mistakes_before = mistakes
        for x, label in zip(X, labels):
            scores = W.reshape(C, d + 1) @ np.append(x, 1.0)
            rival = max((j for j in range(C) if j != label), key=lambda j: (scores[j], -j))  # lowest index on a tie
            assert W @ zeta(x, label, rival) == pytest.approx(scores[label] - scores[rival], abs=1e-9)
            if W @ zeta(x, label, rival) <= 0:
                W, mistakes = W + zeta(x, label, rival), mistakes + 1
        if mistakes == mistakes_before:
            break
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = pl.MulticlassPerceptron(max_epochs=epochs).fit(X, labels)
    assert model.n_mistakes_ == mistakes
    np.testing.assert_allclose(model.coef_, W.reshape(C, d + 1)[:, :d], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.intercept_, W.reshape(C, d + 1)[:, d], rtol=1e-12, atol=1e-12)


# --- voted_averaged: the averaged perceptron's visit counter is the algorithm's t -------------

def test_the_cached_vector_sums_the_updates_times_the_visits_before_them():
    # _AveragedPass's docstring: u = sum over mistake rounds r (from 1) of (r - 1) y_r x_r, and w_bar = w - u / T.
    X, y, _ = pl.make_separable(60, 3, margin=0.05, random_state=4)
    model = pl.AveragedPerceptron(max_epochs=50).fit(X, y)
    steps = pl.trace_perceptron(X, y, max_epochs=50)
    T = len(steps)
    assert T == model.n_epochs_ * len(y)
    u = sum((r - 1) * s.y * np.append(s.x, 1.0) for r, s in enumerate(steps, start=1) if s.mistake)
    w_last = np.append(model.last_coef_, model.last_intercept_)
    np.testing.assert_allclose(np.append(model.coef_, model.intercept_), w_last - u / T, rtol=1e-12, atol=1e-12)


# --- beyond: the breast cancer data are separable, but with a tiny margin ---------------------

def test_the_breast_cancer_data_are_separable_with_a_margin_far_too_small_for_20_epochs():
    # beyond.md, cross-validation: all 569 standardised examples, malignant = +1, lifted with the constant 1.
    from scipy.optimize import linprog, nnls
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    cancer = load_breast_cancer()
    X = pl.absorb_offset(StandardScaler().fit_transform(cancer.data))
    y = np.where(cancer.target_names[cancer.target] == "malignant", 1, -1)
    signed_rows = y[:, None] * X
    n, width = signed_rows.shape
    lp = linprog(np.zeros(width), A_ub=-signed_rows, b_ub=-np.ones(n), bounds=[(None, None)] * width, method="highs")
    assert lp.status == 0, f"the linear program should find a separator of the lifted data, got: {lp.message}"
    assert pl.is_separated(X, y, lp.x)

    # An upper bound on every margin: for weights alpha >= 0 adding up to 1, any unit vector theta has
    # min_i y_i theta . x_i <= theta . p <= ||p|| with p = sum_i alpha_i y_i x_i. The point p of the convex
    # hull closest to the origin (a least-squares problem with alpha >= 0, the sum pinned by a heavy row)
    # makes the bound tight, and p / ||p|| is a separator whose margin is the matching lower bound.
    heavy = 1e3
    alpha, _ = nnls(np.vstack([signed_rows.T, heavy * np.ones(n)]), np.append(np.zeros(width), heavy), maxiter=100 * n)
    p = signed_rows.T @ (alpha / alpha.sum())
    upper, lower = np.linalg.norm(p), pl.margin(X, y, p)
    assert 0 < lower <= upper, f"p / ||p|| should separate the data with a margin of at most ||p||: {lower}, {upper}"
    assert round(lower, 4) == round(upper, 4) == 0.0014, (
        f"the chapter says the largest lifted margin is 0.0014; it lies between {lower} and {upper}")
    smallest_bound = (pl.radius(X) / upper) ** 2
    assert smallest_bound > 1e8, f"no separator should give a bound below 10^8 mistakes, one gives {smallest_bound}"
    assert smallest_bound > 1000 * 20 * n, "the bound should be far beyond the mistakes 20 epochs can make"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert not Perceptron(max_epochs=20).fit(X[:, :-1], y).converged_, "the chapter's 20-epoch run does not converge"


# --- students: each chapter's assignment link serves the students' page's notebook -----------------

def test_each_chapter_links_an_assignment_notebook_that_publishing_replaces_by_the_students_copy():
    # students.md, step 2: each chapter's "Assignment" section links the same file as the students' page. A chapter
    # links the release notebook; `autograder publish` serves the students' copy (the install cell first) in its
    # place, found by the assignment's name (write_public_edition, assemble), so each link must be one assignment's
    # <name>/<name>.ipynb, and each assignment linked from one chapter.
    from autograder.course import assignments

    linked = {}
    for page in sorted(BOOK.glob("*.md")):
        for target in re.findall(r"\{download\}`[^`<]*<([^>`]+)>`", page.read_text(encoding="utf-8")):
            linked.setdefault(target, []).append(page.stem)
    expected = {f"../notebooks/release/{name}/{name}.ipynb" for name in assignments.names()}
    assert set(linked) == expected, (
        f"links no assignment's notebook: {sorted(set(linked) - expected)}; not linked: {sorted(expected - set(linked))}")
    assert all(len(pages) == 1 for pages in linked.values()), f"linked from more than one chapter: {linked}"
