"""Fixtures of the grader's tests: a working sandbox, and a course directory with every assignment released."""

import os
import shutil

import pytest

from autograder.commands import release as release_module
from autograder.course import assignments
from autograder.running import sandbox
from tests.support import COURSE


@pytest.fixture(scope="module")
def sandbox_ready():
    status = sandbox.sandbox_status()
    assert status.available, f"bubblewrap cannot make a sandbox here: {status.description}"
    return status


@pytest.fixture(scope="module")
def course(tmp_path_factory):
    """A copy of the course directory with every available assignment released (the real one is left alone)."""
    root = tmp_path_factory.mktemp("course")
    shutil.copy(os.path.join(COURSE, "nbgrader_config.py"), root / "nbgrader_config.py")
    for assignment in assignments.names():
        shutil.copytree(os.path.join(COURSE, "source", assignment), root / "source" / assignment)
        release_module.release(assignment, str(root))
    return root
