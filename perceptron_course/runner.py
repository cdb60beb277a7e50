"""Executing one notebook: a submission inside the sandbox, or a student's notebook in their own check.

This is the only grading code that runs where the student's code runs.  It
is started by :mod:`autograder.running.worker` in a sandbox (or by the
student's check, :mod:`perceptron_course.execute`) as ``python -I runner.py
JOB.json``, and speaks to them through :mod:`perceptron_course.protocol`:
the job's fields, the files it writes, its exit status.  It is deliberately
self-contained: it imports nothing but the standard library, IPython and the
modules beside it, ``protocol.py``, ``probe.py`` and ``platform_support.py``
(inside the sandbox that folder holds only these files,
:data:`perceptron_course.protocol.RUNNER_FILES`), and it decides no grade.  It

1. runs the prepared notebook's code cells one after another in an IPython
   shell in this very process, as a Jupyter kernel would run them but
   without a second process and its messaging: the process and its sandbox
   are new for this one submission, so nothing is shared with another.  It
   goes on after errors; a cell that runs past its time limit is
   interrupted (a ``CellTimeoutError`` is raised in it by a timer, see
   :mod:`perceptron_course.platform_support`) and the next cell runs; it
   stops when the notebook's time budget is spent;
2. keeps at most a fixed number of bytes of output per cell and per
   notebook, so a flood of printing never reaches the host;
3. calls the student's functions on the hidden inputs through
   ``probe.py``, which writes their results (plain data) to the output folder;
4. writes the executed notebook and a short report
   (:class:`~perceptron_course.protocol.RunnerReport`: which cell was
   running, which cells were interrupted or had output cut, how long each
   cell took, whether the probes ran, which processes were still running at
   the end, and whether the run finished) to the output folder.  The report
   is rewritten before each cell, so a notebook that ends this process
   (``os._exit``, a fatal signal) leaves behind which cell it was in.

While the notebook runs, the environment variable
:data:`~perceptron_course.protocol.RUNNER_ENVIRONMENT` is set, so that the
check cell at the end of every assignment
(:func:`perceptron_course.test_helpers.check_this_notebook`) knows it is
being run by a check or by grading, and starts no check of its own.

A ``%pip`` line (downloaded notebooks open with ``%pip install`` of the
course's package, for Colab or a JupyterHub) installs nothing here: it
prints that the run already has the course's package.  Grading has no
network, and a check must not change the student's environment.

Every limit comes from the job file, which the worker writes from the
course's :class:`perceptron_course.limits.Limits`; none is declared here.

Everything this script writes can be overwritten by the student's code,
which runs in the same process: the host treats all of it as untrusted data
and decides the status from what it observes itself (exit status, time).
A notebook that blocks the timer signal is stopped by the host at the end
of the notebook's budget.

The exit statuses are the protocol's (``EXIT_OK``, ``EXIT_BUDGET`` ...);
any other status, or ``EXIT_OK`` without a finished report, means the
notebook ended the process itself.
"""

import base64
import dataclasses
import importlib
import importlib.machinery
import importlib.util
import io
import json
import os
import sys
import time

# The package the runner's own folder becomes when it runs as a script (see _import_beside).
BESIDE_PACKAGE = "_perceptron_runner"


def _import_beside(name):
    """The module ``name`` from this file's folder, imported as a module of a package made of that folder alone.

    ``python -I`` puts no script folder on ``sys.path``, and the notebook's
    folder must never provide these modules; as one package, ``probe.py``
    imports ``protocol.py`` exactly as it does in the installed package.
    """
    if BESIDE_PACKAGE not in sys.modules:
        spec = importlib.machinery.ModuleSpec(BESIDE_PACKAGE, None, is_package=True)
        spec.submodule_search_locations = [os.path.dirname(os.path.abspath(__file__))]
        sys.modules[BESIDE_PACKAGE] = importlib.util.module_from_spec(spec)
    return importlib.import_module(f"{BESIDE_PACKAGE}.{name}")


if __package__:  # imported as perceptron_course.runner
    from . import platform_support, protocol
else:  # started as a script
    protocol = _import_beside("protocol")
    platform_support = _import_beside("platform_support")

TRUNCATION_NOTE = "[autograder: {n} bytes of output were not kept; at most {cap} bytes are kept per cell]\n"
# After a timed-out cell's first interruption, how often it is interrupted again while it keeps running
# (code that catches the first one, in a loop, is hit again).
REPEAT_INTERRUPT_SECONDS = 1.0


class CellTimeoutError(BaseException):
    """Raised inside a cell that ran past its time limit.

    A ``BaseException``, like ``KeyboardInterrupt``, so that a student's
    ``except Exception`` does not swallow it.
    """


def skip_slow_optional_imports():
    """Keep jsonschema (pulled in by nbformat) from importing ``rfc3987_syntax``, an optional URI checker.

    Building that module's parser takes seconds, and notebooks never need
    URI formats checked; jsonschema treats the module as absent and skips
    that one format.  (The host's command line calls this too.)
    """
    sys.modules.setdefault("rfc3987_syntax", None)


def _output_size(output):
    """Approximate size in characters of one output."""
    size = len(output.get("text", "")) + len(output.get("evalue", ""))
    size += sum(len(str(k)) + len(str(v)) for k, v in output.get("data", {}).items())
    size += sum(len(str(line)) for line in output.get("traceback", ()))
    return size


class Outputs:
    """Where the running cell's output goes, within a byte budget per cell and per notebook.

    Output past the budget is counted, not kept.  Between cells (``cell`` is
    ``None``) output is dropped: the probes' calls print nowhere.  Text
    printed in pieces is gathered into one stream output per run of the
    same stream, as a list of pieces joined when the cell stops (adding to
    one string each time would copy it again for every piece).
    """

    def __init__(self, max_cell_bytes, max_total_bytes):
        self.max_cell_bytes = max_cell_bytes
        self.max_total_bytes = max_total_bytes
        self.cell = None
        self.kept = self.dropped = self.total_kept = 0

    def start(self, cell):
        self.cell, self.kept, self.dropped = cell, 0, 0
        cell["outputs"] = []

    def stop(self):
        if self.cell is not None:
            for output in self.cell["outputs"]:
                if output["output_type"] == "stream" and isinstance(output["text"], list):
                    output["text"] = "".join(output["text"])
        self.cell = None

    def _fits(self, size):
        if self.cell is None:
            return False
        if self.kept + size > self.max_cell_bytes or self.total_kept + size > self.max_total_bytes:
            self.dropped += size
            return False
        self.kept += size
        self.total_kept += size
        return True

    def add(self, output):
        if self._fits(_output_size(output)):
            self.cell["outputs"].append(output)

    def stream(self, name, text):
        if not text or not self._fits(len(text)):
            return
        outputs = self.cell["outputs"]
        if outputs and outputs[-1]["output_type"] == "stream" and outputs[-1]["name"] == name:
            outputs[-1]["text"].append(text)
        else:
            outputs.append({"output_type": "stream", "name": name, "text": [text]})

    def clear(self):
        if self.cell is not None:
            self.cell["outputs"] = []


class CellStream(io.TextIOBase):
    """``sys.stdout`` or ``sys.stderr`` while the notebook runs: text goes to the running cell's outputs."""

    def __init__(self, outputs, name, fd):
        super().__init__()
        self._outputs, self._name, self._fd = outputs, name, fd

    @property
    def name(self):
        return f"<{self._name}>"

    @property
    def encoding(self):
        return "utf-8"

    def writable(self):
        return True

    def isatty(self):
        return False

    def fileno(self):
        # Text written to the descriptor itself (by C code or a subprocess) goes to the sandbox's log.
        return self._fd

    def write(self, text):
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        self._outputs.stream(self._name, text)
        return len(text)

    def flush(self):
        pass


def _make_shell(outputs):
    """An IPython shell whose displays, results and tracebacks become outputs of the running cell."""
    from IPython.core.displayhook import DisplayHook
    from IPython.core.displaypub import DisplayPublisher
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    class CellDisplayPublisher(DisplayPublisher):
        def publish(self, data, metadata=None, source=None, *, transient=None, update=False, **kwargs):
            outputs.add({"output_type": "display_data", "data": dict(data), "metadata": dict(metadata or {})})

        def clear_output(self, wait=False):
            outputs.clear()

    class CellDisplayHook(DisplayHook):
        def write_output_prompt(self):
            pass

        def write_format_data(self, format_dict, md_dict=None):
            outputs.add({"output_type": "execute_result", "data": dict(format_dict),
                         "metadata": dict(md_dict or {}), "execution_count": self.prompt_count})

        def finish_displayhook(self):
            pass

    class CellShell(InteractiveShell):
        displayhook_class = CellDisplayHook
        display_pub_class = CellDisplayPublisher

        def enable_gui(self, gui=None):
            # ``%matplotlib inline`` asks for no event loop, which is what there is here; a window cannot open.
            if gui not in (None, "inline"):
                raise RuntimeError(f"the notebook runs without a display, so the {gui} event loop cannot start; "
                                   "use %matplotlib inline")

        def _showtraceback(self, etype, evalue, stb):
            if etype is CellTimeoutError:  # the timer's own frame is not the student's code: leave it out
                stb = [entry for entry in stb if __file__ not in entry]
            outputs.add({"output_type": "error", "ename": str(etype.__name__), "evalue": str(evalue),
                         "traceback": [str(line) for line in stb]})

    config = Config()
    config.HistoryManager.enabled = False  # no history database to write
    shell = CellShell.instance(config=config)
    shell.register_magic_function(_pip_not_run, magic_kind="line", magic_name="pip")
    return shell


PIP_NOT_RUN = ("%pip {line}: not run here. This run already has the course's package and everything the "
               "notebook needs, and nothing is installed while a notebook is checked or graded.")


def _pip_not_run(line):
    """``%pip`` in a checked or graded notebook: say why nothing is installed (see the module docstring)."""
    print(PIP_NOT_RUN.format(line=line.strip()))


class CellTimer:
    """Interrupts the running cell at its time limit, and ends the run when the notebook's budget is spent.

    At the cell's limit a ``CellTimeoutError`` is raised in the cell by the
    timer's handler, which runs in the main thread (from ``SIGALRM`` where
    the system has it, as in grading; see
    :mod:`perceptron_course.platform_support`); while the cell keeps running
    (code that catches it in a loop) it is raised again every
    :data:`REPEAT_INTERRUPT_SECONDS`.  When the notebook's deadline comes,
    ``on_budget_spent`` is called from the handler itself, so code that
    catches every exception cannot outlast the budget.  The timer is armed
    only while a cell runs; an expiry handled after the cell ended is ignored.
    """

    def __init__(self, deadline, on_budget_spent):
        self.deadline, self.on_budget_spent = deadline, on_budget_spent
        self.armed = False
        self.fired = False
        self.limit = 0.0

    def _on_alarm(self, signum, frame):
        if not self.armed:
            return
        remaining = self.deadline - time.monotonic()
        if remaining <= 0.01:
            self.on_budget_spent()
        self.fired = True
        platform_support.set_timer(min(REPEAT_INTERRUPT_SECONDS, remaining))
        raise CellTimeoutError(f"the cell ran for more than {self.limit:g} seconds and was interrupted")

    def arm(self, limit):
        """Start timing a cell whose limit is ``limit`` seconds."""
        self.armed, self.fired, self.limit = True, False, limit
        platform_support.install_timer_handler(self._on_alarm)  # again each time: the notebook may have replaced it
        platform_support.set_timer(max(min(limit, self.deadline - time.monotonic()), 0.001))

    def disarm(self):
        self.armed = False
        platform_support.set_timer(0)


def _cell_source(cell):
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _json_value(value):
    """What ``json`` cannot write itself: an image's bytes as base64 text (as Jupyter stores them), else text."""
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return str(value)


class ReportFile:
    """The report as the run goes: a :class:`~perceptron_course.protocol.RunnerReport`, changed field by field and
    written to the output folder."""

    def __init__(self, out_dir):
        self.path = os.path.join(out_dir, protocol.REPORT_FILE)
        self.report = protocol.RunnerReport()

    def update(self, **changes):
        self.report = dataclasses.replace(self.report, **changes)

    def write(self):
        with open(self.path, "w", encoding="utf-8") as f:
            json.dump(self.report.to_json(), f)


def _write_results(job, nb, report):
    """The executed notebook, then the report marked finished: the last thing the runner writes."""
    with open(os.path.join(job.out_dir, protocol.EXECUTED_NOTEBOOK_FILE), "w", encoding="utf-8") as f:
        json.dump(nb, f, ensure_ascii=False, default=_json_value)
    report.update(finished=True)
    report.write()


def _run_cells(job, nb, shell, outputs, report, deadline):
    """Run every code cell; fill ``report``; return ``EXIT_OK``, or end the process with ``EXIT_BUDGET``."""
    by_index = {int(k): float(v) for k, v in job.cell_seconds_by_index.items()}

    def budget_spent():
        timer.disarm()
        outputs.stop()
        if job.list_processes:
            report.update(processes_left=tuple(platform_support.running_processes({1, os.getpid()})))
        _write_results(job, nb, report)
        os._exit(protocol.EXIT_BUDGET)

    timer = CellTimer(deadline, budget_spent)
    count = 0
    for index, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "code":
            continue
        report.update(stopped_at_cell=index)
        if deadline - time.monotonic() <= 0:
            budget_spent()
        limit = by_index.get(index, job.cell_seconds)  # the cell's own, calibrated limit when it has one
        count += 1
        cell["execution_count"] = count
        report.write()
        outputs.start(cell)
        started = time.monotonic()
        try:
            timer.arm(limit)
            try:
                shell.run_cell(_cell_source(cell), store_history=True)
            finally:
                timer.disarm()
        except CellTimeoutError:  # raised outside the student's code, in the shell's own bookkeeping
            pass
        outputs.stop()
        seconds = round(time.monotonic() - started, 6)
        report.update(cell_seconds=report.report.cell_seconds + ((index, seconds),))
        if timer.fired:
            report.update(interrupted_cells=report.report.interrupted_cells + (index,))
        if outputs.dropped:
            report.update(truncated_cells=report.report.truncated_cells + (index,))
            cell["outputs"].append({"output_type": "stream", "name": "stderr",
                                    "text": TRUNCATION_NOTE.format(n=outputs.dropped, cap=outputs.max_cell_bytes)})
        report.update(stopped_at_cell=None)
    return protocol.EXIT_OK


def _run_probes(job, shell, probe, deadline, report):
    """Call the student's functions on the hidden inputs, on the notebook's global namespace.

    A job without hidden inputs (``probe_in`` null: a student's own check of
    the notebook) has none to call.
    """
    if job.probe_in is None:
        return protocol.EXIT_OK
    if deadline - time.monotonic() <= 1:
        return protocol.EXIT_BUDGET
    started = time.monotonic()
    try:
        probe.run_probes(shell.user_ns, job.probe_in, job.out_dir, seconds_per_call=job.call_seconds,
                         deadline=deadline)
    except probe.BudgetSpent:
        return protocol.EXIT_BUDGET
    except BaseException as exc:  # the student's code may have broken anything the probes rely on
        report.update(probe_error=type(exc).__name__[:100])
        return protocol.EXIT_OK
    finally:
        report.update(probe_seconds=round(time.monotonic() - started, 6))
    report.update(probes_ran=True)
    return protocol.EXIT_OK


def _student_path(job, entries):
    """``sys.path`` as a kernel started in the notebook's folder has it: that folder first, then the course's
    library, then the standard library and the installed packages."""
    return [""] + list(job.python_path) + list(entries)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print(f"usage: python -I runner.py {protocol.JOB_FILE}", file=sys.stderr)
        return protocol.EXIT_BAD_JOB
    try:
        job = protocol.RunnerJob.read(argv[0])
        with open(job.notebook, encoding="utf-8") as f:
            nb = json.load(f)
        os.chdir(job.cwd)
        os.makedirs(job.out_dir, exist_ok=True)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"runner: cannot read the job: {exc}", file=sys.stderr)
        return protocol.EXIT_BAD_JOB
    # Everything this script needs is imported before the notebook runs, so files the student writes
    # into the notebook's folder (a json.py, a zipfile.py) cannot stand in for it.
    probe = _import_beside("probe")

    report = ReportFile(job.out_dir)
    outputs = Outputs(job.max_cell_output_bytes, job.max_total_output_bytes)
    sys.dont_write_bytecode = True
    try:
        shell = _make_shell(outputs)
    except Exception as exc:
        print(f"runner: cannot start the IPython shell: {exc}", file=sys.stderr)
        return protocol.EXIT_NO_SHELL
    sys.argv = [""]
    os.environ[protocol.RUNNER_ENVIRONMENT] = "1"
    sys.path[:] = _student_path(job, sys.path)
    sys.stdout, sys.stderr = CellStream(outputs, "stdout", 1), CellStream(outputs, "stderr", 2)

    deadline = time.monotonic() + job.notebook_seconds
    status = _run_cells(job, nb, shell, outputs, report, deadline)
    if status == protocol.EXIT_OK:
        status = _run_probes(job, shell, probe, deadline, report)
    if job.list_processes:
        report.update(processes_left=tuple(platform_support.running_processes({1, os.getpid()})))
    _write_results(job, nb, report)
    return status


if __name__ == "__main__":
    # os._exit: no atexit handler or thread the notebook left behind runs after grading.
    os._exit(main())
