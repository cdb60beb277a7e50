"""A student's journey on the systems students work on, with the wheel installed as a student installs it.

These machines run Linux, so Windows and macOS are imitated (``tests/student/conftest.py``): a Python that
lacks what Windows' lacks (no ``SIGALRM``, ``setitimer``, ``fork`` or ``/proc``), under a locale whose
encoding is not UTF-8, and one that lacks what macOS's lacks (``/proc``).  In each, a fresh virtual environment
with the student wheel installed checks notebooks saved with Windows line endings in a folder whose name has
spaces and letters beyond ASCII:

* on Windows, the solution checked from the notebook's own last cell, in a Jupyter kernel: ready, with the one
  sentence saying what this system cannot enforce; the untouched download with ``perceptron-check``: not
  ready, naming every stub; a notebook with a cell that never ends and a function that never returns from
  inside ``except Exception:``: each interrupted, and the rest still runs;
* on macOS, the solution with ``perceptron-check``: ready, with nothing it cannot enforce.

The same journey on Linux, from the published site, is ``tests/grader/commands/test_publish.py``'s.
"""

import copy
import json
import os
import subprocess

import nbformat
import pytest
from nbformat.v4 import new_code_cell

from autograder.commands.release import CHECK_CELL_SOURCE
from perceptron_course.cells import grade_id, is_solution
from perceptron_course.check import _stub_functions
from perceptron_course.platform_support import BLOCKING_CALLS_NOTE
from tests.support.grading import downloaded_form, solved_release
from tests.support.kernels import printed_by

PS2, PS4 = "ps2_online_perceptron", "ps4_offset"
READY = "Ready to submit: every visible test passes, nothing is missing, and the file name is right."
CANNOT_ENFORCE = f"On this computer, unlike in grading: {BLOCKING_CALLS_NOTE}."
CELL_TIMEOUT = 2

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """The student's home folder, shared by the module's checks (matplotlib's font cache is built once there)."""
    return tmp_path_factory.mktemp("home")


@pytest.fixture
def folder(tmp_path):
    """Where the student keeps the notebook: spaces and letters beyond ASCII in its name."""
    path = tmp_path / "My Documents" / "Zoë's course ψ"
    path.mkdir(parents=True)
    return path


def save_with_windows_line_endings(notebook, path):
    data = nbformat.writes(notebook).replace("\n", "\r\n").encode("utf-8")
    path.write_bytes(data)
    assert b"\r\n" in path.read_bytes()
    return path


def environment(python, home, **extra):
    """What a student's terminal has: the environment's programs first on the path, the student's home."""
    return {"PATH": f"{python.parent}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(home),
            "JUPYTER_RUNTIME_DIR": str(home / "jupyter-runtime"), **extra}


def perceptron_check(python, path, env, *args):
    done = subprocess.run([str(python.parent / "perceptron-check"), path.name, *args], cwd=path.parent, env=env,
                          capture_output=True, timeout=300)
    # The report is in the system's encoding, here ISO-8859-1 or UTF-8: every letter the tests look for is ASCII.
    return done.returncode, done.stdout.decode("latin-1"), done.stderr.decode("latin-1")


def run_in_kernel(python, code, cwd, env, tmp_path):
    """Run ``code`` in a Jupyter kernel of ``python`` started in ``cwd`` with ``env``; return what it printed."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager

    specs = tmp_path / "kernels"
    (specs / "student").mkdir(parents=True)
    (specs / "student" / "kernel.json").write_text(json.dumps({
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "the student's Python", "language": "python"}), encoding="utf-8")
    manager = KernelManager(kernel_name="student", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(specs)]))
    manager.start_kernel(cwd=str(cwd), env=env)
    try:
        return printed_by(manager.client(), code)
    finally:
        manager.shutdown_kernel(now=True)


def test_on_windows_the_notebook_checks_itself_from_its_last_cell_and_is_ready(
        student_python, non_utf8_locale, released_course, folder, home, tmp_path):
    python = student_python("windows")
    solution = solved_release(released_course, PS4)
    assert solution.cells[-1].source == CHECK_CELL_SOURCE  # the release ends with the check cell
    path = save_with_windows_line_endings(solution, folder / f"{PS4}.ipynb")
    env = environment(python, home, JPY_SESSION_NAME=str(path), **non_utf8_locale)
    printed = run_in_kernel(python, solution.cells[-1].source, folder, env, tmp_path)
    lines = printed.splitlines()
    assert lines[0].startswith("Checking the saved file ") and "save it first" in lines[0], printed
    assert lines.count(CANNOT_ENFORCE) == 1, printed
    assert lines[-1] == READY and not [line for line in lines if "[fix]" in line], printed


def test_on_windows_the_untouched_download_is_not_ready_and_names_every_stub(
        student_python, non_utf8_locale, released_course, folder, home):
    python = student_python("windows")
    release = nbformat.read(str(released_course / "release" / PS2 / f"{PS2}.ipynb"), as_version=4)
    stubs = [name for cell in release.cells if is_solution(cell) and cell.cell_type == "code"
             for name in _stub_functions(cell.source)]
    assert stubs, "the release should have functions to write"
    path = save_with_windows_line_endings(downloaded_form(release), folder / f"{PS2}.ipynb")
    code, out, err = perceptron_check(python, path, environment(python, home, **non_utf8_locale))
    assert code == 1 and out.splitlines()[-1].startswith("Not ready: "), out + err
    for name in stubs:
        assert f"[fix]  {name} still raises NotImplementedError" in out, name
    assert out.splitlines().count(CANNOT_ENFORCE) == 1
    assert "stopped Python itself" not in out and "did not run" not in out and "Traceback" not in out + err


NEVER_RETURNS = '''def train_with_lifting(X, y, *, max_epochs=100):
    lifted = absorb_offset(X)
    theta = np.zeros(lifted.shape[1])
    n_mistakes = n_epochs = 0
    while True:
        try:
            n_epochs += 1
            for x_i, y_i in zip(lifted, y):
                if y_i * (theta @ x_i) <= 0:
                    theta = theta + y_i * x_i
                    n_mistakes += 1
        except Exception:
            continue
    w, b = split_offset(theta)
    return w, b, n_mistakes, n_epochs
'''


def test_on_windows_a_cell_that_never_ends_and_a_function_that_never_returns_are_interrupted(
        student_python, non_utf8_locale, released_course, folder, home):
    python = student_python("windows")
    notebook = copy.deepcopy(solved_release(released_course, PS4))
    next(c for c in notebook.cells if grade_id(c) == "train_with_lifting").source = NEVER_RETURNS
    imports = next(i for i, c in enumerate(notebook.cells) if grade_id(c) == "imports")
    notebook.cells.insert(imports + 1, new_code_cell("while True:\n    pass"))
    path = save_with_windows_line_endings(notebook, folder / f"{PS4}.ipynb")
    code, out, err = perceptron_check(python, path, environment(python, home, **non_utf8_locale),
                                      "--cell-timeout", str(CELL_TIMEOUT))
    assert code == 1, out + err
    interrupted = [line.strip() for line in out.splitlines()
                   if line.strip().endswith(f"ran for more than {CELL_TIMEOUT} s and was interrupted: look for a loop "
                                            "that never ends or one that does far more work than the task needs "
                                            "(grading interrupts it too, and a function that never returns scores 0)")]
    assert len(interrupted) == 4, out
    assert interrupted[0].startswith(f"[fix]  cell {imports + 2} (while True:)")
    assert interrupted[2:] == [line for line in interrupted if line.startswith("[fix]  test lifting_")]
    for test in ("absorb_offset_values", "split_offset_values", "train_through_origin_values"):
        assert f"  [ok]   test {test} passed" in out.splitlines()


def test_on_macos_the_solution_is_ready_with_nothing_it_cannot_enforce(student_python, released_course, folder, home):
    python = student_python("macos")
    path = save_with_windows_line_endings(solved_release(released_course, PS4), folder / f"{PS4}.ipynb")
    code, out, err = perceptron_check(python, path, environment(python, home))
    assert code == 0 and out.splitlines()[-1] == READY, out + err
    assert "On this computer" not in out
