"""Fixtures of the grader's tests: a working sandbox, a course directory with every assignment released,
``python -m autograder verify`` run once on every assignment, and the classes the marking page and
``send-grades`` mark (ps2 graded once per run: the first module that asks grades, the others wait and read)."""

import pytest

from autograder.running import sandbox
from tests.support.grading import adopt_orphans, reap_orphans
from tests.support.marking_class import STUDENTS, STUDY_CLASS, UNTOUCHED, graded_once
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


@pytest.fixture(scope="session")
def graded_class(released_course, tmp_path_factory):
    """The course with ps2 graded for the class of :data:`STUDENTS` and :data:`UNTOUCHED`, once per run: read it,
    or copy it with :func:`tests.support.released.copy_course` to change it."""
    return graded_once(released_course, run_folder(tmp_path_factory) / "marking-class", STUDENTS, UNTOUCHED)


@pytest.fixture(scope="session")
def study_class(released_course, tmp_path_factory):
    """The course with ps2 graded for :data:`STUDY_CLASS` (a study group, answers the same but for formatting,
    answers written apart, a blank), once per run; copy it to change it."""
    return graded_once(released_course, run_folder(tmp_path_factory) / "study-class", STUDY_CLASS)
