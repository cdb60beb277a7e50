"""Whose processes the hub ends when their server stops (:mod:`perceptron_course.hub.leftovers`), and that
every one of them ends; the real hub ending a student's background processes is tested in
``test_hub_real.py``."""

import asyncio
import logging
import os
import pwd
import subprocess
import sys
import tempfile
import threading
import time
from types import SimpleNamespace

import pytest

from perceptron_course.hub import leftovers
from perceptron_course.hub.leftovers import end_processes_of, is_hub_student, killer_uid, processes_of

STUDENT_GROUPS = ["course-perceptron-students", "course-perceptron-b-students"]
STUDENTS = ("pcx-leftover", "pcx-leftover-b")
MANY = "i=0; while [ $i -lt 50 ]; do sleep 600 & i=$((i + 1)); done; wait"  # 50 in the background, and itself


def test_no_leftovers_are_ended_for_root_a_system_account_the_hubs_own_user_or_a_name_with_no_linux_user():
    assert not is_hub_student("root", STUDENT_GROUPS, admin=False)
    # A hub user named after a system account (nobody, a daemon's) is not the hub's: its processes are not hers.
    assert not is_hub_student("nobody", STUDENT_GROUPS, admin=False)
    own = pwd.getpwuid(os.geteuid()).pw_name
    assert not is_hub_student(own, STUDENT_GROUPS, admin=False)
    assert not is_hub_student("no-such-user-pcx", STUDENT_GROUPS, admin=False)


def test_the_killers_uid_is_no_ones_and_refuses_root():
    assert killer_uid(1002) == 2**31 + 1002 and killer_uid(1003) != killer_uid(1002)
    for impossible in (0, -1, 2**31 - 1, 2**32 - 1):
        with pytest.raises(ValueError, match="no killer for uid"):
            killer_uid(impossible)


def test_processes_of_finds_live_processes_and_leaves_out_zombies():
    assert os.getpid() in processes_of(os.getuid())
    child = subprocess.Popen(["true"])
    while open(f"/proc/{child.pid}/status", encoding="utf-8").read().find("State:\tZ") < 0:
        time.sleep(0.01)  # until it has exited and is a zombie, not yet reaped
    assert child.pid not in processes_of(os.getuid())
    child.wait()


def described(pids):
    """Each process's state, parent and command line, for a failure's message."""
    lines = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", "rb") as handle:
                status = {k: v.strip() for k, v in (line.split(b":", 1) for line in handle if b":" in line)}
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ")
            lines.append(f"{pid} {status[b'State']!r} parent {status[b'PPid']!r}: {command!r}")
        except OSError:
            lines.append(f"{pid} ended")
    return "; ".join(lines)


@pytest.fixture
def students():
    """Two Linux users of the hub (pcx-, in its accounts group), with nothing running as them before or after."""
    if os.geteuid() != 0:
        pytest.skip("making Linux users and signalling their processes needs root, as the hub has")
    from tools.hub import ensure_user

    uids = {}
    for name in STUDENTS:
        ensure_user(name, "unused-" + os.urandom(6).hex())
        uids[name] = pwd.getpwnam(name).pw_uid
        assert processes_of(uids[name]) == [], f"{name} already runs processes: {described(processes_of(uids[name]))}"
    yield uids
    for uid in uids.values():
        end_processes_of(uid)


# A process that hops: it forks a copy of itself and exits, as fast as it can, for ever. Run under a reaper of
# its own, as init would reap it on a server: here, process 1 reaps the exited copies late, and thousands of
# them would fill the process table that other tests list.
HOPPER = """
import ctypes, os, time
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER: the orphaned copies become this one's
if os.fork() == 0:
    while True:  # each copy forks the next and exits
        if os.fork():
            os._exit(0)
while True:
    try:
        os.wait()
    except ChildProcessError:
        time.sleep(0.01)
"""


@pytest.fixture(scope="module")
def hopper():
    """The command that starts :data:`HOPPER` (its script in /tmp, which every user may read)."""
    handle, path = tempfile.mkstemp(prefix="pcx-hopper-", suffix=".py")
    with os.fdopen(handle, "w", encoding="utf-8") as script:
        script.write(HOPPER)
    os.chmod(path, 0o644)
    yield f"exec /usr/bin/python3 {path}"
    os.unlink(path)


def start_as(user, *commands):
    """Start each command as ``user``, and return once each runs as them: runuser is root until it has
    switched to the user, and a process still root when the kill comes would start as her only after it."""
    home = pwd.getpwnam(user).pw_dir
    marks = [os.path.join(home, f".started-{os.urandom(4).hex()}") for _ in commands]
    for mark, command in zip(marks, commands):
        subprocess.Popen(["runuser", "-u", user, "--", "sh", "-c", f"touch {mark}; {command}"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         start_new_session=True)
    deadline = time.monotonic() + 30
    while not all(map(os.path.exists, marks)) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert all(map(os.path.exists, marks)), f"{user}'s commands did not start"
    for mark in marks:
        os.unlink(mark)


def wait_for(uid, count):
    deadline = time.monotonic() + 30
    while len(processes_of(uid)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(processes_of(uid)) >= count, f"uid {uid}'s processes did not start: {processes_of(uid)}"


def test_a_students_leftovers_are_ended_and_staffs_and_admins_are_not(students):
    assert is_hub_student("pcx-leftover", STUDENT_GROUPS, admin=False)
    assert is_hub_student("pcx-leftover", [], admin=False)
    # A TA or instructor in any one course works in a shell too, and may leave a grading running.
    assert not is_hub_student("pcx-leftover", STUDENT_GROUPS + ["course-other-tas"], admin=False)
    assert not is_hub_student("pcx-leftover", ["course-perceptron-instructors"], admin=False)
    assert not is_hub_student("pcx-leftover", STUDENT_GROUPS, admin=True)
    # An account outside the hub's accounts group is not one the hub made.
    assert not is_hub_student("pcx-leftover", STUDENT_GROUPS, admin=False, accounts_group="no-such-group-pcx")


def test_every_process_of_the_user_ends_even_one_that_keeps_forking_and_no_one_elses(students, hopper):
    uid, other = students["pcx-leftover"], students["pcx-leftover-b"]
    # One in a session of its own, a loop that leaves many in the background, one that hops (it forks a
    # copy of itself and exits, as fast as it can, for ever, so a scan of /proc may see neither), and one
    # whose name is not UTF-8.
    start_as("pcx-leftover", "setsid -f sleep 600", MANY, hopper,
             "exec /usr/bin/python3 -c 'import ctypes, time; ctypes.CDLL(None).prctl(15, b\"\\xff\\xfe\", 0, 0, 0);"
             " time.sleep(600)'")
    start_as("pcx-leftover-b", "exec sleep 600")
    wait_for(uid, 40)
    wait_for(other, 1)
    assert end_processes_of(uid) == []
    time.sleep(0.5)  # a hop that got away would have shown itself by now
    assert processes_of(uid) == []
    assert len(processes_of(other)) == 1, "another student's process was ended with hers"


def test_two_students_processes_end_together_when_their_servers_stop_at_once(students, hopper):
    for name in STUDENTS:
        start_as(name, MANY, hopper)
    for uid in students.values():
        wait_for(uid, 40)
    left = {}
    threads = [threading.Thread(target=lambda u=uid: left.__setitem__(u, end_processes_of(u)))
               for uid in students.values()]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert left == {uid: [] for uid in students.values()}
    assert all(processes_of(uid) == [] for uid in students.values())


def test_the_killer_cannot_be_signalled_by_the_student_it_kills_for(students):
    uid = students["pcx-leftover"]
    # The killer's own code, waiting where it would kill.
    waits = leftovers._KILL_AS.replace("os.kill(-1, signal.SIGKILL)", "import time; time.sleep(60)")
    assert waits != leftovers._KILL_AS
    waiting = subprocess.Popen([sys.executable, "-I", "-S", "-c", waits, str(uid), str(killer_uid(uid))])
    try:
        expected = f"Uid:\t{killer_uid(uid)}\t{uid}\t{killer_uid(uid)}\t"
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


def test_the_hook_leaves_a_student_whose_server_runs_again_alone_and_ends_the_rest(students):
    uid = students["pcx-leftover"]
    start_as("pcx-leftover", "exec sleep 600")
    wait_for(uid, 1)
    stopped = SimpleNamespace(active=False, log=logging.getLogger("test-leftovers"))
    again = SimpleNamespace(active=True)
    user = SimpleNamespace(name="pcx-leftover", groups=[SimpleNamespace(name=STUDENT_GROUPS[0])], admin=False,
                           spawners={"": stopped, "second": again}, authenticator=None)
    stopped.user = user
    asyncio.run(leftovers.end_leftover_processes(stopped))
    assert len(processes_of(uid)) == 1, "her processes were ended while she had a server running"
    again.active = False
    asyncio.run(leftovers.end_leftover_processes(stopped))
    assert processes_of(uid) == []
