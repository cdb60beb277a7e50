"""The starting rubrics of the registry (``autograder/course/assignments/<assignment>/rubric.py``).

Read against the source notebooks, as the instructor keeps them: every starting rubric names only written
questions that exist, has the shape it says (parts that add up to the question's points, or one full mark
and deductions), and reaches the question's maximum with its best answer, and no more; every written
question has one.  What students see of it (the items' texts, on a feedback page) passes the leak audit,
and its notes for markers are what the audit looks for, yet appear in nothing the course publishes (the
book's chapters, the parts of the notebooks a release keeps).  Fast: no release, no gradebook.
"""

import html
import json

import nbformat
import pytest

from autograder.commands import audit as leak_audit
from autograder.course import assignments
from autograder.course.rubric import DEDUCTIONS, PARTS, Item, deductions, parts, problems
from autograder.marking.rubrics import MAX_TEXT, rubric_score
from perceptron_course.cells import grade_cells, is_solution
from tests.support import REPO_ROOT

SOURCE = REPO_ROOT / "notebooks" / "source"
ASSIGNMENTS = tuple(assignments.names())


def written_questions(assignment):
    """``{grade_id: points}`` of the written questions of an assignment's source notebook."""
    nb = nbformat.read(str(SOURCE / assignment / f"{assignment}.ipynb"), as_version=4)
    return dict(grade_cells(nb)[1])


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_every_written_question_has_a_starting_rubric_and_no_other_question_does(assignment):
    rubric = assignments.load_rubric(assignment)
    assert sorted(rubric) == sorted(written_questions(assignment)), \
        f"{assignments.rubric_file(assignment)} names {sorted(rubric)}; the written questions are " \
        f"{sorted(written_questions(assignment))}"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_each_starting_rubric_has_its_shape_and_its_best_mark_is_the_maximum(assignment):
    for grade_id, points in written_questions(assignment).items():
        rubric = assignments.load_rubric(assignment)[grade_id]
        assert problems(rubric, points) == [], (assignment, grade_id)
        assert rubric.style in (PARTS, DEDUCTIONS)
        positive = [item.points for item in rubric.items if item.points > 0]
        # The mark of an answer that earns every item, as the marking page computes it: the maximum, reached
        # without clamping, so that no item is worth nothing at the top.
        assert rubric_score(positive, None, points) == points and sum(positive) == pytest.approx(points)
        if rubric.style == DEDUCTIONS:
            assert positive == [points] and rubric.items[0].points == points, "the full mark comes first"
        # Every deduction, ticked after the full mark, lowers it (the sum is clamped at 0, never below).
        for item in rubric.items:
            assert len(item.text) <= MAX_TEXT and item.text == " ".join(item.text.split())
            if item.points < 0:
                assert rubric_score(positive + [item.points], None, points) < points


def test_a_rubric_that_cannot_mark_its_question_is_named_with_what_is_wrong():
    assert problems(parts(Item(1, "Half"), Item(0.5, "A quarter")), 2.0) == [
        "its parts add up to 1.5, not to the question's 2 points"]
    assert problems(parts(Item(2, "All"), Item(-0.5, "Less")), 2.0) == [
        "a rubric of parts has a deduction; make it a rubric of deductions, or leave it out"]
    assert "exactly one item worth the question's 2 points" in problems(
        deductions(Item(1, "Half"), Item(1, "The other half")), 2.0)[0]
    assert "is worth 3; give a number from -2 to 2" in problems(deductions(Item(3, "Too much")), 2.0)[0]
    assert problems(deductions(Item(2, "All"), Item(-1, "  ")), 2.0) == ["an item has no text"]
    assert problems(deductions(Item(2, "All"), Item(-1, "All")), 2.0) == ["the item 'All' is there twice"]


@pytest.fixture(scope="module")
def secrets():
    return leak_audit.collect_secrets(REPO_ROOT)


def every_item():
    return [(assignment, grade_id, item) for assignment in ASSIGNMENTS
            for grade_id, rubric in assignments.load_rubric(assignment).items() for item in rubric.items]


def test_what_students_see_of_the_starting_rubrics_passes_the_leak_audit(secrets):
    # Every item ticked on one page, as the feedback shows them: nothing of the model answers, the marking guides
    # (which are part of them) or the notes.
    items = "".join(f"<li>{html.escape(item.text)}</li>" for _, _, item in every_item())
    page = f"<!DOCTYPE html><html lang='en'><body><ul>{items}</ul></body></html>".encode()
    assert leak_audit.audit_upload_bytes("feedback/ada.html", page, secrets) == []


def test_the_notes_of_the_starting_rubrics_are_secrets_the_audit_finds(secrets):
    notes = [item.note for _, _, item in every_item() if item.note]
    assert len(notes) >= 20
    for note in notes:
        assert len(leak_audit.normalise(note)) >= leak_audit.MIN_NOTE_CHARS, f"too short to be looked for: {note}"
        page = f"<html><body><p>{html.escape(note)}</p></body></html>".encode()
        findings = leak_audit.audit_upload_bytes("feedback/ada.html", page, secrets)
        # A note that several rubrics share ("tick this instead of the half above") is named by its first.
        assert any("a note for markers in the starting rubric autograder/course/assignments/" in f.what
                   for f in findings), note


def published_texts():
    """The book's chapters and every part of the source notebooks a release keeps, as text."""
    texts = {str(path.relative_to(REPO_ROOT)): path.read_text(encoding="utf-8")
             for path in sorted((REPO_ROOT / "book").rglob("*.md"))}
    for path in sorted(SOURCE.rglob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        kept = ["".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
                for cell in cells if not is_solution(cell)]
        texts[str(path.relative_to(REPO_ROOT))] = "\n".join(kept)
    return texts


def test_no_note_of_a_starting_rubric_is_in_what_the_course_publishes():
    # A note that quotes what is published anyway would be no secret: the audit would pass it over.
    texts = {name: ["".join(view) for view in leak_audit.text_views(text)] for name, text in published_texts().items()}
    assert len(texts) > 10
    for _, _, item in every_item():
        for line in map(leak_audit.normalise, item.note.splitlines()):
            assert not any(line in flat for views in texts.values() for flat in views), item.note
