"""Notes for markers never reach a student: ``export`` for every LMS, then every byte students get, read.

ps2 is recorded for six students by hand (no notebook runs), one from each place feedback goes back to:
Canvas, Moodle, Blackboard, the course's JupyterHub, a Gradescope export and a plain folder.  Their written
answers are marked on the marking page's terms (:mod:`autograder.marking.rubrics`): rubric items whose notes
are for markers, a 0-point comment item with a note too, and every mark with a marker's note and a comment.
``export`` then writes every file, and gives the hub's pages back (to a stand-in for the exchange).  Every
file a student gets is read whole, every zip opened, as it is, with its HTML entities decoded and its JSON
strings read: the rubric items and the comments are there, each question named as the notebook names it,
and no note, no TA's name.  The leak audit, which looks for the gradebook's notes, finds nothing in those
files, and finds a note planted in a copy of them.
"""

import html
import io
import json
import os
import zipfile

import nbformat
import pytest

from autograder.commands import audit as leak_audit
from autograder.commands import export
from autograder.intake import hub
from autograder.intake.lms import FeedbackRoute
from autograder.judging.integrity import answer_checksum
from autograder.marking.answers import short_checksum
from autograder.marking.rubrics import add_item, save_mark, version_of
from autograder.outputs import graded_run, lms_feedback
from autograder.outputs.gradebook import open_gradebook, page_records, record_result, written_marks
from autograder.outputs.graded_run import GradedRun, Person
from autograder.results import CellResult, Result
from perceptron_course.cells import grade_cells
from tests.support.released import copy_course

A = "ps2_online_perceptron"
D1, D2 = "written_online_batch", "written_order"
TA = "Sam Okafor"
# Each note holds a word found nowhere else, so that a copy of it is seen in any file, however it is escaped.
ITEM_NOTE = "For markers only: accept either framing of Part C, itemnotezq"
COMMENT_NOTE = "For markers only: say this when shuffling is named, commentnotezq"
UNUSED_NOTE = "For markers only: no answer got this item, unusednotezq"
MARK_NOTE = "For markers only: this answer reads like the notes of another student, marknotezq"
NOTE_WORDS = ("itemnotezq", "commentnotezq", "unusednotezq", "marknotezq")
ITEMS = {D1: [(1.0, "Parts A, B and C placed with reasons", ITEM_NOTE), (1.0, "The application and its mistake count", ""),
              (-0.5, "A batch learner is judged by its error on new data", "")],
         D2: [(2.0, "Complete: the order can change the result, with an experiment", ""),
              (-0.5, "The experiment is reported without its numbers", UNUSED_NOTE),
              (0.0, "Good: you linked this to shuffling", COMMENT_NOTE)]}
STUDENTS = {  # student id -> (Person, the items applied to D1 and to D2, by their place in ITEMS)
    "ada": Person("ada", "Ada Lovelace", "ada@example.edu", "104233", "canvas",
                  FeedbackRoute("canvas", f"lovelaceada_104233_5512301_{A}.ipynb")),
    "bob": Person("bob", "Bob Ross", "bob@example.edu", "", "moodle",
                  FeedbackRoute("moodle", "Bob Ross_88123_assignsubmission_file_", "88123")),
    "kim": Person("kim", "Katherine Johnson", "kim@example.edu", "", "blackboard",
                  FeedbackRoute("blackboard", "PS2 Online Perceptron", "kjohnson")),
    "hana": Person("hana", "Hana Ito", "hana@example.edu", "", "hub",
                   FeedbackRoute("hub", "perceptron", "hana/2025-02-01T10:00:00Z")),
    "gus": Person("gus", "Gus Grey", "gus@example.edu", "", "gradescope"),
    "pat": Person("pat", "Pat Plain", "", "", "plain"),
}


def autograded_cells(course):
    source = nbformat.read(os.path.join(course, "source", A, f"{A}.ipynb"), as_version=4)
    return grade_cells(source)[0]


def result(course, student):
    cells = [CellResult(gid, points, points, True, "Passed.") for gid, points in autograded_cells(course)]
    answers = {D1: f"{student}'s answer to the first question.", D2: f"{student}'s answer to the second question."}
    return Result(student, A, "graded", score=sum(c.points for c in cells), max_score=sum(c.max_points for c in cells),
                  cells=cells, manual_cells=[(gid, 2.0, answer_checksum(text)) for gid, text in answers.items()],
                  source=getattr(STUDENTS[student].route, "name", "") or f"{student}.ipynb")


ADJUSTED = {("kim", D2): -0.5}  # a marker's adjustment of the items' points, which kim's feedback explains


def mark_everything(gb):
    """The rubrics of ITEMS, then each student's two answers marked with items, a comment and a marker's note."""
    items = {gid: [add_item(gb, A, notebook=A, grade_id=gid, max_points=2.0, points=points, text=text, note=note)
                   for points, text, note in specs] for gid, specs in ITEMS.items()}
    applied = {D1: [0, 1], D2: [0, 2]}
    for student in STUDENTS:
        marks = {m.grade_id: m for m in written_marks(gb, A, student)[student]}
        records = page_records(gb, A, student)
        for gid in (D1, D2):
            mark = marks[gid]
            saved = save_mark(gb, A, student_id=student, notebook=A, grade_id=gid,
                              expected=version_of(mark, records.get((student, A, gid))),
                              answer_checksum=short_checksum(mark.checksum),
                              item_ids=[items[gid][i].id for i in applied[gid]], adjustment=ADJUSTED.get((student, gid)),
                              points=None,
                              comment=f"A comment for {student} on this answer.", marker=TA, note=MARK_NOTE)
            assert saved.changed, (student, gid)


@pytest.fixture(scope="module")
def exported(released_course, tmp_path_factory):
    root = tmp_path_factory.mktemp("notes")
    course = str(copy_course(released_course, root / "course"))
    results = [result(course, student) for student in STUDENTS]
    gb = open_gradebook(course)
    try:
        for r in results:
            record_result(gb, r, A)
        mark_everything(gb)
    finally:
        gb.close()
    out = root / "out"
    out.mkdir()
    graded_run.save(GradedRun(A, course, results, dict(STUDENTS), sandbox_text="bubblewrap"), str(out))
    returned = []

    def return_feedback(assignment, deliveries, *, client=None):
        returned.extend((assignment, route, page) for route, page in deliveries)
        return len(deliveries)

    patch = pytest.MonkeyPatch()
    patch.setattr(hub, "return_feedback", return_feedback)
    try:
        status = export.main([str(out)])
    finally:
        patch.undo()
    return {"status": status, "out": out, "course": course, "returned": returned}


# What the students of this run get: each LMS's files (the imports carry their grades), every feedback page
# (handed out by the instructor where no LMS file carries it: Gradescope, a plain folder), and what went back
# to the hub.
STUDENT_FILES = ("canvas_feedback.zip", "moodle_feedback.zip", "moodle_grading_worksheet.csv",
                 "blackboard_grade_center.csv", "canvas_import.csv", "moodle_import.csv", "feedback")


def every_file(out):
    """``{name: bytes}`` of every file under STUDENT_FILES, zips opened (their members named after ``!``)."""
    found = {}

    def add(name, data):
        found[name] = data
        if data[:4] == b"PK\x03\x04":
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                for member in zf.namelist():
                    add(f"{name}!{member}", zf.read(member))

    for entry in STUDENT_FILES:
        path = out / entry
        for file in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if file.is_file():
                add(str(file.relative_to(out)), file.read_bytes())
    return found


def readings(data):
    """A file's bytes as a person or a program may read them: as they are, HTML entities decoded, JSON strings."""
    text = data.decode("utf-8", errors="replace")
    texts = [text, html.unescape(text)]
    try:
        strings = []

        def walk(value):
            if isinstance(value, str):
                strings.append(value)
            elif isinstance(value, list):
                [walk(v) for v in value]
            elif isinstance(value, dict):
                [walk(v) for v in value.values()]

        walk(json.loads(text))
        texts.append(html.unescape("\n".join(strings)))
    except ValueError:
        pass
    return texts


def test_export_writes_every_lms_s_files_and_returns_the_hub_s_pages(exported):
    assert exported["status"] == 0
    files = every_file(exported["out"])
    assert {f"feedback/{student}.html" for student in STUDENTS} <= set(files)
    assert f"canvas_feedback.zip!lovelaceada_104233_5512301_{A}.ipynb" in files
    assert f"moodle_feedback.zip!Bob Ross_88123_assignsubmission_file_/{lms_feedback.moodle_page_name(A)}" in files
    assert [(assignment, route.key) for assignment, route, _ in exported["returned"]] == [
        (A, "hana/2025-02-01T10:00:00Z")]


def test_every_byte_students_get_has_the_rubric_items_and_no_note(exported):
    files = every_file(exported["out"])
    files.update({f"hub!{route.key}": page.encode() for _, route, page in exported["returned"]})
    for name, data in files.items():
        for text in readings(data):
            for word in NOTE_WORDS + (TA,):
                assert word not in text, f"{name} shows {word!r}"
            for note in (ITEM_NOTE, COMMENT_NOTE, UNUSED_NOTE, MARK_NOTE):
                assert leak_audit.normalise(note)[:30] not in leak_audit.normalise(text), f"{name}: {note}"
    # What the students should see is there: each item with its points, the comment item without, the comment,
    # and the questions as the notebook names them.
    for name in ("feedback/kim.html", "feedback/gus.html", f"hub!{STUDENTS['hana'].route.key}"):
        page = html.unescape(files[name].decode("utf-8"))
        assert "+1</span> Parts A, B and C placed with reasons" in page, name
        assert "<li>Good: you linked this to shuffling</li>" in page and "<tr><td>D2</td>" in page, name
        assert D1 not in page and D2 not in page, name
        explained = "The marker adjusted the mark by \u22120.5." in page
        assert explained == (name == "feedback/kim.html"), f"{name}: only kim's mark was adjusted"
    for name in ("moodle_grading_worksheet.csv", "blackboard_grade_center.csv"):
        text = files[name].decode("utf-8")
        assert "- D1: 2 / 2.\n  +1 Parts A, B and C placed with reasons\n  +1 The application" in text, name
        adjusted = "  The marker adjusted the mark by \u22120.5.\n" if name.startswith("blackboard") else ""
        assert f"\n  Good: you linked this to shuffling\n{adjusted}  Comment: A comment for " in text, name


def test_the_leak_audit_finds_nothing_there_and_each_note_planted_in_a_copy(exported, tmp_path):
    out, course = exported["out"], exported["course"]
    secrets = leak_audit.collect_secrets(course_dir=course)
    paths = [out / name for name in STUDENT_FILES]
    assert leak_audit.audit_upload(paths, secrets, leak_audit.recipients_of_run(out)) == []
    # A TA who pastes a note into a comment, as export's check of each hub page and audit --upload see it.
    page = (out / "feedback" / "ada.html").read_text(encoding="utf-8")
    for note, origin in ((MARK_NOTE, "a marker's note on "), (ITEM_NOTE, "the note for markers of the rubric item "),
                         (COMMENT_NOTE, "the note for markers of the rubric item 'Good: you linked")):
        leaky = page.replace("A comment for ada on this answer.", html.escape(note), 1)
        ready, held = export.feedback_to_return([("ada", None, leaky)], secrets,
                                                leak_audit.recipients_of_run(out))
        assert ready == [] and any(origin in f.what and "notes for markers never reach a student" in f.what
                                   for f in held[0][1]), note
    planted = tmp_path / "upload"
    planted.mkdir()
    (planted / "ada.html").write_text(page.replace("A comment for ada on this answer.", MARK_NOTE), encoding="utf-8")
    assert leak_audit.main(["--upload", "--run", str(out), str(planted)]) == 1
