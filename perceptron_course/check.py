"""``perceptron-check NOTEBOOK.ipynb``: will this notebook grade? Students run it before submitting.

It runs on the student's own machine, without a sandbox, and does what
grading does up to the hidden checks: it rebuilds the notebook around the
release's locked cells (:func:`perceptron_course.cells.prepare_notebook`, so
an edited or deleted test cell runs as the original, exactly as when
graded), copies it with the release's other files into an empty folder, and
runs it top to bottom with the grader's own runner (a fresh Python process,
an IPython shell) and the course's time limits: a cell past the per-cell
limit is interrupted and the next one runs.  It runs on Windows, macOS and
Linux alike (:mod:`perceptron_course.platform_support` chooses how); a limit
that this computer cannot enforce as grading does is named once, at the top
of the report.  From inside a notebook, its last cell runs this same check
(:mod:`perceptron_course.notebook_check`).

Then it prints, part by part: each visible test passed or failed with its
message; functions still missing or still raising ``NotImplementedError``;
cells that raised or ran past the time limit; written answers still empty;
then the locked cells that were edited, deleted or copied, and whether the
file has the name the grader expects.  It exits 0 only when nothing is left
to fix.

The releases it compares with are the ones this package was built with
(:data:`RELEASE_DIR`, package data), and the limits those of the course
(:func:`perceptron_course.limits.course_limits`); the instructor's
``python -m autograder check`` runs the same check against a course
directory instead.  It works offline and sends nothing anywhere.

It never runs or shows a hidden check: the test cells come from the release,
which has none, and nothing here imports the grader.  Whatever stops the
check itself (no such file, a notebook of another course, a broken
installation) is one sentence that says what to do, and exit status 2.
"""

import argparse
import ast
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass

from .boundary import parse_notebook, read_untrusted_file
from .cells import (LIBRARY, calibration_key, grade_id, is_solution, is_test_cell, library_imports,
                    nbgrader_metadata, prepare_notebook, question_names)
from .limits import Limits, LimitsError, course_limits
from .platform_support import unenforced_limits

__all__ = ["Finding", "Plan", "CheckError", "plan", "check_notebook", "format_report", "main", "RELEASE_DIR",
           "DISTRIBUTION", "COMMAND"]

READY, NOT_READY, CANNOT_CHECK = 0, 1, 2
WRITTEN_STUB = "YOUR ANSWER HERE"
MAX_MESSAGE = 300
DISTRIBUTION = "perceptron-course-student"  # the package students install, with this check
COMMAND = "perceptron-check"
# The release notebooks this package was built with, one folder per assignment (package data).
RELEASE_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "release")
REINSTALL = (f"reinstall the course's package ({DISTRIBUTION}) with the pip install command from the course's "
             "site, adding --force-reinstall")
PART_HEADING = re.compile(r"##\s+(Part [A-Z]):\s*(.*?)\s*\((\d+) points?\)")
FILE = "The file"
SETUP = "Set-up"


class CheckError(Exception):
    """The notebook cannot be checked at all (no such file, no released assignment to compare it with, another
    course's notebook)."""


@dataclass(frozen=True)
class Finding:
    """One printed line: ``ok`` is False for anything the student must fix before submitting."""

    part: str
    ok: bool
    text: str


def _released(release):
    """``{assignment: path of its release notebook}`` for every released assignment in the folder ``release``."""
    found = {}
    if os.path.isdir(release):
        for name in sorted(os.listdir(release)):
            path = os.path.join(release, name, f"{name}.ipynb")
            if os.path.isfile(path):
                found[name] = path
    return found


def _grade_ids(notebook):
    """The nbgrader grade ids of a release notebook (nbformat) or a parsed submission."""
    if hasattr(notebook, "metadata") or isinstance(notebook, dict):
        return {grade_id(c) for c in notebook["cells"]} - {None}
    return {cell.grade_id for cell in notebook.cells} - {None}


def _which_assignment(path, student, released):
    """The assignment a notebook belongs to: by its file name, else by the grade cells it shares with a release."""
    import nbformat

    stem = os.path.splitext(os.path.basename(path))[0]
    if stem in released:
        return stem
    ids = _grade_ids(student)
    best, shared = None, 0
    for name, release_path in released.items():
        overlap = len(ids & _grade_ids(nbformat.read(release_path, as_version=4)))
        if overlap > shared:
            best, shared = name, overlap
    return best


def _parts(release_nb):
    """``(part titles in order, {grade_id: part title})`` from the release's ``## Part X: ... (N points)`` headings."""
    titles, of_cell, current = [FILE, SETUP], {}, SETUP
    for cell in release_nb.cells:
        match = PART_HEADING.match(cell.source) if cell.cell_type == "markdown" else None
        if match:
            current = f"{match.group(1)}: {match.group(2)} ({match.group(3)} points)"
            titles.append(current)
        gid = grade_id(cell)
        if gid:
            of_cell[gid] = current
    return titles, of_cell


def _stub_functions(source):
    try:
        return [n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)]
    except SyntaxError:
        return []


def _raises_not_implemented(function):
    for node in ast.walk(function):
        if isinstance(node, ast.Raise) and node.exc is not None:
            target = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(target, ast.Name) and target.id == "NotImplementedError":
                return True
    return False


def _answer_findings(release_nb, answers, authored, part_of):
    """Missing functions, functions still raising NotImplementedError, code that does not parse, empty answers
    (a written one named as the notebook names its question, "D1")."""
    findings = []
    defined = {}
    names = question_names(release_nb)
    for label, source in authored:
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                defined[node.name] = node
    for cell in release_nb.cells:
        gid = grade_id(cell)
        if not is_solution(cell) or gid is None:
            continue
        part = part_of.get(gid, SETUP)
        answer = answers.get(gid, "")
        if cell.cell_type == "markdown":
            if not answer.strip() or answer.strip() == WRITTEN_STUB:
                findings.append(Finding(part, False, f"written answer {names.get(gid, gid)} is still empty"))
            continue
        try:
            ast.parse(answer)
        except SyntaxError as exc:
            findings.append(Finding(part, False, f"answer cell {gid} is not valid Python: line {exc.lineno}: {exc.msg}"))
            continue
        for name in _stub_functions(cell.source):
            if name not in defined:
                findings.append(Finding(part, False, f"{name} is not defined: keep the function's name and signature "
                                                     f"(answer cell {gid})"))
            elif _raises_not_implemented(defined[name]):
                findings.append(Finding(part, False, f"{name} still raises NotImplementedError: write its body and "
                                                     f"delete that line (answer cell {gid})"))
    return findings


def _library_findings(notebook, release_nb, part_of):
    """Imports from perceptron_lib that grading will not allow, in the cells the student wrote.

    A graded notebook gets only the data loaders its release imports; the
    rest of the library is the reference implementation, and importing it
    fails there, although it works here, where the whole library is installed.
    """
    allowed = set()
    for cell in release_nb.cells:
        if cell.cell_type == "code":
            allowed.update(library_imports(cell.source)[0])
    offered = ", ".join(sorted(allowed)) or "none"
    findings, part = [], SETUP
    for index, cell in enumerate(notebook.cells):
        gid, label = _label(cell, index)
        part = part_of.get(gid, part)
        if cell.cell_type != "code" or (nbgrader_metadata(cell) and not is_solution(cell)):
            continue  # the release's own locked cells
        names, modules = library_imports(cell.source)
        refused = [f"{LIBRARY}.{name}" for name in names if name not in allowed] + list(modules)
        if refused:
            findings.append(Finding(part, False, (
                f"{label} imports {', '.join(refused)}: grading gives a notebook only the data loaders this "
                f"assignment imports from {LIBRARY} ({offered}), because the rest is the course's reference "
                "implementation, so that import fails when the notebook is graded; write it yourself")))
    return findings


def _first_line(text):
    text = str(text).strip().splitlines()[0] if str(text).strip() else ""
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE - 3] + "..."


def _label(cell, index):
    """``(grade_id or None, how to name the cell to the student)``."""
    gid = grade_id(cell)
    if gid:
        return gid, f"cell {gid}"
    first = _first_line(cell.source)
    first = first if len(first) <= 60 else first[:57].rstrip() + "..."
    return None, f"cell {index + 1}" + (f" ({first})" if first else "")


def _run_findings(notebook, interrupted, stopped, died, part_of, *, cell_timeout, budget, seconds=None,
                  calibrated=(), limits=None):
    """What running showed: each visible test passed or failed, other cells that raised or were interrupted.

    ``calibrated`` are the indices of the cells whose time limit grading sets
    from the instructor's solution (:mod:`autograder.running.calibrate`): one of them
    that took longer than the floor of those limits may be interrupted there,
    although it finished here.
    """
    findings = []
    part = SETUP
    end = stopped if stopped is not None else died
    for index, cell in enumerate(notebook.cells):
        gid, label = _label(cell, index)
        part = part_of.get(gid, part)
        if cell.cell_type != "code":
            continue
        is_test = is_test_cell(cell)
        if index == died:
            findings.append(Finding(part, False, f"{label} stopped Python itself (for example with os._exit): grading marks "
                                                 "the notebook crashed and scores every test 0"))
            continue
        if end is not None and index >= end:
            if is_test:
                findings.append(Finding(part, False, f"test {gid} did not run: the notebook stopped before it"))
            continue
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        if index in interrupted:
            problem = (f"ran for more than {cell_timeout:g} s and was interrupted: look for a loop that never ends "
                       "or one that does far more work than the task needs (grading interrupts it too, and a "
                       "function that never returns scores 0)")
            findings.append(Finding(part, False, f"test {gid} {problem}" if is_test else f"{label} {problem}"))
        elif errors:
            error = errors[0]
            message = f"{error.get('ename', 'an error')}: {_first_line(error.get('evalue', ''))}".rstrip(": ")
            findings.append(Finding(part, False, f"test {gid} failed: {message}" if is_test else f"{label} raised {message}"))
        elif is_test:
            findings.append(Finding(part, True, f"test {gid} passed"))
        took = (seconds or {}).get(index, 0.0)
        if index in calibrated and index not in interrupted and limits is not None and took > limits.min_cell_seconds:
            findings.append(Finding(part, False, (
                f"{'test ' + gid if is_test else label} took {took:.1f} s: grading gives this cell about "
                f"{limits.calibration_factor:g} times what the model solution needs there, and as little as "
                f"{limits.min_cell_seconds:g} s, so it may be interrupted; make the functions it calls faster")))
    if stopped is not None:
        findings.append(Finding(SETUP, False, f"the notebook ran for more than {budget:g} s in all and was stopped; "
                                              "grading stops it too and scores every test 0 (status timeout)"))
    return findings


def _locked_findings(flags, part_of):
    """Edited, deleted and copied locked cells, from the flags of :func:`prepare_notebook`."""
    findings = []
    what = {
        "edited-locked-cell": "was edited: grading runs the original cell instead, so your change has no effect; "
                              "undo it, or the notebook is flagged for your instructor",
        "deleted-locked-cell": "was deleted: grading puts the original back and runs it; restore it from the "
                               "release notebook, or the notebook is flagged for your instructor",
        "duplicated-cell": "appears more than once: grading keeps the first copy; delete the others",
    }
    for flag in flags:
        if flag.code in what:
            for gid in re.findall(r"[A-Za-z0-9_-]+", flag.detail.split(":", 1)[-1]):
                findings.append(Finding(part_of.get(gid, SETUP), False, f"locked cell {gid} {what[flag.code]}"))
    return findings


@dataclass
class Plan:
    """What :func:`plan` found before anything runs: the notebook to run and the findings so far."""

    assignment: str
    notebook: object  # the nbformat notebook to execute, locked cells as released
    release_path: str
    titles: list
    part_of: dict
    findings: list
    calibrated: set  # indices of the cells whose time grading calibrates (see _calibrated_cells)


def plan(path, *, assignment=None, release_dir=RELEASE_DIR, how_to_release=REINSTALL, leak_search=None):
    """Read a student's notebook and build what :func:`check_notebook` runs, without running anything.

    ``release_dir`` holds the release notebooks, ``<assignment>/<assignment>.ipynb``;
    ``how_to_release`` says what to do when it holds none.  Returns a
    :class:`Plan`, or ``(None, findings)`` when the file is not a notebook at
    all.  Raises :class:`CheckError` when the file or the release it is
    checked against cannot be found, when the notebook shares no graded cell
    with its assignment (another course's notebook), or when ``leak_search``
    (a function of the release notebook's path that returns the
    instructor-only text it holds, each described in words: the instructor's
    check passes the course's leak audit) finds anything: then it is not a
    student version, and nothing of it may run.
    """
    import nbformat

    if not os.path.isfile(path):
        raise CheckError(f"there is no file {path}")
    released = _released(release_dir)
    if not released:
        raise CheckError(f"no released assignment in {release_dir}: {how_to_release}")
    name = os.path.basename(path)
    # The same parser grading uses, so "not a notebook" here means "ungradable" there.
    data, reason = read_untrusted_file(path, Limits().notebook_bytes)
    student = None
    if data is not None:
        student, reason = parse_notebook(data)
    if student is None:
        return None, [Finding(FILE, False, f"{name} is not a notebook the grader can read ({reason}): "
                                            "grading will mark it ungradable; save it again from Jupyter")]
    if assignment is None:
        assignment = _which_assignment(path, student, released)
        if assignment is None:
            raise CheckError(f"{name} shares no graded cell with any assignment of this course "
                             f"({', '.join(released)}), so it is not one of its notebooks (another course's, or "
                             "one whose cells lost their metadata): download your assignment again from the "
                             "course's site and copy your answers into it, or name the assignment with --assignment")
    elif assignment not in released:
        raise CheckError(f"assignment {assignment!r} is not one of this course's; its assignments: "
                         f"{', '.join(released)}")

    release_path = released[assignment]
    try:
        with open(release_path, encoding="utf-8") as f:
            release_text = f.read()
        release_nb = nbformat.reads(release_text, as_version=4)
    except (OSError, ValueError) as exc:
        raise CheckError(f"the release notebook {release_path} cannot be read ({exc}): {how_to_release}") from None
    leaked = leak_search(release_path) if leak_search is not None else []
    if leaked:
        raise CheckError(f"the release notebook {release_path} contains instructor-only text ({leaked[0]}); "
                         "it is not a student version, so nothing is run")
    if _grade_ids(release_nb) and not _grade_ids(release_nb) & _grade_ids(student):
        raise CheckError(f"{name} shares no graded cell with the assignment {assignment} of this course, so it is "
                         "not that assignment's notebook (another course's, or one whose cells lost their "
                         "metadata): download the assignment again from the course's site and copy your answers "
                         "into it")
    titles, part_of = _parts(release_nb)
    prepared, flags, authored, answers = prepare_notebook(student, release_nb)

    findings = []
    if os.path.realpath(path) == os.path.realpath(release_path):
        findings.append(Finding(FILE, False, f"this is the course's own release copy, which is replaced when the "
                                              f"course is updated, and against which edits cannot be seen: "
                                              f"copy it out (cp {release_path} ~/) and work on the copy"))
    expected = f"{assignment}.ipynb"
    if name != expected:
        findings.append(Finding(FILE, False, f"the file is named {name!r}; the grader expects {expected!r}: "
                                              "rename it before you submit"))
    findings += _locked_findings(flags, part_of)
    findings += _answer_findings(release_nb, answers, authored, part_of)
    findings += _library_findings(prepared, release_nb, part_of)
    return Plan(assignment, prepared, release_path, titles, part_of, findings,
                _calibrated_cells(prepared, release_nb))


def _calibrated_cells(notebook, release_nb):
    """Indices of the code cells of ``notebook`` that come from the release and are not answer cells.

    Grading limits these cells' time from the instructor's solution, and
    recognises them by the same key (:func:`~perceptron_course.cells.calibration_key`).
    """
    release_keys = {calibration_key(c) for c in release_nb.cells} - {None}
    return {index for index, cell in enumerate(notebook.cells) if calibration_key(cell) in release_keys}


def check_notebook(path, *, assignment=None, release_dir=RELEASE_DIR, limits=None, cell_seconds=None,
                   how_to_release=REINSTALL, leak_search=None):
    """Check one notebook; return ``(assignment, list of Finding)`` in the order they are printed.

    ``limits`` default to the course's (:func:`~perceptron_course.limits.course_limits`),
    ``cell_seconds`` to their per-cell ceiling.  Raises :class:`CheckError`
    as :func:`plan` does.
    """
    from .execute import run_notebook, warm_up

    limits = course_limits() if limits is None else limits
    cell_seconds = limits.cell_seconds if cell_seconds is None else cell_seconds
    planned = plan(path, assignment=assignment, release_dir=release_dir, how_to_release=how_to_release,
                   leak_search=leak_search)
    if not isinstance(planned, Plan):
        return planned
    findings = list(planned.findings)
    os.environ.setdefault("MPLBACKEND", "Agg")
    warm_up()
    # Removing the folder must not fail where files stay locked for a moment after their process ended (Windows).
    with tempfile.TemporaryDirectory(prefix="autograder-check-", ignore_cleanup_errors=True) as work:
        # The release's other files (data), as grading gives them; nothing else from the student's folder.
        release_dir = os.path.dirname(planned.release_path)
        for entry in sorted(os.listdir(release_dir)):
            source = os.path.join(release_dir, entry)
            if entry == os.path.basename(planned.release_path) or entry.startswith(".") or os.path.islink(source):
                continue
            (shutil.copytree if os.path.isdir(source) else shutil.copy)(source, os.path.join(work, entry))
        interrupted, stopped, died, seconds = run_notebook(planned.notebook, work, cell_timeout=cell_seconds,
                                                           limits=limits)
    findings += _run_findings(planned.notebook, interrupted, stopped, died, planned.part_of,
                              cell_timeout=cell_seconds, budget=limits.notebook_seconds,
                              seconds=seconds, calibrated=planned.calibrated, limits=limits)
    order = {title: i for i, title in enumerate(planned.titles)}
    findings.sort(key=lambda f: order.get(f.part, 0))  # stable: within a part, the order found
    return planned.assignment, findings


def format_report(path, assignment, findings, limits=Limits(), cell_seconds=None):
    """The text printed for the student."""
    cell_seconds = limits.cell_seconds if cell_seconds is None else cell_seconds
    lines = [f"Checking {path}" + (f" (assignment {assignment})" if assignment else ""),
             f"as grading runs it: a fresh Python, at most {cell_seconds:g} s per cell and "
             f"{limits.notebook_seconds:g} s in all, locked cells as released."]
    # What this computer cannot enforce as grading does, said once, before the verdicts it may colour.
    lines += [f"On this computer, unlike in grading: {note}." for note in unenforced_limits()]
    lines += ["Only the tests you can see run here; grading adds hidden checks of the same kind.", ""]
    current = None
    for finding in findings:
        if finding.part != current:
            current = finding.part
            lines.append(current)
        lines.append(f"  {'[ok]  ' if finding.ok else '[fix] '} {finding.text}")
    to_fix = sum(not f.ok for f in findings)
    lines.append("")
    if to_fix:
        lines.append(f"Not ready: {to_fix} thing{'s' if to_fix > 1 else ''} to fix (marked [fix] above).")
    else:
        lines.append("Ready to submit: every visible test passes, nothing is missing, and the file name is right.")
    return "\n".join(lines)


# What the check imports besides numpy, and the package on the index that provides it.
NEEDED_MODULES = (("nbformat", "nbformat"), ("IPython", "ipython"), ("traitlets", "traitlets"))


def _missing_modules():
    """``(module, distribution)`` of each module the check needs that cannot be imported."""
    import importlib.util

    return [(module, dist) for module, dist in NEEDED_MODULES if importlib.util.find_spec(module) is None]


def parser(prog=COMMAND):
    """The command line's options, without defaults that depend on the course (``None`` means the course's)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Run your notebook as grading does (fresh Python, the course's time limits, locked cells as "
                    "released) and say what to fix before you submit. Hidden checks are never run; nothing is "
                    "sent anywhere.",
    )
    parser.add_argument("notebook", metavar="NOTEBOOK.ipynb")
    parser.add_argument("--assignment", help="the assignment (default: found from the file name or its cells)")
    parser.add_argument("--cell-timeout", type=float, default=None, metavar="SECONDS",
                        help="interrupt a cell after this long (default: the course's limit)")
    parser.add_argument("--timeout", type=float, default=None, metavar="SECONDS",
                        help="stop the whole notebook after this long (default: the course's limit)")
    return parser


def main(argv=None, *, prog=COMMAND, release_dir=RELEASE_DIR, limits=None, how_to_release=REINSTALL,
         leak_search=None, args=None):
    """Check a notebook; exit 0 when it is ready to submit, 1 when not, 2 when it cannot be checked.

    ``limits`` default to the course's; ``args`` are already parsed options
    (the instructor's ``python -m autograder check`` parses its own).
    """
    args = parser(prog).parse_args(argv) if args is None else args
    if (args.cell_timeout is not None and args.cell_timeout <= 0) or (args.timeout is not None and args.timeout <= 0):
        print(f"{prog}: --cell-timeout and --timeout must be positive numbers of seconds.", file=sys.stderr)
        return CANNOT_CHECK
    missing = _missing_modules()
    if missing:
        print(f"{prog}: the check needs {', '.join(m for m, _ in missing)}, which this Python cannot import: "
              f"install {' '.join(d for _, d in missing)} (python -m pip install {' '.join(d for _, d in missing)}) "
              f"or {REINSTALL}.", file=sys.stderr)
        return CANNOT_CHECK
    try:
        limits = course_limits() if limits is None else limits
        if args.timeout is not None:
            limits = limits.replace(notebook_seconds=args.timeout)
    except LimitsError as exc:
        print(f"{prog}: {exc}.", file=sys.stderr)
        return CANNOT_CHECK
    cell_seconds = limits.cell_seconds if args.cell_timeout is None else args.cell_timeout
    try:
        assignment, findings = check_notebook(os.path.expanduser(args.notebook), assignment=args.assignment,
                                              release_dir=release_dir, limits=limits, cell_seconds=cell_seconds,
                                              how_to_release=how_to_release, leak_search=leak_search)
    except CheckError as exc:
        print(f"{prog}: {exc}.", file=sys.stderr)
        return CANNOT_CHECK
    except OSError as exc:  # the machine's side: no space for the temporary copy, Python cannot be started ...
        print(f"{prog}: the notebook could not be run here ({exc}); free some disk space or fix what the error "
              "names, then check again.", file=sys.stderr)
        return CANNOT_CHECK
    print(format_report(args.notebook, assignment, findings, limits, cell_seconds))
    return NOT_READY if any(not f.ok for f in findings) else READY


def console_main():
    """The ``perceptron-check`` console command (also ``python -m perceptron_course``)."""
    # A report redirected to a file or a pipe is written in the system's encoding, which may lack a letter of a
    # path or a message (Windows' code pages): such a letter is shown as "?" rather than stopping the report.
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="replace")
    try:
        code = main()
    except KeyboardInterrupt:
        print(f"\n{COMMAND}: stopped before it finished; nothing was changed.", file=sys.stderr)
        code = 130
    except BrokenPipeError:
        # The report went to a program that stopped reading it (``| head``): nothing left to say.
        # Point stdout at nothing, so the interpreter's final flush does not fail too.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 141
    sys.exit(code)
