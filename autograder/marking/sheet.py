"""The marking CSV: every written answer on a row, written out for TAs and read back into the gradebook.

:func:`sheet_text` writes one row per written answer, question by question
(the columns are :data:`COLUMNS`): the student, the question, the answer's
text, the question's points, the mark and comment the gradebook holds now
(empty while unmarked; a blank answer is marked 0), the state of the
answer, the earlier mark of an answer the student has since changed, and
two checksums: of the answer as it was graded and of the mark as it was
when the CSV was written.  A TA fills in ``points`` and ``comment``.

:func:`read_sheet` reads the file back and checks every row before anything
is written: the student has a submission, the question is a written one,
the points are a number from 0 to the question's maximum, the answer is
still the one the CSV was written with, and a mark the row changes was not
changed by someone else in the meantime.  Each problem names its row (as a
spreadsheet numbers it, the header being row 1) and what was expected; the
marks are written only when there is none, all in one transaction
(:func:`autograder.outputs.gradebook.set_marks`).  Rows left out of the file
leave their answers as they are.
"""

import csv
import hashlib
import io
import json
import math
import re
from dataclasses import dataclass, field

from autograder.marking.answers import short_checksum
from autograder.outputs.exports import csv_text
from autograder.outputs.gradebook import MarkChange

__all__ = ["COLUMNS", "REQUIRED", "SheetRead", "sheet_text", "read_sheet", "mark_checksum", "status_of"]

COLUMNS = ("student_id", "student_name", "question", "answer", "max_points", "points", "comment", "status",
           "earlier_points", "earlier_comment", "notebook", "answer_checksum", "mark_checksum")
REQUIRED = ("student_id", "question", "points", "comment", "answer_checksum", "mark_checksum")
# What csv_text puts before a cell a spreadsheet would run as a formula; taken off again when read.
_GUARDED = ("=", "+", "-", "@", "\t", "\r")


@dataclass
class SheetRead:
    """What a marking CSV asks for: the marks that change, how many rows change nothing, and every problem."""

    changes: list = field(default_factory=list)  # MarkChange
    unchanged: int = 0
    problems: list = field(default_factory=list)  # sentences, each naming its row


def status_of(mark):
    """The state of a written answer, in words for the CSV's ``status`` column."""
    if mark.to_remark:
        return "to mark again: the student changed an answer that had a mark (see earlier_points)"
    if not mark.marked:
        return "to mark"
    if mark.blank:
        return "blank: marked 0 unless you give points"
    return "marked"


def mark_checksum(mark):
    """A checksum of a mark's points and comment, to tell whether someone changed it since the CSV was written."""
    digest = hashlib.sha256(json.dumps([mark.points, mark.comment]).encode("utf-8")).hexdigest()
    return short_checksum(digest)


def sheet_text(answers):
    """The CSV text of ``answers`` (:class:`~autograder.marking.answers.Answer`), in their order.

    It starts with a byte-order mark, which spreadsheet programs need to
    read UTF-8 (names and answers with accents) as such.
    """
    rows = [COLUMNS]
    for a in answers:
        earlier = a.mark.earlier if a.mark.to_remark else None
        rows.append([a.student_id, a.student_name, a.question.grade_id, a.text, a.question.max_points,
                     "" if a.mark.points is None else a.mark.points, a.mark.comment, status_of(a.mark),
                     "" if earlier is None or earlier.points is None else earlier.points,
                     "" if earlier is None else earlier.comment, a.question.notebook, short_checksum(a.checksum),
                     mark_checksum(a.mark)])
    return "\ufeff" + csv_text(rows)


def _unguarded(text):
    return text[1:] if text[:1] == "'" and text[1:2] in _GUARDED else text


def typed_number(text):
    """A number a person typed (in a CSV cell or a form): ``None`` when blank, else its value.

    Anything but a finite number raises ``ValueError`` whose message is a hint to append to the caller's
    own: how to write the decimal mark where a comma was used, empty otherwise.
    """
    text = (text or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise ValueError(" (write the decimal mark as a point: 1.5)" if re.fullmatch(r"[-+]?\d+,\d+", text) else "")
    return value


def _parse_points(text, max_points):
    """``(points or None, problem or None)`` of a ``points`` cell."""
    text = text.strip()
    try:
        value = typed_number(text)
    except ValueError as hint:
        return None, f"points {text!r} are not a number{hint}; give a number from 0 to {max_points:g}"
    if value is None:
        return None, None
    if value < 0:
        return None, f"points {text} are negative; give a number from 0 to {max_points:g}"
    if value > max_points and not math.isclose(value, max_points):
        return None, f"points {text} are more than the question's maximum of {max_points:g}"
    return value, None


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-9)


def _decoded(data):
    if isinstance(data, str):
        return data.lstrip("\ufeff"), None
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        return None, (f"the file is not UTF-8 text (byte {exc.start} cannot be read); save it from the spreadsheet "
                      "as \"CSV UTF-8\"")


def read_sheet(data, answers, *, assignment):
    """Check a marking CSV (bytes or text) against the current ``answers``; return a :class:`SheetRead`.

    ``answers`` are the :class:`~autograder.marking.answers.Answer` records of
    every submission as they are now.  Nothing is written here: the caller
    writes ``changes`` only when ``problems`` is empty.
    """
    found = SheetRead()
    text, problem = _decoded(data)
    if problem:
        found.problems.append(problem)
        return found
    try:
        records = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        found.problems.append(f"the file is not a readable CSV ({exc})")
        return found
    if not records:
        found.problems.append("the file is empty; it needs the header row the CSV was written with")
        return found
    header = [name.strip().lower() for name in records[0]]
    missing = [name for name in REQUIRED if name not in header]
    if missing:
        found.problems.append(f"the header (row 1) has no column {', '.join(missing)}; it needs the columns "
                              f"{', '.join(REQUIRED)} as 'python -m autograder mark --to-csv' wrote them")
        return found
    column = {name: header.index(name) for name in COLUMNS if name in header}
    by_key = {(a.student_id, a.question.notebook, a.question.grade_id): a for a in answers}
    students = {a.student_id for a in answers}
    notebooks = {}
    for a in answers:
        notebooks.setdefault(a.question.grade_id, set()).add(a.question.notebook)
    seen = {}
    for number, record in enumerate(records[1:], start=2):
        if not any(cell.strip() for cell in record):
            continue
        cell = lambda name: record[column[name]] if column.get(name) is not None and column[name] < len(record) else ""
        student, question = cell("student_id").strip(), cell("question").strip()
        where = f"row {number} (student {student!r}, question {question!r})"
        if student not in students:
            found.problems.append(f"{where}: the gradebook has no submission of {assignment} from student "
                                  f"{student!r}")
            continue
        notebook = cell("notebook").strip()
        if question not in notebooks:
            found.problems.append(f"{where}: {assignment} has no written question {question!r}; its written "
                                  f"questions are {', '.join(sorted(notebooks))}")
            continue
        if notebook and notebook not in notebooks[question]:
            found.problems.append(f"{where}: the question is in the notebook {', '.join(sorted(notebooks[question]))}, "
                                  f"not {notebook!r}")
            continue
        if not notebook:
            if len(notebooks[question]) > 1:
                found.problems.append(f"{where}: the question is in several notebooks "
                                      f"({', '.join(sorted(notebooks[question]))}); fill in the notebook column")
                continue
            notebook = next(iter(notebooks[question]))
        key = (student, notebook, question)
        if key in seen:
            found.problems.append(f"{where}: row {seen[key]} has this answer already; keep one of the two rows")
            continue
        seen[key] = number
        answer = by_key[key]
        if cell("answer_checksum").strip() != short_checksum(answer.checksum):
            found.problems.append(f"{where}: the answer changed since the CSV was written (a later submission "
                                  "was graded); write a new CSV with --to-csv and mark the new answer there")
            continue
        points, problem = _parse_points(cell("points"), answer.question.max_points)
        if problem:
            found.problems.append(f"{where}: {problem}")
            continue
        mark = answer.mark
        comment = _unguarded(cell("comment")).replace("\r\n", "\n").strip()
        if mark.blank:
            manual = None if points is None or points == 0 else points
            shown = 0.0 if manual is None else manual
        else:
            manual = shown = points
        if _same(shown, mark.points) and comment == mark.comment.strip():
            found.unchanged += 1
            continue
        if cell("mark_checksum").strip() != mark_checksum(mark):
            now = "unmarked" if mark.points is None else f"{mark.points:g} points"
            found.problems.append(f"{where}: someone changed this mark in the gradebook since the CSV was written "
                                  f"(it is now {now}" + (f", comment {mark.comment!r}" if mark.comment else "")
                                  + "), and this row changes it too; write a new CSV, or leave the row out")
            continue
        found.changes.append(MarkChange(student, notebook, question, manual, comment))
    return found
