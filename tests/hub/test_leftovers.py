"""Whose processes the hub ends when their server stops (:mod:`perceptron_course.hub.leftovers`); the real hub
ending a student's background processes is tested in ``test_hub_real.py``."""

import os
import pwd
import subprocess
import sys
import time

import pytest

from perceptron_course.hub.leftovers import end_processes_of, ends_leftovers_of, processes_of

STUDENT_GROUPS = ["course-perceptron-students", "course-perceptron-b-students"]


def test_a_students_leftovers_are_ended_and_staffs_and_admins_are_not():
    # nobody is a plain Linux user on every Debian system.
    assert ends_leftovers_of("nobody", STUDENT_GROUPS, admin=False)
    assert ends_leftovers_of("nobody", [], admin=False)
    # A TA or instructor in any one course works in a shell too, and may leave a grading running.
    assert not ends_leftovers_of("nobody", STUDENT_GROUPS + ["course-other-tas"], admin=False)
    assert not ends_leftovers_of("nobody", ["course-perceptron-instructors"], admin=False)
    assert not ends_leftovers_of("nobody", STUDENT_GROUPS, admin=True)


def test_no_leftovers_are_ended_for_root_the_hubs_own_user_or_a_name_with_no_linux_user():
    assert not ends_leftovers_of("root", STUDENT_GROUPS, admin=False)
    own = pwd.getpwuid(os.geteuid()).pw_name
    assert not ends_leftovers_of(own, STUDENT_GROUPS, admin=False)
    assert not ends_leftovers_of("no-such-user-pcx", STUDENT_GROUPS, admin=False)


def test_processes_of_finds_live_processes_and_leaves_out_zombies():
    assert os.getpid() in processes_of(os.getuid())
    child = subprocess.Popen(["true"])
    while open(f"/proc/{child.pid}/status", encoding="utf-8").read().find("State:\tZ") < 0:
        time.sleep(0.01)  # until it has exited and is a zombie, not yet reaped
    assert child.pid not in processes_of(os.getuid())
    child.wait()


@pytest.fixture
def throwaway_user():
    """A Linux user of the tests' own (pcx-), with nothing running as them before or after."""
    if os.geteuid() != 0:
        pytest.skip("making a Linux user and signalling its processes needs root, as the hub has")
    from tools.hub import ensure_user

    ensure_user("pcx-leftover", "unused-" + os.urandom(6).hex())
    uid = pwd.getpwnam("pcx-leftover").pw_uid
    assert processes_of(uid) == [], "pcx-leftover already runs processes"
    yield uid
    end_processes_of(uid)


def test_every_process_of_the_user_ends_even_one_that_keeps_forking(throwaway_user):
    # One in a session of its own, a loop that starts a new background process as fast as it can, and one
    # that hops: it forks a copy of itself and exits, over and over, so a scan of /proc may see neither.
    for command in ("setsid -f sleep 600", "while :; do sleep 600 & done", "hop() { hop & }; hop"):
        subprocess.Popen(["runuser", "-u", "pcx-leftover", "--", "sh", "-c", command],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    deadline = time.monotonic() + 10
    while len(processes_of(throwaway_user)) < 5 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(processes_of(throwaway_user)) >= 5, "the user's processes did not start"
    assert end_processes_of(throwaway_user) == []
    time.sleep(0.5)  # a hop that got away would have shown itself by now
    assert processes_of(throwaway_user) == []


def test_the_killer_cannot_be_signalled_by_the_student_it_kills_for(throwaway_user):
    # The killer's credentials (leftovers._KILL_AS) on a process that waits instead of killing.
    from perceptron_course.hub.leftovers import KILLER_UID

    waiting = subprocess.Popen([sys.executable, "-I", "-S", "-c",
                                "import os, sys, time; k, u = int(sys.argv[1]), int(sys.argv[2]);"
                                "os.setgroups([]); os.setresgid(k, k, k); os.setresuid(k, u, k); time.sleep(60)",
                                str(KILLER_UID), str(throwaway_user)])
    try:
        expected = f"Uid:\t{KILLER_UID}\t{throwaway_user}\t{KILLER_UID}\t"
        deadline = time.monotonic() + 10
        while expected not in open(f"/proc/{waiting.pid}/status").read() and time.monotonic() < deadline:
            time.sleep(0.01)  # until it has taken its credentials (real, effective, saved)
        assert expected in open(f"/proc/{waiting.pid}/status").read()
        tried = subprocess.run(["runuser", "-u", "pcx-leftover", "--", "kill", "-STOP", str(waiting.pid)],
                               capture_output=True, text=True)
        assert tried.returncode != 0 and "not permitted" in tried.stderr, tried.stderr
        assert waiting.poll() is None
    finally:
        waiting.kill()
        waiting.wait()
