"""What a grading run leaves for ``export``: everything its files are made of except the marks, as JSON.

A ``grade`` run writes its files once; the written answers are marked
afterwards, in the gradebook.  ``python -m autograder export OUT`` then
writes the same files again with the marks, so it needs everything the
run knew that the gradebook does not: each result (statuses, the tests'
verdicts and messages, flags, notes), each student's name, email and LMS
route, what in the download was not graded, the similarity findings, the
limits and the sandbox.  :func:`save` writes them to ``OUT/grading_run.json``
(:data:`RUN_FILE`) with the run's other files; :func:`load` reads them back
into the same records, so that ``export`` writes with the very code
``grade`` wrote with.  The file is the instructor's, like the report: it is
never uploaded.

This module only turns a run into JSON and back; writing the run's other
files is :mod:`autograder.outputs.record`'s, which imports this module and is
never imported by it.
"""

import dataclasses
import json
import os
from dataclasses import dataclass, field

from autograder.outputs.atomic_files import write_text_atomic
from autograder.results import MISSING, CellResult, Flag, Result, Settings

__all__ = ["GradedRun", "Person", "RunRecordError", "RUN_FILE", "save", "load", "person_of", "disagreements"]

RUN_FILE = "grading_run.json"
FORMAT = 1
# What a Result carries for the host alone while it is judged, or for the similarity pass: not kept.
_TRANSIENT = {"autograded_notebook", "authored_code", "autograded_cells", "probe_results", "runner_report", "written"}


class RunRecordError(Exception):
    """``OUT`` holds no run record ``export`` can read: the message says why and what to do."""


@dataclass(frozen=True)
class Person:
    """What the download or the roster said about a student: the fields the grade files and the LMS files use.

    ``lms`` is the layout the entry came in (``None`` for a member of a
    group submission, whom no entry names); ``route`` its
    :class:`~autograder.intake.lms.FeedbackRoute`, or ``None``.
    """

    student_id: str
    name: str = ""
    email: str = ""
    canvas_user_id: str = ""
    lms: str = None
    route: object = None


@dataclass
class GradedRun:
    """One grading run of ``assignment``: its results (by student id) and everything its report shows."""

    assignment: str
    course_dir: str
    results: list
    people: dict  # student id -> Person (or a Submission / GroupMember, which have the same fields)
    skipped: list = field(default_factory=list)  # autograder.intake.submissions.Skipped
    notes: list = field(default_factory=list)
    sandbox_text: str = ""
    settings: Settings = Settings()
    started: float = None
    seconds: float = 0.0
    similar: list = None  # autograder.judging.similarity.SimilarPair, None when not sought
    copies: list = None  # autograder.judging.similarity.ReferenceCopy, None when not sought


def person_of(student_id, record):
    """The :class:`Person` of a submission, group member or missing student (any record with those fields)."""
    if record is None:
        return Person(student_id)
    route = getattr(record, "route", None)
    return Person(student_id, getattr(record, "name", "") or "", getattr(record, "email", "") or "",
                  getattr(record, "canvas_user_id", "") or "", getattr(record, "lms", None), route)


def _result_data(result):
    data = {f.name: getattr(result, f.name) for f in dataclasses.fields(result) if f.name not in _TRANSIENT}
    data["cells"] = [dataclasses.asdict(cell) for cell in result.cells]
    data["manual_cells"] = [list(cell) for cell in result.manual_cells]
    data["flags"] = [[flag.code, flag.detail] for flag in result.flags]
    data["notes"] = list(result.notes)
    return data


def _result(data):
    data = dict(data)
    data["cells"] = [CellResult(**cell) for cell in data["cells"]]
    data["manual_cells"] = [tuple(cell) for cell in data["manual_cells"]]
    data["flags"] = [Flag(code, detail) for code, detail in data["flags"]]
    return Result(**data)


def _person_data(person):
    route = person.route
    return {"student_id": person.student_id, "name": person.name, "email": person.email,
            "canvas_user_id": person.canvas_user_id, "lms": person.lms,
            "route": None if route is None else dataclasses.asdict(route)}


def _person(data):
    from autograder.intake.lms import FeedbackRoute

    route = data.get("route")
    return Person(data["student_id"], data.get("name", ""), data.get("email", ""), data.get("canvas_user_id", ""),
                  data.get("lms"), None if route is None else FeedbackRoute(**route))


def _settings_data(settings):
    return {"limits": dataclasses.asdict(settings.limits), "use_sandbox": settings.use_sandbox,
            "unprivileged_user": settings.unprivileged_user, "cell_seconds": settings.cell_seconds,
            "call_seconds": settings.call_seconds,
            "cell_seconds_by_cell": [list(pair) for pair in settings.cell_seconds_by_cell],
            "budget_text": settings.budget_text}


def _settings(data):
    from perceptron_course.limits import Limits

    return Settings(limits=Limits(**data["limits"]), use_sandbox=data["use_sandbox"],
                    unprivileged_user=data["unprivileged_user"], cell_seconds=data["cell_seconds"],
                    call_seconds=data["call_seconds"],
                    cell_seconds_by_cell=tuple(tuple(pair) for pair in data["cell_seconds_by_cell"]),
                    budget_text=data["budget_text"])


def _findings(kind, items):
    from autograder.judging.similarity import ReferenceCopy, SharedLine, SimilarPair

    if items is None:
        return None
    record = {"similar": SimilarPair, "copies": ReferenceCopy}[kind]
    return [record(**{**item, "shared": tuple(SharedLine(**line) for line in item["shared"])}) for item in items]


def run_data(run):
    """The JSON-ready dict of ``run``."""
    return {
        "format": FORMAT,
        "assignment": run.assignment,
        "course_dir": os.path.abspath(run.course_dir),
        "results": [_result_data(r) for r in run.results],
        "people": [_person_data(person_of(sid, p)) for sid, p in sorted(run.people.items())],
        "skipped": [{"name": s.name, "reason": s.reason, "kind": getattr(s, "kind", "skipped")} for s in run.skipped],
        "notes": list(run.notes),
        "sandbox_text": run.sandbox_text,
        "settings": _settings_data(run.settings),
        "started": run.started,
        "seconds": run.seconds,
        "similar": None if run.similar is None else [dataclasses.asdict(p) for p in run.similar],
        "copies": None if run.copies is None else [dataclasses.asdict(c) for c in run.copies],
    }


def save(run, out_dir):
    """Write ``out_dir/grading_run.json`` atomically."""
    write_text_atomic(os.path.join(out_dir, RUN_FILE), json.dumps(run_data(run), indent=1, sort_keys=True))


def load(out_dir):
    """The :class:`GradedRun` a ``grade`` run saved in ``out_dir``; :class:`RunRecordError` says why not."""
    from autograder.intake.submissions import Skipped

    path = os.path.join(out_dir, RUN_FILE)
    if not os.path.isdir(out_dir):
        raise RunRecordError(f"{out_dir} is not a folder; give the folder a 'python -m autograder grade ... "
                             "--out DIR' run wrote")
    if not os.path.isfile(path):
        raise RunRecordError(f"{out_dir} holds no {RUN_FILE}, so it was not written by 'python -m autograder "
                             "grade' (or by a version of it before export existed); grade the download again "
                             "with --out pointing there")
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if data.get("format") != FORMAT:
            raise RunRecordError(f"{path} has format {data.get('format')!r}, this grader reads format {FORMAT}; "
                                 "grade the download again")
        people = {p["student_id"]: _person(p) for p in data["people"]}
        return GradedRun(
            assignment=data["assignment"], course_dir=data["course_dir"],
            results=[_result(r) for r in data["results"]], people=people,
            skipped=[Skipped(s["name"], s["reason"], s["kind"]) for s in data["skipped"]], notes=data["notes"],
            sandbox_text=data["sandbox_text"], settings=_settings(data["settings"]), started=data["started"],
            seconds=data["seconds"], similar=_findings("similar", data["similar"]),
            copies=_findings("copies", data["copies"]))
    except RunRecordError:
        raise
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise RunRecordError(f"cannot read {path} ({type(exc).__name__}: {exc}); grade the download again") from None


def disagreements(run, marks, autograded):
    """Students whose submission in the gradebook is no longer the one ``run`` graded, as sentences.

    ``marks`` are :func:`~autograder.outputs.gradebook.written_marks` of the
    run's assignment, ``autograded`` its
    :func:`~autograder.outputs.gradebook.autograded_scores`.  A later
    ``grade`` of another download (into another folder) replaces a
    student's record in the gradebook; exporting this run would then pair
    its points with the marks of other answers.
    """
    import math

    found = []
    for result in run.results:
        if result.status == MISSING:
            continue
        if result.student_id not in autograded:
            found.append(f"{result.student_id}: the gradebook holds no submission of {run.assignment} from them")
            continue
        recorded = {mark.grade_id: mark.checksum for mark in marks.get(result.student_id, ())}
        changed = [gid for gid, _, checksum in result.manual_cells if recorded.get(gid, checksum) != checksum]
        if changed or not math.isclose(autograded[result.student_id], result.score, abs_tol=1e-9):
            what = f"its answer to {', '.join(changed)} differs" if changed else "its autograded points differ"
            found.append(f"{result.student_id}: the gradebook holds another submission than the one graded here "
                         f"({what})")
    return found
