"""The course the grader serves: where it lives, its limits, its assignments, and what a graded notebook may import.

* :data:`ROOT` is the repository and :data:`COURSE_DIR` its nbgrader course
  directory (``notebooks/``: ``source/``, ``release/``, ``gradebook.db``,
  ``nbgrader_config.py``); every command's ``--course-dir`` defaults to it.
* :mod:`autograder.course.assignments` is the registry of assignments: one
  folder per assignment holding its hidden checks and its known-wrong code.
* :mod:`autograder.course.limits` reads the course's limits.
* :mod:`autograder.course.library` builds the ``perceptron_lib`` a graded
  notebook sees.
"""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COURSE_DIR = os.path.join(ROOT, "notebooks")
