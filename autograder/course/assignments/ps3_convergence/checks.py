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
counts the visits of every case, including those of a ``bound_experiment``
with a training loop of its own).  So Part C's experiments use a few points in
2 or 3 dimensions, and ``bound_experiment`` has no default sizes or seed (the
notebook's own run passes them).

Part C's policy: **a mistake in Part A or B costs no point in Part C**,
whatever it is: a wrong value, a random result, an exception (a stub still
raising ``NotImplementedError``), a slow loop or a missing function, as long
as ``bound_experiment`` uses them as their docstrings say (a ``count_mistakes``
returning something else, and a ``bound_experiment`` built around it, fail
Part C with the right versions in place).  Part C
is judged with right versions of ``radius``, ``mistake_bound`` and
``count_mistakes``.  Its one check calls ``experiment_with_right_functions``,
a locked cell of the notebook, with the data sets of the experiment (which the
host makes with ``make_separable``) and the right answers on them: during its
one call of the student's ``bound_experiment``, every name of the notebook
bound to one of those three functions (and the name itself) refers instead to
a stand-in that returns the right answer on the experiment's data sets
(``count_mistakes`` with the default ``max_epochs``, ``mistake_bound`` for
``w_star`` or a positive multiple of it, ``radius``) and calls the student's
function on any other input; a ``finally`` puts the student's functions back,
even when ``bound_experiment`` raises.  So ``bound_experiment`` must return the
reference's rows, which a right Part C does whatever Parts A and B hold, and
which Part C's mistakes (the wrong data sets, ``max_epochs``, columns, shape or
bound) do not give.  A ``bound_experiment`` with a loop of its own instead of
``count_mistakes`` passes when its numbers are right.  Only a ``bound_experiment``
that calls a Part A or B function on other data than the experiment's depends on
the student's function, and it is then wrong already.
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
        if (isinstance(got, np.ndarray) and got.shape == () and got.dtype.kind in "biuf") or isinstance(got, np.floating):
            got = got.item()  # a numpy number, of any float dtype, stands for the Python number it holds
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
    """``None`` if ``got`` is a numeric array of ``expected``'s shape, one row per margin, else the reason."""
    shape = expected.shape
    if not (isinstance(got, np.ndarray) and got.dtype.kind in "biuf"):
        return (f"returned {_what_it_is(got)}; expected a numpy array of shape {shape}, one row (mistakes, bound) "
                "per margin")
    if got.shape != shape:
        return f"returned an array of shape {got.shape}; expected shape {shape}, one row (mistakes, bound) per margin"
    return None


def _answers(data):
    """The right answers on the experiment's data sets, as ``experiment_with_right_functions`` takes them: for each
    ``(X, y, w_star)``, ``((n_mistakes, converged), mistake_bound(X, y, w_star), radius(X))``."""
    return [(_count(X, y), float(pl.mistake_bound(X, y, w_star)), float(pl.radius(X))) for X, y, w_star in data]


def _experiment_rows(data, answers, margins, **kwargs):
    """What a right ``bound_experiment`` returns: the reference's rows."""
    return _experiment(margins, **kwargs)


def _compare_rows(got, expected):
    """``None`` if ``bound_experiment``'s rows, as ``experiment_with_right_functions`` returned them, are the
    reference's, else the reason, naming the first wrong row and column."""
    problem = _rows_problem(got, expected)
    if problem:
        return f"found that bound_experiment {problem}"
    if compare_values(got, expected) is None:
        return None
    close = np.isclose(got.astype(float), expected, rtol=1e-7, atol=1e-9)
    k = int(np.flatnonzero(~close.all(axis=1))[0])
    column = "the mistakes (column 0)" if not close[k, 0] else "the bound (column 1)"
    return (f"found that {column} of bound_experiment's row for margins[{k}] is wrong, with right versions of "
            "count_mistakes, mistake_bound and radius in place of yours")


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
RIGHT_FUNCTIONS_CALLS = ("experiment_with_right_functions only calls your bound_experiment, with right versions of "
                         "count_mistakes, mistake_bound and radius in place of yours on the experiment's data sets: "
                         "the exception comes from bound_experiment, or from a function of yours that it calls on "
                         "other data.")
EXPERIMENT_HINT = ("For each margin g, make the data set with make_separable(n_samples, n_features, margin=g, "
                   "random_state=random_state), and put in one row the mistakes count_mistakes counts on it "
                   "(default max_epochs) and the bound mistake_bound gives for w_star. This test runs bound_experiment "
                   "with right versions of count_mistakes, mistake_bound and radius in place of yours, which return "
                   "what their docstrings say (count_mistakes the pair (n_mistakes, converged)): use them so.")

# The most examples that a right count_mistakes running all max_epochs epochs may visit in one hidden call: at the
# 5 microseconds a visit of the slowest plain loop we timed (an element at a time, on 10 features, on a loaded
# machine; the hidden cases have at most 5), a fifth of the shortest limit a hidden call gets (min_call_seconds, 1 s).
VISIT_BUDGET = 40_000

# Part C's cases: (description, margins, sizes and seed).  experiment_with_right_functions calls no count_mistakes of
# the student's on the experiment's data sets; a bound_experiment with a training loop of its own that never stops
# early visits 1000 * n_samples * len(margins) examples, at most 20,000 here.
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
    # Part C, judged with right versions of the functions of Parts A and B (see the module's docstring). No case is
    # marked visible: the visible test of the notebook runs its own case through the same locked cell.
    Check(
        grade_id="bound_experiment_values",
        function="experiment_with_right_functions",
        cases=[Case(describe, (data, _answers(data), np.array(margins)), sizes)
               for describe, margins, sizes in EXPERIMENTS
               for data in [_data(margins, **sizes)]],
        expected=_experiment_rows,
        compare=_compare_rows,
        hint=EXPERIMENT_HINT,
        hint_on_exception=RIGHT_FUNCTIONS_CALLS,
    ),
]
