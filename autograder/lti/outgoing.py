"""What a grading run sends to the LMS: each student's total as ``export`` wrote it, and what it may say with it.

``grade`` and ``export`` write ``OUT/grades.csv``, one row per student of
the run with ``total`` out of ``total_max`` (the autograded points and the
written answers' marks together, :mod:`autograder.outputs.totals`) and the
written answers still ``to_mark``.  :func:`prepare` reads those rows as they
are, so the LMS gets the very numbers the instructor can read in the file,
and holds them to the gradebook first, as ``export`` does
(:func:`autograder.outputs.graded_run.disagreements`): a folder whose
students were graded again elsewhere is refused, and so is a ``grades.csv``
written before marks the gradebook holds now (``export OUT`` writes it
again).  The written answers still to be marked are
:func:`autograder.outputs.totals.unmarked` of each result with the
gradebook's marks, the check ``export`` makes and the one ``to_mark`` was
written from.

With ``comments``, each student's comment is the plain-text summary the
LMS files carry (:func:`autograder.outputs.report.feedback_text`), and
:func:`held_comments` reads each through the leak audit as an upload for
that student, as ``export`` does with each page it returns to the hub.
"""

import csv
import dataclasses
import math
import os
from dataclasses import dataclass

from autograder.results import MISSING

__all__ = ["Outgoing", "Prepared", "OutgoingError", "prepare", "read_grades_csv", "held_comments", "full_page_text",
           "GRADES_FILE", "COMPLETED", "NOT_STARTED", "FULLY_GRADED", "PENDING_MANUAL"]

GRADES_FILE = "grades.csv"
# LTI AGS 2.0, the score's activityProgress and gradingProgress.
COMPLETED, NOT_STARTED = "Completed", "Initialized"
FULLY_GRADED, PENDING_MANUAL = "FullyGraded", "PendingManual"
_NEEDED = ("student_id", "status", "total", "total_max", "to_mark")


class OutgoingError(Exception):
    """``OUT`` cannot be sent: the message says why and what to do."""


@dataclass(frozen=True)
class Outgoing:
    """One student's score as the run's ``grades.csv`` has it, and how it goes to the LMS."""

    student_id: str
    status: str
    total: float
    maximum: float
    to_mark: tuple  # the written answers (grade ids) still to be marked
    comment: str = None

    @property
    def activity_progress(self):
        """``Initialized`` for a student who handed nothing in (a roster's ``missing``), else ``Completed``."""
        return NOT_STARTED if self.status == MISSING else COMPLETED

    @property
    def grading_progress(self):
        return PENDING_MANUAL if self.to_mark else FULLY_GRADED


@dataclass(frozen=True)
class Prepared:
    """A run ready to send: ``students`` in the run's order, ``waiting`` the answers still to be marked."""

    assignment: str
    course_dir: str
    out: str
    students: tuple
    waiting: tuple  # (student_id, WrittenMark)
    maximum: float


def _number(text, where):
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise OutgoingError(f"{where} is {text!r}, not a number; run 'python -m autograder export' to write the "
                            "file again") from None
    if not math.isfinite(value):
        raise OutgoingError(f"{where} is {text!r}; run 'python -m autograder export' to write the file again")
    return value


def read_grades_csv(out):
    """``{student_id: row}`` of ``OUT/grades.csv`` (each row a dict of its cells as written)."""
    path = os.path.join(out, GRADES_FILE)
    try:
        with open(path, encoding="utf-8", newline="") as handle:
            reader = csv.DictReader(handle)
            missing = [name for name in _NEEDED if name not in (reader.fieldnames or ())]
            if missing:
                raise OutgoingError(f"{path} has no column {', '.join(missing)} (written by an older grader?); run "
                                    f"'python -m autograder export {out}' to write it again")
            rows = {}
            for row in reader:
                if row["student_id"] in rows:
                    raise OutgoingError(f"{path} has two rows for {row['student_id']!r}; run 'python -m autograder "
                                        f"export {out}' to write it again")
                rows[row["student_id"]] = row
            return rows
    except FileNotFoundError:
        raise OutgoingError(f"{out} holds no {GRADES_FILE}: give the folder a 'python -m autograder grade' run "
                            "wrote") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise OutgoingError(f"cannot read {path}: {exc}") from None


def _differences(results, rows, out):
    """How ``grades.csv`` differs from the totals the gradebook gives now, as sentences."""
    from autograder.outputs.totals import scale_of, total, unmarked

    found = []
    scale = scale_of(results)
    for result in results:
        row = rows.get(result.student_id)
        if row is None:
            found.append(f"{result.student_id} has no row")
            continue
        shown = f"{result.student_id}'s total"
        written, now = _number(row["total"], f"{shown} in {GRADES_FILE}"), float(f"{total(result):g}")
        if written != now:
            found.append(f"{shown} is {row['total']} there, {now:g} with the gradebook's marks")
        if _number(row["total_max"], f"{shown} maximum in {GRADES_FILE}") != float(f"{scale.total:g}"):
            found.append(f"{shown} is out of {row['total_max']} there, out of {scale.total:g} now")
        waiting = ";".join(mark.grade_id for mark in unmarked(result))
        if row["to_mark"] != waiting:
            found.append(f"{result.student_id}'s answers to mark are {row['to_mark'] or 'none'!r} there, "
                         f"{waiting or 'none'!r} now")
    extra = sorted(set(rows) - {r.student_id for r in results})
    found += [f"{sid} has a row there but is no student of the run" for sid in extra]
    return found


def full_page_text(student_id):
    """Where the summary sends the student for the whole page: the instructor hands it out."""
    return f"ask your instructor for the page {student_id}.html"


def prepare(out, *, course_dir=None, comments=False):
    """The :class:`Prepared` run of ``OUT``; :class:`OutgoingError` when it cannot be sent as it is."""
    from autograder.outputs import graded_run
    from autograder.outputs.gradebook import GradebookError, autograded_scores, open_gradebook, written_marks
    from autograder.outputs.record import question_names, with_marks
    from autograder.outputs.report import feedback_text
    from autograder.outputs.totals import waiting_answers

    try:
        run = graded_run.load(out)
    except graded_run.RunRecordError as exc:
        raise OutgoingError(str(exc)) from None
    if course_dir:
        run = dataclasses.replace(run, course_dir=os.path.abspath(course_dir))
    rows = read_grades_csv(out)
    try:
        gb = open_gradebook(run.course_dir)
        try:
            marks = written_marks(gb, run.assignment)
            autograded = autograded_scores(gb, run.assignment)
            labels = question_names(gb, run.course_dir, run.assignment) if comments else {}
        finally:
            gb.close()
    except GradebookError as exc:
        raise OutgoingError(str(exc)) from None
    others = graded_run.disagreements(run, marks, autograded)
    if others:
        raise OutgoingError(f"{len(others)} of the students {out} graded have another submission in the gradebook "
                            "now (graded into another folder later); send that folder instead:\n"
                            + "\n".join(f"- {line}" for line in others))
    results = with_marks(run.results, marks)
    differences = _differences(results, rows, out)
    if differences:
        raise OutgoingError(f"{os.path.join(out, GRADES_FILE)} is not what the gradebook's marks give now (marked "
                            f"since it was written?), so nothing was sent; run 'python -m autograder export {out}' "
                            "to write it again, then send:\n" + "\n".join(f"- {line}" for line in differences))
    students = []
    for result in results:
        row = rows[result.student_id]
        comment = None
        if comments and result.status != MISSING:
            comment = feedback_text(result, full_page=full_page_text(result.student_id), labels=labels)
        students.append(Outgoing(result.student_id, result.status, float(row["total"]), float(row["total_max"]),
                                 tuple(filter(None, row["to_mark"].split(";"))), comment))
    waiting = waiting_answers(results)
    maximum = max((s.maximum for s in students), default=0.0)
    return Prepared(run.assignment, run.course_dir, os.path.abspath(out), tuple(students), waiting, maximum)


def held_comments(prepared):
    """``{student_id: [finding, ...]}``: the comments the leak audit finds something in (every secret of the
    course, another student, a TA's name, a note for markers), each read as an upload for its student."""
    from autograder.commands.audit import audit_upload_bytes, collect_secrets, markers_of, recipients_of_run

    comments = {s.student_id: s.comment for s in prepared.students if s.comment}
    if not comments:
        return {}
    secrets = collect_secrets(course_dir=prepared.course_dir)
    recipients = recipients_of_run(prepared.out, tas=markers_of(prepared.course_dir, prepared.assignment))
    # Each comment is named as a file whose owner is its student, so the audit knows whose feedback it is.
    names = {student_id: f"lms-comment-for-{student_id}" for student_id in comments}
    recipients = dataclasses.replace(recipients, owners={**recipients.owners,
                                                         **{name: sid for sid, name in names.items()}})
    held = {}
    for student_id, comment in comments.items():
        findings = audit_upload_bytes(names[student_id], comment.encode("utf-8"), secrets, recipients)
        if findings:
            held[student_id] = [str(finding) for finding in findings]
    return held
