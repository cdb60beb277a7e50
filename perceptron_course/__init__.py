"""The perceptron course's student package: everything a student runs besides their own notebook.

* :mod:`perceptron_course.test_helpers`: the helpers the visible tests of the
  assignment notebooks call (``from perceptron_course.test_helpers import ...``);
* :mod:`perceptron_course.check`: the check a student runs before submitting
  (``perceptron-check NOTEBOOK.ipynb``), which runs the notebook as grading
  does, with the course's time limits, and says what is left to fix;
* :mod:`perceptron_course.notebook_check`: the same check from the last cell
  of every assignment, for a student without a terminal (Jupyter, a
  JupyterHub, Colab);
* :mod:`perceptron_course.platform_support`: what the check needs of the
  operating system, chosen for Windows, macOS or Linux.

The reference library the chapters import is ``perceptron_lib``, installed
with this package.  Nothing here imports the instructor's grader; the
grader imports the pieces it shares with the check from here (the runner,
the probe, the notebook readers, the locked cells, the limits).
"""
