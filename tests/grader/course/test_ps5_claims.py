"""What problem set 5 says about its data, proved; and its hidden checks accept every right answer.

The hidden cases of ``autograder/course/assignments/ps5_voted_averaged/checks.py`` describe their
inputs to the students ("separated by a line with an offset", "separable data that converges
before max_epochs", "whose 11th epoch is the first without a mistake", "two opposite votes that
tie", "whose second epoch makes four mistakes and ends with the (w, b) it started with"), and the
notebook's texts, hints and model answers state facts about the worked examples and the comparison
on noisy data (the counts of the four-point example, one entry per mistake, the examples on which
the vote and the average disagree, the accuracies of seeds 0, 1 and 2, that the noisy training sets
are not separable, that Daumé's counter scales the average by T/(T+1)). Each claim is checked here
by computation. A claim that data are separable is proved by a separator; a claim that they are
not, by a linear program (scipy's ``linprog``), never by a run that fails to converge.

Part D is judged with the student's own functions: tests below check that the protocol's data the
host hands the notebook are the notebook's, that a right Part D keeps its points beside a wrong Part
A, B or C, and that a Part D that does not follow the protocol loses them beside right ones.

Every hidden case is bounded by the work it makes right functions do (vector-point pairs scored,
example visits), so that functions written with loops finish well within the time a hidden test
gives one call; the default size of the protocol is read from the signature instead of run.

The last tests run right implementations that the notebook's texts allow, written in other ways than
the solution (the average by a running sum, or from the voted counts; the vote by a loop over the
vectors, or by loops over the points and the vectors; the stopping rule by counting the mistakes),
through the hidden checks: none may lose a point.
"""

import textwrap
import warnings

import nbformat
import numpy as np
import pytest

import perceptron_lib as pl
from autograder.course.assignments.ps5_voted_averaged import checks as ps5
from autograder.course.assignments import load_known_wrong
from autograder.course.assignments.ps5_voted_averaged import known_wrong
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
    """Part A: 'the counts add up to the number of visits', 'the zero vector's count is always 0', 'the list has
    one entry per mistake, plus the zero vector'."""
    for describe, case in cases(grade_id).items():
        X, y = case.args
        max_epochs = case.kwargs.get("max_epochs", 10)
        weights, intercepts, counts = ps5._voted(X, y, max_epochs=max_epochs)
        perceptron = fit(pl.Perceptron, X, y, max_epochs)
        assert counts.sum() == len(y) * perceptron.n_epochs_, describe
        assert counts[0] == 0 and not np.any(weights[0]) and intercepts[0] == 0, describe
        assert np.all(counts[1:] >= 1), describe  # 'a new vector starts at 1'
        assert len(counts) == perceptron.n_mistakes_ + 1, describe


def epochs_of(X, y, max_epochs):
    """``[(mistakes, (w, b) at the start, (w, b) at the end)]`` of each epoch run, from the library's trace."""
    steps = pl.trace_perceptron(X, y, max_epochs=max_epochs)
    found, start = [], (np.zeros(X.shape[1]), 0.0)
    for epoch in range(1, steps[-1].epoch + 1):
        visits = [s for s in steps if s.epoch == epoch]
        end = (visits[-1].w, visits[-1].b)
        found.append((sum(s.mistake for s in visits), start, end))
        start = end
    return found


def test_the_xor_case_has_an_epoch_whose_mistakes_cancel():
    """'the XOR points (0, 0), (1, 1), (0, 1), (1, 0) labelled -1, -1, +1, +1 with max_epochs=4, whose second epoch
    makes four mistakes and ends with the (w, b) it started with'."""
    X, y = ps5.X_xor, ps5.y_xor
    assert X.tolist() == [[0, 0], [1, 1], [0, 1], [1, 0]] and y.tolist() == [-1, -1, 1, 1]
    assert ps5.XOR_EPOCHS == 4 and "with max_epochs=4" in ps5.XOR_DESCRIBE
    for grade_id in ("voted_counts", "averaged_general"):
        case = cases(grade_id)[ps5.XOR_DESCRIBE]
        assert case.args[0] is X and case.args[1] is y and case.kwargs == {"max_epochs": 4}
    assert not lp_separable(X, y)  # XOR: no epoch is ever without a mistake, so training runs all 4
    epochs = epochs_of(X, y, 4)
    assert len(epochs) == 4 and [mistakes for mistakes, _, _ in epochs] == [3, 4, 4, 4]
    for mistakes, (w_start, b_start), (w_end, b_end) in epochs[1:]:
        assert np.array_equal(w_start, w_end) and b_start == b_end and w_end.tolist() == [1, 1] and b_end == 1


def voted_stopping_when_unchanged(X, y, max_epochs):
    """Voted training that stops after an epoch that leaves (w, b) as it found it, as a naive loop."""
    w, b, count, kept = np.zeros(X.shape[1]), 0.0, 0, []
    for _ in range(max_epochs):
        before = (w, b)
        for x_i, y_i in zip(X, y):
            if y_i * (w @ x_i + b) <= 0:
                kept.append((w, b, count))
                w, b, count = w + y_i * x_i, b + y_i, 1
            else:
                count += 1
        if np.array_equal(before[0], w) and before[1] == b:
            break
    kept.append((w, b, count))
    return np.array([k[0] for k in kept]), np.array([k[1] for k in kept]), np.array([k[2] for k in kept])


def test_the_xor_case_is_the_one_that_tells_the_wrong_stopping_rule_and_the_merged_vectors_from_the_right():
    X, y = ps5.X_xor, ps5.y_xor
    weights, intercepts, counts = ps5._voted(X, y, max_epochs=4)
    assert len(counts) == 16 and counts.sum() == 16
    # Stopping when an epoch leaves (w, b) unchanged stops after 2 epochs, 8 visits; the average changes with it.
    early = voted_stopping_when_unchanged(X, y, 4)
    assert early[2].sum() == 8 and len(early[2]) == 8
    w_avg, b_avg = ps5._averaged(X, y, max_epochs=4)
    assert w_avg.tolist() == [0.4375, 0.6875] and b_avg == -0.0625
    w_early, b_early = early[2] @ early[0] / 8, early[2] @ early[1] / 8
    assert w_early.tolist() == [0.375, 0.625] and b_early == -0.125
    # The run comes back to vectors it held before: merged, the 16 entries are 5.
    assert len({(tuple(w), b) for w, b in zip(weights, intercepts)}) == 5
    # No other case of voted_counts or averaged_general tells the two stopping rules apart.
    for grade_id in ("voted_counts", "averaged_general"):
        for describe, case in cases(grade_id).items():
            X_case, y_case = case.args
            max_epochs = case.kwargs.get("max_epochs", 10)
            same = voted_stopping_when_unchanged(np.asarray(X_case, dtype=float), y_case, max_epochs)[2].sum() \
                == ps5._voted(X_case, y_case, max_epochs=max_epochs)[2].sum()
            assert same == (describe != ps5.XOR_DESCRIBE), describe


def test_daume_s_counter_gives_t_over_t_plus_one_times_the_average_and_the_same_labels():
    """Part C: Daumé's counter 'is T/(T+1) times the average asked for here (the offset likewise). It predicts the
    same labels'."""
    for X, y, max_epochs in [(ps5.X4, ps5.y4, 10), (ps5.X1, ps5.y1, 10), (ps5.X_sep, ps5.y_noisy, 4),
                             (ps5.X_xor, ps5.y_xor, 4)]:
        steps = pl.trace_perceptron(X, y, max_epochs=max_epochs)
        T = len(steps)
        u = sum(t * s.y * s.x for t, s in enumerate(steps, start=1) if s.mistake)
        beta = sum(t * s.y for t, s in enumerate(steps, start=1) if s.mistake)
        w_daume, b_daume = steps[-1].w - u / (T + 1), steps[-1].b - beta / (T + 1)
        w_avg, b_avg = ps5._averaged(X, y, max_epochs=max_epochs)
        assert np.allclose(w_daume, T / (T + 1) * w_avg) and np.isclose(b_daume, T / (T + 1) * b_avg)
        # Ours is the mean of the T vectors after each visit; Daumé's, of those and the zero vector.
        assert np.allclose(w_avg, np.mean([s.w for s in steps], axis=0))
        points = np.vstack([X, np.random.default_rng(0).normal(size=(50, X.shape[1]))])
        assert np.array_equal(pl.sign(points @ w_daume + b_daume), pl.sign(points @ w_avg + b_avg))


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
    # 'a tied vote although the last vector votes +1 and the averaged score is positive': the right answer is -1,
    # which neither breaking the tie with the last vector nor with the averaged score gives.
    X, W, B, C = described[ps5.TIE_LAST_PLUS].args
    assert ps5.TIE_LAST_PLUS.startswith("the vectors (-1, 0) and (3, 0) with counts 2 and 2 and the point (1, 0)")
    assert W.tolist() == [[-1.0, 0.0], [3.0, 0.0]] and C.tolist() == [2, 2] and X.tolist() == [[1.0, 0.0]]
    assert votes(X, W, B, C).tolist() == [0] and ps5._predict_voted(X, W, B, C).tolist() == [-1]
    assert pl.sign(X @ W[-1] + B[-1]).tolist() == [1]  # the last vector votes +1
    assert (X @ (C @ W) / C.sum() + C @ B / C.sum()).tolist() == [1.0]  # the averaged score, (-2 + 6) / 4
    # Every other tie of the checks is one that the last vector and the averaged score call -1 too: this case is the
    # one that tells those rules from sign(0) = -1.
    for describe in ("the vectors (1, 0) and (-1, 0) with counts 2 and 2 and the point (1, 0)",
                     "a zero vector with count 0 and two opposite votes that tie"):
        X, W, B, C = described[describe].args
        tied = votes(X, W, B, C) == 0
        assert np.all(pl.sign(X[tied] @ W[-1] + B[-1]) == -1) and np.all(X[tied] @ (C @ W) + C @ B <= 0)
    # 'The vector (1, 1) with count 7 outvotes (1, 0) with count 1', at the point (0.5, -1).
    X, W, B, C = described["the four-point example's vectors and the points (2, 1), (-1, -3), (0.5, -1)"].args
    assert (pl.sign(X[2] @ W.T + B) * C).tolist() == [0, 1, -7]


def voted_and_averaged(X, W, B, C):
    X, W, B, C = (np.array(v, dtype=float) for v in (X, W, B, C))
    return pl.sign(votes(X, W, B, C)).tolist(), pl.sign(X @ (C @ W) / C.sum() + C @ B / C.sum()).tolist()


# The examples E1's marking guide names, each as (points, vectors, offsets, counts).
E1_EXAMPLES = {
    "the model answer's, the second visible test of predict_voted_values": ([[1.0]], [[1.0], [-3.0]], [0.0, 0.0], [2, 1]),
    "the first visible test of predict_voted_ties": ([[1.0, 0.0]], [[0.0, 1.0], [1.0, 0.0]], [0.0, 0.0], [3, 2]),
    "the chapter's (1, -1.1), through the origin": ([[1.0, -1.1]], [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]],
                                                    [0.0, 0.0, 0.0], [0, 1, 7]),
    "the chapter's (1, -1.1), with this notebook's offsets": ([[1.0, -1.1]], [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]],
                                                              [0.0, 1.0, 0.0], [0, 1, 7]),
    "the chapter's exercise": ([[1.0, -2.0]], [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]], [0.0, 0.0, 0.0], [0, 3, 2]),
}


def test_the_vote_and_the_average_disagree_on_the_examples_of_e1(notebook):
    """The model answer's example and the others its marking guide names, with the numbers it gives."""
    for name, example in E1_EXAMPLES.items():
        voted, averaged = voted_and_averaged(*example)
        assert voted != averaged, name
    # The numbers of the guide: votes and averaged scores.
    assert votes([[1.0]], [[1.0], [-3.0]], np.zeros(2), np.array([2, 1])).tolist() == [1]
    assert votes([[1.0, 0.0]], [[0.0, 1.0], [1.0, 0.0]], np.zeros(2), np.array([3, 2])).tolist() == [-1]
    assert (np.array([3, 2]) @ np.array([[0.0, 1.0], [1.0, 0.0]]) / 5).tolist() == [0.4, 0.6]
    X, W, _, C = (np.array(v, dtype=float) for v in E1_EXAMPLES["the chapter's (1, -1.1), through the origin"])
    for B, score in [(np.zeros(3), 0.0375), (np.array([0.0, 1.0, 0.0]), 0.1625)]:
        assert votes(X, W, B, C).tolist() == [-6]
        assert (C @ W / 8).tolist() == [1.0, 0.875] and np.isclose(X[0] @ (C @ W) / 8 + C @ B / 8, score)
    assert votes([[1.0, -2.0]], [[1.0, 0.0], [0.0, 1.0]], np.zeros(2), np.array([3, 2])).tolist() == [1]
    assert np.isclose(np.array([1.0, -2.0]) @ np.array([3.0, 2.0]) / 5, -1 / 5)
    # The chapter's (1, -1.1) uses the vectors of the four-point example trained through the origin; with an
    # offset, the notebook's visible test gives the same vectors with the offsets 0, 1, 0.
    through_origin = pl.VotedPerceptron(fit_intercept=False).fit(ps5.X4, ps5.y4)
    assert through_origin.weights_.tolist() == W.tolist() and through_origin.counts_.tolist() == [0, 1, 7]
    assert ps5._voted(ps5.X4, ps5.y4)[1].tolist() == [0.0, 1.0, 0.0]
    # 'The other visible tests of Part B are no examples: on each of their points the two rules agree.'
    others = [([[2.0, 1.0], [-1.0, -3.0], [0.5, -1.0]], ps5.FOUR_W, ps5.FOUR_B, ps5.FOUR_C),
              ([[1.0, 0.0]], [[1.0, 0.0], [-1.0, 0.0]], [0.0, 0.0], [2, 2])]
    visible = [case.args for grade_id in ("predict_voted_values", "predict_voted_ties")
               for case in cases(grade_id).values() if case.visible]
    assert len(visible) == 4
    for X, W, B, C in visible:
        named = any(np.array_equal(X, e[0]) and np.array_equal(W, e[1]) and np.array_equal(C, e[3])
                    for e in E1_EXAMPLES.values())
        listed = any(np.array_equal(X, o[0]) and np.array_equal(W, o[1]) and np.array_equal(C, o[3]) for o in others)
        assert named != listed
    for example in others:
        voted, averaged = voted_and_averaged(*example)
        assert voted == averaged
    text = cell_text(notebook, "written_voted_vs_averaged")
    assert "$2 \\cdot 1 + 1 \\cdot (-1) = 1 > 0$" in text and "= -1/3 < 0$" in text
    for words in ["the vote is $2 - 1 = 1$", "$(2 - 3)/3 = -1/3$", "the vote is $-3 + 2 = -1$",
                  "$(2/5, 3/5)$, whose score $2/5$", "the vote is $1 - 7 = -6$", "$(1, 7/8)$, whose score $0.0375$",
                  "the averaged score $0.1625$", "the vote is $3 - 2 = 1$", "$(3 - 4)/5 = -1/5$"]:
        assert words in text, words


# -- the comparison on noisy data and the model answer of E2 ------------------------------------------------

SEEDS = (0, 1, 2)  # the seeds of the cell 'Run the comparison for a few seeds'


def test_the_model_answer_of_e2_says_what_a_set_that_is_not_separable_does_to_every_weight_vector(notebook):
    """'no (w, b) puts every training point strictly on the side of its label, so whatever the weights, some
    training point is on the wrong side or on the boundary (as every point is for w = 0, b = 0)'."""
    X, y, _ = pl.make_separable(400, 5, margin=0.05, random_state=0)
    X_train, y_train = X[:200], pl.flip_labels(y[:200], 0.2, random_state=0)
    assert not lp_separable(X_train, y_train)
    assert np.all(X_train @ np.zeros(5) + 0.0 == 0)  # (0, 0): every point on the boundary, none on the wrong side
    # Every vector of the training run, and the last, leaves some point on the wrong side or on the boundary.
    model = fit(pl.VotedPerceptron, X_train, y_train, 10)
    margins = y_train[:, None] * (X_train @ model.weights_.T + model.intercepts_)
    assert np.all(margins.min(axis=0) <= 0)
    text = cell_text(notebook, "written_noisy")
    assert "every $(w, b)$ puts some training point on the wrong side" not in text
    assert "no $(w, b)$ puts every training point strictly on the side of its label" in text


def test_the_noisy_training_sets_are_not_separable_and_never_converge():
    for seed in SEEDS:
        X, y, _ = pl.make_separable(400, 5, margin=0.05, random_state=seed)
        y_train = pl.flip_labels(y[:200], 0.2, random_state=seed)
        assert np.sum(y_train != y[:200]) == 40  # 'a fifth of the training labels flipped'
        assert not lp_separable(X[:200], y_train)
        assert not fit(pl.VotedPerceptron, X[:200], y_train, 10).converged_  # 'training runs all 10 epochs'
    for n_train, flip, seed in [(50, 0.1, 1), (40, 0.25, 5), (40, 0.2, 0)]:  # the other cases of noisy_comparison_values
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


# -- Part D, judged with the student's own functions -------------------------------------------------------------

def own_function_checks():
    return [check for check in ps5.CHECKS if check.function == "compare_with_your_functions"]


def test_the_host_hands_the_notebook_the_protocol_s_data(notebook):
    """The data of each case are the protocol's for its arguments: those of the notebook's visible test for
    n_train=50, flip_fraction=0.1, random_state=1, and those of the solution's steps 1 and 2 for the others."""
    X, y, _ = pl.make_separable(100, 5, margin=0.05, random_state=1)
    y_train = pl.flip_labels(y[:50], 0.1, random_state=1)
    X_train, y_train_host, X_test, y_test = ps5._protocol_data(50, 0.1, random_state=1)
    assert np.array_equal(X_train, X[:50]) and np.array_equal(y_train_host, y_train)
    assert np.array_equal(X_test, X[50:]) and np.array_equal(y_test, y[50:])
    assert "make_separable(100, 5, margin=0.05, random_state=1)" in cell_text(notebook, "noisy_comparison_values")
    arguments = {"n_train=50, flip_fraction=0.1, random_state=1": ((50, 0.1), {"random_state": 1}),
                 "n_train=40 with the default flip_fraction and random_state": ((40,), {}),
                 "n_train=40 with a quarter of the labels flipped and another seed": ((40, 0.25), {"random_state": 5}),
                 "no flipped labels": ((60, 0.0), {"random_state": 2})}
    checks = own_function_checks()
    assert sorted(case.describe for check in checks for case in check.cases) == sorted(arguments)
    for check in checks:
        (case,) = check.cases
        args, kwargs = arguments[case.describe]
        assert case.args[3:] == args and case.kwargs == kwargs
        for handed, made in zip(case.args[:3], ps5._protocol_data(*args, **kwargs)):
            assert np.array_equal(handed, made)
    # 'with the default flip_fraction and random_state': the docstring's, 0.2 and 0.
    assert np.array_equal(checks[1].cases[0].args[1], ps5._protocol_data(40, 0.2, random_state=0)[1])
    text = cell_text(notebook, "noisy_comparison_values").replace(" # ", " ")  # the first line's comment, joined
    assert text.startswith("# Check that compare_on_noisy_data's signature keeps the defaults n_train=200, "
                           "flip_fraction=0.2 and random_state=0, and that it returns three accuracies between 0 and 1, "
                           "those that the protocol gives with your own train_voted, predict_voted and train_averaged "
                           "(whether or not these are right).")


# Signatures of compare_on_noisy_data: those that keep the docstring's three defaults (a parameter added with a
# default of its own is not judged), and those that do not, with what the hidden check's message names.
KEEP_THE_DEFAULTS = [
    "n_train=200, flip_fraction=0.2, *, random_state=0",
    "n_train=200, flip_fraction=0.2, random_state=0",
    "n_train=200, flip_fraction=0.2, *, random_state=0, max_epochs=10",
    "n_train=200, flip_fraction=0.2, *, random_state=0, extra=1",
    "n_train=200, flip_fraction=0.2, *, random_state=0, **options",
    "n_train=np.int64(200), flip_fraction=np.float64(0.2), *, random_state=0",
]
CHANGE_THE_DEFAULTS = {
    "n_train=100, flip_fraction=0.2, *, random_state=0": ("n_train", "found n_train=100 where"),
    "n_train=200, flip_fraction=0.2, *, random_state=1": ("random_state", "found random_state=1 where"),
    "n_train=200.0, flip_fraction=0.2, *, random_state=0": ("n_train", "found n_train=200.0 where"),
    "n_train=200, flip_fraction=0.2, *, random_state=None": ("random_state", "found random_state=None where"),
    "n_train=200, flip_fraction=0.2, *, random_state=False": ("random_state", "found random_state=False where"),
    "n_train, flip_fraction=0.2, *, random_state=0": ("n_train", "found no default for n_train where"),
    "n_train=200, flip_fraction=0.1, *, random_state=0, extra=1": ("flip_fraction", "found flip_fraction=0.1 where"),
}


def visible_part_d(notebook, signature):
    """The visible test of Part D on a compare_on_noisy_data of this signature that is not written yet: the error it
    raises, AssertionError from its check of the defaults, or NotImplementedError when it calls the function."""
    from autograder.commands.verify import namespace_from

    namespace = namespace_from(notebook)
    exec(f"def compare_on_noisy_data({signature}):\n    raise NotImplementedError\n", namespace)
    (cell,) = [c for c in notebook.cells if c.metadata.get("nbgrader", {}).get("grade_id") == "noisy_comparison_values"]
    visible = cell.source.split("### BEGIN HIDDEN TESTS")[0]
    with pytest.raises((AssertionError, NotImplementedError)) as raised:
        exec(visible, namespace)
    return raised.value


def test_the_defaults_of_the_comparison_are_read_from_its_signature(notebook):
    """Part D: 'they read the default values of compare_on_noisy_data from its signature, with
    compare_on_noisy_data_defaults'; 'keep the three defaults in the signature exactly as they are given', 'A default
    of None that the function replaces by 0 does not count', 'A parameter you add is fine if it has a default', 'The
    visible test of this part checks the three defaults first'.  The hidden check and the visible test accept and
    refuse the same signatures, and their messages name the default that is wrong."""
    from autograder.commands.verify import namespace_from

    source = cell_text(notebook, "compare_on_noisy_data")
    assert "def compare_on_noisy_data(n_train=200, flip_fraction=0.2, *, random_state=0):" in source
    assert ps5.PROTOCOL_DEFAULTS == {"n_train": 200, "flip_fraction": 0.2, "random_state": 0}
    for name, value in ps5.PROTOCOL_DEFAULTS.items():
        assert f"{name} : {type(value).__name__}, default={value}" in source
    part_d = cell_text(notebook, startswith="## Part D")
    for words in ["So keep the three defaults in the signature exactly as they are given: `n_train=200`, "
                  "`flip_fraction=0.2`, `random_state=0`.", "A default of `None` that the function replaces by `0` "
                  "does not count", "A parameter you add is fine if it has a default.",
                  "The visible test of this part checks the three defaults first."]:
        assert words in part_d, words
    assert "def compare_on_noisy_data_defaults():" in cell_text(notebook, "compare_with_your_functions")
    (check,) = [c for c in ps5.CHECKS if c.function == "compare_on_noisy_data_defaults"]
    assert check is ps5.CHECKS[-1]  # after the checks that call the stubs of a blank notebook
    namespace = namespace_from(notebook)
    assert namespace["compare_on_noisy_data_defaults"]() == ps5.PROTOCOL_DEFAULTS
    for signature in KEEP_THE_DEFAULTS:
        exec(f"def compare_on_noisy_data({signature}):\n    pass\n", namespace)
        (verdict,) = evaluate_namespace([check], namespace)
        assert verdict.passed, (signature, verdict.message)
        assert isinstance(visible_part_d(notebook, signature), NotImplementedError), signature
    for signature, (name, named) in CHANGE_THE_DEFAULTS.items():
        exec(f"def compare_on_noisy_data({signature}):\n    pass\n", namespace)
        (verdict,) = evaluate_namespace([check], namespace)
        assert not verdict.passed, signature
        assert verdict.message.startswith(f"On the signature of compare_on_noisy_data, compare_on_noisy_data_defaults "
                                          f"{named} compare_on_noisy_data's docstring gives "), verdict.message
        assert verdict.message.endswith(ps5.DEFAULTS_HINT)
        # The visible test refuses it too, and names the parameter.
        error = visible_part_d(notebook, signature)
        assert isinstance(error, AssertionError), signature
        assert str(error).startswith(f"compare_on_noisy_data's signature gives {name} "), str(error)
    # Both say the wrong value and the right one.
    error = visible_part_d(notebook, "n_train=200, flip_fraction=0.2, *, random_state=None")
    assert str(error).startswith("compare_on_noisy_data's signature gives random_state the default None; its docstring "
                                 "gives random_state=0, an int. Keep the three defaults as written in the signature "
                                 "(not None replaced inside the function)")
    error = visible_part_d(notebook, "n_train, flip_fraction=0.2, *, random_state=0")
    assert str(error).startswith("compare_on_noisy_data's signature gives n_train no default; its docstring gives "
                                 "n_train=200, an int.")


def part_d_verdict(source, code):
    from autograder.commands.verify import namespace_from

    namespace = namespace_from(source)
    exec(textwrap.dedent(code), namespace)
    checks = [check for check in ps5.CHECKS if check.grade_id == "noisy_comparison_values"]
    (verdict,) = evaluate_namespace(checks, namespace)
    return verdict


WRONG_PARTS = {
    # known_wrong.py's own (its source, indented as the other entries are).
    "counts that start at one": next(w.source for w in load_known_wrong("ps5_voted_averaged")
                                     if w.name == "voted_counts_start_at_one"),
    "a vote without the counts, as lists": """
        def predict_voted(X, weights, intercepts, counts):
            scores = np.asarray(X, dtype=float) @ np.asarray(weights, dtype=float).T + intercepts
            return [1 if v > 0 else -1 for v in np.where(scores > 0, 1, -1).sum(axis=1)]
        """,
    "the last weights for the average": """
        def train_averaged(X, y, *, max_epochs=10):
            weights, intercepts, _ = train_voted(X, y, max_epochs=max_epochs)
            return weights[-1], float(intercepts[-1])
        """,
}


@pytest.mark.parametrize("name", WRONG_PARTS)
def test_a_right_part_d_keeps_its_points_beside_a_wrong_part_a_b_or_c(notebook, name):
    """Part D: 'a mistake in Part A, B or C costs no points here'; the check line: 'whether or not these are
    right'."""
    verdict = part_d_verdict(notebook, WRONG_PARTS[name])
    assert verdict.passed, verdict.message


def test_a_part_d_that_does_not_follow_the_protocol_loses_its_points_beside_right_and_wrong_functions(notebook):
    # The solution's protocol with the voted training's vectors swapped for the average: right functions, a wrong
    # Part D, caught; then the same with a wrong train_voted beside it.
    swapped = known_wrong._protocol(last="np.where(X_test @ w_avg + b_avg > 0, 1, -1)")
    for code in (swapped, swapped + WRONG_PARTS["counts that start at one"]):
        verdict = part_d_verdict(notebook, code)
        assert not verdict.passed
        assert "acc_last is not the accuracy that the protocol gives with your own" in verdict.message


def test_part_d_takes_the_right_accuracies_however_they_were_computed(notebook):
    """The reference's accuracies pass beside a wrong train_voted: a Part D that trains its own right vectors
    returns them."""
    own_loop = """
        def compare_on_noisy_data(n_train=200, flip_fraction=0.2, *, random_state=0):
            import perceptron_lib
            X, y, _ = make_separable(2 * n_train, 5, margin=0.05, random_state=random_state)
            y_train = flip_labels(y[:n_train], flip_fraction, random_state=random_state)
            voted = perceptron_lib.VotedPerceptron(max_epochs=10).fit(X[:n_train], y_train)
            averaged = perceptron_lib.AveragedPerceptron(max_epochs=10).fit(X[:n_train], y_train)
            last = np.where(X[n_train:] @ voted.coef_ + voted.intercept_ > 0, 1, -1)
            return (float(np.mean(last == y[n_train:])), float(voted.score(X[n_train:], y[n_train:])),
                    float(averaged.score(X[n_train:], y[n_train:])))
        """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pl.ConvergenceWarning)
        verdict = part_d_verdict(notebook, own_loop + WRONG_PARTS["counts that start at one"])
    assert verdict.passed, verdict.message


def test_part_d_fails_when_a_function_it_uses_returns_the_wrong_shape_or_raises(notebook):
    two_values = """
        def train_averaged(X, y, *, max_epochs=10):
            weights, intercepts, counts = train_voted(X, y, max_epochs=max_epochs)
            return (counts @ weights / counts.sum(),)
        """
    verdict = part_d_verdict(notebook, two_values)
    assert not verdict.passed and verdict.message.startswith("On n_train=50, flip_fraction=0.1, random_state=1, "
                                                             "compare_on_noisy_data raised ValueError")
    assert "compare_on_noisy_data calls your train_voted, train_averaged and predict_voted" in verdict.message
    stub = "def predict_voted(X, weights, intercepts, counts):\n    raise NotImplementedError()\n"
    verdict = part_d_verdict(notebook, stub)
    assert not verdict.passed and "not implemented yet" in verdict.message
    assert "compare_on_noisy_data calls your train_voted, train_averaged and predict_voted" in verdict.message


def test_the_comparison_without_flipped_labels_is_a_hidden_case_of_separable_data():
    """'no flipped labels': the training set is separable, and the three accuracies can coincide."""
    X, y, w_star = pl.make_separable(120, 5, margin=0.05, random_state=2)
    assert pl.is_separated(X[:60], y[:60], w_star)


# -- every hidden case is small enough for functions written with loops ------------------------------------------

# The cost of a right predict_voted is one score per vector and point. Written as loops over the points and the
# vectors, with numpy on each pair (np.dot, then np.where for the sign, the slowest way the referee tried), it takes
# about 6 microseconds a pair on the course's machine; a pure-Python triple loop, about 3. A hidden test gives one call
# the floor of its calibrated limit, min_call_seconds = 1 s (the solution's calls take milliseconds), so 20,000 pairs,
# an eighth of a second at 6 microseconds, leave a margin of 8 for a loaded machine. Training is cheaper still: a visit
# is one score, and 5,000 visits in one call take a loop a few hundredths of a second. The protocol at its default
# size is far above the bound: one call of compare_with_your_functions runs it twice, 2 x 760 x 200 = 304,000 pairs.
MAX_PAIRS_PER_CALL = 20_000
MAX_VISITS_PER_CALL = 5_000
PROTOCOL_EPOCHS = 10  # max_epochs=10, step 3 of the protocol


def protocol_size(X_train, y_train, X_test):
    """(vectors, test points) of one run of the protocol: what its call of predict_voted scores."""
    return len(ps5._voted(X_train, y_train, max_epochs=PROTOCOL_EPOCHS)[0]), len(X_test)


def work_of(check, case):
    """(vectors, points, vector-point pairs, example visits) that the call of ``case`` makes right functions compute:
    the vectors and points of its largest predict_voted, then its totals."""
    function = check.function
    if function == "predict_voted":
        X, weights = case.args[:2]
        return len(weights), len(X), len(weights) * len(X), 0
    if function in ("train_voted", "train_averaged"):
        X = case.args[0]
        return 0, 0, 0, len(X) * case.kwargs.get("max_epochs", 10)  # at most max_epochs epochs
    if function == "compare_on_noisy_data_defaults":
        return 0, 0, 0, 0  # reads a signature
    if function == "compare_on_noisy_data":
        runs, (X_train, y_train, X_test, _) = 1, ps5._protocol_data(*case.args, **case.kwargs)
    elif function == "compare_with_your_functions":
        # The student's compare_on_noisy_data on the same arguments, then the three functions again.
        runs, (X_train, y_train, X_test) = 2, case.args[:3]
    else:
        raise AssertionError(f"no bound on the work of {function}: add it to work_of")
    vectors, points = protocol_size(X_train, y_train, X_test)
    return vectors, points, runs * vectors * points, runs * 2 * len(X_train) * PROTOCOL_EPOCHS


def test_no_hidden_case_makes_a_call_do_more_than_loops_finish_well_within_a_call_s_time():
    """ERROR 2 of the referee: the protocol at its default size took a right loop-based predict_voted past the one
    second a hidden test gives a call. Every case of every check is bounded here, by the work it makes right
    functions do, not by a time measured on a shared machine."""
    work = {(check.function, case.describe): work_of(check, case) for check in ps5.CHECKS for case in check.cases}
    too_much = {key: w for key, w in work.items() if w[2] > MAX_PAIRS_PER_CALL or w[3] > MAX_VISITS_PER_CALL}
    assert too_much == {}
    assert max(w[2] for w in work.values()) >= MAX_PAIRS_PER_CALL / 2  # the bound is near the largest case
    # What the default size would cost, and why no case runs it.
    X_train, y_train, X_test, _ = ps5._protocol_data()
    vectors, points = protocol_size(X_train, y_train, X_test)
    assert (vectors, points) == (760, 200) and 2 * vectors * points > 15 * MAX_PAIRS_PER_CALL
    # Every case that runs the protocol gives n_train (the default's value is read from the signature).
    for check in ps5.CHECKS:
        for case in check.cases:
            if check.function == "compare_on_noisy_data":
                assert len(case.args) >= 1, case.describe
            elif check.function == "compare_with_your_functions":
                assert len(case.args) >= 4, case.describe


def test_what_the_notebook_says_about_speed(notebook):
    """Part B, 'How fast': 'no test calls it with more than 200 vectors or on more than 60 points', 'for each seed it
    calls predict_voted with 640 to 760 vectors and 200 points'; Part D: 'The tests of this part run the protocol on
    at most 60 training points'."""
    sizes = [work_of(check, case)[:2] for check in ps5.CHECKS for case in check.cases]
    # The visible test of Part D calls predict_voted on the protocol of n_train=50, flip_fraction=0.1, random_state=1.
    sizes.append(protocol_size(*ps5._protocol_data(50, 0.1, random_state=1)[:3]))
    assert max(v for v, _ in sizes) <= 200 and max(p for _, p in sizes) <= 60
    assert max(p for _, p in sizes) == 60
    training = [len(case.args[0]) for check in ps5.CHECKS if check.function == "compare_with_your_functions"
                for case in check.cases]
    training += [case.args[0] for check in ps5.CHECKS if check.function == "compare_on_noisy_data"
                 for case in check.cases]
    assert max(training) == 60
    seeds = [protocol_size(*ps5._protocol_data(random_state=seed)[:3]) for seed in SEEDS]
    assert min(v for v, _ in seeds) == 640 and max(v for v, _ in seeds) == 760 and {p for _, p in seeds} == {200}
    part_b = cell_text(notebook, startswith="## Part B")
    for words in ["no test calls it with more than 200 vectors or on more than 60 points",
                  "for each seed it calls `predict_voted` with 640 to 760 vectors and 200 points"]:
        assert words in part_b, words
    assert "The tests of this part run the protocol on at most 60 training points" in cell_text(
        notebook, startswith="## Part D")
    # 'perceptron-check warns only when the cell takes more than 3 seconds on your own computer': its warning is for a
    # cell that took longer than the floor of a calibrated cell limit, which is 3 s; grading, on a slower machine,
    # can interrupt the cell at that limit without the student's check having warned.
    import inspect

    from perceptron_course import check as student_check
    from perceptron_course.limits import course_limits

    assert course_limits().min_cell_seconds == 3
    assert "took > limits.min_cell_seconds" in inspect.getsource(student_check)
    assert ("`perceptron-check` warns only when the cell takes more than 3 seconds on your own computer, and grading, "
            "which runs many notebooks at once, can be several times slower") in part_b


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
    "the voted lists grown by index, and the stopping rule by the total of mistakes": """
        def train_voted(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            weights, intercepts, counts = [np.zeros(X.shape[1])], [0.0], [0]
            total, epoch = 0, 0
            while epoch < max_epochs:
                epoch += 1
                before = total
                for i in range(len(y)):
                    if y[i] * (X[i] @ weights[-1] + intercepts[-1]) <= 0:
                        weights.append(weights[-1] + y[i] * X[i])
                        intercepts.append(intercepts[-1] + y[i])
                        counts.append(1)
                        total += 1
                    else:
                        counts[-1] += 1
                if total == before:
                    break
            return np.array(weights), np.array(intercepts, dtype=float), np.array(counts)
        """,
    "the average with a converged flag and the counter numbered from 0 by enumerate": """
        def train_averaged(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            n = len(y)
            w, b, u, beta = np.zeros(X.shape[1]), 0.0, np.zeros(X.shape[1]), 0.0
            epochs_run, converged = 0, False
            while epochs_run < max_epochs and not converged:
                converged = True
                for i, (x_i, y_i) in enumerate(zip(X, y)):
                    c = epochs_run * n + i
                    if y_i * (w @ x_i + b) <= 0:
                        w, b = w + y_i * x_i, b + y_i
                        u, beta = u + c * y_i * x_i, beta + c * y_i
                        converged = False
                epochs_run += 1
            T = epochs_run * n
            return w - u / T, float(b - beta / T)
        """,
    "the vote by loops over the points and the vectors, with np.where on each score": """
        def predict_voted(X, weights, intercepts, counts):
            labels = []
            for x in X:
                total = 0
                for w, b, c in zip(weights, intercepts, counts):
                    score = np.dot(w, x) + b
                    vote = np.where(score > 0, 1, -1)
                    total += c * vote
                labels.append(np.where(total > 0, 1, -1))
            return np.array(labels)
        """,
    "the vote by a pure-Python triple loop": """
        def predict_voted(X, weights, intercepts, counts):
            labels = []
            for x in X:
                total = 0
                for k in range(len(weights)):
                    score = intercepts[k]
                    for j in range(len(x)):
                        score += weights[k][j] * x[j]
                    total += counts[k] * (1 if score > 0 else -1)
                labels.append(1 if total > 0 else -1)
            return np.array(labels)
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
    "the comparison with a parameter of its own added, which has a default": """
        def compare_on_noisy_data(n_train=200, flip_fraction=0.2, *, random_state=0, max_epochs=10):
            X, y, _ = make_separable(2 * n_train, 5, margin=0.05, random_state=random_state)
            y_train = flip_labels(y[:n_train], flip_fraction, random_state=random_state)
            X_train, X_test, y_test = X[:n_train], X[n_train:], y[n_train:]
            weights, intercepts, counts = train_voted(X_train, y_train, max_epochs=max_epochs)
            w_avg, b_avg = train_averaged(X_train, y_train, max_epochs=max_epochs)
            last = np.where(X_test @ weights[-1] + intercepts[-1] > 0, 1, -1)
            voted = predict_voted(X_test, weights, intercepts, counts)
            averaged = np.where(X_test @ w_avg + b_avg > 0, 1, -1)
            return tuple(float(np.mean(p == y_test)) for p in (last, voted, averaged))
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


def test_accuracies_as_numpy_numbers_of_any_dtype_are_numbers():
    """The probe keeps a float32's dtype: accuracies computed in float32 or as numpy integers are numbers, as
    0-d arrays of them are; a value outside [0, 1] is still refused."""
    assert ps5._three_accuracies((np.float32(0.85), np.float64(0.9), np.int64(1))) is None
    assert ps5._three_accuracies((np.array(np.float32(0.5)), 0.75, 1.0)) is None
    assert "expected a number between 0 and 1" in ps5._three_accuracies((np.float32(1.5), 0.5, 0.5))
