"""What problem set 5 says about its data, proved; and its hidden checks accept every right answer.

The hidden cases of ``autograder/course/assignments/ps5_voted_averaged/checks.py`` describe their
inputs to the students ("separated by a line with an offset", "separable data that converges
before max_epochs", "whose 11th epoch is the first without a mistake", "two opposite votes that
tie"), and the notebook's texts, hints and model answers state facts about the worked examples and
the comparison on noisy data (the counts of the four-point example, the accuracies of seeds 0, 1
and 2, that the noisy training sets are not separable). Each claim is checked here by computation.
A claim that data are separable is proved by a separator; a claim that they are not, by a linear
program (scipy's ``linprog``), never by a run that fails to converge.

The last tests run right implementations that the notebook's texts allow, written in other ways than
the solution (the average by a running sum, or from the voted counts; the vote by a loop), through
the hidden checks: none may lose a point.
"""

import textwrap
import warnings

import nbformat
import numpy as np
import pytest

import perceptron_lib as pl
from autograder.course.assignments.ps5_voted_averaged import checks as ps5
from autograder.judging.checks import evaluate_namespace

from tests.support import COURSE

ASSIGNMENT = "ps5_voted_averaged"


def lp_separable(X, y, *, offset=True):
    """Whether some (w, b) (b = 0 without offset) has y_i (w . x_i + b) >= 1 for every i: a linear program."""
    linprog = pytest.importorskip("scipy.optimize").linprog
    A = np.hstack([X, np.ones((len(X), 1))]) if offset else np.asarray(X, dtype=float)
    result = linprog(np.zeros(A.shape[1]), A_ub=-(y[:, None] * A), b_ub=-np.ones(len(y)),
                     bounds=[(None, None)] * A.shape[1], method="highs")
    assert result.status in (0, 2), result.message  # 0: a solution, 2: infeasible
    return result.status == 0


def fit(model_class, X, y, max_epochs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pl.ConvergenceWarning)
        return model_class(max_epochs=max_epochs).fit(X, y)


def cases(grade_id):
    return {case.describe: case for check in ps5.CHECKS if check.grade_id == grade_id for case in check.cases}


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

def test_the_four_points_that_the_first_update_separates():
    X, y = ps5.X_first_right, ps5.y_first_right
    assert X.shape == (4, 2) and "four points in the plane that the first update separates" in cases("voted_four_point")
    w, b = y[0] * X[0], y[0]  # the first visit is a mistake (w = 0 scores 0), and its update separates the data
    assert pl.is_separated(X, y, w, b)
    model = fit(pl.Perceptron, X, y, 10)
    assert model.n_mistakes_ == 1 and model.converged_ and model.n_epochs_ == 2


def test_the_separable_data_in_3d():
    X, y, w_star = pl.make_separable(20, 3, margin=0.1, random_state=31)
    assert np.array_equal(X, ps5.X_sep) and np.array_equal(y, ps5.y_sep)
    assert pl.margin(X, y, w_star) >= 0.1
    # 'separable data that converges before max_epochs' (max_epochs=20)
    model = fit(pl.Perceptron, X, y, 20)
    assert model.converged_ and model.n_epochs_ < 20
    # 'twenty separable points in 3-D away from the origin' (max_epochs=50): the same points moved by a vector.
    shift = np.array([1.0, 0.5, -1.0])
    assert np.array_equal(ps5.X_off, X + shift) and np.linalg.norm(ps5.X_off.mean(axis=0)) > 1
    assert pl.is_separated(ps5.X_off, y, w_star, -float(w_star @ shift))
    assert fit(pl.Perceptron, ps5.X_off, y, 50).converged_
    # 'twenty points in 3-D with flipped labels and max_epochs=3', and 'max_epochs=4': flipped, never separable.
    assert np.sum(ps5.y_noisy != y) == 4
    assert not lp_separable(X, ps5.y_noisy)


def test_the_one_dimensional_example_converges_in_exactly_the_eleventh_epoch():
    """'with max_epochs=11, whose 11th epoch is the first without a mistake'; the default 10 stops it unconverged,
    as do max_epochs=2 ('data it does not separate within the given number of epochs') and 3."""
    X, y = ps5.X1, ps5.y1
    eleven, ten = fit(pl.Perceptron, X, y, ps5.CONVERGES_IN), fit(pl.Perceptron, X, y, 10)
    assert ps5.CONVERGES_IN == 11 and eleven.converged_ and eleven.n_epochs_ == 11
    assert not ten.converged_ and ten.n_epochs_ == 10
    for epochs in (2, 3):
        assert not fit(pl.Perceptron, X, y, epochs).converged_
    # The default of both training functions is 10: a case without max_epochs tells 10 from 9 and 11.
    for function in ("train_voted", "train_averaged"):
        assert [c for c in cases("voted_counts" if function == "train_voted" else "averaged_general")
                if "with the default max_epochs" in c]
    voted = [ps5._voted(X, y, max_epochs=e)[2].sum() for e in (9, 10, 11)]
    assert voted == [36, 40, 44]


def test_a_single_example_takes_two_visits():
    weights, intercepts, counts = ps5._voted(ps5.X_single, ps5.y_single)
    assert ps5.X_single.shape == (1, 3)
    assert weights.tolist() == [[0.0, 0.0, 0.0], [-2.0, 1.0, -0.5]] and intercepts.tolist() == [0.0, -1.0]
    assert counts.tolist() == [0, 2]
    w_avg, b_avg = ps5._averaged(ps5.X_single, ps5.y_single)
    assert w_avg.tolist() == [-2.0, 1.0, -0.5] and b_avg == -1.0


@pytest.mark.parametrize("grade_id", ["voted_four_point", "voted_counts"])
def test_the_counts_add_up_to_the_visits_and_the_zero_vector_gets_none(grade_id):
    """Part A: 'the counts add up to the number of visits', 'the zero vector's count is always 0'."""
    for describe, case in cases(grade_id).items():
        X, y = case.args
        max_epochs = case.kwargs.get("max_epochs", 10)
        weights, intercepts, counts = ps5._voted(X, y, max_epochs=max_epochs)
        epochs = fit(pl.Perceptron, X, y, max_epochs).n_epochs_
        assert counts.sum() == len(y) * epochs, describe
        assert counts[0] == 0 and not np.any(weights[0]) and intercepts[0] == 0, describe
        assert np.all(counts[1:] >= 1), describe  # 'a new vector starts at 1'


def test_the_visible_cases_of_part_a_and_c():
    weights, intercepts, counts = ps5._voted(ps5.X4, ps5.y4)
    assert (weights.tolist(), intercepts.tolist(), counts.tolist()) == (
        [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]], [0.0, 1.0, 0.0], [0, 1, 7])
    # 'After the 8 visits the weights were (1, 0) once and (1, 1) seven times.'
    w_avg, b_avg = ps5._averaged(ps5.X4, ps5.y4)
    assert w_avg.tolist() == [1.0, 0.875] and b_avg == 0.125
    weights, intercepts, counts = ps5._voted(ps5.X1, ps5.y1, max_epochs=2)
    assert (weights.ravel().tolist(), intercepts.tolist(), counts.tolist()) == (
        [0.0, 1.0, -2.0, -1.0, 1.0, -2.0], [0.0, 1.0, 0.0, 1.0, 2.0, 1.0], [0, 2, 2, 1, 1, 2])
    w_avg, b_avg = ps5._averaged(ps5.X1, ps5.y1, max_epochs=10)
    assert w_avg.tolist() == pytest.approx([-2.55]) and b_avg == pytest.approx(3.75)


def votes(X, weights, intercepts, counts):
    return pl.sign(np.asarray(X, dtype=float) @ np.asarray(weights, dtype=float).T + intercepts) @ counts


def test_the_predict_voted_cases_are_what_their_descriptions_say():
    described = {**cases("predict_voted_values"), **cases("predict_voted_ties")}
    # 'a long-lived vector outvoting two short-lived ones'
    X, W, B, C = described["a long-lived vector outvoting two short-lived ones"].args
    scores = X @ W.T + B
    assert C.tolist() == [5, 2, 2] and np.all(scores[:, 0] > 0) and np.all(scores[:, 1:] <= 0)
    assert np.all(votes(X, W, B, C) > 0)
    # 'vectors with offsets whose scores are exactly 0 at some points'
    X, W, B, C = described["vectors with offsets whose scores are exactly 0 at some points"].args
    assert np.sum(X @ W.T + B == 0) >= 2 and np.all(B[:2] != 0)
    # 'a zero vector with count 0 and two opposite votes that tie', at both points
    X, W, B, C = described["a zero vector with count 0 and two opposite votes that tie"].args
    assert not np.any(W[0]) and C[0] == 0 and np.all(votes(X, W, B, C) == 0)
    # The visible ties: 'The first vector scores 0, which is a vote for -1', 'The vote is tied at 0'.
    X, W, B, C = described["the vectors (0, 1) and (1, 0) with counts 3 and 2 and the point (1, 0)"].args
    assert (X @ W.T + B)[0, 0] == 0 and votes(X, W, B, C).tolist() == [-1]
    X, W, B, C = described["the vectors (1, 0) and (-1, 0) with counts 2 and 2 and the point (1, 0)"].args
    assert votes(X, W, B, C).tolist() == [0]
    # 'The vector (1, 1) with count 7 outvotes (1, 0) with count 1', at the point (0.5, -1).
    X, W, B, C = described["the four-point example's vectors and the points (2, 1), (-1, -3), (0.5, -1)"].args
    assert (pl.sign(X[2] @ W.T + B) * C).tolist() == [0, 1, -7]


def test_the_vote_and_the_average_disagree_on_the_examples_of_e1(notebook):
    """The model answer's example and the two of the chapter that its marking accepts."""
    examples = [
        ([[1.0]], [[1.0], [-3.0]], [0.0, 0.0], [2, 1]),
        ([[1.0, -1.1]], [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]], [0.0, 0.0, 0.0], [0, 1, 7]),
        ([[1.0, -2.0]], [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], [0.0, 0.0, 0.0], [0, 3, 2]),
    ]
    for X, W, B, C in examples:
        X, W, B, C = np.array(X), np.array(W), np.array(B), np.array(C)
        voted = pl.sign(votes(X, W, B, C))
        averaged = pl.sign(X @ (C @ W) / C.sum() + C @ B / C.sum())
        assert voted.tolist() != averaged.tolist()
    # The chapter's (1, -1.1) uses the vectors of the four-point example trained through the origin.
    through_origin = pl.VotedPerceptron(fit_intercept=False).fit(ps5.X4, ps5.y4)
    assert through_origin.weights_.tolist() == examples[1][1] and through_origin.counts_.tolist() == [0, 1, 7]
    assert votes([[1.0]], [[1.0], [-3.0]], np.zeros(2), np.array([2, 1])).tolist() == [1]
    text = cell_text(notebook, "written_voted_vs_averaged")
    assert "$2 \\cdot 1 + 1 \\cdot (-1) = 1 > 0$" in text and "= -1/3 < 0$" in text


# -- the comparison on noisy data and the model answer of E2 ------------------------------------------------

SEEDS = (0, 1, 2)  # the seeds of the cell 'Run the comparison for a few seeds'


def test_the_noisy_training_sets_are_not_separable_and_never_converge():
    for seed in SEEDS:
        X, y, _ = pl.make_separable(400, 5, margin=0.05, random_state=seed)
        y_train = pl.flip_labels(y[:200], 0.2, random_state=seed)
        assert np.sum(y_train != y[:200]) == 40  # 'a fifth of the training labels flipped'
        assert not lp_separable(X[:200], y_train)
        assert not fit(pl.VotedPerceptron, X[:200], y_train, 10).converged_  # 'training runs all 10 epochs'
    for n_train, flip, seed in [(50, 0.1, 1), (80, 0.25, 5)]:  # the other cases of noisy_comparison_values
        X, y, _ = pl.make_separable(2 * n_train, 5, margin=0.05, random_state=seed)
        assert not lp_separable(X[:n_train], pl.flip_labels(y[:n_train], flip, random_state=seed))


def test_the_accuracies_of_the_model_answer_of_e2(notebook):
    results = np.array([ps5._compare(random_state=seed) for seed in SEEDS])
    last, voted, averaged = results.T
    assert np.round(last, 3).tolist() == [0.53, 0.62, 0.755]
    assert np.round(voted, 3).tolist() == [0.965, 0.97, 0.855]
    assert np.round(averaged, 3).tolist() == [0.955, 0.965, 0.87]
    assert np.all(last < np.minimum(voted, averaged))  # 'far below the vote and the average'
    assert np.ptp(last) > 1.5 * max(np.ptp(voted), np.ptp(averaged))  # 'it changes much more from seed to seed'
    assert np.all(np.abs(voted - averaged) <= 0.02)  # 'the two are close to each other'
    text = cell_text(notebook, "written_noisy")
    assert ("On seeds 0, 1 and 2 its test accuracy is 0.53, 0.62 and 0.755, far below the vote (0.965, 0.97, "
            "0.855) and the average (0.955, 0.965, 0.87)") in text


def test_the_comparison_without_flipped_labels_is_a_hidden_case_of_separable_data():
    """'no flipped labels': the training set is separable, and the three accuracies can coincide."""
    X, y, w_star = pl.make_separable(120, 5, margin=0.05, random_state=2)
    assert pl.is_separated(X[:60], y[:60], w_star)


# -- right answers never lose a point ---------------------------------------------------------------------------

RIGHT_ANSWERS = {
    "the average by a running sum after every visit": """
        def train_averaged(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b = np.zeros(X.shape[1]), 0.0
            sum_w, sum_b, T = np.zeros(X.shape[1]), 0.0, 0
            for epoch in range(max_epochs):
                mistakes = 0
                for i in range(len(y)):
                    if y[i] * (np.dot(w, X[i]) + b) <= 0:
                        w = w + y[i] * X[i]
                        b = b + y[i]
                        mistakes += 1
                    sum_w += w
                    sum_b += b
                    T += 1
                if mistakes == 0:
                    break
            return sum_w / T, sum_b / T
        """,
    "the average from the voted vectors and their counts, the vote by a loop": """
        def train_averaged(X, y, *, max_epochs=10):
            weights, intercepts, counts = train_voted(X, y, max_epochs=max_epochs)
            return counts @ weights / counts.sum(), float(counts @ intercepts / counts.sum())

        def predict_voted(X, weights, intercepts, counts):
            total = np.zeros(len(X))
            for w_k, b_k, c_k in zip(weights, intercepts, counts):
                s = np.sign(np.asarray(X, dtype=float) @ w_k + b_k)
                s[s == 0] = -1
                total += c_k * s
            out = np.ones(len(X), dtype=int)
            out[total <= 0] = -1
            return out
        """,
    "the voted counts kept as a list of records, the test written as a sign, counts as floats": """
        def train_voted(X, y, *, max_epochs=10):
            records = [[np.zeros(np.shape(X)[1]), 0.0, 0]]
            for epoch in range(max_epochs):
                changed = False
                for x_i, y_i in zip(np.asarray(X, dtype=float), y):
                    w, b, _ = records[-1]
                    if np.sign(w @ x_i + b) != y_i:
                        records.append([w + y_i * x_i, b + y_i, 1])
                        changed = True
                    else:
                        records[-1][2] += 1
                if not changed:
                    break
            return (np.array([r[0] for r in records]), np.array([float(r[1]) for r in records]),
                    np.array([r[2] for r in records], dtype=float))
        """,
    "the comparison with the last vector as a vote of one, and accuracies from counts": """
        def compare_on_noisy_data(n_train=200, flip_fraction=0.2, *, random_state=0):
            X, y, _ = make_separable(2 * n_train, 5, margin=0.05, random_state=random_state)
            y_train = flip_labels(y[:n_train], flip_fraction, random_state=random_state)
            X_test, y_test = X[n_train:], y[n_train:]
            W, B, C = train_voted(X[:n_train], y_train, max_epochs=10)
            w_avg, b_avg = train_averaged(X[:n_train], y_train, max_epochs=10)
            last = predict_voted(X_test, W[-1:], B[-1:], np.ones(1))
            voted = predict_voted(X_test, W, B, C)
            averaged = predict_voted(X_test, w_avg[None, :], np.array([b_avg]), np.ones(1))
            return tuple(np.sum(p == y_test) / len(y_test) for p in (last, voted, averaged))
        """,
}


@pytest.mark.parametrize("name", RIGHT_ANSWERS)
def test_a_right_answer_written_another_way_gets_every_point(name):
    from autograder.commands.verify import namespace_from

    source = nbformat.read(f"{COURSE}/source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", as_version=4)
    namespace = namespace_from(source)
    exec(textwrap.dedent(RIGHT_ANSWERS[name]), namespace)
    failed = [(v.grade_id, v.message) for v in evaluate_namespace(ps5.CHECKS, namespace) if not v.passed]
    assert failed == []
