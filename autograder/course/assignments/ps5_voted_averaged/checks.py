"""Hidden checks of problem set 5: voted training and prediction, the averaged perceptron, noisy data.

The expected values of Parts A to C come from ``perceptron_lib.VotedPerceptron``
and ``AveragedPerceptron``.  Hidden cases need several epochs or never converge
(survival counts across epoch boundaries, the averaging counter over every
visit; for each training function once with the default ``max_epochs``,
which tells it from any other, and once with a ``max_epochs`` whose last epoch
is the first without a mistake), train on a single example, put vector
scores and votes exactly at 0 (``sign(0) = -1`` inside and outside the
vote), and separate the vote from the average.  On the XOR points in the
order (0, 0), (1, 1), (0, 1), (1, 0), with max_epochs=4, the second epoch makes
four mistakes and ends with the (w, b) it started with, and the third and
fourth repeat it: a training loop that stops when an epoch leaves (w, b)
unchanged stops after two epochs instead of four, and a ``train_voted`` that
keeps each distinct vector once, with the counts of its repetitions added up,
returns 5 vectors instead of 16.

Part D asks for the protocol run with the student's own functions, so it is
judged with them.  Its first check only requires three numbers between 0 and
1.  The others call ``compare_with_your_functions``, a locked cell of the
notebook: it calls the student's ``compare_on_noisy_data`` and then their
``train_voted``, ``train_averaged`` and ``predict_voted`` on the protocol's
data, which the host makes and hands it; the host computes from those
functions' results the three accuracies the protocol gives
(:func:`_accuracies_from`) and requires ``compare_on_noisy_data``'s to be
those (or the reference's, which a right Part D returns with right
functions).  A mistake in Parts A to C then costs no point in Part D, unless
it makes a function raise or return something the protocol cannot use.

Every hidden case is small enough for a right ``predict_voted`` written as
loops over the points and the vectors: a hidden test gives each call about
a second (``min_call_seconds``, since the solution's calls are fast), and
the protocol at its default size (n_train=200: about 760 vectors and 200
test points, run twice by ``compare_with_your_functions``) takes such a
loop one to two seconds.  So the protocol runs on at most 60 training
points, ``flip_fraction`` and ``random_state`` are left out on 40 of them,
and the default of ``n_train`` is read from the signature by the locked
``compare_on_noisy_data_defaults``, never by running the default size.  That
check judges the three defaults the docstring gives and nothing else: a
parameter the student added with a default of its own passes, and a default
of ``None`` replaced by ``0`` inside the function fails, as the notebook and
its visible test say.  The claims test bounds the vector-point pairs each
case makes a right ``predict_voted`` compute.
"""

import warnings

import numpy as np

import perceptron_lib as pl

from autograder.judging.checks import Case, Check, compare_values


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


def _protocol_data(n_train=200, flip_fraction=0.2, *, random_state=0):
    """Steps 1 and 2 of Part D's protocol: ``(X_train, y_train, X_test, y_test)``."""
    X, y, _ = pl.make_separable(2 * n_train, 5, margin=0.05, random_state=random_state)
    y_train = pl.flip_labels(y[:n_train], flip_fraction, random_state=random_state)
    return X[:n_train], y_train, X[n_train:], y[n_train:]


def _compare(n_train=200, flip_fraction=0.2, *, random_state=0):
    X_train, y_train, X_test, y_test = _protocol_data(n_train, flip_fraction, random_state=random_state)
    voted = _fit(pl.VotedPerceptron, X_train, y_train, 10)
    averaged = _fit(pl.AveragedPerceptron, X_train, y_train, 10)
    last = float(np.mean(pl.sign(X_test @ voted.coef_ + voted.intercept_) == y_test))
    return last, voted.score(X_test, y_test), averaged.score(X_test, y_test)


ACCURACIES = ("acc_last", "acc_voted", "acc_averaged")


def _three_accuracies(got, expected=None):
    """``None`` if ``got`` is three numbers between 0 and 1, as Part D's docstring promises, else the reason.

    ``expected`` is not used: which accuracies are right depends on the student's own functions, and the checks
    of ``compare_with_your_functions`` judge that."""
    if not isinstance(got, (tuple, list)):
        what = getattr(got, "description", None) or f"a value of type {type(got).__name__}"
        return f"returned {what}; expected a tuple of three accuracies"
    if len(got) != 3:
        return f"returned {len(got)} values; expected three accuracies"
    for name, value in zip(ACCURACIES, got):
        if (isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iuf") or isinstance(
                value, (np.floating, np.integer)):
            value = value.item()  # a numpy number, as a 0-d array is taken, whatever its dtype
        if type(value) not in (int, float) or not 0 <= value <= 1:
            return f"returned {value!r} as {name}; expected a number between 0 and 1, a fraction of the test points"
    return None


def _numbers(value, ndim):
    """``value`` as a float array with ``ndim`` dimensions, or ``None`` if it is not one (lists of numbers too)."""
    try:
        array = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
    return array if array.ndim == ndim and np.all(np.isfinite(array)) else None


def _accuracies_from(voted, averaged, predicted, X_test, y_test):
    """The accuracies of Part D's step 4 computed from what the student's own ``train_voted`` (``voted``),
    ``train_averaged`` (``averaged``) and ``predict_voted`` (``predicted``, on ``X_test``) returned; ``None``
    when those results cannot be used (a wrong type or shape)."""
    if not (isinstance(voted, (tuple, list)) and len(voted) == 3
            and isinstance(averaged, (tuple, list)) and len(averaged) == 2):
        return None
    weights, intercepts = _numbers(voted[0], 2), _numbers(voted[1], 1)
    w_avg, b_avg, predicted = _numbers(averaged[0], 1), _numbers(averaged[1], 0), _numbers(predicted, 1)
    if any(v is None for v in (weights, intercepts, w_avg, b_avg, predicted)) or len(weights) == 0 \
            or weights.shape[1] != X_test.shape[1] or len(intercepts) != len(weights) \
            or w_avg.shape != (X_test.shape[1],) or predicted.shape != y_test.shape:
        return None
    last = np.where(X_test @ weights[-1] + intercepts[-1] > 0, 1, -1)
    averaged_labels = np.where(X_test @ w_avg + float(b_avg) > 0, 1, -1)
    return tuple(float(np.mean(labels == y_test)) for labels in (last, predicted, averaged_labels))


# Part D's hidden cases run the protocol on at most 60 training points (see the module's docstring): the defaults of
# flip_fraction and random_state are left out on 40 of them, and the default of n_train is read from the signature.
SMALL_N_TRAIN = 40
DEFAULT_FLIP_AND_SEED = "n_train=40 with the default flip_fraction and random_state"
PROTOCOL_DEFAULTS = {"n_train": 200, "flip_fraction": 0.2, "random_state": 0}
DEFAULTS_HINT = ("Keep the defaults of compare_on_noisy_data as its docstring gives them, n_train=200, "
                 "flip_fraction=0.2, random_state=0, in its signature: the tests read them from there, so a default "
                 "of None replaced inside the function does not count. A parameter you add is fine if it has a "
                 "default.")


_NO_DEFAULT = object()


def _default_problem(name, found, value):
    """``None`` if ``found``, the default a signature gives ``name``, is ``value``, the docstring's, else what is
    wrong.  A whole number must be an int (n_train=200.0 cannot slice the data); a real number may be written as an
    int; a truth value is neither; ``None`` is not ``0``, even in a function that replaces it by ``0``: the tests read
    the default from the signature."""
    whole = isinstance(value, int)
    kinds = (int, np.integer) if whole else (int, float, np.floating)  # as the notebook's visible test
    if found is not _NO_DEFAULT and not isinstance(found, bool) and isinstance(found, kinds) and found == value:
        return None
    found_text = f"no default for {name}" if found is _NO_DEFAULT else f"{name}={found!r}"
    return (f"found {found_text} where compare_on_noisy_data's docstring gives {name}={value!r}"
            + (", an int" if whole else ""))


def _same_defaults(got, expected):
    """``None`` if ``got``, the default values ``compare_on_noisy_data_defaults`` read from the signature, give each
    parameter of ``expected`` its value, else what is wrong.  Parameters the student added are not judged here (the
    calls of the other checks judge what the function does)."""
    if not isinstance(got, dict):
        return "returned something other than a dict of default values: has the locked cell been changed?"
    problems = [_default_problem(name, got.get(name, _NO_DEFAULT), value) for name, value in expected.items()]
    problems = [problem for problem in problems if problem is not None]
    return "; ".join(problems) if problems else None


def _with_your_functions(describe, *args, **kwargs):
    """The check of ``compare_on_noisy_data(*args, **kwargs)`` against the protocol run with the student's own
    functions, through the notebook's locked ``compare_with_your_functions``."""
    X_train, y_train, X_test, y_test = _protocol_data(*args, **kwargs)

    def expected(X_train, y_train, X_test, *args, **kwargs):
        # What compare_with_your_functions returns when every function of the notebook is right.
        voted = _voted(X_train, y_train, max_epochs=10)
        return (_compare(*args, **kwargs), voted, _averaged(X_train, y_train, max_epochs=10),
                _predict_voted(X_test, *voted))

    def compare(got, want):
        if not isinstance(got, (tuple, list)) or len(got) != 4:
            return ("returned something other than what the locked cell's compare_with_your_functions returns: "
                    "has the cell been changed?")
        accuracies, voted, averaged, predicted = got
        problem = _three_accuracies(accuracies, want[0])
        if problem:
            return f"found that compare_on_noisy_data {problem}"
        if compare_values(accuracies, want[0]) is None:
            return None
        yours = _accuracies_from(voted, averaged, predicted, X_test, y_test)
        if yours is None:
            return ("found that your train_voted, train_averaged or predict_voted returns values of the wrong type "
                    "or shape on the protocol's data, and compare_on_noisy_data returned the wrong accuracies")
        wrong = [name for name, got_one, own in zip(ACCURACIES, accuracies, yours)
                 if compare_values(got_one, own) is not None]
        if not wrong:
            return None
        names = wrong[0] if len(wrong) == 1 else ", ".join(wrong[:-1]) + " and " + wrong[-1]
        return (f"found that compare_on_noisy_data's {names} "
                f"{'is not the accuracy' if len(wrong) == 1 else 'are not the accuracies'} that the protocol gives "
                "with your own train_voted, predict_voted and train_averaged")

    return Check(
        grade_id="noisy_comparison_values",
        function="compare_with_your_functions",
        cases=[Case(describe, (X_train, y_train, X_test, *args), kwargs)],
        expected=expected,
        compare=compare,
        # The student's functions may change the arrays they are given: Parts A and C judge that, not Part D.
        allow_mutation=True,
        hint=COMPARISON_HINT,
        hint_on_exception=HELPER_CALLS,
    )


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
# XOR in the order (0, 0), (1, 1), (0, 1), (1, 0): the second epoch makes four mistakes and ends with the (w, b) it
# started with, (1, 1) and 1, and so does every epoch after it; nothing separates the four points.
X_xor = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
y_xor = np.array([-1.0, -1.0, 1.0, 1.0])
XOR_EPOCHS = 4
XOR_DESCRIBE = ("the XOR points (0, 0), (1, 1), (0, 1), (1, 0) labelled -1, -1, +1, +1 with max_epochs=4, whose "
                "second epoch makes four mistakes and ends with the (w, b) it started with")
# The one-dimensional example makes its last mistake in epoch 10 and none in epoch 11: with max_epochs=11
# training converges in the last epoch it is allowed, with the default 10 it stops unconverged.
CONVERGES_IN = 11
# A tie that neither the last vector nor the averaged score breaks as the rule does: the vote is -2 + 2 = 0, so -1,
# while the last vector, (3, 0), votes +1 and the averaged score is (2 * -1 + 2 * 3) / 4 = 1 > 0.
TIE_LAST_PLUS = ("the vectors (-1, 0) and (3, 0) with counts 2 and 2 and the point (1, 0), a tied vote although the "
                 "last vector votes +1 and the averaged score is positive")

COMPARISON_HINT = ("Follow the protocol with your own functions: the first n_train rows train, with train_voted and "
                   "train_averaged and max_epochs=10, the rest test with their original labels; the last vector is "
                   "the last row of the weights and the last offset, and sign(0) = -1.")
COMPARISON_CALLS = ("compare_on_noisy_data calls your train_voted, train_averaged and predict_voted: if one of them "
                    "is not written yet or raises, write or fix it first, with its own test.")
HELPER_CALLS = ("compare_with_your_functions calls your compare_on_noisy_data, then your train_voted, train_averaged "
                "and predict_voted on the protocol's data: if one of them is not written yet or raises, write or fix "
                "it first, with its own test.")

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
            Case(XOR_DESCRIBE, (X_xor, y_xor), {"max_epochs": XOR_EPOCHS}),
        ],
        expected=_voted,
        hint="Each mistake adds a new vector, even one held before, whose count starts at 1, and each visit without "
             "a mistake adds 1 to the count of the current vector; run at most max_epochs epochs, and stop only "
             "after an epoch without a mistake (an epoch whose mistakes bring (w, b) back to where it started is "
             "not one).",
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
            Case(TIE_LAST_PLUS, (np.array([[1.0, 0.0]]), np.array([[-1.0, 0.0], [3.0, 0.0]]), np.zeros(2),
                                 np.array([2, 2]))),
        ],
        expected=_predict_voted,
        hint="sign(0) = -1, both for a vector that scores exactly 0 and for a tied vote, whatever the last vector "
             "or the average would predict (do not use np.sign).",
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
             "w - u / T, with T the number of visits made (not T + 1); stop after the first epoch without a "
             "mistake, or after max_epochs epochs.",
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
            Case(XOR_DESCRIBE, (X_xor, y_xor), {"max_epochs": XOR_EPOCHS}),
        ],
        expected=_averaged,
        hint="Count every visit, mistake or not, over all the epochs run (at most max_epochs, stopping only after an "
             "epoch without a mistake: one whose mistakes bring (w, b) back to where it started is not one), and "
             "average the offset with beta the same way.",
    ),
    # Part D: three accuracies first, then the accuracies the protocol gives with the student's own functions.
    Check(
        grade_id="noisy_comparison_values",
        function="compare_on_noisy_data",
        cases=[
            Case("n_train=50, flip_fraction=0.1, random_state=1", (50, 0.1), {"random_state": 1}),
            Case(DEFAULT_FLIP_AND_SEED, (SMALL_N_TRAIN,)),
        ],
        expected=_compare,
        compare=_three_accuracies,
        hint="Return a tuple of three floats, the fractions of the test points labelled correctly.",
        hint_on_exception=COMPARISON_CALLS,
    ),
    _with_your_functions("n_train=50, flip_fraction=0.1, random_state=1", 50, 0.1, random_state=1),
    _with_your_functions(DEFAULT_FLIP_AND_SEED, SMALL_N_TRAIN),
    _with_your_functions("n_train=40 with a quarter of the labels flipped and another seed", SMALL_N_TRAIN, 0.25,
                         random_state=5),
    _with_your_functions("no flipped labels", 60, 0.0, random_state=2),
    # Last, so that a blank notebook's stubs, which keep the signature, fail the cell with "not implemented" first.
    Check(
        grade_id="noisy_comparison_values",
        function="compare_on_noisy_data_defaults",
        cases=[Case("the signature of compare_on_noisy_data", ())],
        expected=lambda: dict(PROTOCOL_DEFAULTS),
        compare=_same_defaults,
        hint=DEFAULTS_HINT,
    ),
]
