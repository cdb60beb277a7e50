"""Hidden checks of problem set 4: lifting, the perceptron through the origin, the offset recovered.

``train_with_lifting`` is compared with ``perceptron_lib.train_perceptron`` with
an offset (or with what the student's own functions give, below), so a lifting
with the wrong constant, the column in the wrong place, or a forgotten split all
fail; the hidden cases include data that only
an offset separates, several dimensions, a single point, the epoch of
convergence as the last one allowed, the last mistake in the last epoch
allowed (one epoch short of convergence, which catches an epoch count past
``max_epochs``), and data that never converges (for each function once with
the default ``max_epochs``, which it tells from any other).

Part C is judged with the student's own functions, as problem set 3 judges its
Part C: a mistake in Part A or B costs the points of its own cell, and none in
Part C unless it makes ``train_with_lifting`` raise or change the ``X`` it is
given.  Each Part C cell first calls ``train_with_lifting`` itself and requires
only four values, no exception and unchanged inputs, so that these are reported
under its name (an exception with the note that it calls Part A's and Part B's
functions, ``hint_on_exception``).  Its other checks call
``lifting_with_your_functions``, a function of the notebook's locked cell before
Part C's tests: it returns what ``train_with_lifting`` returned and what the
student's ``absorb_offset``, ``train_through_origin`` and ``split_offset`` give,
called in turn on copies of the data (``None`` if one of them raises).  The
result passes when it is the perceptron with an offset, under the type rules
below, or exactly what those functions give (:func:`_judged_with_yours`): the
second is what a right ``train_with_lifting`` returns with a wrong Part A or B,
such as a ``train_through_origin`` that returns theta as a list or changes the
lifted array it is handed, or a ``split_offset`` that returns b as an array.

Part C asks for a method, not only for numbers: lift, train with
``train_through_origin``, split.  A training loop of the student's own (the
one of problem set 2, pasted in, or a loop over the lifted points) returns the
same numbers, so each Part C cell also calls ``lifting_with_your_functions``
with ``reverse=True``: it runs ``train_with_lifting_reversed``, another function
of that locked cell, which runs the student's ``train_with_lifting`` with every
name bound to the student's ``train_through_origin`` rebound, for that call, to
the same function fed the examples in reverse order.  Offset absorption says
the result must then be the perceptron with an offset run on the reversed
examples, or what the student's own functions give on the lifted points in
reverse order; a loop of its own returns the run in the given order, neither
of them.  The cases are data on which the two orders end differently.  (One
pair of mistakes goes through: a ``train_through_origin`` that itself visits the
examples backwards, which loses its own cell, turns the reverse order back into
the given one, and a loop of its own in ``train_with_lifting`` then passes.)

Arrays must come back as float64 numpy arrays, offsets as floats and the counts
as ints (a Python or NumPy integer, not a bool, not a whole-number float), as the
docstrings say: integer inputs appear in every part (an integer X for the
lifting, an integer theta for the split, integer points with float and with
integer labels for both trainers), so ``np.zeros_like(X[0])``, an appended
column of integer ones or ``theta[-1]`` of an integer theta lose the points of
their cell, and so does a lifting computed in float32, whose values can still
pass the tolerance.  ``tests/grader/course/test_ps4_claims.py`` proves what the
cases' descriptions and the notebook's texts claim about their data, and that
Part C keeps its points with the right method and a wrong Part A or B.
"""

import math

import numpy as np

import perceptron_lib as pl

from autograder.judging.checks import Case, Check, compare_float64


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


def _lifting(X, y, *, reverse=False, max_epochs=100):
    """What a right ``train_with_lifting`` returns with right functions, as ``lifting_with_your_functions`` calls it:
    the perceptron with an offset, run on the examples in reverse order when ``reverse`` (then
    ``train_with_lifting_reversed`` has ``train_through_origin`` visit them so)."""
    if reverse:
        X, y = np.asarray(X)[::-1], np.asarray(y)[::-1]
    return _with_offset(X, y, max_epochs=max_epochs)


RESULT_NAMES = ("w", "b", "n_mistakes", "n_epochs")


def _four_values(got, expected):
    """``None`` if ``train_with_lifting`` returned four values, as ``(w, b, n_mistakes, n_epochs)``; their values
    are judged by the cell's next checks, with the student's own functions."""
    if isinstance(got, (tuple, list)):
        return None if len(got) == 4 else f"returned {len(got)} values; expected 4: (w, b, n_mistakes, n_epochs)"
    what = getattr(got, "description", None) or f"a {type(got).__name__}"
    return f"returned {what}; expected a tuple (w, b, n_mistakes, n_epochs)"


def _identical(got, yours):
    """Whether ``got`` is exactly ``yours``, as the same functions called on the same data return it: arrays of the
    same dtype, shape and values, numbers of the same type and value, sequences item by item."""
    if isinstance(got, (tuple, list)) and isinstance(yours, (tuple, list)):
        return len(got) == len(yours) and all(_identical(g, e) for g, e in zip(got, yours))
    if isinstance(got, np.ndarray) or isinstance(yours, np.ndarray):
        return (isinstance(got, np.ndarray) and isinstance(yours, np.ndarray) and got.dtype == yours.dtype
                and got.shape == yours.shape and np.array_equal(got, yours, equal_nan=True))
    if type(got) is not type(yours) or type(got) not in (bool, int, float, str, type(None)):
        return False  # values of different types, or an Opaque marker, which never equals anything
    return got == yours or (type(got) is float and math.isnan(got) and math.isnan(yours))


def _judged_with_yours(reverse):
    """The comparison of a ``lifting_with_your_functions`` check.

    ``got`` is ``(result, yours)``: what ``train_with_lifting`` (or, with ``reverse``, ``train_with_lifting_reversed``)
    returned, and what the student's ``absorb_offset``, ``train_through_origin`` and ``split_offset`` gave, called in
    turn on the same data (``None`` if they raised).  The result passes when it is the perceptron with an offset
    (``expected``, under :func:`compare_float64`'s rules) or exactly ``yours``.  Neither shows an expected value.
    """
    called = "train_with_lifting_reversed" if reverse else "train_with_lifting"
    trainer = "train_through_origin" + (" (visiting the lifted points in reverse order)" if reverse else "")

    def compare(got, expected):
        if not (isinstance(got, (tuple, list)) and len(got) == 2):
            return ("returned something other than what the locked cell's lifting_with_your_functions returns: has "
                    "the cell been changed?")
        result, yours = got
        problem = compare_float64(result, expected)
        if problem is None or (yours is not None and _identical(result, yours)):
            return None
        if yours is None:
            return (f"found that {called} did not return the perceptron with an offset ({problem}), and that your "
                    f"absorb_offset, {trainer} and split_offset, called in turn on these data, raise or do not "
                    "return (theta, n_mistakes, n_epochs) and (w, b)")
        differs = next((name for name, g, e in zip(RESULT_NAMES, result, yours) if not _identical(g, e)), "result")
        return (f"found that {called} returned neither the perceptron with an offset ({problem}) nor what your "
                f"absorb_offset, {trainer} and split_offset give, called in turn (its {differs} differs)")

    return compare


LIFTING_CALLS = ("train_with_lifting calls your absorb_offset and split_offset (Part A) and your train_through_origin "
                 "(Part B): if one of them is not written yet or raises, write or fix it first, with its own test.")

FOUR_VALUES_HINT = ("Return (w, b, n_mistakes, n_epochs): lift with absorb_offset, train with train_through_origin, "
                    "then split_offset the result.")

WITH_YOURS = ("This test judges train_with_lifting with your own absorb_offset, train_through_origin and split_offset, "
              "whether or not they pass their own tests.")

LIFTING_HINT = ("Lift with absorb_offset, train with train_through_origin, then split_offset the result, and return "
                "(w, b, n_mistakes, n_epochs) with the types the docstring gives. " + WITH_YOURS)

REVERSED_HINT = ("train_with_lifting must train with train_through_origin, not with a training loop of its own: "
                 "in this test train_through_origin visits the examples in reverse order, and the result must be "
                 "what that run found, split into (w, b). " + WITH_YOURS)


def _part_c(grade_id, cases, reversed_cases):
    """The checks of one Part C cell: ``train_with_lifting`` called itself (four values, no exception, its inputs
    unchanged), then judged with the student's own functions on the same cases, then with
    ``train_through_origin`` visiting the examples in reverse order on ``reversed_cases``."""
    def hidden(case, **kwargs):
        return Case(case.describe, case.args, {**case.kwargs, **kwargs})

    return [
        Check(
            grade_id=grade_id,
            function="train_with_lifting",
            cases=cases,
            expected=_with_offset,
            compare=_four_values,
            hint=FOUR_VALUES_HINT,
            hint_on_exception=LIFTING_CALLS,
        ),
        Check(
            grade_id=grade_id,
            function="lifting_with_your_functions",
            cases=[hidden(case) for case in cases],
            expected=_lifting,
            compare=_judged_with_yours(reverse=False),
            hint=LIFTING_HINT,
            hint_on_exception=LIFTING_CALLS,
        ),
        Check(
            grade_id=grade_id,
            function="lifting_with_your_functions",
            cases=[hidden(case, reverse=True) for case in reversed_cases],
            expected=_lifting,
            compare=_judged_with_yours(reverse=True),
            hint=REVERSED_HINT,
            hint_on_exception=LIFTING_CALLS,
        ),
    ]


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
THETA_INT = np.array([3, -1, 7])

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
        compare=compare_float64,
        hint="Return a new float64 array with a last column of ones: shape (n_samples, n_features + 1).",
    ),
    Check(
        grade_id="split_offset_values",
        function="split_offset",
        cases=[
            Case("theta = (-1, 2.5)", (np.array([-1.0, 2.5]),), visible=True),
            Case("theta = (1, 2, 3, -4)", (np.array([1.0, 2.0, 3.0, -4.0]),), visible=True),
            Case("theta = (3, -1, 7), an integer array", (THETA_INT,), visible=True),
            Case("a lifted weight vector with a zero offset", (np.array([0.5, -0.25, 0.0]),)),
            Case("an integer lifted weight vector in 4-D", (np.array([0, 2, -5, 1]),)),
        ],
        expected=_split,
        compare=compare_float64,
        hint="w is every entry of theta but the last (a float64 array), b is the last entry (a float), also for an "
             "integer theta.",
    ),
    Check(
        grade_id="train_through_origin_values",
        function="train_through_origin",
        cases=[
            Case("the points (1, 0) and (0, 1), both labelled -1", (X0, y0), visible=True),
            Case("the four-point example", (X4, y4), visible=True),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=5", (X1, y1), {"max_epochs": 5}, visible=True),
            Case("integer points and integer labels", (X_int, y_int), visible=True),
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
        ],
        expected=_through_origin,
        compare=compare_float64,
        hint="Start from theta = 0 as a float64 array (also for integer points), update on y (theta . x) <= 0, stop "
             "after a clean epoch or at max_epochs.",
    ),
    *_part_c("lifting_one_dimensional", [
        Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1", (X1, y1), visible=True),
        Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=4", (X1, y1), {"max_epochs": 4}),
        Case("the points 1, 2, 3, 4 in reverse order", (X1[::-1].copy(), y1[::-1].copy())),
        Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=11, so that the epoch without "
             "mistakes is the last one allowed", (X1, y1), {"max_epochs": 11}),
        Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=10, one epoch short of the epoch "
             "without mistakes", (X1, y1), {"max_epochs": 10}),
    ], [
        Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1, with train_through_origin visiting them in "
             "reverse order", (X1, y1)),
        Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=4, with train_through_origin "
             "visiting them in reverse order", (X1, y1), {"max_epochs": 4}),
        Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=10, one epoch short of the epoch "
             "without mistakes, with train_through_origin visiting them in reverse order", (X1, y1),
             {"max_epochs": 10}),
    ]),
    *_part_c("lifting_general", [
        Case("the points (2, 3), (3, 2.5), (1, 1), (2.5, 1) labelled +1, +1, -1, -1", (X_away, y_away), visible=True),
        Case("the four-point example", (X4, y4)),
        Case("thirty separable points in 3-D, moved away from the origin", (X_shift, y_sep)),
        Case("thirty points in 3-D with some labels flipped, with max_epochs=3", (X_sep, y_flip), {"max_epochs": 3}),
        Case("integer points with integer labels", (X_int, y_int)),
        Case("the four XOR points, which never converge, with the default max_epochs", (XOR4, XOR4_y)),
        Case("a single point at the origin labelled +1", (X_zero, y_zero)),
    ], [
        Case("the points (2, 3), (3, 2.5), (1, 1), (2.5, 1) labelled +1, +1, -1, -1, with train_through_origin "
             "visiting them in reverse order", (X_away, y_away)),
        Case("thirty separable points in 3-D, moved away from the origin, with train_through_origin visiting "
             "them in reverse order", (X_shift, y_sep)),
        Case("integer points with integer labels, with train_through_origin visiting them in reverse order",
             (X_int, y_int)),
        Case("thirty points in 3-D with some labels flipped, with max_epochs=3, with train_through_origin "
             "visiting them in reverse order", (X_sep, y_flip), {"max_epochs": 3}),
    ]),
]
