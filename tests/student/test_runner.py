"""The runner on its own: ``python -I perceptron_course/runner.py JOB.json`` on small notebooks, with no sandbox.

What a cell shows (printed text, results, displays, errors), a cell
interrupted at its limit with a traceback that ends in the student's code,
a notebook that swallows the interruption and meets its budget, one that
ends the process itself, the output caps, the probes, and files in the
notebook's folder that shadow modules the runner uses.  The sandbox around
it is tested end to end in ``tests/grader/commands/test_grade.py``.

The time limits, the budget, the probes' limit and the list of processes
left are also tested in Pythons that lack what Windows and macOS lack
(``tests/student/conftest.py``): the same notebooks, the same assertions.
"""

import json
import os
import re
import signal
import subprocess
import sys

import nbformat
import numpy as np
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.running import worker
from perceptron_course.execute import runner_job
from perceptron_course import probe, protocol
from perceptron_course.cells import cell_seconds_by_index
from perceptron_course.limits import Limits
from autograder.boundary.from_sandbox import read_executed_cells, read_runner_report
from autograder.results import Settings
from tests.support import ROOT
from autograder.running.sandbox import ProcessOutcome

RUNNER = os.path.join(ROOT, "perceptron_course", "runner.py")
ANSI = re.compile(r"\x1b\[[0-9;]*m")
pytestmark = pytest.mark.timeout(120)


def run(tmp_path, cells, *, probes=(), functions=None, cell_seconds=5.0, notebook_seconds=30.0, call_seconds=1.0,
        cell_bytes=100_000, total_bytes=2_000_000, files=None, by_cell=None, python=sys.executable,
        list_processes=False):
    """Run ``cells`` (sources, or cells) through the runner with ``python``; return ``(exit status, report, executed
    cells, run dir)``."""
    work, probe_in, out, lib = (tmp_path / name for name in ("work", "in", "out", "lib"))
    for folder in (work, probe_in, out, lib):
        folder.mkdir()
    for name, text in (files or {}).items():
        (work / name).write_text(text)
    nb = new_notebook(cells=[c if isinstance(c, dict) else new_code_cell(c) for c in cells])
    nbformat.write(nb, str(work / "nb.ipynb"))
    arrays = {}
    specs = [{"id": f"p{i}", "function": name, "args": probe.encode(tuple(args), arrays),
              "kwargs": probe.encode({}, arrays)} for i, (name, args) in enumerate(probes)]
    (probe_in / "probes.json").write_text(json.dumps(specs))
    np.savez(probe_in / "probes.npz", **arrays)
    limits = Limits(notebook_seconds=notebook_seconds, cell_output_bytes=cell_bytes, total_output_bytes=total_bytes)
    job = runner_job(notebook=str(work / "nb.ipynb"), cwd=str(work), out_dir=str(out), probe_in=str(probe_in),
                            limits=limits, cell_seconds=cell_seconds, call_seconds=call_seconds,
                            cell_seconds_by_index=cell_seconds_by_index(nb.cells, (by_cell or {}).items()),
                            python_path=[str(lib)], list_processes=list_processes)
    job.write(str(probe_in / "job.json"))
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path), "MPLBACKEND": "Agg",
           "MPLCONFIGDIR": str(tmp_path / "mpl"), "IPYTHONDIR": str(tmp_path / "ipython")}
    done = subprocess.run([str(python), "-I", RUNNER, str(probe_in / "job.json")], cwd=str(work), env=env,
                          capture_output=True, text=True, timeout=notebook_seconds + 30)
    report = read_runner_report(str(out / "runner.json"), len(nb.cells), 1 << 20)
    executed = read_executed_cells(str(out / "executed.ipynb"), [c.cell_type for c in nb.cells],
                                   max_bytes=1 << 26, cell_output_chars=1 << 20, total_output_chars=1 << 22)
    return done.returncode, report, executed, tmp_path


def outputs(cell):
    return [o.as_dict() for o in cell.outputs]


@pytest.fixture(params=["linux", "windows"])
def python(request):
    """This Python (Linux's timers), then one that lacks what Windows lacks (the timer is a watchdog thread)."""
    if request.param == "linux":
        return sys.executable
    return request.getfixturevalue("imitated_python")(request.param)


def test_cells_show_what_a_kernel_shows(tmp_path):
    code, report, executed, _ = run(tmp_path, [
        new_markdown_cell("# a heading"),
        "x = 20\nprint('one'); print('two')\nimport sys; print('warned', file=sys.stderr)",
        "x + 1",
        "from IPython.display import display\ndisplay('shown'); x;",
        "1 / 0",
        "def broken(:\n    pass",
    ])
    assert code == protocol.EXIT_OK and report.finished and report.probes_ran
    assert executed[0] is None
    assert [c.execution_count for c in executed[1:]] == [1, 2, 3, 4, 5]
    assert outputs(executed[1]) == [{"output_type": "stream", "name": "stdout", "text": "one\ntwo\n"},
                                    {"output_type": "stream", "name": "stderr", "text": "warned\n"}]
    assert outputs(executed[2]) == [{"output_type": "execute_result", "data": {"text/plain": "21"},
                                     "metadata": {}, "execution_count": 2}]
    assert outputs(executed[3]) == [{"output_type": "display_data", "data": {"text/plain": "'shown'"}, "metadata": {}}]
    error = outputs(executed[4])[0]
    assert (error["ename"], error["evalue"]) == ("ZeroDivisionError", "division by zero")
    assert "----> 1 1 / 0" in ANSI.sub("", "\n".join(error["traceback"]))
    assert outputs(executed[5])[0]["ename"] == "SyntaxError"
    assert report.interrupted_cells == () and report.stopped_at_cell is None
    assert set(dict(report.cell_seconds)) == {1, 2, 3, 4, 5}


def test_magics_that_notebooks_use_work_and_inline_figures_become_images(tmp_path):
    code, report, executed, _ = run(tmp_path, [
        "%matplotlib inline\nimport matplotlib.pyplot as plt",
        "plt.plot([1, 2, 3]);",
        "%load_ext autoreload\n%autoreload 2",
        "%time total = sum(range(10))\ntotal",
        "%gui tk",
    ])
    assert code == protocol.EXIT_OK and report.finished
    assert outputs(executed[0]) == [] and outputs(executed[2]) == []
    figure = outputs(executed[1])
    assert [o["output_type"] for o in figure] == ["display_data"]
    assert figure[0]["data"]["image/png"].startswith("iVBOR")  # a PNG, as base64 text
    assert "Wall time" in outputs(executed[3])[0]["text"] and outputs(executed[3])[-1]["data"]["text/plain"] == "45"
    assert "runs without a display, so the tk event loop cannot start" in outputs(executed[4])[0]["text"]


def test_a_cell_past_its_limit_is_interrupted_in_the_students_code_and_the_next_runs(tmp_path, python):
    loop = "def spin():\n    while True:\n        pass\nspin()"
    cell = new_code_cell(loop, metadata={"nbgrader": {"grade_id": "slow"}})
    code, report, executed, _ = run(tmp_path, ["x = 1", cell, "try:\n    spin()\nexcept Exception:\n    pass", "x + 1"],
                                    cell_seconds=0.6, by_cell={"slow": 0.3}, python=python)
    assert code == protocol.EXIT_OK and report.finished
    assert report.interrupted_cells == (1, 2)
    first = outputs(executed[1])[0]
    assert first["ename"] == "CellTimeoutError" and "more than 0.3 seconds" in first["evalue"]
    text = ANSI.sub("", "\n".join(first["traceback"]))
    assert "----> 2     while True:" in text and "runner.py" not in text
    # ``except Exception`` does not catch the interruption; the limit is the cell's own, else the default.
    assert outputs(executed[2])[0]["ename"] == "CellTimeoutError" and "0.6 seconds" in outputs(executed[2])[0]["evalue"]
    assert 0.3 <= dict(report.cell_seconds)[1] < 2 and 0.6 <= dict(report.cell_seconds)[2] < 3
    assert outputs(executed[3]) == [{"output_type": "execute_result", "data": {"text/plain": "2"},
                                     "metadata": {}, "execution_count": 4}]


def test_a_cell_that_swallows_its_interruption_is_ended_by_the_budget_with_what_ran_kept(tmp_path, python):
    swallow = "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"
    code, report, executed, _ = run(tmp_path, ["print('before')", swallow, "print('never')"], cell_seconds=0.3,
                                    notebook_seconds=2.5, python=python)
    assert code == protocol.EXIT_BUDGET
    assert report.stopped_at_cell == 1 and report.finished and not report.probes_ran
    assert outputs(executed[0]) == [{"output_type": "stream", "name": "stdout", "text": "before\n"}]
    assert outputs(executed[2]) == []


def test_a_notebook_that_ends_the_process_leaves_the_cell_it_was_in(tmp_path):
    code, report, executed, _ = run(tmp_path, ["x = 1", "import os\nos._exit(0)", "x + 1"])
    assert code == 0 and not report.finished and report.stopped_at_cell == 1
    assert executed == (None, None, None)  # nothing written after the process ended
    status, reason = worker._status_from_outcome(
        ProcessOutcome(returncode=code, timed_out=False, seconds=1.0, output=""), report, Settings())
    assert status == "crashed" and "while running cell 2" in reason and "os._exit" in reason


def test_output_past_the_caps_is_counted_not_kept(tmp_path):
    code, report, executed, _ = run(tmp_path, ["print('x' * 5000)", "for i in range(3000):\n    print(i)", "print('ok')"],
                                    cell_bytes=1000, total_bytes=2500)
    assert code == protocol.EXIT_OK and report.truncated_cells == (0, 1)
    assert "[autograder: 5000 bytes of output were not kept" in outputs(executed[0])[-1]["text"]
    kept = outputs(executed[1])[0]["text"]
    assert kept.startswith("0\n1\n") and len(kept) <= 1000
    assert outputs(executed[2]) == [{"output_type": "stream", "name": "stdout", "text": "ok\n"}]


def test_probes_call_the_notebooks_functions_and_stop_at_their_limit(tmp_path, python):
    cells = ["def double(v):\n    print('probes print nowhere')\n    return 2 * v",
             "def hang(v):\n    while True:\n        pass",
             # A training loop whose `except Exception: continue` would swallow an interruption that is an Exception.
             "def swallows(v):\n    while True:\n        try:\n            sum(range(100))\n        except Exception:\n"
             "            continue"]
    code, report, _, run_dir = run(tmp_path, cells, call_seconds=0.3, python=python,
                                   probes=[("double", [np.arange(3)]), ("hang", [1]), ("hang", [2]), ("absent", []),
                                           ("swallows", [1]), ("double", [4])])
    assert code == protocol.EXIT_OK and report.probes_ran and report.finished
    results = json.loads((run_dir / "out" / "results.json").read_text())
    assert [results[p]["status"] for p in ("p0", "p1", "p2", "p3", "p4", "p5")] == [
        "returned", "timeout", "timeout", "missing", "timeout", "returned"]
    assert 0.3 <= results["p4"]["seconds"] < 2
    with np.load(run_dir / "out" / "results.npz") as arrays:
        value = probe.decode(results["p0"]["value"], {k: arrays[k] for k in arrays.files})
    assert np.array_equal(value, [0, 2, 4])
    assert 0.3 <= results["p1"]["seconds"] < 2 and results["p2"] == {"status": "timeout"}  # hung once: not called again


def test_the_notebooks_folder_comes_first_on_the_path_and_cannot_replace_the_runners_modules(tmp_path):
    shadows = {name: "raise RuntimeError('the student\\'s module')\n" for name in ("json.py", "zipfile.py", "io.py", "protocol.py", "probe.py")}
    shadows["helper.py"] = "VALUE = 42\n"
    code, report, executed, run_dir = run(
        tmp_path, ["import helper, sys\nprint(helper.VALUE, sys.path[0] == '', sys.path[1].endswith('lib'))",
                   "def f(v):\n    return v"], files=shadows, probes=[("f", [3])])
    assert code == protocol.EXIT_OK and report.finished and report.probes_ran
    assert outputs(executed[0])[0]["text"] == "42 True True\n"
    assert json.loads((run_dir / "out" / "results.json").read_text())["p0"]["status"] == "returned"
    assert not (run_dir / "work" / "__pycache__").exists()


def test_a_job_is_read_back_as_written_and_one_with_other_keys_is_refused(tmp_path):
    job = runner_job(notebook="nb.ipynb", cwd=str(tmp_path), out_dir="out", probe_in=None, limits=Limits(),
                            cell_seconds=3, call_seconds=1, cell_seconds_by_index={3: 2}, python_path=["lib"])
    job.write(str(tmp_path / "job.json"))
    assert protocol.RunnerJob.read(str(tmp_path / "job.json")) == job
    data = json.loads((tmp_path / "job.json").read_text())
    del data["call_seconds"]
    (tmp_path / "job.json").write_text(json.dumps({**data, "cell_timeout": 3}))
    with pytest.raises(ValueError, match="lacks call_seconds and has unknown keys cell_timeout"):
        protocol.RunnerJob.read(str(tmp_path / "job.json"))


def test_an_unusable_job_is_refused(tmp_path):
    (tmp_path / "job.json").write_text("{}")
    done = subprocess.run([sys.executable, "-I", RUNNER, str(tmp_path / "job.json")], capture_output=True, text=True)
    assert done.returncode == protocol.EXIT_BAD_JOB and "cannot read the job" in done.stderr


def test_a_pip_line_installs_nothing_and_says_so(tmp_path):
    # Downloaded notebooks open with a %pip install of the course's package; checking and grading install nothing.
    code, report, executed, _ = run(tmp_path, [
        "# Install the course's package (Colab, JupyterHub).\n%pip install --quiet https://example.edu/x.whl",
        "print('after')",
    ])
    assert code == protocol.EXIT_OK and report.finished
    assert outputs(executed[0]) == [{"output_type": "stream", "name": "stdout", "text": (
        "%pip install --quiet https://example.edu/x.whl: not run here. This run already has the course's package "
        "and everything the notebook needs, and nothing is installed while a notebook is checked or graded.\n")}]
    assert outputs(executed[1]) == [{"output_type": "stream", "name": "stdout", "text": "after\n"}]


@pytest.mark.parametrize("system", ["linux", "macos", "windows"])
def test_the_processes_left_running_are_listed_with_or_without_proc(tmp_path, imitated_python, system):
    # Without a pid namespace every process of the machine is listed; the one the notebook left, a sleep under a
    # name of its own, must be among them.
    python = sys.executable if system == "linux" else imitated_python(system)
    started = ("import os, shutil, subprocess\n"
               "os.symlink(shutil.which('sleep'), 'left-behind')\n"
               "left = subprocess.Popen(['./left-behind', '60'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
               "open('left.pid', 'w', encoding='utf-8').write(str(left.pid))")
    try:
        code, report, _, _ = run(tmp_path, [started], python=python, list_processes=True)
        assert code == protocol.EXIT_OK and report.finished
        assert "left-behind" in report.processes_left, report.processes_left
    finally:
        pid_file = tmp_path / "work" / "left.pid"
        if pid_file.is_file():
            os.kill(int(pid_file.read_text(encoding="utf-8")), signal.SIGKILL)


def test_the_check_cell_starts_no_check_when_the_notebook_is_checked_or_graded(tmp_path):
    from autograder.commands.release import CHECK_CELL_SOURCE
    from perceptron_course.test_helpers import NOT_RUN_HERE, RUNNER_ENVIRONMENT

    assert RUNNER_ENVIRONMENT == protocol.RUNNER_ENVIRONMENT  # the graded notebook's copy names it again
    code, report, executed, _ = run(tmp_path, [CHECK_CELL_SOURCE])
    assert code == protocol.EXIT_OK and report.finished
    assert outputs(executed[0]) == [{"output_type": "stream", "name": "stdout", "text": NOT_RUN_HERE + "\n"}]
