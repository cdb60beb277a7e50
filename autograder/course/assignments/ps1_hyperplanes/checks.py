"""Hidden checks of problem set 1: signed distance, side of the plane, margin, separation.

The visible cases repeat the notebook's visible tests; the hidden ones use
other dimensions, lengths of ``w``, offsets and integer inputs, and put data
points exactly on the plane, where ``sign(0) = -1`` and ``> 0`` versus ``>= 0``
decide the answer. Points just off the plane, with scores of about 0.001, 0.00001 and 1.5e-8, make
``> 0`` strict the other way. The notebook allows a guard against floating-point noise that treats as 0
only scores within 1e-8 of it (``np.isclose``'s default), and nothing coarser: such a guard passes, while
rounding the scores or distances to seven decimals or fewer, or comparing them with a tolerance of 1.5e-8
or more (1e-7, 1e-6, 1e-5, ...), gets some of these labels (``side_of_plane``) or separators
(``separates``) wrong. The planes of the 1.5e-8 cases have ``||w|| = 1``, so the scores and the signed
distances are the same numbers, and they are exact or within 1e-16 of what is said, far below 1e-8. The
separator with b = 2.000000015 also needs float64, as the notebook asks: in float32, b is 2.

Each of those two cells has two checks: the near-plane cases come second, with their own hint on rounding
and tolerances, so that a failure elsewhere is not blamed on them.

The docstrings promise numpy arrays, and ints for the labels of ``side_of_plane``: the visible tests refuse a
list, and float labels, and so do the hidden checks (``compare_values`` alone would take both).
"""

import numpy as np

import perceptron_lib as pl

from autograder.judging.checks import Case, Check, compare_near_float32

_rng = np.random.default_rng(20240101)


def _points(n, d):
    return np.round(_rng.normal(size=(n, d)) * 2, 3)


def _labels(n):
    return _rng.choice(np.array([-1.0, 1.0]), size=n)


def _side(X, w, b=0.0):
    return pl.sign(np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b).astype(np.int64)


def _numpy_array(got, expected):
    """:func:`compare_near_float32`, and the result must be a numpy array, as the docstring says and ``expect_array`` in
    the visible tests requires."""
    problem = compare_near_float32(got, expected)
    if problem is None and not isinstance(got, np.ndarray):
        problem = f"returned a {type(got).__name__}; the docstring asks for a numpy array"
    return problem


def _int_labels(got, expected):
    """:func:`_numpy_array`, and of an integer dtype, as the docstring of ``side_of_plane`` says and its first test
    cell checks (any integer dtype: int32 and int64 are both right)."""
    problem = _numpy_array(got, expected)
    if problem is None and got.dtype.kind != "i":
        problem = f"returned an array of dtype {got.dtype}; the docstring asks for the ints +1 and -1"
    return problem


# The hint of the cases just off the plane: what is wrong there is a comparison that is not strict enough.
NEAR_HINT = ("{what}: compute in float64, and do not round the scores or compare them with a "
             "tolerance that treats as 0 a score farther than 1e-8 from it (np.isclose(s, 0) is as far as a guard "
             "against rounding noise may go).")


# -- fixed inputs -------------------------------------------------------------

X4, y4 = pl.four_point_example()
X1, y1 = pl.one_dimensional_example()
WORKED_X = np.array([[3.0, 4.0], [0.0, 0.0], [1.0, 0.5]])
W34 = np.array([3.0, 4.0])
SCALED_X = np.array([[3.0, 4.0], [0.0, 0.0], [-1.0, 2.0]])
X_5d, w_5d = _points(6, 5), np.array([0.5, -3.0, 2.0, 0.0, 1.5])
X_2d, w_2d = _points(5, 2), np.array([-2.0, 1.0])
X_sep, y_sep, w_star = pl.make_separable(20, 3, margin=0.2, random_state=3)
X_shift = X_sep + np.array([1.0, -2.0, 0.5])  # the same data, moved off the origin
b_shift = -float(w_star @ np.array([1.0, -2.0, 0.5]))
X_rand, y_rand, w_rand = _points(8, 3), _labels(8), np.array([1.0, 2.0, -1.0])
# Points in 3-D on the side of their label, but for the first, labelled -1, which lies exactly on the plane
# (whole numbers, so its score is exactly 0 however it is computed): only y (w . x + b) > 0 rejects the plane,
# and predicting each point's side and comparing it with its label accepts it.
X_on = np.array([[1.0, 0.0, 0.0], [2.0, 1.0, 1.0], [0.0, 0.0, 2.0], [-1.0, 0.0, 0.0], [0.0, 2.0, 0.0]])
y_on = np.array([-1.0, 1.0, 1.0, -1.0, -1.0])
w_on, b_on = np.array([1.0, -1.0, 2.0]), -1.0
# Points just off a plane, on both sides: the score w . x + b is +-0.001 (a line in the plane, b left at its
# default) and about +-0.00001 (a plane in 3-D with an offset), and no point is on the plane.
X_near = np.array([[0.001, 2.0], [-0.001, -1.0], [0.001, -3.0], [-0.001, 0.5]])
w_near = np.array([1.0, 0.0])
X_near3 = np.array([[3.00001, 0.0, 0.0], [1.0, 1.0, 0.00001], [1.0, 1.000005, 0.0], [0.0, 0.0, -2.99999]])
w_near3, b_near3 = np.array([1.0, 2.0, -1.0]), -3.0
# Closer still, on both sides of a line with a unit normal: the scores are exactly +-1.5e-8, 1.5 times the largest
# guard against floating-point noise the notebook allows (1e-8) and 10^8 times float64's rounding of these numbers.
X_tiny = np.array([[1.5e-8, 1.0], [-1.5e-8, -2.0], [1.5e-8, -0.5], [-1.5e-8, 3.0]])
w_tiny = np.array([1.0, 0.0])

CHECKS = [
    Check(
        grade_id="signed_distance_examples",
        function="signed_distance",
        cases=[
            Case("the points (3, 4), (0, 0), (1, 0.5) with w = (3, 4), b = -5", (WORKED_X, W34, -5.0), visible=True),
            Case("five points in the plane and a line with normal (-2, 1) and offset 0.5", (X_2d, w_2d, 0.5)),
            Case("points on both sides of a horizontal line with a negative offset",
                 (np.array([[0.0, 3.0], [1.0, -1.0], [4.0, 0.5]]), np.array([0.0, -2.0]), -1.0)),
        ],
        expected=pl.signed_distance,
        hint="The signed distance is (w . x + b) / ||w||, positive on the side w points to.",
        compare=_numpy_array,
    ),
    Check(
        grade_id="signed_distance_general",
        function="signed_distance",
        cases=[
            Case("two points in 3-D (integer arrays) with w = (0, 0, 2) and b left at its default",
                 (np.array([[1, 2, 2], [0, 0, -3]]), np.array([0, 0, 2])), visible=True),
            Case("the plane 30 x1 + 40 x2 - 50 = 0", (SCALED_X, 10 * W34, -50.0), visible=True),
            Case("the points (3, 4), (0, 0), (-1, 2) and the plane 3 x1 + 4 x2 - 5 = 0", (SCALED_X, W34, -5.0)),
            Case("six points in 5-D and a normal vector of length greater than 1 with an offset", (X_5d, w_5d, -1.25)),
            Case("six points in 5-D and a plane through the origin given without b", (X_5d, w_5d)),
            Case("a single point in 4-D", (np.array([[1.0, -2.0, 0.5, 3.0]]), np.array([0.2, 0.1, -0.4, 0.3]), 0.7)),
            Case("integer points, an integer normal vector and an integer offset",
                 (np.array([[1, 1], [-2, 5], [0, 0]]), np.array([2, -1]), 3)),
            Case("a normal vector much shorter than 1", (X_2d, np.array([0.003, -0.004]), 0.001)),
        ],
        expected=pl.signed_distance,
        hint="Divide w . x + b by the length ||w|| of w, in any dimension, and let b default to 0.",
        compare=_numpy_array,
    ),
    Check(
        grade_id="side_of_plane_values",
        function="side_of_plane",
        cases=[
            Case("the points (2, 0), (0, 3), (-1, -1), (0.5, -4) with w = (1, -1), b = 0.5",
                 (np.array([[2.0, 0.0], [0.0, 3.0], [-1.0, -1.0], [0.5, -4.0]]), np.array([1.0, -1.0]), 0.5),
                 visible=True),
            Case("six points in 5-D and a plane with an offset", (X_5d, w_5d, 0.3)),
            Case("five points in the plane and a line through the origin given without b", (X_2d, w_2d)),
            Case("integer points and an integer plane", (np.array([[3, 1], [-1, -4], [2, 2]]), np.array([1, 2]), -4)),
            Case("a single point in 4-D and a plane with an offset",
                 (np.array([[1.0, -2.0, 0.5, 3.0]]), np.array([0.2, 0.1, -0.4, 0.3]), 0.7)),
        ],
        expected=_side,
        hint="The label is +1 where w . x + b > 0 and -1 elsewhere, as an array of ints with one entry per point.",
        compare=_int_labels,
    ),
    Check(
        grade_id="side_of_plane_values",
        function="side_of_plane",
        cases=[
            Case("points 0.001 on either side of the line x1 = 0, with b left at its default", (X_near, w_near)),
            Case("points in 3-D just off a plane with an offset, on both sides, with scores w . x + b of about "
                 "+0.00001 and -0.00001", (X_near3, w_near3, b_near3)),
            Case("points 1.5e-8 on either side of the line x1 = 0, with b left at its default", (X_tiny, w_tiny)),
        ],
        expected=_side,
        hint=NEAR_HINT.format(what="The label is +1 where w . x + b > 0, however small the score"),
        compare=_int_labels,
    ),
    Check(
        grade_id="side_of_plane_on_plane",
        function="side_of_plane",
        cases=[
            Case("the points (1, 1), (2, 0), (0, 0) with w = (1, 1), b = -2",
                 (np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 0.0]]), np.array([1.0, 1.0]), -2.0), visible=True),
            Case("two points on the line x1 + x2 = 0 and one off it, with b left at its default",
                 (np.array([[1.0, -1.0], [-2.0, 2.0], [3.0, 0.0]]), np.array([1.0, 1.0]))),
            Case("integer points, two of them on an integer plane in 3-D",
                 (np.array([[1, 1, 1], [2, 2, 1], [0, 3, 0], [-1, -1, 2]]), np.array([1, -1, 2]), -2)),
            Case("the points 1, 2, 3, 4 on a line and a threshold at one of them", (X1, np.array([-1.0]), 3.0)),
            Case("the four-point example and a line through two of its points", (X4, np.array([1.0, 0.0]))),
        ],
        expected=_side,
        hint="sign(0) is -1 in this course: a point exactly on the plane gets -1 (use > 0, and not np.sign).",
        compare=_numpy_array,
    ),
    Check(
        grade_id="margin_separating",
        function="margin",
        cases=[
            Case("the four-point example with w = (1, 1), b = 0", (X4, y4, np.array([1.0, 1.0])), visible=True),
            Case("the four-point example with w = (3, 3), b = 0", (X4, y4, np.array([3.0, 3.0])), visible=True),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = -1, b = 2.5",
                 (X1, y1, np.array([-1.0]), 2.5), visible=True),
            Case("separable points in 3-D and a separating normal vector of length 2.5, through the origin",
                 (X_sep, y_sep, 2.5 * w_star)),
            Case("separable points in 3-D away from the origin and a separating plane with an offset",
                 (X_shift, y_sep, w_star, b_shift)),
            Case("the four-point example and a separating line whose normal is not along (1, 1)",
                 (X4, y4, np.array([2.0, 0.5]))),
            Case("integer points, labels, normal vector and offset of a separating plane",
                 (np.array([[3, 1], [2, 4], [-1, 0], [0, -2]]), np.array([1, 1, -1, -1]), np.array([1, 1]), -1)),
        ],
        expected=pl.margin,
        hint="The margin is min_i y_i (w . x_i + b) / ||w||: the smallest, with the labels, divided by ||w||.",
        compare=compare_near_float32,
    ),
    Check(
        grade_id="margin_not_separating",
        function="margin",
        cases=[
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = 1, b = 0", (X1, y1, np.array([1.0])),
                 visible=True),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = -1, b = 2",
                 (X1, y1, np.array([-1.0]), 2.0), visible=True),
            Case("the four-point example with a line that puts two points on the wrong side",
                 (X4, y4, np.array([1.0, -1.0]))),
            Case("eight points in 3-D with random labels and a plane that does not separate them",
                 (X_rand, y_rand, w_rand, 0.5)),
            Case("separable points in 3-D and the normal vector pointing the wrong way", (X_sep, y_sep, -2.0 * w_star)),
            Case("a single point in 4-D on the wrong side of a plane with an offset",
                 (np.array([[1.0, -2.0, 0.5, 3.0]]), np.array([1.0]), np.array([0.2, 0.1, -0.4, 0.3]), -1.5)),
        ],
        expected=pl.margin,
        hint="The margin is min_i y_i (w . x_i + b) / ||w||, with b: when a point is on the wrong side its term is "
             "negative, and so is the margin. Keep the sign (no abs(), and no 0 in its place).",
        compare=compare_near_float32,
    ),
    Check(
        grade_id="separates_values",
        function="separates",
        cases=[
            Case("the four-point example with w = (1, 1), b = 0", (X4, y4, np.array([1.0, 1.0])), visible=True),
            Case("the four-point example with w = (1, -1), b = 0", (X4, y4, np.array([1.0, -1.0])), visible=True),
            Case("separable points in 3-D and a plane through the origin", (X_sep, y_sep, w_star)),
            Case("separable points in 3-D and the opposite normal vector", (X_sep, y_sep, -w_star)),
            Case("separable points in 3-D away from the origin and a plane with an offset", (X_shift, y_sep, w_star, b_shift)),
            Case("eight points in 3-D with random labels and a plane", (X_rand, y_rand, w_rand, 0.5)),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = -1, b = 2.5", (X1, y1, np.array([-1.0]), 2.5)),
            Case("a single point in 4-D on the wrong side of a plane with an offset",
                 (np.array([[1.0, -2.0, 0.5, 3.0]]), np.array([1.0]), np.array([0.2, 0.1, -0.4, 0.3]), -1.5)),
        ],
        expected=pl.is_separated,
        hint="The plane separates the data when y_i (w . x_i + b) > 0 for every i; return True or False.",
    ),
    Check(
        grade_id="separates_values",
        function="separates",
        cases=[
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = -1, b = 2.001 (the point 2 is 0.001 "
                 "inside its side)", (X1, y1, np.array([-1.0]), 2.001)),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = -1, b = 2.99999 (the point 3 is 0.00001 "
                 "inside its side)", (X1, y1, np.array([-1.0]), 2.99999)),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = -1, b = 1.999 (the point 2 is 0.001 "
                 "on the wrong side)", (X1, y1, np.array([-1.0]), 1.999)),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = -1, b = 2.000000015 (the point 2 is "
                 "1.5e-8 inside its side)", (X1, y1, np.array([-1.0]), 2.000000015)),
        ],
        expected=pl.is_separated,
        hint=NEAR_HINT.format(what="The plane separates the data when y_i (w . x_i + b) > 0 for every i, however "
                                   "small that product is"),
    ),
    Check(
        grade_id="separates_on_plane",
        function="separates",
        cases=[
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = -1, b = 2",
                 (X1, y1, np.array([-1.0]), 2.0), visible=True),
            Case("the four-point example and a line through two of its points", (X4, y4, np.array([1.0, 0.0]))),
            Case("integer points with every point on the right side but one exactly on the plane",
                 (np.array([[2, 0], [0, 3], [1, 0], [-3, 0]]), np.array([1, 1, -1, -1]), np.array([1, 1]), -1)),
            Case("points in 3-D on the side of their labels but one, labelled -1, exactly on the plane",
                 (X_on, y_on, w_on, b_on)),
        ],
        expected=pl.is_separated,
        hint="A point on the plane is on neither side, whatever its label: require y (w . x + b) > 0 for every point "
             "(not >= 0, and not a predicted label equal to y).",
    ),
]
