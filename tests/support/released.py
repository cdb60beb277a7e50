"""The course released once per test run, and copies of it for the tests that change a course.

Releasing runs nbgrader and times each solution in the sandbox, seconds per assignment, so a run releases
the course once, with the command line an instructor uses, into a folder that every pytest-xdist worker of
the run sees: the first worker that needs it releases it while the others wait on a lock, then all of them
read the same folder.  Tests only read it; one that changes a course (grading writes the gradebook and the
autograded notebooks, a release rewrites its folder) works on a copy from :func:`copy_course`.
"""

import fcntl
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from autograder.running.calibrate import saved_path
from tests.support import COURSE, ROOT

__all__ = ["Release", "release_once", "copy_course"]


@dataclass(frozen=True)
class Release:
    """A course directory released by ``python -m autograder release``, with what the command printed."""

    course: Path
    returncode: int
    stdout: str
    stderr: str


def release_once(folder: Path) -> Release:
    """The course released into ``folder / "course"``: by this call if no earlier one (in any process) did."""
    folder.mkdir(parents=True, exist_ok=True)
    course, record = folder / "course", folder / "release.json"
    with open(folder / "release.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.is_file():
            shutil.rmtree(course, ignore_errors=True)
            shutil.copytree(os.path.join(COURSE, "source"), course / "source")
            shutil.copy(os.path.join(COURSE, "nbgrader_config.py"), course / "nbgrader_config.py")
            done = subprocess.run([sys.executable, "-m", "autograder", "release", "--course-dir", str(course)],
                                  capture_output=True, text=True, cwd=ROOT, timeout=600)
            record.write_text(json.dumps({"returncode": done.returncode, "stdout": done.stdout,
                                          "stderr": done.stderr}), encoding="utf-8")
    return Release(course, **json.loads(record.read_text(encoding="utf-8")))


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
