"""Recognising how a learning management system laid out a batch of submissions.

An instructor downloads "all submissions" from their LMS and hands the folder
(already extracted, see :mod:`autograder.intake.submissions`) to the grader.  Each
LMS names things its own way:

* Canvas: flat files ``lastnamefirstname_[LATE_]<userid>_<submissionid>_<filename>``;
  a file the student uploaded twice under one name gets a ``-1``, ``-2`` ...
  before its extension.
* Moodle: a folder per participant ``Full Name_<participantid>_assignsubmission_file_/``
  (or, with "download submissions in folders" off, flat files
  ``Full Name_<participantid>_assignsubmission_file_<filename>``).  Moodle
  turns underscores in names into spaces, so the name never holds one.
* Blackboard: ``<Assignment>_<username>_attempt_<YYYY-MM-DD-HH-MM-SS>_<filename>``
  per file of an attempt, and one receipt ``<Assignment>_<username>_attempt_<...>.txt``
  with the student's name, the submission date and the original file names.
* Gradescope's export: ``submission_<id>/`` folders and ``submission_metadata.yml``
  naming each submission's submitters and its time.
* Plain: ``<student_id>.ipynb`` files or ``<student_id>/`` folders.

:func:`scan` turns a folder into :class:`Entry` records (one per submitted
attempt, whatever the layout) and :class:`Unused` records (everything else:
receipts and metadata that were read, files that are no submission, each
with the reason).  Nothing here runs or parses a notebook: it only reads
names; receipts and the metadata file are read and parsed by the trust
boundary (:func:`autograder.boundary.lms_files.read_blackboard_receipt`,
:func:`autograder.boundary.lms_files.read_gradescope_metadata`), which gives frozen
records.

Each graded entry also carries its :class:`FeedbackRoute`: what its LMS
needs to take feedback back for that person (Canvas's file name, Moodle's
participant folder and id, Blackboard's username and assignment), read from
the same names; :mod:`autograder.outputs.lms_feedback` writes the files.
"""

import datetime
import hashlib
import os
import re
import unicodedata
from dataclasses import dataclass, field

from autograder.boundary.archive import IGNORED_MEMBERS
from autograder.boundary.lms_files import read_blackboard_receipt, read_gradescope_metadata

__all__ = ["Entry", "Unused", "FeedbackRoute", "scan", "safe_id", "is_safe_student_id", "is_submission_folder", "notebook_stem",
           "IGNORED"]

STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@+-]{0,99}")
IGNORED = IGNORED_MEMBERS  # the operating systems' litter, never a submission nor reported

CANVAS = re.compile(r"^(?P<name>.+?)_(?:(?P<late>LATE)_)?(?P<user>\d+)_(?P<submission>\d+)_(?P<file>.+)$")
MOODLE_FOLDER = re.compile(r"^(?P<name>[^_]+)_(?P<participant>\d+)_assignsubmission_(?P<plugin>[a-z]+)_?$")
MOODLE_FILE = re.compile(r"^(?P<name>[^_]+)_(?P<participant>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<file>.+)$")
BLACKBOARD = re.compile(r"^(?P<prefix>.+)_attempt_(?P<stamp>\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})(?:_(?P<file>.+)|(?P<receipt>\.txt))$")
GRADESCOPE_FOLDER = re.compile(r"^submission_(?P<id>\d+)$")
GRADESCOPE_METADATA = "submission_metadata.yml"
COPY_MARKER = re.compile(r"^(?P<base>.+?) \((?P<n>\d+)\)$")  # "Name (2)": a second download of the same thing
RESUBMISSION = re.compile(r"^(?P<base>.+?)-(?P<n>\d+)$")  # Canvas: "ps1-1.ipynb"

LMS_NAMES = {"canvas": "Canvas", "moodle": "Moodle", "blackboard": "Blackboard", "gradescope": "Gradescope",
             "plain": "plain"}


@dataclass(frozen=True)
class FeedbackRoute:
    """How feedback for one entry goes back into the LMS it came from.

    * ``canvas``: ``name`` is the file's name in the download, which Canvas's
      "Re-upload submissions" matches to the student and the submission;
    * ``moodle``: ``name`` is the participant's folder
      (``Full Name_<participantid>_assignsubmission_file_``) and ``key`` the
      participant id, which the grading worksheet's ``Identifier`` holds;
    * ``blackboard``: ``key`` is the username, ``name`` the assignment's title
      as the download spells it (the Grade Center column's name).
    """

    lms: str
    name: str
    key: str = ""


@dataclass(frozen=True)
class Entry:
    """One submitted attempt, as the LMS laid it out, before it gets a student id.

    ``identity`` is what identifies the person within that LMS's download
    (its user id, username, participant id or sid); ``name`` and ``email``
    are what the LMS says about them.  ``notebook`` is the file to grade, or
    ``problem`` says why there is none.  ``order`` sorts attempts of one
    person (a later attempt compares greater) when no time is recorded.
    """

    lms: str
    source: str
    identity: str
    suggested_id: str
    name: str = ""
    email: str = ""
    notebook: str = None
    problem: str = None
    submitted_at: datetime.datetime = None
    marked_late: bool = False
    order: tuple = ()
    extra_files: tuple = ()
    co_submitters: tuple = ()  # (name, sid, email) of the other members of a group submission
    receipt: str = ""
    members: tuple = ()  # the names in the download this entry is made of (a folder, or a flat layout's files)
    route: FeedbackRoute = None  # where its feedback goes back into the LMS; None for layouts with no route


@dataclass(frozen=True)
class Unused:
    """Something in the download that is not graded as a submission, and why."""

    name: str
    reason: str
    kind: str = "skipped"  # "read": receipts and metadata; "superseded": an earlier attempt; "skipped": the rest


def is_submission_folder(name):
    """Whether a folder's name says it holds one submission (Moodle's participant folder, Gradescope's)."""
    return bool(MOODLE_FOLDER.match(name) or GRADESCOPE_FOLDER.match(name))


# -- names and ids -------------------------------------------------------------------

def is_safe_student_id(name):
    """Letters, digits and ``_ . @ + -``, starting with a letter or digit, at most 100 characters."""
    return bool(STUDENT_ID.fullmatch(name)) and ".." not in name


def safe_id(text):
    """A usable student id made from ``text``, always the same for the same text.

    A safe id is returned unchanged.  Otherwise accents are removed
    (``Zoë`` → ``zoe``), the result is lower-cased, and every run of other
    characters becomes one ``-``.  A name with no Latin letters or digits at
    all becomes ``student-`` and six hex digits of its SHA-256.
    """
    if is_safe_student_id(text):
        return text
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    folded = folded.replace("ß", "ss").replace("ø", "o").replace("Ø", "O").replace("ł", "l").replace("Ł", "L")
    slug = re.sub(r"[^a-z0-9_@+-]+", "-", folded.lower()).strip("-_@+")
    slug = slug[:90].rstrip("-_@+")
    if not slug:
        return "student-" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:6]
    return slug


def notebook_stem(filename):
    """The name of a notebook without ``.ipynb``, Canvas's ``-N`` and a download's `` (N)``: ``(stem, n)``."""
    stem = filename[:-len(".ipynb")] if filename.lower().endswith(".ipynb") else filename
    n = 0
    for pattern in (COPY_MARKER, RESUBMISSION):
        match = pattern.match(stem)
        if match:
            stem, n = match["base"], int(match["n"])
            break
    return stem, n


# -- the files of one submission ---------------------------------------------------------

def _files_under(folder):
    """Every file under ``folder``, as paths relative to it, skipping the OS's litter.

    A link (to a file or a folder) is listed as a file and never followed.
    """
    found = []
    for root, dirs, files in os.walk(folder):
        links = [d for d in dirs if os.path.islink(os.path.join(root, d))]
        dirs[:] = [d for d in dirs if d not in IGNORED and d not in links]
        found += [os.path.relpath(os.path.join(root, n), folder) for n in files + links if n not in IGNORED]
    return sorted(found)


def choose_notebook(names, assignment):
    """Which of a submission's file ``names`` is its notebook: ``(name, problem, earlier)``.

    The notebook named for the assignment wins (ignoring case, Canvas's
    ``-N`` and a download's `` (N)``); of several such, the highest ``N`` is
    the latest and the others are returned in ``earlier``.  A single
    notebook of another name is accepted.
    """
    notebooks = [n for n in names if n.lower().endswith(".ipynb") and not os.path.basename(n).startswith(".")]
    if not notebooks:
        return None, "there is no notebook (.ipynb file) in the submission", []
    top_level = [n for n in notebooks if os.sep not in n] or notebooks
    named = [n for n in top_level if notebook_stem(os.path.basename(n))[0].lower() == assignment.lower()]
    if named:
        ranked = sorted(named, key=lambda n: (notebook_stem(os.path.basename(n))[1], n))
        return ranked[-1], None, ranked[:-1]
    if len(notebooks) == 1:
        return notebooks[0], None, []
    shown = ", ".join(sorted(notebooks)[:5])
    return None, (f"the submission holds {len(notebooks)} notebooks ({shown}) and none is named "
                  f"{assignment}.ipynb, so it is not clear which one to grade"), []


# -- the layouts -----------------------------------------------------------------------

@dataclass
class _Group:
    """The files of one attempt of one person in a flat layout (Canvas, Moodle files, Blackboard)."""

    lms: str
    identity: str
    suggested_id: str
    name: str = ""
    files: dict = field(default_factory=dict)  # original file name -> path
    sources: list = field(default_factory=list)
    marked_late: bool = False
    submitted_at: datetime.datetime = None
    order: tuple = ()
    receipt: str = ""
    route: FeedbackRoute = None  # for Canvas, made once the graded file is known


def _entry_from_files(group, assignment, unused, problems):
    names = sorted(group.files)
    chosen, problem, earlier = choose_notebook(names, assignment)
    notebook = group.files[chosen] if chosen else None
    if notebook in problems:
        notebook, problem = None, problems[notebook]
    for name in earlier:
        unused.append(Unused(_shown(group, name), f"an earlier upload of the same notebook by "
                                                  f"{group.name or group.identity}; the later {_shown(group, chosen)} "
                                                  "was graded", "superseded"))
    extra = tuple(n for n in names if n != chosen and n not in earlier)
    source = _shown(group, chosen) if chosen else ", ".join(sorted(group.sources)[:3])
    order = group.order + ((notebook_stem(chosen)[1],) if chosen else ())
    route = group.route
    if group.lms == "canvas":
        # Canvas reads the user id and the file's id from the name, so any file of the attempt will do.
        route = FeedbackRoute("canvas", _shown(group, chosen) if chosen else sorted(group.sources)[0])
    return Entry(lms=group.lms, source=source, identity=group.identity, suggested_id=group.suggested_id,
                 name=group.name, notebook=notebook, problem=problem,
                 submitted_at=group.submitted_at, marked_late=group.marked_late, order=order,
                 extra_files=extra, receipt=group.receipt, members=tuple(sorted(group.sources)), route=route)


def _shown(group, name):
    path = group.files.get(name)
    return os.path.basename(path) if path else name


def _blackboard_time(stamp):
    try:
        return datetime.datetime.strptime(stamp, "%Y-%m-%d-%H-%M-%S")
    except ValueError:
        return None


def scan(folder, assignment, *, extraction_problems=None):
    """Every submission in ``folder``: ``(entries, unused)``.

    ``extraction_problems`` maps paths that could not be extracted from a
    zip file to the reason; such a path is reported, never read.
    """
    problems = extraction_problems or {}
    entries, unused = [], []
    groups = {}
    names = sorted(os.listdir(folder))
    metadata, metadata_problem = {}, None
    if GRADESCOPE_METADATA in names:
        metadata, metadata_problem = read_gradescope_metadata(os.path.join(folder, GRADESCOPE_METADATA))
        unused.append(Unused(GRADESCOPE_METADATA, metadata_problem and
                             f"Gradescope's metadata file, which could not be used: {metadata_problem}" or
                             f"Gradescope's metadata file: read for the names, ids and times of its "
                             f"{len(metadata)} submission(s)", "read"))
    receipts = {}
    for name in names:
        match = BLACKBOARD.match(name)
        if match and match["receipt"]:
            info = read_blackboard_receipt(os.path.join(folder, name))
            receipts[(match["prefix"], match["stamp"])] = (name, info)

    for name in names:
        path = os.path.join(folder, name)
        if name in IGNORED or name == GRADESCOPE_METADATA:
            continue
        if name.startswith("."):
            unused.append(Unused(name, "a hidden file or folder, not a submission"))
            continue
        is_dir = os.path.isdir(path) and not os.path.islink(path)

        if is_dir and GRADESCOPE_FOLDER.match(name):
            record = metadata.get(name)
            if record and record.submitters:
                (person, sid, email), others = record.submitters[0], record.submitters[1:]
                identity = f"gradescope:{sid or email or person or name}"
                suggested = safe_id(sid or (email.split("@")[0] if email else "") or person or name)
            else:
                person = sid = email = ""
                others = ()
                identity, suggested = f"gradescope:{name}", name
            entries.append(_folder_entry("gradescope", path, name, identity, suggested, assignment, problems,
                                         unused, name=person, email=email, co_submitters=others,
                                         submitted_at=record.created_at if record else None))
            continue

        match = MOODLE_FOLDER.match(name) if is_dir else None
        if match:
            if match["plugin"] != "file":
                unused.append(Unused(name, f"Moodle's {match['plugin']} submission of {match['name']}: "
                                           "only uploaded files are graded"))
                continue
            entries.append(_folder_entry("moodle", path, name, f"moodle:{match['participant']}",
                                         safe_id(match["name"]), assignment, problems, unused,
                                         name=match["name"],
                                         route=FeedbackRoute("moodle", name, match["participant"])))
            continue

        if not is_dir:
            match = BLACKBOARD.match(name)
            if match:
                key = (match["prefix"], match["stamp"])
                receipt_name, info = receipts.get(key, (None, None))
                if match["receipt"]:
                    unused.append(Unused(name, "Blackboard's receipt of this attempt: read for the student's name "
                                               "and the original file names" if info else
                                               "Blackboard's receipt of this attempt, which could not be read", "read"))
                    continue
                username = info.username if info else ""
                prefix = match["prefix"]
                user = username if username and prefix.endswith("_" + username) else prefix.rsplit("_", 1)[-1]
                group = groups.setdefault(("blackboard", user, match["stamp"]), _Group(
                    "blackboard", f"blackboard:{user}", safe_id(user), name=info.name if info else "",
                    submitted_at=_blackboard_time(match["stamp"]), order=(match["stamp"],),
                    receipt=receipt_name or "",
                    route=FeedbackRoute("blackboard", prefix[:-len(user) - 1] if prefix.endswith("_" + user)
                                        else prefix, user)))
                original = (info.original_name(name) if info else None) or match["file"]
                group.files[original] = path
                group.sources.append(name)
                continue
            match = MOODLE_FILE.match(name)
            if match:
                if match["plugin"] != "file":
                    unused.append(Unused(name, f"Moodle's {match['plugin']} submission of {match['name']}: "
                                               "only uploaded files are graded"))
                    continue
                group = groups.setdefault(("moodle", match["participant"]), _Group(
                    "moodle", f"moodle:{match['participant']}", safe_id(match["name"]), name=match["name"],
                    route=FeedbackRoute("moodle", f"{match['name']}_{match['participant']}_assignsubmission_file_",
                                        match["participant"])))
                group.files[match["file"]] = path
                group.sources.append(name)
                continue
            match = CANVAS.match(name)
            if match:
                group = groups.setdefault(("canvas", match["user"]), _Group(
                    "canvas", f"canvas:{match['user']}", safe_id(match["name"]), name=match["name"]))
                group.files[match["file"]] = path
                group.sources.append(name)
                group.marked_late = group.marked_late or bool(match["late"])
                continue

        # A plain entry: <student_id>.ipynb or <student_id>/, perhaps with a download's " (N)".
        stem = name if is_dir else (name[:-len(".ipynb")] if name.lower().endswith(".ipynb")
                                    else os.path.splitext(name)[0])
        copy_match = COPY_MARKER.match(stem)
        base, copy = (copy_match["base"], int(copy_match["n"])) if copy_match else (stem, 0)
        identity = f"plain:{base}"
        if is_dir:
            entries.append(_folder_entry("plain", path, name, identity, safe_id(base), assignment, problems,
                                         unused, order=(copy,), name=base))
            continue
        if path in problems:
            notebook, problem = None, problems[path]
        elif os.path.islink(path):
            notebook, problem = None, "it is a symbolic link, not a regular file"
        elif not name.lower().endswith(".ipynb"):
            notebook, problem = None, f"it is not a notebook: expected {safe_id(base)}.ipynb, found {name}"
        else:
            notebook, problem = path, None
        entries.append(Entry("plain", name, identity, safe_id(base), name=base, notebook=notebook, problem=problem,
                             order=(copy,), members=(name,)))

    for group in groups.values():
        entries.append(_entry_from_files(group, assignment, unused, problems))
    for name in sorted(n for n in metadata if n not in names):
        unused.append(Unused(name, "listed in Gradescope's metadata file, but no such folder is in the download"))
    return entries, unused


def _folder_entry(lms, path, folder_name, identity, suggested, assignment, problems, unused, *, order=(), **extra):
    person = extra.pop("name", "")
    try:
        files = _files_under(path)
    except OSError as exc:
        return Entry(lms, folder_name, identity, suggested, name=person, order=order, members=(folder_name,),
                     problem=f"the folder cannot be read ({exc.strerror})", **extra)
    chosen, problem, earlier = choose_notebook(files, assignment)
    notebook = os.path.join(path, chosen) if chosen else None
    if notebook in problems:
        notebook, problem = None, problems[notebook]
    for earlier_name in earlier:
        unused.append(Unused(f"{folder_name}/{earlier_name}", f"an earlier upload of the same notebook; the later "
                                                       f"{folder_name}/{chosen} was graded", "superseded"))
    extra_files = tuple(f for f in files if f != chosen and f not in earlier)
    return Entry(lms, folder_name, identity, suggested, name=person, notebook=notebook, problem=problem,
                 members=(folder_name,),
                 order=order + ((notebook_stem(os.path.basename(chosen))[1],) if chosen else ()),
                 extra_files=extra_files, **extra)
