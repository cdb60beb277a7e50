"""``python -m autograder export OUT``: every file of a grading run written again, with the written answers' marks.

``grade`` wrote ``OUT`` before the written answers were marked.  This
command reads what that run left (:mod:`autograder.outputs.graded_run`) and
the marks the gradebook holds now, and writes every file with a grade or
feedback in it again, with the same code ``grade`` used
(:func:`autograder.outputs.record.write_run_files`): ``grades.csv``, the LMS
imports and feedback files, each ``feedback/<student_id>.html`` and
``report.html``: each written answer with its mark, the rubric items
applied and the TA's comment, the question named as its notebook names it
("D1", :func:`autograder.outputs.record.question_names`), and never a note
for markers.  It writes a copy of ``OUT`` and swaps it in
(:func:`autograder.outputs.record.replace_folder`), so ``OUT`` is always one
run's files or the other's, never half of each.

Exit status 1, and nothing written, while an answered written answer is
still unmarked (each is named) unless ``--allow-unmarked`` is given; then
each affected student's feedback says which answers are still to be marked.
Exit status 2 when it cannot start: ``OUT`` was not written by ``grade``,
the gradebook cannot be read, or it holds other submissions than the ones
``OUT`` graded.

Submissions graded from the course's JupyterHub (``grade --from-hub``) get
their feedback page back in the hub: after the files are written, each page
is read by the leak audit as an upload for its student, and goes to the
submission it was made from in the course exchange, replacing any earlier
one, so exporting again changes nothing but what changed.  A page the audit
finds something in is held back and named; the others go.  Exit status 1 if
a page was held back or the hub refuses or cannot be reached (the files are
written; run ``export`` again).
"""

import argparse
import dataclasses
import os
import sys

__all__ = ["main"]


def _fail(message, status=2):
    print(f"autograder export: {message}", file=sys.stderr)
    return status


def main(argv=None):
    from autograder.outputs import graded_run
    from autograder.outputs.gradebook import GradebookError, autograded_scores, open_gradebook, written_marks
    from autograder.outputs.record import question_names, replace_folder, with_marks, write_run_files
    from autograder.outputs.totals import mark_command, total, unmarked_refusal, waiting_answers
    from autograder.results import MISSING

    parser = argparse.ArgumentParser(
        prog="python -m autograder export",
        description="Write the files of a grading run again (grades.csv, the LMS imports and feedback files, the "
                    "feedback pages, report.html) with the written answers' marks and comments from the gradebook.")
    parser.add_argument("out", metavar="OUT", help="the folder a 'python -m autograder grade ... --out OUT' run wrote")
    parser.add_argument("--allow-unmarked", action="store_true",
                        help="write even while written answers are still unmarked; their students' feedback says "
                             "which answers are still to be marked")
    parser.add_argument("--course-dir", metavar="DIR",
                        help="the nbgrader course directory with gradebook.db (default: the one the grade run used)")
    args = parser.parse_args(argv)

    try:
        run = graded_run.load(args.out)
    except graded_run.RunRecordError as exc:
        return _fail(str(exc))
    if args.course_dir:
        run = dataclasses.replace(run, course_dir=os.path.abspath(args.course_dir))
    try:
        gb = open_gradebook(run.course_dir)
        try:
            marks = written_marks(gb, run.assignment)
            autograded = autograded_scores(gb, run.assignment)
            labels = question_names(gb, run.course_dir, run.assignment)
        finally:
            gb.close()
    except GradebookError as exc:
        return _fail(str(exc))
    others = graded_run.disagreements(run, marks, autograded)
    if others:
        for line in others:
            print(f"autograder export: {line}", file=sys.stderr)
        return _fail(f"{len(others)} of the students {args.out} graded have another submission in the gradebook "
                     "now (graded into another folder later); export that folder instead, or grade this download "
                     "again into this one")

    results = with_marks(run.results, marks)
    waiting = waiting_answers(results)
    if waiting and not args.allow_unmarked:
        lines, reason = unmarked_refusal("export", waiting, labels)
        print("\n".join(lines), file=sys.stderr)
        mark = mark_command(run.assignment, run.course_dir)
        return _fail(f"{reason}, so nothing was written; mark them on the marking page ({mark}) or through its CSV "
                     f"route ({mark} --to-csv FILE.csv), or pass --allow-unmarked to write the files now with those "
                     "answers counted 0 and named in each student's feedback", status=1)
    try:
        replace_folder(args.out, lambda staging: write_run_files(staging, run, marks, labels))
    except OSError as exc:
        return _fail(f"cannot write {args.out}: {exc.strerror or exc}; it is as it was")
    marked = sum(len(r.written) for r in results) - len(waiting)
    totals = [total(r) for r in results]
    pages = sum(r.status != MISSING for r in results)
    print(f"wrote {os.path.join(args.out, 'grades.csv')}, the LMS files, {pages} feedback pages and "
          f"report.html again with {marked} marked written answers"
          + (f" ({len(waiting)} still to be marked, counted 0)" if waiting else "")
          + (f"; totals from {min(totals):g} to {max(totals):g}" if totals else "")
          + ". Upload them as the README says.")
    return _return_to_hub(args.out, run, results)


def feedback_to_return(pages, secrets, recipients):
    """Split ``[(student_id, route, page_html)]`` into what may go back to students and what the leak audit holds.

    Each page is audited as an upload for its student (every secret of the course, another student, a TA's
    name: :func:`autograder.commands.audit.audit_upload_bytes`); a page with a finding is held back, with its
    findings, and the others go: one student's page never stops the rest.
    """
    from autograder.commands.audit import audit_upload_bytes

    ready, held = [], []
    for student_id, route, page in pages:
        findings = audit_upload_bytes(f"{student_id}.html", page.encode("utf-8"), secrets, recipients)
        if findings:
            held.append((student_id, findings))
        else:
            ready.append((route, page))
    return ready, held


def _return_to_hub(out, run, results):
    """Give each hub submission's feedback page back through the course exchange; the exit status."""
    from autograder.commands.audit import collect_secrets, recipients_of_run
    from autograder.intake import hub
    from autograder.results import MISSING

    pages = []
    for result in results:
        route = getattr(run.people.get(result.student_id), "route", None)
        if route is None or route.lms != "hub" or result.status == MISSING:
            continue
        with open(os.path.join(out, "feedback", f"{result.student_id}.html"), encoding="utf-8") as handle:
            pages.append((result.student_id, route, handle.read()))
    if not pages:
        return 0
    ready, held = feedback_to_return(pages, collect_secrets(course_dir=run.course_dir), recipients_of_run(out))
    for student_id, findings in held:
        for finding in findings:
            print(f"autograder export: held back {student_id}'s feedback: {finding}", file=sys.stderr)
    try:
        given = hub.return_feedback(run.assignment, ready)
    except hub.HubIntakeError as exc:
        return _fail(f"the files are written, but the feedback did not all reach the hub: {exc}. Run export "
                     "again to return it", status=1)
    print(f"returned {given} feedback {'page' if given == 1 else 'pages'} into the hub's course exchange, where each "
          "student's Fetch Feedback finds it")
    if held:
        return _fail(f"{len(held)} feedback {'page was' if len(held) == 1 else 'pages were'} held back: the leak "
                     "audit found in them what must not reach a student (listed above); fix the cause and run "
                     "export again", status=1)
    return 0
