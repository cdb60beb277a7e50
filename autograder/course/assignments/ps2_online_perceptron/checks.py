"""Hidden checks of problem set 2: the perceptron update, the training loop, the training error.

The hidden cases start from zero weights (where ``<`` instead of ``<=`` never
updates), put points labelled -1 exactly on the plane (where a wrong
prediction is not the same as a mistake), use both labels (a wrong sign), learn
with and without an offset, and need several epochs, or never converge (the
stopping rule and the epoch count); they also converge in exactly the last
epoch allowed, stop one epoch before it, and train on a single example.
Data that never converges, trained with the default ``max_epochs``, tells the
stated default from any other.
The training error after each epoch is checked on data where it differs from
the mistakes made during the epoch, goes up as well as down, and never
reaches zero.
Arrays must come back as float64 numpy arrays and offsets as floats, as the
docstrings say: a list, an integer array from integer inputs (with or without a
mistake), a float32 array (whose values, one rounding away from the right ones,
pass the 1e-7 tolerance on the update cases and the training errors), or an
offset ``b + y`` left an int by integer inputs, or ``b = 0`` never updated
through the origin, loses the points of its cell.  Values computed in float32
and returned as float64 miss the tolerance on the random data of Part B, and
their message says why.
Each check is judged twice over the same cases (:func:`_values_then_types`):
first the values, with the check's hint on the algorithm, then the types, whose
message says what to convert and carries no hint, since an answer whose values
are all right needs no advice about the update rule.
``tests/grader/course/test_ps2_claims.py`` proves what the cases' descriptions
and the notebook's texts claim about their data.
"""

import dataclasses

import numpy as np

import perceptron_lib as pl

from autograder.judging.checks import Case, Check, compare_near_float32, float64_problem


def _values_then_types(check):
    """``check`` as two checks of its cell over the same cases: the values (:func:`compare_near_float32`) with its
    hint, then the float64 arrays and float offsets the docstrings ask for (:func:`float64_problem`) with none.
    Together they fail exactly the answers :func:`compare_float64` fails."""
    return [dataclasses.replace(check, compare=compare_near_float32),
            dataclasses.replace(check, compare=float64_problem, hint="")]


def _update(w, b, x, y):
    w_new, b_new, mistake = pl.perceptron_update(w, b, x, y)
    return w_new, float(b_new), bool(mistake)


def _train(X, y, *, fit_intercept=True, max_epochs=100):
    result = pl.train_perceptron(X, y, fit_intercept=fit_intercept, max_epochs=max_epochs)
    return result.w, float(result.b), int(result.n_mistakes), int(result.n_epochs)


def _training_errors(X, y, *, max_epochs=100):
    # The weights after epoch k are those of a run stopped after k epochs.
    X = np.asarray(X, dtype=float)
    n_epochs = pl.train_perceptron(X, y, max_epochs=max_epochs).n_epochs
    errors = []
    for k in range(1, int(n_epochs) + 1):
        result = pl.train_perceptron(X, y, max_epochs=k)
        errors.append(float(np.mean(y * (X @ result.w + result.b) <= 0)))
    return np.array(errors)


EX = pl.offset_update_example()
X4, y4 = pl.four_point_example()
X1, y1 = pl.one_dimensional_example()
XOR4 = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
XOR4_y = np.array([1.0, -1.0, -1.0, 1.0])
X_sep, y_sep, _ = pl.make_separable(30, 3, margin=0.1, random_state=5)
# Twenty points in the square [0.5, 4.5]^2, labelled +1 below the line x1 + 2 x2 = 7 and -1 above it (no point
# within 1 of it in score): w = (-1, -2), b = 7 separates them, but no line through the origin does, since (1, 1)
# is labelled +1 and (4.5, 4.5) = 4.5 (1, 1) is labelled -1. With the offset the perceptron needs 6 epochs.
X_off = np.array([[1.75, 1.25], [1.5, 4.5], [2.0, 3.75], [1.0, 4.5], [0.75, 2.0], [3.0, 1.5], [4.5, 4.5],
                  [1.0, 1.0], [3.75, 3.5], [3.25, 0.75], [1.0, 4.25], [1.75, 0.5], [3.0, 2.5], [1.5, 2.0],
                  [1.25, 0.75], [3.25, 3.75], [4.5, 2.75], [4.5, 3.25], [1.0, 3.75], [1.5, 2.25]])
y_off = np.array([1.0, -1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, -1.0, 1.0, 1.0, -1.0, -1.0,
                  -1.0, -1.0, 1.0])
X_one, y_one = np.array([[2.0, -1.0]]), np.array([-1.0])
X_noisy, y_xor = pl.make_xor(12, spread=0.2, random_state=7)
y_flip = pl.flip_labels(y_sep, 0.2, random_state=8)
X_int = np.array([[2, 1], [-1, -3], [0, 2], [3, -1], [-2, 0]])
y_int = np.array([1, -1, 1, 1, -1])

CHECKS = [check for each in [
    Check(
        grade_id="update_worked_example",
        function="perceptron_update",
        cases=[
            Case("the worked example", (EX.w, EX.b, EX.x, EX.y), visible=True),
            Case("w = (2, 2), b = 2 and the point x = (-1.5, 1.5) with y = -1",
                 (EX.w_after, EX.b_after, EX.next_x, EX.next_y), visible=True),
            Case("a misclassified positive point in 3-D", (np.array([0.5, -1.0, 2.0]), -0.5, np.array([1.0, 2.0, 0.0]), 1)),
            Case("a positive point that only the offset puts on the wrong side",
                 (np.array([1.0, 1.0]), -3.0, np.array([1.0, 1.0]), 1)),
            Case("a misclassified negative point in 3-D", (np.array([0.5, -1.0, 2.0]), 0.25, np.array([0.0, 1.0, 1.0]), -1)),
        ],
        expected=_update,
        hint="On a mistake, w becomes w + y x and b becomes b + y; return (w_new, b_new, mistake).",
    ),
    Check(
        grade_id="update_rules",
        function="perceptron_update",
        cases=[
            Case("a correctly classified point", (np.array([1.0, 2.0]), 0.5, np.array([1.0, 1.0]), 1), visible=True),
            Case("zero weights and offset, and the point (1, -2, 0.5) with y = -1",
                 (np.zeros(3), 0.0, np.array([1.0, -2.0, 0.5]), -1), visible=True),
            Case("integer weights and an integer point", (np.array([1, -2, 0, 3]), 1, np.array([2, 1, 5, -1]), 1),
                 visible=True),
            Case("zero weights and offset, and a positive point", (np.zeros(2), 0.0, np.array([0.5, 0.5]), 1)),
            Case("a positive point that only the offset keeps on the right side",
                 (np.array([1.0, 1.0]), 3.0, np.array([-1.0, -1.0]), 1)),
            Case("a correctly classified negative point", (np.array([1.0, -1.0]), -0.5, np.array([-2.0, 1.0]), -1)),
            Case("a point exactly on the plane, with a non-zero w", (np.array([1.0, 1.0]), -2.0, np.array([1.0, 1.0]), 1)),
            Case("a point labelled -1 exactly on the plane, with a non-zero w",
                 (np.array([2.0, -1.0]), 1.0, np.array([1.0, 3.0]), -1)),
            Case("integer weights and a correctly classified integer point",
                 (np.array([1, 2]), 0, np.array([1, 1]), 1), visible=True),
            Case("a correctly classified point in 4-D", (np.array([0.3, 0.1, -0.2, 0.4]), 0.0, np.array([1.0, 1.0, -1.0, 1.0]), 1)),
        ],
        expected=_update,
        hint="Update only when y (w . x + b) <= 0, and return new arrays rather than changing w.",
    ),
    Check(
        grade_id="train_through_origin",
        function="train_perceptron",
        cases=[
            Case("the points (1, 0) and (0, 1), both labelled -1, with fit_intercept=False",
                 (np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([-1.0, -1.0])), {"fit_intercept": False}, visible=True),
            Case("the four-point example with fit_intercept=False", (X4, y4), {"fit_intercept": False}, visible=True),
            Case("separable data in 3-D with fit_intercept=False", (X_sep, y_sep), {"fit_intercept": False}),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1, with fit_intercept=False and max_epochs=5",
                 (X1, y1), {"fit_intercept": False, "max_epochs": 5}),
            Case("the four-point example in reverse order with fit_intercept=False", (X4[::-1].copy(), y4[::-1].copy()),
                 {"fit_intercept": False}),
            Case("data in the plane that no line through the origin separates, with fit_intercept=False and "
                 "max_epochs=4", (X_off, y_off), {"fit_intercept": False, "max_epochs": 4}),
        ],
        expected=_train,
        hint="Start from w = 0; update on y (w . x) <= 0; with fit_intercept=False, b stays 0.0; stop after the "
             "first epoch without a mistake (and count it), or after max_epochs epochs.",
    ),
    Check(
        grade_id="train_with_offset",
        function="train_perceptron",
        cases=[
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1", (X1, y1), visible=True),
            Case("integer data in the plane with integer labels", (X_int, y_int), visible=True),
            Case("the four-point example with an offset", (X4, y4)),
            Case("data in the plane that only a line with an offset separates", (X_off, y_off)),
            Case("separable data in 3-D", (X_sep, y_sep)),
            Case("a single example, the point (2, -1) labelled -1", (X_one, y_one)),
        ],
        expected=_train,
        hint="On every mistake add y x to w and y to b, visiting the examples in the given order; stop after the "
             "first epoch without a mistake (and count it), or after max_epochs epochs.",
    ),
    Check(
        grade_id="train_stopping_rule",
        function="train_perceptron",
        cases=[
            Case("the four XOR points (1, 1), (1, -1), (-1, 1), (-1, -1) labelled +1, -1, -1, +1, with max_epochs=3",
                 (XOR4, XOR4_y), {"max_epochs": 3}, visible=True),
            Case("twelve noisy XOR points with max_epochs=4", (X_noisy, y_xor), {"max_epochs": 4}),
            Case("separable data with a fifth of the labels flipped and max_epochs=6", (X_sep, y_flip), {"max_epochs": 6}),
            Case("separable data that needs several epochs, with max_epochs=2", (X_off, y_off), {"max_epochs": 2}),
            Case("separable data that needs several epochs, with max_epochs=1", (X_sep, y_sep), {"max_epochs": 1}),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=30", (X1, y1), {"max_epochs": 30}),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=11, whose last epoch is the first "
                 "without a mistake", (X1, y1), {"max_epochs": 11}),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=10, one epoch too few to see an "
                 "epoch without a mistake", (X1, y1), {"max_epochs": 10}),
            Case("the four XOR points, which never converge, with the default max_epochs", (XOR4, XOR4_y)),
        ],
        expected=_train,
        hint="Stop after the first epoch without a mistake (and count it), or after max_epochs epochs.",
    ),
    Check(
        grade_id="training_errors_values",
        function="training_errors",
        cases=[
            Case("the four-point example", (X4, y4), visible=True),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1", (X1, y1), visible=True),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1, with max_epochs=8", (X1, y1), {"max_epochs": 8}),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1, with max_epochs=10, one epoch too few to see an "
                 "epoch without a mistake", (X1, y1), {"max_epochs": 10}),
            Case("separable data in 3-D", (X_sep, y_sep)),
            # max_epochs=20, not the default: a right answer that retrains from zero for each epoch k makes
            # n (n + 1) / 2 epochs, 5050 of them on these 30 points with the default, close to the call limit.
            Case("separable data with a fifth of the labels flipped, with max_epochs=20", (X_sep, y_flip),
                 {"max_epochs": 20}),
            Case("the four XOR points with max_epochs=6", (XOR4, XOR4_y), {"max_epochs": 6}),
            # The default max_epochs, on four points: 100 entries of 1.0, which no other default gives.
            Case("the four XOR points, which never converge, with the default max_epochs", (XOR4, XOR4_y)),
            Case("integer data in the plane with integer labels", (X_int, y_int)),
            Case("data in the plane that only a line with an offset separates", (X_off, y_off)),
            Case("a single example, the point (2, -1) labelled -1", (X_one, y_one)),
        ],
        expected=_training_errors,
        hint="After each epoch, count the training examples the weights of that moment get wrong or put on "
             "the plane, divided by the number of examples; one entry per epoch run, up to the first epoch "
             "without a mistake (included) or max_epochs epochs.",
    ),
] for check in _values_then_types(each)]
