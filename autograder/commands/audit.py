"""The leak audit: nothing the instructor keeps may be in what is published.

``python -m autograder audit PATH ...`` reads every file under each PATH
(the site ``make site`` builds, the public edition of the repository, a
zip meant for an LMS), including every member of every zip, wheel and
tarball inside them, however deeply nested, and reports each file that
holds a secret:

* a line of a solution region of ``notebooks/source/`` (code between
  ``### BEGIN SOLUTION`` and ``### END SOLUTION``, or the whole of a
  solution cell that has no markers, such as a model written answer);
* a line of a hidden-test block (``### BEGIN HIDDEN TESTS`` ...);
* a line of the hidden checks or of the known-wrong implementations
  (``autograder/course/assignments/<assignment>/``);
* instructor-only text that is a leak wherever it appears, however short
  what it surrounds (:data:`MARKERS`): nbgrader's markers of a solution or
  hidden-test region it did not clear, and the call into the hidden checks;
* a gradebook (any SQLite database), a saved time-limit calibration
  (``.autograder/calibration/``), or grades: a file the grader writes
  (``grades.csv``, the LMS import and feedback files, ``grading_run.json``,
  which ``export`` reads), a CSV with the grades' columns, or a page with
  the grading report's stylesheet;
* what TAs mark from: a marking CSV (known by its header, whatever its
  name), which holds every student's written answers, and the booklet that
  goes with it (known by its stylesheet), which holds them too, with the
  model answers;
* a note for markers: the note of a rubric item or of a mark in the
  course's gradebook (the marking page's, :mod:`autograder.marking`), or of
  an item of an assignment's starting rubric
  (``autograder/course/assignments/<assignment>/rubric.py``), read without
  running it.  A line of a note is looked for, whitespace removed, when it
  holds at least :data:`MIN_NOTE_CHARS` characters (a shorter one would
  match ordinary prose) and is neither part of a rubric item's text, which
  students see by design, nor of what the course publishes anyway (a note
  that quotes the question: the book's chapters and the parts of the
  notebooks a release keeps).

``python -m autograder audit --upload PATH ...`` audits what is uploaded
for students instead (:func:`audit_upload`): the files an LMS takes back
(``canvas_feedback.zip``, ``moodle_feedback.zip``, the LMS imports), the
feedback pages, a Gradescope ``results.json`` (what students can see of it,
:func:`gradescope_visible`).  Each student's own grade is expected there;
everything above that is not one is still a finding, and so are the
grading report (every student's grades), and a feedback page that names a
TA who marked (:attr:`Recipients.tas`) or shows another student's id or
email (other than a member of the same group submission).  The students
are those of the grading run (:func:`recipients_of_run`, from its
``grading_run.json``); a feedback file's student is read from its name as
the run wrote it (``feedback/<student_id>.html``, a Canvas file, a Moodle
participant's folder) or from its title.

What is secret is read from those sources each time (:func:`collect_secrets`),
so a new assignment, solution or check is covered without changing this
module.  This is the course's one leak search: ``python -m autograder
release`` refuses a release it finds anything in, and ``verify``, ``check``
and the student package's build run it on the release too.

Lines are compared with all whitespace removed, so re-indented or
re-spaced code still matches; every file is read as it is, as text with its
HTML tags removed (a highlighted code block), and with JSON and JavaScript
string escapes undone (a notebook, a search index).  A secret line counts
only when it is distinctive: at least :data:`MIN_LINE_CHARS` characters
without whitespace, and found neither in the reference library
``perceptron_lib`` (which is published: the chapters import it) nor in the
parts of the source notebooks that the release keeps (signatures,
docstrings, visible tests).  A file shows a secret when it holds one of
its distinctive lines of :data:`LONG_LINE_CHARS` characters or more, or a
run of its distinctive lines in their order (lines of the file in between
allowed) that adds up to :data:`RUN_CHARS` characters or to the whole
secret.  So the update ``w = w + y * x``, or a loop header such as
``for x_i, y_i in zip(X, y):``, which the book and the library
legitimately show, is never a finding, while any piece of a solution a few
lines long is, and every hidden-test block, whose call names its grade cell.

Archives are recognised by their first bytes, whatever their names (zip and
wheel, tar, gzip, bzip2, xz), and opened up to :data:`MAX_DEPTH` levels.
A PDF (the book's) keeps its text in compressed streams, so its text is
read with poppler's ``pdftotext`` and audited as well as its raw bytes; where
``pdftotext`` is missing the PDF is a finding, never passed unread.
"""

from __future__ import annotations

import argparse
import ast
import bz2
import csv
import gzip
import html
import io
import json
import lzma
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import tarfile
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from perceptron_course.cells import grade_id, is_solution

from autograder.course import assignments

__all__ = ["MIN_LINE_CHARS", "MIN_NOTE_CHARS", "MARKERS", "Secret", "LeakFinding", "Secrets", "Recipients",
           "collect_secrets", "add_gradebook_notes", "recipients_of_run", "markers_of", "audit", "audit_upload", "audit_bytes", "audit_upload_bytes", "gradescope_visible",
           "main"]

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = Path(assignments.HERE).relative_to(ROOT)  # the assignments' checks and known-wrong code

# A secret line shorter than this (whitespace removed) is too generic to call a leak on its own:
# ``w=w+y*x`` (7), ``returnw,b`` (9), ``importnumpyasnp`` (15, but public: the library has it).
MIN_LINE_CHARS = 16
# A secret line at least this long is a finding on its own; shorter ones count in runs
# of at least RUN_CHARS characters (or the whole secret, when it is shorter).
LONG_LINE_CHARS = 40
RUN_CHARS = 60
# Two lines of a secret count as a run when at most this many lines further apart in the file than
# in the secret.
RUN_GAP = 4
# Archives inside archives are opened up to this depth; deeper nesting is itself a finding.
MAX_DEPTH = 8
# A student id shorter than this is not looked for in a feedback page: it would match ordinary words and numbers.
MIN_ID_CHARS = 3
# The keys by which a grading run's record (autograder.outputs.graded_run) is known, whatever its name.
RUN_RECORD_KEYS = frozenset({"format", "assignment", "results", "people", "settings"})
# A CSV with at least this many of the marking CSV's columns, one of them the answer or a checksum, is one.
MARKING_COLUMNS_NEEDED = 3
# A line of a note for markers is looked for when it has at least this many characters, whitespace removed: about
# five words.  A shorter one ("accept either", "be lenient") would be found in ordinary prose, a chapter's or a
# TA's comment.
MIN_NOTE_CHARS = 24

# Text only the instructor's version holds, and what each one shows. Found anywhere, it is a leak, even where
# the lines it belongs to are too short or too common to count as secrets.
MARKERS = {
    "BEGIN SOLUTION": "the start of a solution region nbgrader did not clear",
    "END SOLUTION": "the end of a solution region nbgrader did not clear",
    "BEGIN HIDDEN TESTS": "the start of a hidden-test block nbgrader did not clear",
    "END HIDDEN TESTS": "the end of a hidden-test block nbgrader did not clear",
    "run_in_notebook": "the call into the hidden checks",
    "autograder.judging.checks": "the module of the hidden checks",
}

SOLUTION_BEGIN = re.compile(r"^\s*#+\s*BEGIN SOLUTION\s*$")
SOLUTION_END = re.compile(r"^\s*#+\s*END SOLUTION\s*$")
HIDDEN_BEGIN = re.compile(r"^\s*#+\s*BEGIN HIDDEN TESTS\s*$")
HIDDEN_END = re.compile(r"^\s*#+\s*END HIDDEN TESTS\s*$")

_TAG = re.compile(r"<[^<>]*>")
# What a student id is made of (autograder.intake.lms.is_safe_student_id), to cut a page's text into words.
_ID_WORD = re.compile(r"[A-Za-z0-9_.@+-]+")
# The title of a feedback page (autograder.outputs.report.feedback_html) or notebook (lms_feedback), which
# names the student it is for.
_FEEDBACK_TITLE = re.compile(r"(?:<title>|<h1>|^#\s)[^<\n]*?: feedback for ([A-Za-z0-9_.@+-]+?)(?=</|\s|$)",
                             re.MULTILINE)
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.DOTALL)
_MULTILINE_LITERAL = re.compile(r"""(["'])((?:(?!\1)[^\\\n]|\\.)*?\\n(?:(?!\1)[^\\\n]|\\.)*)\1""")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "'": "'", "\\": "\\", "/": "/", "b": "", "f": ""}


def normalise(line: str) -> str:
    """A line as the audit compares it: every whitespace character removed.

    ``str.split()`` splits at exactly the characters ``\\s`` matches (Unicode whitespace), and
    is several times faster than a substitution on the million lines of a site.
    """
    return "".join(line.split())


def _distinctive(line: str) -> bool:
    # Rules and punctuation (``----------``, ``"""``, ``)``) are not code anyone could recognise.
    return len(line) >= MIN_LINE_CHARS and sum(ch.isalnum() for ch in line) >= MIN_LINE_CHARS // 2


@dataclass(frozen=True)
class Secret:
    """One secret: what it is, where it comes from, and its lines (normalised, in order)."""

    kind: str
    origin: str
    lines: tuple[str, ...]
    # How many lines of the source lie between each line and the next (the last: 0).
    spacing: tuple[int, ...] = ()


@dataclass(frozen=True)
class LeakFinding:
    """A secret found in a published file.

    ``path`` names the file, and a member inside an archive after ``!``
    (``packages/course.whl!course/helpers.py``); ``what`` says which secret;
    ``evidence`` quotes what matched.
    """

    path: str
    what: str
    evidence: str = ""

    def __str__(self) -> str:
        text = f"{self.path}: {self.what}"
        return f"{text}\n    found: {self.evidence}" if self.evidence else text


@dataclass
class Secrets:
    """Everything the audit looks for, read from the instructor's sources."""

    secrets: list[Secret] = field(default_factory=list)
    public: set[str] = field(default_factory=set)
    # What the grader writes: file names, the grades' CSV columns, the grading pages' stylesheet.
    grade_file_names: frozenset[str] = frozenset()
    grade_columns: tuple[str, ...] = ()
    grading_stylesheet: str = ""
    calibration_folder: str = ""
    # Of grade_file_names, those an LMS takes back (each student's feedback, the gradebooks' imports): expected in
    # an upload, never on a site.
    upload_file_names: frozenset[str] = frozenset()
    # What TAs mark from: the marking CSV's columns and the booklet's stylesheet.
    marking_columns: tuple[str, ...] = ()
    booklet_stylesheet: str = ""
    # Instructor-only text -> what it shows (MARKERS).
    markers: dict[str, str] = field(default_factory=lambda: dict(MARKERS))
    # A line of a note for markers (normalised) -> whose note it is; and the rubric items' texts (normalised),
    # which students see, so that a note that repeats one is not looked for.
    notes: dict[str, str] = field(default_factory=dict)
    item_texts: set[str] = field(default_factory=set)
    # What the course publishes (the chapters, each release's cells), whitespace removed: a note that quotes it
    # shows nothing secret.
    published: list[str] = field(default_factory=list)
    # A secret's line at least this long shows the secret by itself.  Published pages share short
    # lines with solutions (a loop header, an update rule), hence LONG_LINE_CHARS; a release is made
    # from the source notebook and shares none, so verify holds it to every distinctive line.
    single_line_chars: int = LONG_LINE_CHARS
    # line -> [(secret number, position of the line in the secret)]
    _index: dict[str, list[tuple[int, int]]] = field(default_factory=dict, repr=False)

    def add(self, kind: str, origin: str, lines) -> None:
        """Add a secret from its raw lines; its distinctive, non-public lines are what is looked for."""
        source = [line for line in map(normalise, lines) if line]
        first_at: dict[str, int] = {}
        for at, line in enumerate(source):
            if _distinctive(line) and line not in self.public:
                first_at.setdefault(line, at)
        kept = tuple(first_at)
        if not kept:
            return
        places = list(first_at.values())
        spacing = tuple(max(0, b - a - 1) for a, b in zip(places, places[1:])) + (0,)
        self.secrets.append(Secret(kind, origin, kept, spacing))
        for position, line in enumerate(kept):
            self._index.setdefault(line, []).append((len(self.secrets) - 1, position))

    def add_note(self, origin: str, text: str) -> None:
        """Add a note for markers: each of its lines long enough to tell (:data:`MIN_NOTE_CHARS`) is looked for."""
        for line in map(normalise, (text or "").replace("\0", "").splitlines()):
            if len(line) >= MIN_NOTE_CHARS and sum(ch.isalnum() for ch in line) >= MIN_NOTE_CHARS // 2 \
                    and not any(line in text for text in self.published):
                self.notes.setdefault(line, origin)

    def notes_shown(self, flat: list[str]) -> list[tuple[str, str]]:
        """``(line, origin)`` of each line of a note for markers that one of ``flat`` (a file's text in each form the
        audit reads it, whitespace removed) holds, unless a rubric item's text holds it too."""
        if not self.notes:
            return []
        # One string to search (a note's line holds no NUL, so no match spans two forms); a CSV doubles every quote
        # inside a quoted cell.
        text = "\0".join(flat)
        if '""' in text:
            text += "\0" + text.replace('""', '"')
        return [(line, origin) for line, origin in self.notes.items()
                if line in text and not any(line in item for item in self.item_texts)]

    def matches(self, view: list[str]) -> dict[int, list[str]]:
        """Secret number -> the lines by which ``view`` (a file's normalised lines, in order) shows it.

        A secret shows when the view holds one of its lines of at least :attr:`single_line_chars`
        (:data:`LONG_LINE_CHARS`) characters, or a run of its lines, in order, each about as far from the next as in the
        secret (:data:`RUN_GAP` lines more, for comments or lines added in between), that
        holds :data:`RUN_CHARS` characters or the whole secret: a piece of a solution, not a
        common loop header such as ``for x_i, y_i in zip(X, y):`` shown in a chapter.
        """
        hits: dict[int, list[tuple[int, int]]] = {}
        for at, line in enumerate(view):
            for number, position in self._index.get(line, ()):
                hits.setdefault(number, []).append((at, position))
        found: dict[int, list[str]] = {}
        for number, places in hits.items():
            secret = self.secrets[number]
            lines, spacing = secret.lines, secret.spacing
            needed = min(RUN_CHARS, sum(map(len, lines)))
            shown = {lines[p] for _, p in places if len(lines[p]) >= self.single_line_chars}
            # The longest chain of the secret's lines, in order, that ends at each hit (by its
            # characters), built from the secret's last line backwards.
            chain: dict[tuple[int, int], tuple[int, list[str]]] = {}
            for at, position in sorted(places, key=lambda place: -place[1]):
                reach = spacing[position] + 1 + RUN_GAP
                following = [chain[(later, p)] for later, p in chain
                             if p == position + 1 and 0 < later - at <= reach]
                rest = max(following, default=(0, []), key=lambda item: item[0])
                chain[(at, position)] = (len(lines[position]) + rest[0], [lines[position]] + rest[1])
                if chain[(at, position)][0] >= needed:
                    shown.update(chain[(at, position)][1])
            if shown:
                found[number] = sorted(shown, key=lines.index)
        return found


# --- what is secret -------------------------------------------------------------------------

def _cell_parts(cell) -> tuple[list[tuple[str, list[str]]], list[str]]:
    """A source notebook cell split into its secret parts ``(kind, lines)`` and its public lines."""
    lines = cell.get("source", "")
    lines = ("".join(lines) if isinstance(lines, list) else lines).splitlines()
    secret: list[tuple[str, list[str]]] = []
    public: list[str] = []
    region: list[str] | None = None
    region_kind = ""
    for line in lines:
        if region is None and SOLUTION_BEGIN.match(line):
            region, region_kind = [], "solution"
        elif region is None and HIDDEN_BEGIN.match(line):
            region, region_kind = [], "hidden test"
        elif region is not None and (SOLUTION_END.match(line) or HIDDEN_END.match(line)):
            secret.append((region_kind, region))
            region = None
        elif region is not None:
            region.append(line)
        else:
            public.append(line)
    if region is not None:  # an unterminated region runs to the end of the cell, as nbgrader reads it
        secret.append((region_kind, region))
    if is_solution(cell) and not secret:
        # nbgrader replaces a solution cell without markers as a whole (a model written answer).
        kind = "written answer" if cell.get("cell_type") == "markdown" else "solution"
        return [(kind, public)], []
    return secret, public


def collect_secrets(root: Path | str = ROOT, *, course_dir: Path | str | None = None) -> Secrets:
    """Read what is secret, and what is public, from the repository at ``root``.

    The source notebooks are those of ``course_dir`` (an nbgrader course
    directory, ``root/notebooks`` by default): a release built from another
    course directory is audited against its own solutions.
    """
    root = Path(root)
    course = Path(course_dir) if course_dir is not None else root / "notebooks"
    secrets = Secrets()

    library = root / "perceptron_lib"
    for path in sorted(library.rglob("*.py")) + sorted(library.rglob("*.c")):
        secrets.public.update(normalise(line) for line in path.read_text(encoding="utf-8").splitlines())

    notebooks: list[tuple[Path, dict]] = []
    for path in sorted((course / "source").rglob("*.ipynb")):
        if ".ipynb_checkpoints" in path.parts:
            continue
        notebooks.append((path, json.loads(path.read_text(encoding="utf-8"))))
    parts = []
    for path, notebook in notebooks:
        for number, cell in enumerate(notebook.get("cells", [])):
            secret, public = _cell_parts(cell)
            secrets.public.update(map(normalise, public))
            secrets.published.append("".join(map(normalise, public)))
            name = grade_id(cell) or f"cell {number + 1}"
            parts.extend((kind, f"{_shown(path, root)}, {kind} in {name}", lines) for kind, lines in secret)
    for kind, origin, lines in parts:
        secrets.add(kind, origin, lines)

    for module, kind in ((assignments.CHECKS_MODULE, "hidden check"), (assignments.KNOWN_WRONG_MODULE, "known-wrong implementation")):
        for path in sorted((root / REGISTRY).glob(f"*/{module}.py")):
            secrets.add(kind, str(path.relative_to(root)), path.read_text(encoding="utf-8").splitlines())

    from autograder.running import calibrate
    from autograder.outputs import exports
    from autograder.outputs import lms_feedback
    from autograder.outputs import record as outputs
    from autograder.outputs import report
    from autograder.marking import booklet, sheet
    from autograder.outputs.graded_run import RUN_FILE
    secrets.upload_file_names = frozenset(
        {exports.CANVAS_FILE, exports.MOODLE_FILE} | {name for names in lms_feedback.FILES.values() for name in names})
    secrets.grade_file_names = secrets.upload_file_names | {"grades.csv", "gradebook.db", RUN_FILE}
    secrets.grade_columns = tuple(outputs.GRADES_COLUMNS)
    secrets.grading_stylesheet = normalise(report.CSS)
    secrets.calibration_folder = calibrate.SAVED_FOLDER.replace(os.sep, "/")
    secrets.marking_columns = tuple(sheet.COLUMNS)
    secrets.booklet_stylesheet = normalise(booklet.CSS)
    secrets.published += ["".join(path.read_text(encoding="utf-8").split())
                          for path in sorted((root / "book").rglob("*.md"))]
    for path in sorted((root / REGISTRY).glob(f"*/{assignments.RUBRIC_MODULE}.py")):
        _add_starting_rubric_notes(secrets, path, _shown(path, root))
    add_gradebook_notes(secrets, course)
    return secrets


def _add_starting_rubric_notes(secrets: Secrets, path: Path, shown: str) -> None:
    """The notes (and the texts) of the items of a starting rubric, read from its source without running it: each
    call of ``Item(points, text, note)``, its arguments written as strings."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (SyntaxError, UnicodeDecodeError, OSError):
        return
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "Item"):
            continue
        given = dict(zip(("points", "text", "note"), node.args))
        given.update((keyword.arg, keyword.value) for keyword in node.keywords if keyword.arg)
        text, note = (given.get(name) for name in ("text", "note"))
        if isinstance(text, ast.Constant) and isinstance(text.value, str):
            secrets.item_texts.add(normalise(text.value))
        if isinstance(note, ast.Constant) and isinstance(note.value, str):
            secrets.add_note(f"a note for markers in the starting rubric {shown}", note.value)


def add_gradebook_notes(secrets: Secrets, course_dir: Path | str) -> None:
    """Add every note for markers that the gradebook of ``course_dir`` holds (a rubric item's, a mark's), and its
    rubric items' texts; read-only, and nothing when there is no gradebook or it has no such table yet."""
    from autograder.outputs.gradebook import MARKERS_TABLE, RUBRIC_TABLE

    path = Path(course_dir) / "gradebook.db"
    if not path.is_file():
        return
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    except sqlite3.Error:
        return

    def rows(query):
        try:
            return connection.execute(query).fetchall()
        except sqlite3.Error:  # a gradebook from before the marking page, or before its notes
            return []

    try:
        for assignment, cell, text, note in rows(f'SELECT assignment, cell, text, note FROM "{RUBRIC_TABLE}"'):
            secrets.item_texts.add(normalise(text or ""))
            secrets.add_note(f"the note for markers of the rubric item {text!r} of {assignment}, {cell}", note)
        for assignment, student, cell, note in rows(
                f'SELECT assignment, student, cell, note FROM "{MARKERS_TABLE}" WHERE note IS NOT NULL'):
            secrets.add_note(f"a marker's note on {student}'s answer to {assignment}, {cell}", note)
    finally:
        connection.close()


@dataclass(frozen=True)
class Recipients:
    """Who the files of an upload are for, to check each student's feedback against (:func:`audit_upload`).

    ``identifiers`` maps each student id (of at least :data:`MIN_ID_CHARS`
    characters) and email of the run to its student; ``groups`` each student
    to the others of their group submission, whom their feedback may name;
    ``owners`` the name a feedback file has in the LMS's download (a Canvas
    file, a Moodle participant's folder) to its student; ``tas`` are the
    names of the people who marked, which no feedback may show.
    """

    identifiers: dict[str, str] = field(default_factory=dict)
    groups: dict[str, frozenset[str]] = field(default_factory=dict)
    owners: dict[str, str] = field(default_factory=dict)
    tas: tuple[str, ...] = ()

    @property
    def students(self) -> set[str]:
        return set(self.identifiers.values())

    def owner(self, base: str, texts: list[str]) -> str | None:
        """The student a file is feedback for, from its name (``base``, inside its archive) or its title."""
        parts = base.split("/")
        if len(parts) >= 2 and parts[-2] == "feedback" and parts[-1].endswith(".html"):
            return parts[-1][:-len(".html")]
        if parts[-1] in self.owners:
            return self.owners[parts[-1]]
        if len(parts) >= 2 and parts[-2] in self.owners:
            return self.owners[parts[-2]]
        for text in texts:
            match = _FEEDBACK_TITLE.search(text)
            if match:
                return match.group(1)
        return None


def markers_of(course_dir: str, assignment: str) -> list[str]:
    """The names of the TAs who gave the marks the gradebook of ``course_dir`` holds for ``assignment``, as the
    marking page recorded them; none when there is no gradebook or it holds no such assignment."""
    from autograder.outputs.gradebook import GradebookError, open_gradebook, written_marks

    try:
        gb = open_gradebook(course_dir)
    except GradebookError:
        return []
    try:
        marks = written_marks(gb, assignment)
    except GradebookError:
        return []
    finally:
        gb.close()
    # A mark given elsewhere than on the marking page (the CSV, the formgrader) records no TA.
    return sorted({getattr(mark, "marker", "") for found in marks.values() for mark in found} - {""})


def recipients_of_run(out_dir: Path | str, *, tas=()) -> Recipients:
    """The :class:`Recipients` of the grading run that wrote ``out_dir``, from its ``grading_run.json``.

    The TAs are ``tas`` and everyone who marked the run's assignment on the
    marking page (:func:`markers_of`, from the run's course directory).
    Raises :class:`autograder.outputs.graded_run.RunRecordError` when
    ``out_dir`` holds no run.
    """
    from autograder.outputs import graded_run

    run = graded_run.load(str(out_dir))
    tas = list(tas) + [name for name in markers_of(run.course_dir, run.assignment) if name not in tas]
    identifiers: dict[str, str] = {}
    owners: dict[str, str] = {}
    for sid, person in run.people.items():
        if len(sid) >= MIN_ID_CHARS:
            identifiers[sid] = sid
        if person is not None and person.email:
            identifiers[person.email] = sid
        if person is not None and person.route is not None and person.route.lms in ("canvas", "moodle"):
            owners[person.route.name] = sid
    by_source: dict[str, set[str]] = {}
    for result in run.results:
        if result.source:
            by_source.setdefault(result.source, set()).add(result.student_id)
    groups = {sid: frozenset(members - {sid}) for members in by_source.values() for sid in members}
    return Recipients(identifiers, groups, owners, tuple(name for name in tas if name.strip()))


def _shown(path: Path, root: Path) -> str:
    """A source file's name as a finding gives it: relative to the repository when it is inside it."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


# --- reading published files ----------------------------------------------------------------

def _unescape(text: str) -> str:
    def replace(match):
        escape = match.group(1)
        if escape[0] == "u" and len(escape) == 5:
            return chr(int(escape[1:], 16))
        return _ESCAPES.get(escape, escape)
    return _ESCAPE.sub(replace, text)


def _json_strings(value, out: list[str]) -> None:
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, list):
        if value and all(isinstance(item, str) for item in value):
            out.append("".join(value))  # a notebook cell's source, one string per line
        else:
            for item in value:
                _json_strings(item, out)
    elif isinstance(value, dict):
        for key, item in value.items():
            out.append(key)
            _json_strings(item, out)


def text_views(text: str) -> list[list[str]]:
    """A file's text in every form the audit reads it, each as its normalised non-empty lines."""
    views = [text]
    if "<" in text and ">" in text:
        views.append(html.unescape(_TAG.sub("", text)))
    if "\\" in text:
        views.append(_unescape(text))
        # A string literal holding several lines (a notebook's cell in a script or a search
        # index): its first and last lines only match once its quotes are gone.
        views.extend(_unescape(match.group(2)) for match in _MULTILINE_LITERAL.finditer(text))
    stripped = text.lstrip()
    if stripped[:1] in ("{", "["):
        try:
            strings: list[str] = []
            _json_strings(json.loads(text), strings)
            views.extend(strings)
        except ValueError:
            pass
    return [[line for line in map(normalise, view.splitlines()) if line] for view in views]


def _archive_members(data: bytes):
    """``(name, bytes)`` of every member if ``data`` is a zip, tar or compressed file, else None."""
    if data[:4] == b"PK\x03\x04" or data[:4] == b"PK\x05\x06":
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                return [(info.filename, archive.read(info)) for info in archive.infolist() if not info.is_dir()]
        except (zipfile.BadZipFile, OSError, EOFError) as error:
            return [("", f"unreadable zip: {error}".encode())]
    decompress = {b"\x1f\x8b": gzip.decompress, b"BZ": bz2.decompress, b"\xfd7": lzma.decompress}.get(data[:2])
    if decompress is not None or (len(data) > 262 and data[257:262] == b"ustar"):
        inner = data
        if decompress is not None:
            try:
                inner = decompress(data)
            except (OSError, EOFError, ValueError, lzma.LZMAError):
                return None
        if len(inner) > 262 and inner[257:262] == b"ustar":
            try:
                with tarfile.open(fileobj=io.BytesIO(inner)) as archive:
                    return [(m.name, archive.extractfile(m).read()) for m in archive.getmembers() if m.isfile()]
            except (tarfile.TarError, OSError, EOFError) as error:
                return [("", f"unreadable tar: {error}".encode())]
        return [("(decompressed)", inner)]
    return None


def _pdf_text(data: bytes) -> str | None:
    """The text of a PDF as ``pdftotext`` reads it, in reading order; None when ``pdftotext`` is missing or fails."""
    program = shutil.which("pdftotext")
    if program is None:
        return None
    with tempfile.NamedTemporaryFile(suffix=".pdf") as pdf:
        pdf.write(data)
        pdf.flush()
        done = subprocess.run([program, "-enc", "UTF-8", pdf.name, "-"], capture_output=True, timeout=300)
    return done.stdout.decode("utf-8", errors="replace") if done.returncode == 0 else None


def _grade_file_text(filename: str) -> str:
    from autograder.outputs.graded_run import RUN_FILE

    if filename == RUN_FILE:
        return (f"the grading run's record for export ({RUN_FILE}): every student's results, names and emails; "
                "it stays with the instructor")
    return f"a file the grader writes ({filename}): grades or feedback"


def _is_run_record(text: str) -> bool:
    """Whether ``text`` is a grading run's record (:mod:`autograder.outputs.graded_run`), whatever its name."""
    if text.lstrip()[:1] != "{" or not all(f'"{key}"' in text for key in RUN_RECORD_KEYS):
        return False
    try:
        data = json.loads(text)
    except ValueError:
        return False
    return isinstance(data, dict) and RUN_RECORD_KEYS <= set(data)


def gradescope_visible(data: dict) -> str:
    """What students can see of a Gradescope ``results.json``, as text.

    The top-level ``output`` and each test that is not ``hidden`` (its name
    and output; a test without a visibility of its own has the top level's).
    Standard output is not in the file, and ``extra_data`` is never shown.
    """
    parts = [str(data.get("output", ""))]
    default = data.get("visibility", "visible")
    for test in data.get("tests") or []:
        if isinstance(test, dict) and test.get("visibility", default) != "hidden":
            parts += [str(test.get("name", "")), str(test.get("output", ""))]
    for row in data.get("leaderboard") or []:
        if isinstance(row, dict):
            parts.append(f"{row.get('name', '')}: {row.get('value', '')}")
    return "\n".join(parts)


def _gradescope_results(text: str) -> str | None:
    """The student-visible text of a Gradescope ``results.json``, or None when ``text`` is not one."""
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or not ("tests" in data or "score" in data):
        return None
    return gradescope_visible(data)


_NOT_READ = re.compile(r"<(style|script)\b.*?</\1\s*>", re.DOTALL | re.IGNORECASE)


def readable_texts(text: str) -> tuple[list[str], list[str]]:
    """``(texts, plain)``: a file's text as it is and with a notebook's or script's strings unescaped, and
    each of those as a person reads it (no tags, stylesheet or script; entities decoded), whitespace kept."""
    texts = [text]
    if "\\" in text:
        texts.append(_unescape(text))
    if text.lstrip()[:1] in ("{", "["):
        try:
            strings: list[str] = []
            _json_strings(json.loads(text), strings)
            texts.append("\n".join(strings))
        except ValueError:
            pass
    return texts, [html.unescape(_TAG.sub(" ", _NOT_READ.sub(" ", t))) for t in texts]


def _name_pattern(name: str) -> re.Pattern:
    """A person's name as a whole word, as it is written, with any spacing between its words.

    The case counts, so that a TA called Will or Grace is not found in
    "will" or "grace" (except at the start of a sentence)."""
    return re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, name.split())) + r"(?!\w)")


def _upload_findings(name: str, base: str, text: str, page: bool, upload: Recipients) -> list[LeakFinding]:
    """What a file uploaded for students must not show: a TA's name, another student, the grading report."""
    texts, plain = readable_texts(text)
    findings = [LeakFinding(name, f"names the TA {ta!r}, who marked: nothing a student receives says who marked it")
                for ta in upload.tas if any(_name_pattern(ta).search(t) for t in plain)]
    owner = upload.owner(base, texts)
    if owner is None:
        if page:
            findings.append(LeakFinding(name, "a grading page that is no student's feedback: the grading report "
                                              "(every student's grades) or a copy of it stays with the instructor; "
                                              "upload only the LMS's files and the feedback pages"))
        return findings
    allowed = {owner} | upload.groups.get(owner, frozenset())
    shown: dict[str, set[str]] = {}
    for t in plain:
        for word in _ID_WORD.findall(t):
            student = upload.identifiers.get(word) or upload.identifiers.get(word.rstrip(".-+@"))
            if student is not None and student not in allowed:
                shown.setdefault(student, set()).add(word.rstrip(".-+@"))
    if shown:
        listed = ", ".join(student + ("" if words == {student} else f" ({', '.join(sorted(words - {student}))})")
                           for student, words in sorted(shown.items()))
        findings.append(LeakFinding(name, f"{owner}'s feedback shows another student: {listed}"))
    return findings


def audit_bytes(name: str, data: bytes, secrets: Secrets, depth: int = 0, *,
                upload: Recipients | None = None) -> list[LeakFinding]:
    """The findings in one file (``name`` says where it is), opening archives inside it.

    With ``upload`` the file is audited as one uploaded for students
    (:func:`audit_upload`): the files an LMS takes back and each student's
    feedback are expected, a Gradescope ``results.json`` is read as students
    see it, and each feedback page is checked against the recipients.
    """
    findings: list[LeakFinding] = []
    base = name.rsplit("!", 1)[-1]
    filename = base.rsplit("/", 1)[-1]
    if data.startswith(b"SQLite format 3\x00"):
        findings.append(LeakFinding(name, "an SQLite database: the gradebook (notebooks/gradebook.db) is one"))
    expected = secrets.upload_file_names if upload is not None else frozenset()
    named = filename in secrets.grade_file_names and filename not in expected
    if named:
        findings.append(LeakFinding(name, _grade_file_text(filename)))
    if secrets.calibration_folder and secrets.calibration_folder in "/" + base:
        findings.append(LeakFinding(name, f"a saved time-limit calibration ({secrets.calibration_folder}/)"))

    members = _archive_members(data)
    if members is not None:
        if depth >= MAX_DEPTH:
            return findings + [LeakFinding(name, f"archives nested more than {MAX_DEPTH} deep: not read")]
        for member, content in members:
            findings.extend(audit_bytes(f"{name}!{member}", content, secrets, depth + 1, upload=upload))
        return findings

    text = data.decode("utf-8", errors="replace")
    if upload is not None and filename == "results.json":
        visible = _gradescope_results(text)
        text = visible if visible is not None else text
    if data.startswith(b"%PDF-"):
        typeset = _pdf_text(data)
        if typeset is None:
            findings.append(LeakFinding(name, "a PDF whose text could not be read: install pdftotext (Debian's "
                                          "poppler-utils) and audit again"))
        else:
            text = typeset + "\n" + text
    findings.extend(LeakFinding(name, f"{marker!r}, {why}")
                    for marker, why in secrets.markers.items() if marker in text)
    views = text_views(text)
    shown: dict[int, set[str]] = {}
    for view in views:
        for number, lines in secrets.matches(view).items():
            shown.setdefault(number, set()).update(lines)
    for number, lines in sorted(shown.items()):
        secret = secrets.secrets[number]
        quoted = sorted(lines, key=secret.lines.index)[:3]
        count = f"{len(lines)} of its {len(secret.lines)} distinctive lines"
        findings.append(LeakFinding(name, f"{secret.kind}: {secret.origin} ({count})", " | ".join(quoted)))

    header = next(iter(text.lstrip("\ufeff").splitlines()), "")
    if "," in header:
        try:
            columns = {cell.strip() for cell in next(csv.reader([header]), [])}
        except csv.Error:
            columns = set()
        if secrets.grade_columns and set(secrets.grade_columns[:4]) <= columns:
            findings.append(LeakFinding(name, "grades: a CSV with the columns of grades.csv", header.strip()))
        marking = {column.lower() for column in columns} & set(secrets.marking_columns)
        if len(marking) >= MARKING_COLUMNS_NEEDED and marking & {"answer", "answer_checksum", "mark_checksum"}:
            findings.append(LeakFinding(name, "a marking CSV ('python -m autograder mark --to-csv'): every "
                                              "student's written answers and marks, for TAs only", header.strip()))
    if not named and _is_run_record(text):
        from autograder.outputs.graded_run import RUN_FILE
        findings.append(LeakFinding(name, _grade_file_text(RUN_FILE)))
    # Whitespace removed: a stylesheet is found however it was indented, in a page or in a notebook's output.
    flat = ["".join(view) for view in views]
    if secrets.booklet_stylesheet and any(secrets.booklet_stylesheet in f for f in flat):
        findings.append(LeakFinding(name, "a marking booklet ('python -m autograder mark --to-csv'): every "
                                          "student's written answers with the model answers, for TAs only"))
    findings.extend(LeakFinding(name, f"{origin}: notes for markers never reach a student", line)
                    for line, origin in secrets.notes_shown(flat))
    page = bool(secrets.grading_stylesheet) and any(secrets.grading_stylesheet in f for f in flat)
    if upload is not None:
        findings.extend(_upload_findings(name, base, text, page, upload))
    elif page:
        findings.append(LeakFinding(name, "a grading report or feedback page (it carries the grading pages' "
                                          "stylesheet)"))
    return findings


def audit_upload_bytes(name: str, data: bytes, secrets: Secrets,
                       recipients: Recipients | None = None) -> list[LeakFinding]:
    """:func:`audit_bytes` of one file uploaded for ``recipients`` (default: students not known)."""
    return audit_bytes(name, data, secrets, upload=recipients if recipients is not None else Recipients())


def _audit_paths(paths, secrets: Secrets, upload: Recipients | None) -> list[LeakFinding]:
    findings: list[LeakFinding] = []
    for top in map(Path, paths):
        if not top.exists():
            raise FileNotFoundError(f"leak audit: {top} does not exist: nothing to audit there")
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file() or p.is_symlink())
        for path in files:
            shown = path.name if path == top else f"{top.name}/{path.relative_to(top).as_posix()}"
            if path.is_symlink() and not path.exists():
                findings.append(LeakFinding(shown, "a broken symbolic link: cannot be read"))
                continue
            findings.extend(audit_bytes(shown, path.read_bytes(), secrets, upload=upload))
    return findings


def audit(paths, secrets: Secrets | None = None) -> list[LeakFinding]:
    """Every finding in the files under ``paths`` (folders are walked, files read; nothing skipped)."""
    return _audit_paths(paths, secrets if secrets is not None else collect_secrets(), None)


def audit_upload(paths, secrets: Secrets | None = None, recipients: Recipients | None = None) -> list[LeakFinding]:
    """Every finding in the files under ``paths``, uploaded for students (an LMS's files, feedback pages,
    Gradescope results): besides every secret, anything of the instructor's or of another student's.

    ``recipients`` are the run's students and TAs (:func:`recipients_of_run`);
    without them no feedback page is checked for other students or TAs.
    """
    return _audit_paths(paths, secrets if secrets is not None else collect_secrets(),
                        recipients if recipients is not None else Recipients())


def _run_beside(paths) -> Path | None:
    """The folder of a grading run that holds the first of ``paths`` (the path itself, its folder or the one
    above), or None."""
    from autograder.outputs.graded_run import RUN_FILE

    for path in map(Path, paths):
        path = path.resolve()
        for folder in ([path] if path.is_dir() else []) + [path.parent, path.parent.parent]:
            if (folder / RUN_FILE).is_file():
                return folder
    return None


def main(argv=None) -> int:
    """``python -m autograder audit [--upload] PATH ...``: exit 0 when nothing was found, 1 when something was,
    2 when it cannot start."""
    from autograder.outputs.graded_run import RUN_FILE, RunRecordError

    parser = argparse.ArgumentParser(
        prog="python -m autograder audit",
        description="Read every file under each PATH (inside zips, wheels and tarballs too) and report any "
                    "solution, hidden test, hidden check, known-wrong implementation, instructor-only marker, "
                    "gradebook, calibration, grades or marking file found there. With --upload, audit files "
                    "to upload for students (an LMS's feedback files and imports, feedback pages, a Gradescope "
                    "results.json): each student's own grade is expected there, but not the grading report, "
                    "the run's record, a marking file, a TA's name or another student's id.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a folder or file that will be published "
                                                                 "(with --upload: uploaded)")
    parser.add_argument("--upload", action="store_true",
                        help="audit PATH as uploaded for students rather than published for everyone")
    parser.add_argument("--run", metavar="OUT",
                        help=f"with --upload: the folder 'grade' wrote, whose {RUN_FILE} lists the students "
                             "(default: the first PATH's folder or the one above it, when it holds one)")
    parser.add_argument("--ta", action="append", default=[], metavar="NAME",
                        help="with --upload: the name of a TA who marked, which no feedback may show "
                             "(give it once per TA)")
    args = parser.parse_args(argv)
    if (args.run or args.ta) and not args.upload:
        parser.error("--run and --ta go with --upload")
    start = time.perf_counter()
    recipients, checked = None, ""
    if args.upload:
        run = Path(args.run) if args.run else _run_beside(args.paths)
        try:
            recipients = recipients_of_run(run, tas=args.ta) if run is not None else Recipients(tas=tuple(args.ta))
        except RunRecordError as error:
            print(f"leak audit: {error}", file=sys.stderr)
            return 2
        if run is None:
            print(f"leak audit: no {RUN_FILE} beside {args.paths[0]}: feedback is not checked for other students "
                  "(give --run OUT, the folder 'grade' wrote)", file=sys.stderr)
        checked = (f"; feedback checked against the {len(recipients.students)} students of {run}" if run is not None
                   else "") + f"; {len(recipients.tas)} TA name(s) looked for"
    secrets = collect_secrets()
    if args.upload and run is not None:
        # The run's course may be another than this repository's: its gradebook holds the notes of its markers.
        from autograder.outputs import graded_run

        add_gradebook_notes(secrets, graded_run.load(str(run)).course_dir)
    try:
        findings = audit_upload(args.paths, secrets, recipients) if args.upload else audit(args.paths, secrets)
    except FileNotFoundError as error:
        print(error, file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - start
    if findings:
        print(f"leak audit: {len(findings)} secret(s) found in what would be "
              f"{'uploaded for students' if args.upload else 'published'}:", file=sys.stderr)
        for finding in findings:
            print(f"  {finding}", file=sys.stderr)
        return 1
    print(f"leak audit: nothing secret in {', '.join(args.paths)} ({elapsed:.1f} s{checked})")
    return 0
