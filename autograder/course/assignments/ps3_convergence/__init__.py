"""The assignment ps3_convergence: its hidden checks and its known-wrong code (see :mod:`autograder.course.assignments`)."""
