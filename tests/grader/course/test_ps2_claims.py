"""What problem set 2 says about its data, proved; and its hidden checks accept every right answer.

The hidden cases of ``autograder/course/assignments/ps2_online_perceptron/checks.py`` describe their
inputs to the students ("data in the plane that only a line with an offset separates", "the four
XOR points, which never converge"), and the notebook's texts, hints and model answers state facts
about the worked examples (the numbers of the two orders in the model answer of D2, the training
error that goes back up). Each claim is checked here by computation; a claim that data are not
separable is proved with a certificate in exact arithmetic, not by a run that fails to converge:

* no hyperplane through the origin separates data that contain a point labelled +1 and a positive
  multiple of it labelled -1 (for any w, their scores have the same sign);
* no hyperplane, with or without an offset, separates data in which an average of points labelled
  +1 equals an average of points labelled -1 (the score of that average is the average of the
  scores, so it cannot be both positive and negative).

A linear program (scipy's ``linprog``, whose infeasibility is a numerical verdict) confirms the
exact certificates and decides the claims about random data.

The last tests run right implementations that the notebook's texts allow, written in other ways than
the solution, through the hidden checks: none may lose a point; they check that the types the docstrings
ask for (float64 arrays, a float offset) are what the checks require; and they mark the cases of the
marking guides with the starting rubric's items, as the marking page adds them up.
"""

import itertools
from fractions import Fraction

import nbformat
import numpy as np
import pytest

import perceptron_lib as pl
from autograder.course.assignments.ps2_online_perceptron import checks as ps2
from autograder.course.assignments import load_known_wrong
from autograder.judging.checks import FLOAT32_DIAGNOSIS, compare_float64, compare_near_float32, evaluate_namespace, float64_problem

from tests.support import COURSE

ASSIGNMENT = "ps2_online_perceptron"


def _exact(v):
    return tuple(Fraction(float(t)) for t in np.ravel(v))


def ray_certificate(X, y):
    """Indices ``(i, j)`` with ``y_i = +1``, ``y_j = -1`` and ``x_j = c x_i`` for some exact ``c > 0``, or None."""
    points = [_exact(x) for x in X]
    for i, j in itertools.product(range(len(y)), repeat=2):
        if y[i] != 1 or y[j] != -1 or not any(points[i]):
            continue
        k = next(k for k, t in enumerate(points[i]) if t != 0)
        c = points[j][k] / points[i][k]
        if c > 0 and all(b == c * a for a, b in zip(points[i], points[j])):
            return i, j
    return None


def average_certificate(X, y, positives, negatives):
    """Whether the average of ``X[positives]`` (all labelled +1) equals the average of ``X[negatives]`` (all -1), exactly."""
    assert all(y[i] == 1 for i in positives) and all(y[j] == -1 for j in negatives)

    def average(indices):
        return tuple(sum(column) / len(indices) for column in zip(*(_exact(X[i]) for i in indices)))

    return average(positives) == average(negatives)


def separates(X, y, w, b=0.0):
    """Whether ``y_i (w . x_i + b) > 0`` for every i, in exact arithmetic."""
    w, b = _exact(w), Fraction(float(b))
    return all(Fraction(int(label)) * (sum(a * c for a, c in zip(w, _exact(x))) + b) > 0 for x, label in zip(X, y))


def lp_separable(X, y, *, offset):
    """Whether some (w, b) (b = 0 without offset) has y_i (w . x_i + b) >= 1 for every i: a linear program."""
    linprog = pytest.importorskip("scipy.optimize").linprog
    A = np.hstack([X, np.ones((len(X), 1))]) if offset else np.asarray(X, dtype=float)
    result = linprog(np.zeros(A.shape[1]), A_ub=-(y[:, None] * A), b_ub=-np.ones(len(y)),
                     bounds=[(None, None)] * A.shape[1], method="highs")
    assert result.status in (0, 2), result.message  # 0: a solution, 2: infeasible
    return result.status == 0


def cases(grade_id):
    return {case.describe: case for check in ps2.CHECKS if check.grade_id == grade_id for case in check.cases}


@pytest.fixture(scope="module")
def notebook():
    return nbformat.read(f"{COURSE}/source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", as_version=4)


def cell_text(notebook, grade_id=None, startswith=None):
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if (grade_id and meta.get("grade_id") == grade_id) or (startswith and cell.source.startswith(startswith)):
            return " ".join(cell.source.split())
    raise AssertionError(f"no cell {grade_id or startswith!r}")


# -- the data of the hidden cases ---------------------------------------------------------------------------

def test_the_offset_data_need_an_offset():
    """'data in the plane that only a line with an offset separates', and 'that no line through the origin separates'."""
    X, y = ps2.X_off, ps2.y_off
    assert X.shape == (20, 2)
    assert separates(X, y, [-1.0, -2.0], 7.0)
    i, j = ray_certificate(X, y)
    assert (X[i].tolist(), X[j].tolist()) == ([1.0, 1.0], [4.5, 4.5])
    assert lp_separable(X, y, offset=True) and not lp_separable(X, y, offset=False)
    through_origin = pl.train_perceptron(X, y, fit_intercept=False, max_epochs=1000)
    assert not through_origin.converged
    with_offset = pl.train_perceptron(X, y, max_epochs=1000)
    assert with_offset.converged and with_offset.n_epochs == 6  # 'needs several epochs', more than max_epochs=2
    assert "data in the plane that only a line with an offset separates" in cases("train_with_offset")
    assert "separable data that needs several epochs, with max_epochs=2" in cases("train_stopping_rule")


def test_the_training_error_on_the_offset_data_goes_up_and_down():
    errors = ps2._training_errors(ps2.X_off, ps2.y_off)
    assert errors.tolist() == [0.45, 0.55, 0.05, 0.55, 0.0, 0.0]


def test_the_four_xor_points_are_separated_by_no_line_and_never_converge():
    X, y = ps2.XOR4, ps2.XOR4_y
    assert average_certificate(X, y, [0, 3], [1, 2])
    assert not lp_separable(X, y, offset=True)
    default = ps2._train(X, y)  # 'which never converge, with the default max_epochs'
    assert default[3] == 100 and default[2] == 400
    assert ps2._training_errors(X, y).tolist() == [1.0] * 100  # the same case of training_errors
    assert "the four XOR points, which never converge, with the default max_epochs" in cases("training_errors_values")
    assert ps2._training_errors(X, y, max_epochs=6).tolist() == [1.0] * 6  # the weights are back at 0 after each epoch


def test_the_one_dimensional_example_needs_an_offset():
    X, y = ps2.X1, ps2.y1
    assert ray_certificate(X, y) is not None  # 'no threshold at 0 separates these points'
    assert separates(X, y, [-1.0], 2.5)
    through_origin = pl.train_perceptron(X, y, fit_intercept=False, max_epochs=3)
    assert (through_origin.w.tolist(), through_origin.n_mistakes, through_origin.n_epochs) == ([-2.0], 8, 3)


def test_the_one_dimensional_example_converges_in_exactly_the_eleventh_epoch():
    """'with max_epochs=11, whose last epoch is the first without a mistake', 'max_epochs=10, one epoch too few'."""
    eleven = pl.train_perceptron(ps2.X1, ps2.y1, max_epochs=11)
    ten = pl.train_perceptron(ps2.X1, ps2.y1, max_epochs=10)
    assert eleven.converged and eleven.n_epochs == 11
    assert not ten.converged and ten.n_epochs == 10
    assert ps2._training_errors(ps2.X1, ps2.y1, max_epochs=10)[-1] == 0.0  # separated, not yet certified
    assert any("max_epochs=11, whose last epoch" in d for d in cases("train_stopping_rule"))


def test_separable_data_in_3d_are_separable_through_the_origin_and_need_several_epochs():
    X, y, w_star = pl.make_separable(30, 3, margin=0.1, random_state=5)
    assert np.array_equal(X, ps2.X_sep) and np.array_equal(y, ps2.y_sep) and X.shape[1] == 3
    assert np.all(y * (X @ w_star) > 0)
    assert pl.train_perceptron(X, y, max_epochs=1000).n_epochs > 1  # 'needs several epochs, with max_epochs=1'


def test_a_fifth_of_the_labels_flipped_and_the_training_error_never_reaches_zero():
    assert np.sum(ps2.y_flip != ps2.y_sep) == len(ps2.y_sep) // 5
    assert not lp_separable(ps2.X_sep, ps2.y_flip, offset=True)
    case = cases("training_errors_values")["separable data with a fifth of the labels flipped, with max_epochs=20"]
    assert case.kwargs == {"max_epochs": 20}
    errors = ps2._training_errors(*case.args, **case.kwargs)
    assert len(errors) == 20 and np.all(errors > 0)


def test_training_errors_by_retraining_stays_far_below_the_call_limit():
    """Retraining from zero for each epoch k, a right answer Part C's try-it cell suggests, visits
    n_samples * n (n + 1) / 2 examples for n epochs. With the default max_epochs on the 30 flipped
    points that was 151,500 visits, 0.5 to 0.6 s on the grader against a 1 s limit; every case stays
    below a sixth of that."""
    for case in cases("training_errors_values").values():
        n = len(ps2._training_errors(*case.args, **case.kwargs))
        assert len(case.args[1]) * n * (n + 1) // 2 <= 25_000, case.describe


def test_the_other_inputs_are_what_their_descriptions_say():
    assert ps2.X_noisy.shape == (12, 2) and set(ps2.y_xor.tolist()) == {-1.0, 1.0}
    assert not lp_separable(ps2.X_noisy, ps2.y_xor, offset=True)  # so max_epochs=4 is what stops it
    assert ps2.X_int.dtype.kind == "i" and ps2.y_int.dtype.kind == "i" and ps2.X_int.shape[1] == 2
    assert ps2.X_one.shape == (1, 2) and (ps2.X_one[0].tolist(), ps2.y_one.tolist()) == ([2.0, -1.0], [-1.0])
    assert np.array_equal(cases("train_through_origin")[
        "the four-point example in reverse order with fit_intercept=False"].args[0], ps2.X4[::-1])


@pytest.mark.parametrize("grade_id", ["update_worked_example", "update_rules"])
def test_each_update_case_is_the_point_its_description_names(grade_id):
    for describe, case in cases(grade_id).items():
        w, b, x, y = (np.asarray(v, dtype=float) for v in case.args)
        score = float(w @ x + b)
        if "exactly on the plane" in describe or describe.startswith("zero weights"):
            assert score == 0, describe
        if "non-zero w" in describe:
            assert np.any(w != 0), describe
        if "labelled -1" in describe or "y = -1" in describe or "negative point" in describe:
            assert y == -1, describe
        if "positive point" in describe or "y = +1" in describe:
            assert y == 1, describe
        if "misclassified" in describe:
            assert y * score < 0, describe
        if "correctly classified" in describe:
            assert y * score > 0, describe
        if "only the offset puts on the wrong side" in describe:
            assert y * float(w @ x) > 0 and y * score <= 0, describe
        if "only the offset keeps on the right side" in describe:
            assert y * float(w @ x) <= 0 and y * score > 0, describe
        for d in ("3-D", "4-D"):
            if d in describe:
                assert len(x) == int(d[0]), describe
        if "integer" in describe:
            assert all(np.asarray(v).dtype.kind == "i" for v in case.args[:3:2]), describe
    if grade_id == "update_rules":  # the visible hint 'The score 1 + 2 + 0 = 3 is positive.'
        w, b, x, y = cases(grade_id)["integer weights and a correctly classified integer point"].args
        assert w @ x + b == 3 and y == 1


# -- the notebook's texts -------------------------------------------------------------------------------------

def _run(X, y, is_mistake, *, fit_intercept=True, max_epochs=100):
    """The batch perceptron with ``is_mistake(label, score)`` deciding the updates: (w, b, n_mistakes)."""
    X = np.asarray(X, dtype=float)
    w, b, n_mistakes = np.zeros(X.shape[1]), 0.0, 0
    for _ in range(max_epochs):
        made = 0
        for x_i, y_i in zip(X, y):
            if is_mistake(y_i, w @ x_i + b):
                w, b, made = w + y_i * x_i, (b + y_i if fit_intercept else b), made + 1
        n_mistakes += made
        if made == 0:
            break
    return w, float(b), n_mistakes


def test_part_a_why_a_point_on_the_plane_is_a_mistake(notebook):
    at_most_zero = lambda label, score: label * score <= 0  # the rule
    below_zero = lambda label, score: label * score < 0
    wrong_prediction = lambda label, score: (1 if score > 0 else -1) != label  # sign(0) = -1
    text = cell_text(notebook, startswith="## Part A")
    # 'without that (with < 0 in place of <= 0) the perceptron could never leave w = 0, b = 0'
    assert ("without that (with $< 0$ in place of $\\le 0$) the perceptron could never leave $w = 0$, $b = 0$, "
            "where every score is $0$") in text
    assert "without this rule" not in text
    for X, y in [(ps2.X1, ps2.y1), (ps2.X_off, ps2.y_off), (ps2.X_sep, ps2.y_sep), (ps2.X4, ps2.y4)]:
        w, b, n_mistakes = _run(X, y, below_zero)
        assert n_mistakes == 0 and not np.any(w) and b == 0.0
    # A wrong prediction is not the reason: that rule leaves zero on the first example labelled +1.
    assert ps2.y1[0] == 1 and _run(ps2.X1, ps2.y1, wrong_prediction, max_epochs=1)[2] > 0
    # 'negating every label negates every weight of the run': true of the rule, not of wrong predictions.
    assert "so negating every label negates every weight of the run" in text
    for X, y in [(ps2.X1, ps2.y1), (ps2.X_off, ps2.y_off), (ps2.X_sep, ps2.y_sep)]:
        (w, b, n), (w_neg, b_neg, n_neg) = _run(X, y, at_most_zero), _run(X, -y, at_most_zero)
        assert np.array_equal(w_neg, -w) and b_neg == -b and n_neg == n
    w, b, _ = _run(ps2.X1, ps2.y1, wrong_prediction)
    w_neg, b_neg, _ = _run(ps2.X1, -ps2.y1, wrong_prediction)
    assert not (np.array_equal(w_neg, -w) and b_neg == -b)
    # 'a run that stops after a pass without mistakes leaves every training point strictly on its own
    # side': the stopping rule of the chapter; counting only wrong predictions, the two points labelled
    # -1 of train_through_origin stop the run at w = 0 with both of them on the plane.
    assert "leaves every training point strictly on its own side, never on the plane" in text
    for X, y in [(ps2.X1, ps2.y1), (ps2.X_off, ps2.y_off), (ps2.X_sep, ps2.y_sep)]:
        w, b, _ = _run(X, y, at_most_zero, max_epochs=1000)
        assert np.all(y * (X @ w + b) > 0)
    X0, y0 = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([-1.0, -1.0])
    w, b, n_mistakes = _run(X0, y0, wrong_prediction, fit_intercept=False)
    assert n_mistakes == 0 and np.all(X0 @ w + b == 0)


def test_the_worked_example_makes_two_mistakes_in_a_row():
    ex = pl.offset_update_example()
    assert ex.w @ ex.x + ex.b == -1  # 'The score 1 - 3 + 1 = -1 has the wrong sign.'
    w, b, mistake = pl.perceptron_update(ex.w, ex.b, ex.x, ex.y)
    assert mistake and w.tolist() == [2.0, 2.0] and b == 2.0
    assert w @ ex.next_x + b == 2
    w, b, mistake = pl.perceptron_update(w, b, ex.next_x, ex.next_y)
    assert mistake and w.tolist() == [3.5, 0.5] and b == 1.0


def test_two_negative_points_are_each_on_the_plane_when_first_visited():
    X, y = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([-1.0, -1.0])
    steps = pl.trace_perceptron(X, y, fit_intercept=False)
    first_visits = [s for s in steps if s.epoch == 1]
    assert [s.score for s in first_visits] == [0.0, 0.0] and all(s.mistake for s in first_visits)
    assert sum(s.mistake for s in steps) == 2


def test_the_four_point_example_and_its_orders(notebook):
    X, y = ps2.X4, ps2.y4
    assert {tuple(v) for v in (y[:, None] * X).tolist()} == {(1.0, 0.0), (0.0, 1.0)}
    outcomes = set()
    for order in itertools.permutations(range(4)):
        r = pl.train_perceptron(X[list(order)], y[list(order)], fit_intercept=False)
        outcomes.add((r.n_mistakes, tuple(r.w.tolist())))
    assert outcomes == {(2, (1.0, 1.0))}  # 'all 24 orders ... make the same 2 updates and end at w = (1, 1)'
    given, reverse = pl.train_perceptron(X, y), pl.train_perceptron(X[::-1], y[::-1])
    assert (given.w.tolist(), given.b, given.n_mistakes) == (reverse.w.tolist(), reverse.b, reverse.n_mistakes)
    # Part C: 'An epoch can make mistakes and still end with weights that separate the data.'
    first_epoch = pl.train_perceptron(X, y, max_epochs=1)
    assert first_epoch.n_mistakes > 0 and separates(X, y, first_epoch.w, first_epoch.b)
    text = cell_text(notebook, "written_order")
    assert "all 24 orders of the four-point example make the same 2 updates and end at $w = (1, 1)$" in text


def test_the_two_orders_of_the_model_answer_of_d2(notebook):
    given = pl.train_perceptron(ps2.X1, ps2.y1)
    reverse = pl.train_perceptron(ps2.X1[::-1], ps2.y1[::-1])
    assert (given.w.tolist(), given.b, given.n_mistakes, given.n_epochs) == ([-3.0], 7.0, 25, 11)
    assert (reverse.w.tolist(), reverse.b, reverse.n_mistakes, reverse.n_epochs) == ([-2.0], 5.0, 17, 11)
    assert separates(ps2.X1, ps2.y1, given.w, given.b) and separates(ps2.X1, ps2.y1, reverse.w, reverse.b)
    text = cell_text(notebook, "written_order")
    assert ("$w = -3$, $b = 7$ after 25 mistakes in the given order; $w = -2$, $b = 5$ after 17 in the reverse one; "
            "11 epochs each") in text


def test_the_training_error_of_part_c(notebook):
    errors = ps2._training_errors(ps2.X1, ps2.y1)
    assert errors.tolist() == [0.5] * 6 + [0.25, 0.5, 0.25, 0.0, 0.0]
    text = cell_text(notebook, startswith="## Part C")
    assert "the error goes back up from 0.25 to 0.5 before it reaches 0" in text
    assert "with $w = 0$ and $b = 0$ the training error is $1$" in text
    assert np.mean(ps2.y1 * (ps2.X1 @ np.zeros(1) + 0.0) <= 0) == 1.0
    # 'the training error is 0 exactly when the next epoch would make no mistake'
    for k in range(1, 12):
        before = pl.train_perceptron(ps2.X1, ps2.y1, max_epochs=k)
        after = pl.train_perceptron(ps2.X1, ps2.y1, max_epochs=k + 1)
        assert (errors[min(k, len(errors)) - 1] == 0) == (after.n_mistakes == before.n_mistakes)
    # Part C's text and D1's model answer judge a batch learner on new data, as the chapter does.
    assert "judged differently: by the error of its final $(w, b)$ on *new* data" in text
    answer = cell_text(notebook, "written_online_batch")
    assert "not a batch learner's real cost, the error on new data" in answer
    for wrong in ("as a batch learner is judged, on the whole training set", "judged by its **training error**"):
        assert wrong not in text and wrong not in answer


# -- right answers never lose a point ---------------------------------------------------------------------------

RIGHT_ANSWERS = {
    "the caller's own w returned when there is no mistake (the docstring promises its values, not a copy)": """
        def perceptron_update(w, b, x, y):
            w = np.asarray(w, dtype=float)  # the caller's own array when it holds floats already
            if y * (w @ x + b) <= 0:
                return w + y * np.asarray(x, dtype=float), float(b + y), True
            return w, float(b), False
        """,
    "the test written with np.sign, and a list for the tuple": """
        def perceptron_update(w, b, x, y):
            w = np.array(w, dtype=float)
            x = np.array(x, dtype=float)
            if np.sign(np.dot(w, x) + b) != y:
                return [w + y * x, float(b + y), True]
            return [w, float(b), False]
        """,
    "the update through perceptron_update, a while loop and a numpy bool": """
        def perceptron_update(w, b, x, y):
            w = np.asarray(w, dtype=np.float64)
            mistake = y * (w @ x + b) <= 0
            return (w + y * np.asarray(x, dtype=float), float(b + y), mistake) if mistake else (w.copy(), float(b), mistake)

        def train_perceptron(X, y, *, fit_intercept=True, max_epochs=100):
            w, b, n_mistakes, n_epochs = np.zeros(np.shape(X)[1]), 0.0, 0, 0
            converged = False
            while not converged and n_epochs < max_epochs:
                n_epochs += 1
                converged = True
                for x_i, y_i in zip(X, y):
                    w, b_new, mistake = perceptron_update(w, b, x_i, y_i)
                    if mistake:
                        n_mistakes += 1
                        converged = False
                        if fit_intercept:
                            b = b_new
            return w, b, n_mistakes, n_epochs
        """,
    "the first mistake of each pass found with a matrix product, and the errors by retraining": """
        def train_perceptron(X, y, *, fit_intercept=True, max_epochs=100):
            X = np.asarray(X, dtype=float)
            w, b, n_mistakes = np.zeros(X.shape[1]), 0.0, 0
            for epoch in range(1, max_epochs + 1):
                start, made = 0, 0
                while start < len(y):
                    wrong = np.flatnonzero(y[start:] * (X[start:] @ w + b) <= 0)
                    if wrong.size == 0:
                        break
                    i = start + wrong[0]
                    w = w + y[i] * X[i]
                    b = b + y[i] if fit_intercept else b
                    made += 1
                    start = i + 1
                n_mistakes += made
                if made == 0:
                    break
            return w, float(b), int(n_mistakes), epoch

        def training_errors(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            n_epochs = train_perceptron(X, y, max_epochs=max_epochs)[3]
            errors = []
            for k in range(1, n_epochs + 1):
                w, b, _, _ = train_perceptron(X, y, max_epochs=k)
                errors.append(np.mean(np.sign(X @ w + b) != y))
            return np.array(errors, dtype=float)
        """,
    "the check for a separator before each pass": """
        def train_perceptron(X, y, *, fit_intercept=True, max_epochs=100):
            X = np.asarray(X, dtype=float)
            w, b, n_mistakes = np.zeros(X.shape[1]), 0.0, 0
            for epoch in range(1, max_epochs + 1):
                if np.all(y * (X @ w + b) > 0):
                    break
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w = w + y_i * x_i
                        b = b + y_i if fit_intercept else 0.0
                        n_mistakes += 1
            return w, float(b), n_mistakes, epoch
        """,
}


@pytest.mark.parametrize("name", RIGHT_ANSWERS)
def test_a_right_answer_written_another_way_gets_every_point(name):
    from autograder.commands.verify import namespace_from

    source = nbformat.read(f"{COURSE}/source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", as_version=4)
    namespace = namespace_from(source)
    exec(__import__("textwrap").dedent(RIGHT_ANSWERS[name]), namespace)
    failed = [(v.grade_id, v.message) for v in evaluate_namespace(ps2.CHECKS, namespace) if not v.passed]
    assert failed == []


def test_an_answer_computed_in_float32_is_told_why_it_loses(notebook):
    """'How to work' and the docstrings ask for float64. Inputs converted to float32 make the same updates,
    but the weights miss the checks' relative 1e-7 on the random data, even when they come back as float64
    again; each cell they lose says that the values agree only to float32's precision."""
    from autograder.commands.verify import namespace_from

    assert "Compute in float64" in cell_text(notebook, startswith="# Problem set 2")
    for grade_id in ("perceptron_update", "train_perceptron"):
        assert "a float64 ndarray" in cell_text(notebook, grade_id)
    assert "dtype float64" in cell_text(notebook, "training_errors")
    namespace = namespace_from(nbformat.read(f"{COURSE}/source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", as_version=4))
    exec(__import__("textwrap").dedent("""
        def train_perceptron(X, y, *, fit_intercept=True, max_epochs=100):
            X = np.asarray(X, dtype=np.float32)
            w, b, n_mistakes = np.zeros(X.shape[1]), 0.0, 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w = w + y_i * x_i
                        b = b + float(y_i) if fit_intercept else b
                        made += 1
                n_mistakes += made
                if made == 0:
                    break
            return w, float(b), n_mistakes, epoch
        """), namespace)
    failed = [v for v in evaluate_namespace(ps2.CHECKS, namespace) if not v.passed]
    assert failed and all(FLOAT32_DIAGNOSIS in v.message for v in failed)
    # Only that: the checks' hints about the algorithm would send the student looking for a mistake in a right loop.
    hints = {check.hint for check in ps2.CHECKS if check.hint}
    assert not [v.message for v in failed if any(hint in v.message for hint in hints)]


def test_the_four_point_example_with_an_offset_ends_on_one_line_by_two_routes(notebook):
    """The D2 guide: with an offset, 12 of the 24 orders end at w = (2, 2), b = 0 after 4 mistakes and the other
    12, the given order and its reverse among them, at w = (1, 1), b = 0 after 2: the same line."""
    X, y = ps2.X4, ps2.y4
    counts = {}
    for order in itertools.permutations(range(4)):
        r = pl.train_perceptron(X[list(order)], y[list(order)])
        key = (tuple(r.w.tolist()), float(r.b), int(r.n_mistakes))
        counts[key] = counts.get(key, 0) + 1
    assert counts == {((2.0, 2.0), 0.0, 4): 12, ((1.0, 1.0), 0.0, 2): 12}
    for X_o, y_o in ((X, y), (X[::-1], y[::-1])):
        r = pl.train_perceptron(X_o, y_o)
        assert (r.w.tolist(), float(r.b), int(r.n_mistakes)) == ([1.0, 1.0], 0.0, 2)
    assert "12 of the 24 orders end at $w = (2, 2)$" in cell_text(notebook, "written_order")


@pytest.mark.parametrize("got, expected, message", [
    ((np.array([2.0, 2.0], dtype=np.float32), 2.0, True), (np.array([2.0, 2.0]), 2.0, True),
     "returned, as value 1 of its result, an array of dtype float32; the docstring asks for float64"),
    (np.array([0.5, 0.0], dtype=np.float32), np.array([0.5, 0.0]), "returned an array of dtype float32"),
    ((np.array([3.0, -1.0]), 2, True), (np.array([3.0, -1.0]), 2.0, True),
     "returned, as value 2 of its result, an integer; the docstring asks for a float (convert with float(...))"),
    ((np.array([3.0, -1.0]), np.int64(2), True), (np.array([3.0, -1.0]), 2.0, True), "returned, as value 2 of its result, an integer"),
    ((np.array([3.0, -1.0]), np.float64(2.0), True), (np.array([3.0, -1.0]), 2.0, True), None),
    ((np.array([1.0]), 0.0, 2, 2), (np.array([1.0]), 0.0, 2, 2), None),
    ((np.array([1.0]), 0.0, np.int64(2), 2), (np.array([1.0]), 0.0, 2, 2), None),
])
def test_the_docstrings_types_float64_arrays_and_float_offsets_are_required(got, expected, message):
    """The docstrings ask for float64 arrays and a float b: float32 arrays pass the 1e-7 tolerance on the update
    cases and the training errors, and an int b passes compare_values, so the type is checked on its own; the
    counts stay ints, of Python or numpy."""
    problem = compare_float64(got, expected)
    if message is None:
        assert problem is None
    else:
        assert problem is not None and problem.startswith(message), problem
        assert "dtype=float" in problem or "float(...)" in problem


def test_the_notebook_asks_for_float64_arrays_and_a_float_offset(notebook):
    guide = " ".join(cell_text(notebook, startswith="# Problem set 2").split())
    assert "In numpy, `dtype=float` means float64, but an array made from integers (`np.array([1, -1])`) is an " \
           "integer array." in guide
    assert np.array([1, -1]).dtype.kind == "i" and np.dtype(float) == np.float64
    assert "convert every array you are given first: `X = np.asarray(X, dtype=float)` (`y` may stay as it is; in " \
           "`perceptron_update`, convert `w` and `x`)" in guide
    assert "start from `w = np.zeros(X.shape[1])` (one weight for each column of `X`) and `b = 0.0`" in guide
    assert ("Wrap the offset you return in `float(...)`: `float(b + y)` or `float(b)` in `perceptron_update`, "
            "`float(b)` in `train_perceptron`; only the offset: `n_mistakes` and `n_epochs` stay ints, and `mistake` "
            "stays `True` or `False`.") in guide
    # 'Only the offset': a count or the mistake flag made a float loses its cell, whatever its value.
    assert compare_float64((np.array([1.0]), 0.0, 25.0, 11), (np.array([1.0]), 0.0, 25, 11)) == \
        "returned, as value 3 of its result, a float; expected an int"
    assert compare_float64((np.array([1.0]), 0.0, 1.0), (np.array([1.0]), 0.0, True)) == \
        "returned, as value 3 of its result, a float; expected True or False"
    # 'float(...) is for single numbers': it refuses an array of two.
    with pytest.raises(TypeError):
        float(np.array([1.0, 2.0]))
    assert "``w_new`` a float64 ndarray of shape (n_features,) and ``b_new`` a float, also for integer inputs" \
        in cell_text(notebook, "perceptron_update")
    assert "``w`` a float64 ndarray of shape (n_features,) and ``b`` a float, also for integer data" \
        in cell_text(notebook, "train_perceptron")
    for grade_id in ("update_rules", "train_with_offset"):
        assert "expected a float64 array and a float" in cell_text(notebook, grade_id)
    assert "Start from b = 0.0." in cell_text(notebook, "train_through_origin")
    assert "Build it with np.array(errors, dtype=float)." in cell_text(notebook, "training_errors_values")
    # The visible test of update_rules checks the types with a mistake and without one, as the hidden cases do,
    # and its advice names both branches.
    update_rules = cell_text(notebook, "update_rules")
    visible = {case.describe for case in cases("update_rules").values() if case.visible}
    assert {"integer weights and an integer point", "integer weights and a correctly classified integer point"} <= visible
    assert update_rules.count("\"float(b + y) on a mistake, float(b) when nothing changes.\")") == 2
    assert "returns a float64 array and a float for integer inputs, with a mistake and without one" in update_rules
    # The hidden checks receive a numpy float32 number as one (the probe keeps its dtype) and refuse it as the
    # visible type checks do (isinstance(b, float), which np.float64 passes).
    assert ("A test cell fails, and loses all its points even when the numbers are right, if on any of its inputs "
            "your function returns something other than a float64 numpy array where the docstring asks for an "
            "array (a list, for example, or an integer array because the inputs were integers), or an integer "
            "where the docstring asks for a float.") in guide
    # 'on any of its inputs': the float32 offset (returned on every input) loses both of perceptron_update's test
    # cells; an offset left an int (returned on integer inputs only) loses the one whose inputs are integers, and
    # the worked example's, on floats, passes.
    known_wrong = {w.name: set(w.must_fail) for w in load_known_wrong("ps2_online_perceptron")}
    update_cells = {c.grade_id for c in ps2.CHECKS if c.function == "perceptron_update"}
    assert known_wrong["update_offset_as_float32"] == update_cells
    assert known_wrong["update_offset_left_an_int"] == {"update_rules"} < update_cells
    # An int64 from arithmetic, as the guide says: 0 + y[i] with integer labels; numpy's float64 numbers are floats.
    assert type(0 + np.array([1, -1])[0]) is np.int64 and isinstance(np.float64(1.0), float)
    assert ("A numpy integer is an integer too: if `y` is an array of integers, `0 + y[i]` is a numpy `int64`, not "
            "a float") in guide
    assert "numpy's `float64` numbers count as floats" in guide
    # Data rounded to float32 and converted back loses the offset's training cells all the same (verify proves
    # a known-wrong loses exactly its cells).
    # 'On some of the checks' inputs': it loses those two cells and passes the other training cells.
    training_cells = {c.grade_id for c in ps2.CHECKS if c.function in ("train_perceptron", "training_errors")}
    assert known_wrong["train_rounds_the_data_to_float32"] == {"train_with_offset", "train_stopping_rule"}
    assert known_wrong["train_rounds_the_data_to_float32"] < training_cells
    assert ("on some of the checks' inputs, weights computed from data rounded to float32 come out further from "
            "the right ones than the checks allow, and converting them back to float64 afterwards does not bring "
            "the lost digits back") in guide
    # The guide and the message a cell lost to float32 gives name the same precision.
    assert "float32 also keeps only about 7 significant digits" in guide and "about 7 significant digits" in \
        FLOAT32_DIAGNOSIS
    assert 6 < -np.log10(np.finfo(np.float32).eps) < 7.5
    # Converting does not copy an array that is already float64, so changing it changes the caller's.
    given = np.zeros(2)
    assert np.asarray(given, dtype=float) is given
    assert ("build new ones (`w + y * x`, `w.copy()`), never `w += ...`. This holds after converting too: "
            "`np.asarray` returns the very array it was given when that is already float64.") in guide
    for grade_id in ("update_rules", "train_through_origin", "train_with_offset"):
        text = cell_text(notebook, grade_id)
        assert "isinstance(result[1], float)" in text and "np.floating" not in text, grade_id


def _visible_part(notebook, grade_id):
    cell = next(c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
    return cell.source.split("### BEGIN HIDDEN TESTS")[0]


@pytest.mark.parametrize("name, answer, grade_id, accepted", [
    ("the solution's update", None, "update_rules", True),
    ("b returned as it came when nothing changes", """
        def perceptron_update(w, b, x, y):
            if y * (np.dot(w, x) + b) <= 0:
                return np.asarray(w, float) + y * np.asarray(x, float), float(b + y), True
            return np.asarray(w, float), b, False
        """, "update_rules", False),
    ("w returned as it came when nothing changes", """
        def perceptron_update(w, b, x, y):
            if y * (np.dot(w, x) + b) <= 0:
                return np.asarray(w, float) + y * np.asarray(x, float), float(b + y), True
            return w.copy(), float(b), False
        """, "update_rules", False),
    ("b a float32 number", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x + b) <= 0:
                return w + y * x, np.float32(b + y), True
            return w.copy(), np.float32(b), False
        """, "update_rules", False),
    ("b an np.float64", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x + b) <= 0:
                return w + y * x, np.float64(b + y), True
            return w.copy(), np.float64(b), False
        """, "update_rules", True),
    ("b a float32 number through the origin", """
        def train_perceptron(X, y, *, fit_intercept=True, max_epochs=100):
            X = np.asarray(X, dtype=float)
            w, b, n_mistakes = np.zeros(X.shape[1]), np.float32(0.0), 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w = w + y_i * x_i
                        b = b + np.float32(y_i) if fit_intercept else b
                        made += 1
                n_mistakes += made
                if made == 0:
                    break
            return w, b, n_mistakes, epoch
        """, "train_through_origin", False),
])
def test_the_visible_type_checks_catch_what_the_docstrings_exclude(notebook, name, answer, grade_id, accepted):
    """M1 of the second referee: integer inputs with no mistake, a case the hidden checks mark, are visible too, so
    a student learns of it before submitting; and a float32 number in place of a float fails the visible test, as
    it fails the hidden checks and as 'How to work' says."""
    from autograder.commands.verify import namespace_from

    namespace = namespace_from(notebook)
    if answer:
        exec(__import__("textwrap").dedent(answer), namespace)
    try:
        exec(_visible_part(notebook, grade_id), namespace)
    except AssertionError as error:
        assert not accepted, str(error)
        assert "expected a float64 array and a float" in str(error) or "expected a float" in str(error), str(error)
    else:
        assert accepted, name


def test_each_cell_judges_the_values_then_the_types():
    """Every check is split in two over the same cases: the values with the hint on the algorithm, then the types
    with no hint; together they fail what compare_float64 fails."""
    for grade_id in {check.grade_id for check in ps2.CHECKS}:
        values, types = [check for check in ps2.CHECKS if check.grade_id == grade_id]
        assert (values.compare, types.compare) == (compare_near_float32, float64_problem)
        assert values.cases == types.cases and values.function == types.function
        assert values.hint and not types.hint


@pytest.mark.parametrize("known_wrong, grade_id, message, hint", [
    # NIT 1 of the second referee: a type failure, with every value right, gets no advice about the update rule.
    ("update_no_mistake_keeps_integer_offset", "update_rules",
     "On integer weights and a correctly classified integer point, perceptron_update returned, as value 2 of its "
     "result, an integer; the docstring asks for a float (convert with float(...))", False),
    ("update_no_mistake_keeps_integer_dtype", "update_rules",
     "On integer weights and a correctly classified integer point, perceptron_update returned, as value 1 of its "
     "result, an array of dtype int64; the docstring asks for float64", False),
    ("update_computed_in_float32", "update_rules", "returned, as value 1 of its result, an array of dtype float32",
     False),
    ("train_offset_an_int_through_origin", "train_through_origin", "an integer; the docstring asks for a float",
     False),
    ("errors_returned_as_float32", "training_errors_values", "returned an array of dtype float32", False),
    ("update_offset_as_float32", "update_rules",
     "perceptron_update returned, as value 2 of its result, a numpy float32; the docstring asks for a float", False),
    # A wrong value keeps it.
    ("update_wrong_sign", "update_rules", "returned, as value 1 of its result, the wrong values", True),
    ("train_learns_offset_through_origin", "train_through_origin", "the wrong values", True),
])
def test_a_type_failure_gets_no_hint_about_the_algorithm(known_wrong, grade_id, message, hint):
    from autograder.commands.verify import namespace_from
    from autograder.course.assignments.ps2_online_perceptron.known_wrong import KNOWN_WRONG

    wrong = next(k for k in KNOWN_WRONG if k.name == known_wrong)
    namespace = namespace_from(nbformat.read(f"{COURSE}/source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", as_version=4))
    exec(wrong.code(), namespace)
    verdict = next(v for v in evaluate_namespace(ps2.CHECKS, namespace) if v.grade_id == grade_id)
    assert not verdict.passed and message in verdict.message, verdict.message
    check_hint = next(check.hint for check in ps2.CHECKS if check.grade_id == grade_id and check.hint)
    assert (check_hint in verdict.message) == hint, verdict.message


# -- the starting rubric marks as the guides do ---------------------------------------------------------------

def _mark(grade_id, *starts):
    """The mark of the items of ``grade_id``'s starting rubric whose texts start with ``starts``, as the marking
    page computes it."""
    from autograder.course import assignments
    from autograder.marking.rubrics import rubric_score

    items = assignments.load_rubric(ASSIGNMENT)[grade_id].items
    ticked = []
    for start in starts:
        found = [item for item in items if item.text.startswith(start)]
        assert len(found) == 1, start
        ticked.append(found[0].points)
    return rubric_score(ticked, None, 2.0)


# D1's items, by the start of their texts.
PARTS_HALF, PARTS_FULL = "The parts, half:", "The parts, in full,"
A_ONLINE, B_BATCH, C_MISSING, BATCH_JUDGED = "Part A is the online", "Part B is the batch", "Part C is missing", \
    "A batch learner is judged"
APPLICATION, COUNT = "The application:", "The mistake count there:"
NOT_A_STREAM, NOT_THE_ERROR = "A fixed training set would", "The mistake count is not"
# D2's items.
EXPERIMENT, ANSWER = "The experiment:", "The answer drawn"
NO_NUMBERS, NO_CHANGE_SHOWN, NO_EXPERIMENT = "The experiment's numbers", "An experiment in which the order changes", \
    "The question asks for the answer"
ONLY_ONE, ALWAYS, CONVERGES = "The order can change both", "The order does not always", "On data a plane separates"
IDEA, WHY, NO_WHY = "The explanation: another order", "Why: whether an example", "The explanation does not say"

GUIDE_CASES = [
    # (question, what the answer does, the items a TA ticks, the guide's mark)
    ("written_online_batch", "everything", (PARTS_HALF, PARTS_FULL, APPLICATION, COUNT), 2.0),
    ("written_online_batch", "A in batch, the training-error claim too, a full application (the referee's G1)",
     (A_ONLINE, BATCH_JUDGED, APPLICATION, COUNT), 1.0),
    ("written_online_batch", "the training-error claim as C's reason, A and B right with reasons",
     (PARTS_HALF, BATCH_JUDGED, APPLICATION, COUNT), 1.5),
    ("written_online_batch", "C unexplained and the training-error claim: two flaws",
     (C_MISSING, BATCH_JUDGED, APPLICATION, COUNT), 1.0),
    ("written_online_batch", "B called online, the facts right", (PARTS_HALF, B_BATCH, APPLICATION, COUNT), 1.5),
    ("written_online_batch", "the mistake count as the training error of the final weights",
     (PARTS_HALF, PARTS_FULL, APPLICATION, NOT_THE_ERROR), 1.5),
    ("written_online_batch", "an X-ray archive, the mistake count right",
     (PARTS_HALF, PARTS_FULL, COUNT, NOT_A_STREAM), 1.5),
    ("written_online_batch", "nothing right, every comment ticked",
     (A_ONLINE, B_BATCH, C_MISSING, BATCH_JUDGED, NOT_A_STREAM, NOT_THE_ERROR), 0.0),
    ("written_order", "everything", (EXPERIMENT, ANSWER, IDEA, WHY), 2.0),
    ("written_order", "no experiment and 'always', a full explanation (the referee's G1)",
     (NO_EXPERIMENT, ALWAYS, IDEA, WHY), 1.0),
    ("written_order", "no experiment and 'does not converge', a full explanation (the referee's G1)",
     (NO_EXPERIMENT, CONVERGES, IDEA, WHY), 1.0),
    ("written_order", "'it can, but not always' from the four-point example through the origin only (M1, and the "
                      "second referee's M3)", (ANSWER, NO_CHANGE_SHOWN, IDEA, WHY), 1.5),
    ("written_order", "the general claim that the separator never changes, a right experiment (M2's half case)",
     (EXPERIMENT, ONLY_ONE, IDEA, WHY), 1.5),
    ("written_order", "the four-point example with an offset reported as the same line, and the order said to "
                      "change both (M2)", (EXPERIMENT, ANSWER, IDEA, WHY), 2.0),
    ("written_order", "numbers missing and 'always'", (NO_NUMBERS, ALWAYS, IDEA, WHY), 1.0),
    ("written_order", "a right experiment and 'always', only 'the weights depend on the order'",
     (EXPERIMENT, ALWAYS, IDEA, NO_WHY), 1.0),
]


def _item(grade_id, start):
    from autograder.course import assignments

    found = [item for item in assignments.load_rubric(ASSIGNMENT)[grade_id].items if item.text.startswith(start)]
    assert len(found) == 1, start
    return " ".join(found[0].text.split()), " ".join(found[0].note.split())


def test_the_items_a_ta_ticks_say_what_the_guides_say(notebook):
    """The second referee's M2 and M3: the texts of the items, what a TA reads when ticking, and the guides decide
    the two cases alike, so one answer cannot get two marks."""
    # D1: Part B called online with the facts right is one flaw, so the parts earn half; the 'in full' item says
    # itself that it needs none of the flaws, as the guide's 'Full' does.
    guide = cell_text(notebook, "written_online_batch")
    assert ("Full, with none of the flaws listed below: Part A online and Part B batch, each with a reason"
            in guide)
    assert "Part B called online learning by an answer that does say B passes again and again" in guide
    text, note = _item("written_online_batch", PARTS_FULL)
    assert text.startswith("The parts, in full, with none of the flaws listed under the item above: Part A online "
                           "and Part B batch, each with its reason")
    assert "Part B called online by an answer that describes its fixed training set" in note
    assert "Part B called online by an answer that says it passes again and again" in _item(
        "written_online_batch", PARTS_HALF)[1]
    # D2: 'it can, but not always' with only an experiment in which the order changes nothing keeps the answer's
    # half and loses the experiment's; the model answer speaks of experiments only, not of marks.
    guide = cell_text(notebook, "written_order")
    assert ("it earns this half also when the only experiment reported is one in which the order changes nothing "
            "(the four-point example through the origin): that answer loses the experiment's half, not this one"
            in guide)
    assert "when the only experiment is one in which the order changes nothing" in guide  # the experiment's half
    assert "right as long as" not in guide
    assert ('(Through the origin, or in the given order against its reverse, this example shows only the "not '
            'always": the experiment that shows that the order can change the result is one such as the offset\'s 24 '
            'orders above, or the one-dimensional example.)') in guide
    text, note = _item("written_order", ANSWER)
    assert text.startswith("The answer drawn from an experiment reported, even one in which the order changes "
                           "nothing:")
    assert "that answer loses the experiment item, not this one" in note
    text, note = _item("written_order", EXPERIMENT)
    assert "when the only experiment is one where the order changes nothing" in note
    assert "Its answer keeps the answer item when it is right." in _item("written_order", NO_CHANGE_SHOWN)[1]


@pytest.mark.parametrize("grade_id, case, ticked, mark", GUIDE_CASES, ids=[c[1] for c in GUIDE_CASES])
def test_the_starting_rubric_gives_the_guides_marks(grade_id, case, ticked, mark):
    assert _mark(grade_id, *ticked) == mark


@pytest.mark.parametrize("grade_id, points", [
    ("written_online_batch", ((PARTS_HALF, PARTS_FULL), (APPLICATION, COUNT))),
    ("written_order", ((EXPERIMENT, ANSWER), (IDEA, WHY))),
])
def test_no_items_a_ta_can_tick_take_a_point_below_zero_or_above_one(grade_id, points):
    """Every item is worth 0 or more, and the items worth more than 0 are the two halves of the guide's two
    points: any set of ticked items gives each point 0, 0.5 or 1, the guide's levels, never less."""
    from autograder.course import assignments

    items = assignments.load_rubric(ASSIGNMENT)[grade_id].items
    assert all(item.points >= 0 for item in items)
    positive = sorted(item.text for item in items if item.points > 0)
    halves = [start for point in points for start in point]
    assert len(positive) == len(halves) == 4
    for start in halves:
        assert sum(item.points for item in items if item.text.startswith(start)) == 0.5, start
    assert _mark(grade_id, *(item.text for item in items)) == 2.0
