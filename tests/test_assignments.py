"""The five assignments: their notebooks, their hidden checks, and their release.

* The reference solutions (the source notebooks' solution cells) get full marks
  from the hidden checks; the blank student versions get zero; every
  known-wrong implementation in ``tests/known_wrong`` loses the grade cells it
  names.
* Every source notebook runs top to bottom without an error (its hidden
  ``run_in_notebook`` calls then pass); every released notebook runs with no
  error other than the stubs' ``NotImplementedError``.
* ``python -m autograder release`` builds all five into a copy of the course
  directory, is idempotent, rejects unknown names, and refuses a release that
  leaks a solution or a hidden test.
* Grade ids are unique, every test cell has hidden checks and every check a
  test cell, and the points add up to what the headings say.

Each notebook is executed once per session (module-scoped fixtures).
"""

import os
import re
import shutil
import subprocess
import sys

import nbformat
import pytest

from autograder import release as release_module
from autograder.checks import evaluate_namespace, load_checks
from tests.known_wrong import load as load_known_wrong

os.environ.setdefault("MPLBACKEND", "Agg")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COURSE = os.path.join(ROOT, "notebooks")
ASSIGNMENTS = release_module.ASSIGNMENTS

pytestmark = pytest.mark.timeout(600)


def source_path(assignment):
    return os.path.join(COURSE, "source", assignment, f"{assignment}.ipynb")


def nbgrader_meta(cell):
    return cell.metadata.get("nbgrader", {})


def is_test_cell(cell):
    meta = nbgrader_meta(cell)
    return cell.cell_type == "code" and meta.get("grade") and not meta.get("solution")


def is_answer_cell(cell):
    meta = nbgrader_meta(cell)
    return meta.get("grade") and meta.get("solution")


def namespace_from(notebook):
    """Run the notebook's imports, helpers and solution cells (not its tests) in a fresh namespace."""
    namespace = {"__name__": "assignment"}
    for cell in notebook.cells:
        meta = nbgrader_meta(cell)
        if cell.cell_type == "code" and (meta.get("solution") or meta.get("grade_id") in ("imports", "test_helpers")):
            exec(compile(cell.source, f"<{meta.get('grade_id')}>", "exec"), namespace)
    return namespace


def execute(notebook, cwd):
    """Execute a notebook in a fresh kernel, continuing after errors; return the executed copy."""
    from nbclient import NotebookClient

    client = NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True,
                            resources={"metadata": {"path": cwd}})
    client.execute()
    return notebook


def errors_of(notebook):
    """``(grade_id or cell index, error name, error value)`` for every cell that raised."""
    found = []
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                found.append((nbgrader_meta(cell).get("grade_id", f"cell {index}"), output["ename"], output["evalue"]))
    return found


# -- fixtures -----------------------------------------------------------------

@pytest.fixture(scope="module")
def course_copy(tmp_path_factory):
    """A copy of the course directory, released with the command line (the real one is left alone)."""
    course = tmp_path_factory.mktemp("course")
    shutil.copytree(os.path.join(COURSE, "source"), course / "source")
    shutil.copy(os.path.join(COURSE, "nbgrader_config.py"), course / "nbgrader_config.py")
    result = subprocess.run([sys.executable, "-m", "autograder", "release", "--course-dir", str(course)],
                            capture_output=True, text=True, cwd=ROOT, timeout=300)
    return course, result


@pytest.fixture(scope="module")
def released(course_copy):
    course, result = course_copy
    assert result.returncode == 0, f"release failed:\n{result.stdout}\n{result.stderr}"
    return course


@pytest.fixture(scope="module", params=ASSIGNMENTS)
def executed_source(request, tmp_path_factory):
    notebook = nbformat.read(source_path(request.param), as_version=4)
    return request.param, execute(notebook, str(tmp_path_factory.mktemp("run")))


@pytest.fixture(scope="module", params=ASSIGNMENTS)
def executed_release(request, released, tmp_path_factory):
    path = released / "release" / request.param / f"{request.param}.ipynb"
    notebook = nbformat.read(str(path), as_version=4)
    return request.param, execute(notebook, str(tmp_path_factory.mktemp("run")))


# -- the release command ----------------------------------------------------------

def test_release_builds_every_assignment_quietly(course_copy):
    course, result = course_copy
    assert result.returncode == 0, f"release failed:\n{result.stdout}\n{result.stderr}"
    lines = result.stdout.strip().splitlines()
    assert [line.split(":")[0] for line in lines] == list(ASSIGNMENTS), result.stdout
    assert result.stderr.strip() == "", f"release wrote to stderr:\n{result.stderr}"
    for assignment in ASSIGNMENTS:
        assert (course / "release" / assignment / f"{assignment}.ipynb").is_file()
    assert (course / "gradebook.db").is_file()


def test_release_has_no_solutions_or_hidden_tests(released):
    assert release_module.find_leaks(str(released / "release")) == []


def test_release_is_idempotent_and_records_the_gradebook(released):
    from nbgrader.api import Gradebook

    assert release_module.main(["ps1_hyperplanes", "--course-dir", str(released)]) == 0
    with Gradebook(f"sqlite:///{released / 'gradebook.db'}", "perceptron") as gb:
        names = sorted(a.name for a in gb.assignments)
        cells = {c.name for c in gb.find_notebook("ps1_hyperplanes", "ps1_hyperplanes").grade_cells}
    assert names == sorted(ASSIGNMENTS)
    assert {c.grade_id for c in load_checks("ps1_hyperplanes")} <= cells


def test_unknown_assignment_is_an_error_listing_the_known_ones(capsys):
    assert release_module.main(["ps9_nothing"]) == 2
    err = capsys.readouterr().err
    assert "'ps9_nothing'" in err
    assert all(name in err for name in ASSIGNMENTS)


@pytest.mark.parametrize("marker", release_module.LEAK_MARKERS)
def test_leak_check_finds_each_marker(tmp_path, marker):
    (tmp_path / "clean.ipynb").write_text('{"cells": ["def f():\\n    raise NotImplementedError()"]}')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "leaky.py").write_text(f"x = 1\n# {marker}\n")
    assert release_module.find_leaks(str(tmp_path)) == [(str(tmp_path / "sub" / "leaky.py"), marker)]


def test_release_refuses_a_planted_leak(tmp_path):
    # A hidden-checks call in an ordinary cell is not cleared by nbgrader: the release must fail.
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# A leaky assignment"),
        nbformat.v4.new_code_cell('from autograder.checks import run_in_notebook\nrun_in_notebook("x", "y", globals())'),
    ]
    (tmp_path / "source" / "ps1_hyperplanes").mkdir(parents=True)
    nbformat.write(notebook, str(tmp_path / "source" / "ps1_hyperplanes" / "ps1_hyperplanes.ipynb"))
    shutil.copy(os.path.join(COURSE, "nbgrader_config.py"), tmp_path / "nbgrader_config.py")
    with pytest.raises(release_module.ReleaseError) as info:
        release_module.release("ps1_hyperplanes", str(tmp_path))
    message = str(info.value)
    assert "ps1_hyperplanes.ipynb" in message and "'run_in_notebook'" in message and "'autograder.checks'" in message
    assert not (tmp_path / "release" / "ps1_hyperplanes").exists()


# -- grading the reference, the blank and the wrong solutions ---------------------

@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_reference_solution_gets_full_marks(assignment):
    notebook = nbformat.read(source_path(assignment), as_version=4)
    verdicts = evaluate_namespace(load_checks(assignment), namespace_from(notebook))
    failed = [(v.grade_id, v.message) for v in verdicts if not v.passed]
    assert failed == []


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_blank_release_gets_zero(released, assignment):
    notebook = nbformat.read(str(released / "release" / assignment / f"{assignment}.ipynb"), as_version=4)
    verdicts = evaluate_namespace(load_checks(assignment), namespace_from(notebook))
    assert verdicts, "no verdicts"
    passed = [v.grade_id for v in verdicts if v.passed]
    assert passed == []
    assert all("not implemented yet" in v.message for v in verdicts), [v.message for v in verdicts]


KNOWN_WRONG = [(a, wrong) for a in ASSIGNMENTS for wrong in load_known_wrong(a)]


@pytest.mark.parametrize("assignment, wrong", KNOWN_WRONG, ids=[f"{a}-{w.name}" for a, w in KNOWN_WRONG])
def test_known_wrong_implementation_loses_points(assignment, wrong):
    notebook = nbformat.read(source_path(assignment), as_version=4)
    namespace = namespace_from(notebook)
    exec(compile(wrong.code(), f"<{wrong.name}>", "exec"), namespace)
    verdicts = {v.grade_id: v for v in evaluate_namespace(load_checks(assignment), namespace)}
    assert wrong.must_fail, f"{wrong.name} names no grade cell that must reject it"
    unknown = set(wrong.must_fail) - set(verdicts)
    assert not unknown, f"{wrong.name} names grade cells that have no checks: {sorted(unknown)}"
    passed = [grade_id for grade_id in wrong.must_fail if verdicts[grade_id].passed]
    assert passed == [], f"{wrong.name} passed {passed}, which must reject it"
    for grade_id in wrong.must_fail:
        assert verdicts[grade_id].message.strip(), f"{grade_id} failed without a message"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_tested_function_has_a_known_wrong_version(assignment):
    caught = {g for wrong in load_known_wrong(assignment) for g in wrong.must_fail}
    assert caught == {c.grade_id for c in load_checks(assignment)}


# -- executing the notebooks ----------------------------------------------------------

def test_source_notebook_runs_with_full_marks(executed_source):
    assignment, notebook = executed_source
    assert errors_of(notebook) == []
    ran = [c for c in notebook.cells if is_test_cell(c)]
    assert ran and all(c.get("execution_count") for c in ran), "some test cells did not run"


def test_release_notebook_fails_only_on_the_stubs(executed_release):
    assignment, notebook = executed_release
    errors = errors_of(notebook)
    assert [e for e in errors if e[1] != "NotImplementedError"] == []
    failing_tests = {e[0] for e in errors}
    assert {nbgrader_meta(c)["grade_id"] for c in notebook.cells if is_test_cell(c)} <= failing_tests


# -- structure and points ---------------------------------------------------------------

HIDDEN = (
    "### BEGIN HIDDEN TESTS\n"
    "from autograder.checks import run_in_notebook\n"
    'run_in_notebook("{assignment}", "{grade_id}", globals())\n'
    "### END HIDDEN TESTS"
)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_grade_cells_match_the_checks_and_the_points_add_up(assignment):
    notebook = nbformat.read(source_path(assignment), as_version=4)
    grade_ids = [nbgrader_meta(c)["grade_id"] for c in notebook.cells if "grade_id" in nbgrader_meta(c)]
    assert len(grade_ids) == len(set(grade_ids)), f"duplicate grade_ids: {sorted(grade_ids)}"

    tests = [c for c in notebook.cells if is_test_cell(c)]
    for cell in tests:
        grade_id = nbgrader_meta(cell)["grade_id"]
        assert cell.source.startswith("# Check that"), f"{grade_id}: the first line must say what it checks"
        assert cell.source.rstrip().endswith(HIDDEN.format(assignment=assignment, grade_id=grade_id)), (
            f"{grade_id}: the hidden part must be exactly the run_in_notebook call for this cell")
        assert nbgrader_meta(cell).get("points", 0) > 0
    test_ids = {nbgrader_meta(c)["grade_id"] for c in tests}
    check_ids = {c.grade_id for c in load_checks(assignment)}
    assert test_ids == check_ids, f"test cells without checks: {test_ids - check_ids}; checks without cells: {check_ids - test_ids}"

    for cell in notebook.cells:
        meta = nbgrader_meta(cell)
        if cell.cell_type == "code" and meta.get("solution"):
            assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source, meta["grade_id"]

    auto = sum(nbgrader_meta(c)["points"] for c in tests)
    manual = sum(nbgrader_meta(c)["points"] for c in notebook.cells if is_answer_cell(c))
    header = notebook.cells[0].source
    total = re.search(r"\*\*Total: (\d+) points\*\* \((\d+) points from autograded tests, (\d+) points for written answers\)", header)
    assert total, "the header must state the total points"
    assert [int(g) for g in total.groups()] == [auto + manual, auto, manual]

    # Each part's heading states the points of the grade cells under it.
    part_points, current = {}, None
    for cell in notebook.cells:
        heading = re.match(r"## (Part [A-Z]):.*\((\d+) points?\)", cell.source) if cell.cell_type == "markdown" else None
        if heading:
            current = heading.group(1)
            part_points[current] = [int(heading.group(2)), 0]
        elif nbgrader_meta(cell).get("grade"):
            assert current, f"{nbgrader_meta(cell)['grade_id']} comes before the first part"
            part_points[current][1] += nbgrader_meta(cell)["points"]
    assert part_points and {p: s for p, (s, _) in part_points.items()} == {p: g for p, (_, g) in part_points.items()}


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_visible_cases_are_in_the_notebook(assignment):
    # Every case marked visible is one the student can see: its description appears in a test cell.
    notebook = nbformat.read(source_path(assignment), as_version=4)
    tests_text = "\n".join(c.source for c in notebook.cells if is_test_cell(c))
    for check in load_checks(assignment):
        visible = [case for case in check.cases if case.visible]
        for case in visible:
            assert case.describe in tests_text, f"{check.grade_id}: visible case {case.describe!r} is not in the notebook"
