"""The trust boundary: every byte that came from a submission or from inside a sandbox is parsed here, and only here.

A security review of the grader starts and ends in this module.  What
students control arrives in four shapes, and each has one reader that
returns a frozen, documented record (or a plain reason why there is none);
the rest of the grader only ever sees those records:

* a submitted file: :func:`read_untrusted_file` (no links followed, size
  capped whatever ``stat`` says) and :func:`parse_notebook`, which gives a
  :class:`SubmittedNotebook` of :class:`SubmittedCell` (these readers, and the
  runner's report and executed notebook's below, are defined in
  :mod:`perceptron_course.boundary`, because the student's check reads a
  notebook and its run exactly as grading does; they are imported here);
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
  probe's own schema (:func:`perceptron_course.probe.decode`);
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
import os
import re
import stat
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any

from perceptron_course import probe, protocol
from perceptron_course.boundary import (CellOutput, ExecutedCell, SubmittedCell, SubmittedNotebook, as_seconds,
                                        as_text, parse_notebook, read_executed_cells, read_runner_report,
                                        read_untrusted_file, read_untrusted_json)
from perceptron_course.protocol import RunnerReport

__all__ = ["SubmittedCell", "SubmittedNotebook", "RunnerReport", "CellOutput", "ExecutedCell", "ProbeRecord",
           "ProbeResults", "ArchiveError", "read_untrusted_file", "parse_notebook", "read_untrusted_json",
           "read_runner_report", "read_executed_cells", "read_probe_results", "safe_member_path", "extract_zip",
           "BlackboardReceipt", "GradescopeSubmission", "read_blackboard_receipt", "read_gradescope_metadata"]

IGNORED_MEMBERS = frozenset({"__MACOSX", ".DS_Store", "Thumbs.db", ".ipynb_checkpoints", "desktop.ini"})
LINK_PLACEHOLDER = "(a link in the zip file; never followed)"
MAX_MEMBER_DEPTH = 8  # folders inside a zip member's path
MAX_RECEIPT_BYTES = 256 * 2**10
MAX_METADATA_BYTES = 16 * 2**20


# -- the hidden tests' results ----------------------------------------------------------------

@dataclass(frozen=True)
class ProbeRecord:
    """What one call of a student's function gave.

    ``status`` is ``"returned"`` (``value`` is the decoded value, possibly an
    :class:`~perceptron_course.probe.Opaque` marker), ``"raised"`` (``exception``,
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
    common = {"mutated": record.get("mutated") is True, "seconds": as_seconds(record.get("seconds")) or 0.0}
    if status == "returned":
        return ProbeRecord(status, value=probe.decode(record.get("value"), arrays), **common)
    if status == "raised":
        return ProbeRecord(status, exception=as_text(record.get("exception"))[:100] or "an exception",
                           detail=as_text(record.get("detail"))[:probe.MAX_STRING], **common)
    return ProbeRecord(status, **common)


def read_probe_results(directory, max_bytes, probe_ids=None):
    """The :class:`ProbeResults` in ``directory`` (:data:`~perceptron_course.protocol.RESULTS_FILE` and its arrays).

    Missing, oversized or malformed files give empty results: every hidden
    test then fails as not reached.  Only ids in ``probe_ids`` (when given)
    are kept, and arrays are loaded without pickles, after checking the
    sizes the archive declares against ``max_bytes`` (and reading is capped
    by the real sizes, not the declared ones).
    """
    records = read_untrusted_json(os.path.join(directory, protocol.RESULTS_FILE), max_bytes)
    if not isinstance(records, dict):
        return ProbeResults()
    arrays = _load_arrays(os.path.join(directory, protocol.RESULT_ARRAYS_FILE), max_bytes)
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
