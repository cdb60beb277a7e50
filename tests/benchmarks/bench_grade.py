"""Grading throughput: ``autograder grade`` against plain ``nbgrader autograde``.

The same 20 ps1 submissions (correct, partly correct and blank) are graded
three ways in one run: by ``python -m autograder grade`` with its default
workers and a sandbox per submission; by the same command with
``--unsafe-no-sandbox``, which shows what the sandbox itself costs; and by
plain ``nbgrader autograde``, which runs the submissions one after another
with the hidden tests in the student's own kernel.  Every run starts from a
fresh copy of the course directory.
"""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from autograder import release as release_module

ROOT = Path(__file__).resolve().parents[2]
PS1 = "ps1_hyperplanes"
N_SUBMISSIONS = 20


def make_course(tmp):
    course = Path(tmp) / "course"
    (course / "source").mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / "nbgrader_config.py", course / "nbgrader_config.py")
    shutil.copytree(ROOT / "notebooks" / "source" / PS1, course / "source" / PS1)
    release_module.release(PS1, str(course))
    return course


def make_submissions(course, n):
    from tests.test_grading import correct_submission, partial_submission

    release_nb = nbformat.read(str(course / "release" / PS1 / f"{PS1}.ipynb"), as_version=4)
    source_nb = nbformat.read(str(course / "source" / PS1 / f"{PS1}.ipynb"), as_version=4)
    kinds = [correct_submission(release_nb, source_nb), partial_submission(release_nb, source_nb, PS1), release_nb]
    return {f"student{i:02d}": kinds[i % 3] for i in range(n)}


def timed(command, cwd):
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return elapsed


def grade_with_autograder(notebooks, *extra):
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        course = make_course(tmp)
        folder = Path(tmp) / "submissions"
        folder.mkdir()
        for student, nb in notebooks.items():
            nbformat.write(nb, str(folder / f"{student}.ipynb"))
        return timed([sys.executable, "-m", "autograder", "grade", PS1, folder, "--out", Path(tmp) / "out",
                      "--course-dir", course, *extra], ROOT)


def grade_with_nbgrader(notebooks):
    with tempfile.TemporaryDirectory(prefix="bench-nbgrader-") as tmp:
        course = make_course(tmp)
        for student, nb in notebooks.items():
            target = course / "submitted" / student / PS1
            target.mkdir(parents=True)
            nbformat.write(nb, str(target / f"{PS1}.ipynb"))
        env_bin = os.path.dirname(sys.executable)
        return timed([os.path.join(env_bin, "nbgrader"), "autograde", PS1, "--force"], course)


def run(quick=False):
    n = 6 if quick else N_SUBMISSIONS
    with tempfile.TemporaryDirectory() as tmp:
        notebooks = make_submissions(make_course(tmp), n)
    sandboxed = grade_with_autograder(notebooks)
    unsandboxed = grade_with_autograder(notebooks, "--unsafe-no-sandbox")
    plain = grade_with_nbgrader(notebooks)
    workers = os.cpu_count() or 1
    per_minute = lambda seconds: f"{60 * n / seconds:.0f}/min"
    return [
        ("autograder grade", f"{n} ps1 submissions, {workers} workers, sandboxed: {per_minute(sandboxed)} "
         f"vs {per_minute(plain)}", sandboxed, "nbgrader autograde, serial", plain),
        ("sandbox overhead", f"{n} ps1 submissions, {workers} workers", sandboxed,
         "autograder grade --unsafe-no-sandbox", unsandboxed),
    ]
