"""The grader's pages in headless Chromium: the instructor's report and the students' feedback.

A small batch (a correct, a partly correct, a blank, an interrupted and a
crashed submission) is graded in the sandbox; then ``report.html`` and every
feedback page must pass axe-core's WCAG 2.1 A and AA rules, fit a phone's
screen without scrolling sideways, and give each chart a title that reads
out its numbers.  Screenshots go to ``test-artifacts/``.  Needs Chromium,
ChromeDriver, bubblewrap and the axe-core the book build installs.
"""

from __future__ import annotations


import nbformat
import pytest
from nbformat.v4 import new_code_cell

from autograder.course.assignments import load_checks
from tests.support.hostile import Kit, reference_pasted
from tests.support.browser import DESKTOP, PHONE, open_page, run_axe
from tests.support.grading import PS1, correct_submission, partial_submission, read_grades, run_grade
from tests.support.released import copy_course

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def graded(released_course, tmp_path_factory, sandbox_ready):  # noqa: F811
    root = tmp_path_factory.mktemp("pages")
    course = copy_course(released_course, root / "course")
    release_nb = nbformat.read(str(course / "release" / PS1 / f"{PS1}.ipynb"), as_version=4)
    source_nb = nbformat.read(str(course / "source" / PS1 / f"{PS1}.ipynb"), as_version=4)
    folder = root / "in"
    folder.mkdir()
    notebooks = {"correct": correct_submission(release_nb, source_nb),
                 "partial": partial_submission(release_nb, source_nb, PS1), "blank": release_nb}
    for name, code in (("interrupted", "while True:\n    pass"), ("crashed", "import os\nos._exit(0)")):
        nb = correct_submission(release_nb, source_nb)
        nb.cells.insert(3, new_code_cell(code))
        notebooks[name] = nb
    # A renamed helper pasted from perceptron_lib fills the report's section on copies of the library.
    kit = Kit(release_nb, correct_submission(release_nb, source_nb), [load_checks(PS1)[0].function], [], [])
    notebooks["pasted"] = reference_pasted(kit).payload
    for name, nb in notebooks.items():
        nbformat.write(nb, str(folder / f"{name}.ipynb"))
    out = root / "out"
    run = run_grade(PS1, folder, "--out", out, "--course-dir", course, "--cell-timeout", 2)
    assert run.returncode == 0, run.stderr
    statuses = {student: row["status"] for student, row in read_grades(out).items()}
    assert statuses == {"correct": "graded", "partial": "graded", "blank": "graded", "interrupted": "graded",
                        "crashed": "crashed", "pasted": "graded"}, statuses
    assert "perceptron_lib._validation.check_X</code></td>" in (out / "report.html").read_text()
    return out


def pages(out):
    return [out / "report.html"] + sorted((out / "feedback").glob("*.html"))


def test_report_and_feedback_pass_axe(browser, graded, axe_source, artifacts):  # noqa: F811
    found = {}
    for page in pages(graded):
        open_page(browser, page, DESKTOP)
        result = run_axe(browser, axe_source)
        assert "error" not in result, result
        assert result["rules"] > 0
        found[page.name] = [f"{v['id']}: {v['help']} ({', '.join(n['target'] for n in v['nodes'][:3])})"
                            for v in result["violations"]]
        if page.name in ("report.html", "interrupted.html"):
            browser.save_screenshot(str(artifacts / f"grading-{page.stem}.png"))
    assert not any(found.values()), found


def test_pages_fit_a_phone(browser, graded, artifacts):  # noqa: F811
    wide = {}
    for page in pages(graded):
        open_page(browser, page, PHONE)
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if overflow > 1:
            wide[page.name] = overflow
    browser.save_screenshot(str(artifacts / "grading-report-phone.png"))
    assert not wide, f"pages that scroll sideways on a phone, by how many pixels: {wide}"


def test_charts_have_titles_with_their_numbers(browser, graded):  # noqa: F811
    open_page(browser, graded / "report.html", DESKTOP)
    titles = browser.execute_script(
        "return [...document.querySelectorAll('figure svg')].map(s => [s.getAttribute('role'),"
        " (s.querySelector('title') || {}).textContent])")
    assert len(titles) == 2, titles
    assert all(role == "img" for role, _ in titles), titles
    histogram, per_cell = (text for _, text in titles)
    assert "Histogram of autograded scores out of 10" in histogram and "10 to" not in histogram
    assert "0 to 1: 1" in histogram  # the blank submission
    assert "signed_distance_examples: mean" in per_cell and "failed by" in per_cell
