"""Fixtures of the grader's tests: a working sandbox, a course directory with every assignment released, and
``python -m autograder verify`` run once on every assignment."""

import pytest

from autograder.running import sandbox
from tests.support.grading import adopt_orphans, reap_orphans
from tests.support.released import Run, copy_course, run_folder, verify_once


@pytest.fixture(scope="module")
def sandbox_ready():
    """bubblewrap works here; and this process adopts its orphaned descendants, so that what a sandbox leaves
    running is found among them (:func:`tests.support.grading.sandbox_processes`), and reaps them after the
    module's tests."""
    status = sandbox.sandbox_status()
    assert status.available, f"bubblewrap cannot make a sandbox here: {status.description}"
    adopt_orphans()
    yield status
    reap_orphans()


@pytest.fixture(scope="module")
def course(released_course, tmp_path_factory):
    """A copy of the released course for this module to grade in (the run's release is left alone)."""
    return copy_course(released_course, tmp_path_factory.mktemp("course"))


@pytest.fixture(scope="session")
def course_verification(tmp_path_factory) -> Run:
    """``python -m autograder verify --no-run`` on every assignment of the course, once for the whole run: its
    exit status and its tables, which ``test_verify.py`` and ``test_assignments.py`` both read."""
    return verify_once(run_folder(tmp_path_factory) / "course-runs")
