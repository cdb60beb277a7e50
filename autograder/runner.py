"""Executing one submission, inside the sandbox.

This is the only grading code that runs where the student's code runs.  It
is started by :mod:`autograder.sandbox` as ``python -I runner.py JOB.json``
and is deliberately self-contained: it imports nothing from the
``autograder`` package (inside the sandbox that package holds only this file
and ``probe.py``), and it decides no grade.  It

1. executes the prepared notebook with nbclient in a fresh IPython kernel,
   allowing errors, interrupting a cell that runs past the per-cell timeout
   and going on with the next one, and stopping when the notebook's time
   budget is spent;
2. keeps at most a fixed number of bytes of output per cell and per
   notebook, so a flood of printing never reaches the host;
3. loads ``probe.py`` by its path inside the kernel and has it call the
   student's functions on the hidden inputs, writing ``results.json`` and
   ``results.npz`` (plain data) to the output folder;
4. writes the executed notebook and a short report (where the run stopped,
   which cells were interrupted or had output cut, how long each cell took,
   whether the probes ran, which processes were still running at the end)
   to the output folder.

Every limit comes from the job file, which the worker writes from the
course's :class:`autograder.limits.Limits`; none is declared here.

Everything this script writes can be overwritten by the student's code,
which runs as the same user: the host treats all of it as untrusted data and
decides the status from what it observes itself (exit status, time).

Exit status: 0 when the notebook ran to the end and the probes ran, 3 when
the kernel died, 4 when the time budget ran out, 5 when the kernel could not
be started, 2 when the job file is unusable (the worker reads these codes as
``autograder.worker.RUNNER_*``).
"""

import asyncio
import json
import os
import sys
import time

EXIT_OK = 0
EXIT_BAD_JOB = 2
EXIT_KERNEL_DIED = 3
EXIT_BUDGET = 4
EXIT_NO_KERNEL = 5

PROBE_SOURCE = """\
def __autograder_probe(namespace):
    import importlib.util
    spec = importlib.util.spec_from_file_location("_autograder_probe", {module!r})
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.run_probes(namespace, {probe_in!r}, {probe_out!r}, seconds_per_call={seconds!r})
__autograder_probe(globals())
"""

TRUNCATION_NOTE = "[autograder: {n} bytes of output were not kept; at most {cap} bytes are kept per cell]\n"


def _make_undumpable():
    """Keep other processes of the same user from reading this one's memory or open files."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except (OSError, AttributeError):
        pass


def _message_size(msg):
    """Approximate size in characters of the output carried by an IOPub message."""
    content = msg.get("content", {})
    if not isinstance(content, dict):
        return 0
    size = len(str(content.get("text", "")))
    data = content.get("data")
    if isinstance(data, dict):
        size += sum(len(str(k)) + len(str(v)) for k, v in data.items())
    traceback = content.get("traceback")
    if isinstance(traceback, list):
        size += sum(len(str(line)) for line in traceback)
    size += len(str(content.get("evalue", "")))
    return size


def _ancestors():
    """Process ids of this process's parents (the sandbox's own init and launcher processes)."""
    found, pid = set(), os.getpid()
    for _ in range(64):
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
        if pid <= 0:
            break
        found.add(pid)
    return found


def _running_processes(exclude):
    """Names of the processes visible in this pid namespace, except ``exclude`` and this one's parents."""
    exclude = set(exclude) | _ancestors()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in exclude:
            continue
        try:
            with open(f"/proc/{entry}/comm") as f:
                found.append(f.read().strip()[:40])
        except OSError:
            continue
    return found


def _make_client_class():
    from nbclient import NotebookClient

    class CappedClient(NotebookClient):
        """A notebook client that drops output past a byte budget instead of keeping it.

        ``max_cell_bytes`` and ``max_total_bytes`` are set from the job before it runs.
        """

        def reset_execution_trackers(self):
            super().reset_execution_trackers()
            self.kept_bytes = {}
            self.dropped_bytes = {}
            self.total_kept = 0
            self.timed_out_cells = set()
            self.current_index = None

        async def async_execute_cell(self, cell, cell_index, *args, **kwargs):
            self.current_index = cell_index
            return await super().async_execute_cell(cell, cell_index, *args, **kwargs)

        async def _async_handle_timeout(self, timeout, cell=None):
            self.timed_out_cells.add(self.current_index)
            return await super()._async_handle_timeout(timeout, cell)

        def output(self, outs, msg, display_id, cell_index):
            size = _message_size(msg)
            kept = self.kept_bytes.get(cell_index, 0)
            if kept + size > self.max_cell_bytes or self.total_kept + size > self.max_total_bytes:
                self.dropped_bytes[cell_index] = self.dropped_bytes.get(cell_index, 0) + size
                return None
            self.kept_bytes[cell_index] = kept + size
            self.total_kept += size
            return super().output(outs, msg, display_id, cell_index)

        def _update_display_id(self, display_id, msg):
            if _message_size(msg) > self.max_cell_bytes:
                return
            super()._update_display_id(display_id, msg)

    return CappedClient


def _limit_message_size(client, max_bytes):
    """Make the client's sockets refuse single messages larger than ``max_bytes``."""
    import zmq

    for channel in (client.kc.iopub_channel, client.kc.shell_channel):
        socket = getattr(channel, "socket", None)
        if socket is not None:
            socket.setsockopt(zmq.MAXMSGSIZE, max_bytes)


async def _execute(job, nb, report):
    """Run every code cell, then the probes; fill ``report``; return the exit status."""
    from nbclient.exceptions import DeadKernelError
    from nbformat.v4 import new_output

    deadline = time.monotonic() + float(job["notebook_seconds"])
    default_seconds = float(job["cell_seconds"])
    by_cell = {k: float(v) for k, v in job["cell_seconds_by_cell"].items()}

    def cell_limit(cell):
        """The cell's own limit when it has one (calibrated: keyed by grade_id, else by cell id), else the default."""
        key = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") or cell.get("id")
        return by_cell.get(key, default_seconds)

    timeout_text = "the cell ran past its time limit and was interrupted"
    client = _make_client_class()(
        nb,
        timeout_func=cell_limit,
        interrupt_on_timeout=True,
        error_on_timeout={"ename": "CellTimeoutError", "evalue": timeout_text,
                          "traceback": [f"CellTimeoutError: {timeout_text}"]},
        allow_errors=True,
        kernel_name="python3",
        startup_timeout=int(job["kernel_start_seconds"]),
        iopub_timeout=4,
        shutdown_kernel="immediate",
        record_timing=False,
        resources={"metadata": {"path": job["cwd"]}},
    )
    client.max_cell_bytes = int(job["max_cell_output_bytes"])
    client.max_total_bytes = int(job["max_total_output_bytes"])
    client.reset_execution_trackers()
    status = EXIT_OK
    kernel_started = False

    try:
        async with client.async_setup_kernel(env=dict(os.environ), cwd=job["cwd"]):
            _limit_message_size(client, int(job["max_message_bytes"]))
            kernel_started = True
            kernel_pid = getattr(getattr(client.km, "provisioner", None), "pid", None)
            count = 0
            for index, cell in enumerate(nb.cells):
                if cell.cell_type != "code":
                    continue
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    status = EXIT_BUDGET
                    break
                count += 1
                cell_started = time.monotonic()
                try:
                    await asyncio.wait_for(client.async_execute_cell(cell, index, execution_count=count), remaining)
                except (asyncio.TimeoutError, DeadKernelError):
                    # nbclient reports a cancelled cell as a dead kernel: ask the kernel itself.
                    report["stopped_at_cell"] = index
                    alive = await _kernel_alive(client)
                    status = EXIT_BUDGET if alive and time.monotonic() >= deadline - 0.5 else EXIT_KERNEL_DIED
                    break
                report["cell_seconds"][str(index)] = round(time.monotonic() - cell_started, 6)
                if index in client.timed_out_cells:
                    report["interrupted_cells"].append(index)
                    text = f"the cell ran for more than {cell_limit(cell):g} seconds and was interrupted"
                    cell.outputs.append(new_output("error", ename="CellTimeoutError", evalue=text,
                                                   traceback=[f"CellTimeoutError: {text}"]))
                dropped = client.dropped_bytes.get(index, 0)
                if dropped:
                    report["truncated_cells"].append(index)
                    cell.outputs.append(new_output("stream", name="stderr",
                                                   text=TRUNCATION_NOTE.format(n=dropped, cap=client.max_cell_bytes)))

            if status == EXIT_OK:
                status = await _run_probes(client, job, nb, deadline, report)
            if status in (EXIT_OK, EXIT_BUDGET) and job["list_processes"]:
                report["processes_left"] = _running_processes({1, os.getpid(), kernel_pid})
    except DeadKernelError:
        status = EXIT_KERNEL_DIED
    except RuntimeError:
        if not kernel_started:
            return EXIT_NO_KERNEL
        raise
    return status


async def _kernel_alive(client):
    try:
        return bool(await client.km.is_alive())
    except Exception:  # a kernel manager in a broken state counts as a dead kernel
        return False


async def _run_probes(client, job, nb, deadline, report):
    """Run the probe module in the kernel, on the student's global namespace."""
    from nbclient.exceptions import DeadKernelError
    from nbformat.v4 import new_code_cell

    remaining = deadline - time.monotonic()
    if remaining <= 1:
        return EXIT_BUDGET
    source = PROBE_SOURCE.format(module=job["probe_module"], probe_in=job["probe_in"],
                                 probe_out=job["probe_out"], seconds=float(job["call_seconds"]))
    cell = new_code_cell(source)
    nb.cells.append(cell)
    client.timeout_func = lambda _: max(1, int(remaining))
    started = time.monotonic()
    try:
        await asyncio.wait_for(client.async_execute_cell(cell, len(nb.cells) - 1, execution_count=None,
                                                          store_history=False), remaining)
    except (asyncio.TimeoutError, DeadKernelError):
        alive = await _kernel_alive(client)
        return EXIT_BUDGET if alive and time.monotonic() >= deadline - 0.5 else EXIT_KERNEL_DIED
    finally:
        nb.cells.pop()
        report["probe_seconds"] = round(time.monotonic() - started, 6)
    errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
    report["probes_ran"] = not errors
    if errors:
        report["probe_error"] = str(errors[0].get("ename", ""))[:100]
    return EXIT_OK


def _skip_slow_optional_imports():
    """Keep jsonschema (pulled in by nbformat) from importing ``rfc3987_syntax``, an optional URI checker.

    Building that module's parser takes seconds, once per submission here, and
    notebooks never need URI formats checked; jsonschema treats the module as
    absent and skips that one format.
    """
    sys.modules.setdefault("rfc3987_syntax", None)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    _skip_slow_optional_imports()
    if len(argv) != 1:
        print("usage: python -I runner.py JOB.json", file=sys.stderr)
        return EXIT_BAD_JOB
    try:
        with open(argv[0]) as f:
            job = json.load(f)
        import nbformat

        nb = nbformat.read(job["notebook"], as_version=4)
    except (OSError, ValueError, KeyError) as exc:
        print(f"runner: cannot read the job: {exc}", file=sys.stderr)
        return EXIT_BAD_JOB
    _make_undumpable()
    # Exactly the keys autograder.boundary.read_runner_report reads.
    report = {"stopped_at_cell": None, "interrupted_cells": [], "truncated_cells": [], "processes_left": [],
              "probes_ran": False, "probe_error": None, "cell_seconds": {}, "probe_seconds": 0.0}
    status = asyncio.run(_execute(job, nb, report))
    os.makedirs(job["out_dir"], exist_ok=True)
    with open(os.path.join(job["out_dir"], "executed.ipynb"), "w") as f:
        nbformat.write(nb, f)
    with open(os.path.join(job["out_dir"], "runner.json"), "w") as f:
        json.dump(report, f)
    return status


if __name__ == "__main__":
    sys.stdout.flush()
    os._exit(main())
