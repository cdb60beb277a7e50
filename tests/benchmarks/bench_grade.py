"""Grading throughput: ``autograder grade`` against plain serial ``nbgrader autograde``, on two classes.

Each class is graded four ways in one run, every run from a fresh copy of
the course directory released as an instructor releases it (``python -m
autograder release``, which also measures the time limits from the
instructor's solution and saves them): by ``python -m autograder grade``
with its defaults (one worker per core, a sandbox per submission, the saved
time limits); by the same command with ``--recalibrate``, which measures the
limits again at the start of the batch; by the same command with
``--unsafe-no-sandbox``, which shows what the sandbox itself costs; and by
plain ``nbgrader autograde`` with its defaults, which runs the submissions
one after another with the hidden tests in the student's own kernel.

* well-behaved: 20 ps1 submissions, correct, partly correct and blank;
* a quarter never return: 12 ps2 submissions of which a quarter train with
  an epoch loop that has no limit (known-wrong implementations whose
  stopping rule was taken out: one stops only when an epoch makes no
  mistake, so it never returns on data it cannot separate; one never
  stops at all), the rest correct, partly correct and blank.
"""

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from autograder.commands import release as release_module

ROOT = Path(__file__).resolve().parents[2]
PS1 = "ps1_hyperplanes"
PS2 = "ps2_online_perceptron"


def make_course(tmp, assignment):
    course = Path(tmp) / "course"
    (course / "source").mkdir(parents=True)
    shutil.copy(ROOT / "notebooks" / "nbgrader_config.py", course / "nbgrader_config.py")
    shutil.copytree(ROOT / "notebooks" / "source" / assignment, course / "source" / assignment)
    with contextlib.redirect_stdout(io.StringIO()) as said:
        if release_module.main([assignment, "--course-dir", str(course)]) != 0:
            raise RuntimeError(f"releasing {assignment} failed:\n{said.getvalue()}")
    return course


def never_returning_trainers():
    """Known-wrong training loops with the epoch limit taken out."""
    from autograder.course.assignments.ps2_online_perceptron.known_wrong import _train

    endless = "range(1, 10**15)"
    return [_train(epochs=endless), _train(epochs=endless, stop="pass")]


def make_class(assignment, n, hanging_share=0.0):
    """``{student: notebook}``: correct, partly correct and blank, with ``hanging_share`` of them never returning."""
    import textwrap

    from tests.support.grading import correct_submission, partial_submission, replace_function

    with tempfile.TemporaryDirectory() as tmp:
        course = make_course(tmp, assignment)
        release_nb = nbformat.read(str(course / "release" / assignment / f"{assignment}.ipynb"), as_version=4)
        source_nb = nbformat.read(str(course / "source" / assignment / f"{assignment}.ipynb"), as_version=4)
    kinds = [correct_submission(release_nb, source_nb), partial_submission(release_nb, source_nb, assignment),
             release_nb]
    hanging = set(range(0, n, round(1 / hanging_share))) if hanging_share else set()
    trainers = never_returning_trainers()
    notebooks = {}
    for i in range(n):
        if i in hanging:
            code = textwrap.dedent(trainers[sorted(hanging).index(i) % len(trainers)]).strip() + "\n"
            nb = replace_function(correct_submission(release_nb, source_nb), code)
        else:
            nb = kinds[i % 3]
        notebooks[f"student{i:02d}"] = nb
    return notebooks


def timed(command, cwd):
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, command))} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
    return elapsed, result.stdout


def grade_with_autograder(assignment, notebooks, *extra):
    with tempfile.TemporaryDirectory(prefix="bench-grade-") as tmp:
        course = make_course(tmp, assignment)
        folder = Path(tmp) / "submissions"
        folder.mkdir()
        for student, nb in notebooks.items():
            nbformat.write(nb, str(folder / f"{student}.ipynb"))
        return timed([sys.executable, "-m", "autograder", "grade", assignment, folder, "--out", Path(tmp) / "out",
                      "--course-dir", course, *extra], ROOT)


def grade_with_nbgrader(assignment, notebooks):
    with tempfile.TemporaryDirectory(prefix="bench-nbgrader-") as tmp:
        course = make_course(tmp, assignment)
        for student, nb in notebooks.items():
            target = course / "submitted" / student / assignment
            target.mkdir(parents=True)
            nbformat.write(nb, str(target / f"{assignment}.ipynb"))
        env_bin = os.path.dirname(sys.executable)
        return timed([os.path.join(env_bin, "nbgrader"), "autograde", assignment, "--force"], course)[0]


def run(quick=False):
    workers = os.cpu_count() or 1
    per_minute = lambda n, seconds: f"{60 * n / seconds:.0f}/min"
    rows = []
    classes = [("well-behaved", PS1, 6 if quick else 20, 0.0), ("a quarter never return", PS2, 8 if quick else 12, 0.25)]
    for label, assignment, n, hanging in classes:
        notebooks = make_class(assignment, n, hanging)
        sandboxed, stdout = grade_with_autograder(assignment, notebooks)
        recalibrated, _ = grade_with_autograder(assignment, notebooks, "--recalibrate")
        unsandboxed, _ = grade_with_autograder(assignment, notebooks, "--unsafe-no-sandbox")
        plain = grade_with_nbgrader(assignment, notebooks)
        limits = next((line for line in stdout.splitlines() if line.startswith("time limits:")), "")
        print(f"{label}: {limits}", file=sys.stderr)
        rows.append((f"grade: {label}", f"{n} {assignment} submissions, {workers} workers, sandboxed: "
                     f"{per_minute(n, sandboxed)} vs {per_minute(n, plain)} ({plain / sandboxed:.1f}x)",
                     sandboxed, "nbgrader autograde, serial", plain))
        rows.append((f"grade, limits measured in the batch: {label}", f"{n} {assignment} submissions, "
                     f"{workers} workers, --recalibrate: {plain / recalibrated:.1f}x nbgrader",
                     recalibrated, "nbgrader autograde, serial", plain))
        rows.append((f"sandbox overhead: {label}", f"{n} {assignment} submissions, {workers} workers, both measuring "
                     "the limits in the batch", recalibrated,
                     "autograder grade --unsafe-no-sandbox", unsandboxed))
    return rows


TARGETS = {"well-behaved": 3.0, "a quarter never return": 5.0}  # times nbgrader's throughput


def summarize(rows):
    """Each class's throughput against its target, with the saved limits and with limits measured in the batch."""
    lines = []
    for bench, _, ours, _, plain, *_ in rows:
        for label, target in TARGETS.items():
            if bench in (f"grade: {label}", f"grade, limits measured in the batch: {label}"):
                speedup = plain / ours
                lines.append(f"{bench}: {speedup:.1f}x nbgrader's throughput (target {target:g}x): "
                             f"{'met' if speedup >= target else 'NOT met'}")
    return lines
