"""Hostile submissions for the grading tests, built from a release notebook (see :mod:`tests.hostile.cases`)."""
