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

__all__ = ["ExportRow", "canvas_csv", "moodle_csv", "csv_text", "CANVAS_FILE", "MOODLE_FILE"]

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


def csv_text(rows, *, quote_all=False):
    """CSV text (CRLF line ends) of ``rows``, every text cell guarded by :func:`_cell`, numbers as ``%g``.

    ``quote_all`` puts every cell in quotes, for importers that require it.
    """
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n", quoting=csv.QUOTE_ALL if quote_all else csv.QUOTE_MINIMAL)
    for row in rows:
        writer.writerow([_number(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else _cell(v)
                         for v in row])
    return out.getvalue()


def canvas_csv(assignment, max_score, rows):
    """The text of ``canvas_import.csv``."""
    return csv_text([["Student", "ID", "SIS User ID", "SIS Login ID", "Section", assignment],
                     ["Points Possible", "", "", "", "", float(max_score)]]
                    + [[row.name, row.canvas_user_id, row.student_id, "", "", float(row.score)]
                       for row in sorted(rows, key=lambda r: r.student_id)])


def moodle_csv(assignment, rows):
    """The text of ``moodle_import.csv``."""
    return csv_text([["ID number", "Email address", "Full name", assignment]]
                    + [[row.student_id, row.email, row.name, float(row.score)]
                       for row in sorted(rows, key=lambda r: r.student_id)])
