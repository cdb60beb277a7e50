"""The assignment ps2_online_perceptron: its hidden checks and its known-wrong code (see :mod:`autograder.course.assignments`)."""
