"""The grader's pages in headless Chromium: the instructor's report and the students' feedback.

A small batch (a correct, a partly correct, a blank, an interrupted and a
crashed submission) is graded in the sandbox; then ``report.html`` and every
feedback page must pass axe-core's WCAG 2.1 A and AA rules, fit a phone's
screen without scrolling sideways, and give each chart a title that reads
out its numbers.  The pages marking adds (the report's written answers, a
feedback page with TAs' comments and rubric items, the marking booklet) are
written from records and held to the same rules, and what people wrote in
them (rubric items, comments) wraps between words on a phone, never inside
one.  Screenshots go to ``test-artifacts/``.
Needs Chromium, ChromeDriver, bubblewrap and the axe-core the book build
installs.
"""

from __future__ import annotations


import nbformat
import pytest
from nbformat.v4 import new_code_cell

from autograder.course.assignments import load_checks
from tests.support.hostile import Kit, reference_pasted
from tests.support.browser import DESKTOP, PHONE, checker_findings, open_page
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


def test_report_and_feedback_pass_axe_and_html_codesniffer(browser, graded, axe_source, htmlcs_source,  # noqa: F811
                                                            artifacts):
    found = {}
    for page in pages(graded):
        open_page(browser, page, DESKTOP)
        found[page.name] = checker_findings(browser, axe_source, htmlcs_source)
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


@pytest.fixture(scope="module")
def marking_pages(tmp_path_factory):
    """The pages marking adds, with every part they can show: the report's written answers (marked, blank, still
    to be marked, to be marked again, the rubric items used), a student's feedback with comments and an unmarked
    answer, one with rubric items and a long comment, the booklet."""
    from autograder.marking.answers import Answer, Question
    from autograder.marking.booklet import booklet_html
    from autograder.outputs.gradebook import EarlierMark, WrittenMark
    from autograder.outputs.report import feedback_html, report_html
    from autograder.results import CellResult, Result

    a, d1, d2 = "ps2_online_perceptron", "written_online_batch", "written_order"
    earlier = EarlierMark(1.5, None, "A long comment on the earlier answer, which a phone must wrap " * 3, "x", "")

    def result(student, marks):
        return Result(student, a, "graded", score=6.0, max_score=10.0,
                      cells=[CellResult("update_rules", 6.0, 10.0, False, "It failed on the worked example.")],
                      manual_cells=[(m.grade_id, 2.0, m.checksum) for m in marks], written=tuple(marks))

    results = [result("ada-lovelace-with-a-long-id", (WrittenMark(a, d1, 2.0, 2.0, comment="Clear. " * 30),
                                                       WrittenMark(a, d2, 2.0, None, checksum="c"))),
               result("bob", (WrittenMark(a, d1, 2.0, 0.0, blank=True, comment="No answer."),
                              WrittenMark(a, d2, 2.0, None, checksum="d", earlier=earlier)))]
    # Rubric items on the marking page's terms (a deduction, a comment worth 0), a TA's comment with long words and
    # an address, and the questions as the notebook names them.
    rubric = (("Parts A, B and C each placed in the online or the batch setting, with a reason", 1.0),
              ("The misclassification count is confused with the training error of the final weights", -0.5),
              ("Good: you linked the mistake count to an application that keeps learning", 0.0))
    comment = ("Straightforwardly argued, though the counterexample needs its computations written out. See "
               "https://example.edu/perceptron/notes/online-learning for the characterisation. ") * 2
    results.append(result("cy", (WrittenMark(a, d1, 2.0, 0.5, comment=comment, rubric=rubric, checksum="e"),
                                 WrittenMark(a, d2, 2.0, 1.5, rubric=rubric[:1] + rubric[2:], checksum="f"))))
    labels = {(a, d1): "D1", (a, d2): "D2"}
    folder = tmp_path_factory.mktemp("marking-pages")
    (folder / "report.html").write_text(report_html(a, results, labels=labels), encoding="utf-8")
    (folder / "feedback-ada.html").write_text(feedback_html(results[0]), encoding="utf-8")
    (folder / "feedback-cy.html").write_text(feedback_html(results[2], labels=labels), encoding="utf-8")
    questions = [Question(a, d1, 2.0, "**Question D1 (2 points).** In *online* learning ... $\\hat y$", "Online."),
                 Question(a, d2, 2.0, "**Question D2.** Does the order matter?", "Yes.")]
    answers = [Answer(r.student_id, "", q, "An answer with $w_{t+1} = w_t + y_t x_t$ " * 8, m)
               for q in questions for r in results for m in r.written if m.grade_id == q.grade_id]
    (folder / "booklet.html").write_text(booklet_html(a, questions, answers), encoding="utf-8")
    return folder


def test_the_marking_pages_pass_axe_and_html_codesniffer_and_fit_a_phone(browser, marking_pages,  # noqa: F811
                                                                          axe_source, htmlcs_source):
    found, wide = {}, {}
    for page in sorted(marking_pages.glob("*.html")):
        open_page(browser, page, DESKTOP)
        found[page.name] = checker_findings(browser, axe_source, htmlcs_source)
        open_page(browser, page, PHONE)
        overflow = browser.execute_script(
            "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
        if overflow > 1:
            wide[page.name] = overflow
    assert not any(found.values()), found
    assert not wide, f"pages that scroll sideways on a phone, by how many pixels: {wide}"


# Every word that people wrote in the pages' tables (rubric items, TAs' comments) whose letters do not all lie on one
# line: a word cut in two.  A word is a run of letters and digits: a line may end after the hyphen or the slash of
# "online-learning" or an address, as text does.
CUT_WORDS_JS = """
const cut = [];
for (const cell of document.querySelectorAll("td.comment, td .comment, ul.rubric li")) {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (const word of node.data.matchAll(/[\\p{L}\\p{N}]+/gu)) {
      const range = document.createRange();
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.bottom)));
      if (lines.size > 1) cut.push(word[0]);
    }
  }
}
return cut;
"""


def test_the_feedback_s_words_wrap_between_words_on_a_phone(browser, marking_pages):  # noqa: F811
    for name in ("feedback-cy.html", "report.html"):
        open_page(browser, marking_pages / name, PHONE)
        cut = browser.execute_script(CUT_WORDS_JS)
        assert cut == [], (name, cut)
    open_page(browser, marking_pages / "feedback-cy.html", PHONE)
    items = browser.execute_script("return [...document.querySelectorAll('ul.rubric li')].map(li => li.textContent)")
    assert items[:3] == ["+1 Parts A, B and C each placed in the online or the batch setting, with a reason",
                         "\u22120.5 The misclassification count is confused with the training error of the final "
                         "weights",
                         "Good: you linked the mistake count to an application that keeps learning"]
