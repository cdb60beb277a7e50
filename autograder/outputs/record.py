"""The outputs of a grading run, written on the host only: gradebook, autograded notebooks, feedback, grades.csv, report.

:func:`record` writes everything about one judged result as soon as it is
ready (in submission order): its grades in nbgrader's gradebook, in one
transaction (:mod:`autograder.outputs.gradebook`), the autograded notebook in the
course directory, and the student's feedback page.  At the end of the run
:func:`write_grades_csv`, :func:`write_exports` (the Canvas and Moodle
gradebook imports), :func:`write_lms_feedback` (the feedback each LMS takes
back) and :func:`write_report` write the batch's files.
Every file is written to a temporary name in its folder and then renamed,
so a reader never sees half of one.
"""

import os
import tempfile

from autograder.outputs.exports import csv_text

__all__ = ["GRADES_COLUMNS", "record", "write_grades_csv", "write_exports", "write_lms_feedback", "write_report",
           "write_text_atomic", "write_bytes_atomic"]

GRADES_COLUMNS = ("student_id", "assignment", "score", "max_score", "status", "flags", "source", "submitted_at")


def write_text_atomic(path, text):
    """Write ``text`` to ``path`` (UTF-8) through a temporary file in the same folder, then rename it."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path, data):
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename it."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def write_grades_csv(path, results):
    """Write ``grades.csv`` (UTF-8) atomically, so a failed run never leaves it half-written.

    Its cells go through the same formula guard as the LMS files
    (:func:`autograder.outputs.exports.csv_text`): ``source`` is the download's
    entry name, which the student chose.
    """
    rows = [GRADES_COLUMNS]
    rows += [(r.student_id, r.assignment, r.score, r.max_score, r.status, ";".join(r.flag_codes), r.source,
              r.submitted_at) for r in results]
    write_text_atomic(path, csv_text(rows))


def _previous_answers(path, manual_ids, max_bytes):
    """Checksums of the manually graded answers in a previously written autograded notebook."""
    from autograder.boundary.notebook import parse_notebook, read_untrusted_file
    from autograder.judging.integrity import answer_checksum

    data, problem = read_untrusted_file(path, max_bytes)
    if problem:
        return {}
    nb, problem = parse_notebook(data)
    if problem:
        return {}
    return {cell.grade_id: answer_checksum(cell.source) for cell in nb.cells if cell.grade_id in manual_ids}


def record(result, *, gb, course_dir, out_dir, notebook_name, settings, sandbox_text):
    """Write everything about one judged result: gradebook, autograded notebook, feedback page."""
    from autograder.outputs import report
    from autograder.outputs.gradebook import record_result

    autograded_path = os.path.join(course_dir, "autograded", result.student_id, result.assignment, notebook_name)
    previous = _previous_answers(autograded_path, {gid for gid, _, _ in result.manual_cells},
                                 settings.limits.executed_notebook_bytes)
    unchanged = [gid for gid, _, checksum in result.manual_cells if checksum and previous.get(gid) == checksum]
    record_result(gb, result, notebook_name[:-len(".ipynb")], unchanged_answers=unchanged)
    if result.autograded_notebook is not None:
        write_text_atomic(autograded_path, result.autograded_notebook)
    elif os.path.exists(autograded_path):
        os.unlink(autograded_path)
    write_text_atomic(os.path.join(out_dir, "feedback", f"{result.student_id}.html"),
                      report.feedback_html(result, sandbox_text=sandbox_text))


def write_exports(out_dir, assignment, results, people):
    """Write the Canvas and Moodle gradebook imports (:mod:`autograder.outputs.exports`).

    ``people`` maps each student id to its submission (or group member): name, email, Canvas user id.
    """
    from autograder.outputs.exports import CANVAS_FILE, MOODLE_FILE, ExportRow, canvas_csv, moodle_csv

    max_score = max((r.max_score for r in results), default=0.0)
    rows = [ExportRow(r.student_id, r.score, people[r.student_id].name, people[r.student_id].email,
                      getattr(people[r.student_id], "canvas_user_id", "")) for r in results]
    write_text_atomic(os.path.join(out_dir, CANVAS_FILE), canvas_csv(assignment, max_score, rows))
    write_text_atomic(os.path.join(out_dir, MOODLE_FILE), moodle_csv(assignment, rows))


def write_lms_feedback(out_dir, assignment, results, people, *, sandbox_text):
    """Write what each LMS takes back (:mod:`autograder.outputs.lms_feedback`); return where each student's feedback goes.

    A file no student of this run needs is removed, so an older run's copy is never uploaded by mistake.
    """
    import datetime

    from autograder.outputs.lms_feedback import build

    files, deliveries = build(assignment, results, people, sandbox_text=sandbox_text,
                              when=datetime.datetime.now(datetime.timezone.utc).astimezone())
    for name, data in files.items():
        path = os.path.join(out_dir, name)
        if data is not None:
            write_bytes_atomic(path, data)
        elif os.path.exists(path):
            os.unlink(path)
    return deliveries


def write_report(out_dir, assignment, results, *, skipped, sandbox_text, settings, started, seconds, notes=(),
                 similar=None, copies=None, deliveries=None):
    """Write ``report.html`` for the batch.

    ``similar``: the :class:`~autograder.judging.similarity.SimilarPair` records, ``copies`` the
    :class:`~autograder.judging.similarity.ReferenceCopy` records; either ``None`` if none were sought.
    """
    from autograder.outputs import report

    write_text_atomic(os.path.join(out_dir, "report.html"),
                      report.report_html(assignment, results, skipped=skipped, sandbox_text=sandbox_text,
                                         sandboxed=settings.use_sandbox, started=started, seconds=seconds,
                                         settings=settings, notes=notes, similar=similar, copies=copies,
                                         deliveries=deliveries))
