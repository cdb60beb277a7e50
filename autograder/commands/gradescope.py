"""Grading on Gradescope: ``python -m autograder gradescope`` builds the autograder, and this module grades there.

Gradescope runs an autograder from a zip with ``setup.sh`` and
``run_autograder`` at its root: ``setup.sh`` once, when it builds the image,
and ``run_autograder`` for every submission, with the zip's contents in
``/autograder/source``, the student's files in ``/autograder/submission`` and
the grade expected in ``/autograder/results/results.json`` (the contract:
https://gradescope-autograders.readthedocs.io/en/latest/specs/).

:func:`build` writes that zip for one assignment: the two scripts (from
``autograder/templates/gradescope``), this grader with the assignment's
hidden checks only, ``perceptron_lib``, ``perceptron_course`` (the runner and
the readers the grader shares with the student's check), the released assignment, the grading
requirements pinned as in ``requirements.txt`` and ``constraints.txt``, and
``gradescope/config.json`` with the course's limits and the time limits
calibrated from the instructor's solution on the instructor's machine (the
solution itself is not shipped).

:func:`grade_in_container` is what ``run_autograder`` runs: the submission
goes through exactly the code ``python -m autograder grade`` uses for each
submission (:func:`autograder.running.worker.run_submission`, then
:func:`autograder.judging.judge.judge`), in a bubblewrap sandbox when one can start
and otherwise as an unprivileged user id (:func:`autograder.running.sandbox.run_as_user`)
that cannot read ``source/`` or write ``results/``; :func:`results_json`
turns the result into Gradescope's format.  Every path is under
``$GRADESCOPE_ROOT`` (default ``/autograder``), so the whole thing runs
anywhere; ``GRADESCOPE_ISOLATION=user`` skips bubblewrap, to exercise the
fallback where bubblewrap works.

The written answers are marked by people, on Gradescope's own manual
grading.  So that a TA reads each answer as text beside its question (the
uploaded ``.ipynb`` holds it as a JSON string), :func:`written_answers`
reads them from the submission before any of its code runs, and
``results.json`` carries one test per written question, for the course
staff only (visibility ``hidden``, no points): the question as the release
asks it and the student's answer as written, or that it is blank.  The
model answers are never in the zip, so they cannot reach a student from
there.
"""

import argparse
import dataclasses
import io
import json
import os
import re
import sys
import zipfile
from dataclasses import dataclass

from autograder.course import assignments

__all__ = ["build", "main", "grade_in_container", "container_main", "results_json", "find_notebook",
           "written_answers", "WrittenAnswer", "VISIBILITIES", "DEFAULT_HIDDEN_VISIBILITY", "ZIP_NAME",
           "GRADING_PACKAGES", "WRITTEN_TAG", "ANSWER_HEADING"]

HERE = os.path.dirname(os.path.abspath(__file__))
GRADER = os.path.dirname(HERE)
REPO = os.path.dirname(GRADER)
TEMPLATES = os.path.join(HERE, "templates", "gradescope")
SCRIPTS = ("setup.sh", "run_autograder")
ZIP_NAME = "autograder.zip"
CONFIG = "gradescope/config.json"
SUBMISSION_ID = "submission"
ISOLATION_ENV = "GRADESCOPE_ISOLATION"
# Gradescope's visibility values, from the specification cited above.
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
DEFAULT_HIDDEN_VISIBILITY = "after_published"
WHEN_SHOWN = {"after_published": "once your instructor publishes the grades",
              "after_due_date": "after the due date", "hidden": "to your instructor only"}
# What grading imports, on the host and in the notebook's process, and nothing else: the image's environment
# is what setup.sh downloads for every build (IPython runs the cells; neither nbgrader, with the Jupyter server
# and JupyterLab it brings, nor ipykernel is imported there). The versions come from requirements.txt.
GRADING_PACKAGES = ("numpy", "matplotlib", "scikit-learn", "scipy", "threadpoolctl", "ipython", "nbformat",
                    "PyYAML", "psutil")
FIXED_TIME = (1980, 1, 1, 0, 0, 0)  # zip entries carry no build time, so the same course gives the same zip
# The tag of the tests that show a written answer to the course staff, and the line after which the answer
# follows in their output, exactly as the student wrote it.
WRITTEN_TAG = "written answer"
ANSWER_HEADING = "The student's answer, exactly as written:"


class GradescopeError(Exception):
    """The autograder cannot be built, or the container is not laid out as the autograder expects."""


# -- building the zip (on the instructor's machine) ------------------------------------------

def _pinned_requirements():
    """``requirements.txt``'s pins of :data:`GRADING_PACKAGES`, as the text of a requirements file."""
    pins = {}
    with open(os.path.join(REPO, "requirements.txt"), encoding="utf-8") as f:
        for line in f:
            match = re.match(r"^\s*([A-Za-z0-9_.-]+)\s*==\s*([^\s#]+)", line)
            if match:
                pins[match.group(1).lower()] = f"{match.group(1)}=={match.group(2)}"
    missing = [name for name in GRADING_PACKAGES if name.lower() not in pins]
    if missing:
        raise GradescopeError(f"requirements.txt pins no version of {', '.join(missing)}, which grading needs")
    return "".join(pins[name.lower()] + "\n" for name in GRADING_PACKAGES)


def _source_files(folder, arcname):
    """``(path, name in the zip)`` of the Python files of ``folder`` (not its subfolders)."""
    return [(os.path.join(folder, name), f"{arcname}/{name}") for name in sorted(os.listdir(folder))
            if name.endswith(".py") and os.path.isfile(os.path.join(folder, name))]


def _grader_files(assignment):
    """``(path, name in the zip)`` of the grader's Python files, with one assignment's folder of the registry only."""
    registry = os.path.dirname(assignments.folder(assignment))
    found = []
    for root, dirs, files in os.walk(GRADER):
        if root == registry:
            dirs[:] = [assignment]
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "_")) and d != "templates")
        # The known-wrong code is verify's, the starting rubric (with its notes for markers) the marking page's:
        # never a grading run's.
        left_out = {"known_wrong.py"} | ({f"{assignments.RUBRIC_MODULE}.py"} if os.path.dirname(root) == registry
                                         else set())
        found += [(path, name) for path, name in _source_files(root, os.path.relpath(root, REPO).replace(os.sep, "/"))
                  if os.path.basename(path) not in left_out]
    return found


def _tree(folder, arcname):
    """``(path, name in the zip)`` of every regular file under ``folder``, hidden files and caches left out."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            path = os.path.join(root, name)
            if not name.startswith(".") and os.path.isfile(path) and not os.path.islink(path):
                found.append((path, f"{arcname}/{os.path.relpath(path, folder)}"))
    return found


def _entry(name, executable=False):
    info = zipfile.ZipInfo(name, FIXED_TIME)
    info.external_attr = (0o100755 if executable else 0o100644) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def course_config(assignment, settings, hidden_visibility):
    """What ``run_autograder`` needs to know of the course: the limits and visibility, as JSON-ready data."""
    return {"assignment": assignment, "hidden_visibility": hidden_visibility,
            "limits": dataclasses.asdict(settings.limits), "cell_seconds": settings.cell_seconds,
            "call_seconds": settings.call_seconds,
            "cell_seconds_by_cell": [list(pair) for pair in settings.cell_seconds_by_cell],
            "budget_text": settings.budget_text}


def build(assignment, out_dir, *, course_dir, hidden_visibility=DEFAULT_HIDDEN_VISIBILITY, settings=None):
    """Write ``out_dir/autograder.zip`` for ``assignment``; return its path.

    ``settings`` are the grading settings to ship (default: the course's
    limits, calibrated from the instructor's solution as ``grade`` does).
    """
    from autograder.running import sandbox
    from autograder.running.calibrate import calibrated_settings
    from autograder.commands.grade import NotGradable, gradable_release
    from autograder.course.limits import load_limits
    from perceptron_course.limits import LimitsError
    from autograder.outputs.atomic_files import write_bytes_atomic
    from autograder.results import Settings

    if hidden_visibility not in VISIBILITIES:
        raise GradescopeError(f"--hidden-visibility must be one of {', '.join(VISIBILITIES)}; "
                              f"got {hidden_visibility!r}")
    try:
        release_dir = os.path.dirname(gradable_release(assignment, course_dir))
    except NotGradable as exc:
        raise GradescopeError(str(exc)) from None
    if settings is None:
        try:
            limits = load_limits(course_dir)
        except LimitsError as exc:
            raise GradescopeError(str(exc)) from None
        settings = calibrated_settings(Settings(limits=limits, use_sandbox=sandbox.sandbox_status().available),
                                       course_dir, assignment)

    files = [(os.path.join(TEMPLATES, name), name) for name in SCRIPTS]
    files += _grader_files(assignment)
    files += _source_files(os.path.join(REPO, "perceptron_lib"), "perceptron_lib")
    # The runner, the probe and the notebook readers that grading shares with the student's check.
    files += _source_files(os.path.join(REPO, "perceptron_course"), "perceptron_course")
    files += _tree(release_dir, f"notebooks/release/{assignment}")
    texts = {"gradescope/requirements.txt": _pinned_requirements(),
             CONFIG: json.dumps(course_config(assignment, settings, hidden_visibility), indent=1) + "\n"}
    with open(os.path.join(REPO, "constraints.txt"), encoding="utf-8") as f:
        texts["gradescope/constraints.txt"] = f.read()

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for path, name in files:
            with open(path, "rb") as f:
                zf.writestr(_entry(name, executable=name in SCRIPTS), f.read())
        for name, text in texts.items():
            zf.writestr(_entry(name), text.encode("utf-8"))
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, ZIP_NAME)
    write_bytes_atomic(path, buffer.getvalue())
    return path


def main(argv=None):
    """``python -m autograder gradescope ASSIGNMENT --out DIR``."""
    from autograder.course import COURSE_DIR

    parser = argparse.ArgumentParser(
        prog="python -m autograder gradescope",
        description="Write DIR/autograder.zip: a Gradescope autograder that grades ASSIGNMENT with this grader "
                    "(upload it under the assignment's Configure Autograder page).")
    parser.add_argument("assignment", metavar="ASSIGNMENT")
    parser.add_argument("--out", required=True, metavar="DIR", help="where to write autograder.zip")
    parser.add_argument("--hidden-visibility", default=DEFAULT_HIDDEN_VISIBILITY, choices=VISIBILITIES,
                        help="when students see each test's points and the hidden checks' messages "
                             "(Gradescope's visibility; default: %(default)s)")
    parser.add_argument("--course-dir", default=COURSE_DIR, metavar="DIR",
                        help="the nbgrader course directory with release/ (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        path = build(args.assignment, args.out, course_dir=os.path.abspath(args.course_dir),
                     hidden_visibility=args.hidden_visibility)
    except GradescopeError as exc:
        print(f"autograder gradescope: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}: upload it as the autograder of a Gradescope programming assignment; students submit "
          f"{args.assignment}.ipynb")
    return 0


# -- grading one submission (inside Gradescope's container) ------------------------------------

def find_notebook(folder, assignment):
    """``(path, None)`` for the notebook to grade in ``folder``, or ``(None, why there is none)``.

    The notebook named as released wins (the shallowest, if several); a
    submission holding exactly one other notebook is graded from that one.
    Symbolic links are returned as found: reading them is refused at the
    trust boundary.
    """
    wanted = f"{assignment}.ipynb"
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__MACOSX")
        found += [os.path.join(root, n) for n in sorted(files) if n.endswith(".ipynb") and not n.startswith(".")]
    named = sorted((p for p in found if os.path.basename(p) == wanted), key=lambda p: (p.count(os.sep), p))
    if named:
        return named[0], None
    if len(found) == 1:
        return found[0], None
    if not found:
        return None, f"the submission holds no notebook; upload {wanted}"
    names = ", ".join(os.path.relpath(p, folder) for p in found[:5])
    return None, f"the submission holds {len(found)} notebooks ({names}) and none is named {wanted}; upload {wanted}"


@dataclass(frozen=True)
class WrittenAnswer:
    """A student's answer to one written question, as the TA who marks it on Gradescope reads it.

    ``question`` is the Markdown that asks it in the release; ``text`` the
    answer cell's source as submitted; ``blank`` whether nothing was written
    (or the release's text was left as it was), as grading decides it;
    ``problem`` why the notebook could not be read, when it could not.
    """

    grade_id: str
    max_points: float
    question: str = ""
    text: str = ""
    blank: bool = True
    problem: str = ""


def _asked(release_nb):
    """``{grade_id: the Markdown that asks it}``: the release's plain Markdown cells right before each graded
    answer cell, as the marking booklet and page show the question (:mod:`autograder.marking.answers`)."""
    from perceptron_course.cells import grade_id, nbgrader_metadata

    asked, before = {}, []
    for cell in release_nb.cells:
        gid = grade_id(cell)
        if gid:
            asked[gid] = "\n\n".join(before)
        if cell.cell_type == "markdown" and not nbgrader_metadata(cell):
            before.append(cell.source.strip())
        else:
            before = []
    return asked


def written_answers(notebook_path, release_dir, assignment, max_bytes, problem=None):
    """Every written question of the release with the submission's answer: a list of :class:`WrittenAnswer`.

    The notebook is read as grading reads it (through the trust boundary,
    each answer matched to its release cell by
    :func:`perceptron_course.cells.prepare_notebook`); nothing in it runs.
    ``problem`` (or a notebook that cannot be read) leaves every answer
    unread, saying why.
    """
    import nbformat

    from autograder.boundary.notebook import parse_notebook, read_untrusted_file
    from autograder.judging.integrity import is_blank_answer
    from perceptron_course.cells import grade_cells, grade_id, prepare_notebook

    release_nb = nbformat.read(os.path.join(release_dir, f"{assignment}.ipynb"), as_version=4)
    _, manual = grade_cells(release_nb)
    asked = _asked(release_nb)
    answers = {}
    if problem is None and notebook_path is None:
        problem = "no notebook was submitted"
    if problem is None:
        data, problem = read_untrusted_file(notebook_path, max_bytes)
        student_nb, problem = (None, problem) if problem else parse_notebook(data)
        if problem is None:
            answers = prepare_notebook(student_nb, release_nb)[3]
    released = {grade_id(cell): cell.source for cell in release_nb.cells if grade_id(cell)}
    found = []
    for gid, points in manual:
        if problem:
            found.append(WrittenAnswer(gid, points, asked.get(gid, ""), problem=problem))
            continue
        text = answers.get(gid, released.get(gid, ""))
        found.append(WrittenAnswer(gid, points, asked.get(gid, ""), text,
                                   blank=is_blank_answer(text, released.get(gid))))
    return found


def _written_test(answer):
    """The ``results.json`` test that shows one written answer to the course staff, and to no student."""
    if answer.problem:
        shown = f"(not read: {answer.problem})"
    elif answer.blank:
        shown = ("(blank: the student wrote nothing here, or left the release's text as it was; "
                 "give it 0 points unless you see otherwise)")
    else:
        shown = answer.text
    output = (f"For the course staff only: students never see this test, and it carries no points. Give this "
              f"answer's {answer.max_points:g} points in the manually graded question {answer.grade_id}.\n\n"
              f"The question:\n\n{answer.question or '(the release asks it in no Markdown cell of its own)'}"
              f"\n\n{ANSWER_HEADING}\n\n{shown}")
    return {"name": f"{answer.grade_id}: written answer, {answer.max_points:g} points, marked by hand",
            "score": 0.0, "max_score": 0.0, "output": output, "visibility": "hidden", "tags": [WRITTEN_TAG],
            "extra_data": {"grade_id": answer.grade_id, "max_points": answer.max_points,
                           "blank": answer.blank and not answer.problem, "read": not answer.problem}}


def _summary(result, *, isolation, hidden_visibility):
    """The top-level ``output``: status, flags and isolation always; the scores only as visible as the tests."""
    from autograder.outputs.report import feedback_text
    from autograder.results import FLAG_TEXT, GRADED, STATUS_TEXT

    lines = [f"Status: {result.status}. {STATUS_TEXT[result.status]}"
             + (f" Why: {result.reason}." if result.reason and result.status != GRADED else "")]
    if result.flags:
        lines.append("Flagged for the instructor (these do not change the score by themselves):")
        lines += [f"- {flag.code}: {FLAG_TEXT.get(flag.code, '')}" + (f" ({flag.detail})" if flag.detail else "")
                  for flag in result.flags]
    lines += result.notes
    lines.append(f"Isolation: your notebook ran {isolation}.")
    if hidden_visibility == "visible":
        lines.append("")
        lines.append(feedback_text(result, full_page="the tests listed here, each with its points and message"))
    else:
        lines.append(f"Each test's points and message are shown with the test {WHEN_SHOWN[hidden_visibility]}.")
        if result.manual_cells:
            lines.append(f"The written answers ({sum(p for _, p, _ in result.manual_cells):g} points) are graded by "
                         "hand; those points come later.")
    return "\n".join(lines)


def results_json(result, *, isolation, hidden_visibility=DEFAULT_HIDDEN_VISIBILITY, written=()):
    """Gradescope's ``results.json`` for one judged :class:`~autograder.results.Result`, as a dict.

    The format is the specification's (cited in the module docstring): the
    total ``score``, one entry in ``tests`` per graded test cell, whose
    ``output`` is the message the feedback page shows (a hidden case by its
    description, never its inputs) and whose ``visibility`` is
    ``hidden_visibility``; the status, flags and isolation in the top-level
    ``output``, always visible.  Standard output, which holds the grader's
    log, is for the instructor only.

    Then one test per :class:`WrittenAnswer` of ``written``, tagged
    :data:`WRITTEN_TAG`: the question and the student's answer as text for
    the TAs who mark it, with visibility ``hidden`` (never shown to
    students, whatever ``hidden_visibility`` is) and no points, so the
    autograded ``score`` stays what it is.
    """
    tests = [{"name": cell.grade_id, "score": cell.points, "max_score": cell.max_points,
              "output": cell.message, "visibility": hidden_visibility} for cell in result.cells]
    tests += [_written_test(answer) for answer in written]
    return {
        "score": result.score,
        "execution_time": round(result.run_seconds),
        "output": _summary(result, isolation=isolation, hidden_visibility=hidden_visibility),
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": {"status": result.status, "reason": result.reason, "flags": result.flag_codes,
                       "isolation": isolation},
    }


def _settings(config, *, use_sandbox, unprivileged_user):
    from perceptron_course.limits import Limits
    from autograder.results import Settings

    return Settings(limits=Limits(**config["limits"]), use_sandbox=use_sandbox, unprivileged_user=unprivileged_user,
                    cell_seconds=float(config["cell_seconds"]), call_seconds=float(config["call_seconds"]),
                    cell_seconds_by_cell=tuple((str(k), float(s)) for k, s in config["cell_seconds_by_cell"]),
                    budget_text=config["budget_text"])


def choose_isolation(environ=os.environ):
    """``(mode, how the notebook runs)``: ``"bubblewrap"``, ``"user"`` or ``None`` (nothing keeps it apart).

    ``GRADESCOPE_ISOLATION=user`` skips bubblewrap.
    """
    from autograder.running import sandbox

    forced = environ.get(ISOLATION_ENV, "")
    if forced not in ("", "user", "bubblewrap"):
        raise GradescopeError(f"{ISOLATION_ENV} must be 'user' or 'bubblewrap'; got {forced!r}")
    reasons = []
    if forced != "user":
        status = sandbox.sandbox_status()
        if status.available:
            return "bubblewrap", f"in a bubblewrap sandbox ({status.description})"
        reasons.append(status.description)
        if forced == "bubblewrap":
            return None, f"no bubblewrap sandbox ({status.description}), and {ISOLATION_ENV}=bubblewrap"
    else:
        reasons.append(f"{ISOLATION_ENV}=user")
    status = sandbox.user_isolation_status()
    if status.available:
        return "user", f"as {status.description} (bubblewrap not used: {reasons[0]})"
    return None, f"no isolation: {'; '.join(reasons + [status.description])}"


def _manual_cells(release_dir, assignment):
    """``[(grade_id, points)]`` of the release's written questions; ``[]`` when the release cannot be read."""
    import nbformat

    from perceptron_course.cells import grade_cells

    try:
        return grade_cells(nbformat.read(os.path.join(release_dir, f"{assignment}.ipynb"), as_version=4))[1]
    except (OSError, ValueError):
        return []


def grade_in_container(root):
    """Grade the submission under ``root`` (Gradescope's ``/autograder``) and write ``results/results.json``.

    Returns the results as a dict.  Before any student code runs, ``source/``
    and ``results/`` are closed to every user but root, so the unprivileged
    fallback can neither read the hidden checks nor write the results.
    """
    from autograder.running.batch import _internal_error
    from autograder.judging.judge import judge
    from autograder.outputs.atomic_files import write_text_atomic
    from autograder.results import Job
    from perceptron_course.runner import skip_slow_optional_imports
    from autograder.running.worker import run_submission

    skip_slow_optional_imports()
    source, submission, results = (os.path.join(root, name) for name in ("source", "submission", "results"))
    try:
        with open(os.path.join(source, CONFIG), encoding="utf-8") as f:
            config = json.load(f)
    except (OSError, ValueError) as exc:
        raise GradescopeError(f"{os.path.join(source, CONFIG)} cannot be read ({exc}); "
                              "rebuild the zip with 'python -m autograder gradescope'") from None
    os.makedirs(results, exist_ok=True)
    # The Python environment under root stays open; the course, the results, the submission and what
    # Gradescope says about it (submission_metadata.json) do not.
    for path, mode in ((source, 0o700), (results, 0o700), (submission, 0o700),
                       (os.path.join(root, "submission_metadata.json"), 0o600)):
        if os.path.exists(path):
            os.chmod(path, mode)
    assignment = config["assignment"]
    mode, isolation = choose_isolation()
    settings = _settings(config, use_sandbox=mode == "bubblewrap", unprivileged_user=mode == "user")
    path, problem = find_notebook(submission, assignment) if os.path.isdir(submission) else \
        (None, "Gradescope passed no submission folder")
    if mode is None:
        # Never run a student's code with the grader's own rights: every test is "not run", and the instructor sees why.
        problem = f"the grader could not isolate your notebook here ({isolation}); tell your instructor"
    release_dir = os.path.join(source, "notebooks", "release", assignment)
    job = Job(SUBMISSION_ID, assignment, path, release_dir, settings, problem=problem)
    # Read before the notebook runs, so that nothing it does can change what the TAs read.
    try:
        written = written_answers(path, release_dir, assignment, settings.limits.notebook_bytes,
                                  problem=None if path else problem)
    except Exception as exc:  # the autograded result still counts: the TAs are told the answers were not read
        why = f"the grader failed reading the notebook ({type(exc).__name__}: {exc})"
        written = [WrittenAnswer(gid, pts, problem=why) for gid, pts in _manual_cells(release_dir, assignment)]
    try:
        result = judge(run_submission(job))
    except Exception as exc:  # results.json is written whatever happened, so the student is told
        result = _internal_error(job, exc)
    data = results_json(result, isolation=isolation, hidden_visibility=config["hidden_visibility"],
                        written=written)
    write_text_atomic(os.path.join(results, "results.json"), json.dumps(data, indent=1) + "\n")
    print(f"{assignment}: {result.status} {result.score:g}/{result.max_score:g}"
          + (f" [flags: {', '.join(result.flag_codes)}]" if result.flags else "") + f"; isolation: {isolation}")
    return data


def container_main(argv=None):
    """``python -m autograder.commands.gradescope ROOT``: what ``run_autograder`` runs; ``--check-setup`` for ``setup.sh``."""
    parser = argparse.ArgumentParser(prog="python -m autograder.commands.gradescope")
    parser.add_argument("root", metavar="ROOT", help="Gradescope's /autograder, or a folder laid out like it")
    parser.add_argument("--check-setup", action="store_true",
                        help="only say whether the grader imports and which isolation works here")
    args = parser.parse_args(argv)
    try:
        if args.check_setup:
            mode, isolation = choose_isolation()
            print(f"grader ready; notebooks will run {isolation}" if mode else f"WARNING: {isolation}")
            return 0
        grade_in_container(os.path.abspath(args.root))
    except GradescopeError as exc:
        print(f"run_autograder: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(container_main())
