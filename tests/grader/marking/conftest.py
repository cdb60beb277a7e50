"""Fixtures of the marking page's tests: a class's ps2 graded once for the whole run, and a browser that reaches
a server on this machine.

:func:`graded_class` grades five plain submissions of ps2 in the sandbox, once per test run (the first module
that asks grades, the others wait and read), with a roster that names them: three with written answers of
their own (one the model answers, two with mathematics), one with code only (its written answers blank) and
the untouched release.  Each module copies the graded course before it marks anything.
"""

import shutil

import nbformat
import pytest

from tests.support.browser import CHROMIUM_HELP, find_executable
from tests.support.grading import correct_submission, notebooks_of
from tests.support.released import copy_course, run_folder, run_once

from tests.support.marking_class import A, D1, D2, STUDENTS, STUDY_CLASS, UNTOUCHED


def _with_answers(release_nb, source_nb, d1, d2):
    nb = correct_submission(release_nb, source_nb)
    released = {c.get("metadata", {}).get("nbgrader", {}).get("grade_id"): c.source for c in release_nb.cells}
    for cell in nb.cells:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        for question, text in ((D1, d1), (D2, d2)):
            if gid == question and text is not None:
                cell.source = text or released[gid]
    return nb


def _graded(released_course, folder, students, untouched=None):
    """``folder`` with ps2 graded once per run for ``students`` (``{id: (name, D1, D2)}``) and, if given, one
    student who handed in the release untouched."""
    course, download, roster = folder / "course", folder / "download", folder / "roster.csv"

    def prepare():
        shutil.rmtree(course, ignore_errors=True)
        shutil.rmtree(download, ignore_errors=True)
        copy_course(released_course, course)
        release_nb, source_nb = notebooks_of(course, A)
        download.mkdir(parents=True)
        for student, (_, d1, d2) in students.items():
            nbformat.write(_with_answers(release_nb, source_nb, d1, d2), str(download / f"{student}.ipynb"))
        people = [(s, name) for s, (name, _, _) in students.items()]
        if untouched:
            nbformat.write(release_nb, str(download / f"{untouched[0]}.ipynb"))
            people.append(untouched)
        roster.write_text("student_id,name,email\n" + "".join(f"{s},{name},{s}@example.edu\n" for s, name in people),
                          encoding="utf-8")

    run = run_once(folder, "grade", ["grade", A, download, "--course-dir", course, "--out", folder / "out",
                                     "--roster", roster, "--workers", 2], prepare=prepare)
    if run.returncode != 0:
        pytest.fail(f"grading the marking tests' class failed (exit status {run.returncode}):\n{run.stdout}\n"
                    f"{run.stderr}", pytrace=False)
    return folder


@pytest.fixture(scope="session")
def graded_class(released_course, tmp_path_factory):
    """The course with ps2 graded for the class of :data:`STUDENTS` and :data:`UNTOUCHED`, once per run: read it,
    or copy it with :func:`tests.support.released.copy_course` to change it."""
    return _graded(released_course, run_folder(tmp_path_factory) / "marking-class", STUDENTS, UNTOUCHED)


@pytest.fixture(scope="session")
def study_class(released_course, tmp_path_factory):
    """The course with ps2 graded for :data:`STUDY_CLASS` (a study group, answers the same but for formatting,
    answers written apart, a blank), once per run; copy it to change it."""
    return _graded(released_course, run_folder(tmp_path_factory) / "study-class", STUDY_CLASS)


def chromium_driver(profile):
    """Headless Chromium with its own profile folder that reaches this machine's loopback (the marking server)
    and nothing beyond it."""
    chromium = find_executable("CHROMIUM_BINARY", ("/usr/bin/chromium", "chromium", "chromium-browser"))
    chromedriver = find_executable("CHROMEDRIVER", ("/usr/bin/chromedriver", "chromedriver"))
    if chromium is None or chromedriver is None:
        pytest.fail(f"{CHROMIUM_HELP} Found chromium={chromium}, chromedriver={chromedriver}.", pytrace=False)

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
        "--disable-extensions", f"--user-data-dir={profile}",
        # Loopback goes straight to the marking server (Chromium never sends it through a proxy); every other
        # request goes to a closed port, so nothing the page loads can come from the network.
        "--proxy-server=127.0.0.1:9", "--window-size=1280,900",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    return driver


@pytest.fixture(scope="module")
def marking_browser(tmp_path_factory):
    """Headless Chromium for one test module (see :func:`chromium_driver`)."""
    driver = chromium_driver(tmp_path_factory.mktemp("chromium-marking"))
    yield driver
    driver.quit()
