"""Hidden checks of problem set 4: lifting, the perceptron through the origin, the offset recovered.

``train_with_lifting`` is compared with ``perceptron_lib.train_perceptron`` with
an offset, so a lifting with the wrong constant, the column in the wrong place,
or a forgotten split all fail; the hidden cases include data that only an offset
separates, several dimensions, a single point, the epoch of
convergence as the last one allowed, the last mistake in the last epoch
allowed (one epoch short of convergence, which catches an epoch count past
``max_epochs``), and data that never converges (for each function once with
the default ``max_epochs``, which it tells from any other).

Part C is judged apart from Parts A and B.  Its checks call
``lifting_with_your_functions``, a function of the notebook's locked cell before Part C's tests, with the
case's ``X`` and ``y`` and the right answers of Parts A and B on them, as data (:func:`_answers`): the
lifted points ``absorb_offset`` returns for ``X``; the ``(theta, n_mistakes, n_epochs)``
``train_through_origin`` returns for those points, ``y`` and the case's ``max_epochs``, visiting the
examples in the given order and in reverse order; and the ``(w, b)`` ``split_offset`` returns for each of
those ``theta``.  During its one call of the student's ``train_with_lifting``, the names
``absorb_offset``, ``train_through_origin`` and ``split_offset`` in ``train_with_lifting``'s namespace,
and every other name bound to the student's version of one of them, refer to stand-ins that return
those answers when given exactly those inputs (arrays compared exactly) and call the student's function
on any other input; a ``finally`` puts the student's functions back.  The locked cell, which students
receive, holds no implementation of Parts A and B.  The result must be the perceptron with an offset,
under the type rules below.  So a mistake of any kind in Part A or B (a stub, a shuffled or backwards
order, ``max_epochs`` ignored, wrong types, inputs changed) costs nothing in Part C, and a right
``train_with_lifting`` that converts its results (``float(b)``, ``int(n_mistakes)``) keeps its points.

Part C asks for a method, not only for numbers: lift, train with ``train_through_origin``, split.  A
training loop of the student's own (problem set 2's, pasted in, or one over the lifted points) returns
the same numbers, so each Part C cell also calls ``lifting_with_your_functions`` with ``reverse=True``
(``train_with_lifting_reversed`` of the same cell is that call): ``train_through_origin``'s stand-in then
returns the run that visits the examples in reverse order, and the result must be the perceptron with an
offset run on the reversed examples, which on every such case ends differently from the run in the given
order.  A loop of its own, whatever Parts A and B hold, returns the run in the given order and fails, and
so does any ``train_with_lifting`` that does not call ``train_through_origin`` by a name of the notebook
(a copy kept in a default argument, a helper shared with Part B that it calls instead).  One that drops
``max_epochs`` hands the stand-in the default, not the case's ``max_epochs``, so it gets the student's own
``train_through_origin`` run with the default, which is the wrong run, or raises if Part B is a stub; and
one that lifts with another constant, forgets the split, returns other types than its docstring, raises,
runs past the time limit or changes its inputs fails too.  Lifting or splitting written out, instead of
calling ``absorb_offset`` and ``split_offset``, passes when the result is the same: the lifted points are
then the same array, or one with the same columns reordered or negated (the ones first, or ``-1`` as the
constant), which ``train_through_origin``'s stand-in recognises and answers with ``theta`` reordered and
negated the same way.  Not caught by the checks: a student cell that defines ``lifting_with_your_functions``
or ``train_with_lifting_reversed`` again (the checks then call the student's version), nor code written to
tell the stand-ins from the student's functions (by their names or code); the first is flagged
``redefines-locked``, and flags never change a score.  A failure names ``lifting_with_your_functions``, so
its message and hints say that the student's ``train_with_lifting`` was called with right functions of
Parts A and B.

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


def _lifting(X, y, answers=None, *, reverse=False, max_epochs=100):
    """What a right ``train_with_lifting`` returns as ``lifting_with_your_functions`` calls it: the perceptron with
    an offset, run on the examples in reverse order when ``reverse`` (its ``train_through_origin`` then returns
    that run).  Computed apart from ``answers``."""
    if reverse:
        X, y = np.asarray(X)[::-1], np.asarray(y)[::-1]
    return _with_offset(X, y, max_epochs=max_epochs)


def _run(Z, y, max_epochs):
    result = pl.train_perceptron(Z, y, fit_intercept=False, max_epochs=max_epochs)
    theta = np.array(result.w, dtype=float)
    return (theta, int(result.n_mistakes), int(result.n_epochs)), (theta[:-1].copy(), float(theta[-1]))


def _answers(X, y, *, max_epochs=100):
    """The right answers of Parts A and B on ``X`` and ``y``, as ``lifting_with_your_functions`` takes them:
    ``(Z, forwards, backwards)``, with ``Z`` the lifted points and each of ``forwards`` and ``backwards``
    ``((theta, n_mistakes, n_epochs), (w, b))``: the perceptron through the origin on ``Z`` and ``y`` with
    ``max_epochs``, visiting the examples in the given order (forwards) or in reverse order (backwards), and
    the split of its ``theta``."""
    Z = np.array(pl.absorb_offset(X), dtype=float)
    y = np.asarray(y)
    return Z, _run(Z, y, max_epochs), _run(Z[::-1], y[::-1], max_epochs)


def _judged(reverse):
    """The comparison of a ``lifting_with_your_functions`` check: :func:`compare_float64`, in a sentence that says
    how ``train_with_lifting`` was called.  It shows no expected value."""
    trainer = "train_through_origin"
    if reverse:
        trainer += " (returning the run that visits the examples in reverse order)"

    def compare(got, expected):
        problem = compare_float64(got, expected)
        if problem is None:
            return None
        return (f"called your train_with_lifting with right absorb_offset, {trainer} and split_offset in place "
                f"of yours, and found that it {problem}")

    return compare


CALLED = ("lifting_with_your_functions, in the locked cell before these tests, calls your train_with_lifting with "
          "right versions of absorb_offset, train_through_origin and split_offset on this test's data (on any other "
          "input they call yours), so the problem is in train_with_lifting, or in a function of yours that it calls "
          "on other data.")

LIFTING_HINT = ("Lift with absorb_offset, train with train_through_origin, passing max_epochs on, then split_offset "
                "the result, and return (w, b, n_mistakes, n_epochs) with the types the docstring gives. " + CALLED)

REVERSED_HINT = ("train_with_lifting must train with train_through_origin, called by that name, not with a training "
                 "loop of its own: in this test train_through_origin returns the run that visits the examples in "
                 "reverse order, and the result must be what that run found, split into (w, b). " + CALLED)


def _part_c(grade_id, cases, reversed_cases):
    """The checks of one Part C cell: ``train_with_lifting`` called through ``lifting_with_your_functions`` (with
    right functions of Parts A and B) on ``cases``, then with ``train_through_origin`` visiting the examples in
    reverse order on ``reversed_cases``."""
    def hidden(case, **kwargs):
        answers = _answers(*case.args, max_epochs=case.kwargs.get("max_epochs", 100))
        return Case(case.describe, (*case.args, answers), {**case.kwargs, **kwargs})

    return [
        Check(
            grade_id=grade_id,
            function="lifting_with_your_functions",
            cases=[hidden(case) for case in cases],
            expected=_lifting,
            compare=_judged(reverse=False),
            hint=LIFTING_HINT,
            hint_on_exception=CALLED,
        ),
        Check(
            grade_id=grade_id,
            function="lifting_with_your_functions",
            cases=[hidden(case, reverse=True) for case in reversed_cases],
            expected=_lifting,
            compare=_judged(reverse=True),
            hint=REVERSED_HINT,
            hint_on_exception=CALLED,
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
