"""Notebooks filled in as a student would, running the grading command, and finding what the sandboxes left
running: what the grading tests share.

:func:`correct_submission` is the release with every answer (code and written) taken from the instructor's
source notebook; :func:`partial_submission` swaps one known-wrong implementation into it.
"""

import copy
import csv
import ctypes
import os
import re
import signal
import subprocess
import sys

import nbformat
import psutil

from autograder.course.assignments import load_known_wrong
from autograder.outputs.gradebook import dump, open_gradebook
from autograder.running import sandbox
from perceptron_course.cells import grade_id, is_solution, is_test_cell, nbgrader_metadata
from tests.support import ROOT

PS1 = "ps1_hyperplanes"


def without_markers(source):
    return "\n".join(line for line in source.splitlines()
                     if "BEGIN SOLUTION" not in line and "END SOLUTION" not in line) + "\n"


def correct_submission(release_nb, source_nb):
    """The release notebook with every answer cell holding the source's solution."""
    solutions = {grade_id(c): without_markers(c.source) for c in source_nb.cells if is_solution(c)}
    nb = copy.deepcopy(release_nb)
    for cell in nb.cells:
        if is_solution(cell):
            cell.source = solutions[grade_id(cell)]
    return nb


def replace_function(nb, code):
    """Put ``code`` (one or more function definitions) in the answer cell defining its first function."""
    name = re.search(r"def (\w+)\(", code).group(1)
    for cell in nb.cells:
        if is_solution(cell) and f"def {name}(" in cell.source:
            cell.source = code
            return nb
    raise LookupError(name)


def partial_submission(release_nb, source_nb, assignment):
    """A correct submission with the first known-wrong implementation of the assignment swapped in."""
    return replace_function(correct_submission(release_nb, source_nb), load_known_wrong(assignment)[0].code())


def notebooks_of(course, assignment):
    release_nb = nbformat.read(str(course / "release" / assignment / f"{assignment}.ipynb"), as_version=4)
    source_nb = nbformat.read(str(course / "source" / assignment / f"{assignment}.ipynb"), as_version=4)
    return release_nb, source_nb


def run_grade(*args):
    """Run the command line; return the finished process (its output is kept for messages)."""
    return subprocess.run([sys.executable, "-m", "autograder", "grade", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT, timeout=900)


def read_grades(out):
    with open(os.path.join(out, "grades.csv"), newline="") as f:
        return {row["student_id"]: row for row in csv.DictReader(f)}


def solved_release(course, assignment):
    """The release of ``assignment`` in ``course`` with every answer taken from the source notebook."""
    return correct_submission(*notebooks_of(course, assignment))


def downloaded_form(notebook):
    """``notebook`` as the course's site hands it out: opening with the cell that installs the student package."""
    from autograder.commands.publish import with_install_cell

    return with_install_cell(copy.deepcopy(notebook), "https://courses.example.edu/perceptron",
                             "perceptron-course-student")


def another_courses_notebook():
    """A graded notebook of some other nbgrader course: its own cell ids, nothing in common with this one."""
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    cells = [new_markdown_cell("# Lab 1: loops"),
             new_code_cell("def total(xs):\n    # YOUR CODE HERE\n    raise NotImplementedError()"),
             new_code_cell("assert total([1, 2]) == 3")]
    for cell, gid, kind in zip(cells[1:], ("total", "test_total"), ("solution", "grade")):
        cell.metadata["nbgrader"] = {"grade_id": gid, "schema_version": 3, "solution": kind == "solution",
                                     "grade": kind == "grade", "locked": kind == "grade", "task": False,
                                     **({"points": 1} if kind == "grade" else {})}
    return new_notebook(cells=cells)


def autograded_points(release_nb):
    """``{grade_id: points}`` of the release's autograded test cells."""
    return {grade_id(c): float(nbgrader_metadata(c)["points"]) for c in release_nb.cells if is_test_cell(c)}


def gradebook_rows(course, assignment):
    """Every row the gradebook of ``course`` holds for ``assignment`` (:func:`autograder.outputs.gradebook.dump`)."""
    gb = open_gradebook(str(course))
    try:
        return dump(gb, assignment)
    finally:
        gb.close()


# -- what the sandboxes leave running ------------------------------------------------------

PR_SET_CHILD_SUBREAPER = 36  # from <linux/prctl.h>


def adopt_orphans():
    """Make this process the reaper of its orphaned descendants (Linux's ``PR_SET_CHILD_SUBREAPER``).

    A process whose parent ends moves to the nearest such ancestor instead of init, so everything a test
    starts, detached or not, stays among this process's descendants, where the sandboxes of other grading
    runs on the machine (another test worker's among them) never are.  An adopted process that ends stays a
    zombie until :func:`reap_orphans`.
    """
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")


def reap_orphans():
    """Collect the exit status of the sandbox processes this process adopted and that have ended.

    Only bubblewrap and sandbox-user processes: this process starts none of them itself except through
    :func:`autograder.running.sandbox.run_sandboxed`, which waits for its own before it returns.
    """
    for proc in psutil.Process().children():
        try:
            if proc.status() == psutil.STATUS_ZOMBIE and (proc.name() == "bwrap"
                                                          or proc.uids().real >= sandbox.SANDBOX_UID_BASE):
                os.waitpid(proc.pid, os.WNOHANG)
        except (psutil.NoSuchProcess, ChildProcessError):
            continue


def sandbox_processes():
    """``(pid, uid, name, command line)`` of this process's descendants still running under a sandbox user id,
    or as bubblewrap: what a sandbox started after :func:`adopt_orphans` and left behind.  Zombies, and
    processes the kernel is already ending, are dead already."""
    found = []
    for proc in psutil.Process().children(recursive=True):
        try:
            with proc.oneshot():
                if proc.status() == psutil.STATUS_ZOMBIE or _ending(proc.pid):
                    continue
                uid, name = proc.uids().real, proc.name()
                if uid >= sandbox.SANDBOX_UID_BASE or name == "bwrap":
                    found.append((proc.pid, uid, name, " ".join(proc.cmdline())[:120]))
        except (psutil.NoSuchProcess, psutil.AccessDenied, FileNotFoundError, ProcessLookupError):
            continue
    return found


PF_EXITING = 0x4  # from <linux/sched.h>: the task is exiting


def _ending(pid):
    """Whether the kernel is ending process ``pid``: it is exiting, or a SIGKILL is pending for it.

    A process killed with its sandbox is one or the other for a moment before it becomes a zombie.
    """
    with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
        flags = int(f.read().rsplit(")", 1)[1].split()[6])
    if flags & PF_EXITING:
        return True
    with open(f"/proc/{pid}/status", encoding="utf-8") as f:
        pending = [int(line.split(":")[1], 16) for line in f if line.startswith(("SigPnd:", "ShdPnd:"))]
    return any(mask & (1 << (signal.SIGKILL - 1)) for mask in pending)
