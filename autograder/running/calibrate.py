"""Time limits calibrated from the instructor's own solution, measured once per batch.

A function that never returns should cost seconds, not the minute a cell
may take.  So before a batch, the instructor's solution (the release
notebook with the source notebook's answers filled in) is graded once,
exactly as a submission is, in its own sandbox, and the time each cell and
each hidden-test call took is read back.  Then

* every code cell of the release except the answer cells (test cells,
  read-only cells, and the cells where students try their functions) gets
  its own limit: ``calibration_factor`` times what the solution needed
  there, at least ``min_cell_seconds`` and at most ``cell_seconds``.  A
  cell is recognised by its nbgrader id, or by its notebook cell id when it
  has none (:func:`perceptron_course.cells.calibration_key`);
* each call of a student's function by a hidden test gets
  ``calibration_factor`` times the solution's slowest call, at least
  ``min_call_seconds`` and at most ``call_seconds``;

(all from the course's :class:`~perceptron_course.limits.Limits`).  Cells the
student added and answer cells keep the ``cell_seconds`` ceiling: their
cost is not known in advance.  When the solution cannot be run or does not
pass every hidden test, the ceilings are used, and the report says why.

A measurement is saved in the course directory, under
``.autograder/calibration/<assignment>.json``, and used again by later
batches (``python -m autograder release`` measures once at release) as long
as nothing it depends on has changed: the release and source notebooks, the
hidden checks, the grader's runner, the limits and ceilings, whether there
is a sandbox, and the machine.  Any change, or ``--recalibrate``, measures
again.
"""

import dataclasses
import datetime
import hashlib
import json
import os
import platform
import re
import sys
import tempfile

from perceptron_course.cells import calibration_key, grade_id, is_solution
from perceptron_course.execute import RUNNER_DIR
from perceptron_course.protocol import RUNNER_FILES

from autograder.course import assignments

__all__ = ["calibrated_settings", "solution_notebook", "describe", "saved_path"]

SAVED_FOLDER = os.path.join(".autograder", "calibration")

SOLUTION_MARKERS = re.compile(r"^\s*#+\s*(BEGIN|END) SOLUTION\s*$")


def solution_notebook(release_nb, source_nb):
    """The release notebook with every answer cell holding the source notebook's solution, as nbformat JSON text."""
    import copy

    import nbformat

    solutions = {grade_id(c): "\n".join(line for line in c.source.splitlines() if not SOLUTION_MARKERS.match(line))
                 for c in source_nb.cells if is_solution(c)}
    nb = copy.deepcopy(release_nb)
    for cell in nb.cells:
        if is_solution(cell) and grade_id(cell) in solutions:
            cell.source = solutions[grade_id(cell)]
    return nbformat.writes(nb)


def _clamp(value, low, high):
    return min(max(value, low), high)


def saved_path(course_dir, assignment):
    """Where the measurement for ``assignment`` is saved in the course directory."""
    return os.path.join(course_dir, SAVED_FOLDER, f"{assignment}.json")


def _fingerprint(settings, course_dir, assignment):
    """A digest of everything a measurement depends on (see the module docstring)."""
    digest = hashlib.sha256()
    for path in (os.path.join(course_dir, "release", assignment, f"{assignment}.ipynb"),
                 os.path.join(course_dir, "source", assignment, f"{assignment}.ipynb"),
                 assignments.checks_file(assignment),
                 *(os.path.join(RUNNER_DIR, name) for name in RUNNER_FILES)):
        try:
            with open(path, "rb") as f:
                digest.update(hashlib.sha256(f.read()).digest())
        except OSError:
            digest.update(b"absent")
    digest.update(json.dumps([dataclasses.asdict(settings.limits), settings.cell_seconds, settings.call_seconds,
                              settings.use_sandbox, platform.node(), platform.machine(), sys.version],
                             sort_keys=True).encode())
    return digest.hexdigest()


def _explained(settings, slowest_cell, slowest_call, when):
    return (f"Calibrated from the instructor's solution, graded once in a sandbox {when}: "
            f"its slowest cell took {slowest_cell:.3f} s and its slowest hidden-test call {slowest_call:.4f} s; "
            f"the limits are {settings.limits.calibration_factor:g} times those, within the floors and ceilings "
            "below.")


def _load_saved(settings, course_dir, assignment):
    """The saved measurement as calibrated settings, or ``None`` when there is none that still holds."""
    path = saved_path(course_dir, assignment)
    try:
        with open(path, encoding="utf-8") as f:
            saved = json.load(f)
        if saved["fingerprint"] != _fingerprint(settings, course_dir, assignment):
            return None
        by_cell = tuple((str(key), float(seconds)) for key, seconds in saved["cell_seconds_by_cell"])
        call_seconds = float(saved["call_seconds"])
        when = (f"on {saved['measured']} (saved in {os.path.join(SAVED_FOLDER, assignment + '.json')}, and measured "
                "again when the assignment, its checks, the limits or the machine change)")
        text = _explained(settings, float(saved["slowest_cell"]), float(saved["slowest_call"]), when)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return dataclasses.replace(settings, call_seconds=call_seconds, cell_seconds_by_cell=by_cell, budget_text=text)


def _save(settings, course_dir, assignment, calibrated, slowest_cell, slowest_call):
    from autograder.outputs.atomic_files import write_text_atomic

    record = {"fingerprint": _fingerprint(settings, course_dir, assignment),
              "measured": datetime.datetime.now().astimezone().strftime("%Y-%m-%d at %H:%M %Z").strip(),
              "call_seconds": calibrated.call_seconds, "cell_seconds_by_cell": list(calibrated.cell_seconds_by_cell),
              "slowest_cell": slowest_cell, "slowest_call": slowest_call}
    try:
        os.makedirs(os.path.dirname(saved_path(course_dir, assignment)), exist_ok=True)
        write_text_atomic(saved_path(course_dir, assignment), json.dumps(record, indent=1) + "\n")
    except OSError:
        pass  # a course directory we cannot write to only means measuring again next time


def calibrated_settings(settings, course_dir, assignment, *, reuse=True):
    """``settings`` with time limits calibrated from the instructor's solution (see the module docstring).

    With ``reuse``, a saved measurement that still holds is used instead of
    measuring again; a new measurement is saved.
    """
    if reuse:
        saved = _load_saved(settings, course_dir, assignment)
        if saved is not None:
            return saved
    return _measure(settings, course_dir, assignment)


def _measure(settings, course_dir, assignment):
    import nbformat

    from autograder.boundary.notebook import parse_notebook
    from autograder.judging.integrity import prepare_notebook
    from autograder.results import GRADED, Job
    from autograder.running.worker import run_submission

    limits = settings.limits
    release_dir = os.path.join(course_dir, "release", assignment)
    source_path = os.path.join(course_dir, "source", assignment, f"{assignment}.ipynb")
    if not os.path.isfile(source_path):
        return dataclasses.replace(settings, budget_text=f"Not calibrated: there is no source notebook {source_path}.")
    release_nb = nbformat.read(os.path.join(release_dir, f"{assignment}.ipynb"), as_version=4)
    text = solution_notebook(release_nb, nbformat.read(source_path, as_version=4))
    with tempfile.TemporaryDirectory(prefix="autograde-calibrate-") as tmp:
        path = os.path.join(tmp, f"{assignment}.ipynb")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        result = run_submission(Job("instructor-solution", assignment, path, release_dir, settings))
    records = result.probe_results.records if result.probe_results is not None else ()
    if result.status != GRADED or not records or any(r.status != "returned" for _, r in records):
        why = result.reason or "it did not return a value from every hidden test"
        return dataclasses.replace(settings, budget_text=f"Not calibrated: the instructor's solution did not run "
                                                         f"cleanly ({why}).")
    factor = limits.calibration_factor
    slowest_call = max(r.seconds for _, r in records)
    call_seconds = _clamp(factor * slowest_call, limits.min_call_seconds, settings.call_seconds)

    prepared, _, _, _ = prepare_notebook(parse_notebook(text.encode("utf-8"))[0], release_nb)
    seconds = dict(result.runner_report.cell_seconds)
    by_cell = []
    for index, cell in enumerate(prepared.cells):
        key = calibration_key(cell)
        if key is None or index not in seconds:
            continue
        by_cell.append((key, round(_clamp(factor * seconds[index], limits.min_cell_seconds, settings.cell_seconds), 3)))
    slowest_cell = max((seconds[i] for i in seconds), default=0.0)
    calibrated = dataclasses.replace(settings, call_seconds=round(call_seconds, 3), cell_seconds_by_cell=tuple(by_cell),
                                     budget_text=_explained(settings, slowest_cell, slowest_call,
                                                            "at the start of this batch"))
    _save(settings, course_dir, assignment, calibrated, slowest_cell, slowest_call)
    return calibrated


def describe(settings):
    """One line for the terminal: the time limits the batch applies."""
    cells = [s for _, s in settings.cell_seconds_by_cell]
    return (f"time limits: {settings.call_seconds:g} s per hidden-test call; "
            + (f"{min(cells):g}{'' if min(cells) == max(cells) else f'-{max(cells):g}'} s per cell of the release, "
               if cells else "")
            + f"{settings.cell_seconds:g} s per answer or added cell; {settings.limits.notebook_seconds:g} s per notebook"
            + ("" if settings.budget_text.startswith("Calibrated") else f" ({settings.budget_text})"))

