"""The student's side of the trust boundary: a notebook file, and what running it leaves behind.

The grader parses everything that came from a submission or from inside a
sandbox in one package, :mod:`autograder.boundary`; the readers the student's
check needs too live here, and that package imports them, so both read a
notebook and a run in exactly the same way:

* a submitted file: :func:`read_untrusted_file` (no links followed, size
  capped whatever ``stat`` says) and :func:`parse_notebook`, which gives a
  :class:`SubmittedNotebook` of :class:`SubmittedCell`;
* the runner's report (:data:`perceptron_course.protocol.REPORT_FILE`):
  :func:`read_runner_report` gives a
  :class:`~perceptron_course.protocol.RunnerReport`, whose cell numbers are
  checked against the notebook that ran;
* the executed notebook (:data:`perceptron_course.protocol.EXECUTED_NOTEBOOK_FILE`):
  :func:`read_executed_cells` gives one :class:`ExecutedCell` per cell
  (outputs reduced to plain text, PNG and JPEG, size-capped).

Every reader is total: malformed, truncated, oversized, deeply nested,
wrongly typed or lying input gives an empty or explicit record, never an
exception, and text is returned as valid Unicode (lone surrogates, which
JSON allows and UTF-8 does not, are replaced).
"""

import json
import os
import re
import stat
from dataclasses import dataclass
from typing import Any

from . import protocol
from .cells import nbgrader_metadata
from .protocol import RunnerReport

__all__ = ["SubmittedCell", "SubmittedNotebook", "CellOutput", "ExecutedCell", "read_untrusted_file",
           "parse_notebook", "read_untrusted_json", "read_runner_report", "read_executed_cells", "as_text",
           "as_seconds"]

CELL_KINDS = ("code", "markdown", "raw")
CELL_ID = re.compile(r"[a-zA-Z0-9_-]{1,64}")
IMAGE_MIME = ("image/png", "image/jpeg")
ALLOWED_MIME = ("text/plain",) + IMAGE_MIME
MAX_OUTPUTS_PER_CELL = 50
MAX_TRACEBACK_LINES = 100
MAX_ENAME = 200
MAX_EVALUE = 2000
MAX_CELLS_LISTED = 20  # cell numbers kept from one list of the runner's report
MAX_PROCESS_NAME = 40
MAX_PROCESSES_LISTED = 1000


def as_text(value):
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
    pairs = tuple(sorted((as_text(k), v if not isinstance(v, str) else as_text(v))
                         for k, v in nbgrader_metadata(cell).items()
                         if isinstance(k, str) and (v is None or isinstance(v, (str, bool, int, float)))))
    cell_id = cell.get("id")
    return SubmittedCell(kind=cell["cell_type"], source=as_text(cell.get("source", "")),
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

def as_seconds(value):
    """``value`` as a duration in seconds if it is a plausible one (a number from 0 to 10 million), else ``None``."""
    return float(value) if type(value) in (int, float) and 0 <= value < 1e7 else None


def _cell_number(value, n_cells):
    return value if type(value) is int and 0 <= value < n_cells else None


def _cell_numbers(value, n_cells):
    if not isinstance(value, list):
        return ()
    return tuple(sorted({i for i in value if type(i) is int and 0 <= i < n_cells})[:MAX_CELLS_LISTED])


def _process_names(value, n_cells):
    if not isinstance(value, list):
        return ()
    return tuple(as_text(n)[:MAX_PROCESS_NAME] for n in value[:MAX_PROCESSES_LISTED] if isinstance(n, str))


def _seconds_by_cell(value, n_cells):
    # Only ASCII digits: "²" is a digit to str.isdigit, and int() refuses it.
    if not isinstance(value, dict):
        return ()
    timings = ((k, as_seconds(v)) for k, v in list(value.items())[:n_cells])
    return tuple(sorted((int(k), s) for k, s in timings
                        if isinstance(k, str) and k.isascii() and k.isdigit() and len(k) < 7 and int(k) < n_cells and s is not None))


# One reader per kind of value in the runner's report (perceptron_course.protocol), each given the value and the
# number of cells of the notebook that ran.
_REPORT_READERS = {
    protocol.CELL: _cell_number,
    protocol.CELLS: _cell_numbers,
    protocol.NAMES: _process_names,
    protocol.FLAG: lambda value, n_cells: value is True,
    protocol.ERROR: lambda value, n_cells: as_text(value)[:100] if isinstance(value, str) else None,
    protocol.SECONDS: lambda value, n_cells: as_seconds(value) or 0.0,
    protocol.SECONDS_BY_CELL: _seconds_by_cell,
}


def read_runner_report(path, n_cells, max_bytes):
    """The :class:`~perceptron_course.protocol.RunnerReport` in ``path``; an empty one when it is missing or malformed.

    Cell numbers are checked against ``n_cells``, the number of cells of the
    notebook that ran; lists and text are capped.
    """
    report = read_untrusted_json(path, max_bytes)
    if not isinstance(report, dict):
        return RunnerReport()
    return RunnerReport(**{key: _REPORT_READERS[kind](report.get(key), n_cells) for key, kind in protocol.REPORT_KINDS})


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


def _execution_count(value):
    """``value`` when it is a count nbformat accepts (an int of at least 0), else ``None``."""
    return value if type(value) is int and value >= 0 else None


def _clean_output(output, max_chars):
    """A :class:`CellOutput` of one executed output, or ``None`` when nothing of it is kept."""
    if not isinstance(output, dict):
        return None
    kind = output.get("output_type")
    if kind == "stream":
        name = output.get("name") if output.get("name") in ("stdout", "stderr") else "stdout"
        return CellOutput("stream", name=name, text=as_text(output.get("text"))[:max_chars])
    if kind == "error":
        tb = output.get("traceback")
        tb = tuple(as_text(line)[:max_chars] for line in tb[:MAX_TRACEBACK_LINES]) if isinstance(tb, list) else ()
        return CellOutput("error", ename=as_text(output.get("ename"))[:MAX_ENAME],
                          evalue=as_text(output.get("evalue"))[:MAX_EVALUE], traceback=tb)
    if kind in ("display_data", "execute_result"):
        data = output.get("data") if isinstance(output.get("data"), dict) else {}
        kept = []
        for mime in ALLOWED_MIME:
            value = as_text(data.get(mime))[:max_chars]
            if mime in IMAGE_MIME:
                value = "".join(value.split())
                if not re.fullmatch(r"[A-Za-z0-9+/=]*", value):
                    continue
            if value:
                kept.append((mime, value))
        if not kept:
            return None
        count = _execution_count(output.get("execution_count")) if kind == "execute_result" else None
        return CellOutput(kind, data=tuple(kept), execution_count=count)
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
        found.append(ExecutedCell(execution_count=_execution_count(ran.get("execution_count")), outputs=tuple(kept)))
    return tuple(found)
