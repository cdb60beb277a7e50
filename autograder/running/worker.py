"""The worker: run one submission in a fresh sandbox and return its record, unjudged.

:func:`run_submission` is what an executor's worker process (a local
process pool, or a Dask worker) calls for each :class:`~autograder.results.Job`.
It reads the submitted file and parses it at the trust boundary
(:mod:`autograder.boundary.notebook`), rebuilds the notebook around the release's
locked cells and scans the student's code (:mod:`autograder.judging.integrity`),
lays out a private folder for the run, executes the notebook there in a
new sandbox (:mod:`autograder.running.sandbox`, :mod:`perceptron_course.runner`,
which it speaks to through :mod:`perceptron_course.protocol`), and reads
back, again through the boundary (:mod:`autograder.boundary.from_sandbox`),
the runner's report, the executed notebook and the hidden tests' results.  It returns a
:class:`~autograder.results.Result` carrying those results for the host's
judge (:mod:`autograder.judging.judge`); it writes nothing outside its own
temporary folder (:func:`job_folder`), which it removes.  A worker process
that dies holds that folder no longer: :func:`remove_abandoned_folders`,
which the host runs when a batch ends, removes it then.

The status comes from what the host observed itself (the sandbox's exit
status and time); the runner's report only adds detail and flags.
"""

import contextlib
import fcntl
import functools
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

from perceptron_course import protocol
from perceptron_course.cells import cell_seconds_by_index, grade_id, is_solution
from perceptron_course.execute import RUNNER, RUNNER_DIR, copy_outputs, runner_job

from autograder.results import CRASHED, GRADED, TIMEOUT, UNGRADABLE, CellResult, Flag, Result

__all__ = ["run_submission", "build_font_list", "job_folder", "remove_abandoned_folders", "JOB_FOLDER_PREFIX",
           "SANDBOX_GRADER", "SANDBOX_IN", "SANDBOX_OUT", "SANDBOX_HOME"]

# Where things are inside the sandbox.
SANDBOX_GRADER = "/grader"
SANDBOX_IN = "/grading/in"
SANDBOX_OUT = "/grading/out"
SANDBOX_HOME = "/home/student"
SANDBOX_MATPLOTLIB = "/tmp/matplotlib"
# The folder of the runner and the modules beside it (protocol.RUNNER_FILES), under SANDBOX_GRADER, or under the
# notebook's library folder when another user id runs the notebook.
RUNNER_FOLDER = "autograder"

# A submission's folder in the temporary folder, and the file in it whose lock its worker holds while it lives.
JOB_FOLDER_PREFIX = "autograde-job-"
JOB_LOCK = ".in-use"
# A job folder without its lock file is one being made, or one whose worker died before it could lock it.
UNLOCKED_FOLDER_SECONDS = 600


def run_submission(job):
    """Run one submission and collect what it returned, unjudged.

    Picklable in and out, so any executor can run it.  Never raises for
    anything a submission does: a bad file or a failed run becomes the
    result's status and reason.
    """
    import nbformat

    from perceptron_course.cells import grade_cells

    release_nb = nbformat.read(os.path.join(job.release_dir, f"{job.assignment}.ipynb"), as_version=4)
    autograded, manual = grade_cells(release_nb)
    result = Result(job.student_id, job.assignment, UNGRADABLE, sandboxed=job.settings.use_sandbox,
                    max_score=sum(points for _, points in autograded))
    problem = job.problem or _run_into(job, release_nb, autograded, manual, result)
    if problem:
        result.status, result.reason = UNGRADABLE, problem
        result.cells = [CellResult(gid, 0.0, pts, False, f"Not run: {problem}.") for gid, pts in autograded]
        result.manual_cells = [(gid, pts, None) for gid, pts in manual]
    return result


def reference_note(release_nb):
    """Why code that imports the reference implementation loses its points, for the feedback."""
    from autograder.course.library import PACKAGE, release_imports

    available = ", ".join(release_imports(release_nb)) or "none"
    return (f"Your code imports the course's reference implementation from {PACKAGE}. It is not available while "
            "notebooks are graded, so that import fails there and the functions that rely on it earn no points; "
            f"write them yourself. Only the data loaders this assignment imports ({available}) can be imported.")


def _run_into(job, release_nb, autograded, manual, result):
    """Fill ``result`` from a sandboxed run; return why the submission cannot be run, or ``None``."""
    from autograder.boundary.notebook import parse_notebook, read_untrusted_file
    from autograder.course.assignments import load_checks
    from autograder.judging.integrity import locked_definitions, prepare_notebook, scan_code, written_answer_checksum

    limits = job.settings.limits
    data, problem = read_untrusted_file(job.notebook_path, limits.notebook_bytes)
    if problem:
        return problem
    student_nb, problem = parse_notebook(data)
    if problem:
        return problem

    prepared, flags, authored, answers = prepare_notebook(student_nb, release_nb)
    flags += scan_code(authored, locked_definitions(release_nb))
    result.authored_code = tuple(source for _, source in authored)
    if any(flag.code == "reference-solution" for flag in flags):
        result.notes.append(reference_note(release_nb))
    release_answers = {grade_id(c): c.source for c in release_nb.cells if is_solution(c)}
    result.manual_cells = [(gid, pts, written_answer_checksum(answers.get(gid, ""), release_answers.get(gid)))
                           for gid, pts in manual]
    checks = load_checks(job.assignment)
    with job_folder(job.student_id) as job_dir:
        run_started = time.monotonic()
        outcome, folders = _run_notebook(job, release_nb, prepared, checks, job_dir)
        result.run_seconds = time.monotonic() - run_started
        result.autograded_cells = list(autograded)
        _read_back(job, prepared, checks, outcome, folders, result, flags)
    merged = {}
    for flag in flags:
        merged.setdefault(flag.code, []).append(flag.detail)
    result.flags = [Flag(code, "; ".join(d for d in details if d)) for code, details in sorted(merged.items())]
    return None


def _read_back(job, prepared, checks, outcome, folders, result, flags):
    """Everything the run left behind, read through the trust boundary into ``result`` and ``flags``."""
    from autograder.boundary.from_sandbox import read_executed_cells, read_probe_results, read_runner_report
    from autograder.judging.checks import probe_ids
    from autograder.judging.integrity import scan_folder

    limits = job.settings.limits
    out, work, original = folders
    report = read_runner_report(os.path.join(out, protocol.REPORT_FILE), len(prepared.cells),
                                limits.runner_report_bytes)
    result.status, result.reason = _status_from_outcome(outcome, report, job.settings)
    result.probe_results = read_probe_results(out, limits.probe_results_bytes, probe_ids(checks)) \
        if result.status == GRADED else None
    result.runner_report = report
    executed = read_executed_cells(os.path.join(out, protocol.EXECUTED_NOTEBOOK_FILE),
                                   [c.cell_type for c in prepared.cells], max_bytes=limits.executed_notebook_bytes,
                                   cell_output_chars=limits.cell_output_bytes,
                                   total_output_chars=limits.total_output_bytes)
    result.autograded_notebook = _autograded_notebook(prepared, executed)
    more_flags, notes = _runner_flags(report)
    flags += more_flags + scan_folder(work, original)
    result.notes += notes
    if outcome.leftover_processes:
        flags.append(Flag("background-processes", f"{outcome.leftover_processes} outlived the sandbox and were killed"))


# -- the run's folder -----------------------------------------------------------------------

@contextlib.contextmanager
def job_folder(student_id):
    """A new folder in the temporary folder for one submission's run, locked while it is in use and removed after.

    The lock is an ``flock`` on a file in the folder, which the kernel
    releases when the process holding it ends, however it ends: a folder
    whose lock can be taken belongs to no live worker
    (:func:`remove_abandoned_folders`).  The lock file gets its name only
    once it is locked, so the folder is never seen unlocked with it.
    """
    folder = tempfile.mkdtemp(prefix=f"{JOB_FOLDER_PREFIX}{student_id[:20]}-")
    lock = None
    try:
        lock = os.open(os.path.join(folder, f"{JOB_LOCK}.new"), os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW, 0o600)
        fcntl.flock(lock, fcntl.LOCK_EX)
        os.rename(os.path.join(folder, f"{JOB_LOCK}.new"), os.path.join(folder, JOB_LOCK))
        yield folder
    finally:
        _remove_tree(folder)
        if lock is not None:
            os.close(lock)


def remove_abandoned_folders(parent=None):
    """Remove the job folders (:func:`job_folder`) in ``parent`` (the temporary folder) that no live process holds.

    They are those of a worker that died during a run; the folders of runs
    still going on, in this batch or another, are locked and left alone, and
    so are other users' folders.  Returns the folders removed.  The host runs
    it when a batch ends, a Dask cluster's workers when its batch ends, and ``verify`` (whose copies of the
    course, solutions and all, are job folders too) when it starts.
    """
    parent = parent or tempfile.gettempdir()
    removed = []
    try:
        names = sorted(os.listdir(parent))
    except OSError:
        return removed
    for name in names:
        folder = os.path.join(parent, name)
        try:
            info = os.lstat(folder)
        except OSError:
            continue
        if not name.startswith(JOB_FOLDER_PREFIX) or not os.path.isdir(folder) or os.path.islink(folder) \
                or info.st_uid != os.geteuid():
            continue
        try:
            lock = os.open(os.path.join(folder, JOB_LOCK), os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            if time.time() - info.st_mtime > UNLOCKED_FOLDER_SECONDS:
                _remove_tree(folder)
                removed.append(folder)
            continue
        except OSError:
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # a live worker holds it
        else:
            _remove_tree(folder)
            removed.append(folder)
        finally:
            os.close(lock)
    return removed


# -- the run ---------------------------------------------------------------------------

def sandbox_env(home, tmp, matplotlib_dir, pythonpath, path):
    """The whole environment of the runner and the kernel: nothing of the host's leaks in."""
    env = {
        "PATH": path, "HOME": home, "USER": "student", "LOGNAME": "student", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
        "TMPDIR": tmp, "MPLBACKEND": "Agg", "MPLCONFIGDIR": matplotlib_dir, "IPYTHONDIR": f"{tmp}/ipython",
        "XDG_CACHE_HOME": f"{tmp}/cache", "XDG_CONFIG_HOME": f"{tmp}/config",
        "JUPYTER_RUNTIME_DIR": f"{tmp}/jupyter/runtime", "JUPYTER_DATA_DIR": f"{tmp}/jupyter/data",
        "JUPYTER_CONFIG_DIR": f"{tmp}/jupyter/config", "JUPYTER_PLATFORM_DIRS": "1",
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1", "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    }
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


@functools.lru_cache(maxsize=1)
def _matplotlib_font_list():
    """matplotlib's font list, built once per worker process, as ``(file name, bytes)``; ``None`` when it cannot
    be built.

    A kernel that imports matplotlib in a fresh configuration folder scans
    every system font before it can draw: copying this list into each
    sandbox saves that scan, which would otherwise be repeated for every
    submission.  It is kept in memory, so the folder it is built in (a
    :func:`job_folder`, which :func:`remove_abandoned_folders` finds if this
    process dies meanwhile) is removed at once.
    """
    from autograder.running import sandbox

    with job_folder("matplotlib") as folder:
        env = {"PATH": "/usr/bin:/bin", "HOME": folder, "MPLCONFIGDIR": folder, "MPLBACKEND": "Agg"}
        try:
            subprocess.run([sandbox.python_executable(), "-I", "-c", "import matplotlib.font_manager"], env=env,
                           capture_output=True, timeout=300, check=True)
        except (OSError, subprocess.SubprocessError):
            return None
        found = sorted(glob.glob(os.path.join(folder, "fontlist-*.json")))
        if not found:
            return None
        with open(found[-1], "rb") as f:
            return os.path.basename(found[-1]), f.read()


def build_font_list():
    """Build the matplotlib font list the sandboxes get, which every worker process would otherwise build for
    itself: called before a local pool forks them."""
    _matplotlib_font_list()


def _folder_usage(folder, max_entries):
    """``(bytes, entries)`` under ``folder``, counting no further than ``max_entries``."""
    total = entries = 0
    for root, dirs, files in os.walk(folder):
        for name in files:
            entries += 1
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
        if entries > max_entries:
            break
    return total, entries


def _lay_out(job, release_nb, prepared, checks, job_dir):
    """The run's private folders: ``work`` (release files and the notebook), ``in`` (probes), ``out``,
    and ``lib`` (the part of perceptron_lib the release imports, :mod:`autograder.course.library`)."""
    import nbformat

    from autograder.judging.checks import write_probes
    from autograder.course.library import build_library, release_imports

    work, probe_in, out, lib, mpl = (os.path.join(job_dir, name) for name in ("work", "in", "out", "lib", "mpl"))
    for folder in (work, probe_in, out, lib, mpl):
        os.makedirs(folder)
    build_library(release_imports(release_nb), lib)
    font_list = _matplotlib_font_list()
    if font_list:
        name, data = font_list
        with open(os.path.join(mpl, name), "wb") as f:
            f.write(data)
    for name in sorted(os.listdir(job.release_dir)):
        src = os.path.join(job.release_dir, name)
        if name == f"{job.assignment}.ipynb" or name.startswith(".") or os.path.islink(src):
            continue
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(work, name), symlinks=False)
        else:
            shutil.copy(src, os.path.join(work, name))
    with open(os.path.join(work, f"{job.assignment}.ipynb"), "w") as f:
        nbformat.write(prepared, f)
    write_probes(checks, probe_in)
    return work, probe_in, out, lib, mpl


def _job_file(job, prepared, cwd, paths):
    """The runner's instructions for running ``prepared``, the notebook of ``job``."""
    settings = job.settings
    return runner_job(notebook=f"{cwd}/{job.assignment}.ipynb", cwd=cwd, out_dir=paths["out"], probe_in=paths["in"],
                      limits=settings.limits, cell_seconds=settings.cell_seconds, call_seconds=settings.call_seconds,
                      cell_seconds_by_index=cell_seconds_by_index(prepared.cells, settings.cell_seconds_by_cell),
                      python_path=[paths["lib"]],
                      # Without a pid namespace every process of the machine is visible: listing them means nothing.
                      list_processes=settings.use_sandbox)


def _run_notebook(job, release_nb, prepared, checks, job_dir):
    """Execute ``prepared`` in a sandbox (or not); return ``(outcome, (out_dir, work_dir, original_names))``."""
    from autograder.running import sandbox
    from autograder.course.library import PACKAGE, TEST_HELPERS_PACKAGE

    settings, limits = job.settings, job.settings.limits
    work, probe_in, out, lib, mpl = _lay_out(job, release_nb, prepared, checks, job_dir)
    original = {os.path.relpath(os.path.join(r, n), work) for r, ds, fs in os.walk(work) for n in ds + fs}

    if settings.use_sandbox:
        cwd = f"{SANDBOX_HOME}/{job.assignment}"
        paths = {"in": SANDBOX_IN, "out": SANDBOX_OUT, "lib": SANDBOX_GRADER,
                 "runner": f"{SANDBOX_GRADER}/{RUNNER_FOLDER}/{os.path.basename(RUNNER)}"}
    else:
        cwd = work
        # The other user id cannot read the grader's folders: it runs a copy beside the notebook's library.
        runner = os.path.join(lib, RUNNER_FOLDER, os.path.basename(RUNNER)) if settings.unprivileged_user else RUNNER
        paths = {"in": probe_in, "out": out, "lib": lib, "runner": runner}
    _job_file(job, prepared, cwd, paths).write(os.path.join(probe_in, protocol.JOB_FILE))

    wall_seconds = limits.notebook_seconds + limits.grace_seconds
    resources = sandbox.ProcessLimits.of(limits, cpu_seconds=wall_seconds + limits.grace_seconds)

    def watch():
        size, entries = _folder_usage(work, limits.work_files)
        out_size, _ = _folder_usage(out, limits.work_files)
        if size + out_size > limits.work_bytes or entries > limits.work_files:
            return (f"it wrote more than {limits.work_bytes / 2**20:g} MiB or {limits.work_files:,} files into "
                    "its folder, so it was stopped")
        return None

    python = sandbox.python_executable()
    if settings.use_sandbox:
        uid = sandbox.sandbox_uid()
        if uid is not None:
            for folder in (work, out, mpl):
                for root, dirs, files in os.walk(folder):
                    for name in [root] + [os.path.join(root, n) for n in dirs + files]:
                        os.chown(name, uid, uid)
        mounts = [
            sandbox.Mount(work, cwd, writable=True),
            sandbox.Mount(out, SANDBOX_OUT, writable=True),
            sandbox.Mount(mpl, SANDBOX_MATPLOTLIB, writable=True),
            sandbox.Mount(probe_in, SANDBOX_IN),
            sandbox.Mount(os.path.join(lib, PACKAGE), f"{SANDBOX_GRADER}/{PACKAGE}"),
            sandbox.Mount(os.path.join(lib, TEST_HELPERS_PACKAGE), f"{SANDBOX_GRADER}/{TEST_HELPERS_PACKAGE}"),
        ] + [sandbox.Mount(os.path.join(RUNNER_DIR, name), f"{SANDBOX_GRADER}/{RUNNER_FOLDER}/{name}")
             for name in protocol.RUNNER_FILES]
        env = sandbox_env(SANDBOX_HOME, "/tmp", SANDBOX_MATPLOTLIB, SANDBOX_GRADER,
                          f"{os.path.join(sys.prefix, 'bin')}:/usr/local/bin:/usr/bin:/bin")
        outcome = sandbox.run_sandboxed([python, "-I", paths["runner"], f"{SANDBOX_IN}/{protocol.JOB_FILE}"],
                                        mounts=mounts, cwd=cwd, env=env, timeout=wall_seconds,
                                        limits=resources, watch=watch)
    else:
        home, tmp = os.path.join(job_dir, "home"), os.path.join(job_dir, "tmp")
        os.makedirs(home)
        os.makedirs(tmp)
        env = sandbox_env(home, tmp, mpl, lib, os.environ.get("PATH", "/usr/bin:/bin"))
        command = [python, "-I", paths["runner"], os.path.join(probe_in, protocol.JOB_FILE)]
        if settings.unprivileged_user:
            _open_to_user(job_dir, writable=(work, out, mpl, home, tmp), readable=(probe_in, lib), grader_dir=lib)
            outcome = sandbox.run_as_user(command, cwd=cwd, env=env, timeout=wall_seconds, limits=resources,
                                          watch=watch)
        else:
            outcome = sandbox.run_unsandboxed(command, cwd=cwd, env=env, timeout=wall_seconds, limits=resources,
                                              watch=watch)
    return outcome, (out, work, original)


def _open_to_user(job_dir, *, writable, readable, grader_dir):
    """Let :func:`autograder.running.sandbox.run_as_user`'s user id into the run's folders, and into nothing else of ours.

    The runner and the modules beside it are copied beside the notebook's
    library, as the sandbox mounts them, because the grader's own folder
    (with the hidden checks) stays closed to that user.
    """
    from autograder.running import sandbox

    uid = sandbox.sandbox_uid()
    os.makedirs(os.path.join(grader_dir, RUNNER_FOLDER), exist_ok=True)
    for name in protocol.RUNNER_FILES:
        shutil.copyfile(os.path.join(RUNNER_DIR, name), os.path.join(grader_dir, RUNNER_FOLDER, name))
    os.chmod(job_dir, 0o711)  # the user may pass through to its folders, not list the others
    for folder in writable:
        for root, dirs, files in os.walk(folder):
            for name in [root] + [os.path.join(root, n) for n in dirs + files]:
                os.chown(name, uid, uid)
    for folder in readable:
        for root, dirs, files in os.walk(folder):
            os.chmod(root, 0o755)
            for name in files:
                os.chmod(os.path.join(root, name), 0o644)


# -- what the run means ------------------------------------------------------------------

def _status_from_outcome(outcome, report, settings):
    """``(status, reason)`` from what the host observed; the runner's report only adds detail.

    The runner runs the notebook in its own process, so a notebook that ends
    that process (``os._exit``, a fatal signal) ends the run: graded means
    the runner exited normally *and* wrote a finished report.
    """
    budget = settings.limits.notebook_seconds
    where = f" while running cell {report.stopped_at_cell + 1}" if report.stopped_at_cell is not None else ""
    if outcome.stopped_reason:
        return CRASHED, outcome.stopped_reason
    if outcome.timed_out:
        return TIMEOUT, (f"the notebook did not finish within its time budget of {budget:g} seconds "
                         "and was stopped, with everything it started")
    code = outcome.returncode
    if code == protocol.EXIT_BUDGET:
        return TIMEOUT, f"the notebook used up its time budget of {budget:g} seconds{where}"
    if code == protocol.EXIT_NO_SHELL:
        return CRASHED, "the Python shell that runs the notebook could not be started in the sandbox"
    if code == protocol.EXIT_OK and report.finished:
        return GRADED, ""
    if code > 128:
        return CRASHED, (f"the Python process running the notebook was killed by signal {code - 128}{where}, "
                         "from inside the notebook or for exceeding a resource limit")
    return CRASHED, (f"the notebook's Python process ended{where} before grading was done "
                     f"(exit status {code}), for example by calling os._exit or by running out of memory")


def _cells_text(indices):
    numbers = [str(i + 1) for i in indices]
    return f"cell {numbers[0]}" if len(numbers) == 1 else f"cells {', '.join(numbers[:-1])} and {numbers[-1]}"


def _runner_flags(report):
    """Flags and notes from the runner's report (untrusted: used only to inform, never to score)."""
    flags, notes = [], []
    if report.interrupted_cells:
        where = _cells_text(report.interrupted_cells)
        flags.append(Flag("cell-interrupted", where))
        notes.append(f"{where[0].upper()}{where[1:]} (counting every cell from 1) ran past its time limit "
                     "and was interrupted; the cells after it still ran.")
    if report.truncated_cells:
        where = _cells_text(report.truncated_cells)
        flags.append(Flag("output-truncated", where))
        notes.append(f"The output of {where} (counting every cell from 1) was too long; only its beginning was kept.")
    if report.processes_left:
        names = ", ".join(sorted(set(report.processes_left))[:5])
        flags.append(Flag("background-processes", f"{len(report.processes_left)} still running ({names})"))
    if not report.probes_ran and report.probe_error:
        notes.append(f"The hidden tests could not call your functions ({report.probe_error}).")
    return flags, notes


def _autograded_notebook(prepared, executed):
    """The prepared notebook with the outputs read back from the sandbox copied in, as JSON text."""
    import copy

    import nbformat

    nb = copy.deepcopy(prepared)
    copy_outputs(nb, executed)
    return nbformat.writes(nb)


def _remove_tree(path):
    def retry(func, target, _):
        try:
            os.chmod(os.path.dirname(target), 0o700)
            os.chmod(target, 0o700)
            func(target)
        except OSError:
            pass

    shutil.rmtree(path, onerror=retry)
