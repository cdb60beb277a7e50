"""Finding the submissions in a folder or a ``.zip`` as an LMS hands them out, without trusting either.

A batch of submissions is a folder (or a ``.zip`` of one) as a learning
management system hands it out: Canvas, Moodle, Blackboard, a Gradescope
export, or plain ``<student_id>.ipynb`` files and ``<student_id>/`` folders
(:mod:`autograder.intake.lms` recognises the layout, :mod:`autograder.intake.roster` gives
each student one id and picks the attempt to grade).  Every student becomes
one :class:`Submission`: either a path to a notebook to grade, or the reason
it cannot be graded (a symbolic link, not a regular file, empty, too large,
no notebook in the folder ...).  Everything else in the download (receipts,
metadata, earlier attempts) becomes a :class:`Skipped` with the reason.

A ``.zip`` is extracted at the trust boundary
(:func:`autograder.boundary.archive.extract_zip`): no absolute paths or ``..``, no
links (a link member becomes an ungradable entry), at most so many members
and bytes (the course's :class:`~perceptron_course.limits.Limits`), each member
read with a size cap whatever its header says.
"""

import os
import stat
import zipfile
from dataclasses import dataclass, field

from autograder.boundary.archive import ArchiveError, extract_zip
from autograder.intake.lms import IGNORED, LMS_NAMES, is_safe_student_id, is_submission_folder, scan
from autograder.intake.roster import resolve

__all__ = ["Submission", "Skipped", "Batch", "SubmissionsError", "collect", "collect_batch", "is_safe_student_id"]


class SubmissionsError(Exception):
    """The batch itself cannot be read (missing folder, broken zip): the run cannot proceed."""


@dataclass(frozen=True)
class Submission:
    """One student's row: ``path`` of the notebook to grade, or ``problem`` saying why not.

    ``source`` is the entry's name in the download; ``flags`` are
    ``(code, detail)`` pairs found before grading (``late``, ``extra-files``,
    ``not-on-roster``); ``missing`` marks a roster student with no entry.
    """

    student_id: str
    path: str = None
    problem: str = None
    source: str = ""
    submitted_at: str = ""  # ISO 8601, when the LMS recorded it
    flags: tuple = ()
    missing: bool = False
    name: str = ""
    email: str = ""
    canvas_user_id: str = ""
    group: tuple = ()  # autograder.intake.roster.GroupMember: others who get this submission's grade under their own ids
    lms: str = ""  # the layout the entry came in: canvas, moodle, blackboard, gradescope or plain
    route: object = None  # autograder.intake.lms.FeedbackRoute: where its feedback goes back into the LMS, if anywhere


@dataclass(frozen=True)
class Skipped:
    """Something in the download that is not graded: ``kind`` is "read" (receipts, metadata),
    "superseded" (an earlier attempt) or "skipped" (not a submission)."""

    name: str
    reason: str
    kind: str = "skipped"


@dataclass
class Batch:
    """Everything found in a download: one :class:`Submission` per row, the rest, and notes for the report."""

    submissions: list
    skipped: list
    notes: list = field(default_factory=list)


def _check_file(path, max_bytes):
    """``None`` if ``path`` is a regular, non-empty notebook file of acceptable size, else the reason."""
    try:
        info = os.lstat(path)
    except OSError as exc:
        return f"the file cannot be read ({exc.strerror})"
    if stat.S_ISLNK(info.st_mode):
        return "it is a symbolic link, not a regular file"
    if not stat.S_ISREG(info.st_mode):
        return "it is not a regular file"
    if info.st_size == 0:
        return "the file is empty"
    if info.st_size > max_bytes:
        return f"the file is too large ({info.st_size:,} bytes; the limit is {max_bytes:,})"
    return None


def _submission(resolved, max_bytes):
    entry, student = resolved.entry, resolved.roster
    name = (student.name if student else "") or entry.name
    email = (student.email if student else "") or entry.email
    canvas_id = entry.identity.split(":", 1)[1] if entry.lms == "canvas" else ""
    if not canvas_id and student and student.lms_id.isdigit():
        canvas_id = student.lms_id
    notebook, problem = entry.notebook, entry.problem
    if notebook and not problem:
        problem = _check_file(notebook, max_bytes)
        notebook = None if problem else notebook
    return Submission(resolved.student_id, notebook, problem, source=entry.source,
                      submitted_at=entry.submitted_at.isoformat() if entry.submitted_at else "",
                      flags=resolved.flags, name=name, email=email, canvas_user_id=canvas_id, group=resolved.group,
                      lms=entry.lms, route=entry.route)


def _count(n, thing):
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


def _notes(entries, resolution, roster, deadline):
    """Sentences for the report: which layouts were found, how the roster matched, what the deadline found."""
    counts = {}
    for entry in entries:
        counts[entry.lms] = counts.get(entry.lms, 0) + 1
    notes = []
    if counts:
        notes.append("Entries found in the download: " + ", ".join(
            f"{n} {LMS_NAMES[lms]}" for lms, n in sorted(counts.items(), key=lambda kv: -kv[1])) + ".")
    if roster is not None:
        how = {}
        for r in resolution.graded:
            if r.matched_by:
                how[r.matched_by] = how.get(r.matched_by, 0) + 1
        unmatched = sum(1 for r in resolution.graded if not r.matched_by)
        notes.append(f"Roster: {_count(len(roster), 'student')}; {_count(sum(how.values()), 'submission')} matched"
                     + (f" ({', '.join(f'{n} by {k}' for k, n in sorted(how.items()))})" if how else "")
                     + f"; {_count(len(resolution.missing), 'student')} submitted nothing (status missing); "
                     f"{_count(unmatched, 'submission')} matched no roster student (flag not-on-roster).")
    if deadline is not None:
        late = sum(1 for r in resolution.graded if any(code == "late" for code, _ in r.flags))
        notes.append(f"Deadline {deadline.isoformat()}: {_count(late, 'submission')} flagged late (no penalty "
                     "applied)." + (f" {_count(resolution.untimed, 'submission')} had no recorded time (Canvas "
                                    "and Moodle downloads and plain folders carry none; Canvas's own LATE marker is "
                                    "used), so the deadline could not be checked for them."
                                    if resolution.untimed else ""))
    return notes


def _collect_folder(folder, assignment, max_bytes, problems, roster=None, deadline=None):
    entries, unused = scan(folder, assignment, extraction_problems=problems)
    resolution = resolve(entries, roster=roster, deadline=deadline)
    submissions = [_submission(r, max_bytes) for r in resolution.graded]
    for r in resolution.missing:
        s = r.roster
        submissions.append(Submission(r.student_id, None, "no submission from this student is in the download",
                                      missing=True, name=s.name, email=s.email,
                                      canvas_user_id=s.lms_id if s.lms_id.isdigit() else ""))
    skipped = [Skipped(u.name, u.reason, u.kind) for u in unused + resolution.superseded]
    return Batch(sorted(submissions, key=lambda s: s.student_id), sorted(skipped, key=lambda s: (s.kind, s.name)),
                 _notes(entries, resolution, roster, deadline))


def collect(source, assignment, work_dir, *, max_notebook_bytes=None, limits=None):
    """Every submission in ``source`` (a folder or a ``.zip``): ``(submissions, skipped)`` of :func:`collect_batch`."""
    batch = collect_batch(source, assignment, work_dir, max_notebook_bytes=max_notebook_bytes, limits=limits)
    return batch.submissions, batch.skipped


def collect_batch(source, assignment, work_dir, *, max_notebook_bytes=None, limits=None, roster=None, deadline=None):
    """Every submission in ``source`` (a folder or a ``.zip``), as a :class:`Batch` sorted by student id.

    A zip is extracted under ``work_dir``.  ``limits`` (default: the default
    :class:`~perceptron_course.limits.Limits`) caps the zip and, unless
    ``max_notebook_bytes`` is given, each notebook.  ``roster`` (a list of
    :class:`~autograder.intake.roster.RosterStudent`) and ``deadline`` (an aware
    datetime) are applied as :func:`autograder.intake.roster.resolve` says.
    Raises :class:`SubmissionsError` when ``source`` cannot be read at all.
    """
    from perceptron_course.limits import Limits

    limits = limits or Limits()
    max_notebook_bytes = max_notebook_bytes or limits.notebook_bytes
    if not os.path.exists(source):
        raise SubmissionsError(f"{source} does not exist; pass a folder of submissions or a .zip of one")
    if os.path.isfile(source):
        if not zipfile.is_zipfile(source):
            raise SubmissionsError(f"{source} is a file but not a zip file; pass a folder of submissions or a .zip of one")
        folder = os.path.join(work_dir, "extracted")
        os.makedirs(folder)
        try:
            problems = extract_zip(source, folder, max_member_bytes=max_notebook_bytes,
                                   max_members=limits.zip_members, max_total_bytes=limits.zip_bytes)
        except ArchiveError as exc:
            raise SubmissionsError(str(exc)) from None
        entries = [n for n in os.listdir(folder) if n not in IGNORED and not n.startswith(".")]
        # A zip of a folder of submissions: look inside that folder (but a lone Moodle participant's or
        # Gradescope submission's folder is itself the submission).
        if len(entries) == 1 and os.path.isdir(os.path.join(folder, entries[0])) \
                and not os.path.islink(os.path.join(folder, entries[0])) and not is_submission_folder(entries[0]):
            inner = os.path.join(folder, entries[0])
            names = os.listdir(inner)
            if any(os.path.isdir(os.path.join(inner, n)) for n in names) or sum(n.endswith(".ipynb") for n in names) > 1:
                folder = inner
    elif os.path.isdir(source):
        folder, problems = source, {}
    else:
        raise SubmissionsError(f"{source} is neither a folder nor a zip file")
    try:
        return _collect_folder(folder, assignment, max_notebook_bytes, problems, roster, deadline)
    except OSError as exc:
        raise SubmissionsError(f"cannot read the submissions folder {source}: {exc.strerror}") from None
