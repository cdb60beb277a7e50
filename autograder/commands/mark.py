"""``python -m autograder mark``: the written answers to a CSV and a booklet for TAs, and their marks back.

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
import os
import sys

from autograder.course import COURSE_DIR

__all__ = ["main"]


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
    from autograder.outputs.record import write_text_atomic

    parser = argparse.ArgumentParser(
        prog="python -m autograder mark",
        description="Mark the written answers offline: write them to a CSV (and an HTML booklet of the answers, "
                    "question by question) for TAs to fill in, then read the marks back into the gradebook.")
    parser.add_argument("assignment", metavar="ASSIGNMENT")
    route = parser.add_mutually_exclusive_group(required=True)
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
