"""What problem set 3 says about its data, asserted by code.

Every hidden case of ``autograder/course/assignments/ps3_convergence/checks.py`` is described to
students in words ("which puts two points on the plane", "the epoch in which training converges");
the notebook's hints and model answers quote numbers (the bound 50 of three points, the mistakes and
bounds of the experiment) and facts (XOR is not separable through the origin, the Fibonacci example
needs many updates).  Each test here checks one such sentence on the very arrays the checks use, so a
change of seed or data that makes a sentence false fails here, not in front of a student or a TA.
Part C's text promises that its tests judge ``bound_experiment`` with right versions of the functions of
Parts A and B, so that a mistake there, random results and stubs included, costs no point in Part C, and that a right ``count_mistakes`` returns in time on
its data sets even if it runs all ``max_epochs`` epochs: the last tests count the examples such a
function visits in every hidden call, and run mistakes of Parts A and B, and right answers written in
other ways, through the hidden checks.
"""

import ast
import math
import re
import textwrap

import nbformat
import numpy as np
import pytest
from scipy.optimize import linprog, nnls

import perceptron_lib as pl
from autograder.commands.verify import namespace_from
from autograder.course.limits import load_limits
from autograder.course.assignments import load_known_wrong
from autograder.course.assignments.ps3_convergence import checks as ps3
from autograder.judging.checks import evaluate_namespace
from tests.support import COURSE, REPO_ROOT

# The experiment of the notebook's Part C cell, and what the model answer of D1 quotes from it.
NOTEBOOK_MARGINS = (0.4, 0.2, 0.1, 0.05)
NOTEBOOK_SIZES = {"n_samples": 200, "n_features": 10, "random_state": 0}
QUOTED_BOUNDS = (6.2, 24.9, 99.5, 395.4)
QUOTED_MISTAKES = (2, 7, 14, 17)


def separable_through_origin(X, y):
    """Whether some w has y_i (w . x_i) >= 1 for every i: the chapter's feasibility linear program."""
    X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
    result = linprog(np.zeros(X.shape[1]), A_ub=-(y[:, None] * X), b_ub=-np.ones(len(y)),
                     bounds=[(None, None)] * X.shape[1], method="highs")
    assert result.status in (0, 2), result.message  # feasible or infeasible, nothing else
    return result.status == 0


def largest_margin_at_most(X, y):
    """An upper bound on the margin of every unit vector through the origin.

    For any weights a_i >= 0 with a positive sum, min_i y_i (w . x_i) is at most their weighted mean,
    w . (sum_i a_i y_i x_i) / sum_i a_i, which for a unit w is at most ||sum_i a_i y_i x_i|| / sum_i a_i.
    The weights come from a non-negative least-squares fit (the point of the convex hull of the y_i x_i
    nearest the origin); the bound holds whatever the solver returns.
    """
    Z = np.asarray(y, dtype=float)[:, None] * np.asarray(X, dtype=float)
    heavy = 1e3  # makes the weights sum to about 1
    a, _ = nnls(np.vstack([Z.T, heavy * np.ones(len(Z))]), np.append(np.zeros(Z.shape[1]), heavy))
    assert a.sum() > 0
    return float(np.linalg.norm(Z.T @ a) / a.sum())


def largest_margin_at_least(X, y):
    """A lower bound on the largest margin through the origin: the margin of the direction of the point
    that :func:`largest_margin_at_most` finds. Where the two meet, they give the largest margin."""
    Z = np.asarray(y, dtype=float)[:, None] * np.asarray(X, dtype=float)
    heavy = 1e3
    a, _ = nnls(np.vstack([Z.T, heavy * np.ones(len(Z))]), np.append(np.zeros(Z.shape[1]), heavy))
    return pl.margin(X, y, Z.T @ a)


def decide_by_running(X, y):
    """The running test of D2's model answer, for integer data: run epoch after epoch until an epoch
    makes no mistake (separable) or the weights at the start of an epoch repeat (not separable)."""
    w, seen = np.zeros(np.shape(X)[1]), set()
    while tuple(w) not in seen:
        seen.add(tuple(w))
        made = 0
        for x_i, y_i in zip(np.asarray(X, dtype=float), y):
            if y_i * (w @ x_i) <= 0:
                w, made = w + y_i * x_i, made + 1
        if made == 0:
            return True
    return False


def run(X, y, max_epochs=1000):
    return pl.train_perceptron(X, y, fit_intercept=False, max_epochs=max_epochs)


def scores(X, y, w):
    return np.asarray(y, dtype=float) * (np.asarray(X, dtype=float) @ np.asarray(w, dtype=float))


# -- Part A: the radius and the bound ------------------------------------------------------------------

def test_the_radius_cases_are_what_they_say():
    points = np.array([[5.0, 0.0], [4.0, 4.0], [-1.0, 0.5]])  # "largest coordinate not in the farthest point"
    assert np.argmax(np.abs(points).max(axis=1)) != np.argmax(np.linalg.norm(points, axis=1))
    assert ps3.X_sep.shape == (40, 4) and pl.radius(ps3.X_sep) <= 3.0  # "forty points in 4-D inside a ball of radius 3"


def test_the_visible_bound_hint_names_the_right_points():
    # "R = 5 comes from the point (3, 4); gamma = 1 / sqrt(2) comes from the point (-1, 0)", bound 50.
    w = np.array([1.0, 1.0])
    assert np.argmax(np.linalg.norm(ps3.X3, axis=1)) == 0 and pl.radius(ps3.X3) == 5.0
    assert np.argmin(scores(ps3.X3, ps3.y3, w)) == 1
    assert math.isclose(pl.margin(ps3.X3, ps3.y3, w), 1 / math.sqrt(2))
    assert math.isclose(pl.mistake_bound(ps3.X3, ps3.y3, w), 50.0)
    assert math.isclose(pl.mistake_bound(ps3.X4, ps3.y4, w), 2.0)


def test_the_separating_cases_separate():
    assert pl.margin(ps3.X_sep, ps3.y_sep, ps3.w_star) >= 0.15  # "separable points in 4-D"
    assert math.isclose(np.linalg.norm(ps3.w_star), 1.0)
    # "four points where the farthest point is not the closest to the plane"
    w = np.array([1.0, 1.0])
    norms = np.linalg.norm(ps3.X_wide, axis=1)
    farthest = set(np.flatnonzero(np.isclose(norms, norms.max())))
    wide = scores(ps3.X_wide, ps3.y_wide, w)
    closest = set(np.flatnonzero(np.isclose(wide, wide.min())))
    assert pl.margin(ps3.X_wide, ps3.y_wide, w) > 0 and not farthest & closest
    # "a separating w that is not along (1, 1)"; "a single example labelled -1 with a w that separates it"
    assert pl.margin(ps3.X4, ps3.y4, [3.0, 1.0]) > 0
    assert ps3.X_one.shape[0] == 1 and ps3.y_one[0] == -1 and pl.margin(ps3.X_one, ps3.y_one, [0.0, 2.0, 0.0]) > 0
    # Part A: the four-point example is separable by (1, 1), though (1, -1) and (1, 0) give no bound.
    assert pl.margin(ps3.X4, ps3.y4, [1.0, 1.0]) > 0


def test_a_bound_without_r_is_wrong_on_the_points_inside_a_ball_of_radius_one_half():
    # "thirty separable points in 5-D inside a ball of radius 0.5, with their separator": R < 1, so a bound of
    # 1 / gamma^2 is four times too large there, as in no other case of bound_values (where R >= 1).
    X, y, w = ps3.X_half, ps3.y_half, ps3.w_half
    assert X.shape == (30, 5) and pl.radius(X) <= 0.5 and pl.margin(X, y, w) > 0
    assert 1 / pl.margin(X, y, w) ** 2 > 3.9 * pl.mistake_bound(X, y, w)
    others = [case.args for check in ps3.CHECKS if check.grade_id == "bound_values" for case in check.cases
              if case.args[0] is not X]
    assert all(pl.radius(args[0]) >= 1 for args in others)


def test_the_cases_without_a_bound_do_not_separate_as_described():
    four = scores(ps3.X4, ps3.y4, [1.0, -1.0])
    assert np.sum(four < 0) == 2 and np.sum(four > 0) == 2  # "misclassifies two points"
    plane = scores(ps3.X4, ps3.y4, [1.0, 0.0])
    assert np.sum(plane == 0) == 2 and np.sum(plane > 0) == 2  # "puts two points on the plane"
    assert pl.margin(ps3.X1, ps3.y1, [1.0]) < 0  # "the points 1, 2, 3, 4 ... with w = 1"
    assert pl.margin(ps3.X_sep, ps3.y_sep, -ps3.w_star) < 0  # "their separator turned around"
    one_wrong = scores(np.vstack([ps3.X_sep, [2 * ps3.w_star]]), np.append(ps3.y_sep, -1.0), ps3.w_star)
    assert np.sum(one_wrong <= 0) == 1 and pl.radius(np.vstack([ps3.X_sep, [2 * ps3.w_star]])) <= 3.0
    assert pl.margin(ps3.X_xor, ps3.y_xor, [1.0, 1.0]) < 0  # "sixteen XOR points and w = (1, 1)"


# -- Part B: counting the mistakes ---------------------------------------------------------------------

def test_data_said_not_to_converge_are_not_separable_through_the_origin():
    # "No threshold at 0 separates these points"; "sixteen XOR points, which never converge"
    for X, y in [(ps3.X1, ps3.y1), (ps3.X_xor, ps3.y_xor)]:
        assert not separable_through_origin(X, y)
        assert not run(X, y).converged
    assert run(ps3.X1, ps3.y1, max_epochs=5).n_mistakes == 14  # the visible case's count


def test_the_separable_count_cases_converge():
    for X, y in [(ps3.X_sep, ps3.y_sep), (ps3.X_wide, ps3.y_wide), (ps3.X3, ps3.y3), (ps3.X_tie, ps3.y_tie),
                 (ps3.X_one, ps3.y_one), (ps3.X4, ps3.y4)]:
        assert separable_through_origin(X, y)
        assert run(X, y).converged
    norms = np.linalg.norm(ps3.X_wide, axis=1)  # "four points in the plane at different distances from the origin"
    assert ps3.X_wide.shape == (4, 2) and np.min(np.diff(np.sort(norms))) > 0.05


def test_convergence_in_the_last_allowed_epoch_and_one_epoch_short():
    # "the four-point example with max_epochs=2, so that training converges in the last allowed epoch"
    assert run(ps3.X4, ps3.y4).n_epochs == 2 and run(ps3.X4, ps3.y4, max_epochs=2).converged
    # "the four-point example with max_epochs=1, whose one epoch makes mistakes and ends with weights that
    # separate the data"
    short = run(ps3.X4, ps3.y4, max_epochs=1)
    assert short.n_mistakes > 0 and not short.converged and np.all(scores(ps3.X4, ps3.y4, short.w) > 0)
    # "thirty separable points in 3-D with max_epochs=14, the epoch in which training converges", and 13
    slow = run(ps3.X_slow, ps3.y_slow)
    assert ps3.X_slow.shape == (30, 3) and separable_through_origin(ps3.X_slow, ps3.y_slow)
    assert slow.converged and slow.n_epochs == 14
    one_short = run(ps3.X_slow, ps3.y_slow, max_epochs=13)
    assert not one_short.converged and one_short.n_mistakes == slow.n_mistakes
    assert np.all(scores(ps3.X_slow, ps3.y_slow, one_short.w) > 0)


def test_the_tie_case_scores_zero_with_label_minus_one():
    # "three integer points, one of them labelled -1 and scoring exactly 0 at its first two visits"
    assert ps3.X_tie.dtype.kind == "i" and ps3.y_tie.dtype.kind == "i" and len(ps3.y_tie) == 3
    steps = pl.trace_perceptron(ps3.X_tie, ps3.y_tie, fit_intercept=False)
    visits = [s for s in steps if s.index == 1]
    assert ps3.y_tie[1] == -1 and [s.score for s in visits[:2]] == [0, 0]
    assert all(s.mistake and s.prediction == -1 for s in visits[:2])  # predicted right, and still a mistake
    assert run(ps3.X_tie, ps3.y_tie).n_epochs >= 3
    # "a single example labelled -1": it scores 0 at its first visit, a mistake that sign(0) predicts right.
    assert ps3.X_one.shape[0] == 1 and ps3.y_one[0] == -1 and run(ps3.X_one, ps3.y_one).n_mistakes == 1
    # "a single example labelled -1 with max_epochs=1": the first visit is the epoch's only mistake, so the
    # one allowed epoch makes a mistake and training has not converged.
    once = run(ps3.X_one, ps3.y_one, max_epochs=1)
    assert once.n_mistakes == 1 and not once.converged


# -- Part C and question D1: the experiment --------------------------------------------------------------

@pytest.mark.parametrize("margins, sizes", [(NOTEBOOK_MARGINS, NOTEBOOK_SIZES)]
                         + [(margins, sizes) for _, margins, sizes in ps3.EXPERIMENTS])
def test_the_experiments_data_are_as_part_c_says(margins, sizes):
    for g in margins:
        X, y, w_star = pl.make_separable(sizes["n_samples"], sizes["n_features"], margin=g,
                                         random_state=sizes["random_state"])
        assert pl.radius(X) <= 1.0 and math.isclose(np.linalg.norm(w_star), 1.0)  # "points in the unit ball"
        assert pl.margin(X, y, w_star) >= g  # "separates them through the origin with margin at least g"
        counted = run(X, y)
        assert counted.converged  # the default max_epochs is enough: the counts are the whole runs
        assert counted.n_mistakes <= pl.mistake_bound(X, y, w_star)
        # bound_experiment_values tells a columns-swapped or transposed result from a right one.
        assert counted.n_mistakes != pl.mistake_bound(X, y, w_star)
    assert sizes["n_samples"] != sizes["n_features"]  # so that swapping them changes the data


def test_the_notebook_run_has_r_close_to_one_as_the_model_answers_say():
    # D1: "the radius stays close to 1"; D2: "as in Part C, where R is close to 1".
    for g in NOTEBOOK_MARGINS:
        X, _, _ = pl.make_separable(margin=g, **NOTEBOOK_SIZES)
        assert 0.999 < pl.radius(X) <= 1.0


def test_the_numbers_quoted_by_the_model_answer_of_d1():
    results = ps3._experiment(np.array(NOTEBOOK_MARGINS), **NOTEBOOK_SIZES)
    assert results[:, 0].tolist() == list(QUOTED_MISTAKES)
    assert np.round(results[:, 1], 1).tolist() == list(QUOTED_BOUNDS)
    growth = results[1:, 1] / results[:-1, 1]
    assert np.all((3.5 < growth) & (growth < 4.5))  # "roughly quadruples each time the margin halves"
    ratio = results[:, 1] / results[:, 0]
    assert 2.5 < ratio[0] < 3.5 and ratio[-1] > 20  # "about three times ... more than twenty times"
    assert np.all(results[1:, 0] / results[:-1, 0] < growth)  # the mistakes grow more slowly


def test_where_the_proof_is_pessimistic_in_the_run_with_margin_005():
    X, y, w_star = pl.make_separable(200, 10, margin=0.05, random_state=0)
    result = run(X, y)
    k, R, gamma = result.n_mistakes, pl.radius(X), pl.margin(X, y, w_star)
    along = (result.w @ w_star) / (k * gamma)
    length = (result.w @ result.w) / (k * R**2)
    assert 3.5 < along < 4.0  # "w . w* ended at almost four times 17 gamma"
    assert 0.6 < length < 0.7  # "||w||^2 ended at about two thirds of 17 R^2"
    assert along**2 / length > 20  # "more than twenty times below the bound"
    # The marking guide: "the bound is about 23 times the 17 mistakes, and Step 1 accounts for a factor of
    # about 14 of it"; Step 2 "a factor of about 1.5 here (1/0.65)".
    assert k == 17 and round((R / gamma) ** 2 / k) == 23
    assert round(along**2) == 14 and round(length, 2) == 0.65 and round(1 / length, 1) == 1.5
    # "the distances of the points from the plane are spread evenly between the margin and 1"
    distance = np.abs(X @ w_star)
    assert distance.min() >= 0.05 and distance.max() <= 1.0
    quartiles = np.quantile(distance, [0.25, 0.5, 0.75])
    assert np.all(np.abs(quartiles - (0.05 + 0.95 * np.array([0.25, 0.5, 0.75]))) < 0.1)
    # The choice of w_star: "a factor of about 3 here (126.7 instead of 395.4 at margin 0.05; even the best
    # separator's bound is more than seven times the 17 mistakes)".
    best_low, best_high = (R / largest_margin_at_most(X, y)) ** 2, (R / largest_margin_at_least(X, y)) ** 2
    assert round(best_low, 1) == round(best_high, 1) == 126.7
    assert round((R / gamma) ** 2, 1) == 395.4 and round((R / gamma) ** 2 / best_high) == 3
    assert best_low > 7 * k


def test_the_bound_of_w_star_grows_with_the_number_of_points_through_the_margin():
    # D1's guide: "with the notebook's dimension, margin 0.05 and seed, the bound of `w_star` is 148.5 for 5 points
    # and 395.4 for 200".
    bounds = {n: pl.mistake_bound(*pl.make_separable(n, 10, margin=0.05, random_state=0)) for n in (5, 200)}
    assert round(bounds[5], 1) == 148.5 and round(bounds[200], 1) == 395.4


def test_the_smallest_bound_of_the_fibonacci_example_grows_with_the_dimension():
    # D2's guide: "there the smallest bound over all separators is 10 in 2 dimensions, 642 in 5 and 13,857 in 8".
    for d, quoted in [(2, 10), (5, 642), (8, 13857)]:
        X, y, _ = pl.make_small_margin(d)
        R = pl.radius(X)
        low, high = (R / largest_margin_at_most(X, y)) ** 2, (R / largest_margin_at_least(X, y)) ** 2
        assert round(low) == round(high) == quoted


def test_other_orders_of_the_data_come_nowhere_near_the_bound_either():
    # D1's guide: "this order was lucky" does not explain the gap; "in 100 random orders of the data with margin
    # 0.05, never more than 40 mistakes, against a bound of 395.4".
    X, y, w_star = pl.make_separable(200, 10, margin=0.05, random_state=0)
    rng = np.random.default_rng(0)
    counts = []
    for _ in range(100):
        order = rng.permutation(len(y))
        result = run(X[order], y[order])
        assert result.converged
        counts.append(result.n_mistakes)
    assert max(counts) <= 40 and round(pl.mistake_bound(X, y, w_star), 1) == 395.4


@pytest.mark.parametrize("k", [1, 2, 5, 10])
def test_the_tight_family_meets_the_bound(k):
    # D1's model answer and guide: "the chapter's optional section builds data sets that meet it exactly".
    X, y, w = pl.make_tight(k, radius=2.0, random_state=k)
    assert run(X, y).n_mistakes == k and math.isclose(pl.mistake_bound(X, y, w), k)


# -- question D2: data without a separator, and what makes the bound large ----------------------------

@pytest.mark.parametrize("seed", range(5))
def test_make_xor_is_not_separable_through_the_origin_and_never_converges(seed):
    X, y = pl.make_xor(random_state=seed)
    assert not separable_through_origin(X, y)
    assert not run(X, y, max_epochs=100).converged


def test_the_four_xor_points_cycle_from_the_first_epoch():
    X, y = pl.make_xor(4, spread=0.0)
    assert not separable_through_origin(X, y)
    steps = pl.trace_perceptron(X, y, fit_intercept=False, max_epochs=3)
    ends = [s.w for s in steps if s.index == len(y) - 1]
    assert all(s.mistake for s in steps) and all(np.array_equal(w, np.zeros(2)) for w in ends)


def test_on_integer_data_running_until_a_clean_epoch_or_a_repeat_decides_separability():
    # D2's model answer: on integer data, an epoch without a mistake or a repeat of the weights at the start of
    # an epoch must come, and which one says whether the data are separable.
    data = [(ps3.X1, ps3.y1), (ps3.X_tie, ps3.y_tie), (ps3.X3, ps3.y3), (ps3.X4, ps3.y4),
            pl.make_xor(4, spread=0.0)] + [pl.make_small_margin(d)[:2] for d in range(2, 7)]
    for X, y in data:
        assert np.array_equal(X, np.round(X))
        assert decide_by_running(X, y) == separable_through_origin(X, y)
    assert not decide_by_running(ps3.X1, ps3.y1) and decide_by_running(ps3.X_tie, ps3.y_tie)


def test_the_fibonacci_example_needs_more_updates_than_it_has_numbers():
    # "a separable data set with a tiny margin can make mistakes for a very long time": at least
    # F_(d+2) - 1 updates, exponential in d, on d examples with coordinates in {-1, 0, 1}.
    made = []
    for d in range(2, 10):
        X, y, w = pl.make_small_margin(d)
        assert separable_through_origin(X, y) and pl.margin(X, y, w) > 0
        result = run(X, y, max_epochs=10**6)
        assert result.converged and result.n_mistakes >= pl.small_margin_weights(d)[-1]
        made.append(result.n_mistakes)
    assert np.all(np.diff(np.log(made)) > np.log(1.6))


def test_a_point_near_the_origin_or_two_close_opposite_points_make_every_bound_large():
    # D2's guide: "a point very close to the origin compared with the farthest one (... every bound is at least
    # (R / ||x||)^2), and two points of opposite labels very close together compared with R (every separator's
    # margin is at most half their distance)".  Both added to data that w_star separates with margin 0.3, so that
    # they stay separable.
    X, y, w_star = pl.make_separable(40, 3, margin=0.3, random_state=5)
    on_plane = np.cross(w_star, [1.0, 0.0, 0.0])
    on_plane *= 0.5 / np.linalg.norm(on_plane)
    for s in (0.1, 0.01):
        near, near_y = np.vstack([X, s * w_star]), np.append(y, 1.0)
        assert pl.margin(near, near_y, w_star) > 0 and math.isclose(np.linalg.norm(near[-1]), s)
        assert largest_margin_at_most(near, near_y) <= s * (1 + 1e-6)
        assert (pl.radius(near) / largest_margin_at_most(near, near_y)) ** 2 >= (pl.radius(X) / s) ** 2 * (1 - 1e-6)
        pair = np.vstack([X, on_plane + s / 2 * w_star, on_plane - s / 2 * w_star])
        pair_y = np.append(y, [1.0, -1.0])
        assert pl.margin(pair, pair_y, w_star) > 0 and math.isclose(np.linalg.norm(pair[-2] - pair[-1]), s)
        assert largest_margin_at_most(pair, pair_y) <= s / 2 * (1 + 1e-6)


def test_scaling_the_data_leaves_the_bound_and_the_mistakes_alone():
    # The model answer of D2: "a large R alone is not the property".
    for X, y, w in [(ps3.X_sep, ps3.y_sep, ps3.w_star), (ps3.X3, ps3.y3, np.array([1.0, 1.0]))]:
        assert math.isclose(pl.mistake_bound(10 * X, y, w), pl.mistake_bound(X, y, w))
        assert run(10 * X, y).n_mistakes == run(X, y).n_mistakes


# -- Part C is judged with the student's own functions ---------------------------------------------------------

SOURCE = REPO_ROOT / "notebooks" / "source" / "ps3_convergence" / "ps3_convergence.ipynb"


@pytest.fixture(scope="module")
def source():
    return nbformat.read(str(SOURCE), as_version=4)


def cell_text(notebook, grade_id):
    (cell,) = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id]
    return cell.source


def verdicts_of(source, code=""):
    namespace = namespace_from(source)
    exec(compile(textwrap.dedent(code), "<answer>", "exec"), namespace)
    return {v.grade_id: v for v in evaluate_namespace(ps3.CHECKS, namespace)}


def test_part_c_hands_its_locked_cell_the_data_sets_of_bound_experiment(source):
    checks = [check for check in ps3.CHECKS if check.grade_id == "bound_experiment_values"]
    assert [check.function for check in checks] == ["experiment_with_right_functions"]
    assert [case.describe for case in checks[0].cases] == [describe for describe, _, _ in ps3.EXPERIMENTS]
    for case, (_, margins, sizes) in zip(checks[0].cases, ps3.EXPERIMENTS):
        data, answers, handed_margins = case.args
        assert handed_margins.tolist() == list(margins) and case.kwargs == sizes
        for (X, y, w_star), g, answer in zip(data, margins, answers, strict=True):
            made = pl.make_separable(sizes["n_samples"], sizes["n_features"], margin=g,
                                     random_state=sizes["random_state"])
            assert all(np.array_equal(a, b) for a, b in zip((X, y, w_star), made))
            result = run(X, y)  # the right answers, as the stand-ins of the locked cell return them
            assert answer == ((result.n_mistakes, result.converged), pl.mistake_bound(X, y, w_star), pl.radius(X))
    # "margins (0.4, 0.2) with n_samples=8, n_features=3, random_state=1", the visible case too
    describe, margins, sizes = ps3.EXPERIMENTS[0]
    assert describe == (f"margins {margins} with n_samples={sizes['n_samples']}, n_features={sizes['n_features']}, "
                        f"random_state={sizes['random_state']}")
    visible = cell_text(source, "bound_experiment_values")
    assert f'where = "{describe}"' in visible
    assert (f"experiment_with_right_functions(data, answers, margins, n_samples={sizes['n_samples']}, "
            f"n_features={sizes['n_features']}, random_state={sizes['random_state']})") in visible
    # The visible test's right answers and rows are those of the hidden case with the same description.
    namespace = {"np": np, "make_separable": pl.make_separable}
    # The notebook's numbers were printed on one machine; numpy's sums and norms may round the last bit
    # differently on another's processor (its SIMD paths), so they agree to a few units in the last place.
    exec(visible.split("results = ")[0], namespace)
    shown, hidden = namespace["answers"], checks[0].cases[0].args[1]
    assert [counts for counts, _, _ in shown] == [counts for counts, _, _ in hidden]
    assert np.allclose([values for _, *values in shown], [values for _, *values in hidden], rtol=1e-13, atol=0)
    expected = ps3._experiment(np.array(margins), **sizes)
    written = re.search(r'expect_array\("bound_experiment", results, (\[\[.*?\]\]), where,', visible)
    assert written, "the visible test does not compare the rows with expect_array"
    assert np.allclose(ast.literal_eval(written.group(1)), expected, rtol=1e-13, atol=0)
    # "four margins from 0.4 down to 0.05, halving each time, with five points in 3-D"
    assert ps3.EXPERIMENTS[1][1] == NOTEBOOK_MARGINS and np.allclose(np.diff(np.log2(NOTEBOOK_MARGINS)), -1)
    assert ps3.EXPERIMENTS[1][2]["n_samples"] == 5 and ps3.EXPERIMENTS[1][2]["n_features"] == 3
    # "three margins in 3-D"; "a single margin"
    assert len(ps3.EXPERIMENTS[2][1]) == 3 and ps3.EXPERIMENTS[2][2]["n_features"] == 3
    assert len(ps3.EXPERIMENTS[3][1]) == 1
    # The notebook's run, whose numbers D1's model answer quotes.
    run_cell = next(c.source for c in source.cells if c.source.startswith("# Run the experiment"))
    assert (f"margins = np.array({list(NOTEBOOK_MARGINS)})" in run_cell
            and "bound_experiment(margins, n_samples=200, n_features=10, random_state=0)" in run_cell)
    (cell,) = [c for c in source.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "experiment_with_right_functions"]
    assert cell.metadata["nbgrader"]["locked"] and not cell.metadata["nbgrader"]["grade"]
    assert "def experiment_with_right_functions(data, answers, margins, **kwargs):" in cell.source
    part_c = " ".join(next(c.source for c in source.cells if c.source.startswith("## Part C")).split())
    # The tests below prove these sentences.
    assert "**A mistake in Part A or B costs no point in this part**" in part_c
    assert "your own functions are put back after it" in part_c
    assert ("as long as `bound_experiment` uses `count_mistakes` and `mistake_bound` as their docstrings say "
            "(the pair `(n_mistakes, converged)`, a number)") in part_c
    # "one that always runs all `max_epochs` epochs visits 800,000 examples there"
    assert len(NOTEBOOK_MARGINS) * 1000 * NOTEBOOK_SIZES["n_samples"] == 800_000 and "800,000 examples" in part_c


def test_a_bound_experiment_built_around_a_count_mistakes_that_breaks_its_docstring_loses_part_c(source):
    # "as long as bound_experiment uses count_mistakes and mistake_bound as their docstrings say": the third
    # referee's s08, a count_mistakes returning the count alone and an experiment that takes it so.
    code = """
        def count_mistakes(X, y, *, max_epochs=1000):
            w = np.zeros(np.asarray(X).shape[1])
            made_total = 0
            for _ in range(max_epochs):
                made = 0
                for x_i, y_i in zip(np.asarray(X, dtype=float), y):
                    if y_i * (w @ x_i) <= 0:
                        w = w + y_i * x_i
                        made += 1
                made_total += made
                if made == 0:
                    break
            return made_total

        def bound_experiment(margins, *, n_samples, n_features, random_state):
            rows = []
            for g in margins:
                X, y, w_star = make_separable(n_samples, n_features, margin=g, random_state=random_state)
                rows.append([count_mistakes(X, y), mistake_bound(X, y, w_star)])
            return np.array(rows, dtype=float)
        """
    verdicts = verdicts_of(source, code)
    assert not verdicts["count_mistakes_values"].passed and not verdicts["bound_experiment_values"].passed
    # The right count_mistakes hands back a pair, which this experiment puts in its row as it is.
    message = verdicts["bound_experiment_values"].message
    assert "raised ValueError" in message and "the exception comes from bound_experiment" in message


PART_A_OR_B_MISTAKES = [
    "radius_largest_coordinate", "bound_ignores_radius", "bound_forgets_the_labels",
    "bound_returns_none_when_not_separating", "count_on_plane_is_not_a_mistake", "count_folds_the_labels_into_X_in_place",
    # The referee's random counts: a new order in every epoch, a random start, a seeded generator shared by every call.
    "count_shuffled_order", "count_shuffled_order_each_epoch", "count_random_start",
    "count_seeded_shuffle_shared_by_every_call"]
STUBS = {name: f"def {name}(*args, **kwargs):\n    raise NotImplementedError()\n"
         for name in ("radius", "mistake_bound", "count_mistakes")}


@pytest.mark.parametrize("wrong", PART_A_OR_B_MISTAKES + sorted(STUBS))
def test_a_right_part_c_on_a_wrong_part_a_or_b_earns_its_points_and_a_wrong_one_does_not(source, wrong):
    # Part C's text: "A mistake in Part A or B costs no point in this part, whatever it is: a wrong value, a random
    # result, an exception".  Three runs, since the random mistakes give other counts at each run.
    helper = STUBS.get(wrong) or next(k for k in load_known_wrong("ps3_convergence") if k.name == wrong).code()
    for _ in range(3):
        verdicts = verdicts_of(source, helper)
        assert not all(v.passed for v in verdicts.values()) and verdicts["bound_experiment_values"].passed
    swapped = next(k for k in load_known_wrong("ps3_convergence") if k.name == "experiment_columns_swapped").code()
    message = verdicts_of(source, helper + swapped)["bound_experiment_values"].message
    assert "the mistakes (column 0) of bound_experiment's row for margins[0] is wrong, with right versions" in message
    assert ps3.EXPERIMENT_HINT in message and ps3.RIGHT_FUNCTIONS_CALLS not in message


def test_the_locked_cell_puts_the_students_functions_back_even_when_bound_experiment_raises(source):
    namespace = namespace_from(source)
    exec("def bound_experiment(margins, **kwargs):\n    count_mistakes(*data[0][:2])\n    raise ValueError('mine')\n"
         "alias = count_mistakes\n", namespace)
    mine = {name: namespace[name] for name in ("count_mistakes", "mistake_bound", "radius", "alias")}
    _, margins, sizes = ps3.EXPERIMENTS[0]
    data = ps3._data(margins, **sizes)
    namespace["data"] = data
    with pytest.raises(ValueError, match="mine"):
        namespace["experiment_with_right_functions"](data, ps3._answers(data), np.array(margins), **sizes)
    assert all(namespace[name] is function for name, function in mine.items())
    # A name that was not defined is removed again.
    del namespace["radius"]
    exec("def bound_experiment(margins, **kwargs):\n    return radius(data[0][0])\n", namespace)
    assert namespace["experiment_with_right_functions"](data, ps3._answers(data), np.array(margins), **sizes) == \
        pl.radius(data[0][0])
    assert "radius" not in namespace


def test_an_exception_of_part_c_is_named_in_part_c(source):
    message = verdicts_of(source, "def bound_experiment(margins, **kwargs):\n    raise NotImplementedError()\n")[
        "bound_experiment_values"].message
    assert message.startswith("experiment_with_right_functions raised NotImplementedError")
    message = verdicts_of(source, "def bound_experiment(margins, **kwargs):\n    return 1 / 0\n")[
        "bound_experiment_values"].message
    assert "raised ZeroDivisionError" in message and message.endswith(ps3.RIGHT_FUNCTIONS_CALLS)


def test_the_visible_test_tells_a_bound_of_none_to_return_math_inf(source):
    namespace = namespace_from(source)
    exec(next(k for k in load_known_wrong("ps3_convergence")
              if k.name == "bound_returns_none_when_not_separating").code(), namespace)
    visible = cell_text(source, "bound_not_separating").split("### BEGIN HIDDEN TESTS")[0]
    with pytest.raises(AssertionError) as info:
        exec(visible, namespace)
    assert "expected math.inf" in str(info.value) and "return statement" not in str(info.value)


# -- no hidden call is too long for a right count_mistakes written as a plain loop ------------------------------

# What one visit of an example costs the slowest plain loop we timed, one that reads X[i][j] an element at a time
# on 10 features, on the shared 2-core machine under load; a numpy dot product per visit costs 1 to 2 microseconds.
SLOWEST_VISIT_SECONDS = 5e-6


def test_no_hidden_call_makes_a_count_mistakes_running_all_max_epochs_visit_more_than_the_budget(source):
    # Part C's text: "a right `count_mistakes` returns in time on them even if it runs all `max_epochs` epochs".
    # Each hidden call of a student's function has its own time limit, never below min_call_seconds. A right
    # count_mistakes that never stops early visits len(X) examples in each of max_epochs epochs, and none visits
    # more; the visits are counted here, not timed, so that the test does not depend on the machine's load.
    assert ps3.VISIT_BUDGET * SLOWEST_VISIT_SECONDS <= load_limits(COURSE).min_call_seconds / 5
    visits, features = [], []

    def count_mistakes(X, y, *, max_epochs=1000):
        visits.append(len(X) * max_epochs)
        features.append(np.shape(X)[1])
        return ps3._count(X, y, max_epochs=max_epochs)

    namespace = namespace_from(source)
    namespace["count_mistakes"] = count_mistakes  # the one bound_experiment and the locked cell call too
    per_call = {}
    for check in ps3.CHECKS:
        for case in check.cases:
            visits.clear()
            namespace[check.function](*case.args, **case.kwargs)
            per_call[f"{check.function} on {case.describe}"] = sum(visits)
    too_long = {call: n for call, n in per_call.items() if n > ps3.VISIT_BUDGET}
    assert too_long == {}
    assert max(features) <= 10  # the number of features SLOWEST_VISIT_SECONDS was timed with
    # Part C's locked cell calls none of the student's count_mistakes on its data sets; a bound_experiment with a
    # training loop of its own that never stops early visits each data set 1000 times.
    assert all(n == 0 for call, n in per_call.items() if call.startswith("experiment_with_right_functions"))
    assert max(1000 * sizes["n_samples"] * len(margins) for _, margins, sizes in ps3.EXPERIMENTS) <= ps3.VISIT_BUDGET
    assert per_call["count_mistakes on forty separable points in 4-D"] == 40 * 1000


# -- right answers written differently never lose a point ---------------------------------------------------------

RIGHT_ANSWERS = {
    "numpy scalars everywhere, np.float64(inf), and a while loop": """
        def radius(X):
            return np.max(np.sqrt(np.sum(np.asarray(X, dtype=float) ** 2, axis=1)))

        def mistake_bound(X, y, w):
            X, w = np.asarray(X, dtype=float), np.asarray(w, dtype=float)
            gamma = np.min(y * (X @ w)) / np.linalg.norm(w)
            if gamma <= 0:
                return np.float64(np.inf)
            return (radius(X) / gamma) ** 2

        def count_mistakes(X, y, *, max_epochs=1000):
            X = np.asarray(X, dtype=float)
            w = np.zeros(X.shape[1])
            n_mistakes, epoch, made = np.int64(0), 0, 1
            while made and epoch < max_epochs:
                epoch += 1
                made = 0
                for i in range(len(y)):
                    if y[i] * np.dot(w, X[i]) <= 0:
                        w = w + y[i] * X[i]
                        made += 1
                n_mistakes += made
            return n_mistakes, np.bool_(made == 0)
        """,
    "a check for a separator before each epoch, and the rows filled into an empty array": """
        def count_mistakes(X, y, *, max_epochs=1000):
            X, y = np.asarray(X, dtype=float), np.asarray(y, dtype=float)
            w = np.zeros(X.shape[1])
            n_mistakes = 0
            for _ in range(max_epochs):
                if np.all(y * (X @ w) > 0):  # this epoch would make no mistake
                    return n_mistakes, True
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i) <= 0:
                        w = w + y_i * x_i
                        n_mistakes += 1
            return n_mistakes, False

        def bound_experiment(margins, *, n_samples=200, n_features=10, random_state=0):
            results = np.empty((len(margins), 2))
            for k, g in enumerate(margins):
                X, y, w_star = make_separable(n_samples, n_features, margin=g, random_state=random_state)
                results[k, 0] = count_mistakes(X, y)[0]
                results[k, 1] = mistake_bound(X, y, w_star)
            return results
        """,
    "plain Python lists and numbers, a list for the pair, and the rows from a list comprehension": """
        def radius(X):
            return max(sum(v * v for v in row) ** 0.5 for row in np.asarray(X, dtype=float).tolist())

        def count_mistakes(X, y, *, max_epochs=1000):
            points = np.asarray(X, dtype=float).tolist()
            labels = [float(v) for v in y]
            w = [0.0] * len(points[0])
            n_mistakes = 0
            for _ in range(max_epochs):
                made = 0
                for x, label in zip(points, labels):
                    if label * sum(a * b for a, b in zip(w, x)) <= 0:
                        w = [a + label * b for a, b in zip(w, x)]
                        made += 1
                n_mistakes += made
                if made == 0:
                    return [n_mistakes, True]
            return [n_mistakes, False]

        def bound_experiment(margins, *, n_samples=200, n_features=10, random_state=0):
            data = [make_separable(n_samples, n_features, margin=g, random_state=random_state) for g in margins]
            return np.array([[count_mistakes(X, y)[0], mistake_bound(X, y, w)] for X, y, w in data], dtype=float)
        """,
    "all max_epochs epochs run, with no early stop (the count and the flag come out the same)": """
        def count_mistakes(X, y, *, max_epochs=1000):
            X = np.asarray(X, dtype=float)
            w = np.zeros(X.shape[1])
            n, made = 0, 0
            for e in range(max_epochs):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i) <= 0:
                        w = w + y_i * x_i
                        made += 1
                n += made
            return n, made == 0
        """,
    "an element at a time with indices, and no early stop": """
        def count_mistakes(X, y, *, max_epochs=1000):
            w = [0.0] * len(X[0])
            n_mistakes, made = 0, 0
            for epoch in range(max_epochs):
                made = 0
                for i in range(len(X)):
                    score = 0.0
                    for j in range(len(w)):
                        score += w[j] * X[i][j]
                    if y[i] * score <= 0:
                        for j in range(len(w)):
                            w[j] += y[i] * X[i][j]
                        made += 1
                n_mistakes += made
            return int(n_mistakes), made == 0
        """,
    "a Gram-matrix radius and the margin of the unit vector": """
        def radius(X):
            X = np.asarray(X, dtype=float)
            return float(np.sqrt(np.max(np.diag(X @ X.T))))

        def mistake_bound(X, y, w):
            u = np.asarray(w, dtype=float) / np.linalg.norm(w)
            gamma = min(float(y_i) * float(u @ x_i) for x_i, y_i in zip(np.asarray(X, dtype=float), y))
            return (radius(X) / gamma) ** 2 if gamma > 0 else math.inf
        """,
}


@pytest.mark.parametrize("name", sorted(RIGHT_ANSWERS))
def test_right_answers_written_differently_get_full_marks(source, name):
    failed = [(v.grade_id, v.message) for v in verdicts_of(source, RIGHT_ANSWERS[name]).values() if not v.passed]
    assert failed == []


def test_an_infinite_bound_as_any_numpy_float_is_infinity():
    """The probe keeps a float32's dtype: a bound of np.float32(inf) where infinity is right passes, as np.inf does,
    and a finite one gets the message about the number, not about NaN."""
    for infinite in (math.inf, np.float64("inf"), np.float32("inf"), np.array(np.float32("inf"))):
        assert ps3._compare_bound(infinite, math.inf) is None, infinite
    assert ps3._compare_bound(np.float32(3.0), math.inf) == "returned the wrong number"
