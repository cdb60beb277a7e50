"""Grading leaves nothing in the temporary folder, even when a worker process dies in the middle of a submission.

Each submission runs in a folder of its own that its worker holds locked
while it lives; a folder whose lock is free belongs to a worker that died,
and the host removes such folders when the batch ends.  The unit tests hold
a folder from a child process and kill it; the batch test kills the pool's
worker while it lays out a submission, and another kills ``verify`` once it
has copied the course (solutions and all) to release it.  The whole command's runs are checked
by ``test_grading_leaves_nothing_in_the_temporary_folder`` in
``tests/grader/commands/test_grade.py``, and the Dask path by ``test_dask.py``.
"""

import multiprocessing
import os
import signal
import tempfile
import time

import nbformat
import pytest

from autograder.intake.submissions import collect
from autograder.results import CRASHED, Settings
from autograder.running import worker
from autograder.running.batch import grade_submissions
from perceptron_course.limits import Limits
from tests.support.grading import PS1, correct_submission, notebooks_of

FORK = multiprocessing.get_context("fork")


def _hold_a_folder(parent, report):
    tempfile.tempdir = parent
    with worker.job_folder("held") as folder:
        report.send(folder)
        time.sleep(600)


@pytest.fixture
def held_folder(tmp_path):
    """A job folder made and held by a child process; yields ``(folder, child)``."""
    mine, theirs = FORK.Pipe()
    child = FORK.Process(target=_hold_a_folder, args=(str(tmp_path), theirs), daemon=True)
    child.start()
    assert mine.poll(30), "the child made no job folder"
    folder = mine.recv()
    yield folder, child
    child.kill()
    child.join(10)


def test_a_held_folder_is_kept_and_a_dead_workers_folder_is_removed(held_folder, tmp_path):
    folder, child = held_folder
    os.makedirs(os.path.join(folder, "work", "deep"))
    assert worker.remove_abandoned_folders(str(tmp_path)) == []
    assert os.path.isdir(folder)
    os.kill(child.pid, signal.SIGKILL)
    child.join(10)
    assert worker.remove_abandoned_folders(str(tmp_path)) == [folder]
    assert os.listdir(tmp_path) == []


def test_a_finished_folder_is_removed_by_its_worker(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    with worker.job_folder("alice") as folder:
        assert os.path.dirname(folder) == str(tmp_path)
        assert os.path.basename(folder).startswith(worker.JOB_FOLDER_PREFIX)
    assert os.listdir(tmp_path) == []


def test_a_folder_still_being_made_is_kept_until_it_is_old(tmp_path):
    # A worker makes its folder, then takes the lock: between the two the folder has none.
    young, old = (tmp_path / f"{worker.JOB_FOLDER_PREFIX}{name}" for name in ("young", "old"))
    young.mkdir()
    old.mkdir()
    long_ago = time.time() - 3600
    os.utime(old, (long_ago, long_ago))
    other = tmp_path / "someone-elses"
    other.mkdir()
    assert worker.remove_abandoned_folders(str(tmp_path)) == [str(old)]
    assert sorted(os.listdir(tmp_path)) == sorted([young.name, other.name])


def _verify_and_die(course_dir, parent, report):
    from autograder.commands.verify import Assignment

    tempfile.tempdir = parent
    assignment = Assignment(PS1, course_dir)
    report.send(assignment.release_dir)
    os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.slow
def test_a_killed_verify_leaves_its_copy_of_the_solutions_to_the_next_sweep(course, tmp_path):
    """verify releases into a copy of the course, solutions and all; killed, it cannot remove it itself."""
    mine, theirs = FORK.Pipe()
    child = FORK.Process(target=_verify_and_die, args=(str(course), str(tmp_path), theirs))
    child.start()
    assert mine.poll(120), "the child released nothing"
    release_dir = mine.recv()
    child.join(30)
    assert child.exitcode == -signal.SIGKILL
    (left,) = [str(tmp_path / name) for name in os.listdir(tmp_path)]
    assert release_dir.startswith(left + os.sep) and os.path.isdir(os.path.join(left, "source", PS1))
    assert worker.remove_abandoned_folders(str(tmp_path)) == [left]
    assert os.listdir(tmp_path) == []


@pytest.mark.slow
def test_a_batch_whose_worker_dies_leaves_nothing(course, tmp_path, monkeypatch):
    release_nb, source_nb = notebooks_of(course, PS1)
    (tmp_path / "in").mkdir()
    for name in ("alice", "bob"):
        nbformat.write(correct_submission(release_nb, source_nb), str(tmp_path / "in" / f"{name}.ipynb"))
    submissions, _ = collect(str(tmp_path / "in"), PS1, str(tmp_path))
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    # The pool's workers are forked from this process: they see the temporary folder and the dying layout.
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    host, lay_out = os.getpid(), worker._lay_out

    def lay_out_and_die(*args, **kwargs):
        folders = lay_out(*args, **kwargs)
        if os.getpid() == host:
            raise RuntimeError("the layout ran in the host process, not in a worker")
        os.kill(os.getpid(), signal.SIGKILL)
        return folders

    monkeypatch.setattr(worker, "_lay_out", lay_out_and_die)
    results = grade_submissions(PS1, submissions, course_dir=str(course), out_dir=str(tmp_path / "out"),
                                settings=Settings(limits=Limits(notebook_seconds=60), use_sandbox=False), workers=1)
    assert [(r.student_id, r.status) for r in results] == [("alice", CRASHED), ("bob", CRASHED)]
    assert "the grader itself failed" in results[0].reason
    assert os.listdir(scratch) == []
