"""Hidden checks of problem set 3: the radius, the mistake bound, counting mistakes, the experiment.

The hidden cases use separators of any length (forgetting ``||w||``), a
farthest point that is not the largest coordinate, planes that misclassify or
touch a point (the bound is ``math.inf``), data that never converges through
the origin (once with the default ``max_epochs``, which it tells from any
other), and other margins, sizes and seeds for the experiment.
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
    """Like :func:`compare_values`, except that ``math.inf`` must be returned exactly."""
    if math.isinf(expected):
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
X_wide = np.array([[0.5, 6.0], [-1.0, -1.0], [4.0, 4.5], [-3.0, 0.5]])
y_wide = np.array([1.0, -1.0, 1.0, -1.0])

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
        hint="When gamma <= 0 (a point on the wrong side or on the plane) there is no bound: return math.inf.",
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
        ],
        expected=_count,
        hint="Start from w = 0, update on y (w . x) <= 0 without an offset, and stop after a clean epoch or max_epochs.",
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
