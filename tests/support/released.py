"""What a test run does once with the command line, the course's release and its verification, and copies of
the released course for the tests that change a course.

Releasing runs nbgrader and times each solution in the sandbox; verifying checks every requirement of every
assignment: each takes seconds to tens of seconds.  So a run does each once, into a folder that every
pytest-xdist worker of the run sees (:func:`run_folder`): the first worker that needs it runs the command while
the others wait on a lock, then all of them read what it printed and left.  Tests only read the released
course; one that changes a course (grading writes the gradebook and the autograded notebooks, a release
rewrites its folder) works on a copy from :func:`copy_course`.
"""

import dataclasses
import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from autograder.running.calibrate import saved_path
from tests.support import COURSE, ROOT

__all__ = ["Run", "Release", "run_folder", "run_once", "release_once", "verify_once", "copy_course"]


@dataclasses.dataclass(frozen=True)
class Run:
    """What a ``python -m autograder`` command printed, and its exit status."""

    returncode: int
    stdout: str
    stderr: str


@dataclasses.dataclass(frozen=True)
class Release(Run):
    """The run of ``python -m autograder release`` and the course directory it released."""

    course: Path


def run_folder(tmp_path_factory) -> Path:
    """A temporary folder of this run that every pytest-xdist worker sees (each worker's own is inside it)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def run_once(folder: Path, name: str, args, prepare=None) -> Run:
    """``python -m autograder *args``, run by the first call for ``name`` in this folder (after ``prepare()``),
    in whichever process; every call returns what that run printed (recorded in ``folder/name.json``)."""
    folder.mkdir(parents=True, exist_ok=True)
    record = folder / f"{name}.json"
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.is_file():
            if prepare is not None:
                prepare()
            done = subprocess.run([sys.executable, "-m", "autograder", *map(str, args)], capture_output=True,
                                  text=True, cwd=ROOT, timeout=900)
            record.write_text(json.dumps({"returncode": done.returncode, "stdout": done.stdout,
                                          "stderr": done.stderr}), encoding="utf-8")
    return Run(**json.loads(record.read_text(encoding="utf-8")))


def release_once(folder: Path) -> Release:
    """The course's source released once into ``folder / "course"`` by ``python -m autograder release``."""
    course = folder / "course"

    def copy_source():
        shutil.rmtree(course, ignore_errors=True)
        shutil.copytree(os.path.join(COURSE, "source"), course / "source")
        shutil.copy(os.path.join(COURSE, "nbgrader_config.py"), course / "nbgrader_config.py")

    run = run_once(folder, "release", ["release", "--course-dir", course], prepare=copy_source)
    return Release(course=course, **dataclasses.asdict(run))


def verify_once(folder: Path) -> Run:
    """``python -m autograder verify --no-run`` on every assignment of the course, run once."""
    return run_once(folder, "verify", ["verify", "--no-run"])


def copy_course(course: Path, target: Path, assignments=None) -> Path:
    """A copy of the released ``course`` in ``target`` (created), to change as a test likes.

    Without ``assignments`` it is the whole course directory.  With them it holds only what the student's
    side reads of those assignments: the configuration, their source and release folders and saved time
    limits, and no gradebook (a course to grade is a whole copy).
    """
    if assignments is None:
        shutil.copytree(course, target, dirs_exist_ok=True)
        return target
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(course / "nbgrader_config.py", target / "nbgrader_config.py")
    for name in assignments:
        for part in ("source", "release"):
            shutil.copytree(course / part / name, target / part / name)
        saved, copied = saved_path(str(course), name), saved_path(str(target), name)
        if os.path.isfile(saved):
            os.makedirs(os.path.dirname(copied), exist_ok=True)
            shutil.copy(saved, copied)
    return target
