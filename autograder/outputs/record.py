"""The outputs of a grading run, written on the host only: gradebook, autograded notebooks, feedback, grades.csv, report.

:func:`record` writes everything about one judged result as soon as it is
ready (in submission order): its grades in nbgrader's gradebook, in one
transaction (:mod:`autograder.outputs.gradebook`), the autograded notebook and
the submission as nbgrader's formgrader lists it in the course directory,
and the student's feedback page.  At the end of the run :func:`finish_batch`
records the students' names in the gradebook and :func:`write_run_files`
writes the batch's files: ``grades.csv`` (:func:`write_grades_csv`), the
Canvas and Moodle gradebook imports (:func:`write_exports`), the feedback
each LMS takes back (:func:`write_lms_feedback`), every feedback page, the
report (:func:`write_report`) and the run's record for ``export``
(:mod:`autograder.outputs.graded_run`).  ``python -m autograder export``
calls :func:`write_run_files` again, with the marks the written answers have
been given since, into a copy of the folder that then replaces it
(:func:`replace_folder`).

Every total is over the whole assignment: the autograded points plus the
written answers' marks as the gradebook holds them when the files are
written (:mod:`autograder.outputs.totals`).  Every file a student gets names
a written question as its notebook does ("D1"): :func:`question_names` reads
the names from the course's release once, where the gradebook is open, and
the writers take them as ``labels``.  Every file is written to a
temporary name in its folder and then renamed, so a reader never sees half
of one (:mod:`autograder.outputs.atomic_files`).

The run's record is a step below this module: :func:`write_run_files` saves
it with :func:`autograder.outputs.graded_run.save`, and
:mod:`~autograder.outputs.graded_run` imports nothing from here.
"""

import dataclasses
import functools
import os
import shutil
import stat
import sys
import tempfile

from autograder.outputs import graded_run
from autograder.outputs.atomic_files import write_bytes_atomic, write_text_atomic
from autograder.outputs.exports import csv_text
from autograder.results import MISSING

__all__ = ["GRADES_COLUMNS", "record", "earlier_path", "finish_batch", "question_names", "with_marks", "write_run_files",
           "write_grades_csv", "write_exports", "write_lms_feedback", "write_feedback_pages", "write_report",
           "replace_folder"]

# score and max_score are the autograded points (the columns grades.csv always had); written and written_max the
# written answers' marks, total and total_max the sum over the whole assignment, to_mark the written answers
# still to be marked.
GRADES_COLUMNS = ("student_id", "assignment", "score", "max_score", "status", "flags", "source", "submitted_at",
                  "written", "written_max", "total", "total_max", "to_mark")


def write_grades_csv(path, results):
    """Write ``grades.csv`` (UTF-8) atomically, so a failed run never leaves it half-written.

    Its cells go through the same formula guard as the LMS files
    (:func:`autograder.outputs.exports.csv_text`): ``source`` is the download's
    entry name, which the student chose.
    """
    from autograder.outputs.totals import scale_of, total, unmarked, written_score

    scale = scale_of(results)
    rows = [GRADES_COLUMNS]
    rows += [(r.student_id, r.assignment, r.score, r.max_score, r.status, ";".join(r.flag_codes), r.source,
              r.submitted_at, written_score(r), scale.written, total(r), scale.total,
              ";".join(m.grade_id for m in unmarked(r))) for r in results]
    write_text_atomic(path, csv_text(rows))


def _previous_answers(path, manual_ids, max_bytes, release_path):
    """Checksums of the manually graded answers in a previously written autograded notebook (``None`` for an
    answer left blank: empty, or the release's text), as the worker computes them for a new submission."""
    import nbformat

    from autograder.boundary.notebook import parse_notebook, read_untrusted_file
    from autograder.judging.integrity import written_answer_checksum
    from perceptron_course.cells import grade_id

    if not os.path.isfile(path):
        return {}
    data, problem = read_untrusted_file(path, max_bytes)
    if problem:
        return {}
    nb, problem = parse_notebook(data)
    if problem:
        return {}
    released = ({grade_id(c): c.source for c in nbformat.read(release_path, as_version=4).cells}
                if os.path.isfile(release_path) else {})
    return {cell.grade_id: written_answer_checksum(cell.source, released.get(cell.grade_id))
            for cell in nb.cells if cell.grade_id in manual_ids}


def _write_submitted(course_dir, result, notebook_name):
    """The submission where nbgrader's formgrader looks for it: ``submitted/<student>/<assignment>/``.

    The formgrader counts a submission by that folder and takes its time from
    ``timestamp.txt`` there (the LMS's time, which :func:`record_result` also
    gives the gradebook: the two must agree for it to count the submission
    as graded).  The notebook there is the submission as graded, the
    student's answers in the release's cells; none when it could not be read.
    """
    folder = os.path.join(course_dir, "submitted", result.student_id, result.assignment)
    for name, text in ((notebook_name, result.autograded_notebook),
                       ("timestamp.txt", result.submitted_at or None)):
        path = os.path.join(folder, name)
        if text is not None:
            write_text_atomic(path, text)
        elif os.path.exists(path):
            os.unlink(path)
    os.makedirs(folder, exist_ok=True)


def question_names(gb, course_dir, assignment):
    """``{(notebook, grade_id): label}``: each written question of ``assignment`` as its notebook names it ("D1"),
    from the course's release (:func:`autograder.marking.answers.question_labels`); a question whose text
    names it not is left out, and its cell id names it."""
    from autograder.marking.answers import question_labels
    from autograder.outputs.gradebook import assignment_info

    info = assignment_info(gb, assignment)
    try:
        labels = question_labels(course_dir, assignment, info)
    except (OSError, ValueError) as exc:  # an unreadable notebook costs the names, never the grades
        print(f"autograder: the written questions of {assignment} are named by their cell ids: the release "
              f"cannot be read ({exc})", file=sys.stderr)
        return {}
    return {key: label for key, label in labels.items() if label != key[1]}


def earlier_path(course_dir, student_id, assignment, notebook_name):
    """Where the autograded notebook a regrade replaced is kept: the marking page shows an answer to mark again
    beside the answer it replaced (the instructor's; never part of a file a student gets)."""
    return os.path.join(course_dir, ".autograder", "earlier", student_id, assignment, notebook_name)


def _keep_earlier(course_dir, result, notebook_name, autograded_path):
    """Keep the autograded notebook that a different one is about to replace (the latest one only)."""
    try:
        with open(autograded_path, "rb") as handle:
            old = handle.read()
    except OSError:
        return
    new = None if result.autograded_notebook is None else result.autograded_notebook.encode("utf-8")
    if old != new:
        write_bytes_atomic(earlier_path(course_dir, result.student_id, result.assignment, notebook_name), old)


def record(result, *, gb, course_dir, out_dir, notebook_name, settings, sandbox_text, labels=None):
    """Write everything about one judged result: gradebook, autograded and submitted notebooks, feedback page.

    The result gets the marks its written answers have in the gradebook
    (kept from an earlier grading where the answer did not change); ``labels``
    are the :func:`question_names` of its assignment.
    """
    from autograder.outputs import report
    from autograder.outputs.gradebook import record_result, written_marks

    autograded_path = os.path.join(course_dir, "autograded", result.student_id, result.assignment, notebook_name)
    previous = functools.partial(_previous_answers, autograded_path, {gid for gid, _, _ in result.manual_cells},
                                 settings.limits.executed_notebook_bytes,
                                 os.path.join(course_dir, "release", result.assignment, notebook_name))
    record_result(gb, result, notebook_name[:-len(".ipynb")], previous_answers=previous)
    _keep_earlier(course_dir, result, notebook_name, autograded_path)
    if result.autograded_notebook is not None:
        write_text_atomic(autograded_path, result.autograded_notebook)
    elif os.path.exists(autograded_path):
        os.unlink(autograded_path)
    os.makedirs(os.path.dirname(autograded_path), exist_ok=True)  # how the formgrader sees it was graded
    _write_submitted(course_dir, result, notebook_name)
    result.written = written_marks(gb, result.assignment, result.student_id).get(result.student_id, ())
    write_text_atomic(os.path.join(out_dir, "feedback", f"{result.student_id}.html"),
                      report.feedback_html(result, sandbox_text=sandbox_text, labels=labels))


def write_exports(out_dir, assignment, results, people):
    """Write the Canvas and Moodle gradebook imports (:mod:`autograder.outputs.exports`): each student's total,
    out of the whole assignment's points.

    ``people`` maps each student id to its submission (or group member): name, email, Canvas user id.
    """
    from autograder.outputs.exports import CANVAS_FILE, MOODLE_FILE, ExportRow, canvas_csv, moodle_csv
    from autograder.outputs.totals import scale_of, total

    rows = [ExportRow(r.student_id, total(r), getattr(people[r.student_id], "name", ""),
                      getattr(people[r.student_id], "email", ""),
                      getattr(people[r.student_id], "canvas_user_id", "")) for r in results]
    write_text_atomic(os.path.join(out_dir, CANVAS_FILE), canvas_csv(assignment, scale_of(results).total, rows))
    write_text_atomic(os.path.join(out_dir, MOODLE_FILE), moodle_csv(assignment, rows))


def write_lms_feedback(out_dir, assignment, results, people, *, sandbox_text, labels=None):
    """Write what each LMS takes back (:mod:`autograder.outputs.lms_feedback`); return where each student's feedback goes.

    A file no student of this run needs is removed, so an older run's copy is never uploaded by mistake.
    """
    import datetime

    from autograder.outputs.lms_feedback import build

    files, deliveries = build(assignment, results, people, sandbox_text=sandbox_text,
                              when=datetime.datetime.now(datetime.timezone.utc).astimezone(), labels=labels)
    for name, data in files.items():
        path = os.path.join(out_dir, name)
        if data is not None:
            write_bytes_atomic(path, data)
        elif os.path.exists(path):
            os.unlink(path)
    return deliveries


def write_report(out_dir, assignment, results, *, skipped, sandbox_text, settings, started, seconds, notes=(),
                 similar=None, copies=None, deliveries=None, labels=None):
    """Write ``report.html`` for the batch.

    ``similar``: the :class:`~autograder.judging.similarity.SimilarPair` records, ``copies`` the
    :class:`~autograder.judging.similarity.ReferenceCopy` records; either ``None`` if none were sought.
    """
    from autograder.outputs import report

    write_text_atomic(os.path.join(out_dir, "report.html"),
                      report.report_html(assignment, results, skipped=skipped, sandbox_text=sandbox_text,
                                         sandboxed=settings.use_sandbox, started=started, seconds=seconds,
                                         settings=settings, notes=notes, similar=similar, copies=copies,
                                         deliveries=deliveries, labels=labels))


def write_feedback_pages(out_dir, results, *, sandbox_text, labels=None):
    """Write ``feedback/<student_id>.html`` of every student with a submission."""
    from autograder.outputs.report import feedback_html

    for result in results:
        if result.status != MISSING:
            write_text_atomic(os.path.join(out_dir, "feedback", f"{result.student_id}.html"),
                              feedback_html(result, sandbox_text=sandbox_text, labels=labels))


def with_marks(results, marks):
    """``results``, each with its written answers' marks from ``marks``
    (:func:`~autograder.outputs.gradebook.written_marks`)."""
    return [r if r.status == MISSING else dataclasses.replace(r, written=marks.get(r.student_id, ()))
            for r in results]


def write_run_files(out_dir, run, marks, labels=None):
    """Write every file of a :class:`~autograder.outputs.graded_run.GradedRun` into ``out_dir`` with ``marks``;
    return the results with their marks.

    ``grade`` calls it at the end of a batch, ``export`` again with the marks
    given since: the same code writes each file both times.  ``labels`` are the
    :func:`question_names` of the run's assignment.
    """
    results = with_marks(run.results, marks)
    write_grades_csv(os.path.join(out_dir, "grades.csv"), results)
    write_exports(out_dir, run.assignment, results, run.people)
    deliveries = write_lms_feedback(out_dir, run.assignment, results, run.people, sandbox_text=run.sandbox_text,
                                    labels=labels)
    write_feedback_pages(out_dir, results, sandbox_text=run.sandbox_text, labels=labels)
    write_report(out_dir, run.assignment, results, skipped=run.skipped, sandbox_text=run.sandbox_text,
                 settings=run.settings, started=run.started, seconds=run.seconds, notes=run.notes,
                 similar=run.similar, copies=run.copies, deliveries=deliveries, labels=labels)
    graded_run.save(run, out_dir)
    return results


def finish_batch(out_dir, run):
    """The end of a grading batch: the students' names into the gradebook, then every file of the run with the
    marks the gradebook holds (:func:`write_run_files`); return the results with their marks."""
    from autograder.outputs.gradebook import open_gradebook, record_students, written_marks

    gb = open_gradebook(run.course_dir)
    try:
        record_students(gb, run.people)
        marks = written_marks(gb, run.assignment)
        labels = question_names(gb, run.course_dir, run.assignment)
    finally:
        gb.close()
    return write_run_files(out_dir, run, marks, labels)


def _link_or_copy(source, target):
    """A hard link where the file system allows one (the file is replaced, never changed, when rewritten)."""
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _exchange(first, second):
    """Swap two paths in one step (Linux's ``renameat2`` with ``RENAME_EXCHANGE``); ``False`` where it cannot."""
    import ctypes
    import errno

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EPERM, errno.ENOTSUP):
        return False  # a file system or kernel without the exchange: the two renames below
    raise OSError(code, os.strerror(code), second)


def replace_folder(folder, write):
    """Rewrite ``folder`` whole or not at all: ``write(staging)`` fills a copy beside it, which then takes its place.

    The copy holds everything ``folder`` held (hard links, so it costs no
    space), ``write`` replaces files in it, and the two folders are swapped in
    one step where the system can (two renames otherwise, with the original
    put back if the second fails).  Until the swap ``folder`` is untouched;
    if ``write`` raises, the copy is removed and the exception goes on.
    """
    folder = os.path.abspath(folder)
    parent, name = os.path.split(folder)
    staging = tempfile.mkdtemp(prefix=f".{name}.export-", dir=parent)
    try:
        shutil.copytree(folder, staging, symlinks=True, dirs_exist_ok=True, copy_function=_link_or_copy)
        os.chmod(staging, stat.S_IMODE(os.stat(folder).st_mode))
        write(staging)
        if not _exchange(staging, folder):
            old = staging + ".old"
            os.rename(folder, old)
            try:
                os.rename(staging, folder)
            except BaseException:
                os.rename(old, folder)
                raise
            staging = old
    finally:
        shutil.rmtree(staging, ignore_errors=True)
