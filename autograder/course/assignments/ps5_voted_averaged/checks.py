"""Hidden checks of problem set 5: voted training and prediction, the averaged perceptron, noisy data.

The expected values come from ``perceptron_lib.VotedPerceptron`` and
``AveragedPerceptron``.  Hidden cases need several epochs or never converge
(survival counts across epoch boundaries, the averaging counter over every
visit; for each training function once with the default ``max_epochs``,
which tells it from any other, and once with a ``max_epochs`` whose last epoch
is the first without a mistake), train on a single example, put vector
scores and votes exactly at 0 (``sign(0) = -1`` inside and outside the
vote), and separate the vote from the average.
"""

import warnings

import numpy as np

import perceptron_lib as pl

from autograder.judging.checks import Case, Check


def _fit(model_class, X, y, max_epochs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pl.ConvergenceWarning)
        return model_class(max_epochs=max_epochs).fit(X, y)


def _voted(X, y, *, max_epochs=10):
    model = _fit(pl.VotedPerceptron, X, y, max_epochs)
    return model.weights_, model.intercepts_, model.counts_.astype(np.int64)


def _predict_voted(X, weights, intercepts, counts):
    scores = np.asarray(X, dtype=float) @ np.asarray(weights, dtype=float).T + np.asarray(intercepts, dtype=float)
    return pl.sign(pl.sign(scores) @ np.asarray(counts)).astype(np.int64)


def _averaged(X, y, *, max_epochs=10):
    model = _fit(pl.AveragedPerceptron, X, y, max_epochs)
    return model.coef_, float(model.intercept_)


def _compare(n_train=200, flip_fraction=0.2, *, random_state=0):
    X, y, _ = pl.make_separable(2 * n_train, 5, margin=0.05, random_state=random_state)
    X_train, X_test, y_test = X[:n_train], X[n_train:], y[n_train:]
    y_train = pl.flip_labels(y[:n_train], flip_fraction, random_state=random_state)
    voted = _fit(pl.VotedPerceptron, X_train, y_train, 10)
    averaged = _fit(pl.AveragedPerceptron, X_train, y_train, 10)
    last = float(np.mean(pl.sign(X_test @ voted.coef_ + voted.intercept_) == y_test))
    return last, voted.score(X_test, y_test), averaged.score(X_test, y_test)


X4, y4 = pl.four_point_example()
X1, y1 = pl.one_dimensional_example()
X_sep, y_sep, _ = pl.make_separable(20, 3, margin=0.1, random_state=31)
X_off = X_sep + np.array([1.0, 0.5, -1.0])
y_noisy = pl.flip_labels(y_sep, 0.2, random_state=32)
X_first_right = np.array([[1.0, 2.0], [2.0, 1.0], [-1.0, -1.0], [0.5, -2.0]])
y_first_right = np.array([1.0, 1.0, -1.0, -1.0])
FOUR_W = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]])
FOUR_B = np.array([0.0, 1.0, 0.0])
FOUR_C = np.array([0, 1, 7])
_rng = np.random.default_rng(20240505)
W_many = np.round(_rng.normal(size=(6, 3)), 2)
B_many = np.round(_rng.normal(size=6), 2)
C_many = np.array([0, 3, 1, 5, 2, 4])
X_many = np.round(_rng.normal(size=(10, 3)), 2)
# One example: a mistake at the first visit, then an epoch without one (two visits in all).
X_single, y_single = np.array([[2.0, -1.0, 0.5]]), np.array([-1.0])
# The one-dimensional example makes its last mistake in epoch 10 and none in epoch 11: with max_epochs=11
# training converges in the last epoch it is allowed, with the default 10 it stops unconverged.
CONVERGES_IN = 11

CHECKS = [
    Check(
        grade_id="voted_four_point",
        function="train_voted",
        cases=[
            Case("the four-point example", (X4, y4), visible=True),
            Case("the four-point example in reverse order", (X4[::-1].copy(), y4[::-1].copy())),
            Case("four points in the plane that the first update separates", (X_first_right, y_first_right)),
        ],
        expected=_voted,
        hint="Keep every vector held (starting with zero, ending with the last) with its offset and its count, "
             "and stop after the first epoch without a mistake.",
    ),
    Check(
        grade_id="voted_counts",
        function="train_voted",
        cases=[
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=2", (X1, y1), {"max_epochs": 2},
                 visible=True),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with the default max_epochs", (X1, y1)),
            Case("twenty separable points in 3-D away from the origin", (X_off, y_sep), {"max_epochs": 50}),
            Case("twenty points in 3-D with flipped labels and max_epochs=3", (X_sep, y_noisy), {"max_epochs": 3}),
            Case("separable data that converges before max_epochs", (X_sep, y_sep), {"max_epochs": 20}),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=11, whose 11th epoch is the "
                 "first without a mistake", (X1, y1), {"max_epochs": CONVERGES_IN}),
            Case("a single example", (X_single, y_single)),
        ],
        expected=_voted,
        hint="Each visit adds 1 to the count of the vector that is current after it, and a new vector starts at 1; "
             "run at most max_epochs epochs, and stop after the first without a mistake.",
    ),
    Check(
        grade_id="predict_voted_values",
        function="predict_voted",
        cases=[
            Case("the four-point example's vectors and the points (2, 1), (-1, -3), (0.5, -1)",
                 (np.array([[2.0, 1.0], [-1.0, -3.0], [0.5, -1.0]]), FOUR_W, FOUR_B, FOUR_C), visible=True),
            Case("the vectors 1 and -3 with counts 2 and 1 and the point 1",
                 (np.array([[1.0]]), np.array([[1.0], [-3.0]]), np.zeros(2), np.array([2, 1])), visible=True),
            Case("six vectors in 3-D with different counts and ten points", (X_many, W_many, B_many, C_many)),
            Case("a long-lived vector outvoting two short-lived ones",
                 (np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([[1.0, 1.0], [-2.0, 0.0], [0.0, -2.0]]),
                  np.array([0.5, 0.0, 0.0]), np.array([5, 2, 2]))),
            Case("a single vector", (X_many, W_many[:1], B_many[:1], np.array([4]))),
        ],
        expected=_predict_voted,
        hint="Each vector votes sign(w_k . x + b_k), weighted by its count; return the sign of the total as ints.",
    ),
    Check(
        grade_id="predict_voted_ties",
        function="predict_voted",
        cases=[
            Case("the vectors (0, 1) and (1, 0) with counts 3 and 2 and the point (1, 0)",
                 (np.array([[1.0, 0.0]]), np.array([[0.0, 1.0], [1.0, 0.0]]), np.zeros(2), np.array([3, 2])), visible=True),
            Case("the vectors (1, 0) and (-1, 0) with counts 2 and 2 and the point (1, 0)",
                 (np.array([[1.0, 0.0]]), np.array([[1.0, 0.0], [-1.0, 0.0]]), np.zeros(2), np.array([2, 2])), visible=True),
            Case("vectors with offsets whose scores are exactly 0 at some points",
                 (np.array([[1.0, 1.0], [2.0, 0.0], [0.0, 0.0]]), np.array([[1.0, 1.0], [1.0, -1.0], [0.0, 1.0]]),
                  np.array([-2.0, -2.0, 0.0]), np.array([1, 3, 2]))),
            Case("a zero vector with count 0 and two opposite votes that tie",
                 (np.array([[3.0, -1.0], [-1.0, 2.0]]), np.array([[0.0, 0.0], [1.0, 1.0], [-1.0, -1.0]]),
                  np.array([0.0, 0.5, -0.5]), np.array([0, 4, 4]))),
        ],
        expected=_predict_voted,
        hint="sign(0) = -1, both for a vector that scores exactly 0 and for a tied vote (do not use np.sign).",
    ),
    Check(
        grade_id="averaged_four_point",
        function="train_averaged",
        cases=[
            Case("the four-point example", (X4, y4), visible=True),
            Case("the four-point example in reverse order", (X4[::-1].copy(), y4[::-1].copy())),
            Case("four points in the plane that the first update separates", (X_first_right, y_first_right)),
        ],
        expected=_averaged,
        hint="Average the weights held after each of the T visits: number the visits from 0 in u, and return "
             "w - u / T, with T the number of visits made.",
    ),
    Check(
        grade_id="averaged_general",
        function="train_averaged",
        cases=[
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=10", (X1, y1), {"max_epochs": 10},
                 visible=True),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=3", (X1, y1), {"max_epochs": 3}),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with the default max_epochs", (X1, y1)),
            Case("twenty separable points in 3-D away from the origin", (X_off, y_sep), {"max_epochs": 50}),
            Case("twenty points in 3-D with flipped labels and max_epochs=4", (X_sep, y_noisy), {"max_epochs": 4}),
            Case("separable data that converges before max_epochs", (X_sep, y_sep), {"max_epochs": 20}),
            Case("the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with max_epochs=11, whose 11th epoch is the "
                 "first without a mistake", (X1, y1), {"max_epochs": CONVERGES_IN}),
            Case("a single example", (X_single, y_single)),
        ],
        expected=_averaged,
        hint="Count every visit, mistake or not, over all the epochs run (at most max_epochs, stopping after the "
             "first without a mistake), and average the offset with beta the same way.",
    ),
    Check(
        grade_id="noisy_comparison_values",
        function="compare_on_noisy_data",
        cases=[
            Case("n_train=50, flip_fraction=0.1, random_state=1", (50, 0.1), {"random_state": 1}, visible=True),
            Case("the default arguments", ()),
            Case("n_train=80 with a quarter of the labels flipped and another seed", (80, 0.25), {"random_state": 5}),
            Case("no flipped labels", (60, 0.0), {"random_state": 2}),
        ],
        expected=_compare,
        hint="Follow the protocol exactly: the same calls of make_separable and flip_labels, "
             "max_epochs=10, and accuracies on the test half with its original labels.",
    ),
]
