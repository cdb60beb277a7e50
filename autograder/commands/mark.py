"""``python -m autograder mark``: the marking page for TAs, or the written answers to a CSV and back.

Without an option it serves the marking page (:mod:`autograder.marking.web`)
on 127.0.0.1 until it is stopped (Ctrl+C): it prints the address, with the
random token that every request must carry, as Jupyter does.  Before it
starts, the assignment's starting rubric
(``autograder/course/assignments/<assignment>/rubric.py``) goes into the
gradebook for every question whose rubric was never the TAs'
(:mod:`autograder.marking.starting_rubric`), and it says what it loaded
(``--no-starting-rubric`` leaves every rubric as it is).  ``--port``
chooses the port (without it, the first free one from
:data:`DEFAULT_PORT`); ``--ta NAME`` records every mark given through this
server as NAME's instead of asking each browser for a name.  The address
stays the same across restarts (the token is kept in the course folder, so
tabs left open go on working); ``--new-token`` makes a new one, and every
earlier address and open tab stops working.

``--to-csv FILE.csv`` writes every written answer of the assignment's
submissions in the gradebook (:mod:`autograder.marking.sheet`) and, beside
it, the booklet of the answers question by question
(:mod:`autograder.marking.booklet`).  ``--from-csv FILE.csv`` reads the marks
back into the gradebook: every row is checked first, each problem is
printed with its row, and the marks are written all at once or, when there
is any problem, not at all (exit status 1).  Exit status 2: the command
cannot start (no gradebook, unknown assignment, unreadable file).
"""

import argparse
import errno
import os
import socket
import sys

from autograder.course import COURSE_DIR

__all__ = ["main", "starting_rubric", "DEFAULT_PORT"]

DEFAULT_PORT = 8890
PORT_TRIES = 20  # how many ports from DEFAULT_PORT on are tried when --port is not given
REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _fail(message, status=2):
    print(f"autograder mark: {message}", file=sys.stderr)
    return status


def _counts(answers):
    to_mark = sum(not a.mark.marked and not a.mark.to_remark for a in answers)
    again = sum(a.mark.to_remark for a in answers)
    blank = sum(a.mark.blank for a in answers)
    return (f"{len(answers)} answers: {to_mark} to mark, {again} to mark again, {blank} blank (marked 0), "
            f"{len(answers) - to_mark - again - blank} marked")


def main(argv=None):
    from autograder.marking.answers import collect
    from autograder.marking.booklet import booklet_html
    from autograder.marking.sheet import read_sheet, sheet_text
    from autograder.outputs.gradebook import GradebookError, assignment_info, open_gradebook, set_marks
    from autograder.outputs.atomic_files import write_text_atomic

    parser = argparse.ArgumentParser(
        prog="python -m autograder mark",
        description="Mark the written answers: without an option, serve the marking page on 127.0.0.1 (one "
                    "question at a time across every submission, with a rubric); or, offline, write them to a CSV "
                    "(and an HTML booklet of the answers, question by question) for TAs to fill in, then read the "
                    "marks back into the gradebook.")
    parser.add_argument("assignment", metavar="ASSIGNMENT")
    parser.add_argument("--port", type=int, metavar="PORT",
                        help=f"the port of the marking page (default: the first free one from {DEFAULT_PORT}; "
                             "0: any free port)")
    parser.add_argument("--ta", metavar="NAME",
                        help="record every mark given through this marking page as NAME's (default: each browser "
                             "is asked for a name once)")
    parser.add_argument("--no-starting-rubric", action="store_true",
                        help="serve the page without loading the assignment's starting rubric (autograder/course/"
                             "assignments/ASSIGNMENT/rubric.py): each question's rubric starts empty, or as the TAs "
                             "left it (default: load it for every question whose rubric was never the TAs')")
    parser.add_argument("--new-token", action="store_true",
                        help="give the marking page a new address: every earlier address and open tab stops working "
                             "(default: the address of the last start, so open tabs go on)")
    route = parser.add_mutually_exclusive_group()
    route.add_argument("--to-csv", metavar="FILE.csv",
                       help="write every written answer, with its points, comment and state, to FILE.csv, and the "
                            "booklet to FILE.html")
    route.add_argument("--from-csv", metavar="FILE.csv",
                       help="read the points and comments of FILE.csv into the gradebook: all of them, or none "
                            "when a row has a problem")
    parser.add_argument("--booklet", metavar="FILE.html", help="where --to-csv writes the booklet "
                                                               "(default: beside the CSV, ending in .html)")
    parser.add_argument("--course-dir", default=COURSE_DIR, metavar="DIR",
                        help="the nbgrader course directory with gradebook.db (default: %(default)s)")
    args = parser.parse_args(argv)
    course_dir = os.path.abspath(args.course_dir)
    if args.port is not None and not 0 <= args.port <= 65535:
        return _fail(f"--port {args.port} is not a port; give a number from 1 to 65535, or 0 for any free port")
    if not args.to_csv and not args.from_csv:
        return _serve(course_dir, args)
    if args.port is not None or args.ta or args.new_token or args.no_starting_rubric:
        return _fail("--port, --ta, --new-token and --no-starting-rubric are options of the marking page; --to-csv "
                     "and --from-csv do not take them")

    try:
        gb = open_gradebook(course_dir)
    except GradebookError as exc:
        return _fail(str(exc))
    try:
        try:
            assignment_info(gb, args.assignment)
            questions, answers = collect(gb, course_dir, args.assignment)
        except GradebookError as exc:
            return _fail(str(exc))
        if args.to_csv:
            booklet = args.booklet or os.path.splitext(args.to_csv)[0] + ".html"
            try:
                write_text_atomic(args.to_csv, sheet_text(answers))
                write_text_atomic(booklet, booklet_html(args.assignment, questions, answers))
            except OSError as exc:
                return _fail(f"cannot write {exc.filename or args.to_csv}: {exc.strerror}")
            print(f"wrote {args.to_csv} ({_counts(answers)}) and the booklet {booklet}. Fill in the points and "
                  f"comment columns, then: python -m autograder mark {args.assignment} --from-csv {args.to_csv}")
            return 0

        try:
            with open(args.from_csv, "rb") as f:
                data = f.read()
        except OSError as exc:
            return _fail(f"cannot read {args.from_csv}: {exc.strerror}")
        found = read_sheet(data, answers, assignment=args.assignment)
        if found.problems:
            for problem in found.problems:
                print(f"autograder mark: {args.from_csv}: {problem}", file=sys.stderr)
            print(f"autograder mark: nothing was changed: {len(found.problems)} "
                  f"{'row has a problem' if len(found.problems) == 1 else 'problems'}; correct "
                  f"{'it' if len(found.problems) == 1 else 'them'} and read the file again", file=sys.stderr)
            return 1
        try:
            set_marks(gb, args.assignment, found.changes)
        except GradebookError as exc:
            return _fail(f"nothing was changed: {exc}")
        print(f"{args.from_csv}: {len(found.changes)} {'answer' if len(found.changes) == 1 else 'answers'} got a "
              f"new mark or comment, {found.unchanged} unchanged; recorded in "
              f"{os.path.join(course_dir, 'gradebook.db')}. Then: python -m autograder export OUT "
              "(the folder grade wrote) writes every file with the marks")
        return 0
    finally:
        gb.close()


def starting_rubric(course_dir, assignment):
    """Load the assignment's starting rubric into the gradebook (:mod:`autograder.marking.starting_rubric`);
    return ``(what to say, warnings)``, lines of text.  An assignment with no ``rubric.py`` says nothing."""
    from autograder.course.assignments import UnknownAssignment, load_rubric, rubric_file
    from autograder.marking.answers import question_labels
    from autograder.marking.starting_rubric import load_starting_rubric
    from autograder.outputs.gradebook import assignment_info, open_gradebook

    try:
        rubric, path = load_rubric(assignment), rubric_file(assignment)
    except UnknownAssignment:
        return [], []  # the registry does not know it: no starting rubric, and the page says the rest
    if not rubric:
        return [], []
    shown = os.path.relpath(path, REPOSITORY) if path.startswith(REPOSITORY + os.sep) else path
    gb = open_gradebook(course_dir)
    try:
        info = assignment_info(gb, assignment)
        outcome = load_starting_rubric(gb, assignment, rubric, source=shown)
    finally:
        gb.close()
    labels = question_labels(course_dir, assignment, info)
    name = lambda notebook, gid: labels.get((notebook, gid), gid)
    said, warnings = [], []
    if outcome.loaded:
        listed = ", ".join(f"{name(nb, gid)} ({n} {'item' if n == 1 else 'items'})" for nb, gid, n in outcome.loaded)
        said.append(f"Loaded the starting rubric of {shown} into the gradebook: {listed}. From now on each is the "
                    "TAs' rubric, to change on the page; this file is not read again for those questions.")
    if outcome.kept:
        listed = ", ".join(f"{name(nb, gid)} ({why})" for nb, gid, why in outcome.kept)
        said.append(f"Rubrics left as they are ({shown} fills only one that was never the TAs'): {listed}.")
    warnings += [f"{shown} has a rubric for {gid!r}, which is no written question of {assignment}; it was left out"
                 for gid in outcome.unknown]
    warnings += [f"the starting rubric of {name(_notebook_of(info, gid), gid)} in {shown} was not loaded: "
                 + "; ".join(found) for gid, found in outcome.refused]
    return said, warnings


def _notebook_of(info, grade_id):
    """The notebook of ``info`` (:func:`~autograder.outputs.gradebook.assignment_info`) that holds ``grade_id``."""
    return next((notebook for notebook, cells in info.items() if grade_id in cells), "")


def _listening_socket(port):
    """A socket listening on 127.0.0.1: on ``port``, or (``None``) on the first free one from DEFAULT_PORT."""
    ports = [port] if port is not None else list(range(DEFAULT_PORT, DEFAULT_PORT + PORT_TRIES))
    for number in ports:
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        try:
            sock.bind(("127.0.0.1", number))
            sock.listen(64)
            return sock
        except OSError as exc:
            sock.close()
            if exc.errno != errno.EADDRINUSE or number == ports[-1]:
                raise
    raise OSError(errno.EADDRINUSE, "every port tried is in use")


def _serve(course_dir, args):
    """Serve the marking page until Ctrl+C (exit status 0), or say why it cannot start (2)."""
    from autograder.marking.web import Marking, create_app, find_mathjax
    from autograder.outputs.gradebook import GradebookError

    mathjax = find_mathjax()
    try:
        said, warnings = ([], []) if args.no_starting_rubric else starting_rubric(course_dir, args.assignment)
        marking = Marking(course_dir, args.assignment, ta=args.ta, mathjax=mathjax, new_token=args.new_token)
    except GradebookError as exc:
        return _fail(str(exc))
    for line in warnings:
        print(f"autograder mark: WARNING: {line}", file=sys.stderr)
    for line in said:
        print(line)
    try:
        import uvicorn

        try:
            sock = _listening_socket(args.port)
        except OSError as exc:
            tried = (f"port {args.port}" if args.port is not None
                     else f"ports {DEFAULT_PORT} to {DEFAULT_PORT + PORT_TRIES - 1}")
            return _fail(f"cannot listen on 127.0.0.1, {tried}: {exc.strerror or exc}; give another with --port "
                         "(0: any free port)")
        address = f"http://127.0.0.1:{sock.getsockname()[1]}/?token={marking.token}"
        counts = [(s.question.label, s.marked, len(s.rows)) for s in marking.warm()]
        if not counts:
            print(f"{args.assignment} has no written answers: the page will say there is nothing to mark.")
        for label, marked, total in counts:
            print(f"  {label}: {marked} of {total} answers marked")
        if mathjax is None:
            print("MathJax is not installed, so mathematics shows as TeX: make install installs it (as does "
                  "make book), or set BOOK_MATHJAX_DIR to the es5 folder of a MathJax 3 package.")
        print(f"The marking page of {args.assignment} (marks go to {os.path.join(course_dir, 'gradebook.db')}):\n"
              f"    {address}\n"
              "Open that address in a browser on this machine (it holds the page's token; do not share it "
              "beyond your TAs). Ctrl+C stops the server.", flush=True)
        config = uvicorn.Config(create_app(marking), log_level="warning", access_log=False, lifespan="off",
                                server_header=False)
        try:
            uvicorn.Server(config).run(sockets=[sock])
        except KeyboardInterrupt:
            pass  # uvicorn has shut down already; it raises Ctrl+C again to say so
        print("The marking server stopped; every saved mark is in the gradebook. Then: python -m autograder "
              "export OUT (the folder grade wrote)")
        return 0
    finally:
        marking.close()
