"""``python -m autograder check NOTEBOOK.ipynb``: the student's check, run against a course directory.

The check itself is :mod:`perceptron_course.check` (students run it as
``perceptron-check`` from the course's package).  Here it compares the
notebook with the course directory's own release (``notebooks/release/``,
or ``--course-dir``) and holds it to the limits of that course's
``nbgrader_config.py``, and it refuses a release in which the course's leak
audit (:mod:`autograder.commands.audit`) finds instructor-only text.
"""

import os
import sys

from perceptron_course.check import (CANNOT_CHECK, CheckError, Finding, Plan, format_report)  # noqa: F401
from perceptron_course.check import check_notebook as _check_notebook
from perceptron_course.check import main as _main
from perceptron_course.check import parser as _parser
from perceptron_course.check import plan as _plan
from perceptron_course.execute import run_notebook  # noqa: F401  (verify runs notebooks with it)

from autograder.commands.audit import audit, collect_secrets
from autograder.course import COURSE_DIR

__all__ = ["Finding", "Plan", "CheckError", "plan", "check_notebook", "format_report", "main", "run_notebook"]

HOW_TO_RELEASE = "run `python -m autograder release` (or `make assignments`) first"


def _release_dir(course_dir):
    return os.path.join(course_dir, "release")


def _leak_search(course_dir):
    """The leak audit of a release notebook against ``course_dir``'s secrets: what it finds, in words."""
    def search(release_path):
        return [finding.what for finding in audit([release_path], collect_secrets(course_dir=course_dir))]
    return search


def plan(path, *, assignment=None, course_dir=COURSE_DIR):
    """:func:`perceptron_course.check.plan` against the release of ``course_dir``."""
    return _plan(path, assignment=assignment, release_dir=_release_dir(course_dir), how_to_release=HOW_TO_RELEASE,
                 leak_search=_leak_search(course_dir))


def check_notebook(path, *, assignment=None, course_dir=COURSE_DIR, limits=None, cell_seconds=None):
    """:func:`perceptron_course.check.check_notebook` against ``course_dir``, with its limits by default."""
    from autograder.course.limits import load_limits

    limits = load_limits(course_dir) if limits is None else limits
    return _check_notebook(path, assignment=assignment, release_dir=_release_dir(course_dir), limits=limits,
                           cell_seconds=cell_seconds, how_to_release=HOW_TO_RELEASE,
                           leak_search=_leak_search(course_dir))


def main(argv=None):
    """Check a notebook; exit 0 when it is ready to submit, 1 when not, 2 when it cannot be checked."""
    from autograder.course.limits import load_limits
    from perceptron_course.limits import LimitsError

    prog = "python -m autograder check"
    parser = _parser(prog)
    parser.add_argument("--course-dir", default=COURSE_DIR, help="the course directory (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        limits = load_limits(args.course_dir)
    except LimitsError as exc:
        print(f"{prog}: {exc}.", file=sys.stderr)
        return CANNOT_CHECK
    return _main(prog=prog, release_dir=_release_dir(args.course_dir), limits=limits, how_to_release=HOW_TO_RELEASE,
                 leak_search=_leak_search(args.course_dir), args=args)
