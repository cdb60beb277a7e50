"""The assignment ps4_offset: its hidden checks and its known-wrong code (see :mod:`autograder.course.assignments`)."""
