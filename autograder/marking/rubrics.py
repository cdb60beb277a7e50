"""Rubrics, and marks given on the marking page: the checks and the writes, each in one transaction.

A question's rubric is a list of items, each with points (negative for a
deduction) and a text, kept in the gradebook
(:data:`autograder.outputs.gradebook.RUBRIC_TABLE`).  A TA marks an answer
either with rubric items, its mark then being their points' sum clamped to
``[0, max]`` plus an optional adjustment (the result clamped to
``[0, max]`` again), or by typing the points.  Either way the mark is the
grade's ``manual_score`` and the comment its ``manual_comment``, as for the
CSV route; the page records beside it who marked, when, and which items
(:func:`autograder.outputs.gradebook.page_records`).

Two TAs may mark at once, on one server or on two sharing the gradebook.
The page sends, with each answer's form, the :func:`version_of` the mark it
showed; :func:`save_mark` takes the gradebook's write lock, compares it with
the mark as it is now, and refuses (:class:`Conflict`) when someone changed
the mark, the rubric items applied or the answer itself in between, unless
the save asks for exactly what is there already.  Nothing is written then:
the page shows both marks and lets the TA choose.

Changing an item's points re-scores, in the same transaction, every answer
whose mark the item is part of (:func:`change_item`); an answer whose points
were changed elsewhere since (the CSV route, the formgrader) or whose
student resubmitted is left alone.  An item still applied to an answer
cannot be deleted: set its points to 0, or take it off the answers first.
"""

import dataclasses
import datetime
import hashlib
import json
import math
from dataclasses import dataclass

from autograder.marking.answers import short_checksum
from autograder.marking.sheet import mark_checksum, typed_number
from autograder.outputs.gradebook import (GradebookError, MarkChange, begin_write, page_records, page_tables,
                                          rubric_items, stage_mark, stage_marks, written_marks)
from autograder.outputs.totals import rubric_steps

__all__ = ["RubricError", "Conflict", "Saved", "Mark", "Target", "save_marks", "parse_number", "rubric_score", "current_record", "mark_of",
           "version_of", "save_mark", "add_item", "change_item", "delete_item", "MAX_TEXT", "MAX_COMMENT"]

MAX_TEXT = 500
MAX_COMMENT = 20000


class RubricError(ValueError):
    """A mark or a rubric item the page cannot take; the message says what was wrong and what is expected, and
    ``field`` names the form's field to mend, when one does (a mark's ``"points"``, ``"adjustment"``, ``"comment"``
    or ``"note"``; a rubric item's ``"points"``, ``"text"`` or ``"note"``)."""

    def __init__(self, message, field=None):
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class Mark:
    """A mark as the page shows and compares it: points (``None`` while unmarked), comment, rubric items
    (their ids) and adjustment, who gave it and when (``""`` when not on this page)."""

    points: float
    comment: str
    items: tuple = ()
    adjustment: float = None
    marker: str = ""
    marked_at: str = ""
    note: str = ""

    def same_as(self, other):
        return (_same(self.points, other.points) and self.comment.strip() == other.comment.strip()
                and tuple(self.items) == tuple(other.items) and _same(self.adjustment, other.adjustment)
                and self.note.strip() == other.note.strip())


@dataclass(frozen=True)
class Conflict:
    """A save refused: the mark someone else gave since the form was opened (``theirs``), the one the form
    asked for (``yours``), whether the student's answer itself changed, and the mark's version now."""

    theirs: Mark
    yours: Mark
    answer_changed: bool
    version: str


@dataclass(frozen=True)
class Saved:
    """A save that went through: the mark now in the gradebook, and whether it differs from the one before."""

    mark: Mark
    changed: bool


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def parse_number(text, *, what, low, high, field=None):
    """``text`` as a number from ``low`` to ``high`` (``None`` when empty); :class:`RubricError` (naming ``field``)
    otherwise."""
    text = (text or "").strip()
    try:
        value = typed_number(text)
    except ValueError as hint:
        raise RubricError(f"{what} {text!r} is not a number{hint}; give a number from {low:g} to {high:g}",
                          field) from None
    if value is None:
        return None
    if (value < low and not math.isclose(value, low)) or (value > high and not math.isclose(value, high)):
        raise RubricError(f"{what} {text} is outside {low:g} to {high:g}", field)
    return min(max(value, low), high)


def rubric_score(points, adjustment, max_points):
    """The mark of rubric items worth ``points`` (a list): their sum clamped to ``[0, max_points]``, plus the
    adjustment, clamped again (:func:`~autograder.outputs.totals.rubric_steps`)."""
    return rubric_steps(points, adjustment, max_points).mark


def current_record(mark, record):
    """The page's record of ``mark`` (a :class:`~autograder.outputs.gradebook.WrittenMark`) if it is of the
    mark the answer has now, else ``None``."""
    return record if record is not None and record.describes(mark.checksum, mark.points) else None


def mark_of(mark, record):
    """The :class:`Mark` of a written mark and the page's record of it."""
    record = current_record(mark, record)
    if record is None:
        return Mark(mark.points, mark.comment or "")
    return Mark(mark.points, mark.comment or "", tuple(item.id for item in record.items), record.adjustment,
                record.marker, record.marked_at, record.note)


def version_of(mark, record):
    """A short checksum of everything a TA sees of a mark: points and comment (the marking CSV's
    :func:`~autograder.marking.sheet.mark_checksum`), the rubric items and the adjustment, and the answer."""
    shown = mark_of(mark, record)
    payload = [mark_checksum(mark), mark.checksum, mark.blank, list(shown.items), shown.adjustment]
    if shown.note:
        payload.append(shown.note)  # only when there is one, so that a version given before notes stays the same
    return hashlib.sha256(json.dumps(payload).encode("utf-8")).hexdigest()[:20]


def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


@dataclass(frozen=True)
class Target:
    """One answer a save is for: the student, the :func:`version_of` the mark the form showed, and the checksum of
    the answer it showed (as :func:`~autograder.marking.answers.short_checksum` writes it)."""

    student_id: str
    expected: str
    answer_checksum: str


def _write_records(gb, assignment, notebook, grade_id, written, *, marker, marked_at, note):
    """The page's records of the marks ``written`` (``(student_id, checksum, points, Mark)``) of one question,
    replacing those before, in a few statements whatever their number."""
    _, applied, markers = page_tables()
    students = [student for student, _, _, _ in written]
    for table in (markers, applied):
        gb.db.execute(table.delete().where((table.c.assignment == assignment) & (table.c.notebook == notebook)
                                           & (table.c.cell == grade_id) & table.c.student.in_(students)))
    gb.db.execute(markers.insert(), [
        {"assignment": assignment, "student": student, "notebook": notebook, "cell": grade_id, "marker": marker,
         "marked_at": marked_at, "checksum": checksum, "points": points, "adjustment": mark.adjustment,
         "note": note or None} for student, checksum, points, mark in written])
    uses = [{"assignment": assignment, "student": student, "notebook": notebook, "cell": grade_id, "item": item}
            for student, _, _, mark in written for item in mark.items]
    if uses:
        gb.db.execute(applied.insert(), uses)


def save_mark(gb, assignment, *, student_id, notebook, grade_id, expected, answer_checksum, item_ids, adjustment,
              points, comment, marker, note=""):
    """Save a TA's mark of one answer, or refuse it; return :class:`Saved` or :class:`Conflict`.

    ``expected`` is the :func:`version_of` the mark the TA's form showed and
    ``answer_checksum`` the checksum of the answer it showed; ``item_ids``
    the rubric items applied (the mark is then theirs, and ``points`` is not
    read), else ``points`` typed (``None``: unmarked; for a blank answer, the
    0 it has).  ``note`` is for the markers only.  Raises
    :class:`RubricError` for what no mark can be (an item of another
    question, an adjustment without items, a comment too long).
    """
    outcomes = save_marks(gb, assignment, notebook=notebook, grade_id=grade_id,
                          targets=[Target(student_id, expected, answer_checksum)], item_ids=item_ids,
                          adjustment=adjustment, points=points, comment=comment, marker=marker, note=note)
    return outcomes[0]


def save_marks(gb, assignment, *, notebook, grade_id, targets, item_ids, adjustment, points, comment, marker,
               note=""):
    """Give every answer of ``targets`` (:class:`Target`) the same mark, all in one transaction or none.

    Return one :class:`Saved` or :class:`Conflict` per target, in order:
    when any target's mark or answer changed since its form showed it,
    nothing is written, the others' outcomes say what they would have been
    (``Saved``, though nothing was written), and the caller shows the
    conflicts.  A target whose mark is
    already the one asked for is left as it is (``Saved`` with ``changed``
    false).  This is how a group is marked: each member's mark is written as
    marking it alone would write it.
    """
    if len(comment) > MAX_COMMENT:
        raise RubricError(f"the comment has {len(comment)} characters; keep it under {MAX_COMMENT}", "comment")
    note = _checked_note(note)
    if not marker:
        raise RubricError("give your name first: the gradebook records who marked each answer")
    begin_write(gb)
    try:
        items = {item.id: item for item in rubric_items(gb, assignment, notebook, grade_id)}
        unknown = [item for item in item_ids if item not in items]
        if unknown:
            raise RubricError(f"rubric item {unknown[0]} is not an item of {grade_id}: the rubric was changed "
                              "since the page was opened; open the answer again")
        if adjustment is not None and not item_ids:
            raise RubricError("an adjustment changes the points of the rubric items applied, and none is; "
                              "apply an item, or type the points instead", "adjustment")
        chosen = sorted((items[item] for item in set(item_ids)), key=lambda item: (item.position, item.id))
        wanted = {target.student_id for target in targets}
        marks = {sid: next((m for m in student_marks if (m.notebook, m.grade_id) == (notebook, grade_id)), None)
                 for sid, student_marks in _marks_of(gb, assignment, wanted).items()}
        records = page_records(gb, assignment, next(iter(wanted)) if len(wanted) == 1 else wanted)
        outcomes, writes = [], []
        for target in targets:
            mark = marks.get(target.student_id)
            if mark is None:
                raise GradebookError(f"the gradebook holds no written answer {grade_id!r} of {target.student_id!r} "
                                     f"in {assignment}/{notebook}")
            record = records.get((target.student_id, notebook, grade_id))
            if chosen:
                manual = shown = rubric_score([item.points for item in chosen], adjustment, mark.max_points)
            elif points is not None and not 0 <= points <= mark.max_points:
                raise RubricError(f"the points {points:g} are outside 0 to {mark.max_points:g}", "points")
            else:
                manual = None if mark.blank and (points is None or points == 0) else points
                shown = 0.0 if mark.blank and manual is None else manual
            now = mark_of(mark, record)
            yours = Mark(shown, comment.strip(), tuple(item.id for item in chosen), adjustment if chosen else None,
                         marker, note=note)
            if yours.same_as(now):
                outcomes.append(Saved(now, False))
                continue
            version = version_of(mark, record)
            if version != target.expected:
                outcomes.append(Conflict(now, yours, answer_changed=short_checksum(mark.checksum) != target.answer_checksum,
                                         version=version))
                continue
            outcomes.append(None)
            writes.append((len(outcomes) - 1, target, mark, manual, shown, yours))
        if any(isinstance(outcome, Conflict) for outcome in outcomes) or not writes:
            gb.db.rollback()
            for index, *_, yours in writes:
                outcomes[index] = Saved(yours, True)  # what it would have been: nothing was written
            return outcomes
        when = _now()
        stage_marks(gb, assignment, notebook, grade_id,
                    [MarkChange(target.student_id, notebook, grade_id, manual, yours.comment)
                     for _, target, _, manual, _, yours in writes])
        _write_records(gb, assignment, notebook, grade_id, [
            (target.student_id, mark.checksum, shown, yours) for _, target, mark, _, shown, yours in writes],
            marker=marker, marked_at=when, note=note)
        for index, _, _, _, _, yours in writes:
            outcomes[index] = Saved(dataclasses.replace(yours, marked_at=when), True)
        gb.db.commit()
        return outcomes
    except BaseException:
        gb.db.rollback()
        raise


def _marks_of(gb, assignment, student_ids):
    """``{student_id: (WrittenMark, ...)}`` of the given students: one student's read alone, several read at once."""
    if len(student_ids) == 1:
        return written_marks(gb, assignment, next(iter(student_ids)))
    return written_marks(gb, assignment, set(student_ids))


def _checked_item(text, points, max_points):
    text = " ".join((text or "").split())
    if not text:
        raise RubricError("a rubric item needs a text that says what it is for", "text")
    if len(text) > MAX_TEXT:
        raise RubricError(f"a rubric item's text has {len(text)} characters; keep it under {MAX_TEXT}", "text")
    if points is None:
        raise RubricError(f"a rubric item needs points: a number from {-max_points:g} to {max_points:g} "
                          "(negative for a deduction)", "points")
    return text, points


def _checked_note(note):
    note = (note or "").replace("\r\n", "\n").strip()
    if len(note) > MAX_COMMENT:
        raise RubricError(f"the note for markers has {len(note)} characters; keep it under {MAX_COMMENT}", "note")
    return note


def add_item(gb, assignment, *, notebook, grade_id, max_points, points, text, note=""):
    """Add an item at the end of a question's rubric; return its :class:`~autograder.outputs.gradebook.RubricItem`.

    ``text`` reaches every student the item is applied to; ``note`` is for the markers only."""
    text, points = _checked_item(text, points, max_points)
    note = _checked_note(note)
    rubric, _, _ = page_tables()
    begin_write(gb)
    try:
        items = rubric_items(gb, assignment, notebook, grade_id)
        position = max((item.position for item in items), default=0) + 1
        gb.db.execute(rubric.insert().values(assignment=assignment, notebook=notebook, cell=grade_id,
                                             position=position, points=points, text=text, note=note or None))
        gb.db.commit()
    except BaseException:
        gb.db.rollback()
        raise
    return rubric_items(gb, assignment, notebook, grade_id)[-1]


def _find_item(gb, assignment, item_id):
    item = next((item for item in rubric_items(gb, assignment) if item.id == item_id), None)
    if item is None:
        raise RubricError(f"there is no rubric item {item_id} in {assignment}: someone deleted it since the page "
                          "was opened")
    return item


def _uses(gb, assignment, item):
    """``[(WrittenMark, PageRecord)]``: the answers whose current mark has ``item`` among its rubric items."""
    marks = written_marks(gb, assignment)
    records = page_records(gb, assignment)
    found = []
    for student_id, student_marks in marks.items():
        for mark in student_marks:
            if (mark.notebook, mark.grade_id) != (item.notebook, item.grade_id):
                continue
            record = current_record(mark, records.get((student_id, mark.notebook, mark.grade_id)))
            if record is not None and any(used.id == item.id for used in record.items):
                found.append((student_id, mark, record))
    return found


def change_item(gb, assignment, item_id, *, max_points, points, text, note=""):
    """Give a rubric item new points, text and note, and re-score every answer it is part of; return
    ``(re-scored, changed)``: how many answers it is part of, and how many of their marks the new points changed."""
    text, points = _checked_item(text, points, max_points)
    note = _checked_note(note)
    rubric, _, markers = page_tables()
    begin_write(gb)
    try:
        item = _find_item(gb, assignment, item_id)
        uses = _uses(gb, assignment, item)
        gb.db.execute(rubric.update().where(rubric.c.id == item_id).values(points=points, text=text,
                                                                           note=note or None))
        changed = 0
        for student_id, mark, record in uses:
            weights = [points if used.id == item_id else used.points for used in record.items]
            score = rubric_score(weights, record.adjustment, mark.max_points)
            if _same(score, mark.points):
                continue
            stage_mark(gb, assignment, MarkChange(student_id, mark.notebook, mark.grade_id, score, mark.comment))
            gb.db.execute(markers.update().where(
                (markers.c.assignment == assignment) & (markers.c.student == student_id)
                & (markers.c.notebook == mark.notebook) & (markers.c.cell == mark.grade_id)).values(points=score))
            changed += 1
        gb.db.commit()
        return len(uses), changed
    except BaseException:
        gb.db.rollback()
        raise


def delete_item(gb, assignment, item_id):
    """Delete a rubric item that no answer's mark uses; :class:`RubricError` names how many do otherwise."""
    rubric, applied, _ = page_tables()
    begin_write(gb)
    try:
        item = _find_item(gb, assignment, item_id)
        uses = _uses(gb, assignment, item)
        if uses:
            raise RubricError(f"the item {item.text!r} is part of the mark of {len(uses)} "
                              f"{'answer' if len(uses) == 1 else 'answers'}; set its points to 0 (which re-scores "
                              "them), or take it off those answers first")
        # Applications left from answers since changed or re-marked elsewhere describe no mark any more.
        gb.db.execute(applied.delete().where(applied.c.item == item_id))
        gb.db.execute(rubric.delete().where(rubric.c.id == item_id))
        gb.db.commit()
        return item
    except BaseException:
        gb.db.rollback()
        raise
