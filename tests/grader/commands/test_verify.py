"""``python -m autograder verify``: it passes on every assignment and reports a weakened one.

The fast tests weaken problem set 4 in memory (cases cut, a known-wrong
implementation dropped, a solution line planted in a release, a heading's
points changed) and check that the requirement concerned reports it, in
words that say what to fix.  The slow tests run the command itself: on every
assignment of the course (exit 0; the run is the ``course_verification``
fixture's, whose tables ``tests/grader/course/test_assignments.py`` reads
too), and on a copy of the autograder package whose hidden check for
``train_with_lifting`` lost its cases with ``max_epochs``, so that a
known-wrong implementation ignoring ``max_epochs`` no longer loses points
(exit 1, and the table says which).  Executing the notebooks is covered by
``tests/grader/course/test_assignments.py``, which runs the same requirement
functions.
"""

import copy
import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tempfile

import nbformat
import pytest

from autograder.commands import verify

from tests.support import COURSE, ROOT
PS4 = "ps4_offset"

pytestmark = pytest.mark.timeout(600)

# Appended to a copy of autograder/course/assignments/ps4_offset/checks.py: Part C's cases that pass max_epochs are cut.
WEAKENING = '''

import dataclasses as _dataclasses

CHECKS = [_dataclasses.replace(c, cases=[k for k in c.cases if "max_epochs" not in k.kwargs])
          if c.function == "lifting_with_your_functions" else c for c in CHECKS]
'''


def without_max_epochs(checks, function):
    return [dataclasses.replace(c, cases=[k for k in c.cases if "max_epochs" not in k.kwargs])
            if c.function == function else c for c in checks]


@pytest.fixture
def ps4(tmp_path):
    """Problem set 4 as it is, with an empty folder standing for its release."""
    with verify.Assignment(PS4, COURSE, release_dir=str(tmp_path)) as assignment:
        yield assignment


def test_every_fast_requirement_holds_on_problem_set_4(ps4):
    for requirement in verify.REQUIREMENTS:
        if requirement in (verify.blank_release_gets_zero,):
            continue  # needs a real release: see the slow tests
        outcome = requirement(ps4)
        assert outcome.ok, (outcome.requirement, outcome.problems)


def test_a_check_that_no_longer_catches_a_known_wrong_implementation_is_reported(ps4):
    # Part C is checked through its locked helper, lifting_with_your_functions: weaken it.
    ps4.checks = without_max_epochs(ps4.checks, "lifting_with_your_functions")
    outcome = verify.known_wrong_lose_exactly_their_cells(ps4)
    # The trainers that miscount epochs are caught by the same cases, so they are reported too.
    assert ("lifting_ignores_max_epochs passes lifting_one_dimensional, lifting_general, which must reject it"
            in outcome.problems)
    assert not outcome.ok


def test_a_known_wrong_implementation_that_loses_more_than_it_names_is_reported(ps4):
    name = "lifting_ignores_max_epochs_and_absorb_offset_appends_zeros"
    wrong = next(w for w in ps4.known_wrong if w.name == name)
    ps4.known_wrong = [dataclasses.replace(wrong, must_fail=("absorb_offset_values",))]
    (problem,) = verify.known_wrong_lose_exactly_their_cells(ps4).problems
    assert problem.startswith(f"{name} also fails lifting_one_dimensional, lifting_general, "
                              "which it does not name (On the points 1, 2, 3, 4")


def with_source_replaced(notebook, old, new):
    """A copy of ``notebook`` with the one occurrence of ``old`` in its code cells replaced by ``new``."""
    changed = copy.deepcopy(notebook)
    cells = [c for c in changed.cells if c.cell_type == "code" and old in c.source]
    assert len(cells) == 1, f"{old!r} is in {len(cells)} code cells"
    cells[0].source = cells[0].source.replace(old, new)
    return changed


def with_changed_default(notebook, function, parameter, value):
    """A copy of ``notebook`` whose answer defines ``function`` with ``parameter`` defaulting to ``value``."""
    changed = copy.deepcopy(notebook)
    cell = next(c for c in changed.cells if c.cell_type == "code" and f"def {function}(" in c.source)
    signature = re.search(rf"^def {function}\(.*\):$", cell.source, re.M)
    assert signature, f"{function}'s signature is not on one line of its cell"
    line, count = re.subn(rf"\b{parameter}=[^,)]+", f"{parameter}={value!r}", signature.group(0))
    assert count == 1, f"{function} has no default for {parameter}: {signature.group(0)}"
    cell.source = cell.source.replace(signature.group(0), line)
    return changed


@pytest.mark.parametrize("assignment, function, parameter, value", [
    ("ps2_online_perceptron", "train_perceptron", "max_epochs", 101),
    ("ps2_online_perceptron", "training_errors", "max_epochs", 101),
    ("ps4_offset", "train_through_origin", "max_epochs", 101),
    ("ps4_offset", "train_with_lifting", "max_epochs", 101),
    ("ps5_voted_averaged", "train_voted", "max_epochs", 11),
    ("ps5_voted_averaged", "train_averaged", "max_epochs", 11),
])
def test_a_solution_whose_default_is_one_off_the_stated_one_loses_points(assignment, function, parameter, value,
                                                                          tmp_path):
    with verify.Assignment(assignment, COURSE, release_dir=str(tmp_path)) as a:
        verdicts = a.verdicts(with_changed_default(a.source, function, parameter, value))
    assert [gid for gid, v in verdicts.items() if not v.passed], \
        f"{function}({parameter}={value}) gets full marks in {assignment}"


def test_a_default_the_hidden_cases_cannot_tell_from_its_neighbours_is_reported(ps4):
    # Every case passes max_epochs: a solution whose default is 99 or 101 gets full marks.
    ps4.checks = [dataclasses.replace(c, cases=[dataclasses.replace(k, kwargs={**k.kwargs, "max_epochs": 100})
                                                for k in c.cases])
                  if c.function == "train_through_origin" else c for c in ps4.checks]
    assert verify.defaults_matter(ps4).problems == tuple(
        f"train_through_origin(max_epochs=100): the solution with max_epochs={value} gets full marks; add a hidden "
        "case that leaves max_epochs out and whose answer depends on it" for value in (99, 101))


def test_every_default_of_problem_set_4_matters(ps4):
    outcome = verify.defaults_matter(ps4)
    assert outcome.problems == ()
    # train_through_origin's max_epochs; train_with_lifting's is called only through the locked helper, so
    # tests/grader/course/test_ps4_claims.py proves that a changed default loses Part C.
    assert outcome.covered == "1 defaults, 2 changed values"


def test_a_default_that_is_not_a_number_needs_a_hidden_case_that_leaves_it_out(ps4):
    # An expression cannot be changed by one step: its argument must at least be left out by a hidden case.
    ps4.source = with_source_replaced(ps4.source, "def train_through_origin(X, y, *, max_epochs=100):",
                                      "def train_through_origin(X, y, *, max_epochs=10 ** 2):")
    ps4.checks = [dataclasses.replace(c, cases=[dataclasses.replace(k, kwargs={**k.kwargs, "max_epochs": 100})
                                                for k in c.cases])
                  if c.function == "train_through_origin" else c for c in ps4.checks]
    assert verify.defaults_matter(ps4).problems == (
        "train_through_origin(max_epochs=10 ** 2): no hidden case leaves max_epochs out, "
        "so a wrong default value would pass",)


def test_a_changed_default_keeps_the_rest_of_the_cell():
    answer = {"nbgrader": {"solution": True, "grade": False, "grade_id": "f", "locked": False}}
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "### BEGIN SOLUTION\n# é: a comment before\ndef f(x, y=3, *, z=-0.5, w=True):  # ü\n    return x\n"
        "### END SOLUTION", metadata=answer)])
    assert verify.with_default(notebook, "f", "z", -1.0).cells[0].source == (
        "### BEGIN SOLUTION\n# é: a comment before\ndef f(x, y=3, *, z=-1.0, w=True):  # ü\n    return x\n"
        "### END SOLUTION")
    assert "def f(x, y=4, *, z=-0.5, w=True):" in verify.with_default(notebook, "f", "y", 4).cells[0].source
    assert notebook.cells[0].source.count("y=3") == 1


def test_a_test_cell_with_only_visible_cases_is_reported(ps4):
    ps4.checks = [dataclasses.replace(c, cases=[k for k in c.cases if k.visible])
                  if c.grade_id == "split_offset_values" else c for c in ps4.checks]
    assert verify.every_cell_has_hidden_cases(ps4).problems == (
        "split_offset_values has only visible cases: add hidden ones",)


def test_a_test_cell_no_known_wrong_implementation_fails_is_reported(ps4):
    ps4.known_wrong = [w for w in ps4.known_wrong if "split_offset_values" not in w.must_fail]
    assert verify.every_cell_catches_a_known_wrong(ps4).problems == (
        "no known-wrong implementation is caught by split_offset_values",)


def test_a_solution_line_in_the_release_is_a_leak(ps4, tmp_path):
    # The import is in a read-only cell too; the return line only in a solution.
    (tmp_path / "notes.txt").write_text("import numpy as np\nreturn theta[:-1].copy(), float(theta[-1])\n")
    outcome = verify.nothing_leaks(ps4)
    assert outcome.problems == (
        f"{tmp_path.name}/notes.txt: solution: notebooks/source/{PS4}/{PS4}.ipynb, solution in split_offset "
        "(1 of its 2 distinctive lines)\n    found: returntheta[:-1].copy(),float(theta[-1])",)


def test_a_short_solution_line_alone_in_the_release_is_a_leak(ps4, tmp_path):
    # 19 characters: too common for a published page to count alone, but a release has no reason to hold it.
    (tmp_path / "notes.txt").write_text("theta = theta + y_i * x_i\n")
    (problem,) = verify.nothing_leaks(ps4).problems
    assert problem.startswith(f"{tmp_path.name}/notes.txt: solution: notebooks/source/{PS4}/{PS4}.ipynb, "
                              "solution in train_through_origin")
    assert problem.endswith("found: theta=theta+y_i*x_i")


def test_points_that_do_not_add_up_are_reported(ps4):
    source = copy.deepcopy(ps4.source)
    heading = next(c for c in source.cells if c.cell_type == "markdown" and c.source.startswith("## Part B"))
    heading.source = heading.source.replace("(2 points)", "(3 points)")
    ps4.source = source
    assert verify.notebook_structure(ps4).problems == ("Part B's heading says 3 points; its grade cells give 2",)


def test_the_table_marks_each_requirement_and_lists_the_problems():
    table = verify.format_table("ps0", [verify.RequirementVerdict("first requirement", "2 cells"),
                                        verify.RequirementVerdict("second", "1 cell", ("it broke\nsecond line",))])
    assert table.splitlines() == [
        "ps0",
        "        requirement        covered",
        "  " + "-" * 47,
        "  ok    first requirement  2 cells",
        "  FAIL  second             1 cell; 1 problem",
        "",
        "  second:",
        "    - it broke",
        "      second line",
    ]


def test_executing_a_notebook_leaves_nothing_in_the_temporary_folder(tmp_path, monkeypatch):
    # The notebook's own temporary files, which it never removes, go with the run's folder.
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import tempfile\nfolder = tempfile.mkdtemp()\nhandle, name = tempfile.mkstemp()\nprint(folder, name)")])
    executed = verify.execute(notebook, str(tmp_path))
    assert verify.errors_of(executed) == []
    assert executed.cells[0].outputs[0]["text"].strip(), "the cell printed nothing"
    assert os.listdir(scratch) == []


def test_an_unknown_assignment_exits_2_naming_the_known_ones(capsys):
    assert verify.main(["ps9_nothing"]) == 2
    err = capsys.readouterr().err
    assert "unknown assignment 'ps9_nothing'" in err and "ps1_hyperplanes" in err and PS4 in err


# -- the command ---------------------------------------------------------------------------------

def run_verify(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "autograder", "verify", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


@pytest.mark.slow
def test_verify_passes_on_every_assignment(course_verification):
    result = course_verification
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    rows = [line for line in lines if line.startswith("  ok") or line.startswith("  FAIL")]
    assert len(rows) == 5 * len(verify.REQUIREMENTS) and all(row.startswith("  ok") for row in rows)
    assert lines[-1] == "5 of 5 assignments verified"


@pytest.mark.slow
def test_verify_reports_a_weakened_check_and_exits_1(tmp_path):
    package = tmp_path / "autograder"
    shutil.copytree(os.path.join(ROOT, "autograder"), package, ignore=shutil.ignore_patterns("__pycache__"))
    with open(package / "course" / "assignments" / PS4 / "checks.py", "a") as f:
        f.write(WEAKENING)
    # Run from the copy's parent folder, so `python -m autograder` is the weakened copy.
    result = run_verify(PS4, "--no-run", "--course-dir", COURSE, cwd=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    known = len(__import__("autograder.course.assignments", fromlist=["load_known_wrong"]).load_known_wrong(PS4))
    assert any(line.startswith("  FAIL  known-wrong implementations lose exactly their cells") and
               f"{known} implementations;" in line for line in lines), result.stdout
    assert "    - lifting_ignores_max_epochs passes lifting_one_dimensional, lifting_general, which must reject it" in lines
    assert sum(line.startswith("  FAIL") for line in lines) == 1
    assert lines[-1] == f"0 of 1 assignments verified; failing: {PS4}"
