"""``python -m autograder grade``: the command line that grades a batch of submissions safely, in parallel.

It checks what it was given (the assignment is known and released, the
gradebook knows it, a sandbox works, the course's limits are valid), finds
the submissions (:mod:`autograder.intake.submissions`), calibrates the time limits
from the instructor's solution (:mod:`autograder.running.calibrate`), and hands them to the
batch (:mod:`autograder.running.batch`), which runs each in its own sandbox on a
worker (:mod:`autograder.running.worker`), judges it on this host
(:mod:`autograder.judging.judge`) and writes every output (:mod:`autograder.outputs.record`),
with the marks written answers already have (a regrade keeps them).
It prints progress as results arrive and a summary at the end, with the
written answers still to mark and the commands that mark and export them.

A bad submission never stops the batch: each one ends with a status
(graded, ungradable, timeout, crashed) and a reason.  The command itself
stops only when it cannot proceed (unknown or unreleased assignment,
unreadable submissions, invalid limits, no sandbox and no
``--unsafe-no-sandbox``), with exit status 2 and a message that says what
to do.
"""

import argparse
import functools
import os
import sys
import tempfile
import time

from autograder.course import COURSE_DIR
from autograder.results import MISSING, STATUSES, Settings

__all__ = ["main", "summary_lines", "marking_hint", "gradable_release", "NotGradable"]



class _Progress:
    """A progress bar on a terminal, one line per submission otherwise."""

    def __init__(self, stream=sys.stderr):
        self.stream = stream
        self.tty = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, done, total, result):
        text = f"{result.student_id}: {result.status} {result.score:g}/{result.max_score:g}"
        if result.flags:
            text += f" [flags: {', '.join(result.flag_codes)}]"
        if self.tty:
            width = 30
            filled = int(width * done / max(total, 1))
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {text[:60]:<60}")
            if done == total:
                self.stream.write("\n")
        else:
            self.stream.write(f"{done}/{total} {text}\n")
        self.stream.flush()


def summary_lines(results, skipped, seconds, sandbox_text, sandboxed):
    """The lines printed after a run: counts by status, skipped entries, and the sandbox."""
    counts = {status: sum(r.status == status for r in results) for status in STATUSES}
    flagged = sum(bool(r.flags) for r in results)
    lines = [f"{len(results)} submissions in {seconds:.1f} s: " + ", ".join(f"{counts[s]} {s}" for s in STATUSES)
             + f"; {flagged} flagged"]
    if skipped:
        lines.append(f"{len(skipped)} {'entry' if len(skipped) == 1 else 'entries'} of the download not graded "
                     "(receipts, metadata, earlier attempts ...; report.html says why): "
                     + ", ".join(s.name for s in skipped[:5]) + (" ..." if len(skipped) > 5 else ""))
    lines.append(("sandbox: " + sandbox_text) if sandboxed else
                 "WARNING: graded WITHOUT a sandbox (--unsafe-no-sandbox): student code ran with your permissions")
    return lines


class NotGradable(Exception):
    """The assignment cannot be graded here; the message says why and what to do."""


def gradable_release(assignment, course_dir):
    """The path of ``assignment``'s release notebook in ``course_dir``, once it is known that it can be graded.

    It must have hidden checks, have been released, and import from
    ``perceptron_lib`` only what a graded notebook can be given; otherwise
    :class:`NotGradable` says which, and what to do.
    """
    import nbformat

    from autograder.course.assignments import load_checks
    from autograder.course.library import LibraryError, plan_library, release_imports

    try:
        load_checks(assignment)
    except ValueError as exc:
        raise NotGradable(f"{exc} Check the spelling of ASSIGNMENT.") from None
    release_nb = os.path.join(course_dir, "release", assignment, f"{assignment}.ipynb")
    if not os.path.isfile(release_nb):
        raise NotGradable(f"{assignment} has not been released ({release_nb} does not exist); "
                          f"run 'python -m autograder release {assignment}' first")
    try:
        plan_library(release_imports(nbformat.read(release_nb, as_version=4)))
    except LibraryError as exc:
        raise NotGradable(f"{assignment} cannot be graded safely: {exc}") from None
    return release_nb


def _fail(message):
    print(f"autograder grade: {message}", file=sys.stderr)
    return 2


def main(argv=None):
    from perceptron_course.runner import skip_slow_optional_imports

    skip_slow_optional_imports()
    from autograder.running import sandbox
    from autograder.running.batch import grade_submissions
    from autograder.running.calibrate import calibrated_settings
    from autograder.running.calibrate import describe as describe_time_limits
    from autograder.outputs.gradebook import GradebookError, assignment_info, open_gradebook
    from autograder.course.limits import load_limits
    from perceptron_course.limits import LimitsError
    from autograder.intake.roster import RosterError, load_roster, parse_deadline
    from autograder.intake.submissions import SubmissionsError, collect_batch
    from autograder.outputs.totals import unmarked

    parser = argparse.ArgumentParser(
        prog="python -m autograder grade",
        description="Grade an LMS download (a folder or .zip) of submitted notebooks, each in its own sandbox; "
                    "write grades.csv, the gradebook imports, feedback pages and report.html, and record the grades "
                    "in nbgrader's gradebook.")
    parser.add_argument("assignment", metavar="ASSIGNMENT")
    parser.add_argument("submissions", metavar="SUBMISSIONS", nargs="?",
                        help="the LMS's download (Canvas, Moodle, Blackboard, Gradescope export), or a folder of "
                             "<student_id>.ipynb files or <student_id>/ folders; a folder or a .zip (or --from-hub)")
    parser.add_argument("--from-hub", action="store_true",
                        help="grade the submissions in the course exchange of the course's JupyterHub instead, each "
                             "with the exchange's time; the roster is the hub's group of the course's students "
                             "unless --roster is given. Run it where the hub gives you COURSE_EXCHANGE_URL and "
                             "JUPYTERHUB_API_TOKEN (your server's terminal)")
    parser.add_argument("--out", required=True, metavar="DIR", help="where to write grades.csv, feedback/ and report.html")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="submissions graded at the same time (default: one per core)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="time budget of one whole notebook (default: the course's notebook_seconds limit)")
    parser.add_argument("--cell-timeout", type=float, default=None, metavar="SECONDS",
                        help="time limit of one cell; a cell past it is interrupted and the next runs "
                             "(default: the course's cell_seconds limit)")
    parser.add_argument("--course-dir", default=COURSE_DIR, metavar="DIR",
                        help="the nbgrader course directory with release/ and gradebook.db (default: %(default)s)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="grade on a Dask cluster: the scheduler's address (tcp://host:8786) or its scheduler "
                             "file (.json). Workers need this course directory and the submissions at the same paths")
    parser.add_argument("--roster", metavar="FILE.csv",
                        help="the class list: a student_id column and any of name, email, lms_id. Submissions are "
                             "matched to it; a student with no submission gets a row with status missing")
    parser.add_argument("--deadline", metavar="WHEN",
                        help="flag submissions the LMS recorded after this time as late (no penalty), in ISO 8601: "
                             "2025-01-31T23:59 (local time) or 2025-01-31T23:59+01:00")
    parser.add_argument("--recalibrate", action="store_true",
                        help="measure the instructor's solution again for the time limits, even when a measurement "
                             "saved at release or by an earlier batch still holds")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="grade even where no sandbox can be made: student code then runs with your permissions")
    args = parser.parse_args(argv)
    if bool(args.submissions) == args.from_hub:
        return _fail("give either SUBMISSIONS (an LMS's download: a folder or a .zip) or --from-hub, not both "
                     "and not neither")
    if args.workers is not None and args.workers < 1:
        return _fail(f"--workers must be at least 1; got {args.workers}")
    if (args.timeout is not None and args.timeout <= 0) or (args.cell_timeout is not None and args.cell_timeout <= 0):
        return _fail("--timeout and --cell-timeout must be positive numbers of seconds")

    try:
        deadline = parse_deadline(args.deadline) if args.deadline else None
    except ValueError as exc:
        return _fail(str(exc))
    try:
        roster = load_roster(args.roster) if args.roster else None
    except RosterError as exc:
        return _fail(str(exc))
    course_dir = os.path.abspath(args.course_dir)
    try:
        gradable_release(args.assignment, course_dir)
    except NotGradable as exc:
        return _fail(str(exc))
    from autograder.commands.release import stale_release

    stale = stale_release(args.assignment, course_dir)
    if stale:
        print(f"autograder grade: WARNING: {stale}.", file=sys.stderr)
    try:
        gb = open_gradebook(course_dir)
        try:
            assignment_info(gb, args.assignment)
        finally:
            gb.close()
    except GradebookError as exc:
        return _fail(str(exc))

    status = sandbox.sandbox_status()
    if not status.available and not args.unsafe_no_sandbox:
        return _fail(f"no sandbox is available, so student code cannot be run safely: {status.description}. "
                     "Fix that, or pass --unsafe-no-sandbox to grade without isolation (only for code you trust).")
    use_sandbox = status.available and not args.unsafe_no_sandbox
    sandbox_text = status.description if use_sandbox else (
        "none: --unsafe-no-sandbox was given" + ("" if status.available else f" ({status.description})"))
    try:
        limits = load_limits(course_dir, notebook_seconds=args.timeout, cell_seconds=args.cell_timeout)
    except LimitsError as exc:
        return _fail(str(exc))
    settings = Settings(limits=limits, use_sandbox=use_sandbox)

    try:
        os.makedirs(os.path.join(args.out, "feedback"), exist_ok=True)
    except OSError as exc:
        return _fail(f"cannot create the output folder {args.out}: {exc.strerror}")
    with tempfile.TemporaryDirectory(prefix="autograde-batch-") as scratch:
        submissions_source = args.submissions
        if args.from_hub:
            from autograder.commands.release import course_id
            from autograder.intake import hub

            submissions_source = os.path.join(scratch, "hub")
            os.makedirs(submissions_source)
            course = course_id(course_dir)
            try:
                count = hub.download(course, args.assignment, submissions_source)
                roster = roster if roster is not None else hub.roster(course)
            except hub.HubIntakeError as exc:
                return _fail(f"the hub's submissions cannot be read: {exc}")
            print(f"{count} submission(s) of {course}/{args.assignment} from the hub's exchange; "
                  f"{len(roster)} student(s) on the roster", flush=True)
        try:
            batch = collect_batch(submissions_source, args.assignment, scratch, limits=limits, roster=roster,
                                  deadline=deadline)
        except SubmissionsError as exc:
            return _fail(str(exc))
        submissions, skipped = batch.submissions, batch.skipped
        if not use_sandbox:
            print("autograder grade: WARNING: grading without a sandbox; student code runs with your permissions.",
                  file=sys.stderr)
        started = time.monotonic()
        settings = calibrated_settings(settings, course_dir, args.assignment, reuse=not args.recalibrate)
        print(describe_time_limits(settings), flush=True)
        run = functools.partial(grade_submissions, args.assignment, submissions, course_dir=course_dir,
                                out_dir=args.out, settings=settings, workers=args.workers, progress=_Progress(),
                                skipped=skipped, sandbox_text=sandbox_text, notes=batch.notes)
        if args.scheduler:
            from autograder.running.cluster import ClusterUnavailable, dask_executor

            try:
                with dask_executor(args.scheduler) as executor:
                    results = run(executor=executor)
            except ClusterUnavailable as exc:
                return _fail(str(exc))
        else:
            results = run()
        seconds = time.monotonic() - started
    for line in summary_lines(results, skipped, seconds, sandbox_text, use_sandbox) + batch.notes:
        print(line)
    print(f"wrote {os.path.join(args.out, 'grades.csv')}, {os.path.join(args.out, 'report.html')}, "
          "the gradebook imports canvas_import.csv and moodle_import.csv, the feedback each LMS takes back "
          "(report.html lists the files), "
          f"and {sum(r.status != MISSING for r in results)} feedback pages; "
          f"grades recorded in {os.path.join(course_dir, 'gradebook.db')}")
    waiting = sum(len(unmarked(r)) for r in results)
    if waiting:
        print(marking_hint(args.assignment, args.out, waiting, course_dir))
    return 0


def marking_hint(assignment, out, waiting, course_dir=None):
    """What to do about ``waiting`` written answers still to be marked: the marking page, or its CSV route, then
    ``export``.  ``course_dir`` is named in the commands when it is not the default one."""
    where = "" if course_dir is None or os.path.abspath(course_dir) == os.path.abspath(COURSE_DIR) \
        else f" --course-dir {course_dir}"
    return (f"{waiting} written {'answer is' if waiting == 1 else 'answers are'} still to be marked (counted 0 in "
            f"these files). Mark them on the marking page: python -m autograder mark {assignment}{where} (it "
            f"prints the page's address, for every TA who marks); or offline, through its CSV route: python -m "
            f"autograder mark {assignment} --to-csv FILE.csv{where}, then --from-csv FILE.csv. Then: python -m "
            f"autograder export {out}")
