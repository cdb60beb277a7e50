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

Part C is graded through ``lifting_with_your_functions``, a function of a locked cell of the notebook:
the hidden checks pass it the right answers of Parts A and B on each case, as data, and it calls the
student's ``train_with_lifting`` with the names ``absorb_offset``, ``train_through_origin`` and
``split_offset`` (and their aliases) bound, for that call, to stand-ins that return those answers on
exactly the case's inputs and call the student's functions on any other, with ``train_through_origin``'s
stand-in returning the run that visits the examples in reverse order when ``reverse=True``
(``train_with_lifting_reversed``).  The locked cell holds no implementation of Parts A and B: the students
receive it.  The last tests check that the reverse order tells a training loop of
the student's own from the method the part asks for on every case it is used on; that a mistake in Part A
or B of any kind (a stub, a shuffled order, ``max_epochs`` ignored, wrong types) costs its own cell only;
that a ``train_with_lifting`` of the student's own mistakes (``max_epochs`` dropped, a pasted loop) loses
Part C whatever Parts A and B hold; that right answers written differently, converting their results
too, still get full marks; that the helper leaves the notebook's names as it found them; and what is not
caught: a cell that defines the locked helper again is only flagged, ``redefines-locked``.

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
    in_order = ps4._with_offset(*case.args[:2], **kwargs)
    assert compare_values(in_order, check.expected(*case.args, **case.kwargs)) is not None


def test_each_part_c_cell_judges_train_with_lifting_only_with_the_right_functions_of_parts_a_and_b():
    # Every check of Part C calls train_with_lifting through the locked helper, never directly: a direct call would
    # run the student's Parts A and B, and a mistake there would cost Part C's points.
    for grade_id in ("lifting_one_dimensional", "lifting_general"):
        forward, backward = [c for c in load_checks("ps4_offset") if c.grade_id == grade_id]
        assert forward.function == backward.function == "lifting_with_your_functions"
        assert not forward.allow_mutation and not backward.allow_mutation
        assert reverses(backward) and not any(k.kwargs.get("reverse") for k in forward.cases)
        # Hidden: a failure would show the reference's values.
        assert not any(k.visible for k in forward.cases + backward.cases)
    # Each case carries the right answers of Parts A and B on its data, as perceptron_lib computes them, for the
    # case's max_epochs: the lifted points, then forwards and backwards the run through the origin and its split.
    for check in part_c_checks():
        for case in check.cases:
            X, y, (Z, forwards, backwards) = case.args
            max_epochs = case.kwargs.get("max_epochs", 100)
            assert Z.dtype == np.float64 and np.array_equal(Z, np.column_stack([X, np.ones(len(X))]))
            for (theta, n_mistakes, n_epochs), (w, b), order in ((*forwards, slice(None)),
                                                                 (*backwards, slice(None, None, -1))):
                run = pl.train_perceptron(Z[order], np.asarray(y)[order], fit_intercept=False, max_epochs=max_epochs)
                assert np.array_equal(theta, run.w) and (n_mistakes, n_epochs) == (run.n_mistakes, run.n_epochs)
                assert type(n_mistakes) is int and type(n_epochs) is int and type(b) is float
                assert np.array_equal(w, theta[:-1]) and b == theta[-1]


@pytest.mark.parametrize("got, accepted", [
    ((np.array([-3.0]), 7.0, 25, 11), True),                          # the perceptron with an offset
    ((np.array([-3.0]), np.float64(7.0), np.int64(25), 11), True),   # NumPy scalars
    ([np.array([-3.0]), 7.0, 25, 11], True),                          # a list of the four values
    ((np.array([-3.0]), 7, 25, 11), False),                           # an integer b
    ((np.array([-2.0]), 5.0, 17, 11), False),                         # another run
    ((np.array([-3.0]), np.array(7.0), 25, 11), False),               # b as an array of shape ()
    ((np.array([-3.0]), np.array([7.0]), 25, 11), False),             # b as an array of shape (1,)
    ((np.array([-3.0], dtype=np.float32), 7.0, 25, 11), False),
    ((np.array([-3.0]), 7.0, 25.0, 11), False),                       # a whole-number float count
])
def test_part_c_accepts_the_offset_perceptron_only(got, accepted):
    X1, y1 = pl.one_dimensional_example()
    assert (ps4._judged(reverse=False)(got, ps4._lifting(X1, y1)) is None) == accepted


# A mistake in Part A or B, with the solution's train_with_lifting: its own cell fails, Part C keeps its points.
# Each is known_wrong.py's implementation of that name (the code verify runs on every change).
PART_A_OR_B_MISTAKES = {
    "train_through_origin folds the labels into X once, in place":
        ("train_through_origin_values", "origin_folds_the_labels_into_X_once_in_place"),
    "train_through_origin returns theta as a list": ("train_through_origin_values", "origin_returns_theta_as_a_list"),
    "train_through_origin tests with sign(0) = +1":
        ("train_through_origin_values", "origin_predicts_plus_one_on_the_plane"),
    "train_through_origin tests strictly, unless theta is zero":
        ("train_through_origin_values", "origin_strict_test_unless_theta_is_zero"),
    "split_offset returns b as an array of shape ()": ("split_offset_values", "split_offset_offset_as_a_0d_array"),
    "split_offset returns b as a numpy float32": ("split_offset_values", "split_offset_offset_as_float32"),
    "absorb_offset lifts in float32": ("absorb_offset_values", "absorb_offset_in_float32"),
    "absorb_offset puts the ones first": ("absorb_offset_values", "absorb_offset_prepends_the_ones"),
    "absorb_offset returns a flat array, on which train_through_origin raises":
        ("absorb_offset_values", "absorb_offset_flattens"),
    "absorb_offset writes into the caller's X": ("absorb_offset_values", "absorb_offset_overwrites_the_last_column"),
    "train_through_origin shuffles the examples every epoch":
        ("train_through_origin_values", "origin_shuffles_every_epoch_beside_a_right_lifting"),
}


@pytest.mark.parametrize("name", sorted(PART_A_OR_B_MISTAKES))
def test_a_mistake_in_part_a_or_b_costs_its_own_cell_and_not_part_c(source, name):
    cell, known = PART_A_OR_B_MISTAKES[name]
    wrong = {w.name: w for w in load_known_wrong("ps4_offset")}[known]
    namespace = namespace_from(source)
    exec(compile(textwrap.dedent(wrong.code()), name, "exec"), namespace)
    failed = [v.grade_id for v in evaluate_namespace(load_checks("ps4_offset"), namespace) if not v.passed]
    assert failed == [cell]
    # known_wrong.py names that cell alone, so that verify proves it on every change.
    assert wrong.must_fail == (cell,)


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
    "the results converted to the docstring's types": """
        def train_with_lifting(X, y, *, max_epochs=100):
            theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y, max_epochs=max_epochs)
            w, b = split_offset(theta)
            return np.asarray(w, dtype=float), float(b), int(n_mistakes), int(n_epochs)
        """,
    "a helper of its own that calls train_through_origin by name": """
        def fit_lifted(Z, y, max_epochs):
            return train_through_origin(Z, y, max_epochs=max_epochs)

        def train_with_lifting(X, y, *, max_epochs=100):
            theta, n_mistakes, n_epochs = fit_lifted(absorb_offset(X), y, max_epochs)
            w, b = split_offset(theta)
            return w, b, n_mistakes, n_epochs
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


PART_C = ("lifting_one_dimensional", "lifting_general")


def part_c_checks():
    return [c for c in load_checks("ps4_offset") if c.grade_id in PART_C]


@pytest.mark.parametrize("stubs", [("absorb_offset",), ("split_offset",), ("train_through_origin",),
                                   ("absorb_offset", "split_offset", "train_through_origin")])
def test_stubs_of_parts_a_and_b_cost_part_c_nothing(source, stubs):
    namespace = namespace_from(source)
    for name in stubs:
        exec(f"def {name}(*args, **kwargs):\n    raise NotImplementedError()\n", namespace)
    verdicts = evaluate_namespace(load_checks("ps4_offset"), namespace)
    failed = {v.grade_id for v in verdicts if not v.passed}
    assert failed == {f"{name}_values" for name in stubs}


def test_a_train_through_origin_that_ignores_max_epochs_costs_part_c_nothing(source):
    # It never returns on data that never converge (Part B's own cell runs out of time on them); Part C's checks
    # never call it.
    namespace = namespace_from(source)
    exec("def train_through_origin(X, y, *, max_epochs=100):\n"
         "    while True:\n"
         "        pass\n", namespace)
    assert all(v.passed for v in evaluate_namespace(part_c_checks(), namespace, seconds_per_call=1))


def test_a_stub_of_train_with_lifting_says_where_the_exception_comes_from(source):
    namespace = namespace_from(source)
    exec("def train_with_lifting(X, y, *, max_epochs=100):\n    raise NotImplementedError()\n", namespace)
    verdicts = {v.grade_id: v for v in evaluate_namespace(load_checks("ps4_offset"), namespace)}
    assert {g for g, v in verdicts.items() if not v.passed} == set(PART_C)
    for grade_id in PART_C:
        message = verdicts[grade_id].message
        assert message.startswith("lifting_with_your_functions raised NotImplementedError"), message
        assert message.endswith(ps4.CALLED) and "calls your train_with_lifting" in ps4.CALLED


def test_part_c_s_wrong_answers_carry_the_hint_and_not_the_note_on_exceptions(source):
    namespace = namespace_from(source)
    exec("def train_with_lifting(X, y, *, max_epochs=100):\n"
         "    theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y, max_epochs=max_epochs)\n"
         "    return theta[:-1], -float(theta[-1]), n_mistakes, n_epochs\n", namespace)
    verdicts = {v.grade_id: v for v in evaluate_namespace(load_checks("ps4_offset"), namespace)}
    message = verdicts["lifting_one_dimensional"].message
    assert message.startswith("On the points 1, 2, 3, 4 labelled +1, +1, -1, -1, lifting_with_your_functions called "
                              "your train_with_lifting with right absorb_offset, train_through_origin and "
                              "split_offset in place of yours, and found that it returned, as value 2 of its "
                              "result, the wrong number."), message
    assert message.endswith(ps4.LIFTING_HINT)


# train_with_lifting's own mistakes lose Part C whatever Parts A and B hold: with Part B's backwards order or
# hard-coded epochs, which agreed with them when Part C ran the student's Part B, and with Part A stubs.
OWN_MISTAKES = {
    "lifting_is_a_pasted_loop_and_origin_visits_backwards": ("train_through_origin_values",),
    "lifting_ignores_max_epochs_and_origin_hard_codes_100_epochs": ("train_through_origin_values",),
    "lifting_ignores_max_epochs_and_absorb_offset_appends_zeros": ("absorb_offset_values",),
}


@pytest.mark.parametrize("name", sorted(OWN_MISTAKES))
def test_a_mistake_of_train_with_lifting_loses_part_c_beside_any_part_a_or_b(source, name):
    known = {w.name: w for w in load_known_wrong("ps4_offset")}[name]
    assert known.must_fail == OWN_MISTAKES[name] + PART_C
    namespace = namespace_from(source)
    exec(compile(textwrap.dedent(known.source), name, "exec"), namespace)
    failed = [v.grade_id for v in evaluate_namespace(load_checks("ps4_offset"), namespace) if not v.passed]
    assert failed == list(OWN_MISTAKES[name] + PART_C)


@pytest.mark.parametrize("reverse", [False, True])
def test_the_locked_helper_runs_train_with_lifting_with_the_right_functions(source, reverse):
    namespace = namespace_from(source)
    X1, y1 = pl.one_dimensional_example()
    answers = ps4._answers(X1, y1, max_epochs=4)
    expected = ps4._lifting(X1, y1, reverse=reverse, max_epochs=4)
    result = namespace["lifting_with_your_functions"](X1, y1, answers, reverse=reverse, max_epochs=4)
    assert ps4.compare_float64(result, expected) is None
    # The student's Parts A and B are not what runs: stubs change nothing.
    for name in ("absorb_offset", "split_offset", "train_through_origin"):
        exec(f"def {name}(*args, **kwargs):\n    raise NotImplementedError()\n", namespace)
    result = namespace["lifting_with_your_functions"](X1, y1, answers, reverse=reverse, max_epochs=4)
    assert ps4.compare_float64(result, expected) is None
    if reverse:
        result = namespace["train_with_lifting_reversed"](X1, y1, answers, max_epochs=4)
        assert ps4.compare_float64(result, expected) is None
    # On every case of Part C, the stand-ins of the locked cell, with the case's answers, give what the perceptron
    # with an offset of perceptron_lib gives.
    namespace = namespace_from(source)
    for check in part_c_checks():
        for case in check.cases:
            got = namespace["lifting_with_your_functions"](*case.args, **case.kwargs)
            assert ps4.compare_float64(got, check.expected(*case.args, **case.kwargs)) is None, case.describe


def test_the_released_notebook_holds_no_implementation_of_parts_a_and_b():
    # Students receive every cell of the release: no cell but the answer cells (stubs there) may define absorb_offset,
    # split_offset or train_through_origin, or lift, train or split; Part C's locked cell gets the answers as data.
    release = nbformat.read(f"{COURSE}/release/ps4_offset/ps4_offset.ipynb", as_version=4)
    code = [c for c in release.cells if c.cell_type == "code"]
    answer_cells = [c for c in code if c.metadata.get("nbgrader", {}).get("solution")]
    assert {c.metadata["nbgrader"]["grade_id"] for c in answer_cells} == {
        "absorb_offset", "split_offset", "train_through_origin", "train_with_lifting"}
    assert all("raise NotImplementedError()" in c.source and "### BEGIN SOLUTION" not in c.source
               for c in answer_cells)
    others = "\n".join(c.source for c in code if c not in answer_cells)
    for name in ("absorb_offset", "split_offset", "train_through_origin"):
        assert f"def {name}(" not in others and f"{name} = " not in others
    helper = next(c.source for c in code
                  if c.metadata.get("nbgrader", {}).get("grade_id") == "train_with_lifting_reversed")
    for sign in ("np.ones", "hstack", "concatenate", "column_stack", "np.zeros", "while ", "+=", "[:-1]", "[-1]",
                 "import", "perceptron_lib"):
        assert sign not in helper, sign


def test_the_locked_helper_returns_the_answers_it_is_given_and_calls_yours_on_other_inputs(source):
    # Made-up answers come back as they are, so the helper computes none of them; on any other input than the
    # case's (other points, other labels, another max_epochs) the student's function runs, here a stub.
    namespace = namespace_from(source)
    for name in ("absorb_offset", "split_offset", "train_through_origin"):
        exec(f"def {name}(*args, **kwargs):\n    raise NotImplementedError('yours')\n", namespace)
    X1, y1 = pl.one_dimensional_example()
    fake = (np.array([[9.0, 8.0], [7.0, 6.0], [5.0, 4.0], [3.0, 2.0]]), ((np.array([1.0, 2.0]), 7, 3), (np.array([5.0]), 6.0)),
            ((np.array([3.0, 4.0]), 8, 2), (np.array([0.5]), 0.25)))
    helper = namespace["lifting_with_your_functions"]
    assert ps4.compare_float64(helper(X1, y1, fake), (np.array([5.0]), 6.0, 7, 3)) is None
    assert ps4.compare_float64(helper(X1, y1, fake, reverse=True), (np.array([0.5]), 0.25, 8, 2)) is None
    assert ps4.compare_float64(helper(X1, y1, fake, max_epochs=100), (np.array([5.0]), 6.0, 7, 3)) is None
    # A train_with_lifting that hands a stand-in other points or other labels than the case's gets the stub.
    for call in ("train_through_origin(absorb_offset(2 * X), y, max_epochs=max_epochs)",
                 "train_through_origin(absorb_offset(X), -y, max_epochs=max_epochs)",
                 "train_through_origin(absorb_offset(X)[::-1], y[::-1], max_epochs=max_epochs)",
                 "train_through_origin(absorb_offset(X), y, max_epochs=max_epochs)[0] + 1.0, 0, 0"):
        exec("def train_with_lifting(X, y, *, max_epochs=100):\n"
             f"    theta, n_mistakes, n_epochs = {call}\n"
             "    w, b = split_offset(theta)\n"
             "    return w, b, n_mistakes, n_epochs\n", namespace)
        for reverse in (False, True):
            with pytest.raises(NotImplementedError, match="yours"):
                helper(X1, y1, fake, reverse=reverse)
    # The lifted points (one feature here) with their columns swapped and negated: theta is moved the same way.
    exec("def train_with_lifting(X, y, *, max_epochs=100):\n"
         "    Z = -absorb_offset(X)[:, ::-1]\n"
         "    theta, n_mistakes, n_epochs = train_through_origin(Z, y, max_epochs=max_epochs)\n"
         "    return -theta[1:], -float(theta[0]), n_mistakes, n_epochs\n", namespace)
    assert ps4.compare_float64(helper(X1, y1, fake), (np.array([1.0]), 2.0, 7, 3)) is None
    # A train_with_lifting that drops max_epochs hands the trainer's stand-in the default: another input.
    exec("def train_with_lifting(X, y, *, max_epochs=100):\n"
         "    theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y)\n"
         "    w, b = split_offset(theta)\n"
         "    return w, b, n_mistakes, n_epochs\n", namespace)
    assert ps4.compare_float64(helper(X1, y1, fake), (np.array([5.0]), 6.0, 7, 3)) is None
    with pytest.raises(NotImplementedError, match="yours"):
        helper(X1, y1, fake, max_epochs=5)


def test_the_answers_written_in_the_visible_tests_of_part_c_are_right(source):
    # The visible tests pass the answers of Parts A and B as numbers: a wrong number there would not show with a
    # right Part A and B (the stand-ins would then call them), so each is compared with perceptron_lib's here.
    namespace = namespace_from(source)
    seen = []
    helper = namespace["lifting_with_your_functions"]

    def recording(X, y, answers, **kwargs):
        seen.append((np.array(X), np.array(y), answers, kwargs.get("max_epochs", 100)))
        return helper(X, y, answers, **kwargs)

    namespace["lifting_with_your_functions"] = recording
    for grade_id in PART_C:
        cell = next(c.source for c in source.cells if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
        exec(cell[:cell.index("### BEGIN HIDDEN TESTS")], namespace)
    assert len(seen) == 2
    for X, y, (Z, forwards, backwards), max_epochs in seen:
        (Z_right, forwards_right, backwards_right) = ps4._answers(X, y, max_epochs=max_epochs)
        assert np.array_equal(Z, Z_right) and Z.dtype == np.float64
        for given, right in ((forwards, forwards_right), (backwards, backwards_right)):
            (theta, n_mistakes, n_epochs), (w, b) = given
            assert ps4.compare_float64((theta, n_mistakes, n_epochs, w, b), (*right[0], *right[1])) is None
            assert np.array_equal(theta, right[0][0]) and np.array_equal(w, right[1][0]) and b == right[1][1]


def test_the_locked_helper_leaves_the_names_as_it_found_them(source):
    namespace = namespace_from(source)
    exec("alias = train_through_origin\ndel split_offset", namespace)
    yours = {name: namespace[name] for name in ("absorb_offset", "train_through_origin", "alias")}
    seen = {}
    exec("def train_with_lifting(X, y, *, max_epochs=100):\n"
         "    seen.update(absorb_offset=absorb_offset, alias=alias, split_offset=split_offset)\n"
         "    theta, n_mistakes, n_epochs = alias(absorb_offset(X), y, max_epochs=max_epochs)\n"
         "    w, b = split_offset(theta)\n"
         "    return w, b, n_mistakes, n_epochs\n", namespace)
    namespace["seen"] = seen
    X1, y1 = pl.one_dimensional_example()
    # An alias of train_through_origin is rebound too, so the run is the reversed one; a missing split_offset
    # is supplied for the call, then removed.
    result = namespace["train_with_lifting_reversed"](X1, y1, ps4._answers(X1, y1))
    assert ps4.compare_float64(result, ps4._lifting(X1, y1, reverse=True)) is None
    assert seen["absorb_offset"] is not yours["absorb_offset"] and seen["alias"] is not yours["alias"]
    assert {name: namespace[name] for name in yours} == yours and "split_offset" not in namespace
    # A train_with_lifting that raises after calling the trainer: the names are restored all the same.
    exec("def raises(X, y, *, max_epochs=100):\n    train_through_origin(X, y)\n    raise ValueError('stop')\n",
         namespace)
    namespace["train_with_lifting"] = namespace["raises"]
    for reverse in (False, True):
        with pytest.raises(ValueError, match="stop"):
            namespace["lifting_with_your_functions"](X1, y1, ps4._answers(X1, y1), reverse=reverse)
        assert {name: namespace[name] for name in yours} == yours and "split_offset" not in namespace


def test_what_part_c_does_not_catch_a_cell_that_defines_the_locked_helper_again_is_only_flagged(source):
    from autograder.judging.integrity import locked_definitions, scan_code

    release = nbformat.read(f"{COURSE}/release/ps4_offset/ps4_offset.ipynb", as_version=4)
    locked = locked_definitions(release)
    assert {"lifting_with_your_functions", "train_with_lifting_reversed"} <= set(locked)
    faked = ("def lifting_with_your_functions(X, y, answers, *, reverse=False, **kwargs):\n"
             "    return train_with_lifting(X[::-1], y[::-1], **kwargs) if reverse else train_with_lifting(X, y, **kwargs)")
    assert [f.code for f in scan_code([("cell 19", faked)], locked)] == ["redefines-locked"]
    # The checks call what the name refers to: with a pasted loop, Part C passes. The flag is the instructor's cue.
    namespace = namespace_from(source)
    pasted = {w.name: w for w in load_known_wrong("ps4_offset")}["lifting_is_a_pasted_training_loop"].source
    exec(compile(textwrap.dedent(pasted), "pasted", "exec"), namespace)
    exec(faked, namespace)
    assert all(v.passed for v in evaluate_namespace(load_checks("ps4_offset"), namespace))


def test_the_notebook_says_what_part_c_catches(source):
    text = next(c.source for c in source.cells if c.source.startswith("## Part C"))
    for claim in ("the right results of Parts A and B on the test's data",
                  "So a mistake in Part A or B,\nof any kind, costs points only in its own part.",
                  "the run that visits the examples in reverse order",
                  "and pass `max_epochs` on to it.",
                  "raises, does not return within the time a test allows, or changes its inputs.",
                  "grading reports such a cell to your instructor."):
        assert claim in text, claim


@pytest.mark.parametrize("value", [99, 101])
def test_a_train_with_lifting_with_another_default_max_epochs_loses_part_c(source, value):
    # The hidden checks call train_with_lifting only through the locked helper, which verify's check of defaults
    # does not see. On the cases that leave max_epochs out, the trainer's stand-in is handed another max_epochs
    # than its answers', so the student's own trainer runs, in the given order: the reversed cases of both cells
    # fail, and so does the forward XOR case, whose answer depends on max_epochs.
    namespace = namespace_from(source)
    exec(f"def train_with_lifting(X, y, *, max_epochs={value}):\n"
         "    theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y, max_epochs=max_epochs)\n"
         "    w, b = split_offset(theta)\n"
         "    return w, b, n_mistakes, n_epochs\n", namespace)
    failed = [v.grade_id for v in evaluate_namespace(load_checks("ps4_offset"), namespace) if not v.passed]
    assert failed == list(PART_C)
