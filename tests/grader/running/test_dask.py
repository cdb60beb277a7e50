"""Grading through a real Dask cluster gives the same grades as the local process pool, and leaves nothing in
the host's or the workers' temporary folders.

The scheduler and two workers run as separate processes on loopback, started
with Dask's own command line, as an instructor would start them on a cluster.
"""

import os
import subprocess
import sys
import time

import nbformat
import pytest

from tests.support.grading import correct_submission, partial_submission, read_grades, run_grade
from tests.support.released import copy_course

from tests.support import ROOT
PS1 = "ps1_hyperplanes"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
def scheduler_file(tmp_path_factory):
    folder = tmp_path_factory.mktemp("dask")
    path = folder / "scheduler.json"
    dask = os.path.join(os.path.dirname(sys.executable), "dask")
    logs = [open(folder / name, "w") for name in ("scheduler.log", "workers.log")]
    scheduler = subprocess.Popen([dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                                  "--scheduler-file", str(path)], stdout=logs[0], stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while not path.exists() and time.monotonic() < deadline and scheduler.poll() is None:
        time.sleep(0.2)
    assert path.exists(), f"the Dask scheduler did not start: {(folder / 'scheduler.log').read_text()[-2000:]}"
    # The workers' temporary folder is one of their own (Dask's working files go elsewhere), so that what
    # grading leaves in it can be seen.
    (folder / "worker-tmp").mkdir()
    workers = subprocess.Popen([dask, "worker", "--scheduler-file", str(path), "--host", "127.0.0.1",
                                "--nworkers", "2", "--nthreads", "1", "--no-dashboard",
                                "--local-directory", str(folder / "dask-local")],
                               env={**os.environ, "TMPDIR": str(folder / "worker-tmp")},
                               stdout=logs[1], stderr=subprocess.STDOUT)
    yield path
    for process in (workers, scheduler):
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
    for log in logs:
        log.close()


@pytest.fixture(scope="module")
def batch(released_course, tmp_path_factory):
    course = copy_course(released_course, tmp_path_factory.mktemp("course"))
    release_nb = nbformat.read(str(course / "release" / PS1 / f"{PS1}.ipynb"), as_version=4)
    source_nb = nbformat.read(str(course / "source" / PS1 / f"{PS1}.ipynb"), as_version=4)
    folder = tmp_path_factory.mktemp("submissions")
    nbformat.write(correct_submission(release_nb, source_nb), str(folder / "alice.ipynb"))
    nbformat.write(release_nb, str(folder / "bob.ipynb"))
    nbformat.write(partial_submission(release_nb, source_nb, PS1), str(folder / "carol.ipynb"))
    (folder / "dave.ipynb").write_text("not a notebook", encoding="utf-8")
    return course, folder


def test_dask_cluster_grades_like_the_local_pool(scheduler_file, batch, tmp_path, monkeypatch):
    from distributed import Client

    course, folder = batch
    monkeypatch.setenv("TMPDIR", str(tmp_path / "host-tmp"))
    (tmp_path / "host-tmp").mkdir()
    local = run_grade(PS1, folder, "--out", tmp_path / "local", "--course-dir", course, "--workers", 2)
    assert local.returncode == 0, local.stderr
    remote = run_grade(PS1, folder, "--out", tmp_path / "dask", "--course-dir", course,
                       "--scheduler", scheduler_file)
    assert remote.returncode == 0, remote.stderr
    # Neither the host nor the cluster's workers kept anything of the two batches.
    assert os.listdir(tmp_path / "host-tmp") == []
    assert os.listdir(scheduler_file.parent / "worker-tmp") == []
    local_grades, dask_grades = read_grades(tmp_path / "local"), read_grades(tmp_path / "dask")
    assert dask_grades == local_grades
    assert {s: row["status"] for s, row in dask_grades.items()} == {
        "alice": "graded", "bob": "graded", "carol": "graded", "dave": "ungradable"}
    assert float(dask_grades["alice"]["score"]) == float(dask_grades["alice"]["max_score"]) > 0
    assert float(dask_grades["bob"]["score"]) == 0
    assert 0 < float(dask_grades["carol"]["score"]) < float(dask_grades["carol"]["max_score"])
    # The submissions really ran on the cluster's workers.
    with Client(scheduler_file=str(scheduler_file), set_as_default=False) as client:
        prefixes = client.run_on_scheduler(lambda dask_scheduler: sorted(dask_scheduler.task_prefixes))
    assert "run_submission" in prefixes


def test_unreachable_scheduler_is_a_clear_error(batch, tmp_path, monkeypatch):
    course, folder = batch
    # The command waits as long as Dask's connect timeout (30 s unless configured) before it gives up.
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "2s")
    result = run_grade(PS1, folder, "--out", tmp_path / "out", "--course-dir", course,
                       "--scheduler", "tcp://127.0.0.1:9")
    assert result.returncode == 2
    assert "Could not connect to the Dask scheduler at 'tcp://127.0.0.1:9'" in result.stderr


def test_local_grading_does_not_import_dask():
    code = ("import sys, autograder.commands.grade, autograder.__main__; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == "[]"
