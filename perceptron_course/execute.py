"""Running a notebook with the grader's own runner, outside the sandbox: the student's check, and ``verify``.

:func:`runner_job` makes the runner's instructions from the course's
limits (the grader's worker makes its sandboxed jobs with it too);
:func:`run_notebook` starts :mod:`perceptron_course.runner` in a fresh Python
process on one notebook, following :mod:`perceptron_course.protocol`, reads
back what it left through :mod:`perceptron_course.boundary`, and copies the
outputs into the notebook (:func:`copy_outputs`).  When the run ends, or its
time is up, the runner and every process the notebook started end with it
(:class:`perceptron_course.platform_support.ProcessTree`).
"""

import os
import subprocess
import sys
import tempfile

from . import protocol
from .limits import Limits
from .platform_support import ProcessTree

__all__ = ["runner_job", "copy_outputs", "run_notebook", "warm_up", "RUNNER", "RUNNER_DIR", "LIBRARY_ROOT"]

RUNNER_DIR = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(RUNNER_DIR, "runner.py")  # beside the other protocol.RUNNER_FILES
# The folder that holds perceptron_course and perceptron_lib: the repository, or site-packages once installed.
LIBRARY_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def runner_job(*, notebook, cwd, out_dir, probe_in, limits, cell_seconds, call_seconds, cell_seconds_by_index=None,
               python_path=(), list_processes=False):
    """The runner's :class:`~perceptron_course.protocol.RunnerJob`: where everything is, and every limit it applies,
    from ``limits`` (:class:`~perceptron_course.limits.Limits`).  ``probe_in`` is ``None`` for a run without hidden
    tests (a student's check); ``cell_seconds_by_index`` maps the index of a cell with a limit of its own to that
    limit (:func:`perceptron_course.cells.cell_seconds_by_index`), every other cell gets ``cell_seconds``."""
    return protocol.RunnerJob(
        notebook=notebook, cwd=cwd, out_dir=out_dir, probe_in=probe_in,
        notebook_seconds=float(limits.notebook_seconds), cell_seconds=float(cell_seconds),
        cell_seconds_by_index={str(index): float(seconds) for index, seconds in (cell_seconds_by_index or {}).items()},
        call_seconds=float(call_seconds), max_cell_output_bytes=int(limits.cell_output_bytes),
        max_total_output_bytes=int(limits.total_output_bytes), python_path=tuple(python_path),
        list_processes=bool(list_processes))


def copy_outputs(notebook, executed):
    """Put the outputs read back through :func:`perceptron_course.boundary.read_executed_cells` into ``notebook``'s
    cells."""
    import nbformat

    for cell, ran in zip(notebook.cells, executed):
        if ran is None or cell.cell_type != "code":
            continue
        cell.outputs = [nbformat.from_dict(output.as_dict()) for output in ran.outputs]
        cell.execution_count = ran.execution_count


def warm_up(timeout=300):
    """Build matplotlib's font cache, if it is installed and has none yet, before any cell is timed.

    The first import of matplotlib in a new environment scans every system
    font, which takes seconds: left to the notebook, that would be counted
    against its imports cell, which grading (whose sandboxes get a font list
    built beforehand) never pays.  A failure here only means the notebook
    pays it after all.
    """
    try:
        subprocess.run([sys.executable, "-I", "-c", "import matplotlib.font_manager"], env=dict(os.environ),
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        pass


def run_notebook(notebook, cwd, *, cell_timeout, limits=Limits()):
    """Execute ``notebook`` in ``cwd`` with the grader's own runner, cell by cell.

    The same fresh Python process, IPython shell and interruption as in
    grading, here without a sandbox or hidden tests, within ``limits``'
    notebook budget.  The notebook imports ``perceptron_lib`` and
    ``perceptron_course`` from :data:`LIBRARY_ROOT`, the copies this module
    belongs to.  The outputs are copied into ``notebook``.  Returns
    ``(interrupted, stopped, died, seconds)``: the indices of the cells
    interrupted at the time limit, the cell the budget ran out at, the cell
    in which the notebook ended Python itself (each ``None`` when it did not
    happen), and how long each code cell that ran took.
    """
    import nbformat

    from .boundary import read_executed_cells, read_runner_report

    # Removing the folder must not fail where files stay locked for a moment after their process ended (Windows).
    with tempfile.TemporaryDirectory(prefix="perceptron-check-out-", ignore_cleanup_errors=True) as out:
        path = os.path.join(out, "notebook.ipynb")
        nbformat.write(notebook, path)
        job = runner_job(notebook=path, cwd=cwd, out_dir=out, probe_in=None, limits=limits, cell_seconds=cell_timeout,
                         call_seconds=limits.call_seconds, python_path=[LIBRARY_ROOT])
        job_file = os.path.join(out, protocol.JOB_FILE)
        job.write(job_file)
        # The notebook's temporary files go with this folder, as a sandbox's private /tmp goes with it.
        notebook_tmp = os.path.join(out, "tmp")
        os.mkdir(notebook_tmp)
        # The runner's own log (not the notebook's output, which it writes to a file) is of no use here.
        run = ProcessTree([sys.executable, "-I", RUNNER, job_file], cwd=cwd, env=dict(os.environ, TMPDIR=notebook_tmp))
        try:
            run.communicate(timeout=limits.notebook_seconds + limits.grace_seconds)
            code = run.process.returncode
        except subprocess.TimeoutExpired:
            code = protocol.EXIT_BUDGET
        finally:
            run.end()
        kinds = [c.cell_type for c in notebook.cells]
        report = read_runner_report(os.path.join(out, protocol.REPORT_FILE), len(kinds), limits.runner_report_bytes)
        executed = read_executed_cells(os.path.join(out, protocol.EXECUTED_NOTEBOOK_FILE), kinds,
                                       max_bytes=limits.executed_notebook_bytes,
                                       cell_output_chars=limits.cell_output_bytes,
                                       total_output_chars=limits.total_output_bytes)
    copy_outputs(notebook, executed)
    stopped = report.stopped_at_cell if code == protocol.EXIT_BUDGET else None
    died = report.stopped_at_cell if code != protocol.EXIT_BUDGET and not report.finished else None
    return set(report.interrupted_cells), stopped, died, dict(report.cell_seconds)
