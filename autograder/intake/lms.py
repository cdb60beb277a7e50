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
* The course's JupyterHub: ``hub+<course>+<stamp>+<user>/`` folders, one
  per submission, as :mod:`autograder.intake.hub` lays out what the course
  exchange holds (the stamp is the exchange's time, UTC).
* Plain: ``<student_id>.ipynb`` files or ``<student_id>/`` folders.

Each of these naming schemes is one :class:`Layout` in the table
:data:`LAYOUTS`: what a matching name is (a folder that holds a submission,
one file of an attempt, a file the LMS adds about the submissions), the
pattern of the name, and a function that says what the name means (who
submitted, when, where feedback goes back).  A new LMS layout is one more
entry there, and its display name one more in :data:`LMS_NAMES`; the entries
are tried in order and the first whose pattern matches the whole name wins,
so an entry goes before any more general one that would match its names too.
What no entry matches is a plain submission (:data:`PLAIN_LAYOUTS`).  A
file the new LMS adds about its submissions gets its reader in
:mod:`autograder.boundary.lms_files`, and a route for feedback its writer in
:mod:`autograder.outputs.lms_feedback`.

:func:`scan` turns a folder into :class:`Entry` records (one per submitted
attempt, whatever the layout) and :class:`Unused` records (everything else:
receipts and metadata that were read, files that are no submission, each
with the reason).  Nothing here runs or parses a notebook: it only reads
names; receipts and the metadata file are read and parsed by the trust
boundary (:func:`autograder.boundary.lms_files.read_blackboard_receipt`,
:func:`autograder.boundary.lms_files.read_gradescope_metadata`), which gives
frozen records.

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
from dataclasses import dataclass, field, replace
from typing import Callable

from autograder.boundary.archive import IGNORED_MEMBERS
from autograder.boundary.lms_files import read_blackboard_receipt, read_gradescope_metadata

__all__ = ["Entry", "Unused", "FeedbackRoute", "Layout", "Submitter", "Download", "LAYOUTS", "PLAIN_LAYOUTS",
           "LMS_NAMES", "scan", "layout_of", "safe_id", "is_safe_student_id", "is_submission_folder", "notebook_stem",
           "choose_notebook", "IGNORED"]

STUDENT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@+-]{0,99}")
IGNORED = IGNORED_MEMBERS  # the operating systems' litter, never a submission nor reported

COPY_MARKER = re.compile(r"^(?P<base>.+?) \((?P<n>\d+)\)$")  # "Name (2)": a second download of the same thing
RESUBMISSION = re.compile(r"^(?P<base>.+?)-(?P<n>\d+)$")  # Canvas: "ps1-1.ipynb"

LMS_NAMES = {"canvas": "Canvas", "moodle": "Moodle", "blackboard": "Blackboard", "gradescope": "Gradescope",
             "hub": "JupyterHub", "plain": "plain"}


@dataclass(frozen=True)
class FeedbackRoute:
    """How feedback for one entry goes back into the LMS it came from.

    * ``canvas``: ``name`` is the file's name in the download, which Canvas's
      "Re-upload submissions" matches to the student and the submission;
    * ``moodle``: ``name`` is the participant's folder
      (``Full Name_<participantid>_assignsubmission_file_``) and ``key`` the
      participant id, which the grading worksheet's ``Identifier`` holds;
    * ``blackboard``: ``key`` is the username, ``name`` the assignment's title
      as the download spells it (the Grade Center column's name);
    * ``hub``: ``name`` is the course on the hub, ``key`` ``<user>/<stamp>``: the
      submission in the course exchange that the feedback belongs to.
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

# What a name that matches a layout is.
SUBMISSION_FOLDER = "a folder that holds one submission"
ATTEMPT_FILE = "one file of an attempt, graded together with the attempt's other files"
SUBMISSION_FILE = "a file that is one submission on its own"
LMS_FILE = "a file the LMS adds about the submissions, read but never graded"


@dataclass(frozen=True)
class Submitter:
    """What a name in the download says about the submission it belongs to.

    ``identity`` identifies the person within that LMS's download (with the
    LMS as prefix: ``canvas:104233``); ``suggested_id`` is the student id to
    use when no roster says otherwise; ``name``, ``email``, ``co_submitters``,
    ``submitted_at``, ``marked_late``, ``order``, ``receipt`` and ``route``
    become the :class:`Entry`'s.  For a file of an attempt, ``attempt`` tells
    the attempts of one person apart (files with the same identity and
    attempt are graded together) and ``file`` is the file's own name, without
    what the LMS added to it.
    """

    identity: str
    suggested_id: str
    name: str = ""
    email: str = ""
    co_submitters: tuple = ()
    submitted_at: datetime.datetime = None
    marked_late: bool = False
    order: tuple = ()
    receipt: str = ""
    route: FeedbackRoute = None
    attempt: str = ""
    file: str = ""


@dataclass(frozen=True)
class Layout:
    """One way an LMS names an entry of its download, and what such a name means.

    ``lms`` is the LMS's key in :data:`LMS_NAMES`; ``kind`` what a matching
    name is (:data:`SUBMISSION_FOLDER`, :data:`ATTEMPT_FILE`,
    :data:`SUBMISSION_FILE` or :data:`LMS_FILE`; the first is matched against
    folders only, the next two against files only, the last against both);
    ``pattern`` a regular expression the whole name must match.
    ``read(match, download)`` gets the match and the :class:`Download`, and
    returns a :class:`Submitter`, or a sentence saying why the name is not
    graded; for an :data:`LMS_FILE`, a list of :class:`Unused` records (the
    file itself, read, and anything it tells about the rest).  An attempt's
    feedback goes back by the route its first file gives, or with
    ``route_by_file`` by the route of the file that is graded (one that names
    the file itself).
    """

    lms: str
    kind: str
    pattern: str  # compiled when the layout is made
    read: Callable
    route_by_file: bool = False

    def __post_init__(self):
        object.__setattr__(self, "pattern", re.compile(self.pattern))

    def matches(self, name, is_folder):
        """The match of ``name`` (a folder's when ``is_folder``), or ``None`` when this layout does not apply."""
        if self.kind != LMS_FILE and is_folder != (self.kind == SUBMISSION_FOLDER):
            return None
        return self.pattern.fullmatch(name)


class Download:
    """The folder being scanned: its names, and the files its LMS added, each read once, when first needed."""

    def __init__(self, folder):
        self.folder = folder
        self.names = sorted(os.listdir(folder))
        self._present = set(self.names)
        self._read = {}

    def has(self, name):
        return name in self._present

    def lms_file(self, name, reader):
        """What ``reader`` gives for the file ``name`` of the download, or ``None`` when there is no such file."""
        if name not in self._present:
            return None
        if name not in self._read:
            self._read[name] = reader(os.path.join(self.folder, name))
        return self._read[name]


# Canvas ----------------------------------------------------------------------------

def _canvas_file(match, download):
    # The route is the file's name, from which Canvas's re-upload reads the user id and the submission id.
    return Submitter(f"canvas:{match['user']}", safe_id(match["name"]), name=match["name"],
                     marked_late=bool(match["late"]), file=match["file"], route=FeedbackRoute("canvas", match.string))


# Moodle ----------------------------------------------------------------------------

def _moodle_participant(match, folder, file=""):
    if match["plugin"] != "file":
        return f"Moodle's {match['plugin']} submission of {match['name']}: only uploaded files are graded"
    return Submitter(f"moodle:{match['participant']}", safe_id(match["name"]), name=match["name"], file=file,
                     route=FeedbackRoute("moodle", folder, match["participant"]))


def _moodle_folder(match, download):
    return _moodle_participant(match, match.string)


def _moodle_file(match, download):
    folder = f"{match['name']}_{match['participant']}_assignsubmission_file_"
    return _moodle_participant(match, folder, match["file"])


# Blackboard ------------------------------------------------------------------------

def _blackboard_receipt(match, download):
    info = download.lms_file(match.string, read_blackboard_receipt)
    return [Unused(match.string, "Blackboard's receipt of this attempt: read for the student's name and the "
                                 "original file names" if info else
                                 "Blackboard's receipt of this attempt, which could not be read", "read")]


def _blackboard_file(match, download):
    prefix, stamp = match["prefix"], match["stamp"]
    receipt = f"{prefix}_attempt_{stamp}.txt"
    info = download.lms_file(receipt, read_blackboard_receipt)
    username = info.username if info else ""
    # The username ends the prefix, after the assignment's title; the receipt settles one with an underscore.
    user = username if username and prefix.endswith("_" + username) else prefix.rsplit("_", 1)[-1]
    title = prefix[:-len(user) - 1] if prefix.endswith("_" + user) else prefix
    try:
        submitted_at = datetime.datetime.strptime(stamp, "%Y-%m-%d-%H-%M-%S")
    except ValueError:
        submitted_at = None
    return Submitter(f"blackboard:{user}", safe_id(user), name=info.name if info else "", submitted_at=submitted_at,
                     order=(stamp,), receipt=receipt if download.has(receipt) else "",
                     route=FeedbackRoute("blackboard", title, user), attempt=stamp,
                     file=(info.original_name(match.string) if info else None) or match["file"])


# Gradescope ------------------------------------------------------------------------

GRADESCOPE_METADATA = "submission_metadata.yml"


def _gradescope_metadata(match, download):
    metadata, problem = download.lms_file(match.string, read_gradescope_metadata)
    read = Unused(match.string, f"Gradescope's metadata file, which could not be used: {problem}" if problem else
                  f"Gradescope's metadata file: read for the names, ids and times of its {len(metadata)} "
                  "submission(s)", "read")
    return [read] + [Unused(name, "listed in Gradescope's metadata file, but no such folder is in the download")
                     for name in sorted(metadata) if not download.has(name)]


def _gradescope_folder(match, download):
    folder = match.string
    metadata, _ = download.lms_file(GRADESCOPE_METADATA, read_gradescope_metadata) or ({}, None)
    record = metadata.get(folder)
    submitted_at = record.created_at if record else None
    if not (record and record.submitters):
        return Submitter(f"gradescope:{folder}", folder, submitted_at=submitted_at)
    (person, sid, email), others = record.submitters[0], record.submitters[1:]
    return Submitter(f"gradescope:{sid or email or person or folder}",
                     safe_id(sid or (email.split("@")[0] if email else "") or person or folder),
                     name=person, email=email, co_submitters=others, submitted_at=submitted_at)


# The course's JupyterHub ----------------------------------------------------------

HUB_STAMP = r"\d{8}T\d{6}\.\d{6}Z"  # perceptron_course.hub.store.STAMP_FORMAT


def _hub_folder(match, download):
    user, stamp = match["user"], match["stamp"]
    when = datetime.datetime.strptime(stamp, "%Y%m%dT%H%M%S.%fZ").replace(tzinfo=datetime.timezone.utc)
    return Submitter(f"hub:{user}", safe_id(user), name=user, submitted_at=when, order=(stamp,),
                     route=FeedbackRoute("hub", match["course"], f"{user}/{stamp}"))


# Plain -----------------------------------------------------------------------------

def _plain(stem):
    """``<student_id>``, perhaps with a download's `` (N)``, which orders copies of one name."""
    copy = COPY_MARKER.match(stem)
    base, n = (copy["base"], int(copy["n"])) if copy else (stem, 0)
    return Submitter(f"plain:{base}", safe_id(base), name=base, order=(n,))


def _plain_folder(match, download):
    return _plain(match.string)


def _plain_file(match, download):
    name = match.string
    return _plain(name[:-len(".ipynb")] if name.lower().endswith(".ipynb") else os.path.splitext(name)[0])


STAMP = r"\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2}"
MOODLE_PARTICIPANT = r"(?P<name>[^_]+)_(?P<participant>\d+)_assignsubmission_(?P<plugin>[a-z]+)"

# Every layout of every LMS, tried in this order: the first whose pattern matches the whole name wins, so each
# comes before any more general one that would match its names too (Blackboard's files, then Moodle's, then Canvas's).
LAYOUTS = (
    Layout("gradescope", LMS_FILE, re.escape(GRADESCOPE_METADATA), _gradescope_metadata),
    Layout("blackboard", LMS_FILE, rf"(?P<prefix>.+)_attempt_(?P<stamp>{STAMP})\.txt", _blackboard_receipt),
    Layout("gradescope", SUBMISSION_FOLDER, r"submission_(?P<id>\d+)", _gradescope_folder),
    Layout("hub", SUBMISSION_FOLDER, rf"hub\+(?P<course>[^+]+)\+(?P<stamp>{HUB_STAMP})\+(?P<user>[^+/]+)",
           _hub_folder),
    Layout("moodle", SUBMISSION_FOLDER, MOODLE_PARTICIPANT + "_?", _moodle_folder),
    Layout("blackboard", ATTEMPT_FILE, rf"(?P<prefix>.+)_attempt_(?P<stamp>{STAMP})_(?P<file>.+)", _blackboard_file),
    Layout("moodle", ATTEMPT_FILE, MOODLE_PARTICIPANT + "_(?P<file>.+)", _moodle_file),
    Layout("canvas", ATTEMPT_FILE, r"(?P<name>.+?)_(?:(?P<late>LATE)_)?(?P<user>\d+)_(?P<submission>\d+)_(?P<file>.+)",
           _canvas_file, route_by_file=True),
)

# What no layout of an LMS matches: <student_id>/ or <student_id>.ipynb (or any other file, which is then no notebook).
PLAIN_LAYOUTS = (
    Layout("plain", SUBMISSION_FOLDER, r"(?s).+", _plain_folder),
    Layout("plain", SUBMISSION_FILE, r"(?s).+", _plain_file),
)


def layout_of(name, is_folder):
    """``(layout, match)`` of the first layout that matches ``name``, a plain one when no LMS's does."""
    for layout in LAYOUTS + PLAIN_LAYOUTS:
        match = layout.matches(name, is_folder)
        if match:
            return layout, match
    raise AssertionError(f"the plain layouts match every name, but not {name!r}")


def is_submission_folder(name):
    """Whether a folder's name says it holds one submission (Moodle's participant folder, Gradescope's ...)."""
    return any(layout.kind == SUBMISSION_FOLDER and layout.matches(name, True) for layout in LAYOUTS)


# -- the scan ---------------------------------------------------------------------------

def scan(folder, assignment, *, extraction_problems=None):
    """Every submission in ``folder``: ``(entries, unused)``.

    ``extraction_problems`` maps paths that could not be extracted from a
    zip file to the reason; such a path is reported, never read.
    """
    problems = extraction_problems or {}
    download = Download(folder)
    entries, unused = [], []
    attempts = {}
    for name in download.names:
        if name in IGNORED:
            continue
        if name.startswith("."):
            unused.append(Unused(name, "a hidden file or folder, not a submission"))
            continue
        path = os.path.join(folder, name)
        layout, match = layout_of(name, os.path.isdir(path) and not os.path.islink(path))
        found = layout.read(match, download)
        if layout.kind == LMS_FILE:
            unused += found
        elif isinstance(found, str):
            unused.append(Unused(name, found))
        elif layout.kind == SUBMISSION_FOLDER:
            entries.append(_folder_entry(layout.lms, path, name, found, assignment, problems, unused))
        elif layout.kind == SUBMISSION_FILE:
            entries.append(_file_entry(layout.lms, path, name, found, problems))
        else:
            attempt = attempts.setdefault((found.identity, found.attempt), _Attempt(layout, found))
            attempt.add(name, path, found)
    for attempt in attempts.values():
        entries.append(_attempt_entry(attempt, assignment, unused, problems))
    return entries, unused


def _entry(lms, source, who, **from_files):
    """An :class:`Entry` of ``who`` (a :class:`Submitter`), with the fields that come from its files."""
    from_files.setdefault("order", who.order)
    from_files.setdefault("route", who.route)
    return Entry(lms, source, who.identity, who.suggested_id, name=who.name, email=who.email,
                 co_submitters=who.co_submitters, submitted_at=who.submitted_at, marked_late=who.marked_late,
                 receipt=who.receipt, **from_files)


def _file_entry(lms, path, name, who, problems):
    if path in problems:
        notebook, problem = None, problems[path]
    elif os.path.islink(path):
        notebook, problem = None, "it is a symbolic link, not a regular file"
    elif not name.lower().endswith(".ipynb"):
        notebook, problem = None, f"it is not a notebook: expected {who.suggested_id}.ipynb, found {name}"
    else:
        notebook, problem = path, None
    return _entry(lms, name, who, notebook=notebook, problem=problem, members=(name,))


def _folder_entry(lms, path, folder_name, who, assignment, problems, unused):
    try:
        files = _files_under(path)
    except OSError as exc:
        return _entry(lms, folder_name, who, members=(folder_name,),
                      problem=f"the folder cannot be read ({exc.strerror})")
    chosen, problem, earlier = choose_notebook(files, assignment)
    notebook = os.path.join(path, chosen) if chosen else None
    if notebook in problems:
        notebook, problem = None, problems[notebook]
    for earlier_name in earlier:
        unused.append(Unused(f"{folder_name}/{earlier_name}", f"an earlier upload of the same notebook; the later "
                                                              f"{folder_name}/{chosen} was graded", "superseded"))
    extra_files = tuple(f for f in files if f != chosen and f not in earlier)
    return _entry(lms, folder_name, who, notebook=notebook, problem=problem, members=(folder_name,),
                  order=who.order + ((notebook_stem(os.path.basename(chosen))[1],) if chosen else ()),
                  extra_files=extra_files)


@dataclass
class _Attempt:
    """The files of one attempt of one person in a flat layout (Canvas, Moodle files, Blackboard).

    Who submitted is what its first file says, with the late mark of any of
    its files.
    """

    layout: Layout
    who: Submitter
    files: dict = field(default_factory=dict)  # the file's own name -> path
    sources: list = field(default_factory=list)  # names in the download
    routes: dict = field(default_factory=dict)  # name in the download -> FeedbackRoute

    def add(self, name, path, found):
        self.files[found.file] = path
        self.sources.append(name)
        self.routes[name] = found.route
        if found.marked_late and not self.who.marked_late:
            self.who = replace(self.who, marked_late=True)

    def shown(self, file):
        """The name in the download of the attempt's file ``file``."""
        path = self.files.get(file)
        return os.path.basename(path) if path else file


def _attempt_entry(attempt, assignment, unused, problems):
    names = sorted(attempt.files)
    chosen, problem, earlier = choose_notebook(names, assignment)
    notebook = attempt.files[chosen] if chosen else None
    if notebook in problems:
        notebook, problem = None, problems[notebook]
    who = attempt.who
    for name in earlier:
        unused.append(Unused(attempt.shown(name), f"an earlier upload of the same notebook by "
                                                  f"{who.name or who.identity}; the later {attempt.shown(chosen)} "
                                                  "was graded", "superseded"))
    source = attempt.shown(chosen) if chosen else ", ".join(sorted(attempt.sources)[:3])
    route = who.route
    if attempt.layout.route_by_file:
        route = attempt.routes[attempt.shown(chosen) if chosen else sorted(attempt.sources)[0]]
    return _entry(attempt.layout.lms, source, who, notebook=notebook, problem=problem,
                  order=who.order + ((notebook_stem(chosen)[1],) if chosen else ()),
                  extra_files=tuple(n for n in names if n != chosen and n not in earlier),
                  members=tuple(sorted(attempt.sources)), route=route)
