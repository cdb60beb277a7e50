"""The trust boundary: every byte that came from a submission or from inside a sandbox is parsed here, and only here.

A security review of the grader starts and ends in this module.  What
students control arrives in four shapes, and each has one reader that
returns a frozen, documented record (or a plain reason why there is none);
the rest of the grader only ever sees those records:

* a submitted file: :func:`read_untrusted_file` (no links followed, size
  capped whatever ``stat`` says) and :func:`parse_notebook`, which gives a
  :class:`SubmittedNotebook` of :class:`SubmittedCell`;
* a ``.zip`` of submissions: :func:`safe_member_path` and
  :func:`extract_zip` (no absolute or escaping paths, no links, members and
  bytes capped while reading, not as declared);
* the runner's report from inside the sandbox: :func:`read_runner_report`
  gives a :class:`RunnerReport`, whose cell numbers are checked against the
  notebook that ran;
* the executed notebook and the hidden tests' results from inside the
  sandbox: :func:`read_executed_cells` gives one :class:`ExecutedCell` per
  cell (outputs reduced to plain text, PNG and JPEG, size-capped), and
  :func:`read_probe_results` gives :class:`ProbeResults`, decoded with the
  probe's own schema (:func:`autograder.probe.decode`);
* the files an LMS adds to its download, which carry names students chose:
  :func:`read_blackboard_receipt` gives a :class:`BlackboardReceipt` and
  :func:`read_gradescope_metadata` a :class:`GradescopeSubmission` per
  submission folder.

Every reader is total: malformed, truncated, oversized, deeply nested,
wrongly typed or lying input gives an empty or explicit record, never an
exception, and text is returned as valid Unicode (lone surrogates, which
JSON allows and UTF-8 does not, are replaced).
"""

import datetime
import json
import os
import re
import stat
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any

from . import probe

__all__ = ["SubmittedCell", "SubmittedNotebook", "RunnerReport", "CellOutput", "ExecutedCell", "ProbeRecord",
           "ProbeResults", "ArchiveError", "read_untrusted_file", "parse_notebook", "read_untrusted_json",
           "read_runner_report", "read_executed_cells", "read_probe_results", "safe_member_path", "extract_zip",
           "BlackboardReceipt", "GradescopeSubmission", "read_blackboard_receipt", "read_gradescope_metadata"]

CELL_KINDS = ("code", "markdown", "raw")
CELL_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
IGNORED_MEMBERS = frozenset({"__MACOSX", ".DS_Store", "Thumbs.db", ".ipynb_checkpoints", "desktop.ini"})
LINK_PLACEHOLDER = "(a link in the zip file; never followed)"
MAX_MEMBER_DEPTH = 8  # folders inside a zip member's path
IMAGE_MIME = ("image/png", "image/jpeg")
ALLOWED_MIME = ("text/plain",) + IMAGE_MIME
MAX_OUTPUTS_PER_CELL = 50
MAX_TRACEBACK_LINES = 100
MAX_ENAME = 200
MAX_EVALUE = 2000
MAX_CELLS_LISTED = 20  # cell numbers kept from one list of the runner's report
MAX_PROCESS_NAME = 40
MAX_PROCESSES_LISTED = 1000
MAX_RECEIPT_BYTES = 256 * 2**10
MAX_METADATA_BYTES = 16 * 2**20


def _text(value):
    """``value`` as valid Unicode if it is a string (or a list of strings, as notebooks store text), else ``""``."""
    if isinstance(value, list):
        value = "".join(v for v in value if isinstance(v, str))
    if not isinstance(value, str):
        return ""
    try:
        value.encode("utf-8")
        return value
    except UnicodeEncodeError:
        return value.encode("utf-8", "replace").decode("utf-8")


# -- files ---------------------------------------------------------------------------

def read_untrusted_file(path, max_bytes):
    """Read a file a student or a sandbox could have written; ``(data, None)`` or ``(None, reason)``.

    Never follows a symbolic link, refuses anything but a regular file, and
    reads at most ``max_bytes + 1`` bytes whatever the file's size claims.
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        if os.path.islink(path):
            return None, "it is a symbolic link, not a regular file"
        return None, f"the file cannot be read ({exc.strerror})"
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None, "it is not a regular file"
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, max_bytes + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        return None, f"the file cannot be read ({exc.strerror})"
    finally:
        os.close(fd)
    if not data:
        return None, "the file is empty"
    if len(data) > max_bytes:
        return None, f"the file is too large (more than {max_bytes:,} bytes)"
    return data, None


def read_untrusted_json(path, max_bytes):
    """The JSON value in a file written inside a sandbox, or ``None`` when it is missing, too large or not JSON."""
    data, problem = read_untrusted_file(path, max_bytes)
    if problem:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


# -- the submitted notebook --------------------------------------------------------------

@dataclass(frozen=True)
class SubmittedCell:
    """One cell of a submitted notebook, as plain data.

    ``kind`` is ``"code"``, ``"markdown"`` or ``"raw"``; ``source`` the cell's
    text; ``cell_id`` its notebook id when that is a valid one, else ``None``;
    ``nbgrader`` the cell's nbgrader metadata as sorted ``(key, value)`` pairs,
    keeping only values that are strings, numbers, booleans or null.
    """

    kind: str
    source: str
    cell_id: Any = None
    nbgrader: tuple = ()

    def nbgrader_value(self, key, default=None):
        return dict(self.nbgrader).get(key, default)

    @property
    def grade_id(self):
        """The nbgrader cell id, or ``None`` when there is none or it is not a non-empty string."""
        gid = self.nbgrader_value("grade_id")
        return gid if isinstance(gid, str) and gid else None


@dataclass(frozen=True)
class SubmittedNotebook:
    """The cells of a submitted notebook that have a known type, in order."""

    cells: tuple = ()


def _submitted_cell(cell):
    if not isinstance(cell, dict) or cell.get("cell_type") not in CELL_KINDS:
        return None
    metadata = cell.get("metadata")
    meta = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    pairs = ()
    if isinstance(meta, dict):
        pairs = tuple(sorted((_text(k), v if not isinstance(v, str) else _text(v)) for k, v in meta.items()
                             if isinstance(k, str) and (v is None or isinstance(v, (str, bool, int, float)))))
    cell_id = cell.get("id")
    return SubmittedCell(kind=cell["cell_type"], source=_text(cell.get("source", "")),
                         cell_id=cell_id if isinstance(cell_id, str) and CELL_ID.fullmatch(cell_id) else None,
                         nbgrader=pairs)


def parse_notebook(data):
    """A submitted notebook from its bytes: ``(SubmittedNotebook, None)`` or ``(None, reason)``.

    The reason is a sentence for the student ("the file is not valid JSON
    ...").  Version 3 notebooks are converted by nbformat; cells that are
    not objects or have no known type are left out.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None, "the file is not text (not a notebook file)"
    try:
        nb = json.loads(text)
    except RecursionError:
        return None, "the file is JSON nested too deeply to be a notebook"
    except ValueError:
        return None, "the file is not valid JSON, so it is not a Jupyter notebook (was it saved from Jupyter?)"
    if not isinstance(nb, dict):
        return None, "the file is JSON but not a Jupyter notebook"
    if "worksheets" in nb and "cells" not in nb:
        import nbformat

        try:
            nb = json.loads(nbformat.writes(nbformat.reads(text, as_version=4)))
        except Exception:  # nbformat raises many kinds of errors on malformed old notebooks
            return None, "the file is an old-format notebook that cannot be converted"
    if not isinstance(nb.get("cells"), list) or nb.get("nbformat") not in (4, None):
        return None, "the file is JSON but not a Jupyter notebook (it has no list of cells)"
    if not any(isinstance(c, dict) for c in nb["cells"]):
        return None, "the notebook has no cells"
    cells = tuple(c for c in (_submitted_cell(cell) for cell in nb["cells"]) if c is not None)
    return SubmittedNotebook(cells=cells), None


# -- what comes back from the sandbox ------------------------------------------------------

@dataclass(frozen=True)
class RunnerReport:
    """What the runner inside the sandbox says happened; it only adds detail, never decides a status.

    Cell numbers count every cell of the notebook that ran, from 0, and are
    checked against it.  ``cell_seconds`` maps a cell number to the seconds
    it took (kept for calibrating time limits from the instructor's solution).
    """

    stopped_at_cell: Any = None
    interrupted_cells: tuple = ()
    truncated_cells: tuple = ()
    processes_left: tuple = ()
    probes_ran: bool = False
    probe_error: Any = None
    cell_seconds: tuple = ()  # (cell number, seconds)
    probe_seconds: float = 0.0
    finished: bool = False  # the runner got to its end (it writes this last)


def _seconds(value):
    return float(value) if type(value) in (int, float) and 0 <= value < 1e7 else None


def read_runner_report(path, n_cells, max_bytes):
    """The :class:`RunnerReport` in ``path``; an empty one when it is missing or malformed."""
    report = read_untrusted_json(path, max_bytes)
    if not isinstance(report, dict):
        return RunnerReport()

    def cells(key):
        value = report.get(key)
        if not isinstance(value, list):
            return ()
        return tuple(sorted({i for i in value if type(i) is int and 0 <= i < n_cells})[:MAX_CELLS_LISTED])

    stopped = report.get("stopped_at_cell")
    left = report.get("processes_left")
    error = report.get("probe_error")
    timings = report.get("cell_seconds")
    cell_seconds = ()
    if isinstance(timings, dict):
        cell_seconds = tuple(sorted((int(k), s) for k, s in
                                    ((k, _seconds(v)) for k, v in list(timings.items())[:n_cells])
                                    if isinstance(k, str) and k.isdigit() and len(k) < 7 and int(k) < n_cells
                                    and s is not None))
    return RunnerReport(
        stopped_at_cell=stopped if type(stopped) is int and 0 <= stopped < n_cells else None,
        interrupted_cells=cells("interrupted_cells"),
        truncated_cells=cells("truncated_cells"),
        processes_left=tuple(_text(n)[:MAX_PROCESS_NAME] for n in left[:MAX_PROCESSES_LISTED] if isinstance(n, str))
        if isinstance(left, list) else (),
        probes_ran=report.get("probes_ran") is True,
        probe_error=_text(error)[:100] if isinstance(error, str) else None,
        cell_seconds=cell_seconds,
        probe_seconds=_seconds(report.get("probe_seconds")) or 0.0,
        finished=report.get("finished") is True,
    )


@dataclass(frozen=True)
class CellOutput:
    """One output of an executed cell, reduced to harmless, size-capped content.

    ``output_type`` is ``stream`` (``name``, ``text``), ``error`` (``ename``,
    ``evalue``, ``traceback``), or ``display_data`` / ``execute_result``
    (``data``: ``(mime type, text)`` pairs of plain text, PNG or JPEG only;
    ``execution_count``).
    """

    output_type: str
    name: str = ""
    text: str = ""
    ename: str = ""
    evalue: str = ""
    traceback: tuple = ()
    data: tuple = ()
    execution_count: Any = None

    def as_dict(self):
        """The output as nbformat's JSON structure."""
        if self.output_type == "stream":
            return {"output_type": "stream", "name": self.name, "text": self.text}
        if self.output_type == "error":
            return {"output_type": "error", "ename": self.ename, "evalue": self.evalue,
                    "traceback": list(self.traceback)}
        out = {"output_type": self.output_type, "data": dict(self.data), "metadata": {}}
        if self.output_type == "execute_result":
            out["execution_count"] = self.execution_count
        return out

    def size(self):
        return len(json.dumps(self.as_dict()))


@dataclass(frozen=True)
class ExecutedCell:
    """What a code cell printed and displayed when it ran: its execution count and outputs."""

    execution_count: Any = None
    outputs: tuple = ()


def _clean_output(output, max_chars):
    """A :class:`CellOutput` of one executed output, or ``None`` when nothing of it is kept."""
    if not isinstance(output, dict):
        return None
    kind = output.get("output_type")
    if kind == "stream":
        name = output.get("name") if output.get("name") in ("stdout", "stderr") else "stdout"
        return CellOutput("stream", name=name, text=_text(output.get("text"))[:max_chars])
    if kind == "error":
        tb = output.get("traceback")
        tb = tuple(_text(line)[:max_chars] for line in tb[:MAX_TRACEBACK_LINES]) if isinstance(tb, list) else ()
        return CellOutput("error", ename=_text(output.get("ename"))[:MAX_ENAME],
                          evalue=_text(output.get("evalue"))[:MAX_EVALUE], traceback=tb)
    if kind in ("display_data", "execute_result"):
        data = output.get("data") if isinstance(output.get("data"), dict) else {}
        kept = []
        for mime in ALLOWED_MIME:
            value = _text(data.get(mime))[:max_chars]
            if mime in IMAGE_MIME:
                value = "".join(value.split())
                if not re.fullmatch(r"[A-Za-z0-9+/=]*", value):
                    continue
            if value:
                kept.append((mime, value))
        if not kept:
            return None
        count = output.get("execution_count")
        return CellOutput(kind, data=tuple(kept),
                          execution_count=count if type(count) is int and kind == "execute_result" else None)
    return None


def read_executed_cells(path, cell_kinds, *, max_bytes, cell_output_chars, total_output_chars):
    """One :class:`ExecutedCell` (or ``None``) per cell of the notebook that ran, from the executed notebook.

    ``cell_kinds`` lists the kinds of the cells that were run, in order; an
    executed notebook whose cells do not match them in number is ignored
    (every entry ``None``), and so are entries for cells that were not code.
    Output is kept in order up to ``cell_output_chars`` per output and
    ``total_output_chars`` for the whole notebook.
    """
    executed = read_untrusted_json(path, max_bytes)
    cells = executed.get("cells") if isinstance(executed, dict) else None
    if not isinstance(cells, list) or len(cells) != len(cell_kinds):
        return (None,) * len(cell_kinds)
    budget = total_output_chars
    found = []
    for kind, ran in zip(cell_kinds, cells):
        if kind != "code" or not isinstance(ran, dict) or ran.get("cell_type") != "code":
            found.append(None)
            continue
        outputs = ran.get("outputs") if isinstance(ran.get("outputs"), list) else []
        kept = []
        for output in outputs[:MAX_OUTPUTS_PER_CELL]:
            cleaned = _clean_output(output, min(cell_output_chars, max(budget, 0)))
            if cleaned is None:
                continue
            budget -= cleaned.size()
            if budget < 0:
                break
            kept.append(cleaned)
        count = ran.get("execution_count")
        found.append(ExecutedCell(execution_count=count if type(count) is int else None, outputs=tuple(kept)))
    return tuple(found)


# -- the hidden tests' results ----------------------------------------------------------------

@dataclass(frozen=True)
class ProbeRecord:
    """What one call of a student's function gave.

    ``status`` is ``"returned"`` (``value`` is the decoded value, possibly an
    :class:`~autograder.probe.Opaque` marker), ``"raised"`` (``exception``,
    the exception's type name, and ``detail``, its message), ``"timeout"``,
    ``"missing"`` (no such function) or ``"malformed"`` (the record did not
    follow the schema).  ``mutated`` says whether the call changed its inputs;
    ``seconds`` how long it took, as the sandbox measured it (for calibrating
    time limits from the instructor's solution, never for a verdict).
    """

    status: str
    value: Any = None
    exception: str = ""
    detail: str = ""
    mutated: bool = False
    seconds: float = 0.0


@dataclass(frozen=True)
class ProbeResults:
    """Every probe's :class:`ProbeRecord`, by probe id; a probe without a record was never reached."""

    records: tuple = ()  # (probe id, ProbeRecord), sorted by id
    _index: dict = field(default=None, init=False, repr=False, compare=False)

    def get(self, probe_id):
        if self._index is None:
            object.__setattr__(self, "_index", dict(self.records))
        return self._index.get(probe_id)

    def __len__(self):
        return len(self.records)


def _probe_record(record, arrays):
    if not isinstance(record, dict) or record.get("status") not in probe.STATUSES:
        return ProbeRecord("malformed")
    status = record["status"]
    common = {"mutated": record.get("mutated") is True, "seconds": _seconds(record.get("seconds")) or 0.0}
    if status == "returned":
        return ProbeRecord(status, value=probe.decode(record.get("value"), arrays), **common)
    if status == "raised":
        return ProbeRecord(status, exception=_text(record.get("exception"))[:100] or "an exception",
                           detail=_text(record.get("detail"))[:probe.MAX_STRING], **common)
    return ProbeRecord(status, **common)


def read_probe_results(directory, max_bytes, probe_ids=None):
    """The :class:`ProbeResults` in ``directory`` (``results.json`` and ``results.npz``).

    Missing, oversized or malformed files give empty results: every hidden
    test then fails as not reached.  Only ids in ``probe_ids`` (when given)
    are kept, and arrays are loaded without pickles, after checking the
    sizes the archive declares against ``max_bytes`` (and reading is capped
    by the real sizes, not the declared ones).
    """
    records = read_untrusted_json(os.path.join(directory, "results.json"), max_bytes)
    if not isinstance(records, dict):
        return ProbeResults()
    arrays = _load_arrays(os.path.join(directory, "results.npz"), max_bytes)
    if arrays is None:
        return ProbeResults()
    kept = sorted((pid, _probe_record(rec, arrays)) for pid, rec in records.items()
                  if isinstance(pid, str) and (probe_ids is None or pid in probe_ids))
    return ProbeResults(records=tuple(kept))


def _load_arrays(path, max_bytes):
    """The numeric arrays of an ``.npz`` file written in the sandbox, or ``None`` if it is unusable."""
    import numpy as np

    data, problem = read_untrusted_file(path, max_bytes)
    if problem:
        return None
    import io

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            if len(members) > probe.MAX_ITEMS * 10 or sum(m.file_size for m in members) > max_bytes:
                return None
            arrays = {}
            for member in members:
                name = member.filename
                if not name.endswith(".npy"):
                    continue
                raw = _read_member(archive, member, max_bytes)
                if raw is None:
                    return None
                array = np.lib.format.read_array(io.BytesIO(raw), allow_pickle=False)
                if array.dtype.kind in probe.NUMERIC_DTYPE_KINDS:
                    arrays[name[:-4]] = array
            return arrays
    except (OSError, ValueError, EOFError, RecursionError, MemoryError, zipfile.BadZipFile, zlib.error,
            NotImplementedError, RuntimeError, KeyError, TypeError, OverflowError):
        return None


def _read_member(archive, member, max_bytes):
    with archive.open(member) as src:
        raw = src.read(max_bytes + 1)
    return raw if len(raw) <= max_bytes else None


# -- a .zip of submissions -------------------------------------------------------------------

class ArchiveError(ValueError):
    """The archive as a whole cannot be used (not a zip, too many members, expands too far)."""


def safe_member_path(name):
    """The parts of a zip member's path, or ``None`` for an absolute, escaping, empty or too deep one."""
    if not isinstance(name, str):
        return None
    name = name.replace("\\", "/")
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or "\x00" in name:
        return None
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts) or len(parts) > MAX_MEMBER_DEPTH:
        return None
    return parts


def extract_zip(archive, target, *, max_member_bytes, max_members, max_total_bytes):
    """Extract ``archive`` into the empty folder ``target``, member by member, with every check.

    Members with unsafe paths or named like operating-system clutter
    (``__MACOSX`` ...) are left out; a link member becomes a link to a
    placeholder (reported as a link, never followed); a member larger than
    ``max_member_bytes`` is cut just past that size, so it is reported as too
    large.  Returns ``{path: reason}`` for members that could not be
    extracted; raises :class:`ArchiveError` when the archive as a whole is
    unusable.
    """
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ArchiveError(f"{archive} is not a readable zip file ({exc}); "
                           "pass the folder of submissions or the zip as downloaded") from None
    total = 0
    problems = {}
    with zf:
        members = zf.infolist()
        if len(members) > max_members:
            raise ArchiveError(f"{archive} has {len(members):,} members; at most {max_members:,} are accepted")
        for info in members:
            parts = safe_member_path(info.filename)
            if parts is None or parts[0] in IGNORED_MEMBERS:
                continue
            dest = os.path.join(target, *parts)
            try:
                total = _extract_member(zf, info, dest, target, total, archive=archive,
                                        max_member_bytes=max_member_bytes, max_total_bytes=max_total_bytes)
            except (RuntimeError, NotImplementedError, zipfile.BadZipFile, zlib.error, EOFError, ValueError,
                    OSError) as exc:
                if isinstance(exc, ArchiveError):
                    raise
                # Encrypted, corrupt, oddly compressed, or a name this file system refuses
                # (longer than it allows, say): this member alone is unusable.
                reason = (exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc))[:100]
                problems[dest] = f"it could not be extracted from the zip file ({reason or type(exc).__name__})"
    return problems


def _extract_member(zf, info, dest, target, total, *, archive, max_member_bytes, max_total_bytes):
    """Extract one member to ``dest``; return the archive's running total of extracted bytes."""
    mode = info.external_attr >> 16
    if info.is_dir():
        _make_dirs(dest, target)
        return total
    if not _make_dirs(os.path.dirname(dest), target) or os.path.lexists(dest):
        return total
    if stat.S_ISLNK(mode):
        os.symlink(LINK_PLACEHOLDER, dest)
        return total
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    with zf.open(info) as src, os.fdopen(os.open(dest, flags, 0o600), "wb") as out:
        written = 0
        while True:
            chunk = src.read(1 << 20)
            if not chunk:
                break
            written += len(chunk)
            total += len(chunk)
            if total > max_total_bytes:
                raise ArchiveError(f"{archive} expands to more than {max_total_bytes:,} bytes; "
                                   "refusing to extract it")
            if written > max_member_bytes:
                out.write(chunk[: max(0, max_member_bytes + 1 - (written - len(chunk)))])
                break
            out.write(chunk)
    return total


def _make_dirs(folder, root):
    """Create ``folder`` under ``root`` unless a non-folder (a file or link) is in the way; return whether it exists."""
    rel = os.path.relpath(folder, root)
    current = root
    for part in ([] if rel == "." else rel.split(os.sep)):
        current = os.path.join(current, part)
        if os.path.islink(current) or (os.path.lexists(current) and not os.path.isdir(current)):
            return False
        if not os.path.exists(current):
            os.mkdir(current)
    return True


# -- the files an LMS adds to its download --------------------------------------------------

@dataclass(frozen=True)
class BlackboardReceipt:
    """What a Blackboard receipt says about one attempt.

    ``name`` and ``username`` of the student, ``submitted`` the date as the
    receipt writes it (its format follows the server's locale), and ``files``
    the ``(stored name, original name)`` pairs of the attempt's files.
    """

    name: str = ""
    username: str = ""
    submitted: str = ""
    files: tuple = ()

    def original_name(self, stored):
        """The name the student gave the file stored as ``stored``, or ``None``."""
        return dict(self.files).get(stored)


@dataclass(frozen=True)
class GradescopeSubmission:
    """One submission of Gradescope's ``submission_metadata.yml``.

    ``submitters`` are ``(name, sid, email)`` text triples (a group has
    several); ``created_at`` a :class:`datetime.datetime`, or ``None`` when the
    file gives no readable time.
    """

    submitters: tuple = ()
    created_at: Any = None


def read_blackboard_receipt(path):
    """The :class:`BlackboardReceipt` of a receipt file, or ``None`` when it cannot be read.

    A receipt is plain text: ``Name: Ada Lovelace (alovelace)``,
    ``Assignment: ...``, ``Date Submitted: ...``, and under ``Files:`` pairs
    of ``Original filename: ...`` and ``Filename: ...`` lines.
    """
    data, _ = read_untrusted_file(path, MAX_RECEIPT_BYTES)
    if data is None:
        return None
    text = data.decode("utf-8-sig", errors="replace")
    info = {"name": "", "username": "", "submitted": ""}
    files = {}
    original = None
    for raw in text.splitlines():
        line = raw.strip()
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip().lower(), value.strip()
        if key == "name" and not info["name"]:
            match = re.match(r"^(?P<name>.*?)\s*\((?P<user>[^()]+)\)\s*$", value)
            info["name"], info["username"] = (match["name"], match["user"]) if match else (value, "")
        elif key == "date submitted":
            info["submitted"] = value
        elif key == "original filename":
            original = value
        elif key == "filename" and original is not None:
            files[value] = original
            original = None
    return BlackboardReceipt(files=tuple(files.items()), **info)


class _TolerantLoader:
    """A YAML safe loader that reads Ruby-tagged values (``!ruby/object:...``) as plain data."""

    loader = None

    @classmethod
    def get(cls):
        if cls.loader is None:
            import yaml

            class Loader(yaml.SafeLoader):
                pass

            def untagged(loader, suffix, node):
                if isinstance(node, yaml.MappingNode):
                    return loader.construct_mapping(node, deep=True)
                if isinstance(node, yaml.SequenceNode):
                    return loader.construct_sequence(node, deep=True)
                return loader.construct_scalar(node)

            Loader.add_multi_constructor("!", untagged)
            Loader.add_multi_constructor("tag:yaml.org,2002:", untagged)
            cls.loader = Loader
        return cls.loader


def _key(mapping, name):
    """A value of a Gradescope mapping whose keys are Ruby symbols (``:name``) or plain strings."""
    if not isinstance(mapping, dict):
        return None
    for key in (f":{name}", name):
        if key in mapping:
            return mapping[key]
    return None


def _scalar_text(value):
    """A name, id or email from the metadata as text; anything but a plain scalar (an alias bomb ...) is ignored."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return ""
    return str(value).strip()[:200]


def _as_time(value):
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, str):
        text = value.strip()
        match = re.match(r"^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?$", text)
        if match:
            zone = match[4] or ""
            if zone and zone != "Z" and ":" not in zone:
                zone = zone[:3] + ":" + zone[3:]
            fraction = (match[3] or "")[:7]
            try:
                return datetime.datetime.fromisoformat(f"{match[1]}T{match[2]}{fraction}{zone.replace('Z', '+00:00')}")
            except ValueError:
                return None
    return None


def read_gradescope_metadata(path):
    """``({folder name: GradescopeSubmission}, problem)``; ``problem`` is ``None`` or why nothing could be read."""
    data, problem = read_untrusted_file(path, MAX_METADATA_BYTES)
    if data is None:
        return {}, problem
    import yaml

    try:
        document = yaml.load(data.decode("utf-8", errors="replace"), Loader=_TolerantLoader.get())  # noqa: S506 (safe loader subclass)
    except (yaml.YAMLError, RecursionError) as exc:
        return {}, f"it is not valid YAML ({str(exc).splitlines()[0][:100]})"
    if not isinstance(document, dict):
        return {}, "it does not map submission folders to their submitters"
    found = {}
    for folder, record in document.items():
        if not isinstance(folder, str) or not isinstance(record, dict):
            continue
        submitters = []
        people = _key(record, "submitters")
        for person in people[:100] if isinstance(people, list) else []:
            if isinstance(person, dict):
                submitters.append(tuple(_scalar_text(_key(person, k)) for k in ("name", "sid", "email")))
        found[folder] = GradescopeSubmission(submitters=tuple(submitters),
                                             created_at=_as_time(_key(record, "created_at")))
    return found, None
