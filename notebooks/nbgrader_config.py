"""nbgrader configuration of the perceptron course (the course directory is this folder).

``python -m autograder release`` loads this file; the grader reads the same
gradebook (``gradebook.db`` here).
"""

import os

c = get_config()  # noqa: F821  (provided by traitlets when nbgrader loads this file)

c.CourseDirectory.root = os.path.dirname(os.path.abspath(__file__))
c.CourseDirectory.course_id = "perceptron"

# What students see in place of a solution.
c.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
