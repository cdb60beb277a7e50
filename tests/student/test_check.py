"""``python -m autograder check``: what a student sees before submitting, and its exit status.

Problem set 4 is copied from the run's released course; the
command runs on notebooks built from that release: the correct one (the
source's solutions in place), the blank release, one with a locked test cell
edited, one whose function never returns, and a correct one with the wrong
file name.  Each test asserts the lines printed and the exit code.  The fast
tests run nothing in a kernel: a file that is not a notebook, a missing file
or release, and the hidden checks kept out of what runs.
"""

import copy
import json
import os
import re
import shutil
import subprocess
import sys

import nbformat
import pytest

from autograder.commands import audit as leak_audit
from autograder.commands import check
from perceptron_course.cells import grade_id, is_solution, is_test_cell

from tests.support import COURSE, ROOT
from tests.support.grading import solved_release
from tests.support.released import copy_course
PS4 = "ps4_offset"
CELL_TIMEOUT = 3
SECRETS = leak_audit.collect_secrets()

pytestmark = pytest.mark.timeout(300)

TESTS = ("absorb_offset_values", "split_offset_values", "train_through_origin_values",
         "lifting_one_dimensional", "lifting_general")
FUNCTIONS = ("absorb_offset", "split_offset", "train_through_origin", "train_with_lifting")


@pytest.fixture(scope="module")
def course(released_course, tmp_path_factory):
    """A course directory with problem set 4 released: a copy of the run's release of it."""
    return copy_course(released_course, tmp_path_factory.mktemp("course"), [PS4])


@pytest.fixture(scope="module")
def release_nb(course):
    return nbformat.read(str(course / "release" / PS4 / f"{PS4}.ipynb"), as_version=4)


@pytest.fixture(scope="module")
def correct_nb(course):
    """The release with every answer, code and written, taken from the source notebook."""
    return solved_release(course, PS4)


def save(nb, folder, name=f"{PS4}.ipynb"):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    nbformat.write(nb, str(path))
    return path


def run_check(path, course, *args):
    result = subprocess.run([sys.executable, "-m", "autograder", "check", str(path), "--course-dir", str(course),
                             "--cell-timeout", str(CELL_TIMEOUT), *args],
                            capture_output=True, text=True, cwd=ROOT, timeout=240)
    return result.returncode, result.stdout.splitlines(), result.stderr


def fixes(lines):
    return [line.strip() for line in lines if line.strip().startswith("[fix]")]


def assert_no_hidden_checks(lines):
    text = "\n".join(lines)
    assert leak_audit.audit_bytes("the check's output", text.encode(), SECRETS) == []
    assert "hidden case" not in text and "expected (" not in text


# -- running the notebook ---------------------------------------------------------------

@pytest.mark.slow
def test_a_correct_notebook_is_ready(correct_nb, course, tmp_path):
    code, lines, err = run_check(save(correct_nb, tmp_path), course)
    assert code == 0, "\n".join(lines) + err
    for test in TESTS:
        assert f"  [ok]   test {test} passed" in lines
    assert fixes(lines) == []
    assert lines[-1] == "Ready to submit: every visible test passes, nothing is missing, and the file name is right."
    assert "Part C: the offset perceptron, through the origin (3 points)" in lines
    assert_no_hidden_checks(lines)


@pytest.mark.slow
def test_the_blank_release_lists_every_stub_test_and_written_answer(release_nb, course, tmp_path):
    code, lines, _ = run_check(save(release_nb, tmp_path), course)
    assert code == 1
    found = fixes(lines)
    for function in FUNCTIONS:
        assert any(line.startswith(f"[fix]  {function} still raises NotImplementedError") for line in found), function
    for test in TESTS:
        assert f"[fix]  test {test} failed: NotImplementedError" in found
    # Named as the notebook names the questions (D1 is asked above a cell for the student's experiments).
    assert "[fix]  written answer D1 is still empty" in found
    assert "[fix]  written answer D2 is still empty" in found
    # The "try it" cells call the stubs too.
    assert "[fix]  cell 7 (# Try your functions on the one-dimensional example.) raised NotImplementedError" in found
    assert lines[-1] == f"Not ready: {len(found)} things to fix (marked [fix] above)."
    assert_no_hidden_checks(lines)


@pytest.mark.slow
def test_an_edited_test_cell_is_reported_and_runs_as_released(correct_nb, course, tmp_path):
    nb = copy.deepcopy(correct_nb)
    edited = next(c for c in nb.cells if grade_id(c) == "split_offset_values")
    edited.source = "# Check that split_offset works.\nassert True"
    nb.cells = [c for c in nb.cells if grade_id(c) != "test_helpers"]
    code, lines, _ = run_check(save(nb, tmp_path), course)
    assert code == 1
    assert fixes(lines) == [
        "[fix]  locked cell test_helpers was deleted: grading puts the original back and runs it; restore it from "
        "the release notebook, or the notebook is flagged for your instructor",
        "[fix]  locked cell split_offset_values was edited: grading runs the original cell instead, so your change "
        "has no effect; undo it, or the notebook is flagged for your instructor",
    ]
    # The originals ran: the restored helpers define expect_array, and the restored test passes.
    for test in TESTS:
        assert f"  [ok]   test {test} passed" in lines
    assert lines[-1] == "Not ready: 2 things to fix (marked [fix] above)."


HANGING = '''def train_with_lifting(X, y, *, max_epochs=100):
    lifted = absorb_offset(X)
    theta = np.zeros(lifted.shape[1])
    n_mistakes = n_epochs = 0
    while True:
        n_epochs += 1
        for x_i, y_i in zip(lifted, y):
            if y_i * (theta @ x_i) <= 0:
                theta = theta + y_i * x_i
                n_mistakes += 1
    w, b = split_offset(theta)
    return w, b, n_mistakes, n_epochs
'''


@pytest.mark.slow
def test_a_function_that_never_returns_is_interrupted_and_the_rest_still_runs(correct_nb, course, tmp_path):
    nb = copy.deepcopy(correct_nb)
    next(c for c in nb.cells if grade_id(c) == "train_with_lifting").source = HANGING
    code, lines, _ = run_check(save(nb, tmp_path), course)
    assert code == 1
    interrupted = (f"ran for more than {CELL_TIMEOUT} s and was interrupted: look for a loop that never ends "
                   "or one that does far more work than the task needs (grading interrupts it too, and a "
                   "function that never returns scores 0)")
    assert fixes(lines) == [
        f"[fix]  cell 16 (# Try your function on the one-dimensional example: with...) {interrupted}",
        f"[fix]  test lifting_one_dimensional {interrupted}",
        f"[fix]  test lifting_general {interrupted}",
    ]
    for test in TESTS[:3]:
        assert f"  [ok]   test {test} passed" in lines


@pytest.mark.slow
def test_a_function_slower_than_grading_allows_is_reported_though_it_passes(correct_nb, course, tmp_path):
    # Grading limits each release cell to a multiple of the model solution's time (at least 3 s);
    # here the first call of split_offset takes 3.5 s, within the 10 s this check allows a cell.
    nb = copy.deepcopy(correct_nb)
    cell = next(c for c in nb.cells if grade_id(c) == "split_offset")
    cell.source = (cell.source.replace("def split_offset(", "def _split_offset(") + "\n\n"
                   "_first_call = [True]\n\n\n"
                   "def split_offset(theta):\n"
                   "    if _first_call.pop() if _first_call else False:\n"
                   "        import time\n"
                   "        time.sleep(3.5)\n"
                   "    return _split_offset(theta)\n")
    code, lines, _ = run_check(save(nb, tmp_path), course, "--cell-timeout", "10")
    assert code == 1
    (slow,) = fixes(lines)
    assert re.fullmatch(r"\[fix\]  (test \w+|cell \d+ \(.*\)) took 3\.\d s: grading gives this cell about 20 "
                        r"times what the model solution needs there, and as little as 3 s, so it may be "
                        r"interrupted; make the functions it calls faster", slow), slow
    for test in TESTS:
        assert f"  [ok]   test {test} passed" in lines


@pytest.mark.slow
def test_a_misnamed_notebook_is_found_by_its_cells_and_must_be_renamed(correct_nb, course, tmp_path):
    code, lines, _ = run_check(save(correct_nb, tmp_path, f"{PS4} (1).ipynb"), course)
    assert code == 1
    assert lines[0].endswith(f"{PS4} (1).ipynb (assignment {PS4})")
    assert fixes(lines) == [f"[fix]  the file is named '{PS4} (1).ipynb'; the grader expects '{PS4}.ipynb': "
                            "rename it before you submit"]
    assert lines[lines.index("The file") + 1].strip().startswith("[fix]  the file is named")
    for test in TESTS:
        assert f"  [ok]   test {test} passed" in lines


# -- without a kernel -----------------------------------------------------------------------------

def test_the_instructors_notebook_runs_no_hidden_check(course):
    # Even the source notebook, hidden tests and all, runs only the release's test cells.
    source_copy = course / "student" / f"{PS4}.ipynb"
    source_copy.parent.mkdir(exist_ok=True)
    shutil.copy(os.path.join(COURSE, "source", PS4, f"{PS4}.ipynb"), source_copy)
    planned = check.plan(str(source_copy), course_dir=str(course))
    tests = [c for c in planned.notebook.cells if is_test_cell(c)]
    assert [grade_id(c) for c in tests] == list(TESTS)
    for cell in planned.notebook.cells:
        if not is_solution(cell):
            assert "run_in_notebook" not in cell.source and "HIDDEN TESTS" not in cell.source
    # Nor is the hidden checks' module ever loaded, directly or through another module.
    probe = ("import sys\nfrom autograder.commands import check\n"
             f"check.plan({str(source_copy)!r}, course_dir={str(course)!r})\n"
             "print(sorted(m for m in sys.modules if m.startswith('autograder')))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert loaded.returncode == 0, loaded.stderr
    assert "autograder.commands.check'" in loaded.stdout
    assert "autograder.judging.checks'" not in loaded.stdout and "autograder.course.assignments." not in loaded.stdout


def test_a_release_with_instructor_text_is_never_run(course, tmp_path):
    leaky = tmp_path / "course"
    (leaky / "release" / PS4).mkdir(parents=True)
    shutil.copy(os.path.join(COURSE, "source", PS4, f"{PS4}.ipynb"), leaky / "release" / PS4 / f"{PS4}.ipynb")
    student = save(nbformat.read(str(course / "release" / PS4 / f"{PS4}.ipynb"), as_version=4), tmp_path)
    with pytest.raises(check.CheckError, match="contains instructor-only text"):
        check.plan(str(student), course_dir=str(leaky))


def test_a_file_that_is_not_a_notebook_is_not_ready(course, tmp_path, capsys):
    path = tmp_path / f"{PS4}.ipynb"
    path.write_text('{"cells": ')
    assert check.main([str(path), "--course-dir", str(course)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[out.index("The file") + 1].startswith(f"  [fix]  {PS4}.ipynb is not a notebook the grader can read (")
    assert out[-1] == "Not ready: 1 thing to fix (marked [fix] above)."


def test_the_release_copy_itself_is_not_the_students_copy(course):
    path = course / "release" / PS4 / f"{PS4}.ipynb"
    planned = check.plan(str(path), course_dir=str(course))
    assert [f.text for f in planned.findings if f.part == "The file"] == [
        "this is the course's own release copy, which is replaced when the course is updated, and against which "
        f"edits cannot be seen: copy it out (cp {path} ~/) and work on the copy"]


@pytest.mark.parametrize("make_args, message", [
    (lambda course, tmp: [str(tmp / "nothing.ipynb"), "--course-dir", str(course)], "there is no file"),
    (lambda course, tmp: [str(tmp / "x.ipynb"), "--course-dir", str(tmp)], "no released assignment in"),
    (lambda course, tmp: [str(tmp / "x.ipynb"), "--course-dir", str(course), "--assignment", "ps9"],
     "assignment 'ps9' is not one of this course's; its assignments: ps4_offset"),
    (lambda course, tmp: [str(tmp / "x.ipynb"), "--course-dir", str(course)], "x.ipynb shares no graded cell"),
    (lambda course, tmp: [str(tmp / "x.ipynb"), "--course-dir", str(course), "--cell-timeout", "0"],
     "--cell-timeout and --timeout must be positive"),
])
def test_what_cannot_be_checked_exits_2_with_a_reason(course, tmp_path, capsys, make_args, message):
    # A notebook the grader can read (one cell), so what stops the check is the reason named.
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("My answers")])
    (tmp_path / "x.ipynb").write_text(json.dumps(notebook))
    assert check.main(make_args(course, tmp_path)) == 2
    assert message in capsys.readouterr().err


# -- the course's limits, and a Python without the project installed ----------------------

@pytest.fixture(scope="module")
def course_with_own_limits(course, tmp_path_factory):
    """The ps4 course with a notebook budget of its own in nbgrader_config.py."""
    own = tmp_path_factory.mktemp("own-limits")
    shutil.copytree(course, own, dirs_exist_ok=True)
    with open(own / "nbgrader_config.py", "a") as f:
        f.write("\nc.Autograder.notebook_seconds = 123\n")
    return own


@pytest.mark.slow
def test_the_check_holds_the_notebook_to_the_courses_limits_not_the_defaults(correct_nb, course_with_own_limits,
                                                                            tmp_path):
    code, lines, err = run_check(save(correct_nb, tmp_path), course_with_own_limits)
    assert code == 0, "\n".join(lines) + err
    assert any("123 s in all" in line for line in lines), "\n".join(lines[:5])


@pytest.mark.slow
def test_the_check_runs_the_notebook_with_the_library_when_the_project_is_not_installed(correct_nb, course, tmp_path):
    # A Python that has requirements.txt's packages but not the project (no editable install): a
    # virtual environment whose only path to them is a .pth line, which does not run their .pth files.
    import sysconfig

    env_dir = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True, timeout=120)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    packages = sysconfig.get_paths()["purelib"]
    with open(os.path.join(purelib, "requirements.pth"), "w") as f:
        f.write(packages + "\n")
    # The project is not importable there except from the repository's folder (-m runs from cwd).
    probe = subprocess.run([str(python), "-I", "-c", "import perceptron_lib"], capture_output=True, text=True)
    assert probe.returncode != 0 and "No module named 'perceptron_lib'" in probe.stderr, probe.stderr
    result = subprocess.run([str(python), "-m", "autograder", "check", str(save(correct_nb, tmp_path / "nb")),
                             "--course-dir", str(course), "--cell-timeout", str(CELL_TIMEOUT)],
                            capture_output=True, text=True, cwd=ROOT, timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "NameError" not in result.stdout and "ModuleNotFoundError" not in result.stdout
    assert result.stdout.splitlines()[-1].startswith("Ready to submit")
