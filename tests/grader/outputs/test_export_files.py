"""The files a grading run writes, with the written answers' marks, and how ``export`` writes them again.

Pure and fast: results and marks are records built here, no notebook runs.
The totals are over the whole assignment in every file (``grades.csv``, the
LMS imports, the feedback and the report); a TA's comment stands beside its
question, with the rubric items applied (each with its points, an item worth
0 as a comment) in every file a student gets, the question named as the
notebook names it; the report counts the items used per question; an
unmarked answer is named where its student reads; a run's record reads back
into the same records; and a folder is rewritten whole or not at all.
"""

import csv
import dataclasses
import datetime
import io
import os
import zipfile

import nbformat
import pytest

from autograder.intake.lms import FeedbackRoute
from autograder.intake.submissions import Skipped
from autograder.judging.similarity import ReferenceCopy, SharedLine, SimilarPair
from autograder.outputs import graded_run, lms_feedback, record, report, totals
from autograder.outputs.gradebook import EarlierMark, WrittenMark
from autograder.outputs.graded_run import GradedRun, Person
from autograder.outputs.report import feedback_html, feedback_text, report_html
from autograder.results import GRADED, MISSING, CellResult, Flag, Result, Settings
from perceptron_course.limits import Limits

A = "ps2_online_perceptron"
D1, D2 = "written_online_batch", "written_order"


def written(points1, points2, *, comment1="", blank2=False, earlier2=None):
    return (WrittenMark(A, D1, 2.0, points=points1, comment=comment1, checksum="c1"),
            WrittenMark(A, D2, 2.0, points=0.0 if blank2 else points2, blank=blank2, earlier=earlier2,
                        checksum=None if blank2 else "c2"))


def graded(student, score, marks=(), source=""):
    cells = [CellResult("update_rules", score, 10.0, score == 10.0, "Passed." if score == 10 else "It failed.")]
    return Result(student, A, GRADED, score=score, max_score=10.0, cells=cells,
                  manual_cells=[(m.grade_id, m.max_points, m.checksum) for m in marks]
                  or [(D1, 2.0, "c1"), (D2, 2.0, "c2")],
                  written=tuple(marks), source=source)


@pytest.fixture
def results():
    earlier = EarlierMark(1.5, None, "A comment on the old answer.", "old", "2025-02-01T10:00:00+00:00")
    return [graded("ada", 10.0, written(2.0, 1.5, comment1="Clear and complete."),
                   "lovelaceada_104233_5512301_x.ipynb"),
            graded("bob", 4.0, written(None, None, earlier2=earlier), "Bob Ross_88123_assignsubmission_file_"),
            graded("cy", 0.0, written(0.0, None, comment1="No answer: see the notes.", blank2=True), "cy.ipynb"),
            Result("dee", A, MISSING, reason="no submission", max_score=10.0)]


@pytest.fixture
def people():
    return {"ada": Person("ada", "Ada Lovelace", "ada@example.edu", "104233", "canvas",
                          FeedbackRoute("canvas", "lovelaceada_104233_5512301_x.ipynb")),
            "bob": Person("bob", "Bob Ross", "bob@example.edu", "", "moodle",
                          FeedbackRoute("moodle", "Bob Ross_88123_assignsubmission_file_", "88123")),
            "cy": Person("cy", "", "", "", "plain"),
            "dee": Person("dee", "Dee Missing", "dee@example.edu")}


def read_csv(text):
    return list(csv.DictReader(io.StringIO(text)))


# -- the totals in every file -------------------------------------------------------------------

def test_grades_csv_has_the_autograded_written_and_total_points(results, tmp_path):
    record.write_grades_csv(str(tmp_path / "grades.csv"), results)
    rows = {r["student_id"]: r for r in read_csv((tmp_path / "grades.csv").read_text(encoding="utf-8"))}
    columns = ("score", "max_score", "written", "written_max", "total", "total_max", "to_mark")
    picked = {sid: tuple(r[c] for c in columns) for sid, r in rows.items()}
    assert picked == {"ada": ("10", "10", "3.5", "4", "13.5", "14", ""),
                      "bob": ("4", "10", "0", "4", "4", "14", f"{D1};{D2}"),
                      "cy": ("0", "10", "0", "4", "0", "14", ""),
                      "dee": ("0", "10", "0", "4", "0", "14", "")}


def test_the_lms_files_carry_the_total_out_of_the_whole_assignment(results, people, tmp_path):
    record.write_exports(str(tmp_path), A, results, people)
    canvas = list(csv.reader(io.StringIO((tmp_path / "canvas_import.csv").read_text(encoding="utf-8"))))
    assert canvas[1] == ["Points Possible", "", "", "", "", "14"]
    assert ["Ada Lovelace", "104233", "ada", "", "", "13.5"] in canvas
    moodle = {r["ID number"]: r[A] for r in read_csv((tmp_path / "moodle_import.csv").read_text(encoding="utf-8"))}
    assert moodle == {"ada": "13.5", "bob": "4", "cy": "0", "dee": "0"}
    files, _ = lms_feedback.build(A, results, people, sandbox_text="", when=datetime.datetime(
        2025, 2, 3, tzinfo=datetime.timezone.utc))
    worksheet = read_csv(files[lms_feedback.MOODLE_WORKSHEET].decode("utf-8"))
    assert [(r["Identifier"], r["Grade"], r["Maximum Grade"]) for r in worksheet] == [("Participant 88123", "4", "14")]
    with zipfile.ZipFile(io.BytesIO(files[lms_feedback.CANVAS_ZIP])) as zf:
        summary = nbformat.reads(zf.read("lovelaceada_104233_5512301_x.ipynb").decode(), as_version=4).cells[0].source
    assert f"- {D1}: 2 / 2. Comment: Clear and complete." in summary and "Total: 13.5 / 14 points." in summary


# -- what a student reads --------------------------------------------------------------------------

def test_feedback_puts_each_comment_beside_its_question_and_the_total(results):
    page = feedback_html(results[0])
    assert "Total: 13.5 / 14" in page and "written answers: 3.5 / 4" in page
    row = page[page.index(f"<code>{D1}</code>"):]
    row = row[:row.index("</tr>")]
    assert "2 / 2" in row and "Clear and complete." in row
    assert "still to be marked" not in page.lower()


def test_feedback_names_the_answers_still_to_be_marked_and_never_the_earlier_mark(results):
    page = feedback_html(results[1])
    assert f"Still to be marked: {D1}, {D2}." in page and "Total: 4 / 14" in page
    assert "A comment on the old answer." not in page, "the mark of an answer since changed stays with the TAs"
    text = feedback_text(results[1], full_page="x")
    assert f"- {D1}: still to be marked." in text
    assert "Total: 4 / 14 points (the answers still to be marked are not counted yet)." in text


def test_a_blank_answer_reads_as_marked_zero(results):
    page = feedback_html(results[2])
    assert "0 / 2 (no answer was written)" in page and "No answer: see the notes." in page
    assert "Still to be marked" not in page


def test_without_marks_read_the_feedback_says_the_written_points_come_later():
    # As on Gradescope, where no gradebook holds marks.
    result = dataclasses.replace(graded("ada", 10.0), written=())
    assert "The written answers (4 points) are graded by hand; those points come later." in feedback_text(
        result, full_page="x")
    assert "Autograded score: 10 / 10" in feedback_html(result)


def test_the_report_has_the_written_questions_and_what_is_left_to_mark(results):
    page = report_html(A, results)
    assert "Totals cover the whole assignment, <strong>14 points</strong>" in page
    assert "<strong>2 written answers are still to be marked</strong>" in page
    section = page[page.index('id="written-answers"'):page.index('id="all-submissions"')]
    d1 = section[section.index(f"<code>{D1}</code>"):]
    d1 = d1[:d1.index("</tr>")]
    assert "2 of 3" in d1 and "1.00" in d1 and "2 \u00d7 1, 0 \u00d7 1" in d1
    again = section[section.index("To be marked again"):]
    assert "bob" in again and "1.5" in again and "A comment on the old answer." in again
    assert f"<code>{D1}</code>: 1 (bob)" in section
    rows = page[page.index('id="all-submissions"'):]
    ada = rows[rows.index('href="feedback/ada.html"'):]
    assert "10 / 10</td><td class=\"num\">3.5 / 4</td><td class=\"num\">13.5 / 14" in ada[:ada.index("</tr>")]


# -- the run's record ------------------------------------------------------------------------------

def test_a_run_reads_back_as_it_was_saved(results, people, tmp_path):
    shared = (SharedLine("x = 1", "x = 1", "cell 1, line 2", "y = 1", "cell 1, line 3"),)
    run = GradedRun(A, str(tmp_path / "course"), [dataclasses.replace(r, written=()) for r in results], people,
                    skipped=[Skipped("receipt.txt", "a receipt", "read")], notes=["3 Canvas entries."],
                    sandbox_text="bubblewrap", settings=Settings(limits=Limits(memory_bytes=2**30),
                                                                  cell_seconds_by_cell=(("t", 3.0),),
                                                                  budget_text="calibrated"),
                    started=1700000000.0, seconds=4.5, similar=[SimilarPair("ada", "bob", 0.9, 10, 11, shared)],
                    copies=[ReferenceCopy("bob", "train", "perceptron_lib.train", 0.8, 5, 6, shared)])
    run.results[1].flags = [Flag("late", "after the deadline")]
    graded_run.save(run, str(tmp_path))
    back = graded_run.load(str(tmp_path))
    assert back == run
    assert back.people["ada"].route == FeedbackRoute("canvas", "lovelaceada_104233_5512301_x.ipynb")


def test_a_folder_grade_did_not_write_is_refused_with_what_to_do(tmp_path):
    with pytest.raises(graded_run.RunRecordError, match="holds no grading_run.json, so it was not written by"):
        graded_run.load(str(tmp_path))
    with pytest.raises(graded_run.RunRecordError, match="is not a folder"):
        graded_run.load(str(tmp_path / "nowhere"))
    (tmp_path / graded_run.RUN_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(graded_run.RunRecordError, match="cannot read .* grade the download again"):
        graded_run.load(str(tmp_path))


def test_a_run_whose_students_were_graded_again_elsewhere_is_named(results, people, tmp_path):
    run = GradedRun(A, str(tmp_path), results, people)
    marks = {r.student_id: r.written for r in results if r.written}
    autograded = {"ada": 10.0, "bob": 4.0, "cy": 0.0}
    assert graded_run.disagreements(run, marks, autograded) == []
    marks["ada"] = (dataclasses.replace(marks["ada"][0], checksum="other"), marks["ada"][1])
    found = graded_run.disagreements(run, marks, {"ada": 10.0, "bob": 6.0})  # and cy's record is gone
    assert found == [f"ada: the gradebook holds another submission than the one graded here (its answer to {D1} "
                     "differs)",
                     "bob: the gradebook holds another submission than the one graded here (its autograded points "
                     "differ)",
                     f"cy: the gradebook holds no submission of {A} from them"]


# -- rewriting a folder whole ----------------------------------------------------------------------

@pytest.fixture
def folder(tmp_path):
    out = tmp_path / "out"
    (out / "feedback").mkdir(parents=True)
    (out / "grades.csv").write_text("old grades\n", encoding="utf-8")
    (out / "feedback" / "ada.html").write_text("old page", encoding="utf-8")
    (out / "notes.txt").write_text("the instructor's own file", encoding="utf-8")
    os.chmod(out, 0o750)
    return out


def contents(path):
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("exchange", [True, False], ids=["renameat2", "two-renames"])
def test_a_folder_is_rewritten_whole(folder, monkeypatch, exchange):
    if not exchange:
        monkeypatch.setattr(record, "_exchange", lambda first, second: False)
    before = contents(folder)

    def write(staging):
        assert contents(type(folder)(staging)) == before, "the copy starts as the folder"
        record.write_text_atomic(os.path.join(staging, "grades.csv"), "new grades\n")
        record.write_text_atomic(os.path.join(staging, "feedback", "ada.html"), "new page")

    record.replace_folder(str(folder), write)
    assert contents(folder) == {"grades.csv": b"new grades\n", "feedback/ada.html": b"new page",
                                "notes.txt": b"the instructor's own file"}
    assert os.stat(folder).st_mode & 0o777 == 0o750
    assert sorted(p.name for p in folder.parent.iterdir()) == ["out"], "no copy is left beside it"


def test_a_failed_rewrite_leaves_the_folder_as_it_was(folder):
    before = contents(folder)

    def write(staging):
        record.write_text_atomic(os.path.join(staging, "grades.csv"), "half of the new files")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        record.replace_folder(str(folder), write)
    assert contents(folder) == before
    assert sorted(p.name for p in folder.parent.iterdir()) == ["out"]


def test_a_failed_swap_puts_the_folder_back(folder, monkeypatch):
    before = contents(folder)
    monkeypatch.setattr(record, "_exchange", lambda first, second: False)
    renames = []
    real_rename = os.rename

    def rename(source, target):
        renames.append((source, target))
        if len(renames) == 2:
            raise OSError(5, "Input/output error")
        real_rename(source, target)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(OSError):
        record.replace_folder(str(folder), lambda staging: record.write_text_atomic(
            os.path.join(staging, "grades.csv"), "new"))
    monkeypatch.undo()
    assert contents(folder) == before
    assert sorted(p.name for p in folder.parent.iterdir()) == ["out"]


# -- the rubric items a TA applied, and the questions' names -----------------------------------------

LABELS = {(A, D1): "D1", (A, D2): "D2"}
RUBRIC = (("Parts A, B and C placed with reasons", 1.0), ("Mistake count confused with the training error", -0.5),
          ("Good: you linked this to shuffling", 0.0))


@pytest.fixture
def with_rubric():
    marks = (WrittenMark(A, D1, 2.0, points=0.5, comment="Say why the online setting matters.", checksum="c1",
                         marker="Sam Okafor", rubric=RUBRIC),
             WrittenMark(A, D2, 2.0, points=None, checksum="c2"))
    return graded("ada", 10.0, marks, "lovelaceada_104233_5512301_x.ipynb")


def test_the_feedback_page_lists_each_rubric_item_with_its_points_beside_the_comment(with_rubric):
    page = feedback_html(with_rubric, labels=LABELS)
    row = page[page.index("<tr><td>D1</td>"):]
    row = row[:row.index("</tr>")]
    assert ('<ul class="rubric"><li><span class="item-points">+1</span> Parts A, B and C placed with reasons</li>'
            '<li><span class="item-points">\u22120.5</span> Mistake count confused with the training error</li>'
            "<li>Good: you linked this to shuffling</li></ul>") in row, "a 0-point item is a comment, with no points"
    assert '<div class="comment">Say why the online setting matters.</div>' in row and "0.5 / 2" in row
    assert "Still to be marked: D2." in page
    assert D1 not in page and D2 not in page, "the questions are named as the notebook names them"
    assert "Sam Okafor" not in page


def test_the_lms_comment_lists_each_rubric_item_with_its_points_beside_the_comment(with_rubric):
    text = feedback_text(with_rubric, full_page="x", labels=LABELS)
    assert ("- D1: 0.5 / 2.\n  +1 Parts A, B and C placed with reasons\n"
            "  \u22120.5 Mistake count confused with the training error\n  Good: you linked this to shuffling\n"
            "  Comment: Say why the online setting matters.\n- D2: still to be marked.\n") in text
    assert D1 not in text and D2 not in text and "Sam Okafor" not in text
    # Without rubric items, the comment stays on the mark's line.
    plain = dataclasses.replace(with_rubric, written=(dataclasses.replace(with_rubric.written[0], rubric=()),))
    assert "- D1: 0.5 / 2. Comment: Say why the online setting matters.\n" in feedback_text(plain, full_page="x",
                                                                                           labels=LABELS)


def test_a_mark_that_is_not_its_items_sum_says_why_wherever_its_student_reads_it(with_rubric):
    from autograder.marking.rubrics import rubric_score

    def reads(items, adjustment=None, max_points=2.0, points=None):
        """What the student reads of a mark given with ``items`` (their points) and ``adjustment``: the mark the
        marking page would give, unless ``points`` says the gradebook holds another."""
        points = rubric_score(items, adjustment, max_points) if points is None else points
        mark = dataclasses.replace(with_rubric.written[0], points=points, comment="", adjustment=adjustment,
                                   max_points=max_points, rubric=tuple((f"item {i}", p) for i, p in enumerate(items)))
        result = dataclasses.replace(with_rubric, written=(mark,))
        page, text = feedback_html(result, labels=LABELS), feedback_text(result, full_page="x", labels=LABELS)
        lines = report.rubric_sum_lines(mark)
        for line in lines:
            assert f'<div class="rubric-sum">{line}</div>' in page and f"  {line}\n" in text
        assert page.count('class="rubric-sum"') == len(lines)
        return lines

    for items in ([1.0, 0.5], [1.0, 1.0], [1.0, -1.0], [0.1, 0.2], [-0.1, -0.2, 0.3]):
        assert reads(items) == [], f"{items}: a mark that is its items' sum needs no explaining"
    assert reads([0.1, 0.2], max_points=0.3) == [], "floating-point noise is not a cap"
    assert reads([1.0], 0.0) == [], "an adjustment of 0 is none"
    assert reads([1.0, 1.0, 0.5]) == ["The items add up to 2.5; a mark is at most 2, so they count as 2."]
    assert reads([-0.5]) == ["The items add up to \u22120.5; a mark is at least 0, so they count as 0."]
    assert reads([1.0], 0.5) == ["The marker adjusted the mark by +0.5."]
    assert reads([1.0, 1.0, 0.5], -0.5) == ["The items add up to 2.5; a mark is at most 2, so they count as 2.",
                                            "The marker adjusted the mark by \u22120.5."]
    assert reads([-0.5], 1.0) == ["The items add up to \u22120.5; a mark is at least 0, so they count as 0.",
                                  "The marker adjusted the mark by +1."]
    assert reads([1.5], 1.0) == ["The marker adjusted the mark by +1; a mark is at most 2, so it is 2."]
    assert reads([0.5], -1.0) == ["The marker adjusted the mark by \u22121; a mark is at least 0, so it is 0."]
    assert reads([0.6666667] * 3) == [], "a sum that prints as the cap is not said to be over it"
    # A mark the items no longer make (the question's points changed since it was given): nothing is explained
    # by them rather than something false.
    assert reads([1.0, 1.0, 1.0], max_points=2.0, points=3.0) == []


def test_every_lms_file_carries_the_rubric_items_and_the_questions_names(with_rubric, people):
    bob = dataclasses.replace(with_rubric, student_id="bob", source="Bob Ross_88123_assignsubmission_file_")
    files, _ = lms_feedback.build(A, [with_rubric, bob], people, sandbox_text="", labels=LABELS,
                                  when=datetime.datetime(2025, 2, 3, tzinfo=datetime.timezone.utc))
    with zipfile.ZipFile(io.BytesIO(files[lms_feedback.CANVAS_ZIP])) as zf:
        notebook = nbformat.reads(zf.read("lovelaceada_104233_5512301_x.ipynb").decode(), as_version=4)
    with zipfile.ZipFile(io.BytesIO(files[lms_feedback.MOODLE_ZIP])) as zf:
        moodle_page = zf.read(f"Bob Ross_88123_assignsubmission_file_/{A}-feedback.html").decode()
    worksheet = read_csv(files[lms_feedback.MOODLE_WORKSHEET].decode("utf-8"))[0]["Feedback comments"]
    summary, page = notebook.cells[0].source, notebook.cells[1].outputs[0].data["text/html"]
    for text in (summary, worksheet):
        assert "- D1: 0.5 / 2.\n  +1 Parts A, B and C placed with reasons\n" in text
        assert "\u22120.5 Mistake count confused with the training error" in text and D1 not in text
    for html_page in (page, moodle_page):
        assert '<span class="item-points">\u22120.5</span> Mistake count' in html_page and D1 not in html_page


def test_the_report_counts_each_rubric_item_per_question(with_rubric):
    other = dataclasses.replace(with_rubric, student_id="bob", written=(
        dataclasses.replace(with_rubric.written[0], rubric=RUBRIC[:1], points=1.0), with_rubric.written[1]))
    page = report_html(A, [with_rubric, other], labels=LABELS)
    section = page[page.index('id="rubric-items-used"'):]
    section = section[:section.index("</table>")]
    rows = [row.split("</td><td")[1:] for row in section.split("<tr>")[2:]]
    assert rows == [[' class="num">+1', ' class="comment">Parts A, B and C placed with reasons',
                     ' class="num">2 of 2</td></tr>'],
                    [' class="num">\u22120.5', ' class="comment">Mistake count confused with the training error',
                     ' class="num">1 of 2</td></tr>'],
                    [' class="num">0', ' class="comment">Good: you linked this to shuffling',
                     ' class="num">1 of 2</td></tr>']]
    assert f"D1 <code>{D1}</code>" in section, "the instructor reads both names"


def test_the_command_a_refusal_suggests_opens_the_graded_course_and_survives_a_shell(tmp_path):
    from autograder.course import COURSE_DIR

    assert totals.mark_command(A, COURSE_DIR) == f"python -m autograder mark {A}"
    folder = str(tmp_path / "a course's run")
    quoted = f"'{tmp_path}/a course'\"'\"'s run'"  # as the shell reads it back: one word with its quote
    assert totals.mark_command(A, folder) == f"python -m autograder mark {A} --course-dir {quoted}"
    assert totals.mark_command("ps 1", COURSE_DIR) == "python -m autograder mark 'ps 1'"
