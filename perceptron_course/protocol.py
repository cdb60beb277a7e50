"""The runner's protocol: what the host hands the runner, what the runner leaves behind, and what its exit means.

:mod:`perceptron_course.runner` executes one notebook in a fresh Python
process.  Two hosts start it: the grader's worker
(:mod:`autograder.running.worker`), inside a sandbox, and the student's check
(:mod:`perceptron_course.execute`), on the student's own machine.  Both sides
take every file name, key and exit status from this module, which imports
only the standard library (inside the sandbox it is loaded from the runner's
own folder, see :data:`RUNNER_FILES`).

How a run goes
--------------
The host makes an input folder and an output folder, writes the job into the
input folder, and starts ``python -I <runner folder>/runner.py <input folder>/job.json``.

Written by the host, in the input folder (read-only inside the sandbox):

* :data:`JOB_FILE`: a JSON object with exactly the fields of
  :class:`RunnerJob` (where the notebook and the folders are, and every limit
  the runner applies), written by :meth:`RunnerJob.write` and read by
  :meth:`RunnerJob.read`.  The host wrote it, so the runner trusts it; a job
  it cannot read ends the run with :data:`EXIT_BAD_JOB`.
* :data:`PROBES_FILE` and :data:`PROBE_ARRAYS_FILE`: the hidden tests' calls
  (JSON, and the numeric arrays they use as ``.npz``, in the schema of
  :mod:`perceptron_course.probe`), written by the grader from the
  assignment's hidden tests.  A job whose ``probe_in`` is null (the
  student's check) has none.

Written inside the run, in the output folder (:attr:`RunnerJob.out_dir`).
The student's code runs in the runner's process and can overwrite any of
them, so the host reads them as untrusted bytes, with readers that never
raise (:mod:`perceptron_course.boundary`, :mod:`autograder.boundary.from_sandbox`):

* :data:`REPORT_FILE`: a JSON object with the fields of :class:`RunnerReport`
  (:meth:`RunnerReport.to_json`).  It is rewritten before each cell, so a run
  that ends the process leaves behind the cell it was in, and written last
  with ``finished`` true.
* :data:`EXECUTED_NOTEBOOK_FILE`: the notebook with its outputs (nbformat 4
  JSON), written just before the last report.
* :data:`RESULTS_FILE` and :data:`RESULT_ARRAYS_FILE`: one record per hidden
  test's call (JSON and ``.npz``, the probe's schema), written by
  :func:`perceptron_course.probe.run_probes` after the last cell.

The exit status
---------------
:data:`EXIT_OK` (0): the notebook ran to its end and the probes, if any, were
called.  Grading counts a run only when the status is 0 *and* the report says
``finished``: the notebook's own ``os._exit(0)`` gives 0 without it.

:data:`EXIT_BAD_JOB` (2): the job file or the notebook could not be read.

:data:`EXIT_BUDGET` (4): the notebook's time budget ran out; the report's
``stopped_at_cell`` says where.

:data:`EXIT_NO_SHELL` (5): the IPython shell that runs the cells could not start.

Any other status (above 128: killed by that signal number less 128) means
the notebook ended the process itself, or a resource limit did.
"""

import json
from dataclasses import asdict, dataclass, field, fields
from typing import Any

__all__ = ["RUNNER_FILES", "RUNNER_ENVIRONMENT", "JOB_FILE", "PROBES_FILE", "PROBE_ARRAYS_FILE", "REPORT_FILE",
           "EXECUTED_NOTEBOOK_FILE", "RESULTS_FILE", "RESULT_ARRAYS_FILE", "EXIT_OK", "EXIT_BAD_JOB", "EXIT_BUDGET",
           "EXIT_NO_SHELL", "RunnerJob", "RunnerReport", "REPORT_KINDS", "CELL", "CELLS", "NAMES", "FLAG", "ERROR",
           "SECONDS", "SECONDS_BY_CELL"]

# The runner and the modules it loads from its own folder: wherever it runs, these files sit together.
RUNNER_FILES = ("runner.py", "protocol.py", "probe.py", "platform_support.py")
# Set by the runner in its own environment while the notebook runs: the check cell of an assignment
# (perceptron_course.test_helpers.check_this_notebook, which grading's copy of that module has without this
# one, and so names it again) then knows that a check or grading is running it, and starts no check itself.
RUNNER_ENVIRONMENT = "PERCEPTRON_COURSE_RUNNER"

JOB_FILE = "job.json"
PROBES_FILE = "probes.json"
PROBE_ARRAYS_FILE = "probes.npz"

REPORT_FILE = "runner.json"
EXECUTED_NOTEBOOK_FILE = "executed.ipynb"
RESULTS_FILE = "results.json"
RESULT_ARRAYS_FILE = "results.npz"

EXIT_OK = 0
EXIT_BAD_JOB = 2
EXIT_BUDGET = 4
EXIT_NO_SHELL = 5


@dataclass(frozen=True)
class RunnerJob:
    """The runner's instructions: the fields of :data:`JOB_FILE`.

    ``notebook`` is the notebook to run, ``cwd`` the folder it runs in,
    ``out_dir`` the output folder and ``probe_in`` the folder of the hidden
    tests' calls (``None``: there are none).  ``notebook_seconds`` is the
    whole run's budget, ``cell_seconds`` each code cell's limit unless
    ``cell_seconds_by_index`` gives the cell's own (keyed by the cell's index
    in the notebook, as a string: JSON's keys are strings; the host computes
    them, :func:`perceptron_course.cells.cell_seconds_by_index`, so the runner
    reads no cell metadata), ``call_seconds`` the limit of
    one hidden test's call.  Output beyond ``max_cell_output_bytes`` per cell
    or ``max_total_output_bytes`` per notebook is not kept.  ``python_path``
    goes on ``sys.path`` after the notebook's folder; ``list_processes`` asks
    for the processes still running at the end (meaningful only in a pid
    namespace of the run's own).
    """

    notebook: str
    cwd: str
    out_dir: str
    probe_in: Any
    notebook_seconds: float
    cell_seconds: float
    cell_seconds_by_index: dict
    call_seconds: float
    max_cell_output_bytes: int
    max_total_output_bytes: int
    python_path: tuple
    list_processes: bool

    def write(self, path):
        """Write the job as JSON to ``path``."""
        with open(path, "w", encoding="utf-8") as f:
            json.dump(asdict(self), f)

    @classmethod
    def read(cls, path):
        """The job in ``path``; ``OSError`` or ``ValueError`` when the file is not one (the host wrote it wrong)."""
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if not isinstance(data, dict):
            raise ValueError(f"{path} holds no JSON object")
        names = [f.name for f in fields(cls)]
        missing, unknown = [n for n in names if n not in data], sorted(set(data) - set(names))
        if missing or unknown:
            raise ValueError(f"{path} lacks {', '.join(missing) or 'nothing'} and has unknown keys "
                             f"{', '.join(unknown) or 'none'}")
        values = {}
        for f in fields(cls):
            value = data[f.name]
            if f.type in (int, float, tuple, dict):
                value = f.type(value)  # TypeError or ValueError for a value of the wrong kind
            values[f.name] = value
        return cls(**values)


# The kinds of value in the report; each has one reader on the host (perceptron_course.boundary).
CELL = "cell"  # a cell number (counting every cell of the notebook from 0), or null
CELLS = "cells"  # a list of cell numbers
NAMES = "names"  # a list of process names
FLAG = "flag"  # true or false
ERROR = "error"  # a short text (an exception's type name), or null
SECONDS = "seconds"  # a duration in seconds
SECONDS_BY_CELL = "seconds by cell"  # an object: cell number, as text, to a duration in seconds


def _report_field(kind, default):
    return field(default=default, metadata={"kind": kind})


@dataclass(frozen=True)
class RunnerReport:
    """What the runner says happened: the fields of :data:`REPORT_FILE`, and the record the host reads it into.

    ``stopped_at_cell`` is the cell running when the report was written
    (``None`` between cells and at the end); ``interrupted_cells`` ran past
    their time limit, ``truncated_cells`` had output cut; ``processes_left``
    names the processes still running at the end; ``probes_ran`` says the
    hidden tests' calls were made, or ``probe_error`` why they could not be;
    ``cell_seconds`` is ``(cell number, seconds)`` per code cell that ran and
    ``probe_seconds`` the calls' total; ``finished`` says the runner got to
    its end.  Cell numbers count every cell of the notebook that ran, from 0.

    On the host this only adds detail to a run, and feeds the calibration
    of time limits from the instructor's solution: it never decides a status.
    Each field's kind (:data:`REPORT_KINDS`) says how it is written and read.
    """

    stopped_at_cell: Any = _report_field(CELL, None)
    interrupted_cells: tuple = _report_field(CELLS, ())
    truncated_cells: tuple = _report_field(CELLS, ())
    processes_left: tuple = _report_field(NAMES, ())
    probes_ran: bool = _report_field(FLAG, False)
    probe_error: Any = _report_field(ERROR, None)
    cell_seconds: tuple = _report_field(SECONDS_BY_CELL, ())
    probe_seconds: float = _report_field(SECONDS, 0.0)
    finished: bool = _report_field(FLAG, False)

    def to_json(self):
        """The report as the JSON object of :data:`REPORT_FILE`."""
        data = {}
        for name, kind in REPORT_KINDS:
            value = getattr(self, name)
            if kind == SECONDS_BY_CELL:
                value = {str(cell): seconds for cell, seconds in value}
            elif kind in (CELLS, NAMES):
                value = list(value)
            data[name] = value
        return data


REPORT_KINDS = tuple((f.name, f.metadata["kind"]) for f in fields(RunnerReport))  # (key, kind) of each field
