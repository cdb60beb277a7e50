"""Hidden checks of problem set 3: the radius, the mistake bound, counting mistakes, the experiment.

The hidden cases use separators of any length (forgetting ``||w||``), a
farthest point that is not the largest coordinate, planes that misclassify or
touch a point (the bound is ``math.inf``), a single example, data that never
converges through the origin (once with the default ``max_epochs``, which it
tells from any other), training that converges in exactly the last allowed
epoch and training that is one epoch short of converging (the ``converged``
flag and the epoch count off by one), a single epoch whose only mistake is the
first visit (a first update made before the loop, outside the epoch's count),
points that score exactly 0 with either label (a mistake, whatever the sign of 0
is taken to predict), integer arrays, and other margins, sizes and seeds for the
experiment.  Every claim a case's description makes about its data is asserted
in ``tests/grader/course/test_ps3_claims.py``.
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


def _experiment(margins, *, n_samples=200, n_features=10, random_state=0):
    rows = []
    for g in margins:
        X, y, w_star = pl.make_separable(n_samples, n_features, margin=float(g), random_state=random_state)
        rows.append([pl.train_perceptron(X, y, fit_intercept=False, max_epochs=1000).n_mistakes,
                     pl.mistake_bound(X, y, w_star)])
    return np.array(rows, dtype=float)


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
        ],
        expected=_bound,
        compare=_compare_bound,
        hint="Compute R = max ||x_i|| and gamma = min y_i (w . x_i) / ||w||, then (R / gamma)^2.",
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
    Check(
        grade_id="bound_experiment_values",
        function="bound_experiment",
        cases=[
            Case("margins (0.4, 0.2) with n_samples=50, n_features=5, random_state=1", (np.array([0.4, 0.2]),),
                 {"n_samples": 50, "n_features": 5, "random_state": 1}, visible=True),
            Case("four margins with the default sizes and seed", (np.array([0.4, 0.2, 0.1, 0.05]),)),
            Case("three margins in 3-D with another seed", (np.array([0.3, 0.15, 0.08]),),
                 {"n_samples": 60, "n_features": 3, "random_state": 4}),
            Case("a single margin", (np.array([0.25]),), {"n_samples": 30, "n_features": 2, "random_state": 9}),
        ],
        expected=_experiment,
        hint="For each margin, call make_separable(n_samples, n_features, margin=g, random_state=random_state) "
             "and put the mistakes and the bound for w_star in one row.",
    ),
]
