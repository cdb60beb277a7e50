"""Notebooks filled in as a student would, and running the grading command: what the grading tests share.

:func:`correct_submission` is the release with every answer (code and written) taken from the instructor's
source notebook; :func:`partial_submission` swaps one known-wrong implementation into it.
"""

import copy
import csv
import os
import re
import subprocess
import sys

import nbformat

from autograder.course.assignments import load_known_wrong
from perceptron_course.cells import grade_id, is_solution
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
