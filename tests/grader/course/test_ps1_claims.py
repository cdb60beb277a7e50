"""What problem set 1 says about its data, proved; and its hidden checks accept every right answer.

The hidden cases of ``autograder/course/assignments/ps1_hyperplanes/checks.py`` describe their
inputs to the students ("separable points in 3-D", "a plane that does not separate them", "the
first two lie on the plane"), and the notebook's hints and model answers state facts about the
worked examples (every point of the four-point example is 1/sqrt(2) from the line x1 + x2 = 0, no
threshold at 0 separates the points 1, 2, 3, 4, the margin after multiplying by rho < 0). Each claim
is checked here by computation, in exact arithmetic where a point is said to lie on a plane: a
score that is exactly 0 must be 0 however a right answer computes it, or the hidden check would
depend on rounding. Points said to be just off the plane score as little as said, but not 0, with
the same sign however a right answer computes it. The notebook allows a guard against rounding noise
that treats as 0 only scores within 1e-8 of it: such guards keep every point, while the smallest of
these scores, 1.5e-8, makes rounding or any tolerance from 1.5e-8 up lose its cell.

The last tests run right implementations that the notebook's texts allow, written in other ways than
the solution, through the hidden checks: none may lose a point. The texts ask for "exactly the types
the docstrings describe": numpy arrays, of ints for the labels (any integer dtype), a float and a
bool; a list, or float labels, is not one of them (the visible tests refuse it too).
"""

import textwrap
from fractions import Fraction

import nbformat
import numpy as np
import pytest

import perceptron_lib as pl
from autograder.course.assignments.ps1_hyperplanes import checks as ps1
from autograder.judging.checks import FLOAT32_DIAGNOSIS, evaluate_namespace

from tests.support import COURSE

ASSIGNMENT = "ps1_hyperplanes"


def _exact(v):
    return tuple(Fraction(float(t)) for t in np.ravel(v))


def exact_scores(X, w, b=0.0):
    """The scores w . x + b of the rows of X, in exact arithmetic."""
    w, b = _exact(w), Fraction(float(b))
    return [sum(a * c for a, c in zip(w, _exact(x))) + b for x in np.atleast_2d(X)]


def float_scores(X, w, b=0.0):
    """The same scores computed in floating point in the ways a right answer may compute them."""
    X, w = np.asarray(X, dtype=float), np.asarray(w, dtype=float)
    norm = np.linalg.norm(w)
    return {
        "X @ w + b": X @ w + b,
        "(X @ w + b) / norm": (X @ w + b) / norm,
        "X @ (w / norm) + b / norm": X @ (w / norm) + b / norm,
        "np.dot(X, w) + b": np.dot(X, w) + b,
        "w @ X.T + b": w @ X.T + b,
        "(X * w).sum(axis=1) + b": (X * w).sum(axis=1) + b,
        "a loop over the rows": np.array([sum(float(a) * float(c) for a, c in zip(x, w)) + b for x in X]),
    }


def cases(grade_id):
    return {case.describe: case for check in ps1.CHECKS if check.grade_id == grade_id for case in check.cases}


def all_cases():
    return [(check.grade_id, check.function, case) for check in ps1.CHECKS for case in check.cases]


def plane_of(function, args):
    """``(X, y, w, b)`` of a case's arguments (``y`` is None for the functions without labels)."""
    if function in ("signed_distance", "side_of_plane"):
        X, w, *rest = args
        return X, None, w, (rest[0] if rest else 0.0)
    X, y, w, *rest = args
    return X, y, w, (rest[0] if rest else 0.0)


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

def test_the_separable_points_are_separated_with_the_stated_margin():
    X, y, w = ps1.X_sep, ps1.y_sep, ps1.w_star
    assert X.shape == (20, 3) and np.isclose(np.linalg.norm(w), 1.0)
    assert pl.margin(X, y, w) >= 0.2 and pl.margin(X, y, 2.5 * w) == pytest.approx(pl.margin(X, y, w))
    # 'away from the origin and a separating plane with an offset': the same points moved by (1, -2, 0.5).
    assert np.linalg.norm(ps1.X_shift.mean(axis=0)) > 2 and ps1.b_shift != 0
    assert pl.margin(ps1.X_shift, y, w, ps1.b_shift) == pytest.approx(pl.margin(X, y, w))
    # 'the normal vector pointing the wrong way', 'the opposite normal vector': every point on the wrong side.
    assert np.all(y * (X @ (-w)) < 0) and not pl.is_separated(X, y, -w)


def test_the_random_points_are_not_separated_by_their_plane():
    """'eight points in 3-D with random labels and a plane that does not separate them'."""
    X, y = ps1.X_rand, ps1.y_rand
    assert X.shape == (8, 3) and set(y.tolist()) == {-1.0, 1.0}
    assert not pl.is_separated(X, y, ps1.w_rand, 0.5) and pl.margin(X, y, ps1.w_rand, 0.5) < 0
    assert not any(s == 0 for s in exact_scores(X, ps1.w_rand, 0.5))


def test_the_four_point_example_and_its_lines():
    X, y = ps1.X4, ps1.y4
    # 'Every point is at distance 1/sqrt(2) from the line x1 + x2 = 0.'
    assert np.allclose(np.abs(pl.signed_distance(X, [1.0, 1.0])), 1 / np.sqrt(2))
    # 'The point (0, 1) is labelled +1 but lies on the negative side' of w = (1, -1), and one more point
    # is on the wrong side: 'a line that puts two points on the wrong side'.
    wrong = y * (X @ np.array([1.0, -1.0])) < 0
    assert wrong.sum() == 2 and [0.0, 1.0] in X[wrong].tolist()
    # 'a separating line whose normal is not along (1, 1)'
    assert pl.is_separated(X, y, [2.0, 0.5])
    # 'a line through two of its points': w = (1, 0), b = 0.
    assert sum(s == 0 for s in exact_scores(X, [1.0, 0.0])) == 2


def test_the_one_dimensional_example():
    X, y = ps1.X1, ps1.y1
    assert X.ravel().tolist() == [1.0, 2.0, 3.0, 4.0] and y.tolist() == [1, 1, -1, -1]
    # 'The threshold 2.5 is 0.5 away from the points 2 and 3.'
    assert pl.is_separated(X, y, [-1.0], 2.5) and pl.margin(X, y, [-1.0], 2.5) == 0.5
    # 'The points 3 and 4 are on the wrong side; the farther one, 4, is at distance 4.'
    assert pl.margin(X, y, [1.0]) == -4.0 and (y * X.ravel() < 0).tolist() == [False, False, True, True]
    # 'the plane goes through the point 2'
    assert exact_scores(X, [-1.0], 2.0)[1] == 0 and pl.margin(X, y, [-1.0], 2.0) == 0.0
    # 'a threshold at one of them': w = -1, b = 3.
    assert sum(s == 0 for s in exact_scores(X, [-1.0], 3.0)) == 1


def test_no_threshold_at_zero_separates_the_points_1_2_3_4():
    """Question E1: every w != 0 is a positive multiple of 1 or -1, and both fail with b = 0."""
    X, y = ps1.X1, ps1.y1
    for w in (1.0, -1.0):
        assert not pl.is_separated(X, y, [w]) and pl.margin(X, y, [w]) <= 0
        for c in (0.001, 0.5, 3.0, 1000.0):  # a positive multiple is the same classifier
            assert np.array_equal(pl.sign(X @ [c * w]), pl.sign(X @ [w]))
    # The model answer's other framing: the point 3 (labelled -1) is 1.5 times the point 2 (labelled +1).
    assert X[2, 0] == Fraction(3, 2) * X[1, 0] and y[1] == 1 and y[2] == -1


@pytest.mark.parametrize("grade_id, function, case", all_cases(), ids=lambda v: getattr(v, "describe", v))
def test_every_point_said_to_be_on_the_plane_scores_exactly_zero_however_it_is_computed(grade_id, function, case):
    X, y, w, b = plane_of(function, case.args)
    exact = exact_scores(X, w, b)
    zeros = [i for i, s in enumerate(exact) if s == 0]
    describe = case.describe
    expected_zeros = {
        "the points (3, 4), (0, 0), (1, 0.5) with w = (3, 4), b = -5": [2],
        "the points (1, 1), (2, 0), (0, 0) with w = (1, 1), b = -2": [0, 1],
        "two points on the line x1 + x2 = 0 and one off it, with b left at its default": [0, 1],
        "integer points, two of them on an integer plane in 3-D": [0, 1],
        "the points 1, 2, 3, 4 on a line and a threshold at one of them": [2],
        "the four-point example and a line through two of its points": [1, 2],
        "the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = -1, b = 2": [1],
        "integer points with every point on the right side but one exactly on the plane": [2],
        "points in 3-D on the side of their labels but one, labelled -1, exactly on the plane": [0],
    }
    if describe in expected_zeros:
        assert zeros == expected_zeros[describe], describe
        for how, scores in float_scores(X, w, b).items():
            assert [i for i, s in enumerate(scores) if s == 0] == zeros, (describe, how)
            assert [i for i, s in enumerate(scores) if s > 0] == [i for i, s in enumerate(exact) if s > 0], (describe, how)
    elif function != "signed_distance" and describe != "the points (3, 4), (0, 0), (-1, 2) and the plane 3 x1 + 4 x2 - 5 = 0":
        # Anywhere else, a point near the plane would make the answer depend on rounding; the points said to be
        # just off the plane are still farther from it than the guard against noise the notebook allows.
        near = describe in NEAR_THE_PLANE or describe in JUST_INSIDE_OR_OUTSIDE
        assert zeros == [] and min(abs(float(s)) for s in exact) > (NOISE_GUARD if near else 1e-6), describe
    if "but one exactly on the plane" in describe or "but one, labelled -1, exactly on the plane" in describe:
        assert all(y[i] * s > 0 for i, s in enumerate(exact) if i not in zeros), describe
    if "labelled -1, exactly on the plane" in describe:
        assert y[zeros[0]] == -1  # predicting the point's side and comparing it with its label accepts the plane
    if "separating" in describe or describe.startswith("separable points") and "wrong way" not in describe \
            and "opposite" not in describe:
        assert pl.is_separated(X, y, w, b), describe
    if "on the wrong side" in describe and y is not None and "two points" not in describe \
            and "(the point" not in describe:
        assert all(label * s < 0 for label, s in zip(y, exact)), describe
    for d in ("3-D", "4-D", "5-D"):
        if d in describe:
            assert np.shape(X)[1] == int(d[0]), describe
    if "integer" in describe:
        assert np.asarray(X).dtype.kind == "i" and np.asarray(w).dtype.kind == "i", describe
    if "without b" in describe or "b left at its default" in describe or "through the origin given without b" in describe:
        assert len(case.args) == (2 if y is None else 3), describe


# The most a guard against floating-point noise may treat as 0, as Parts B and D of the notebook say.
NOISE_GUARD = 1e-8

# Points just off the plane, and how small their scores are: ``sign`` and ``> 0`` must be strict there too.
NEAR_THE_PLANE = {
    "points 0.001 on either side of the line x1 = 0, with b left at its default": Fraction(1, 1000),
    "points in 3-D just off a plane with an offset, on both sides, with scores w . x + b of about +0.00001 and "
    "-0.00001": Fraction(1, 100000),
    "points 1.5e-8 on either side of the line x1 = 0, with b left at its default": Fraction(3, 200000000),
}
JUST_INSIDE_OR_OUTSIDE = {  # the description's point, its value, and its y (w . x + b)
    "the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = -1, b = 2.001 (the point 2 is 0.001 inside its side)":
        (1, Fraction(1, 1000)),
    "the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = -1, b = 2.99999 (the point 3 is 0.00001 inside its "
    "side)": (2, Fraction(1, 100000)),
    "the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = -1, b = 1.999 (the point 2 is 0.001 on the wrong "
    "side)": (1, -Fraction(1, 1000)),
    "the points 1, 2, 3, 4 labelled +1, +1, -1, -1 with w = -1, b = 2.000000015 (the point 2 is 1.5e-8 inside its "
    "side)": (1, Fraction(3, 200000000)),
}


@pytest.mark.parametrize("describe", NEAR_THE_PLANE)
def test_the_points_said_to_be_just_off_the_plane_have_scores_that_small_and_on_both_sides(describe):
    (case,) = [case for _, function, case in all_cases() if case.describe == describe]
    X, _, w, b = plane_of("side_of_plane", case.args)
    size, exact = NEAR_THE_PLANE[describe], exact_scores(X, w, b)
    # Every score is that small, but not 0, and about as far from 0 as said; both signs occur.
    assert all(s != 0 and abs(abs(s) - size) < size / 1000 for s in exact), describe
    assert {s > 0 for s in exact} == {True, False}
    assert ps1._side(X, w, b).tolist() == [1 if s > 0 else -1 for s in exact]
    for how, scores in float_scores(X, w, b).items():  # a right answer gets the same signs however it computes
        assert [s > 0 for s in scores] == [s > 0 for s in exact], (describe, how)
        assert [s < 0 for s in scores] == [s < 0 for s in exact], (describe, how)


@pytest.mark.parametrize("describe", JUST_INSIDE_OR_OUTSIDE)
def test_the_point_said_to_be_just_inside_or_outside_its_side_is_that_close(describe):
    (case,) = [case for grade_id, _, case in all_cases() if case.describe == describe and grade_id == "separates_values"]
    X, y, w, b = plane_of("separates", case.args)
    i, agreement = JUST_INSIDE_OR_OUTSIDE[describe]
    exact = [label * s for label, s in zip(_exact(y), exact_scores(X, w, b))]
    assert X[i, 0] == i + 1 and abs(exact[i] - agreement) < abs(agreement) / 1000, describe
    assert all(a > 100 * abs(agreement) for j, a in enumerate(exact) if j != i), describe  # every other point is far
    assert pl.is_separated(X, y, w, b) == (agreement > 0)
    for how, scores in float_scores(X, w, b).items():
        assert [label * s > 0 for label, s in zip(y, scores)] == [a > 0 for a in exact], (describe, how)


def test_the_scores_closest_to_the_plane_are_exactly_what_is_said(notebook):
    """The 1.5e-8 cases, exactly: every way of computing gives the same float, which is above the guard the
    notebook allows (1e-8) and below 1.5e-8, so a tolerance of 1.5e-8 or more rejects it; and the notebook, the
    hints and this file name the same guard."""
    tiny = 3 * Fraction(1, 200000000)
    # side_of_plane: w = (1, 0) is a unit normal, and every score is exactly the float nearest to +-1.5e-8.
    assert ps1.w_tiny.tolist() == [1.0, 0.0]
    assert exact_scores(ps1.X_tiny, ps1.w_tiny) == [Fraction(1.5e-8), -Fraction(1.5e-8), Fraction(1.5e-8),
                                                    -Fraction(1.5e-8)]
    assert abs(Fraction(1.5e-8) - tiny) < Fraction(1, 10 ** 23)
    for how, scores in float_scores(ps1.X_tiny, ps1.w_tiny).items():
        assert scores.tolist() == [1.5e-8, -1.5e-8, 1.5e-8, -1.5e-8], how
    # separates with w = -1, b = 2.000000015: the point 2 is 2.000000015 - 2 inside, which float64 gives as
    # 1.4999999908837935e-08 (b is the nearest float to 2.000000015; the subtraction is exact).
    (case,) = [c for _, f, c in all_cases() if f == "separates" and len(c.args) == 4 and c.args[3] == 2.000000015]
    X, y, w, b = case.args
    agreement = Fraction(b) - 2
    assert agreement == Fraction(1.4999999908837935e-08) and abs(agreement - tiny) < Fraction(1, 10 ** 16)
    for how, scores in float_scores(X, w, b).items():
        assert (y * scores).tolist()[1] == 1.4999999908837935e-08, how
    # In float32, b is 2 and the point 2 lies on the plane: 'a separates computed in float32 fails them'.
    assert np.float32(b) == 2.0
    assert "a `signed_distance`, a `margin` or a `separates` computed in float32 fails them" in cell_text(
        notebook, startswith="# Problem set 1")
    # Above the guard the notebook allows, and below every coarser tolerance from 1.5e-8 up.
    for size in (1.5e-8, 1.4999999908837935e-08):
        assert NOISE_GUARD < size <= 1.5e-8 and not np.isclose(size, 0.0)
    assert "within $10^{-8}$ of it, as `np.isclose(s, 0)` does" in cell_text(notebook, startswith="## Part B")
    assert "within $10^{-8}$ of it" in cell_text(notebook, startswith="## Part D")
    assert "farther than 1e-8 from it (np.isclose(s, 0)" in ps1.NEAR_HINT


def _variant(function, quantity, positive):
    """side_of_plane, or separates on y_i (w . x_i + b), that decides ``> 0`` by ``positive`` applied to q: the
    scores, or the signed distances."""
    q = "X @ w + b" if quantity == "scores" else "(X @ w + b) / np.linalg.norm(w)"
    if function == "side_of_plane":
        return f"""
            def side_of_plane(X, w, b=0.0):
                X, w = np.asarray(X, dtype=float), np.asarray(w, dtype=float)
                q = {q}
                return np.where({positive}, 1, -1)
            """
    return f"""
        def separates(X, y, w, b=0.0):
            X, w = np.asarray(X, dtype=float), np.asarray(w, dtype=float)
            q = np.asarray(y) * ({q})
            return bool(np.all({positive}))
        """


def _cells_lost(code):
    from autograder.commands.verify import namespace_from

    namespace = namespace_from(nbformat.read(f"{COURSE}/source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", as_version=4))
    exec(textwrap.dedent(code), namespace)
    return {v.grade_id for v in evaluate_namespace(ps1.CHECKS, namespace) if not v.passed}


COARSE = {  # rounding, or a tolerance coarser than the notebook's 1e-8 (checks.py's docstring)
    "rounded to four decimals": "np.round(q, 4) > 0",
    "rounded to five decimals": "np.round(q, 5) > 0",
    "rounded to seven decimals": "np.round(q, 7) > 0",
    "compared with a tolerance of 0.0001": "q > 1e-4",
    "compared with a tolerance of 1e-5": "q > 1e-5",
    "compared with a tolerance of 1e-6": "q > 1e-6",
    "compared with a tolerance of 1e-7": "q > 1e-7",
    "compared with a tolerance of 1.5e-8": "q > 1.5e-8",
    "zero when np.isclose with atol=1e-7 says so": "(q > 0) & ~np.isclose(q, 0.0, atol=1e-7)",
}
NOISE_GUARDS = {  # what the notebook allows: treating as 0 only what is within 1e-8 of it
    "compared with a tolerance of 1e-8": "q > 1e-8",
    "compared with a tolerance of 1e-9": "q > 1e-9",
    "zero when np.isclose says so (atol 1e-8)": "(q > 0) & ~np.isclose(q, 0.0)",
    "zero when its absolute value is at most 1e-8": "(q > 0) & (np.abs(q) > 1e-8)",
    "rounded to eight decimals (what is within 5e-9 of 0 becomes 0)": "np.round(q, 8) > 0",
}
FUNCTIONS = [("side_of_plane", "side_of_plane_values"), ("separates", "separates_values")]


@pytest.mark.parametrize("function, grade_id", FUNCTIONS)
@pytest.mark.parametrize("quantity", ["scores", "distances"])
@pytest.mark.parametrize("coarse", COARSE)
def test_rounding_or_a_coarser_tolerance_loses_the_cell_of_the_points_just_off_the_plane(function, grade_id,
                                                                                         quantity, coarse):
    """A side of the plane, or y_i (w . x_i + b) for separates, decided by a rounded or shifted value."""
    assert _cells_lost(_variant(function, quantity, COARSE[coarse])) == {grade_id}


@pytest.mark.parametrize("function, grade_id", FUNCTIONS)
@pytest.mark.parametrize("quantity", ["scores", "distances"])
@pytest.mark.parametrize("guard", NOISE_GUARDS)
def test_a_guard_against_rounding_noise_the_notebook_allows_loses_nothing(function, grade_id, quantity, guard):
    assert _cells_lost(_variant(function, quantity, NOISE_GUARDS[guard])) == set()


def test_a_margin_is_positive_exactly_when_the_plane_separates():
    """Part C: 'gamma > 0 exactly when the plane separates the data'."""
    for grade_id, function, case in all_cases():
        if function in ("margin", "separates"):
            X, y, w, b = plane_of(function, case.args)
            assert (pl.margin(X, y, w, b) > 0) == pl.is_separated(X, y, w, b), case.describe


def test_the_model_answer_of_e2_on_a_negative_c(notebook):
    """For rho < 0 the margin becomes -max_i y_i (w . x_i + b) / ||w||, which is -gamma only when every point has
    the same margin."""
    for X, y, w, b in [(ps1.X_sep, ps1.y_sep, ps1.w_star, 0.0), (ps1.X1, ps1.y1, np.array([-1.0]), 2.5),
                       (ps1.X_shift, ps1.y_sep, ps1.w_star, ps1.b_shift)]:
        distances = y * pl.signed_distance(X, w, b)
        for c in (-0.5, -3.0):
            assert pl.margin(X, y, c * w, c * b) == pytest.approx(-distances.max())
            assert np.allclose(pl.signed_distance(X, c * w, c * b), -pl.signed_distance(X, w, b))
        assert -distances.max() != pytest.approx(-pl.margin(X, y, w, b))
    # The exception the model answer names: -gamma is right when every point has the same margin.
    assert pl.margin(ps1.X4, ps1.y4, [-1.0, -1.0]) == pytest.approx(-pl.margin(ps1.X4, ps1.y4, [1.0, 1.0]))
    # Points on the plane keep the label -1: the integer plane in 3-D and its opposite.
    X, w, b = np.array([[1, 1, 1], [2, 2, 1], [0, 3, 0], [-1, -1, 2]]), np.array([1, -1, 2]), -2
    assert pl.sign(X @ w + b).tolist() == [-1, -1, -1, 1] and pl.sign(X @ -w - b).tolist() == [-1, -1, 1, -1]
    text = cell_text(notebook, "written_scaling")
    assert "$-\\max_i y_i\\, \\frac{w \\cdot x_i + b}{\\lVert w \\rVert}$" in text
    assert "minus the old *largest* margin" in text


def test_the_model_answer_of_e1_states_the_margin_the_functions_give(notebook):
    text = cell_text(notebook, "written_one_dimensional")
    assert pl.margin(ps1.X1, ps1.y1, [-1.0], 2.5) == 0.5 and "`margin` gives $0.5$" in text
    assert pl.is_separated(ps1.X1, ps1.y1, [-1.0], 2.5) and "`separates(X1, y1, np.array([-1.0]), 2.5)` is `True`" in text


# -- right answers never lose a point ---------------------------------------------------------------------------

RIGHT_ANSWERS = {
    "the unit normal first, np.sign with the zeros mended, the margin through signed_distance": """
        def signed_distance(X, w, b=0.0):
            w = np.asarray(w, dtype=float)
            unit = w / np.sqrt(np.sum(w ** 2))
            return np.asarray(X, dtype=float) @ unit + b / np.linalg.norm(w)

        def side_of_plane(X, w, b=0.0):
            labels = np.sign(np.dot(X, w) + b).astype(int)
            labels[labels == 0] = -1
            return labels

        def margin(X, y, w, b=0.0):
            return np.min(y * signed_distance(X, w, b))

        def separates(X, y, w, b=0.0):
            return margin(X, y, w, b) > 0
        """,
    "loops over the points and plain Python numbers, turned into arrays at the end": """
        def signed_distance(X, w, b=0.0):
            length = sum(float(v) ** 2 for v in w) ** 0.5
            return np.array([(sum(float(a) * float(c) for a, c in zip(x, w)) + b) / length for x in X])

        def side_of_plane(X, w, b=0.0):
            return np.array([1 if sum(float(a) * float(c) for a, c in zip(x, w)) + b > 0 else -1 for x in X])

        def margin(X, y, w, b=0.0):
            return min(float(label) * d for label, d in zip(y, signed_distance(X, w, b)))

        def separates(X, y, w, b=0.0):
            for x, label in zip(X, y):
                if label * (np.dot(x, w) + b) <= 0:
                    return False
            return True
        """,
    "a tolerance for floating-point noise, as np.isclose allows (1e-8)": """
        def side_of_plane(X, w, b=0.0):
            s = np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b
            return np.where((s > 0) & ~np.isclose(s, 0.0), 1, -1)

        def separates(X, y, w, b=0.0):
            agreement = np.asarray(y) * (np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b)
            return bool(np.all((agreement > 0) & ~np.isclose(agreement, 0.0)))
        """,
    "labels of a small integer dtype, and the separation through the margins of every point": """
        def side_of_plane(X, w, b=0.0):
            positive = np.einsum("ij,j->i", np.asarray(X, dtype=float), w) + b > 0
            return (2 * positive - 1).astype(np.int8)

        def separates(X, y, w, b=0.0):
            return bool(np.min(np.asarray(y) * (np.asarray(X) @ np.asarray(w) + b)) > 0)
        """,
}


@pytest.mark.parametrize("name", RIGHT_ANSWERS)
def test_a_right_answer_written_another_way_gets_every_point(name):
    from autograder.commands.verify import namespace_from

    source = nbformat.read(f"{COURSE}/source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", as_version=4)
    namespace = namespace_from(source)
    exec(textwrap.dedent(RIGHT_ANSWERS[name]), namespace)
    failed = [(v.grade_id, v.message) for v in evaluate_namespace(ps1.CHECKS, namespace) if not v.passed]
    assert failed == []


def test_e2_guide_a_margin_that_changes_sign_is_not_what_c_below_zero_does_to_a_plane_that_does_not_separate():
    """The E2 guide's counterexample: on the points 1, 2, 3, 4 labelled +1, +1, -1, -1, w = 1, b = 0 has the
    margin -4, and w = -1, b = 0 (rho = -1) the margin -2: negative both times, so the sign did not flip."""
    from perceptron_lib import margin

    X, y = np.array([[1.0], [2.0], [3.0], [4.0]]), np.array([1.0, 1.0, -1.0, -1.0])
    assert margin(X, y, np.array([1.0]), 0.0) == -4.0
    assert margin(X, y, np.array([-1.0]), 0.0) == -2.0


def test_a_signed_distance_computed_in_float32_is_told_why_it_loses(notebook):
    """'How to work' asks for float64: a signed_distance computed in float32 fails the hidden checks, and each
    cell it loses says that the values agree only to float32's precision, not only the hint on the formula."""
    from autograder.commands.verify import namespace_from

    assert "Compute in float64" in cell_text(notebook, startswith="# Problem set 1")
    namespace = namespace_from(nbformat.read(f"{COURSE}/source/{ASSIGNMENT}/{ASSIGNMENT}.ipynb", as_version=4))
    exec(textwrap.dedent("""
        def signed_distance(X, w, b=0.0):
            X, w = np.asarray(X, dtype=np.float32), np.asarray(w, dtype=np.float32)
            return ((X @ w + b) / np.linalg.norm(w)).astype(float)
        """), namespace)
    failed = [v for v in evaluate_namespace(ps1.CHECKS, namespace) if not v.passed]
    assert failed and all(FLOAT32_DIAGNOSIS in v.message for v in failed)
