"""The written answers' marks in nbgrader's gradebook (:mod:`autograder.outputs.gradebook`), kept through regrades.

A TA's mark and comment are the ``manual_score`` and ``manual_comment`` of
the answer's grade and comment.  A regrade replaces a submission's record;
these tests record results by hand (no sandbox) into a copy of the released
course, mark them as a TA would, record again, and read what the gradebook
holds: every mark on an unchanged answer is kept, a blank answer's included;
a mark on an answer the student changed is set aside with the answer's old
checksum and listed for re-marking, never carried over unseen.  Then what
the formgrader needs: the submission in ``submitted/``, its time, the names.
"""

import os

import nbformat
import pytest
import sqlalchemy

from autograder.judging.integrity import answer_checksum
from autograder.outputs.gradebook import (MarkChange, open_gradebook, record_result, record_students, set_marks,
                                          written_marks)
from autograder.outputs.graded_run import Person
from autograder.outputs.record import record
from autograder.results import CellResult, Result, Settings
from perceptron_course.cells import grade_cells
from tests.support import COURSE
from tests.support.released import copy_course

A = "ps2_online_perceptron"
D1, D2 = "written_online_batch", "written_order"


@pytest.fixture
def gradebook(released_course, tmp_path):
    """A fresh copy of the released course's gradebook, open; and the course folder."""
    course = copy_course(released_course, tmp_path / "course")
    gb = open_gradebook(str(course))
    yield gb, course
    gb.close()


def autograded_cells():
    """``(grade_id, points)`` of ps2's test cells, as the instructor's notebook declares them."""
    source = nbformat.read(os.path.join(COURSE, "source", A, f"{A}.ipynb"), as_version=4)
    return grade_cells(source)[0]


def result(student, answers, *, status="graded", submitted_at="", notebook=None):
    """A judged ps2 result: every test passed, and the written answers ``{grade_id: text or None (blank)}``."""
    cells = [CellResult(gid, points, points, True, "Passed.") for gid, points in autograded_cells()]
    return Result(student, A, status, score=sum(c.points for c in cells), max_score=sum(c.max_points for c in cells),
                  cells=cells, manual_cells=[(gid, 2.0, None if text is None else answer_checksum(text))
                                             for gid, text in answers.items()],
                  submitted_at=submitted_at, autograded_notebook=notebook)


def marks_of(gb, student):
    return {m.grade_id: m for m in written_marks(gb, A, student)[student]}


def mark(gb, student, grade_id, points, comment=""):
    set_marks(gb, A, [MarkChange(student, A, grade_id, points, comment)])


def test_a_comment_on_a_blank_answer_survives_a_regrade(gradebook):
    gb, _ = gradebook
    record_result(gb, result("bea", {D1: None, D2: "An answer."}), A)
    mark(gb, "bea", D1, None, "No answer: read section 2 of the notes.")
    record_result(gb, result("bea", {D1: None, D2: "An answer."}), A)
    kept = marks_of(gb, "bea")[D1]
    assert kept.comment == "No answer: read section 2 of the notes."
    assert kept.blank and kept.marked and kept.points == 0 and kept.earlier is None


def test_points_given_to_a_blank_answer_survive_a_regrade(gradebook):
    gb, _ = gradebook
    record_result(gb, result("cy", {D1: None, D2: None}), A)
    mark(gb, "cy", D2, 0.5, "Half a point for the diagram you drew elsewhere.")
    record_result(gb, result("cy", {D1: None, D2: None}), A)
    assert (marks_of(gb, "cy")[D2].points, marks_of(gb, "cy")[D2].comment) == \
        (0.5, "Half a point for the diagram you drew elsewhere.")


def test_the_mark_of_an_unchanged_answer_survives_a_regrade(gradebook):
    gb, _ = gradebook
    record_result(gb, result("ann", {D1: "Online: one at a time.", D2: "Yes."}), A)
    mark(gb, "ann", D1, 1.5, "Say what the learner predicts.")
    record_result(gb, result("ann", {D1: "Online: one at a time.\n", D2: "Yes."}), A)  # same text, new line
    marks = marks_of(gb, "ann")
    assert (marks[D1].points, marks[D1].comment, marks[D1].to_remark) == (1.5, "Say what the learner predicts.", False)
    assert not marks[D2].marked and marks[D2].earlier is None


def test_a_changed_answer_s_mark_is_set_aside_for_remarking_not_carried_over(gradebook):
    gb, _ = gradebook
    record_result(gb, result("dan", {D1: "First answer.", D2: "Yes."}), A)
    mark(gb, "dan", D1, 2.0, "Complete.")
    record_result(gb, result("dan", {D1: "A different answer.", D2: "Yes."}), A)
    changed = marks_of(gb, "dan")[D1]
    assert not changed.marked and changed.comment == "" and changed.to_remark
    assert (changed.earlier.points, changed.earlier.comment, changed.earlier.checksum) == \
        (2.0, "Complete.", answer_checksum("First answer."))
    grade = gb.find_grade(D1, A, A, "dan")
    assert grade.needs_manual_grade and grade.manual_score is None


def test_an_earlier_mark_waits_through_regrades_and_returns_with_its_answer(gradebook):
    gb, _ = gradebook
    record_result(gb, result("eve", {D1: "Marked answer.", D2: None}), A)
    mark(gb, "eve", D1, 1.0, "Half right.")
    record_result(gb, result("eve", {D1: "Second try.", D2: None}), A)
    record_result(gb, result("eve", {D1: "Third try.", D2: None}), A)
    assert marks_of(gb, "eve")[D1].earlier.checksum == answer_checksum("Marked answer."), "the TA's mark, not a copy"
    record_result(gb, result("eve", {D1: "Marked answer.", D2: None}), A)
    back = marks_of(gb, "eve")[D1]
    assert (back.points, back.comment, back.earlier) == (1.0, "Half right.", None)


def test_a_new_mark_settles_the_earlier_one(gradebook):
    gb, _ = gradebook
    record_result(gb, result("fay", {D1: "One.", D2: None}), A)
    mark(gb, "fay", D1, 1.0)
    record_result(gb, result("fay", {D1: "Two.", D2: None}), A)
    assert marks_of(gb, "fay")[D1].to_remark
    mark(gb, "fay", D1, 2.0, "Better.")
    settled = marks_of(gb, "fay")[D1]
    assert (settled.points, settled.earlier, settled.to_remark) == (2.0, None, False)


def test_an_ungradable_resubmission_sets_the_marks_aside_and_counts_zero(gradebook):
    gb, _ = gradebook
    record_result(gb, result("gus", {D1: "An answer.", D2: None}), A)
    mark(gb, "gus", D1, 2.0, "Good.")
    broken = Result("gus", A, "ungradable", reason="the file is not valid JSON", max_score=10.0,
                    manual_cells=[(D1, 2.0, None), (D2, 2.0, None)])
    record_result(gb, broken, A)
    marks = marks_of(gb, "gus")
    assert marks[D1].blank and marks[D1].score == 0 and marks[D1].earlier.points == 2.0
    assert not marks[D1].to_remark, "no answer to mark: it counts 0, and the earlier mark is kept aside"


def test_a_regrade_keeps_a_mark_that_only_the_autograded_notebook_records(gradebook):
    # A gradebook graded before the grader recorded answers' checksums: the old autograded notebook says
    # what the answer was.
    gb, _ = gradebook
    record_result(gb, result("hal", {D1: "Kept.", D2: None}), A)
    gb.db.execute(sqlalchemy.text("DELETE FROM autograder_written_answers WHERE student = 'hal'"))
    gb.db.commit()
    mark(gb, "hal", D1, 1.0)
    record_result(gb, result("hal", {D1: "Kept.", D2: None}), A,
                  previous_answers={D1: answer_checksum("Kept."), D2: answer_checksum("YOUR ANSWER HERE")})
    assert marks_of(gb, "hal")[D1].points == 1.0 and not marks_of(gb, "hal")[D1].to_remark
    record_result(gb, result("hal", {D1: "Changed.", D2: None}), A)
    assert marks_of(gb, "hal")[D1].to_remark


def test_a_comment_on_a_blank_answer_of_an_older_record_survives(gradebook, tmp_path):
    # The old autograded notebook holds the release's text in the answer cell: blank, as the new submission.
    gb, course = gradebook
    release = (course / "release" / A / f"{A}.ipynb").read_text(encoding="utf-8")

    def graded_blank():
        record(result("kim", {D1: None, D2: None}, notebook=release), gb=gb, course_dir=str(course),
               out_dir=str(tmp_path / "out"), notebook_name=f"{A}.ipynb", settings=Settings(), sandbox_text="")

    graded_blank()
    gb.db.execute(sqlalchemy.text("DELETE FROM autograder_written_answers WHERE student = 'kim'"))
    gb.db.commit()
    mark(gb, "kim", D1, None, "Try it next time.")
    graded_blank()
    assert marks_of(gb, "kim")[D1].comment == "Try it next time."


def test_what_the_formgrader_needs_is_recorded(gradebook, tmp_path):
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    gb, course = gradebook
    release = (course / "release" / A / f"{A}.ipynb").read_text(encoding="utf-8")
    timed = result("ivy", {D1: "Mine.", D2: None}, submitted_at="2025-01-31T23:40:12+00:00", notebook=release)
    untimed = result("joe", {D1: None, D2: None}, notebook=release)
    for each in (timed, untimed):
        record(each, gb=gb, course_dir=str(course), out_dir=str(tmp_path / "out"), notebook_name=f"{A}.ipynb",
               settings=Settings(), sandbox_text="")
    record_students(gb, {"ivy": Person("ivy", "Ivy Lee-Smith", "ivy@example.edu", "104233"),
                         "joe": Person("joe", "Joe", ""), "nobody": Person("nobody", "No Submission")})
    submitted = course / "submitted" / "ivy" / A
    assert (submitted / f"{A}.ipynb").read_text(encoding="utf-8") == release
    assert (submitted / "timestamp.txt").read_text(encoding="utf-8") == "2025-01-31T23:40:12+00:00"
    assert not (course / "submitted" / "joe" / A / "timestamp.txt").exists()

    config = Config()
    config.CourseDirectory.root = str(course)
    api = NbGraderAPI(CourseDirectory(config=config), config=config)
    assert api.get_assignment(A)["num_submissions"] == 2
    listed = {s["student"]: s for s in api.get_submissions(A)}
    assert listed["ivy"]["autograded"] and listed["joe"]["autograded"], "the formgrader shows both as graded"
    assert (listed["ivy"]["first_name"], listed["ivy"]["last_name"]) == ("Ivy", "Lee-Smith")
    assert listed["ivy"]["display_timestamp"] is not None and listed["joe"]["display_timestamp"] is None
    student = gb.find_student("ivy")
    assert (student.email, student.lms_user_id) == ("ivy@example.edu", "104233")
    assert gb.find_student("joe").last_name == "Joe"
    assert "nobody" not in {s.id for s in gb.students}, "a student without a submission is not added"


def test_every_written_question_is_named_as_its_notebook_names_it(gradebook):
    from autograder.course.assignments import names
    from autograder.outputs.record import question_names

    gb, course = gradebook
    found = {assignment: sorted(question_names(gb, str(course), assignment).values()) for assignment in names()}
    # Part E of ps1 and ps5, Part D of the others; each answer cell follows a cell for the student's experiments
    # in some of them, and the name is found above it.
    assert found == {"ps1_hyperplanes": ["E1", "E2"], "ps2_online_perceptron": ["D1", "D2"],
                     "ps3_convergence": ["D1", "D2"], "ps4_offset": ["D1", "D2"], "ps5_voted_averaged": ["E1", "E2"]}
    # The feedback page a run writes as it records each result names them so too.
    record(result("ivy", {D1: "Mine.", D2: None}), gb=gb, course_dir=str(course), out_dir=str(course / "out"),
           notebook_name=f"{A}.ipynb", settings=Settings(), sandbox_text="",
           labels=question_names(gb, str(course), A))
    page = (course / "out" / "feedback" / "ivy.html").read_text(encoding="utf-8")
    assert "<tr><td>D1</td>" in page and D1 not in page
