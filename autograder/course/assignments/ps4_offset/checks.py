"""Hidden checks of problem set 4: lifting, the perceptron through the origin, the offset recovered.

``train_with_lifting`` is compared with ``perceptron_lib.train_perceptron`` with
an offset, so a lifting with the wrong constant, the column in the wrong
place, or a forgotten split all fail; the hidden cases include data that only
an offset separates, several dimensions, a single point, the epoch of
convergence as the last one allowed, the last mistake in the last epoch
allowed (one epoch short of convergence, which catches an epoch count past
``max_epochs``), and data that never converges (for each function once with
the default ``max_epochs``, which it tells from any other).

Each Part C cell first checks ``train_through_origin`` on the lifted points of
one of its visible cases, the call a right ``train_with_lifting`` makes: it
fails exactly when that ``train_with_lifting`` would, and a stub or an
exception of Part B is then reported under its own name rather than as one of
``train_with_lifting``.  A stub or an exception of Part A (``absorb_offset``,
``split_offset``) can only show as an exception of ``train_with_lifting``, which
calls them: the message of such an exception says so
(``hint_on_exception``).

Part C asks for a method, not only for numbers: lift, train with
``train_through_origin``, split.  A training loop of the student's own (the
one of problem set 2, pasted in) returns the same numbers, so each of its
grade cells also calls ``train_with_lifting_reversed``, a function of the
notebook's locked cell before Part C's tests: it runs the student's
``train_with_lifting`` with every name bound to the student's
``train_through_origin`` rebound, for that call, to the same function fed the
examples in reverse order.  Offset absorption says the result must then be
the perceptron with an offset run on the reversed examples
(:func:`_reversed`); a loop of its own returns the run in the given order.
The cases are data on which the two orders end differently.

Arrays must come back as float numpy arrays, offsets as floats and the counts
as ints (a Python or NumPy integer, not a bool, not a whole-number float), as the
docstrings say: integer inputs appear in every part (an integer X for the
lifting, an integer theta for the split, integer points with float and with
integer labels for both trainers), so ``np.zeros_like(X[0])``, an appended
column of integer ones or ``theta[-1]`` of an integer theta lose the points of
their cell.  ``tests/grader/course/test_ps4_claims.py`` proves what the cases'
descriptions and the notebook's texts claim about their data.
"""

import numpy as np

import perceptron_lib as pl

from autograder.judging.checks import Case, Check, compare_values


def _floats(got, expected):
    """``None`` if every array of ``expected`` came back as a float numpy array in ``got``, every float as a
    float and every count as an int, else the reason."""
    if isinstance(expected, tuple) and isinstance(got, (tuple, list)) and len(got) == len(expected):
        for k, (g, e) in enumerate(zip(got, expected)):
            problem = _floats(g, e)
            if problem:
                return f"value {k + 1} of the result: {problem}"
        return None
    if isinstance(expected, np.ndarray):
        if not isinstance(got, np.ndarray):
            return f"returned a {type(got).__name__}; the docstring asks for a numpy array of floats"
        if got.dtype.kind != "f":
            return (f"returned an array of dtype {got.dtype}; the docstring asks for floats "
                    "(convert with np.asarray(..., dtype=float))")
    if isinstance(expected, float):
        kind = got.dtype.kind if isinstance(got, np.ndarray) else None
        if type(got) is int or kind in ("i", "u", "b"):
            return "returned an integer; the docstring asks for a float (convert with float(...))"
    return None  # an int where an int is expected: compare_values holds counts to that already


def _compare(got, expected):
    """:func:`compare_values`, and the arrays must be float numpy arrays, the offsets floats and the counts ints, as
    the docstrings promise."""
    return compare_values(got, expected) or _floats(got, expected)


def _absorb(X):
    return pl.absorb_offset(X)


def _split(theta):
    w, b = pl.split_offset(theta)
    return w, float(b)


def _through_origin(X, y, *, max_epochs=100):
    result = pl.train_perceptron(X, y, fit_intercept=False, max_epochs=max_epochs)
    return result.w, int(result.n_mistakes), int(result.n_epochs)


def _with_offset(X, y, *, max_epochs=100):
    result = pl.train_perceptron(X, y, fit_intercept=True, max_epochs=max_epochs)
    return result.w, float(result.b), int(result.n_mistakes), int(result.n_epochs)


def _reversed(X, y, *, max_epochs=100):
    """What ``train_with_lifting_reversed`` returns for a ``train_with_lifting`` that trains with
    ``train_through_origin``: the perceptron with an offset on the examples in reverse order."""
    return _with_offset(np.asarray(X)[::-1], np.asarray(y)[::-1], max_epochs=max_epochs)


FIX_FIRST = ("If train_through_origin, absorb_offset or split_offset fails its own test, fix that first: this "
             "part runs yours.")

LIFTING_CALLS = ("train_with_lifting calls your absorb_offset and split_offset (Part A) and your train_through_origin "
                 "(Part B): if one of them is not written yet or raises, write or fix it first, with its own test.")

ORIGIN_FIRST = ("Part C trains with your train_through_origin, on the lifted points: fix it first, with its own test "
                "in Part B.")


def _origin_first(grade_id, describe, X, y):
    """A check of ``train_through_origin`` on the lifted data one of Part C's cases hands it, put first in that
    Part C cell: a right ``train_with_lifting`` fails there exactly when it does, and a stub or an exception of
    ``train_through_origin`` is then reported under its own name, not as one of ``train_with_lifting``."""
    return Check(
        grade_id=grade_id,
        function="train_through_origin",
        cases=[Case(describe, (pl.absorb_offset(X), y))],
        expected=_through_origin,
        compare=_compare,
        hint=ORIGIN_FIRST,
    )


REVERSED_HINT = ("train_with_lifting must train with train_through_origin, not with a training loop of its own: "
                 "in this test train_through_origin visits the examples in reverse order, and the result must be "
                 "what that run found, split into (w, b). " + FIX_FIRST)


X4, y4 = pl.four_point_example()
X1, y1 = pl.one_dimensional_example()
X_away = np.array([[2.0, 3.0], [3.0, 2.5], [1.0, 1.0], [2.5, 1.0]])
y_away = np.array([1.0, 1.0, -1.0, -1.0])
X_sep, y_sep, _ = pl.make_separable(30, 3, margin=0.1, random_state=21)
X_shift = X_sep + np.array([1.5, -0.5, 2.0])
y_flip = pl.flip_labels(y_sep, 0.15, random_state=22)
X_int = np.array([[3, 1], [4, 2], [1, 3], [0, 4], [2, 2]])
y_int = np.array([1, 1, -1, -1, -1])
y_int_float = y_int.astype(float)
XOR4 = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
XOR4_y = np.array([1.0, -1.0, -1.0, 1.0])
X0, y0 = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([-1.0, -1.0])
X_one, y_one = np.array([[2.0, -1.0]]), np.array([-1.0])
X_zero, y_zero = np.array([[0.0, 0.0]]), np.array([1.0])

CHECKS = [
    Check(
        grade_id="absorb_offset_values",
        function="absorb_offset",
        cases=[
            Case("the points 1, 2, 3, 4", (X1,), visible=True),
            Case("two points in 3-D (an integer array)", (np.array([[1, -2, 3], [0, 5, -1]]),), visible=True),
            Case("the four-point example", (X4,)),
            Case("thirty points in 3-D", (X_sep,)),
            Case("a single point in 5-D", (np.array([[0.5, -1.0, 0.0, 2.0, 3.5]]),)),
        ],
        expected=_absorb,
        compare=_compare,
        hint="Return a new float array with a last column of ones: shape (n_samples, n_features + 1).",
    ),
    Check(
        grade_id="split_offset_values",
        function="split_offset",
        cases=[
            Case("theta = (-1, 2.5)", (np.array([-1.0, 2.5]),), visible=True),
            Case("theta = (1, 2, 3, -4)", (np.array([1.0, 2.0, 3.0, -4.0]),), visible=True),
            Case("a lifted weight vector with a zero offset", (np.array([0.5, -0.25, 0.0]),)),
            Case("an integer lifted weight vector", (np.array([3, -1, 7]),)),
        ],
        expected=_split,
        compare=_compare,
        hint="w is every entry of theta but the last (a float array), b is the last entry (a float), also for an "
             "integer theta.",
    ),
    Check(
        grade_id="train_through_origin_values",
        function="train_through_origin",
        cases=[
            Case("the points (1, 0) and (0, 1), both labelled -1", (X0, y0), visible=True),
            Case("the four-point example", (X4, y4), visible=True),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=5", (X1, y1), {"max_epochs": 5}, visible=True),
            Case("thirty separable points in 3-D", (X_sep, y_sep)),
            Case("thirty points in 3-D with some labels flipped, with max_epochs=4", (X_sep, y_flip), {"max_epochs": 4}),
            Case("the lifted one-dimensional example", (pl.absorb_offset(X1), y1)),
            Case("points away from the origin, lifted", (pl.absorb_offset(X_away), y_away)),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1, not lifted, which never converge through the origin, "
                 "with the default max_epochs", (X1, y1)),
            Case("a single point (2, -1) labelled -1", (X_one, y_one)),
            Case("a single point at the origin labelled +1, which never converges through the origin, with "
                 "max_epochs=7", (X_zero, y_zero), {"max_epochs": 7}),
            Case("the four-point example with max_epochs=2, so that the epoch without mistakes is the last one allowed",
                 (X4, y4), {"max_epochs": 2}),
            Case("the four-point example with max_epochs=1, one epoch short of the epoch without mistakes",
                 (X4, y4), {"max_epochs": 1}),
            Case("integer points with float labels", (X_int, y_int_float)),
            Case("integer points and integer labels", (X_int, y_int)),
        ],
        expected=_through_origin,
        compare=_compare,
        hint="Start from theta = 0 as a float array (also for integer points), update on y (theta . x) <= 0, stop "
             "after a clean epoch or at max_epochs.",
    ),
    _origin_first("lifting_one_dimensional", "the points 1, 2, 3, 4 labelled +1, +1, -1, -1, lifted, as "
                  "train_with_lifting hands them to train_through_origin", X1, y1),
    Check(
        grade_id="lifting_one_dimensional",
        function="train_with_lifting",
        cases=[
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1", (X1, y1), visible=True),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=4", (X1, y1), {"max_epochs": 4}),
            Case("the points 1, 2, 3, 4 in reverse order", (X1[::-1].copy(), y1[::-1].copy())),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=11, so that the epoch without "
                 "mistakes is the last one allowed", (X1, y1), {"max_epochs": 11}),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=10, one epoch short of the epoch "
                 "without mistakes", (X1, y1), {"max_epochs": 10}),
        ],
        expected=_with_offset,
        compare=_compare,
        hint="Lift with absorb_offset, train with train_through_origin, then split_offset the result. " + FIX_FIRST,
        hint_on_exception=LIFTING_CALLS,
    ),
    Check(
        grade_id="lifting_one_dimensional",
        function="train_with_lifting_reversed",
        cases=[
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1, with train_through_origin visiting them in "
                 "reverse order", (X1, y1), visible=True),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=4, with train_through_origin "
                 "visiting them in reverse order", (X1, y1), {"max_epochs": 4}),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=10, one epoch short of the epoch "
                 "without mistakes, with train_through_origin visiting them in reverse order", (X1, y1),
                 {"max_epochs": 10}),
        ],
        expected=_reversed,
        compare=_compare,
        hint=REVERSED_HINT,
    ),
    _origin_first("lifting_general", "the points (2, 3), (3, 2.5), (1, 1), (2.5, 1) labelled +1, +1, -1, -1, "
                  "lifted, as train_with_lifting hands them to train_through_origin", X_away, y_away),
    Check(
        grade_id="lifting_general",
        function="train_with_lifting",
        cases=[
            Case("the points (2, 3), (3, 2.5), (1, 1), (2.5, 1) labelled +1, +1, -1, -1", (X_away, y_away), visible=True),
            Case("the four-point example", (X4, y4)),
            Case("thirty separable points in 3-D, moved away from the origin", (X_shift, y_sep)),
            Case("thirty points in 3-D with some labels flipped, with max_epochs=3", (X_sep, y_flip), {"max_epochs": 3}),
            Case("integer points with integer labels", (X_int, y_int)),
            Case("the four XOR points, which never converge, with the default max_epochs", (XOR4, XOR4_y)),
            Case("a single point at the origin labelled +1", (X_zero, y_zero)),
        ],
        expected=_with_offset,
        compare=_compare,
        hint="The result must equal the perceptron with an offset: lift with a constant 1, and return (w, b, n_mistakes, "
             "n_epochs). " + FIX_FIRST,
        hint_on_exception=LIFTING_CALLS,
    ),
    Check(
        grade_id="lifting_general",
        function="train_with_lifting_reversed",
        cases=[
            Case("the points (2, 3), (3, 2.5), (1, 1), (2.5, 1) labelled +1, +1, -1, -1, with train_through_origin "
                 "visiting them in reverse order", (X_away, y_away), visible=True),
            Case("thirty separable points in 3-D, moved away from the origin, with train_through_origin visiting "
                 "them in reverse order", (X_shift, y_sep)),
            Case("integer points with integer labels, with train_through_origin visiting them in reverse order",
                 (X_int, y_int)),
            Case("thirty points in 3-D with some labels flipped, with max_epochs=3, with train_through_origin "
                 "visiting them in reverse order", (X_sep, y_flip), {"max_epochs": 3}),
        ],
        expected=_reversed,
        compare=_compare,
        hint=REVERSED_HINT,
    ),
]
