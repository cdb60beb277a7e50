"""``python -m autograder grade``: grade a batch of submissions safely, in parallel, and report.

The run has two sides.  Workers (any ``concurrent.futures.Executor``: a
process pool by default, or a Dask cluster with ``--scheduler``) each call
:func:`run_submission` on one submission: it reads the notebook as untrusted
data, rebuilds it around the release's locked cells
(:mod:`autograder.integrity`), runs it in a fresh sandbox
(:mod:`autograder.sandbox`, :mod:`autograder.runner`), and returns the plain
data the student's functions returned.  The host process judges that data
with the hidden checks (:mod:`autograder.checks`, :func:`judge`), so the
verdicts never depend on a worker, and alone
writes: as results arrive it records them, in submission order, in the
gradebook (:mod:`autograder.gradebook`), the autograded notebook and the
student's feedback page; at the end it writes ``grades.csv`` (to a temporary
file, then renamed) and ``report.html`` (:mod:`autograder.report`).

A bad submission never stops the batch: each one ends with a status
(graded, ungradable, timeout, crashed) and a reason.  The run itself stops
only when it cannot proceed (unknown or unreleased assignment, unreadable
submissions, no sandbox and no ``--unsafe-no-sandbox``), with a message that
says what to do.
"""

import argparse
import concurrent.futures
import csv
import functools
import json
import multiprocessing
import os
import shutil
import sys
import tempfile
import time

from .results import (CRASHED, GRADED, MISSING, STATUSES, TIMEOUT, UNGRADABLE, CellResult, Flag, Job, Result,
                      Settings)

__all__ = ["main", "grade_one", "run_submission", "judge", "grade_submissions", "make_jobs", "write_grades_csv"]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COURSE_DIR = os.path.join(ROOT, "notebooks")
HERE = os.path.dirname(os.path.abspath(__file__))

# Where things are inside the sandbox.
SANDBOX_GRADER = "/grader"
SANDBOX_IN = "/grading/in"
SANDBOX_OUT = "/grading/out"
SANDBOX_HOME = "/home/student"

# Exit statuses of autograder/runner.py (kept in step with that file, which imports nothing from here).
RUNNER_OK, RUNNER_KERNEL_DIED, RUNNER_BUDGET, RUNNER_NO_KERNEL = 0, 3, 4, 5
GRACE_SECONDS = 10
ALLOWED_MIME = ("text/plain", "image/png", "image/jpeg")
MAX_EXECUTED_BYTES = 64 * 2**20


# -- the worker side ----------------------------------------------------------------

def _parse_notebook(data):
    """The submitted notebook as a JSON object, or the reason it is not one."""
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
    return nb, None


def _sandbox_env(home, tmp, pythonpath, path):
    """The whole environment of the runner and the kernel: nothing of the host's leaks in."""
    env = {
        "PATH": path, "HOME": home, "USER": "student", "LOGNAME": "student", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TMPDIR": tmp,
        "MPLBACKEND": "Agg", "MPLCONFIGDIR": f"{tmp}/matplotlib", "IPYTHONDIR": f"{tmp}/ipython",
        "XDG_CACHE_HOME": f"{tmp}/cache", "XDG_CONFIG_HOME": f"{tmp}/config",
        "JUPYTER_RUNTIME_DIR": f"{tmp}/jupyter/runtime", "JUPYTER_DATA_DIR": f"{tmp}/jupyter/data",
        "JUPYTER_CONFIG_DIR": f"{tmp}/jupyter/config", "JUPYTER_PLATFORM_DIRS": "1",
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "PYTHONDONTWRITEBYTECODE": "1", "PYDEVD_DISABLE_FILE_VALIDATION": "1",
    }
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    return env


def _folder_bytes(folder, limit_entries=20_000):
    total = entries = 0
    for root, dirs, files in os.walk(folder):
        for name in files:
            entries += 1
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
        if entries > limit_entries:
            return total, entries
    return total, entries


def _run_notebook(job, prepared, checks, job_dir):
    """Execute ``prepared`` in a sandbox (or not); return ``(outcome, out_dir, work_dir, original_names)``."""
    from . import sandbox
    from .checks import write_probes

    settings = job.settings
    work = os.path.join(job_dir, "work")
    probe_in = os.path.join(job_dir, "in")
    out = os.path.join(job_dir, "out")
    for folder in (work, probe_in, out):
        os.makedirs(folder)
    for name in sorted(os.listdir(job.release_dir)):
        src = os.path.join(job.release_dir, name)
        if name == f"{job.assignment}.ipynb" or name.startswith(".") or os.path.islink(src):
            continue
        if os.path.isdir(src):
            shutil.copytree(src, os.path.join(work, name), symlinks=False)
        else:
            shutil.copy(src, os.path.join(work, name))
    import nbformat

    notebook_name = f"{job.assignment}.ipynb"
    with open(os.path.join(work, notebook_name), "w") as f:
        nbformat.write(prepared, f)
    original = {os.path.relpath(os.path.join(r, n), work) for r, ds, fs in os.walk(work) for n in ds + fs}
    write_probes(checks, probe_in)

    use_sandbox = settings.use_sandbox
    if use_sandbox:
        cwd = f"{SANDBOX_HOME}/{job.assignment}"
        paths = {"in": SANDBOX_IN, "out": SANDBOX_OUT, "probe": f"{SANDBOX_GRADER}/autograder/probe.py",
                 "runner": f"{SANDBOX_GRADER}/autograder/runner.py"}
    else:
        cwd = work
        paths = {"in": probe_in, "out": out, "probe": os.path.join(HERE, "probe.py"),
                 "runner": os.path.join(HERE, "runner.py")}
    job_file = {
        "notebook": f"{cwd}/{notebook_name}", "cwd": cwd, "out_dir": paths["out"],
        "probe_in": paths["in"], "probe_out": paths["out"], "probe_module": paths["probe"],
        "budget_seconds": settings.timeout, "cell_timeout": settings.cell_timeout,
        "probe_seconds": settings.probe_seconds, "max_cell_output_bytes": settings.max_cell_output_bytes,
        "max_total_output_bytes": settings.max_total_output_bytes, "max_message_bytes": 16 * 2**20,
        "startup_timeout": 60,
        # Without a pid namespace every process of the machine is visible: listing them means nothing.
        "list_processes": use_sandbox,
    }
    with open(os.path.join(probe_in, "job.json"), "w") as f:
        json.dump(job_file, f)

    limits = sandbox.Limits(memory_bytes=settings.memory_bytes, processes=settings.max_processes,
                            file_bytes=settings.max_file_bytes,
                            cpu_seconds=int(settings.timeout + GRACE_SECONDS + 10))

    def watch():
        size, entries = _folder_bytes(work)
        out_size, _ = _folder_bytes(out)
        if size + out_size > settings.max_work_bytes or entries > 20_000:
            return (f"it wrote more than {settings.max_work_bytes // 2**20} MiB or 20,000 files into its folder, "
                    "so it was stopped")
        return None

    python = sandbox.python_executable()
    if use_sandbox:
        uid = sandbox.sandbox_uid()
        if uid is not None:
            for folder in (work, out):
                for root, dirs, files in os.walk(folder):
                    for name in [root] + [os.path.join(root, n) for n in dirs + files]:
                        os.chown(name, uid, uid)
        mounts = [
            sandbox.Mount(work, cwd, writable=True),
            sandbox.Mount(out, SANDBOX_OUT, writable=True),
            sandbox.Mount(probe_in, SANDBOX_IN),
            sandbox.Mount(os.path.join(ROOT, "perceptron_lib"), f"{SANDBOX_GRADER}/perceptron_lib"),
            sandbox.Mount(os.path.join(HERE, "probe.py"), paths["probe"]),
            sandbox.Mount(os.path.join(HERE, "runner.py"), paths["runner"]),
        ]
        env = _sandbox_env(SANDBOX_HOME, "/tmp", SANDBOX_GRADER,
                           f"{os.path.join(sys.prefix, 'bin')}:/usr/local/bin:/usr/bin:/bin")
        outcome = sandbox.run_sandboxed([python, "-I", paths["runner"], f"{SANDBOX_IN}/job.json"],
                                        mounts=mounts, cwd=cwd, env=env, timeout=settings.timeout + GRACE_SECONDS,
                                        limits=limits, watch=watch)
    else:
        home = os.path.join(job_dir, "home")
        tmp = os.path.join(job_dir, "tmp")
        os.makedirs(home)
        os.makedirs(tmp)
        env = _sandbox_env(home, tmp, None, os.environ.get("PATH", "/usr/bin:/bin"))
        outcome = sandbox.run_unsandboxed([python, "-I", paths["runner"], os.path.join(probe_in, "job.json")],
                                          cwd=cwd, env=env, timeout=settings.timeout + GRACE_SECONDS,
                                          limits=limits, watch=watch)
    return outcome, out, work, original


def _read_json(path, max_bytes):
    """A JSON file written in the sandbox, or ``None``; never follows links, never trusts the size."""
    from .submissions import read_notebook_bytes

    data, problem = read_notebook_bytes(path, max_bytes)
    if problem:
        return None
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


def _clean_output(output, max_chars):
    """A copy of one executed output with only plain, size-capped, harmless content, or ``None``."""
    if not isinstance(output, dict):
        return None
    kind = output.get("output_type")

    def text(value):
        if isinstance(value, list):
            value = "".join(v for v in value if isinstance(v, str))
        return value[:max_chars] if isinstance(value, str) else ""

    if kind == "stream":
        name = output.get("name") if output.get("name") in ("stdout", "stderr") else "stdout"
        return {"output_type": "stream", "name": name, "text": text(output.get("text"))}
    if kind == "error":
        tb = output.get("traceback")
        tb = [text(line) for line in tb[:100]] if isinstance(tb, list) else []
        return {"output_type": "error", "ename": text(output.get("ename"))[:200],
                "evalue": text(output.get("evalue"))[:2000], "traceback": tb}
    if kind in ("display_data", "execute_result"):
        data = output.get("data") if isinstance(output.get("data"), dict) else {}
        kept = {}
        for mime in ALLOWED_MIME:
            value = text(data.get(mime)) if mime in data else ""
            if not value:
                continue
            if mime.startswith("image/"):
                value = "".join(value.split())
                if not all(c.isalnum() or c in "+/=" for c in value):
                    continue
            kept[mime] = value
        if not kept:
            return None
        cleaned = {"output_type": kind, "data": kept, "metadata": {}}
        if kind == "execute_result":
            count = output.get("execution_count")
            cleaned["execution_count"] = count if type(count) is int else None
        return cleaned
    return None


def _autograded_notebook(prepared, executed, settings):
    """The prepared notebook with the sandbox's outputs copied in (checked, capped), as JSON text."""
    import copy

    import nbformat

    nb = copy.deepcopy(prepared)
    cells = executed.get("cells") if isinstance(executed, dict) else None
    if isinstance(cells, list) and len(cells) == len(nb.cells):
        budget = settings.max_total_output_bytes
        for cell, ran in zip(nb.cells, cells):
            if cell.cell_type != "code" or not isinstance(ran, dict) or ran.get("cell_type") != "code":
                continue
            outputs = ran.get("outputs") if isinstance(ran.get("outputs"), list) else []
            kept = []
            for output in outputs[:50]:
                cleaned = _clean_output(output, min(settings.max_cell_output_bytes, max(budget, 0)))
                if cleaned is None:
                    continue
                budget -= len(json.dumps(cleaned))
                if budget < 0:
                    break
                kept.append(nbformat.from_dict(cleaned))
            cell.outputs = kept
            count = ran.get("execution_count")
            cell.execution_count = count if type(count) is int else None
    return nbformat.writes(nb)


def _cells_text(indices):
    numbers = [str(i + 1) for i in indices]
    return f"cell {numbers[0]}" if len(numbers) == 1 else f"cells {', '.join(numbers[:-1])} and {numbers[-1]}"


def _runner_flags(report, prepared):
    """Flags and notes from the runner's own report (untrusted: used only to inform, never to score)."""
    flags, notes = [], []
    if not isinstance(report, dict):
        return flags, notes

    def cell_list(key):
        value = report.get(key)
        return sorted({i for i in value if type(i) is int and 0 <= i < len(prepared.cells)})[:20] \
            if isinstance(value, list) else []

    interrupted = cell_list("interrupted_cells")
    if interrupted:
        where = _cells_text(interrupted)
        flags.append(Flag("cell-interrupted", where))
        notes.append(f"{where[0].upper()}{where[1:]} (counting every cell from 1) ran past the per-cell time limit "
                     "and was interrupted; the cells after it still ran.")
    truncated = cell_list("truncated_cells")
    if truncated:
        where = _cells_text(truncated)
        flags.append(Flag("output-truncated", where))
        notes.append(f"The output of {where} (counting every cell from 1) was too long; only its beginning was kept.")
    left = report.get("processes_left")
    if isinstance(left, list) and left:
        names = ", ".join(sorted({str(n)[:40] for n in left})[:5])
        flags.append(Flag("background-processes", f"{len(left)} still running ({names})"))
    if report.get("probes_ran") is False and isinstance(report.get("probe_error"), str):
        notes.append(f"The hidden tests could not call your functions ({report['probe_error'][:100]}).")
    return flags, notes


def _status_from_outcome(outcome, report, settings, prepared):
    """``(status, reason)`` from what the host observed; the runner's report only adds detail."""
    stopped = report.get("stopped_at_cell") if isinstance(report, dict) else None
    where = f" while running cell {stopped + 1}" if type(stopped) is int and 0 <= stopped < len(prepared.cells) else ""
    if outcome.stopped_reason:
        return CRASHED, outcome.stopped_reason
    if outcome.timed_out:
        return TIMEOUT, (f"the notebook did not finish within its time budget of {settings.timeout:g} seconds "
                         "and was stopped, with everything it started")
    code = outcome.returncode
    if code == RUNNER_BUDGET:
        return TIMEOUT, f"the notebook used up its time budget of {settings.timeout:g} seconds{where}"
    if code == RUNNER_KERNEL_DIED:
        return CRASHED, f"the notebook's Python kernel died{where} (for example by calling os._exit or running out of memory)"
    if code == RUNNER_NO_KERNEL:
        return CRASHED, "the Python kernel could not be started in the sandbox"
    if code == RUNNER_OK:
        return GRADED, ""
    if code > 128:
        return CRASHED, (f"the process running the notebook was killed by signal {code - 128}, "
                         "from inside the notebook or for exceeding a resource limit")
    return CRASHED, f"the process running the notebook stopped unexpectedly (exit status {code})"


def _score(checks, autograded, records, arrays, status, reason):
    """One :class:`CellResult` per autograded cell, in notebook order."""
    from .checks import verdicts_from_results

    verdicts = {v.grade_id: v for v in verdicts_from_results(checks, records, arrays)} if status == GRADED else {}
    cells = []
    for grade_id, points in autograded:
        verdict = verdicts.get(grade_id)
        if status != GRADED:
            cells.append(CellResult(grade_id, 0.0, points, False, f"Not run: {reason}."))
        elif verdict is None:
            cells.append(CellResult(grade_id, 0.0, points, False,
                                    "No hidden test covers this cell; the instructor grades it by hand.", judged=False))
        else:
            cells.append(CellResult(grade_id, points if verdict.passed else 0.0, points, verdict.passed,
                                    "Passed." if verdict.passed else verdict.message))
    return cells


def run_submission(job):
    """Run one submission and collect what it returned, unjudged; a pure function of ``job``.

    Picklable in and out, so any executor can run it.  The result carries the
    probe data (``probe_results``) for :func:`judge` to turn into verdicts.
    """
    started = time.monotonic()
    result = Result(job.student_id, job.assignment, UNGRADABLE, sandboxed=job.settings.use_sandbox,
                    source_sha256=job.source_sha256)
    try:
        _grade_into(job, result)
    finally:
        result.seconds = time.monotonic() - started
    return result


def judge(result):
    """Turn the probe data of a run into one verdict per autograded cell, and the score."""
    from .checks import load_checks

    if result.autograded_cells is not None:
        records, arrays = result.probe_results or ({}, {})
        result.cells = _score(load_checks(result.assignment), result.autograded_cells, records, arrays,
                              result.status, result.reason)
        result.autograded_cells = result.probe_results = None
    result.score = sum(c.points for c in result.cells)
    return result


def grade_one(job):
    """Run and judge one submission in this process."""
    return judge(run_submission(job))


def _grade_into(job, result):
    import hashlib

    import nbformat

    from .checks import load_checks, read_results
    from .integrity import answer_checksum, grade_cells, prepare_notebook, scan_code, scan_folder
    from .submissions import read_notebook_bytes

    settings = job.settings
    release_nb = nbformat.read(os.path.join(job.release_dir, f"{job.assignment}.ipynb"), as_version=4)
    autograded, manual = grade_cells(release_nb)
    result.max_score = sum(points for _, points in autograded)
    release_answers = {c.metadata["nbgrader"]["grade_id"]: c.source for c in release_nb.cells
                       if c.metadata.get("nbgrader", {}).get("solution")}

    def ungradable(reason):
        result.status, result.reason = UNGRADABLE, reason
        result.cells = [CellResult(gid, 0.0, pts, False, f"Not run: {reason}.") for gid, pts in autograded]
        result.manual_cells = [(gid, pts, None) for gid, pts in manual]

    if job.problem:
        return ungradable(job.problem)
    data, problem = read_notebook_bytes(job.notebook_path, settings.max_notebook_bytes)
    if problem:
        return ungradable(problem)
    result.source_sha256 = hashlib.sha256(data).hexdigest()
    student_nb, problem = _parse_notebook(data)
    if problem:
        return ungradable(problem)

    prepared, flags, authored, answers = prepare_notebook(student_nb, release_nb)
    flags += scan_code(authored)
    result.manual_cells = [(gid, pts, None if not answers.get(gid, "").strip()
                            or answers.get(gid) == release_answers.get(gid) else answer_checksum(answers[gid]))
                           for gid, pts in manual]
    checks = load_checks(job.assignment)

    job_dir = tempfile.mkdtemp(prefix=f"autograde-{job.student_id[:20]}-")
    try:
        run_started = time.monotonic()
        outcome, out, work, original = _run_notebook(job, prepared, checks, job_dir)
        result.run_seconds = time.monotonic() - run_started
        report = _read_json(os.path.join(out, "runner.json"), 1 << 20) or {}
        status, reason = _status_from_outcome(outcome, report, settings, prepared)
        result.status, result.reason = status, reason
        result.autograded_cells = autograded
        result.probe_results = read_results(out) if status == GRADED else ({}, {})
        executed = _read_json(os.path.join(out, "executed.ipynb"), MAX_EXECUTED_BYTES)
        result.autograded_notebook = _autograded_notebook(prepared, executed, settings)
        more_flags, notes = _runner_flags(report, prepared)
        flags += more_flags + scan_folder(work, original)
        result.notes += notes
        if outcome.leftover_processes:
            flags.append(Flag("background-processes", f"{outcome.leftover_processes} outlived the sandbox and were killed"))
    finally:
        _remove_tree(job_dir)
    merged = {}
    for flag in flags:
        merged.setdefault(flag.code, []).append(flag.detail)
    result.flags = [Flag(code, "; ".join(d for d in details if d)) for code, details in sorted(merged.items())]


def _remove_tree(path):
    def retry(func, target, _):
        try:
            os.chmod(os.path.dirname(target), 0o700)
            os.chmod(target, 0o700)
            func(target)
        except OSError:
            pass

    shutil.rmtree(path, onerror=retry)


# -- the host side --------------------------------------------------------------------

def make_jobs(assignment, submissions, release_dir, settings):
    """One :class:`Job` per :class:`~autograder.submissions.Submission`."""
    return [Job(student_id=s.student_id, assignment=assignment, notebook_path=s.path, release_dir=release_dir,
                settings=settings, problem=s.problem) for s in submissions]


def _internal_error(job, exc):
    return Result(job.student_id, job.assignment, CRASHED,
                  reason=f"the grader itself failed on this submission ({type(exc).__name__}: {str(exc)[:200]}); "
                         "grade it again or by hand", sandboxed=job.settings.use_sandbox)


def with_download_facts(result, submission):
    """``result`` with what the download said about the submission: its name there, its time, its flags."""
    result.source = submission.source
    result.submitted_at = submission.submitted_at
    if submission.flags:
        codes = {f.code for f in result.flags}
        result.flags = sorted(result.flags + [Flag(code, detail) for code, detail in submission.flags
                                              if code not in codes], key=lambda f: f.code)
    return result


def missing_result(submission, assignment, max_score, sandboxed):
    """The row of a roster student with no submission: status missing, score 0 out of the assignment's points."""
    return Result(submission.student_id, assignment, MISSING, reason=submission.problem, max_score=max_score,
                  sandboxed=sandboxed)


def write_grades_csv(path, results):
    """Write ``grades.csv`` atomically: to a temporary file in the same folder, then renamed."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".grades-", suffix=".csv", dir=folder)
    try:
        with os.fdopen(fd, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["student_id", "assignment", "score", "max_score", "status", "flags", "source",
                             "submitted_at"])
            for r in results:
                writer.writerow([r.student_id, r.assignment, f"{r.score:g}", f"{r.max_score:g}", r.status,
                                 ";".join(r.flag_codes), r.source, r.submitted_at])
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _write_text_atomic(path, text):
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def _previous_answers(path, manual_ids):
    """Checksums of the manually graded answers in a previously written autograded notebook."""
    from .integrity import answer_checksum

    try:
        with open(path, encoding="utf-8") as f:
            nb = json.load(f)
    except (OSError, ValueError):
        return {}
    found = {}
    for cell in nb.get("cells", []) if isinstance(nb, dict) else []:
        meta = cell.get("metadata", {}).get("nbgrader", {}) if isinstance(cell, dict) else {}
        gid = meta.get("grade_id") if isinstance(meta, dict) else None
        if gid in manual_ids:
            source = cell.get("source", "")
            found[gid] = answer_checksum("".join(source) if isinstance(source, list) else str(source))
    return found


def _record(result, *, gb, course_dir, out_dir, notebook_name, sandbox_text):
    """Write everything about one result on the host: gradebook, autograded notebook, feedback."""
    from . import report
    from .gradebook import record_result

    autograded_path = os.path.join(course_dir, "autograded", result.student_id, result.assignment, notebook_name)
    previous = _previous_answers(autograded_path, {gid for gid, _, _ in result.manual_cells})
    unchanged = [gid for gid, _, checksum in result.manual_cells if checksum and previous.get(gid) == checksum]
    record_result(gb, result, notebook_name[:-len(".ipynb")], unchanged_answers=unchanged)
    if result.autograded_notebook is not None:
        _write_text_atomic(autograded_path, result.autograded_notebook)
    elif os.path.exists(autograded_path):
        os.unlink(autograded_path)
    _write_text_atomic(os.path.join(out_dir, "feedback", f"{result.student_id}.html"),
                       report.feedback_html(result, sandbox_text=sandbox_text))


def grade_submissions(assignment, submissions, *, course_dir, out_dir, settings=Settings(), executor=None,
                      workers=None, progress=None, skipped=(), sandbox_text="", notes=()):
    """Grade ``submissions`` through ``executor`` and write every output; return the results in order.

    ``executor`` is any ``concurrent.futures.Executor`` (default: a process
    pool of ``workers`` processes, one per core).  ``progress(done, total,
    result)`` is called as each result arrives.  The gradebook, the
    autograded notebooks and the feedback are written by this process only,
    in submission order.  A roster student with no submission (``missing``)
    gets a row, and nothing is run for them.
    """
    from . import report
    from .exports import CANVAS_FILE, MOODLE_FILE, ExportRow, canvas_csv, moodle_csv
    from .gradebook import open_gradebook

    started = time.time()
    release_dir = os.path.join(course_dir, "release", assignment)
    notebook_name = f"{assignment}.ipynb"
    absent = [s for s in submissions if s.missing]
    submissions = [s for s in submissions if not s.missing]
    jobs = make_jobs(assignment, submissions, release_dir, settings)
    os.makedirs(os.path.join(out_dir, "feedback"), exist_ok=True)
    own_executor = executor is None
    if own_executor:
        # Forked workers start at once with this process's modules already imported.
        method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
        executor = concurrent.futures.ProcessPoolExecutor(
            max_workers=max(1, workers or os.cpu_count() or 1), mp_context=multiprocessing.get_context(method))
    results = [None] * len(jobs)
    written = 0
    gb = open_gradebook(course_dir)
    try:
        futures = {executor.submit(run_submission, job): i for i, job in enumerate(jobs)}
        done = 0
        for future in concurrent.futures.as_completed(futures):
            i = futures[future]
            try:
                results[i] = judge(future.result())
            except Exception as exc:  # a broken worker must not stop the batch
                results[i] = _internal_error(jobs[i], exc)
            results[i] = with_download_facts(results[i], submissions[i])
            done += 1
            if progress:
                progress(done, len(jobs), results[i])
            while written < len(jobs) and results[written] is not None:
                _record(results[written], gb=gb, course_dir=course_dir, out_dir=out_dir,
                        notebook_name=notebook_name, sandbox_text=sandbox_text)
                written += 1
    finally:
        gb.close()
        if own_executor:
            executor.shutdown(wait=True, cancel_futures=True)
    max_score = max((r.max_score for r in results), default=0.0)
    results = sorted(results + [missing_result(s, assignment, max_score, settings.use_sandbox) for s in absent],
                     key=lambda r: r.student_id)
    write_grades_csv(os.path.join(out_dir, "grades.csv"), results)
    people = {s.student_id: s for s in submissions + absent}
    rows = [ExportRow(r.student_id, r.score, people[r.student_id].name, people[r.student_id].email,
                      people[r.student_id].canvas_user_id) for r in results]
    _write_text_atomic(os.path.join(out_dir, CANVAS_FILE), canvas_csv(assignment, max_score, rows))
    _write_text_atomic(os.path.join(out_dir, MOODLE_FILE), moodle_csv(assignment, rows))
    _write_text_atomic(os.path.join(out_dir, "report.html"),
                       report.report_html(assignment, results, skipped=skipped, sandbox_text=sandbox_text,
                                          sandboxed=settings.use_sandbox, started=started,
                                          seconds=time.time() - started, settings=settings, notes=notes))
    return results


# -- the command line -----------------------------------------------------------------

class _Progress:
    """A progress bar on a terminal, one line per submission otherwise."""

    def __init__(self, stream=sys.stderr):
        self.stream = stream
        self.tty = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, done, total, result):
        text = f"{result.student_id}: {result.status} {result.score:g}/{result.max_score:g}"
        if result.flags:
            text += f" [flags: {', '.join(result.flag_codes)}]"
        if self.tty:
            width = 30
            filled = int(width * done / max(total, 1))
            self.stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} {text[:60]:<60}")
            if done == total:
                self.stream.write("\n")
        else:
            self.stream.write(f"{done}/{total} {text}\n")
        self.stream.flush()


def summary_lines(results, skipped, seconds, sandbox_text, sandboxed):
    counts = {status: sum(r.status == status for r in results) for status in STATUSES}
    flagged = sum(bool(r.flags) for r in results)
    lines = [f"{len(results)} submissions in {seconds:.1f} s: " + ", ".join(f"{counts[s]} {s}" for s in STATUSES)
             + f"; {flagged} flagged"]
    if skipped:
        lines.append(f"{len(skipped)} {'entry' if len(skipped) == 1 else 'entries'} of the download not graded "
                     "(receipts, metadata, earlier attempts ...; report.html says why): "
                     + ", ".join(s.name for s in skipped[:5]) + (" ..." if len(skipped) > 5 else ""))
    lines.append(("sandbox: " + sandbox_text) if sandboxed else
                 "WARNING: graded WITHOUT a sandbox (--unsafe-no-sandbox): student code ran with your permissions")
    return lines


def _fail(message):
    print(f"autograder grade: {message}", file=sys.stderr)
    return 2


def main(argv=None):
    from .runner import _skip_slow_optional_imports

    _skip_slow_optional_imports()
    from . import sandbox
    from .checks import load_checks
    from .gradebook import GradebookError, assignment_info, open_gradebook
    from .roster import RosterError, load_roster, parse_deadline
    from .submissions import SubmissionsError, collect_batch

    parser = argparse.ArgumentParser(
        prog="python -m autograder grade",
        description="Grade a folder or .zip of submitted notebooks, each in its own sandbox; write grades.csv, "
                    "feedback pages and report.html, and record the grades in nbgrader's gradebook.")
    parser.add_argument("assignment", metavar="ASSIGNMENT")
    parser.add_argument("submissions", metavar="SUBMISSIONS",
                        help="the LMS's download (Canvas, Moodle, Blackboard, Gradescope export), or a folder of "
                             "<student_id>.ipynb files or <student_id>/ folders; a folder or a .zip")
    parser.add_argument("--out", required=True, metavar="DIR", help="where to write grades.csv, feedback/ and report.html")
    parser.add_argument("--workers", type=int, default=None, metavar="N",
                        help="submissions graded at the same time (default: one per core)")
    parser.add_argument("--timeout", type=float, default=300.0, metavar="SECONDS",
                        help="time budget of one whole notebook (default: %(default)g)")
    parser.add_argument("--cell-timeout", type=int, default=60, metavar="SECONDS",
                        help="time limit of one cell; a cell past it is interrupted and the next runs (default: %(default)s)")
    parser.add_argument("--course-dir", default=COURSE_DIR, metavar="DIR",
                        help="the nbgrader course directory with release/ and gradebook.db (default: %(default)s)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="grade on a Dask cluster: the scheduler's address (tcp://host:8786) or its scheduler "
                             "file (.json). Workers need this course directory and the submissions at the same paths")
    parser.add_argument("--roster", metavar="FILE.csv",
                        help="the class list: a student_id column and any of name, email, lms_id. Submissions are "
                             "matched to it; a student with no submission gets a row with status missing")
    parser.add_argument("--deadline", metavar="WHEN",
                        help="flag submissions the LMS recorded after this time as late (no penalty), in ISO 8601: "
                             "2025-01-31T23:59 (local time) or 2025-01-31T23:59+01:00")
    parser.add_argument("--unsafe-no-sandbox", action="store_true",
                        help="grade even where no sandbox can be made: student code then runs with your permissions")
    args = parser.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        return _fail(f"--workers must be at least 1; got {args.workers}")
    if args.timeout <= 0 or args.cell_timeout <= 0:
        return _fail("--timeout and --cell-timeout must be positive numbers of seconds")

    try:
        deadline = parse_deadline(args.deadline) if args.deadline else None
    except ValueError as exc:
        return _fail(str(exc))
    try:
        roster = load_roster(args.roster) if args.roster else None
    except RosterError as exc:
        return _fail(str(exc))
    try:
        load_checks(args.assignment)
    except ValueError as exc:
        return _fail(f"{exc} Check the spelling of ASSIGNMENT.")
    course_dir = os.path.abspath(args.course_dir)
    release_nb = os.path.join(course_dir, "release", args.assignment, f"{args.assignment}.ipynb")
    if not os.path.isfile(release_nb):
        return _fail(f"{args.assignment} has not been released ({release_nb} does not exist); "
                     f"run 'python -m autograder release {args.assignment}' first")
    try:
        gb = open_gradebook(course_dir)
        try:
            assignment_info(gb, args.assignment)
        finally:
            gb.close()
    except GradebookError as exc:
        return _fail(str(exc))

    status = sandbox.sandbox_status()
    if not status.available and not args.unsafe_no_sandbox:
        return _fail(f"no sandbox is available, so student code cannot be run safely: {status.description}. "
                     "Fix that, or pass --unsafe-no-sandbox to grade without isolation (only for code you trust).")
    use_sandbox = status.available and not args.unsafe_no_sandbox
    sandbox_text = status.description if use_sandbox else (
        "none: --unsafe-no-sandbox was given" + ("" if status.available else f" ({status.description})"))
    settings = Settings(timeout=args.timeout, cell_timeout=min(args.cell_timeout, int(max(1, args.timeout))),
                        use_sandbox=use_sandbox)

    try:
        os.makedirs(os.path.join(args.out, "feedback"), exist_ok=True)
    except OSError as exc:
        return _fail(f"cannot create the output folder {args.out}: {exc.strerror}")
    with tempfile.TemporaryDirectory(prefix="autograde-batch-") as scratch:
        try:
            batch = collect_batch(args.submissions, args.assignment, scratch,
                                  max_notebook_bytes=settings.max_notebook_bytes, roster=roster, deadline=deadline)
        except SubmissionsError as exc:
            return _fail(str(exc))
        submissions, skipped = batch.submissions, batch.skipped
        if not use_sandbox:
            print("autograder grade: WARNING: grading without a sandbox; student code runs with your permissions.",
                  file=sys.stderr)
        started = time.monotonic()
        run = functools.partial(grade_submissions, args.assignment, submissions, course_dir=course_dir,
                                out_dir=args.out, settings=settings, workers=args.workers, progress=_Progress(),
                                skipped=skipped, sandbox_text=sandbox_text, notes=batch.notes)
        if args.scheduler:
            from .cluster import ClusterUnavailable, dask_executor

            try:
                with dask_executor(args.scheduler) as executor:
                    results = run(executor=executor)
            except ClusterUnavailable as exc:
                return _fail(str(exc))
        else:
            results = run()
        seconds = time.monotonic() - started
    for line in summary_lines(results, skipped, seconds, sandbox_text, use_sandbox) + batch.notes:
        print(line)
    print(f"wrote {os.path.join(args.out, 'grades.csv')}, {os.path.join(args.out, 'report.html')}, "
          f"the gradebook imports canvas_import.csv and moodle_import.csv, "
          f"and {sum(r.status != MISSING for r in results)} feedback pages; "
          f"grades recorded in {os.path.join(course_dir, 'gradebook.db')}")
    return 0
