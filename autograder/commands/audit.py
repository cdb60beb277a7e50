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
  (``grades.csv``, the LMS import and feedback files), a CSV with the
  grades' columns, or a page with the grading report's stylesheet.

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

__all__ = ["MIN_LINE_CHARS", "MARKERS", "Secret", "LeakFinding", "Secrets", "collect_secrets", "audit",
           "audit_bytes", "main"]

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
    # Instructor-only text -> what it shows (MARKERS).
    markers: dict[str, str] = field(default_factory=lambda: dict(MARKERS))
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
    secrets.grade_file_names = frozenset(
        {"grades.csv", "gradebook.db", exports.CANVAS_FILE, exports.MOODLE_FILE}
        | {name for names in lms_feedback.FILES.values() for name in names})
    secrets.grade_columns = tuple(outputs.GRADES_COLUMNS)
    secrets.grading_stylesheet = normalise(report.CSS)
    secrets.calibration_folder = calibrate.SAVED_FOLDER.replace(os.sep, "/")
    return secrets


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


def audit_bytes(name: str, data: bytes, secrets: Secrets, depth: int = 0) -> list[LeakFinding]:
    """The findings in one file (``name`` says where it is), opening archives inside it."""
    findings: list[LeakFinding] = []
    base = name.rsplit("!", 1)[-1]
    filename = base.rsplit("/", 1)[-1]
    if data.startswith(b"SQLite format 3\x00"):
        findings.append(LeakFinding(name, "an SQLite database: the gradebook (notebooks/gradebook.db) is one"))
    if filename in secrets.grade_file_names:
        findings.append(LeakFinding(name, f"a file the grader writes ({filename}): grades or feedback"))
    if secrets.calibration_folder and secrets.calibration_folder in "/" + base:
        findings.append(LeakFinding(name, f"a saved time-limit calibration ({secrets.calibration_folder}/)"))

    members = _archive_members(data)
    if members is not None:
        if depth >= MAX_DEPTH:
            return findings + [LeakFinding(name, f"archives nested more than {MAX_DEPTH} deep: not read")]
        for member, content in members:
            findings.extend(audit_bytes(f"{name}!{member}", content, secrets, depth + 1))
        return findings

    text = data.decode("utf-8", errors="replace")
    if data.startswith(b"%PDF-"):
        typeset = _pdf_text(data)
        if typeset is None:
            findings.append(LeakFinding(name, "a PDF whose text could not be read: install pdftotext (Debian's "
                                          "poppler-utils) and audit again"))
        else:
            text = typeset + "\n" + text
    findings.extend(LeakFinding(name, f"{marker!r}, {why}")
                    for marker, why in secrets.markers.items() if marker in text)
    shown: dict[int, set[str]] = {}
    for view in text_views(text):
        for number, lines in secrets.matches(view).items():
            shown.setdefault(number, set()).update(lines)
    for number, lines in sorted(shown.items()):
        secret = secrets.secrets[number]
        quoted = sorted(lines, key=secret.lines.index)[:3]
        count = f"{len(lines)} of its {len(secret.lines)} distinctive lines"
        findings.append(LeakFinding(name, f"{secret.kind}: {secret.origin} ({count})", " | ".join(quoted)))

    header = next(iter(text.lstrip("\ufeff").splitlines()), "")
    if secrets.grade_columns and "," in header:
        try:
            columns = {cell.strip() for cell in next(csv.reader([header]), [])}
        except csv.Error:
            columns = set()
        if set(secrets.grade_columns[:4]) <= columns:
            findings.append(LeakFinding(name, "grades: a CSV with the columns of grades.csv", header.strip()))
    if secrets.grading_stylesheet and secrets.grading_stylesheet in normalise(text):
        findings.append(LeakFinding(name, "a grading report or feedback page (it carries the grading pages' "
                                          "stylesheet)"))
    return findings


def audit(paths, secrets: Secrets | None = None) -> list[LeakFinding]:
    """Every finding in the files under ``paths`` (folders are walked, files read; nothing skipped)."""
    secrets = secrets if secrets is not None else collect_secrets()
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
            findings.extend(audit_bytes(shown, path.read_bytes(), secrets))
    return findings


def main(argv=None) -> int:
    """``python -m autograder audit PATH ...``: exit 0 when nothing secret was found, 1 when something was."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder audit",
        description="Read every file under each PATH (inside zips, wheels and tarballs too) and report any "
                    "solution, hidden test, hidden check, known-wrong implementation, instructor-only marker, "
                    "gradebook, calibration or grades found there.")
    parser.add_argument("paths", nargs="+", metavar="PATH", help="a folder or file that will be published")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        findings = audit(args.paths)
    except FileNotFoundError as error:
        print(error, file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - start
    if findings:
        print(f"leak audit: {len(findings)} secret(s) found in what would be published:", file=sys.stderr)
        for finding in findings:
            print(f"  {finding}", file=sys.stderr)
        return 1
    print(f"leak audit: nothing secret in {', '.join(args.paths)} ({elapsed:.1f} s)")
    return 0
