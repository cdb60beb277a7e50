"""The student package: what the wheel holds, and the check it installs, in a Python that never saw the repository.

Fast tests stage the package from a copy of the run's released course
(``released_course``) and read the staged tree; they also test the pieces the
check and the grader share (the limits the package carries, the check's
refusals) and that nothing of the student side imports the grader, and
what a wheel may hold.  The slow tests build both wheels (the compiled one's
kernel is compiled and tagged by auditwheel, and run in every Python from this
one up that the machine has), and grade in the sandbox a notebook that opens
with the ``%pip install`` line downloads carry.  The wheels themselves,
installed into a fresh virtual environment from the published site and their
check run there, are tested by the site journey
(``tests/grader/commands/test_publish.py``).
"""

import ast
import copy
import glob
import json
import os
import shutil
import subprocess
import sys
import zipfile

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from perceptron_course import check as student_check
from perceptron_course.cells import grade_id, locked_fingerprint
from perceptron_course.limits import Limits, LimitsError, course_limits
from tools.student_package import (CONSOLE_COMMAND, DISTRIBUTION, KERNEL_FILE, StudentPackageError, build_wheels,
                                   check_kernel_binary, check_wheel, stage)

from tests.support import COURSE, ROOT
from tests.support.grading import another_courses_notebook, downloaded_form, solved_release
from tests.support.released import copy_course

PS1, PS4 = "ps1_hyperplanes", "ps4_offset"

pytestmark = pytest.mark.timeout(900)


# -- the staged package ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ps4_course(released_course, tmp_path_factory):
    """Problem set 4 of the run's released course, with a limit of its own that differs from the default, to
    see that the package carries the course's."""
    course = copy_course(released_course, tmp_path_factory.mktemp("course"), [PS4])
    with open(course / "nbgrader_config.py", "a", encoding="utf-8") as f:
        f.write("\nc.Autograder.cell_seconds = 42.0\n")
    return course


@pytest.fixture(scope="module")
def staged(ps4_course, tmp_path_factory):
    target = tmp_path_factory.mktemp("staged")
    assert stage(str(target), str(ps4_course)) == (PS4,)
    return target


def files_under(folder):
    return sorted(os.path.relpath(os.path.join(r, f), folder).replace(os.sep, "/")
                  for r, _, fs in os.walk(folder) for f in fs)


def test_the_package_holds_the_library_the_student_side_and_the_release_only(staged):
    files = files_under(staged)
    assert f"perceptron_course/release/{PS4}/{PS4}.ipynb" in files
    assert "perceptron_course/test_helpers.py" in files and "perceptron_course/check.py" in files
    assert "perceptron_lib/__init__.py" in files and "perceptron_lib/estimators.py" in files
    assert not [f for f in files if f.endswith((".so", ".c", ".pyc")) or f.startswith("autograder")]
    # The release is the student version: nothing of the source notebook's solutions or hidden tests.
    release_text = (staged / "perceptron_course" / "release" / PS4 / f"{PS4}.ipynb").read_text(encoding="utf-8")
    assert "BEGIN SOLUTION" not in release_text and "autograder.judging.checks" not in release_text
    pyproject = (staged / "pyproject.toml").read_text(encoding="utf-8")
    assert f'name = "{DISTRIBUTION}"' in pyproject
    assert f'{CONSOLE_COMMAND} = "perceptron_course.check:console_main"' in pyproject


def test_the_package_carries_the_courses_limits_not_the_defaults(staged):
    carried = course_limits(str(staged / "perceptron_course" / "course_limits.json"))
    assert carried.cell_seconds == 42.0 != Limits().cell_seconds
    assert carried.notebook_seconds == Limits().notebook_seconds


def test_course_limits_without_a_record_are_the_defaults_and_a_broken_record_is_refused(tmp_path):
    assert course_limits(str(tmp_path / "absent.json")) == Limits()
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(LimitsError, match="not a JSON object; reinstall"):
        course_limits(str(tmp_path / "bad.json"))
    (tmp_path / "unknown.json").write_text('{"cell_seconds": 5, "coffee_breaks": 2}')
    with pytest.raises(LimitsError, match="unknown limit coffee_breaks"):
        course_limits(str(tmp_path / "unknown.json"))


def test_no_release_or_a_leaking_release_is_not_packaged(tmp_path):
    with pytest.raises(StudentPackageError, match="no released assignment in .*: run `python -m autograder release`"):
        stage(str(tmp_path / "out"), str(tmp_path))
    leaky = tmp_path / "release" / PS4
    leaky.mkdir(parents=True)
    shutil.copy(os.path.join(COURSE, "source", PS4, f"{PS4}.ipynb"), leaky / f"{PS4}.ipynb")
    with pytest.raises(StudentPackageError, match="holds instructor-only text"):
        stage(str(tmp_path / "out"), str(tmp_path))


def test_every_released_notebook_ends_with_the_check_cell_once(released_course):
    from autograder.commands.release import CHECK_CELL_ID, CHECK_CELL_SOURCE

    released = sorted((released_course / "release").iterdir())
    assert released
    for folder in released:
        notebook = nbformat.read(str(folder / f"{folder.name}.ipynb"), as_version=4)
        last = notebook.cells[-1]
        assert (last.cell_type, last.source, last.get("id")) == ("code", CHECK_CELL_SOURCE, CHECK_CELL_ID), folder.name
        assert [c.get("id") for c in notebook.cells].count(CHECK_CELL_ID) == 1, folder.name
        assert "nbgrader" not in last.metadata  # not a graded or locked cell: grading runs it as the student's


def test_releasing_again_keeps_one_check_cell_at_the_end():
    from autograder.commands.release import CHECK_CELL_ID, with_check_cell

    notebook = new_notebook(cells=[new_markdown_cell("# ps"), new_code_cell("x = 1")])
    twice = with_check_cell(with_check_cell(copy.deepcopy(notebook)))
    assert [c.get("id") for c in twice.cells].count(CHECK_CELL_ID) == 1
    assert twice.cells[:2] == notebook.cells and twice.cells[-1].get("id") == CHECK_CELL_ID


def test_a_wheel_holding_anything_not_staged_is_refused(tmp_path):
    expected = {"perceptron_lib/__init__.py"}
    for extra in ("autograder/course/assignments/ps1_hyperplanes/checks.py", "perceptron_lib/_kernel.cpython-311-x86_64-linux-gnu.so"):
        path = tmp_path / "x-1.0-py3-none-any.whl"
        with zipfile.ZipFile(path, "w") as wheel:
            wheel.writestr("perceptron_lib/__init__.py", "")
            wheel.writestr(extra, "")
            wheel.writestr("x-1.0.dist-info/METADATA", "")
        with pytest.raises(StudentPackageError, match="does not hold what was staged"):
            check_wheel(str(path), expected)
    with zipfile.ZipFile(tmp_path / "ok.whl", "w") as wheel:
        wheel.writestr("perceptron_lib/__init__.py", "")
    check_wheel(str(tmp_path / "ok.whl"), expected)


def test_only_the_compiled_wheel_may_hold_a_compiled_file_and_only_the_kernel(tmp_path):
    def wheel_with(*names):
        path = tmp_path / "x-1.0-cp311-abi3-manylinux1_x86_64.whl"
        with zipfile.ZipFile(path, "w") as wheel:
            for name in names:
                wheel.writestr(name, "")
        return str(path)

    check_wheel(wheel_with("perceptron_lib/__init__.py", KERNEL_FILE), {"perceptron_lib/__init__.py", KERNEL_FILE},
                kernel=KERNEL_FILE)
    for held, kernel in ((KERNEL_FILE, None), ("perceptron_lib/_other.abi3.so", KERNEL_FILE),
                         ("perceptron_lib/_kernel.c", KERNEL_FILE)):
        with pytest.raises(StudentPackageError, match="holds files students must not get"):
            check_wheel(wheel_with(held), {held}, kernel=kernel)


@pytest.fixture(scope="module")
def student_wheels(ps4_course, tmp_path_factory):
    """Both wheels of problem set 4's course, built once: compiling the kernel and tagging it take seconds."""
    return build_wheels(str(tmp_path_factory.mktemp("wheels")), course_dir=str(ps4_course))


@pytest.mark.slow
def test_the_compiled_wheel_holds_the_pure_ones_files_and_the_kernel(student_wheels):
    assert student_wheels.why_not_compiled == "" and student_wheels.pure.endswith("-py3-none-any.whl")
    assert "-cp311-abi3-manylinux" in os.path.basename(student_wheels.compiled)
    members, systems = {}, {}
    for path in student_wheels.paths:
        with zipfile.ZipFile(path) as wheel:
            members[path] = {n for n in wheel.namelist() if ".dist-info/" not in n and not n.endswith("/")}
            (metadata,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
            systems[path] = [line for line in wheel.read(metadata).decode("utf-8").splitlines()
                             if line.startswith("Classifier: Operating System")]
    assert members[student_wheels.compiled] - members[student_wheels.pure] == {KERNEL_FILE}
    assert members[student_wheels.pure] <= members[student_wheels.compiled]
    assert systems == {student_wheels.pure: ["Classifier: Operating System :: OS Independent"],
                       student_wheels.compiled: ["Classifier: Operating System :: POSIX :: Linux"]}


@pytest.mark.slow
def test_without_a_c_compiler_the_pure_wheel_is_built_alone_the_reason_given_and_no_earlier_wheel_left(
        ps4_course, student_wheels, tmp_path, monkeypatch):
    out = tmp_path / "wheels"
    out.mkdir()
    shutil.copy(student_wheels.compiled, out)  # left by an earlier build
    monkeypatch.setenv("CC", str(tmp_path / "no-such-compiler"))  # setuptools compiles with $CC
    built = build_wheels(str(out), course_dir=str(ps4_course))
    assert built.compiled is None and built.why_not_compiled.startswith("the kernel was not built"), built
    assert os.listdir(out) == [os.path.basename(built.pure)]


def test_a_kernel_that_needs_more_than_the_c_library_or_names_a_library_folder_is_refused(tmp_path):
    (tmp_path / "k.c").write_text("#include <math.h>\ndouble f(double x) { return sqrt(x); }\n", encoding="utf-8")

    def linked(*flags):
        library = tmp_path / "k.so"
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(library), str(tmp_path / "k.c"), "-Wl,--no-as-needed",
                        "-lm", *flags], check=True, capture_output=True)
        return library.read_bytes()

    check_kernel_binary(linked())
    for flags, named in ((["-lgcc_s"], "libgcc_s.so.1"), (["-Wl,-rpath,/opt/instructor/lib"], "/opt/instructor")):
        with pytest.raises(StudentPackageError, match="a student's system may have neither") as refused:
            check_kernel_binary(linked(*flags))
        assert named in str(refused.value)


def newer_pythons():
    """The interpreters of Pythons newer than this one that this machine has (python3.X on PATH, or pyenv's),
    leaving out free-threaded builds, which have no stable ABI (pip gives them the pure wheel)."""
    found = {}
    for minor in range(sys.version_info.minor + 1, 16):
        candidates = [shutil.which(f"python3.{minor}")] + sorted(
            glob.glob(os.path.expanduser(f"~/.pyenv/versions/3.{minor}.*/bin/python3")))
        for candidate in filter(None, candidates):
            done = subprocess.run([candidate, "-c", "import sys, sysconfig; print(sys.version_info[1], "
                                   "bool(sysconfig.get_config_var('Py_GIL_DISABLED')))"], capture_output=True,
                                  text=True)
            if done.returncode == 0 and done.stdout.split() == [str(minor), "False"]:
                found[minor] = candidate
                break
    return list(found.values())


# One step of the epoch loop, on two examples, with buffers from the standard library (no numpy): the first
# example is a mistake of the zero weights (v becomes (1, 2, 1)), the second is then right by a margin of 2.
# The kernel is imported as Python finds any extension module, by its file name's suffix.
KERNEL_STEP = """
import array, sys
sys.path.insert(0, sys.argv[1])
import _kernel
v = array.array("d", [0.0, 0.0, 0.0])
result = _kernel.scan(array.array("d", [1.0, 2.0, -1.0, -1.0]), array.array("d", [1.0, -1.0]),
                      array.array("d", [1.0, -1.0]), v, 2, 2, True, 0, 3.0, True)
print(_kernel.__file__.rsplit("/", 1)[-1], list(result), list(v))
"""


@pytest.mark.slow
def test_the_compiled_wheels_one_kernel_runs_in_this_python_and_every_newer_one_this_machine_has(
        student_wheels, tmp_path):
    """The kernel is built once, against the stable ABI: this Python and every later one load and run it."""
    with zipfile.ZipFile(student_wheels.compiled) as wheel:
        (tmp_path / "_kernel.abi3.so").write_bytes(wheel.read(KERNEL_FILE))
    pythons = [sys.executable] + newer_pythons()
    for python in pythons:
        done = subprocess.run([python, "-c", KERNEL_STEP, str(tmp_path)], capture_output=True, text=True,
                              timeout=60)
        assert done.returncode == 0 and done.stdout.split("\n")[0] == "_kernel.abi3.so [2, 0, 1] [1.0, 2.0, 1.0]", (
            python, done.stdout, done.stderr)
    print(f"the kernel ran in {len(pythons)} Pythons: {pythons}")


# -- nothing of the grader on the student side -----------------------------------------------------------------

def test_no_module_of_the_student_side_imports_the_grader():
    folder = os.path.join(ROOT, "perceptron_course")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        for node in ast.walk(tree):
            modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                       else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else [])
            assert not [m for m in modules if m.split(".")[0] == "autograder"], f"{name} imports {modules}"
    # And loading every module of it loads nothing of the grader.
    probe = ("import sys\nimport perceptron_course.check, perceptron_course.execute, perceptron_course.cells, "
             "perceptron_course.boundary, perceptron_course.limits, perceptron_course.test_helpers, "
             "perceptron_course.probe, perceptron_course.protocol, perceptron_course.runner, "
             "perceptron_course.platform_support, perceptron_course.notebook_check\n"
             "print(sorted(m for m in sys.modules if m.split('.')[0] == 'autograder'))")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "[]"


# -- the pieces the check shares with the grader -----------------------------------------------------------------

def test_a_locked_cells_fingerprint_changes_with_what_grading_protects():
    test_cell = {"grade": True, "solution": False, "locked": True, "grade_id": "t", "points": 2}
    base = locked_fingerprint("code", "assert f(1) == 2", test_cell)
    assert base == locked_fingerprint("code", "assert f(1) == 2", dict(test_cell))
    assert base != locked_fingerprint("code", "assert True", test_cell)
    assert base != locked_fingerprint("code", "assert f(1) == 2", {**test_cell, "points": 20})
    assert base != locked_fingerprint("code", "assert f(1) == 2", {**test_cell, "grade_id": "u"})
    assert base != locked_fingerprint("markdown", "assert f(1) == 2", test_cell)
    assert locked_fingerprint("code", "x", {"grade": True}) is None  # no id: broken metadata


def test_a_package_without_its_release_says_how_to_reinstall(tmp_path, capsys):
    notebook = tmp_path / f"{PS1}.ipynb"
    notebook.write_text(json.dumps(new_notebook(cells=[new_markdown_cell("answers")])))
    assert student_check.main([str(notebook)], release_dir=str(tmp_path / "nothing")) == 2
    err = capsys.readouterr().err
    assert err.startswith("perceptron-check: no released assignment in ")
    assert f"reinstall the course's package ({DISTRIBUTION})" in err and "--force-reinstall" in err


def test_a_missing_dependency_is_named_with_the_command_that_installs_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(student_check, "NEEDED_MODULES", (("nbformat", "nbformat"), ("no_such_module_x", "no-such-x")))
    notebook = tmp_path / f"{PS1}.ipynb"
    notebook.write_text("{}")
    assert student_check.main([str(notebook)]) == 2
    assert capsys.readouterr().err == (
        "perceptron-check: the check needs no_such_module_x, which this Python cannot import: install no-such-x "
        "(python -m pip install no-such-x) or reinstall the course's package (perceptron-course-student) with the "
        "pip install command from the course's site, adding --force-reinstall.\n")


def test_a_report_piped_into_a_program_that_stops_reading_ends_quietly():
    # `perceptron-check nb.ipynb | head`: head exits, the next write breaks the pipe.
    script = ("import perceptron_course.check as check\n"
              "def report():\n    raise BrokenPipeError(32, 'Broken pipe')\n"
              "check.main = report\ncheck.console_main()\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 141
    assert done.stderr == ""


def test_another_courses_notebook_is_named_as_such_whatever_its_file_name(ps4_course, tmp_path, capsys):
    release_dir = str(ps4_course / "release")
    for name in ("lab1.ipynb", f"{PS4}.ipynb"):
        path = tmp_path / name
        nbformat.write(another_courses_notebook(), str(path))
        assert student_check.main([str(path)], release_dir=release_dir) == 2
        err = capsys.readouterr().err
        assert "shares no graded cell with" in err and "download" in err and "Traceback" not in err


# -- grading a notebook as downloads carry it ------------------------------------------------------------------

@pytest.mark.slow
def test_a_notebook_that_opens_with_the_install_line_grades_full_marks(released_course, tmp_path):
    from autograder.judging.judge import judge
    from perceptron_course.limits import Limits as GradingLimits
    from autograder.results import Job, Settings
    from autograder.running.sandbox import sandbox_status
    from autograder.running.worker import run_submission

    status = sandbox_status()
    assert status.available, f"bubblewrap cannot make a sandbox here: {status.description}"
    release_dir = released_course / "release" / PS4
    path = tmp_path / "in" / f"{PS4}.ipynb"
    path.parent.mkdir()
    nbformat.write(downloaded_form(solved_release(released_course, PS4)), str(path))
    result = judge(run_submission(Job("ann", PS4, str(path), str(release_dir), Settings(limits=GradingLimits()))))
    assert result.status == "graded" and result.flags == [], (result.reason, result.flags)
    assert result.score == result.max_score > 0
    graded = nbformat.reads(result.autograded_notebook, as_version=4)
    assert [o.get("ename") for c in graded.cells for o in c.get("outputs", []) if o.output_type == "error"] == []
    assert graded.cells[0].outputs[0]["text"].startswith(
        "%pip install --quiet --find-links https://courses.example.edu/perceptron/packages/index.html "
        "perceptron-course-student: not run here.")


def test_imports_of_the_reference_implementation_are_reported_though_they_work_here(ps4_course, tmp_path):
    release_nb = nbformat.read(str(ps4_course / "release" / PS4 / f"{PS4}.ipynb"), as_version=4)
    nb = copy.deepcopy(release_nb)
    answer = next(c for c in nb.cells if grade_id(c) == "absorb_offset")
    answer.source = "from perceptron_lib import absorb_offset, make_separable"
    nb.cells.insert(nb.cells.index(answer) + 1, new_code_cell("import perceptron_lib as pl"))
    path = tmp_path / f"{PS4}.ipynb"
    nbformat.write(nb, str(path))
    planned = student_check.plan(str(path), release_dir=str(ps4_course / "release"))
    found = [(f.part, f.text) for f in planned.findings if "grading gives a notebook only" in f.text]
    offered = "four_point_example, one_dimensional_example"
    why = (f"grading gives a notebook only the data loaders this assignment imports from perceptron_lib ({offered}), "
           "because the rest is the course's reference implementation, so that import fails when the notebook is "
           "graded; write it yourself")
    part_a = next(title for title in planned.titles if title.startswith("Part A"))
    assert found == [(part_a, f"cell absorb_offset imports perceptron_lib.absorb_offset, perceptron_lib.make_separable: "
                              f"{why}"),
                     (part_a, f"cell {nb.cells.index(answer) + 2} (import perceptron_lib as pl) imports "
                              f"perceptron_lib: {why}")]
