"""Finding the submissions in a folder or a ``.zip``, and reading one notebook, without trusting either.

A batch of submissions is a folder (or a ``.zip`` of one, as a learning
management system hands them out) holding ``<student_id>.ipynb`` files or
``<student_id>/`` folders with the notebook inside.  Every entry becomes a
:class:`Submission`: either a path to a notebook to grade, or the reason it
cannot be graded (a symbolic link, not a regular file, empty, too large, no
notebook in the folder ...).  Names that are not safe student ids are
skipped, with the reason, because the id becomes a file name and a
gradebook key.

A ``.zip`` is extracted at the trust boundary
(:func:`autograder.boundary.extract_zip`): no absolute paths or ``..``, no
links (a link member becomes an ungradable entry), at most so many members
and bytes (the course's :class:`~autograder.limits.Limits`), each member
read with a size cap whatever its header says.
"""

import os
import re
import stat
import zipfile
from dataclasses import dataclass

from .boundary import IGNORED_MEMBERS as IGNORED
from .boundary import ArchiveError, extract_zip

__all__ = ["Submission", "Skipped", "SubmissionsError", "collect", "is_safe_student_id"]

STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@+-]{0,99}")


class SubmissionsError(Exception):
    """The batch itself cannot be read (missing folder, broken zip): the run cannot proceed."""


@dataclass(frozen=True)
class Submission:
    """One student's entry: ``path`` of the notebook to grade, or ``problem`` saying why not."""

    student_id: str
    path: str = None
    problem: str = None


@dataclass(frozen=True)
class Skipped:
    """An entry that is not a submission at all (unsafe name, duplicate id)."""

    name: str
    reason: str


def is_safe_student_id(name):
    """Letters, digits and ``_ . @ + -``, starting with a letter or digit, at most 100 characters."""
    return bool(STUDENT_ID.fullmatch(name)) and ".." not in name


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


def _notebook_in_folder(folder, assignment, max_bytes):
    """The notebook inside a student's folder: ``(path, None)`` or ``(None, reason)``."""
    if os.path.islink(folder):
        return None, "the student's folder is a symbolic link"
    try:
        names = sorted(os.listdir(folder))
    except OSError as exc:
        return None, f"the student's folder cannot be read ({exc.strerror})"
    notebooks = [n for n in names if n.endswith(".ipynb") and not n.startswith(".")]
    if not notebooks:
        return None, "there is no notebook (.ipynb file) in the student's folder"
    if f"{assignment}.ipynb" in notebooks:
        chosen = f"{assignment}.ipynb"
    elif len(notebooks) == 1:
        chosen = notebooks[0]
    else:
        return None, (f"the student's folder holds {len(notebooks)} notebooks and none is named "
                      f"{assignment}.ipynb, so it is not clear which one to grade")
    path = os.path.join(folder, chosen)
    problem = _check_file(path, max_bytes)
    return (None, problem) if problem else (path, None)


def _collect_folder(folder, assignment, max_bytes, problems):
    submissions, skipped, seen = [], [], {}
    for name in sorted(os.listdir(folder)):
        if name in IGNORED or name.startswith("."):
            continue
        path = os.path.join(folder, name)
        is_dir = os.path.isdir(path) and not os.path.islink(path)
        student = name if is_dir else (name[:-len(".ipynb")] if name.endswith(".ipynb") else os.path.splitext(name)[0])
        if not is_safe_student_id(student):
            skipped.append(Skipped(name, "the name is not a usable student id (letters, digits and _ . @ + - only)"))
            continue
        if student in seen:
            skipped.append(Skipped(name, f"another entry ({seen[student]}) already has the student id {student!r}"))
            continue
        seen[student] = name
        if is_dir:
            notebook, problem = _notebook_in_folder(path, assignment, max_bytes)
            if notebook in problems:
                notebook, problem = None, problems[notebook]
        elif path in problems:
            notebook, problem = None, problems[path]
        elif os.path.islink(path):
            notebook, problem = None, "it is a symbolic link, not a regular file"
        elif not name.endswith(".ipynb"):
            notebook, problem = None, f"it is not a notebook: expected {student}.ipynb, found {name}"
        else:
            problem = _check_file(path, max_bytes)
            notebook = None if problem else path
        submissions.append(Submission(student, notebook, problem))
    return submissions, skipped


def collect(source, assignment, work_dir, *, max_notebook_bytes=None, limits=None):
    """Every submission in ``source`` (a folder or a ``.zip``), sorted by student id.

    A zip is extracted under ``work_dir``.  ``limits`` (default: the default
    :class:`~autograder.limits.Limits`) caps the zip and, unless
    ``max_notebook_bytes`` is given, each notebook.  Returns ``(submissions,
    skipped)``; raises :class:`SubmissionsError` when ``source`` cannot be
    read at all.
    """
    from .limits import Limits

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
        # A zip of a folder of submissions: look inside that folder.
        if len(entries) == 1 and os.path.isdir(os.path.join(folder, entries[0])) \
                and not os.path.islink(os.path.join(folder, entries[0])):
            inner = os.path.join(folder, entries[0])
            names = os.listdir(inner)
            if any(os.path.isdir(os.path.join(inner, n)) for n in names) or sum(n.endswith(".ipynb") for n in names) > 1:
                folder = inner
    elif os.path.isdir(source):
        folder, problems = source, {}
    else:
        raise SubmissionsError(f"{source} is neither a folder nor a zip file")
    try:
        submissions, skipped = _collect_folder(folder, assignment, max_notebook_bytes, problems)
    except OSError as exc:
        raise SubmissionsError(f"cannot read the submissions folder {source}: {exc.strerror}") from None
    return sorted(submissions, key=lambda s: s.student_id), skipped
