"""The assignment ps5_voted_averaged: its hidden checks and its known-wrong code (see :mod:`autograder.course.assignments`)."""
