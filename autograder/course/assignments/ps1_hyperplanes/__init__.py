"""The assignment ps1_hyperplanes: its hidden checks and its known-wrong code (see :mod:`autograder.course.assignments`)."""
