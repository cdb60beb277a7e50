"""Judging, on the host: from what came back out of the sandbox to points, flags and findings.

:mod:`~autograder.judging.checks` is the framework of the hidden checks (the checks themselves are in
:mod:`autograder.course.assignments`); :mod:`~autograder.judging.judge` scores each graded cell;
:mod:`~autograder.judging.integrity` restores locked cells and reads the student's code for tampering;
:mod:`~autograder.judging.similarity` finds similar submissions and copies of the reference library.
"""
