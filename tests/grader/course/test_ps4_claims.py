"""What problem set 4 says about its data, and about how it grades, asserted by code.

The notebook, its model answers and its hidden checks (``autograder/course/assignments/ps4_offset``)
call data "separable", "not separable through the origin", "never converge", and give numbers
(weights, mistakes, epochs) a student's answer is compared with.  Each claim is checked here
independently of the notebook's solution: separability by a separator written down, non-separability
by a certificate (a point and a positive multiple of it with opposite labels, lifted points whose sums
over the two labels are equal) or by a linear program with no solution, and the numbers with
``perceptron_lib``.  A claim that a run "never converges" rests on non-separability: an epoch without
a mistake ends with weights that separate the data, so on data that nothing separates every epoch has
a mistake.

A stub of Part A raises inside ``train_with_lifting``, which calls it: the message of Part C's cells then
names the functions it calls, not ``train_with_lifting`` alone.

Part C is graded with the student's own functions, through ``lifting_with_your_functions``, a function of
a locked cell of the notebook: it returns what ``train_with_lifting`` (or ``train_with_lifting_reversed``,
which runs it with ``train_through_origin`` fed the examples in reverse order) returned, and what the
student's ``absorb_offset``, ``train_through_origin`` and ``split_offset`` give, called in turn.  The last
tests check that the reverse order tells a training loop of the student's own from the method the part
asks for on every case it is used on, that a mistake in Part A or B costs its own cell only, that right
answers written differently still get full marks, and that the helpers leave the notebook's names as they
found them.

The docstrings promise float64 arrays and float offsets, and the checks hold every part to them on
integer inputs: the tests below check that those inputs are integers, that the typical slips fail on
them, and that right answers which make their floats in other ways are accepted.
"""

import textwrap

import nbformat
import numpy as np
import pytest
from scipy.optimize import linprog

import perceptron_lib as pl

from autograder.commands.verify import namespace_from
from autograder.course.assignments import load_checks, load_known_wrong
from autograder.course.assignments.ps4_offset import checks as ps4
from autograder.judging.checks import compare_values, evaluate_namespace

from tests.support import COURSE

SOURCE = f"{COURSE}/source/ps4_offset/ps4_offset.ipynb"


def separable(X, y, *, offset):
    """Whether some (w, b), with b = 0 unless ``offset``, has y_i (w . x_i + b) > 0 for every i.

    Strict inequalities scale: a solution of y_i (w . x_i + b) > 0 times a large enough number solves
    y_i (w . x_i + b) >= 1, so the question is the feasibility of that linear program.
    """
    X = np.asarray(X, dtype=float)
    A = pl.absorb_offset(X) if offset else X
    y = np.asarray(y, dtype=float)
    result = linprog(np.zeros(A.shape[1]), A_ub=-(y[:, None] * A), b_ub=-np.ones(len(y)),
                     bounds=[(None, None)] * A.shape[1], method="highs")
    assert result.status in (0, 2), result.message  # 0: a solution, 2: none; anything else decides nothing
    return result.status == 0


def separates(X, y, w, b=0.0):
    return bool(np.all(np.asarray(y) * (np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b) > 0))


def run(X, y, *, offset, max_epochs=100):
    result = pl.train_perceptron(X, y, fit_intercept=offset, max_epochs=max_epochs)
    return result.w.tolist(), float(result.b), int(result.n_mistakes), int(result.n_epochs), bool(result.converged)


# -- the one-dimensional example -------------------------------------------------------------------

def test_the_one_dimensional_example_is_separable_only_with_an_offset():
    X1, y1 = pl.one_dimensional_example()
    # Through the origin: the point 3 is 3 times the point 1 and has the opposite label, so w x_1 and w x_3
    # have the same sign for every w, while the labels need opposite signs.
    assert X1[2, 0] == 3 * X1[0, 0] and y1[0] == -y1[2]
    assert not separable(X1, y1, offset=False)
    # With an offset, the threshold 2.5 separates it (the notes' separator), and so does the perceptron's 7/3.
    assert separates(X1, y1, [-1.0], 2.5) and separates(X1, y1, [-3.0], 7.0)
    assert 2 < 7 / 3 < 3


def test_the_one_dimensional_numbers_of_parts_b_and_c_and_of_the_model_answer():
    X1, y1 = pl.one_dimensional_example()
    # Part B's visible test and the model answer of D1: 14 mistakes in 5 epochs through the origin.
    assert run(X1, y1, offset=False, max_epochs=5) == ([-2.0], 0.0, 14, 5, False)
    # Through the origin it never converges (it is not separable), with the default max_epochs too.
    w, _, mistakes, epochs, converged = run(X1, y1, offset=False)
    assert not converged and epochs == 100 and not separates(X1, y1, w)
    # Part C: the offset perceptron converges after 25 mistakes in 11 epochs at w = -3, b = 7; the 11th epoch
    # is the one without mistakes, so max_epochs=11 is the last epoch allowed and max_epochs=10 stops short.
    assert run(X1, y1, offset=True) == ([-3.0], 7.0, 25, 11, True)
    assert run(X1, y1, offset=True, max_epochs=11) == ([-3.0], 7.0, 25, 11, True)
    assert run(X1, y1, offset=True, max_epochs=10)[4] is False
    # "with max_epochs=10, one epoch short of the epoch without mistakes": all 25 mistakes, the last in the 10th
    # epoch, the last one allowed; in reverse order too (17 mistakes). An epoch count must still say 10.
    assert run(X1, y1, offset=True, max_epochs=10) == ([-3.0], 7.0, 25, 10, False)
    assert run(X1[::-1], y1[::-1], offset=True, max_epochs=10) == ([-2.0], 5.0, 17, 10, False)
    # Lifted and trained through the origin, it is the same run (the proposition the part is about).
    theta = pl.train_perceptron(pl.absorb_offset(X1), y1, fit_intercept=False, max_epochs=100)
    assert theta.w.tolist() == [-3.0, 7.0] and theta.n_mistakes == 25 and theta.n_epochs == 11
    # The reverse order of the visible test of train_with_lifting_reversed (and of problem set 2's answer).
    assert run(X1[::-1], y1[::-1], offset=True) == ([-2.0], 5.0, 17, 11, True)


# -- the other data of the visible tests -----------------------------------------------------------

def test_the_points_on_the_plane_and_the_four_point_example():
    X0, y0 = np.array([[1.0, 0.0], [0.0, 1.0]]), np.array([-1.0, -1.0])
    # Each point scores exactly 0 when first visited, and counts as a mistake although sign(0) = -1 is its label.
    assert run(X0, y0, offset=False) == ([-1.0, -1.0], 0.0, 2, 2, True)
    X4, y4 = pl.four_point_example()
    assert separable(X4, y4, offset=False)
    assert run(X4, y4, offset=False) == ([1.0, 1.0], 0.0, 2, 2, True)
    # "with max_epochs=2, so that the epoch without mistakes is the last one allowed": one epoch is not enough.
    assert run(X4, y4, offset=False, max_epochs=1)[4] is False
    # "with max_epochs=1, one epoch short of the epoch without mistakes": both mistakes in the one epoch allowed.
    assert run(X4, y4, offset=False, max_epochs=1) == ([1.0, 1.0], 0.0, 2, 1, False)
    assert run(X4, y4, offset=False, max_epochs=2) == ([1.0, 1.0], 0.0, 2, 2, True)


def test_the_points_away_from_the_origin_need_the_offset():
    X, y = ps4.X_away, ps4.y_away
    assert np.linalg.norm(X, axis=1).min() >= np.sqrt(2)
    assert not separable(X, y, offset=False) and separable(X, y, offset=True)
    assert run(X, y, offset=True) == ([-2.0, 4.5], -5.0, 15, 9, True)
    assert run(X[::-1], y[::-1], offset=True) == ([-2.0, 4.5], -3.0, 13, 7, True)


# -- the data of the hidden cases --------------------------------------------------------------------

def test_the_thirty_points_are_separable_through_the_origin_and_after_the_move_with_an_offset():
    X_sep, y_sep, w_star = pl.make_separable(30, 3, margin=0.1, random_state=21)
    assert np.array_equal(X_sep, ps4.X_sep) and np.array_equal(y_sep, ps4.y_sep)
    assert np.min(y_sep * (X_sep @ w_star)) >= 0.1
    shift = ps4.X_shift[0] - X_sep[0]
    assert np.allclose(ps4.X_shift - X_sep, shift)
    # Moved away from the origin: every point of the ball of radius 1 ends up farther than 1 from it.
    assert np.linalg.norm(X_sep, axis=1).max() <= 1 + 1e-12 and np.linalg.norm(ps4.X_shift, axis=1).min() > 1
    # A translation keeps separability with an offset: (w*, -w* . shift) separates the moved points.
    assert separates(ps4.X_shift, y_sep, w_star, -w_star @ shift)


def test_the_flipped_labels_are_flipped_and_their_max_epochs_matter():
    assert 0 < np.count_nonzero(ps4.y_flip != ps4.y_sep) < len(ps4.y_sep)
    # "with max_epochs=4" through the origin and "with max_epochs=3" with an offset: the runs are cut short.
    assert run(ps4.X_sep, ps4.y_flip, offset=False, max_epochs=4)[4] is False
    assert run(ps4.X_sep, ps4.y_flip, offset=True, max_epochs=3)[4] is False


def test_the_integer_cases_hold_integers_and_catch_an_integer_theta():
    # "integer points with float labels", "integer points and integer labels": the same points and labels.
    assert ps4.X_int.dtype.kind == "i" and ps4.y_int.dtype.kind == "i" and ps4.y_int_float.dtype.kind == "f"
    assert np.array_equal(ps4.y_int_float, ps4.y_int)
    # Through the origin they need several epochs, so the updates are many and theta's dtype shows; Part B's
    # visible test runs the same case on the same literals.
    assert run(ps4.X_int, ps4.y_int, offset=False) == ([5.0, -7.0], 0.0, 11, 6, True)
    cell = next(c.source for c in nbformat.read(SOURCE, as_version=4).cells
                if c.metadata.get("nbgrader", {}).get("grade_id") == "train_through_origin_values")
    assert (f"X_int, y_int = np.array({ps4.X_int.tolist()}), np.array({ps4.y_int.tolist()})" in cell
            and "expect_array(\"train_through_origin\", result[0], [5.0, -7.0], where)" in cell)
    # theta = np.zeros_like(X[0]), updated in place: float labels cannot be added into an integer theta ...
    theta = np.zeros_like(ps4.X_int[0])
    with pytest.raises(TypeError):
        theta += ps4.y_int_float[0] * ps4.X_int[0]
    # ... and integer labels keep it an integer array, which only the type tells from the right answer.
    theta += ps4.y_int[0] * ps4.X_int[0]
    assert theta.dtype.kind == "i"
    # The notebook's own integer array of Part A, in 3-D, and the integer thetas of the split, visible and hidden.
    assert np.array([[1, -2, 3], [0, 5, -1]]).dtype.kind == "i"
    split = next(c for c in load_checks("ps4_offset") if c.grade_id == "split_offset_values")
    integer = [case for case in split.cases if "integer" in case.describe]
    assert [case.visible for case in integer] == [True, False]
    assert all(case.args[0].dtype.kind == "i" for case in integer) and np.array_equal(ps4.THETA_INT, [3, -1, 7])


@pytest.mark.parametrize("got, expected, accepted", [
    ((np.array([1, 2]), 3), (np.array([1.0, 2.0]), 3.0), False),    # an integer w and an integer b
    ((np.array([1.0, 2.0]), 3), (np.array([1.0, 2.0]), 3.0), False),  # an integer b
    ([1.0, 2.0], np.array([1.0, 2.0]), False),                         # a list for an array
    ((np.array([1.0, 2.0], dtype=np.float32), 3.0), (np.array([1.0, 2.0]), 3.0), False),  # the docstrings say float64
    ((np.array([1.0, 2.0]), np.array(3.0)), (np.array([1.0, 2.0]), 3.0), False),  # b as a 0-d array (as expect_number)
    ((np.array([1.0]), 3.0, 25, 11), (np.array([1.0]), 3.0, 25, 11), True),
    ((np.array([1.0]), 3.0, 25.0, 11), (np.array([1.0]), 3.0, 25, 11), False),    # a whole-number float count
    ((np.array([1.0]), 3.0, 25, np.float64(11)), (np.array([1.0]), 3.0, 25, 11), False),
    ((np.array([1.0]), 1), (np.array([1.0]), 1), True),
    ((np.array([1.0]), True), (np.array([1.0]), 1), False),                        # a bool for a count
])
def test_the_type_rule_takes_float_arrays_and_floats_only(got, expected, accepted):
    assert (ps4.compare_float64(got, expected) is None) == accepted


def test_the_four_xor_points_never_converge_even_with_an_offset():
    X, y = ps4.XOR4, ps4.XOR4_y
    lifted = pl.absorb_offset(X)
    # A certificate: the lifted points of each label have the same sum, so a theta with a positive score on
    # every positive point and a negative one on every negative point would give that sum both signs.
    assert np.array_equal(lifted[y > 0].sum(axis=0), lifted[y < 0].sum(axis=0))
    assert not separable(X, y, offset=True)
    assert run(X, y, offset=True)[2:] == (400, 100, False)


def test_a_single_point_at_the_origin_never_converges_through_the_origin_and_does_with_an_offset():
    X, y = ps4.X_zero, ps4.y_zero
    # Every theta scores the origin 0, a mistake, and the update adds y * 0: nothing ever changes.
    assert not np.any(X) and not separable(X, y, offset=False)
    assert run(X, y, offset=False, max_epochs=7) == ([0.0, 0.0], 0.0, 7, 7, False)
    assert run(X, y, offset=True) == ([0.0, 0.0], 1.0, 1, 2, True)


# -- the model answers ----------------------------------------------------------------------------------

@pytest.mark.parametrize("data", ["one-dimensional", "away"])
def test_lifting_changes_the_radius_and_margin_as_the_model_answer_says(data):
    X, y, w, b = {"one-dimensional": (*pl.one_dimensional_example(), np.array([-1.0]), 2.5),
                  "away": (ps4.X_away, ps4.y_away, np.array([-2.0, 4.5]), -5.0)}[data]
    R, gamma, D = pl.radius(X), pl.margin(X, y, w, b), abs(b) / np.linalg.norm(w)
    lifted, theta = pl.absorb_offset(X), np.append(w, b)
    assert np.isclose(pl.radius(lifted), np.sqrt(R ** 2 + 1)) and np.sqrt(R ** 2 + 1) < R + 1
    assert np.isclose(pl.margin(lifted, y, theta), gamma / np.sqrt(1 + D ** 2))
    assert np.isclose(pl.mistake_bound(lifted, y, theta), (R ** 2 + 1) * (1 + D ** 2) / gamma ** 2)


def test_symmetry_about_the_origin_makes_the_offset_redundant_only_for_separable_data():
    # The example of the marking guide of D1: with every (x, y) the data hold (-x, -y), and nothing separates
    # them; every classifier through the origin gets two points wrong, the threshold 0.75 only one.
    x = np.array([-1.0, 1.0, -0.5, 0.5])
    y = np.array([-1.0, 1.0, 1.0, -1.0])
    assert sorted(zip(-x, -y)) == sorted(zip(x, y))
    assert not separable(x[:, None], y, offset=True)

    def errors(w, b):
        return int(np.count_nonzero(np.where(w * x + b > 0, 1.0, -1.0) != y))

    assert [errors(w, 0.0) for w in (-1.0, 0.0, 1.0)] == [2, 2, 2]
    assert errors(1.0, -0.75) == 1


# -- how Part C is graded ----------------------------------------------------------------------------------

def _reversed_cases():
    return [(check, case) for check in load_checks("ps4_offset")
            if check.function == "lifting_with_your_functions" and reverses(check)
            for case in check.cases]


def reverses(check):
    """Whether every case of ``check`` has train_through_origin visit the examples in reverse order."""
    return all(case.kwargs.get("reverse") for case in check.cases)


@pytest.mark.parametrize("check, case", _reversed_cases(), ids=lambda value: getattr(value, "describe", None))
def test_every_reversed_case_tells_a_loop_of_its_own_from_the_lifting(check, case):
    # A loop of its own returns the run in the given order; the lifting through train_through_origin, the run in
    # reverse order. The case catches the loop only if the two differ.
    kwargs = {k: v for k, v in case.kwargs.items() if k != "reverse"}
    in_order = ps4._with_offset(*case.args, **kwargs)
    assert compare_values(in_order, check.expected(*case.args, **case.kwargs)) is not None


def test_each_part_c_cell_calls_train_with_lifting_then_judges_it_with_the_student_s_functions():
    # train_with_lifting itself first (exceptions and changed inputs under its name), then the same cases through
    # lifting_with_your_functions, then the reverse order: no case of the cell escapes the judging of its values.
    for grade_id in ("lifting_one_dimensional", "lifting_general"):
        first, forward, backward = [c for c in load_checks("ps4_offset") if c.grade_id == grade_id]
        assert first.function == "train_with_lifting" and not first.allow_mutation
        assert forward.function == backward.function == "lifting_with_your_functions"
        assert [(k.describe, k.kwargs) for k in forward.cases] == [(k.describe, k.kwargs) for k in first.cases]
        assert all(np.array_equal(a, b) for k, j in zip(forward.cases, first.cases) for a, b in zip(k.args, j.args))
        assert reverses(backward) and not any(k.kwargs.get("reverse") for k in forward.cases)
        # Hidden: a failure would show the reference's values, which need not be what the student's functions give.
        assert not any(k.visible for k in forward.cases + backward.cases)


@pytest.mark.parametrize("got, accepted", [
    ((np.array([-3.0]), 7.0, 25, 11), True),                          # the perceptron with an offset
    ((np.array([-3.0]), 7, 25, 11), False),                           # an integer b, and not the student's
    ((np.array([-2.0]), 5.0, 17, 11), False),                         # another run
    ((np.array([-3.0]), np.array(7.0), 25, 11), True),                # exactly what the student's functions gave
    ((np.array([-3.0]), np.array([7.0]), 25, 11), False),             # not exactly theirs: another shape
    ((np.array([-3.0], dtype=np.float32), np.array(7.0), 25, 11), False),
])
def test_part_c_accepts_the_offset_perceptron_or_exactly_what_the_student_s_functions_give(got, accepted):
    X1, y1 = pl.one_dimensional_example()
    expected = ps4._lifting(X1, y1)
    yours = (np.array([-3.0]), np.array(7.0), 25, 11)  # a split_offset that returns b as an array of shape ()
    compare = ps4._judged_with_yours(reverse=False)
    assert (compare((got, yours), expected) is None) == accepted
    # With the student's functions raising, only the perceptron with an offset passes.
    assert (compare((got, None), expected) is None) == (ps4.compare_float64(got, expected) is None)


# A mistake in Part A or B, with the solution's train_with_lifting: its own cell fails, Part C keeps its points.
# The first two are right runs in a form Part B's docstring refuses (X changed, theta as a list); the
# others are wrong runs or types.
PART_A_OR_B_MISTAKES = {
    "train_through_origin folds the labels into X once, in place": ("train_through_origin_values",
        "origin_folds_the_labels_into_X_once_in_place", """
        def train_through_origin(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            X *= np.asarray(y, dtype=float)[:, None]   # y_i x_i, computed once for all epochs
            theta = np.zeros(X.shape[1])
            n_mistakes = 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for z in X:
                    if theta @ z <= 0:
                        theta = theta + z
                        made += 1
                n_mistakes += made
                if made == 0:
                    break
            return theta, n_mistakes, epoch
        """),
    "train_through_origin returns theta as a list": ("train_through_origin_values", "origin_returns_theta_as_a_list", """
        def train_through_origin(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            theta = np.zeros(X.shape[1])
            n_mistakes = 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (theta @ x_i) <= 0:
                        theta = theta + y_i * x_i
                        made += 1
                n_mistakes += made
                if made == 0:
                    break
            return theta.tolist(), n_mistakes, epoch
        """),
    "train_through_origin tests with sign(0) = +1": ("train_through_origin_values",
        "origin_predicts_plus_one_on_the_plane", """
        def train_through_origin(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            theta = np.zeros(X.shape[1])
            n_mistakes = 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for x_i, y_i in zip(X, y):
                    if (1 if theta @ x_i >= 0 else -1) != y_i:
                        theta = theta + y_i * x_i
                        made += 1
                n_mistakes += made
                if made == 0:
                    break
            return theta, n_mistakes, epoch
        """),
    "train_through_origin tests strictly, unless theta is zero": ("train_through_origin_values",
        "origin_strict_test_unless_theta_is_zero", """
        def train_through_origin(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            theta = np.zeros(X.shape[1])
            n_mistakes = 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (theta @ x_i) < 0 or not theta.any():
                        theta = theta + y_i * x_i
                        made += 1
                n_mistakes += made
                if made == 0:
                    break
            return theta, n_mistakes, epoch
        """),
    "split_offset returns b as an array of shape ()": ("split_offset_values", "split_offset_offset_as_a_0d_array", """
        def split_offset(theta):
            theta = np.asarray(theta, dtype=float)
            return theta[:-1].copy(), theta[-1:].reshape(())
        """),
    "absorb_offset lifts in float32": ("absorb_offset_values", "absorb_offset_in_float32", """
        def absorb_offset(X):
            X = np.asarray(X, dtype=np.float32)
            return np.hstack([X, np.ones((X.shape[0], 1), dtype=np.float32)])
        """),
    "absorb_offset puts the ones first": ("absorb_offset_values", "absorb_offset_prepends_the_ones", """
        def absorb_offset(X):
            X = np.asarray(X, dtype=float)
            return np.hstack([np.ones((X.shape[0], 1)), X])
        """),
}


@pytest.mark.parametrize("name", sorted(PART_A_OR_B_MISTAKES))
def test_a_mistake_in_part_a_or_b_costs_its_own_cell_and_not_part_c(source, name):
    cell, known, code = PART_A_OR_B_MISTAKES[name]
    namespace = namespace_from(source)
    exec(compile(textwrap.dedent(code), name, "exec"), namespace)
    failed = [v.grade_id for v in evaluate_namespace(load_checks("ps4_offset"), namespace) if not v.passed]
    assert failed == [cell]
    # known_wrong.py keeps the mistake, naming that cell alone, so that verify proves it on every change.
    assert {w.name: w.must_fail for w in load_known_wrong("ps4_offset")}[known] == (cell,)


RIGHT_ANSWERS = {
    "lifting and splitting written out": """
        def train_with_lifting(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            theta, n_mistakes, n_epochs = train_through_origin(np.column_stack([X, np.ones(len(X))]), y,
                                                               max_epochs=max_epochs)
            return theta[:-1], float(theta[-1]), n_mistakes, n_epochs
        """,
    "the constant coordinate first, split from the front": """
        def train_with_lifting(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            theta, n_mistakes, n_epochs = train_through_origin(np.hstack([np.ones((len(X), 1)), X]), y,
                                                               max_epochs=max_epochs)
            return theta[1:], float(theta[0]), n_mistakes, n_epochs
        """,
    "the trainer under another name": """
        trainer = train_through_origin

        def train_with_lifting(X, y, *, max_epochs=100):
            w_b, n_mistakes, n_epochs = trainer(absorb_offset(X), y, max_epochs=max_epochs)
            w, b = split_offset(w_b)
            return w, b, n_mistakes, n_epochs
        """,
    "other ways to write parts A and B": """
        def absorb_offset(X):
            return np.c_[np.asarray(X, dtype=float), np.ones(len(X))]

        def split_offset(theta):
            return np.asarray(theta, dtype=float)[:-1], np.float64(theta[-1])

        def train_through_origin(X, y, *, max_epochs=100):
            theta, n_mistakes, n_epochs = np.zeros(np.shape(X)[1]), 0, 0
            while n_epochs < max_epochs:
                n_epochs += 1
                before = n_mistakes
                for i in range(len(y)):
                    if np.sign(theta @ X[i]) != y[i]:
                        theta = theta + y[i] * np.asarray(X[i], dtype=float)
                        n_mistakes += 1
                if n_mistakes == before:
                    break
            return theta, n_mistakes, n_epochs
        """,
    "the counts as NumPy integers": """
        def train_through_origin(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            theta, mistakes_per_epoch = np.zeros(X.shape[1]), []
            for _ in range(max_epochs):
                mistakes_per_epoch.append(0)
                for x_i, y_i in zip(X, y):
                    if y_i * (theta @ x_i) <= 0:
                        theta = theta + y_i * x_i
                        mistakes_per_epoch[-1] += 1
                if mistakes_per_epoch[-1] == 0:
                    break
            counts = np.array(mistakes_per_epoch)
            return theta, counts.sum(), np.int64(counts.size)
        """,
    "floats made late, and theta updated in place": """
        def absorb_offset(X):
            return np.insert(np.asarray(X, dtype=float), np.shape(X)[1], 1.0, axis=1)

        def split_offset(theta):
            return np.asarray(theta, dtype=float)[:-1], float(theta[-1])

        def train_through_origin(X, y, *, max_epochs=100):
            theta, n_mistakes = np.zeros_like(X[0], dtype=float), 0
            for n_epochs in range(1, max_epochs + 1):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (theta @ x_i) <= 0:
                        theta += y_i * x_i
                        made += 1
                n_mistakes += made
                if not made:
                    break
            return theta, n_mistakes, n_epochs
        """,
    "a stop as soon as theta separates, counting the clean epoch that would follow": """
        def train_through_origin(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            y = np.asarray(y, dtype=float)
            theta = np.zeros(X.shape[1])
            n_mistakes = 0
            for epoch in range(1, max_epochs + 1):
                for x_i, y_i in zip(X, y):
                    if y_i * (theta @ x_i) <= 0:
                        theta = theta + y_i * x_i
                        n_mistakes += 1
                if np.all(y * (X @ theta) > 0):
                    return theta, n_mistakes, min(epoch + 1, max_epochs)
            return theta, n_mistakes, max_epochs
        """,
    "lifting with -1 and splitting with -theta": """
        def train_with_lifting(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            Z = np.hstack([X, -np.ones((len(X), 1))])
            theta, n_mistakes, n_epochs = train_through_origin(Z, y, max_epochs=max_epochs)
            return theta[:-1], -float(theta[-1]), n_mistakes, n_epochs
        """,
}


@pytest.fixture(scope="module")
def source():
    return nbformat.read(SOURCE, as_version=4)


@pytest.mark.parametrize("name", sorted(RIGHT_ANSWERS))
def test_right_answers_written_differently_get_full_marks(source, name):
    namespace = namespace_from(source)
    exec(compile(textwrap.dedent(RIGHT_ANSWERS[name]), name, "exec"), namespace)
    failed = [v.message for v in evaluate_namespace(load_checks("ps4_offset"), namespace) if not v.passed]
    assert failed == []


@pytest.mark.parametrize("stubs", [("absorb_offset",), ("split_offset",), ("absorb_offset", "split_offset")])
def test_part_c_names_the_functions_it_calls_when_a_stub_of_part_a_raises_in_it(source, stubs):
    # train_through_origin is right, so each Part C cell's first check passes and train_with_lifting raises the
    # stub's NotImplementedError: the message must not say that train_with_lifting alone is not written.
    namespace = namespace_from(source)
    for name in stubs:
        exec(f"def {name}(*args):\n    raise NotImplementedError()\n", namespace)
    verdicts = {v.grade_id: v for v in evaluate_namespace(load_checks("ps4_offset"), namespace)}
    assert verdicts["train_through_origin_values"].passed
    for grade_id in ("lifting_one_dimensional", "lifting_general"):
        message = verdicts[grade_id].message
        assert message.startswith("train_with_lifting raised NotImplementedError: train_with_lifting, or a function "
                                  "it calls, is not implemented yet."), message
        assert ps4.LIFTING_CALLS in message and "absorb_offset and split_offset (Part A)" in ps4.LIFTING_CALLS


def test_part_c_s_wrong_answers_carry_the_hint_and_not_the_note_on_exceptions(source):
    namespace = namespace_from(source)
    exec("def train_with_lifting(X, y, *, max_epochs=100):\n"
         "    theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y, max_epochs=max_epochs)\n"
         "    return theta[:-1], -float(theta[-1]), n_mistakes, n_epochs\n", namespace)
    verdicts = {v.grade_id: v for v in evaluate_namespace(load_checks("ps4_offset"), namespace)}
    message = verdicts["lifting_one_dimensional"].message
    assert message.startswith("On the points 1, 2, 3, 4 labelled +1, +1, -1, -1, lifting_with_your_functions found "
                              "that train_with_lifting returned neither the perceptron with an offset "), message
    assert "(its b differs)" in message and ps4.LIFTING_HINT in message and ps4.LIFTING_CALLS not in message


def test_the_locked_helper_gives_the_student_s_own_run_and_none_when_a_function_raises(source):
    namespace = namespace_from(source)
    X1, y1 = pl.one_dimensional_example()
    # With the solution, what train_with_lifting returns is what the three functions give, in either order.
    for reverse in (False, True):
        result, yours = namespace["lifting_with_your_functions"](X1, y1, reverse=reverse, max_epochs=4)
        assert ps4._identical(result, yours) and ps4.compare_float64(result, ps4._lifting(X1, y1, reverse=reverse,
                                                                                   max_epochs=4)) is None
    # A train_with_lifting written out, with split_offset a stub: the result alone is judged.
    exec("def split_offset(theta):\n    raise NotImplementedError()\n", namespace)
    exec("def train_with_lifting(X, y, *, max_epochs=100):\n"
         "    theta, n_mistakes, n_epochs = train_through_origin(np.c_[np.asarray(X, dtype=float), np.ones(len(X))], y,"
         " max_epochs=max_epochs)\n"
         "    return theta[:-1], float(theta[-1]), n_mistakes, n_epochs\n", namespace)
    result, yours = namespace["lifting_with_your_functions"](X1, y1)
    assert yours is None and ps4.compare_float64(result, ps4._lifting(X1, y1)) is None
    verdicts = {v.grade_id: v for v in evaluate_namespace(load_checks("ps4_offset"), namespace)}
    assert [g for g, v in verdicts.items() if not v.passed] == ["split_offset_values"]


def test_the_reversed_helper_leaves_the_names_as_it_found_them(source):
    namespace = namespace_from(source)
    exec("alias = train_through_origin", namespace)
    yours = namespace["train_through_origin"]
    X1, y1 = pl.one_dimensional_example()
    namespace["train_with_lifting_reversed"](X1, y1)
    assert namespace["train_through_origin"] is yours and namespace["alias"] is yours
    # A train_with_lifting that raises after calling the trainer: the names are restored all the same.
    exec("def raises(X, y, *, max_epochs=100):\n    train_through_origin(X, y)\n    raise ValueError('stop')\n",
         namespace)
    namespace["train_with_lifting"] = namespace["raises"]
    with pytest.raises(ValueError, match="stop"):
        namespace["train_with_lifting_reversed"](X1, y1)
    assert namespace["train_through_origin"] is yours and namespace["alias"] is yours
    with pytest.raises(ValueError, match="stop"):
        namespace["lifting_with_your_functions"](X1, y1, reverse=True)
    assert namespace["train_through_origin"] is yours and namespace["alias"] is yours
