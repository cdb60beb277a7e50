"""Grade files that the Canvas and Moodle gradebooks import as they are.

``grades.csv`` is the grader's own record.  These two files carry the same
scores in the forms the gradebooks read:

* ``canvas_import.csv``: Canvas's gradebook CSV (the form its own export
  has): ``Student, ID, SIS User ID, SIS Login ID, Section`` and one column
  named for the assignment, with a ``Points Possible`` row first.  Canvas
  matches a row to a student by the Canvas user ``ID`` (known when the
  submission came from Canvas's download, or from the roster's ``lms_id``),
  else by ``SIS User ID`` (the student id); ``SIS Login ID`` and ``Section``
  are left empty.  A column
  whose name is not an existing assignment becomes a new one.
* ``moodle_import.csv``: for Moodle's "Import grades from CSV file": one
  row per student with ``ID number``, ``Email address``, ``Full name`` and
  the score; on import, map "ID number" to ``useridnumber`` (or "Email
  address" to ``useremail``) and the score column to the grade item.

Every row of ``grades.csv`` has a row here, missing students with 0, so a
gradebook never keeps a stale score for them.
"""

import csv
import io
from dataclasses import dataclass

__all__ = ["ExportRow", "canvas_csv", "moodle_csv", "CANVAS_FILE", "MOODLE_FILE"]

CANVAS_FILE = "canvas_import.csv"
MOODLE_FILE = "moodle_import.csv"


@dataclass(frozen=True)
class ExportRow:
    student_id: str
    score: float
    name: str = ""
    email: str = ""
    canvas_user_id: str = ""


def _number(value):
    return f"{value:g}"


def _cell(text):
    """Spreadsheet programs run a cell that starts with ``= + - @`` as a formula: quote it."""
    text = str(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def canvas_csv(assignment, max_score, rows):
    """The text of ``canvas_import.csv``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment])
    writer.writerow(["Points Possible", "", "", "", "", _number(max_score)])
    for row in sorted(rows, key=lambda r: r.student_id):
        writer.writerow([_cell(row.name), row.canvas_user_id, _cell(row.student_id), "", "",
                         _number(row.score)])
    return out.getvalue()


def moodle_csv(assignment, rows):
    """The text of ``moodle_import.csv``."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(["ID number", "Email address", "Full name", assignment])
    for row in sorted(rows, key=lambda r: r.student_id):
        writer.writerow([_cell(row.student_id), _cell(row.email), _cell(row.name), _number(row.score)])
    return out.getvalue()
