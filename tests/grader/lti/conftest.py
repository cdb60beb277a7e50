"""Fixtures of ``send-grades``' tests: the class of the marking tests, graded once per run (the same session
fixture, so a run that has the marking tests grades it once for both)."""

from tests.grader.marking.conftest import graded_class  # noqa: F401 - shared, not defined again

__all__ = ["graded_class"]
