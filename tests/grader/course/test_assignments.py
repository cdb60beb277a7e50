"""The five assignments: their release, and everything ``python -m autograder verify`` checks.

* ``python -m autograder release`` builds all five into a copy of the course
  directory, is idempotent, rejects unknown names, and refuses a release that
  leaks a solution or a hidden test.
* Every requirement of :mod:`autograder.commands.verify` holds for every assignment,
  as the instructor's command reports it: the solution gets full marks and the
  blank release zero; every known-wrong implementation
  (``autograder/course/assignments/<assignment>/known_wrong.py``) loses exactly the grade cells it names; every
  test cell has hidden cases and catches a known-wrong implementation;
  a changed default loses points; nothing leaks; the cells, points and visible cases
  agree.  The command runs once per test run (the ``course_verification``
  fixture, which ``test_verify.py`` reads too).  The source notebook runs
  without an error and the release fails only on its stubs: these two, which
  ``verify --no-run`` skips, run here on the run's release.

The release is the run's, built once by the command line (the
``course_release`` fixture); each assignment's executions share one
:class:`autograder.commands.verify.Assignment`.
"""

import os
import re
import shutil

import nbformat
import pytest

from autograder.commands import audit as leak_audit
from autograder.commands import release as release_module
from autograder.commands import verify
from autograder.course.assignments import load_checks, names
from tests.support.released import copy_course

from tests.support import COURSE

os.environ.setdefault("MPLBACKEND", "Agg")

ASSIGNMENTS = tuple(names())

pytestmark = pytest.mark.timeout(600)


# -- the release command ----------------------------------------------------------

def test_release_builds_every_assignment_quietly(course_release):
    result, course = course_release, course_release.course
    assert result.returncode == 0, f"release failed:\n{result.stdout}\n{result.stderr}"
    lines = result.stdout.strip().splitlines()
    assert [line.split(":")[0] for line in lines[::2]] == list(ASSIGNMENTS), result.stdout
    assert all(line.startswith("  time limits measured from the solution and saved: ") for line in lines[1::2]), \
        result.stdout
    assert result.stderr.strip() == "", f"release wrote to stderr:\n{result.stderr}"
    for assignment in ASSIGNMENTS:
        assert (course / "release" / assignment / f"{assignment}.ipynb").is_file()
    assert (course / "gradebook.db").is_file()


def test_release_has_no_solutions_or_hidden_tests(released_course):
    assert leak_audit.audit([released_course / "release"], leak_audit.collect_secrets(course_dir=released_course)) == []


def test_release_is_idempotent_and_records_the_gradebook(released_course, tmp_path):
    from nbgrader.api import Gradebook

    released = copy_course(released_course, tmp_path / "course")
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


@pytest.mark.parametrize("marker", leak_audit.MARKERS)
def test_leak_check_finds_each_marker(tmp_path, marker):
    (tmp_path / "clean.ipynb").write_text('{"cells": ["def f():\\n    raise NotImplementedError()"]}')
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "leaky.py").write_text(f"x = 1\n# {marker}\n")
    findings = leak_audit.audit([tmp_path], leak_audit.collect_secrets())
    assert [(f.path, f.what) for f in findings] == [
        (f"{tmp_path.name}/sub/leaky.py", f"{marker!r}, {leak_audit.MARKERS[marker]}")]


def test_release_refuses_a_planted_leak(tmp_path):
    # A hidden-checks call in an ordinary cell is not cleared by nbgrader: the release must fail.
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_markdown_cell("# A leaky assignment"),
        nbformat.v4.new_code_cell('from autograder.judging.checks import run_in_notebook\nrun_in_notebook("x", "y", globals())'),
    ]
    (tmp_path / "source" / "ps1_hyperplanes").mkdir(parents=True)
    nbformat.write(notebook, str(tmp_path / "source" / "ps1_hyperplanes" / "ps1_hyperplanes.ipynb"))
    shutil.copy(os.path.join(COURSE, "nbgrader_config.py"), tmp_path / "nbgrader_config.py")
    with pytest.raises(release_module.ReleaseError) as info:
        release_module.release("ps1_hyperplanes", str(tmp_path))
    message = str(info.value)
    assert "ps1_hyperplanes.ipynb" in message and "'run_in_notebook'" in message and "'autograder.judging.checks'" in message
    assert not (tmp_path / "release" / "ps1_hyperplanes").exists()


def test_a_new_gradebook_records_nbgrader_schema_head_without_the_alembic_command(tmp_path, monkeypatch):
    """nbgrader finds the head of its gradebook schema with the ``alembic heads`` command; the release
    reads the same head in-process, so a new gradebook records it with no ``alembic`` on PATH."""
    import sqlite3
    import subprocess
    import sys

    from nbgrader.dbutil import _temp_alembic_ini

    with _temp_alembic_ini("sqlite:////tmp/gradebook.db") as ini:
        alembic = os.path.join(os.path.dirname(sys.executable), "alembic")
        heads = subprocess.run([alembic, "-c", ini, "heads"], capture_output=True, text=True, check=True).stdout
    shutil.copytree(os.path.join(COURSE, "source", "ps1_hyperplanes"), tmp_path / "source" / "ps1_hyperplanes")
    shutil.copy(os.path.join(COURSE, "nbgrader_config.py"), tmp_path / "nbgrader_config.py")
    monkeypatch.setenv("PATH", "/usr/bin:/bin")

    def no_command(command, *args, **kwargs):
        raise AssertionError(f"the release ran {command}")

    monkeypatch.setattr(subprocess, "check_output", no_command)  # how nbgrader runs `alembic heads`
    release_module.release("ps1_hyperplanes", str(tmp_path))
    with sqlite3.connect(tmp_path / "gradebook.db") as database:
        (recorded,), = database.execute("SELECT version_num FROM alembic_version").fetchall()
    assert recorded == heads.split()[0]


# -- what `python -m autograder verify` checks ---------------------------------------------

@pytest.fixture(scope="module", params=ASSIGNMENTS)
def assignment(request, released_course):
    """The real source notebook and checks, with the release of the run's released course."""
    return verify.Assignment(request.param, COURSE, release_dir=str(released_course / "release" / request.param))


def verify_tables(stdout):
    """``{assignment: the lines of its table}`` from what ``python -m autograder verify`` printed."""
    tables, lines = {}, None
    for line in stdout.splitlines():
        if line in ASSIGNMENTS:
            lines = tables[line] = []
        elif re.fullmatch(r"\d+ of \d+ assignments verified.*", line):
            lines = None
        if lines is not None:
            lines.append(line)
    return tables


@pytest.mark.slow
@pytest.mark.parametrize("requirement", verify.REQUIREMENTS, ids=lambda r: r.__name__)
@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_requirement_holds(course_verification, name, requirement):
    # As the instructor's command found it: its table has a row per requirement, in order, "ok" or "FAIL"
    # with the problems listed below the table.
    table = verify_tables(course_verification.stdout).get(name)
    assert table, f"python -m autograder verify printed no table for {name}:\n{course_verification.stdout}\n" \
                  f"{course_verification.stderr}"
    rows = [line for line in table if line.startswith(("  ok", "  FAIL"))]
    assert len(rows) == len(verify.REQUIREMENTS), "\n".join(table)
    assert rows[verify.REQUIREMENTS.index(requirement)].startswith("  ok  "), "\n".join(table)


@pytest.mark.slow
@pytest.mark.parametrize("requirement", verify.RUN_REQUIREMENTS, ids=lambda r: r.__name__)
def test_notebook_runs_as_expected(assignment, requirement):
    outcome = requirement(assignment)
    assert outcome.problems == (), f"{assignment.name}: {outcome.requirement}:\n" + "\n".join(outcome.problems)
