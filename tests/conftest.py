"""Fixtures shared by the test modules: the repository, the book's table of contents, the built book in
``_build/html``, the course released once per run, and the browser (headless Chromium with axe-core) that
the book's and the grading pages' tests drive.  Also the order in which pytest-xdist's workers take the
files (``make test`` runs ``pytest -n 3``): see :data:`LONGEST_FIRST`."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

from tests.support import REPO_ROOT
from tests.support.book import BUILT_BOOK, book_module, toc_docnames
from tests.support.browser import chromium_driver
from tests.support.released import Release, release_once, run_folder

# The edit loop's property tests (make test-fast, --hypothesis-profile=fast): a quarter of the examples.
settings.register_profile("fast", max_examples=25)

# The files whose tests take longest, longest first.  pytest-xdist gives each file to one worker (``--dist
# loadfile``: a file's module-scoped fixtures, such as a grading run, then run once) and hands a worker the
# next file when it runs out, so the long ones go first: one started last would keep a worker busy alone at
# the end of the run.  The other files follow in the order pytest collects them.
LONGEST_FIRST = (
    "tests/grader/commands/test_publish.py",
    "tests/book/test_book_pages.py",
    "tests/hub/test_hub_real.py",
    "tests/grader/commands/test_grade.py",
    "tests/hub/test_nbgitpuller.py",
    "tests/book/test_lab_browser.py",
    "tests/grader/lti/test_send_grades.py",
    "tests/grader/commands/test_gradescope.py",
    "tests/grader/commands/test_grade_hostile.py",
    "tests/hub/test_hub_lti.py",
    "tests/grader/commands/test_verify.py",
    "tests/grader/marking/test_marking_groups_browser.py",
    "tests/grader/course/test_assignments.py",
    "tests/grader/boundary/test_boundary.py",
    "tests/grader/commands/test_mark_export.py",
    "tests/test_pins.py",
    "tests/student/test_check.py",
    "tests/grader/marking/test_marking_browser.py",
    "tests/book/test_book_browser.py",
    "tests/grader/running/test_dask.py",
)


def pytest_collection_modifyitems(items):
    """Run the files of :data:`LONGEST_FIRST` first, in that order (see there why)."""
    rank = {path: index for index, path in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def book_docnames() -> list[str]:
    """The documents listed in ``_toc.yml``, e.g. ``['book/index', 'book/introduction', ...]``."""
    return toc_docnames(REPO_ROOT / "_toc.yml")


@pytest.fixture(scope="session")
def built_book() -> Path:
    """The built HTML book; fails (never skips) when it has not been built."""
    if not (BUILT_BOOK / "index.html").is_file():
        pytest.fail(
            f"The built book is missing: {BUILT_BOOK / 'index.html'} does not exist. "
            "Run `make book` (or `.venv/bin/python book/build.py`) first; "
            "`make test` builds the book before running the tests.",
            pytrace=False,
        )
    return BUILT_BOOK


# -- the released course -------------------------------------------------------------------

@pytest.fixture(scope="session")
def course_release(tmp_path_factory) -> Release:
    """Every assignment released once for the whole run by ``python -m autograder release``, and its output."""
    return release_once(run_folder(tmp_path_factory) / "course-runs")


@pytest.fixture(scope="session")
def released_course(course_release) -> Path:
    """The course directory with every assignment released, shared by the whole run: read it, never change
    it (copy it with :func:`tests.support.released.copy_course` first)."""
    if course_release.returncode != 0:
        pytest.fail(f"python -m autograder release failed (exit status {course_release.returncode}):\n"
                    f"{course_release.stdout}\n{course_release.stderr}", pytrace=False)
    return course_release.course


# -- the browser ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    driver = chromium_driver(tmp_path_factory.mktemp("chromium-profile"), loopback=False)
    driver.set_network_conditions(offline=True, latency=0, download_throughput=0,
                                  upload_throughput=0)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def artifacts(repo_root) -> Path:
    folder = repo_root / "test-artifacts"
    folder.mkdir(exist_ok=True)
    return folder


def checker_source(name: str) -> str:
    """The script of the accessibility checker ``name`` of book/build.py's ``CHECKERS``, as the book's build
    installed it."""
    build = book_module("build.py")
    checker = build.CHECKERS[name]
    script = build.installed_checker_script(name)
    if script is None:
        pytest.fail(
            f"{checker.package} {checker.version} is not installed in {checker.prefix}: the book "
            f"build installs it with npm (`.venv/bin/python book/build.py`), or set "
            f"{checker.variable} to {checker.expected}.",
            pytrace=False,
        )
    return script.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def axe_source() -> str:
    return checker_source("axe")


@pytest.fixture(scope="module")
def htmlcs_source() -> str:
    return checker_source("htmlcs")
