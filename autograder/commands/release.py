"""``python -m autograder release``: build the student versions of the assignments.

For each assignment, nbgrader's ``generate_assignment`` turns
``notebooks/source/<assignment>/`` into ``notebooks/release/<assignment>/``
(solutions replaced by stubs, hidden tests removed, cells locked) and records
the assignment, its notebooks and grade cells in ``notebooks/gradebook.db``,
which the grader reads.  Every released notebook then ends with the check
cell (:data:`CHECK_CELL_SOURCE`), from which a student checks the notebook
without a terminal.  Then the leak audit (:mod:`autograder.commands.audit`)
reads every released file for anything that must never reach students: a
piece of a solution, hidden test or hidden check, solution and hidden-test
markers, and the call into the hidden checks.  A release it finds one in is
deleted and the command fails, naming the file and what it holds.
"""

import argparse
import functools
import io
import logging
import os
import shutil
import sys

import nbformat

from perceptron_course.cells import grade_points

from autograder.commands.audit import audit, collect_secrets
from autograder.course import COURSE_DIR
from autograder.course import assignments


# The last cell of every released notebook: the student's check from inside the notebook.  It is not an nbgrader
# cell, so grading runs it as a cell the student kept; there, and in the student's own check, it only says that
# it starts no check (perceptron_course.test_helpers.check_this_notebook).
CHECK_CELL_ID = "check-this-notebook"
CHECK_CELL_SOURCE = (
    "# Check your notebook before you submit: save it (Ctrl+S, or File > Save), then run this cell. It runs the\n"
    "# saved notebook from top to bottom in a fresh Python, as grading will, and lists what is left to fix.\n"
    "# In Colab it checks the notebook as it is now. (In a terminal, perceptron-check does the same.)\n"
    "from perceptron_course.test_helpers import check_this_notebook\n"
    "\n"
    "check_this_notebook()"
)


def with_check_cell(notebook):
    """``notebook`` ending with the check cell (any earlier copy of it removed)."""
    notebook.cells = [c for c in notebook.cells if c.get("id") != CHECK_CELL_ID]
    notebook.cells.append(nbformat.v4.new_code_cell(CHECK_CELL_SOURCE, id=CHECK_CELL_ID))
    return notebook


class ReleaseError(Exception):
    """An assignment could not be released, or its release leaked instructor-only text."""


def _config(course_dir):
    from traitlets.config import Config
    from traitlets.config.loader import PyFileConfigLoader

    config_file = os.path.join(course_dir, "nbgrader_config.py")
    config = Config()
    if os.path.isfile(config_file):
        config.merge(PyFileConfigLoader("nbgrader_config.py", path=course_dir).load_config())
    config.CourseDirectory.root = os.path.abspath(course_dir)
    return config


# What each release was made from: the source folder's fingerprint, so that grading can tell a stale release.
RELEASED_FOLDER = os.path.join(".autograder", "released")


def source_fingerprint(assignment, course_dir=COURSE_DIR):
    """A SHA-256 of every file of ``source/<assignment>/`` (names and bytes) and of its hidden checks."""
    import hashlib

    from autograder.course.assignments import checks_file

    digest = hashlib.sha256()
    source = os.path.join(course_dir, "source", assignment)
    files = [os.path.join(folder, name) for folder, dirs, names in os.walk(source) for name in names
             if ".ipynb_checkpoints" not in folder]
    for path in sorted(files) + [checks_file(assignment)]:
        digest.update(os.path.basename(path).encode() + b"\0")
        with open(path, "rb") as handle:
            digest.update(handle.read() + b"\0")
    return digest.hexdigest()


def _record_release(assignment, course_dir):
    import datetime
    import json

    folder = os.path.join(course_dir, RELEASED_FOLDER)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"{assignment}.json"), "w", encoding="utf-8") as handle:
        json.dump({"source": source_fingerprint(assignment, course_dir),
                   "released": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}, handle)


def stale_release(assignment, course_dir=COURSE_DIR):
    """A sentence when ``source/<assignment>/`` or its hidden checks changed since the last release, else ``None``."""
    import json

    try:
        with open(os.path.join(course_dir, RELEASED_FOLDER, f"{assignment}.json"), encoding="utf-8") as handle:
            recorded = json.load(handle)
    except (OSError, ValueError):
        return None  # released before releases were recorded: nothing to compare with
    if recorded.get("source") == source_fingerprint(assignment, course_dir):
        return None
    return (f"the source of {assignment} or its hidden checks changed since it was released "
            f"({recorded.get('released', 'at an unknown time')}): the release students have may not define what "
            f"the checks call. If students already have that release, grade it as it is; otherwise run "
            f"'python -m autograder release {assignment}' first")


def course_id(course_dir=COURSE_DIR):
    """The course's id on the hub: ``CourseDirectory.course_id`` of its ``nbgrader_config.py``."""
    return _config(course_dir).CourseDirectory.course_id or ""


def release_to_hub(assignment, target, course_dir=COURSE_DIR, client=None):
    """Put the audited release folder ``target`` into the course exchange; one line saying what happened."""
    from perceptron_course.hub.client import ExchangeClient
    from perceptron_course.hub.transfer import files_from_folder

    course = course_id(course_dir)
    if not course:
        raise ReleaseError("the course has no id (CourseDirectory.course_id in nbgrader_config.py), which the "
                           "hub's groups and exchange name it by")
    files = files_from_folder(target, ignore=[".ipynb_checkpoints", "__pycache__", "*.pyc"])
    record = (client or ExchangeClient()).release(course, assignment, files)
    return f"  released into the hub's exchange as {course}/{assignment} ({len(files)} files, {record['released_at']})"


@functools.cache
def gradebook_schema_head():
    """The revision of nbgrader's gradebook schema that a new gradebook records, read once per process.

    nbgrader, when it creates a gradebook, asks for it by running the ``alembic heads`` command in a
    subprocess (``nbgrader.api.get_alembic_version``): a second each time, and the command must be on
    PATH, which it is not for ``.venv/bin/python -m autograder``.  :func:`release` has nbgrader use this
    instead: the same answer, from the same migration scripts (nbgrader's ``ALEMBIC_DIR``), through
    alembic's own API.
    """
    from alembic.config import Config
    from alembic.script import ScriptDirectory
    from nbgrader.dbutil import ALEMBIC_DIR

    config = Config()
    config.set_main_option("script_location", ALEMBIC_DIR)
    return ScriptDirectory.from_config(config).get_current_head()


def release(assignment, course_dir=COURSE_DIR, secrets=None):
    """Generate the student version of one assignment and check it for leaks.

    Returns the path of the release folder.  Raises :class:`ReleaseError` when
    nbgrader fails or the leak audit finds instructor-only text in the release
    (the release folder is then deleted).  ``secrets`` is what the audit looks
    for (:func:`autograder.commands.audit.collect_secrets`), read from
    ``course_dir`` when not given.
    """
    from nbgrader.converters import GenerateAssignment
    from nbgrader.coursedir import CourseDirectory

    source = os.path.join(course_dir, "source", assignment)
    if not os.path.isdir(source):
        raise ReleaseError(f"{assignment}: no source folder {source}")
    config = _config(course_dir)
    coursedir = CourseDirectory(config=config)
    coursedir.assignment_id = assignment
    app = GenerateAssignment(coursedir=coursedir, config=config)
    app.force = True
    app.create_assignment = True

    import nbgrader.api

    # A new gradebook records its schema's revision; nbgrader's own lookup starts a subprocess.
    nbgrader.api.get_alembic_version = gradebook_schema_head

    log = io.StringIO()
    handler = logging.StreamHandler(log)
    handler.setFormatter(logging.Formatter("[%(levelname)s] %(message)s"))
    app.log.addHandler(handler)
    propagate = app.log.propagate
    app.log.propagate = False
    try:
        app.start()
    except Exception as exc:  # nbgrader raises its own exceptions and plain ones alike
        details = log.getvalue().strip()
        raise ReleaseError(f"{assignment}: nbgrader generate_assignment failed: {exc}" + (f"\n{details}" if details else "")) from None
    finally:
        app.log.removeHandler(handler)
        app.log.propagate = propagate

    target = os.path.join(course_dir, "release", assignment)
    released = os.path.join(target, f"{assignment}.ipynb")
    if os.path.isfile(released):
        nbformat.write(with_check_cell(nbformat.read(released, as_version=4)), released)
    _record_release(assignment, course_dir)
    findings = audit([target], secrets if secrets is not None else collect_secrets(course_dir=course_dir))
    if findings:
        shutil.rmtree(target)
        listed = "\n".join(f"  release/{finding}" for finding in findings)
        raise ReleaseError(
            f"{assignment}: the release contained instructor-only text, so it was deleted:\n{listed}\n"
            "Check that every solution and hidden test in the source notebook is in a cell nbgrader clears "
            "(a solution cell, or an autograder test cell for hidden tests)."
        )
    return target


def main(argv=None):
    """Release the named assignments (all of them by default); return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder release",
        description="Build the student versions of the assignments in notebooks/release/ and record them in the gradebook.",
    )
    parser.add_argument("assignments", nargs="*", metavar="ASSIGNMENT", help=f"default: all of {', '.join(assignments.names())}")
    parser.add_argument("--course-dir", default=COURSE_DIR, help="the nbgrader course directory (default: %(default)s)")
    parser.add_argument("--to-hub", action="store_true",
                        help="also release into the course exchange of the course's JupyterHub (run it where the "
                             "hub gives you COURSE_EXCHANGE_URL and JUPYTERHUB_API_TOKEN: your server's terminal)")
    args = parser.parse_args(argv)

    known = assignments.names()
    names = args.assignments or known
    unknown = [name for name in names if name not in known]
    if unknown:
        print(f"autograder release: unknown assignment {', '.join(map(repr, unknown))}; "
              f"known assignments: {', '.join(known)}.", file=sys.stderr)
        return 2

    secrets = collect_secrets(course_dir=args.course_dir)  # read once for every assignment
    failed = 0
    for name in names:
        try:
            target = release(name, args.course_dir, secrets)
        except ReleaseError as exc:
            print(f"autograder release: {exc}", file=sys.stderr)
            failed += 1
            continue
        auto, manual = grade_points(nbformat.read(os.path.join(target, f"{name}.ipynb"), as_version=4))
        print(f"{name}: released to {os.path.relpath(target)} ({auto:g} autograded + {manual:g} written = {auto + manual:g} points)")
        print(f"  {measure_time_limits(name, args.course_dir)}")
        if args.to_hub:
            from perceptron_course.hub.client import ExchangeClientError
            from perceptron_course.hub.transfer import TransferError

            try:
                print(release_to_hub(name, target, args.course_dir))
            except (ReleaseError, ExchangeClientError, TransferError) as exc:
                print(f"autograder release: {name} is released here but not on the hub: {exc}", file=sys.stderr)
                failed += 1
    return 1 if failed else 0


def measure_time_limits(assignment, course_dir):
    """Measure the grading time limits from the instructor's solution and save them; one line saying what happened.

    Grading measures them itself when this could not (no sandbox here, a
    solution that fails) or when anything they depend on changed since.
    """
    from autograder.running import sandbox
    from autograder.running.calibrate import calibrated_settings, describe
    from autograder.course.limits import load_limits
    from perceptron_course.limits import LimitsError
    from autograder.results import Settings

    if not sandbox.sandbox_status().available:
        return "time limits not measured (no sandbox here); grading will measure them"
    try:
        settings = Settings(limits=load_limits(course_dir), use_sandbox=True)
    except LimitsError as exc:
        return f"time limits not measured: {exc}"
    calibrated = calibrated_settings(settings, course_dir, assignment, reuse=False)
    if not calibrated.cell_seconds_by_cell:
        return f"time limits not measured: {calibrated.budget_text}"
    return describe(calibrated).replace("time limits:", "time limits measured from the solution and saved:", 1)
