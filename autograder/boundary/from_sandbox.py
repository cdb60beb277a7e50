"""What comes back from the sandbox: the runner's report, the executed notebook and the hidden tests' results.

The runner (:mod:`perceptron_course.runner`) writes these files into the
run's output folder, in the same process as the student's code, which can
overwrite any of them; :mod:`perceptron_course.protocol` names them and gives
their formats.  Each has one reader, and every reader is total:

* the report: :func:`read_runner_report` gives a
  :class:`~perceptron_course.protocol.RunnerReport`, whose cell numbers are
  checked against the notebook that ran;
* the executed notebook: :func:`read_executed_cells` gives one
  :class:`ExecutedCell` per cell, of :class:`CellOutput` (outputs reduced
  to plain text, PNG and JPEG, size-capped);
* the hidden tests' results: :func:`read_probe_results` gives
  :class:`ProbeResults`, decoded with the probe's own schema
  (:func:`perceptron_course.probe.decode`).

The first two readers and their records are defined in
:mod:`perceptron_course.boundary` (the report's record in
:mod:`perceptron_course.protocol`), because the student's check reads its
run exactly as grading does; they are imported here.
"""

import io
import os
import zipfile
import zlib
from dataclasses import dataclass, field
from typing import Any

from perceptron_course import probe, protocol
from perceptron_course.boundary import (CellOutput, ExecutedCell, as_seconds, as_text, read_executed_cells,
                                        read_runner_report, read_untrusted_file, read_untrusted_json)

__all__ = ["read_runner_report", "read_executed_cells", "ExecutedCell", "CellOutput", "ProbeRecord", "ProbeResults",
           "read_probe_results"]


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
