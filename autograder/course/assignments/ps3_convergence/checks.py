"""Hidden checks of problem set 3: the radius, the mistake bound, counting mistakes, the experiment.

The hidden cases use separators of any length (forgetting ``||w||``), a
farthest point that is not the largest coordinate, points inside a ball of
radius 0.5 (a bound of ``1 / gamma^2``, without R, is then four times too
large), planes that misclassify or touch a point (the bound is ``math.inf``),
a single example, data that never converges through the origin (once with the
default ``max_epochs``, which it tells from any other), training that converges
in exactly the last allowed epoch and training that is one epoch short of
converging (the ``converged`` flag and the epoch count off by one), a single
epoch whose only mistake is the first visit (a first update made before the
loop, outside the epoch's count), points that score exactly 0 with either label
(a mistake, whatever the sign of 0 is taken to predict), integer arrays, and
several margins, sizes and seeds for the experiment.  Every claim a case's
description makes about its data is asserted in
``tests/grader/course/test_ps3_claims.py``.

Every case is small enough for a right ``count_mistakes`` written as a plain
Python loop, even one that runs all ``max_epochs`` epochs instead of stopping
after the first epoch without a mistake: no hidden call makes such a function
visit more than :data:`VISIT_BUDGET` examples, far below what a Python loop
visits in the shortest time a hidden test allows one call (the claims test
counts the visits of every case).  So Part C's experiments use a few points in
2 or 3 dimensions, and ``bound_experiment`` has no default sizes or seed (the
notebook's own run passes them): a case that left them out would need its
default 200 points, 200,000 visits per margin for such a function.

Part C asks for the experiment run with the student's own ``count_mistakes``
and ``mistake_bound``, so it is judged with them, and a mistake in Part A or B
costs no point in Part C unless it makes a function raise.  Its first check
calls ``bound_experiment`` itself and requires only an array with one row per
margin, so that a stub or an exception of Part C is reported under its own
name.  The others call ``experiment_with_your_functions``, a locked cell of the
notebook: it calls the student's ``bound_experiment``, then their
``count_mistakes`` and ``mistake_bound`` on the data sets of the same margins,
which the host makes with ``make_separable`` and hands it; each row of
``bound_experiment``'s result must hold what those functions gave for its data
set (:func:`_compare_with_your_functions`), or the reference's values, which a
right Part C returns with right functions.
"""

import math

import numpy as np

import perceptron_lib as pl

from autograder.judging.checks import Case, Check, compare_values


def _bound(X, y, w):
    if pl.margin(X, y, w) <= 0:
        return math.inf
    return pl.mistake_bound(X, y, w)


def _compare_bound(got, expected):
    """Like :func:`compare_values`, except that the infinite bound must be ``+inf`` exactly.

    A 0-d numeric array stands for its number, as :func:`compare_values` takes it for a finite bound.
    """
    if math.isinf(expected):
        if isinstance(got, np.ndarray) and got.shape == () and got.dtype.kind in "biuf":
            got = got.item()
        if type(got) is float and got == math.inf:
            return None
        if type(got) in (int, float):
            return "returned the wrong number"
        return compare_values(got, 1.0)  # the same message about the type as for any number
    return compare_values(got, expected)


def _count(X, y, *, max_epochs=1000):
    result = pl.train_perceptron(X, y, fit_intercept=False, max_epochs=max_epochs)
    return int(result.n_mistakes), bool(result.converged)


def _experiment(margins, *, n_samples, n_features, random_state):
    rows = []
    for g in margins:
        X, y, w_star = pl.make_separable(n_samples, n_features, margin=float(g), random_state=random_state)
        rows.append([pl.train_perceptron(X, y, fit_intercept=False, max_epochs=1000).n_mistakes,
                     pl.mistake_bound(X, y, w_star)])
    return np.array(rows, dtype=float)


def _data(margins, *, n_samples, n_features, random_state):
    """The data sets of Part C's experiment, one ``(X, y, w_star)`` per margin, as ``bound_experiment`` makes them."""
    return [pl.make_separable(n_samples, n_features, margin=float(g), random_state=random_state) for g in margins]


def _what_it_is(value):
    return getattr(value, "description", None) or f"a value of type {type(value).__name__}"


def _rows_problem(got, expected):
    """``None`` if ``got`` is a numeric array of ``expected``'s shape, one row per margin, else the reason.

    The values are not judged here: infinity and NaN are allowed, since the student's own ``mistake_bound`` may
    give them, and :func:`_compare_with_your_functions` judges the values with the student's functions."""
    shape = expected.shape
    if not (isinstance(got, np.ndarray) and got.dtype.kind in "biuf"):
        return (f"returned {_what_it_is(got)}; expected a numpy array of shape {shape}, one row (mistakes, bound) "
                "per margin")
    if got.shape != shape:
        return f"returned an array of shape {got.shape}; expected shape {shape}, one row (mistakes, bound) per margin"
    return None


def _your_rows(yours, n_rows):
    """The rows ``(mistakes, bound)`` that the student's ``count_mistakes`` and ``mistake_bound`` gave, as
    ``experiment_with_your_functions`` returns them (one ``(count_mistakes(X, y), mistake_bound(X, y, w_star))``
    per data set), as a float array, as ``np.array(rows, dtype=float)`` makes it (``None`` becomes NaN);
    ``None`` when they cannot make rows of numbers."""
    if not (isinstance(yours, (list, tuple)) and len(yours) == n_rows):
        return None
    rows = []
    for pair in yours:
        if not (isinstance(pair, (list, tuple)) and len(pair) == 2):
            return None
        counted, bound = pair
        if not (isinstance(counted, (list, tuple)) and len(counted) == 2):
            return None
        values = (counted[0], bound)
        if not all(v is None or type(v) in (bool, int, float) for v in values):
            return None
        rows.append([math.nan if v is None else float(v) for v in values])
    return np.array(rows, dtype=float)


def _experiment_rows(data, margins, **kwargs):
    """What a right ``bound_experiment`` returns with right functions: the reference's rows."""
    return _experiment(margins, **kwargs)


def _compare_with_your_functions(got, expected):
    """``None`` if ``bound_experiment``'s rows, as ``experiment_with_your_functions`` returned them, are those that
    the student's own ``count_mistakes`` and ``mistake_bound`` give on the experiment's data sets (or the
    reference's, ``expected``), else the reason."""
    if not (isinstance(got, (tuple, list)) and len(got) == 2):
        return ("returned something other than what the locked cell's experiment_with_your_functions returns: has "
                "the cell been changed?")
    results, yours = got
    problem = _rows_problem(results, expected)
    if problem:
        return f"found that bound_experiment {problem}"
    if compare_values(results, expected) is None:
        return None
    own = _your_rows(yours, len(expected))
    if own is None:
        return ("found that bound_experiment did not return the right rows, and that your count_mistakes or "
                "mistake_bound returns something other than numbers on these data sets (count_mistakes a pair "
                "(n_mistakes, converged), mistake_bound a float): fix their cells first")
    # The student's bound may be infinite or NaN: equal where theirs is, as np.array(rows, dtype=float) keeps it.
    if np.allclose(results.astype(float), own, rtol=1e-7, atol=1e-9, equal_nan=True):
        return None
    wrong = [k for k in range(len(own))
             if not np.allclose(results[k].astype(float), own[k], rtol=1e-7, atol=1e-9, equal_nan=True)]
    return (f"found that bound_experiment's row for margins[{wrong[0]}] is not the mistakes that your "
            "count_mistakes counts and the bound that your mistake_bound gives for w_star on that margin's data set")


X4, y4 = pl.four_point_example()
X1, y1 = pl.one_dimensional_example()
X3 = np.array([[3.0, 4.0], [-1.0, 0.0], [0.0, -2.0]])
y3 = np.array([1.0, -1.0, -1.0])
X_sep, y_sep, w_star = pl.make_separable(40, 4, margin=0.15, radius=3.0, random_state=11)
X_xor, y_xor = pl.make_xor(16, spread=0.1, random_state=12)
# Norms 6.02, 1.41, 6.10, 3.04: pairwise different, and the farthest point, (4, 4.6), is not the closest to (1, 1).
X_wide = np.array([[0.5, 6.0], [-1.0, -1.0], [4.0, 4.6], [-3.0, 0.5]])
y_wide = np.array([1.0, -1.0, 1.0, -1.0])
# Converges after 29 mistakes in its 14th epoch: max_epochs=14 converges in the last allowed epoch, 13 is one short.
X_slow, y_slow, _ = pl.make_separable(30, 3, margin=0.02, random_state=3)
# Integers; the second point, labelled -1, scores 0 at its visits in the first two epochs (w = (1, 0), then (2, 0)).
X_tie = np.array([[1, 0], [0, 1], [1, 1]])
y_tie = np.array([1, -1, 1])
X_one, y_one = np.array([[0.5, -2.0, 1.0]]), np.array([-1.0])
# Inside a ball of radius 0.5, so that (R / gamma)^2 is a quarter of 1 / gamma^2.
X_half, y_half, w_half = pl.make_separable(30, 5, margin=0.1, radius=0.5, random_state=21)

RADIUS_FIRST = ("mistake_bound calls your radius: if the error comes from radius (not written yet, or raising on "
                "these points), write or fix it first, with its own test.")
EXPERIMENT_CALLS = ("bound_experiment calls your count_mistakes and mistake_bound (which calls your radius): if one of "
                    "them is not written yet or raises, write or fix it first, with its own test.")
YOUR_FUNCTIONS_CALLS = ("experiment_with_your_functions calls your bound_experiment, then your count_mistakes and "
                        "mistake_bound on the same data sets: if one of them is not written yet or raises, write or "
                        "fix it first, with its own test.")
EXPERIMENT_HINT = ("For each margin g, make the data set with make_separable(n_samples, n_features, margin=g, "
                   "random_state=random_state), and put in one row the mistakes your count_mistakes counts on it "
                   "(default max_epochs) and the bound your mistake_bound gives for w_star. This test judges those "
                   "rows with your own count_mistakes and mistake_bound, whether or not they pass their own tests.")

# The most examples that a right count_mistakes running all max_epochs epochs may visit in one hidden call: at the
# 5 microseconds a visit of the slowest plain loop (an element at a time, on 10 features, on a loaded machine), a
# fifth of the shortest limit a hidden call gets (min_call_seconds, 1 s).
VISIT_BUDGET = 40_000

# Part C's cases: (description, margins, sizes and seed).  experiment_with_your_functions counts every data set
# twice (in bound_experiment, then on its own), 2 * 1000 * n_samples * len(margins) visits at most: 40,000 here.
EXPERIMENTS = [
    ("margins (0.4, 0.2) with n_samples=8, n_features=3, random_state=1", (0.4, 0.2),
     {"n_samples": 8, "n_features": 3, "random_state": 1}),
    ("four margins from 0.4 down to 0.05, halving each time, with five points in 3-D", (0.4, 0.2, 0.1, 0.05),
     {"n_samples": 5, "n_features": 3, "random_state": 2}),
    ("three margins in 3-D with another seed", (0.3, 0.15, 0.08), {"n_samples": 6, "n_features": 3, "random_state": 4}),
    ("a single margin", (0.25,), {"n_samples": 15, "n_features": 2, "random_state": 9}),
]

CHECKS = [
    Check(
        grade_id="radius_values",
        function="radius",
        cases=[
            Case("the points (3, 4), (1, 0), (-2, -2)", (np.array([[3.0, 4.0], [1.0, 0.0], [-2.0, -2.0]]),), visible=True),
            Case("the four-point example", (X4,), visible=True),
            Case("points whose largest coordinate is not in the point farthest from the origin",
                 (np.array([[5.0, 0.0], [4.0, 4.0], [-1.0, 0.5]]),)),
            Case("forty points in 4-D inside a ball of radius 3", (X_sep,)),
            Case("a single point with negative coordinates", (np.array([[-2.0, -1.0, -2.0]]),)),
            Case("integer points", (np.array([[1, 2], [-6, 8], [0, 3]]),)),
        ],
        expected=pl.radius,
        hint="R is the largest Euclidean norm of a row of X.",
    ),
    Check(
        grade_id="bound_values",
        function="mistake_bound",
        cases=[
            Case("the four-point example with w = (1, 1)", (X4, y4, np.array([1.0, 1.0])), visible=True),
            Case("the four-point example with w = (5, 5)", (X4, y4, np.array([5.0, 5.0])), visible=True),
            Case("the points (3, 4), (-1, 0), (0, -2) labelled +1, -1, -1 with w = (1, 1)", (X3, y3, np.array([1.0, 1.0])),
                 visible=True),
            Case("separable points in 4-D with their separator scaled by 0.3", (X_sep, y_sep, 0.3 * w_star)),
            Case("four points where the farthest point is not the closest to the plane", (X_wide, y_wide, np.array([1.0, 1.0]))),
            Case("the four-point example with a separating w that is not along (1, 1)", (X4, y4, np.array([3.0, 1.0]))),
            Case("a single example labelled -1 with a w that separates it", (X_one, y_one, np.array([0.0, 2.0, 0.0]))),
            Case("thirty separable points in 5-D inside a ball of radius 0.5, with their separator",
                 (X_half, y_half, w_half)),
        ],
        expected=_bound,
        compare=_compare_bound,
        hint="Compute R = max ||x_i|| and gamma = min y_i (w . x_i) / ||w||, then (R / gamma)^2.",
        hint_on_exception=RADIUS_FIRST,
    ),
    Check(
        grade_id="bound_not_separating",
        function="mistake_bound",
        cases=[
            Case("the four-point example with w = (1, -1), which misclassifies two points", (X4, y4, np.array([1.0, -1.0])),
                 visible=True),
            Case("the four-point example with w = (1, 0), which puts two points on the plane", (X4, y4, np.array([1.0, 0.0])),
                 visible=True),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = 1", (X1, y1, np.array([1.0]))),
            Case("separable points in 4-D with their separator turned around", (X_sep, y_sep, -w_star)),
            Case("separable points in 4-D with a separator that gets exactly one point wrong",
                 (np.vstack([X_sep, [2 * w_star]]), np.append(y_sep, -1.0), w_star)),
            Case("sixteen XOR points and w = (1, 1)", (X_xor, y_xor, np.array([1.0, 1.0]))),
        ],
        expected=_bound,
        compare=_compare_bound,
        hint="When gamma <= 0 (a point on the wrong side or on the plane), this w gives no bound: return math.inf.",
        hint_on_exception="When gamma <= 0, return math.inf before dividing by gamma, rather than raising. "
                          + RADIUS_FIRST,
    ),
    Check(
        grade_id="count_mistakes_values",
        function="count_mistakes",
        cases=[
            Case("the four-point example", (X4, y4), visible=True),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1, with max_epochs=5", (X1, y1), {"max_epochs": 5},
                 visible=True),
            Case("forty separable points in 4-D", (X_sep, y_sep)),
            Case("sixteen XOR points with max_epochs=7", (X_xor, y_xor), {"max_epochs": 7}),
            Case("four points in the plane at different distances from the origin", (X_wide, y_wide)),
            Case("the points (3, 4), (-1, 0), (0, -2) labelled +1, -1, -1", (X3, y3)),
            Case("sixteen XOR points, which never converge, with the default max_epochs", (X_xor, y_xor)),
            Case("the four-point example with max_epochs=2, so that training converges in the last allowed epoch",
                 (X4, y4), {"max_epochs": 2}),
            Case("the four-point example with max_epochs=1, whose one epoch makes mistakes and ends with weights "
                 "that separate the data", (X4, y4), {"max_epochs": 1}),
            Case("thirty separable points in 3-D with max_epochs=14, the epoch in which training converges",
                 (X_slow, y_slow), {"max_epochs": 14}),
            Case("thirty separable points in 3-D with max_epochs=13, one epoch before training would converge",
                 (X_slow, y_slow), {"max_epochs": 13}),
            Case("three integer points, one of them labelled -1 and scoring exactly 0 at its first two visits",
                 (X_tie, y_tie)),
            Case("a single example labelled -1", (X_one, y_one)),
            Case("a single example labelled -1 with max_epochs=1", (X_one, y_one), {"max_epochs": 1}),
        ],
        expected=_count,
        hint="Start from w = 0, update on y (w . x) <= 0 without an offset (a score of 0 is a mistake whatever "
             "the label), and stop after the first epoch without a mistake or after max_epochs epochs; converged "
             "is True exactly when an epoch without a mistake was run, the last allowed one included.",
    ),
    # Part C: bound_experiment alone, for its shape, then its rows against the student's own functions' values.
    # No case is marked visible: a failure would show the reference's rows, which need not be what the
    # student's own functions give.
    Check(
        grade_id="bound_experiment_values",
        function="bound_experiment",
        cases=[Case(EXPERIMENTS[0][0], (np.array(EXPERIMENTS[0][1]),), EXPERIMENTS[0][2])],
        expected=_experiment,
        compare=_rows_problem,
        hint="Return np.array(rows, dtype=float), with one row [mistakes, bound] for each margin, in their order.",
        hint_on_exception=EXPERIMENT_CALLS,
    ),
    Check(
        grade_id="bound_experiment_values",
        function="experiment_with_your_functions",
        cases=[Case(describe, (_data(margins, **sizes), np.array(margins)), sizes)
               for describe, margins, sizes in EXPERIMENTS],
        expected=_experiment_rows,
        compare=_compare_with_your_functions,
        # The student's count_mistakes or mistake_bound may change the arrays they are given: Parts A and B judge that.
        allow_mutation=True,
        hint=EXPERIMENT_HINT,
        hint_on_exception=YOUR_FUNCTIONS_CALLS,
    ),
]
