"""A student's processes under the hub's limit (:mod:`perceptron_course.hub.spawner`), as real Linux users.

The hub's environment runs the spawner (it needs JupyterHub, which this project's own environment does not
have), so the tests run its ``with_process_limit`` there, as the hub would, in front of a student's process
that forks as fast as it can. That the hub starts a student's server under the limit, and a TA's without it,
is tested against the real hub in ``test_hub_real.py``.
"""

import os
import pwd
import subprocess

import pytest

from perceptron_course.hub.leftovers import end_processes_of, processes_of
from tests.hub.real_hub import environment_ready
from tools.hub import DEFAULT_PREFIX as PREFIX

pytestmark = pytest.mark.slow
STUDENTS = ("pcx-bounded", "pcx-bounded-b")
LIMIT = 20

# Forks children that wait, until it has made as many as asked or a fork is refused; prints how many it made
# and whether it could raise its own limit, then ends them.
FORKER = """
import os, resource, signal, sys, time
wanted = int(sys.argv[1])
children = []
try:
    while len(children) < wanted:
        pid = os.fork()
        if pid == 0:
            time.sleep(60)
            os._exit(0)
        children.append(pid)
    refused = ""
except BlockingIOError as exc:
    refused = exc.strerror
soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
try:
    resource.setrlimit(resource.RLIMIT_NPROC, (hard + 100, hard + 100))
    raised = "raised"
except (ValueError, OSError):
    raised = "not raised"
print(len(children), refused, raised, soft, hard, sep="|", flush=True)
if len(sys.argv) > 2:
    sys.stdin.readline()  # the test runs another student's forks meanwhile
for pid in children:
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
"""

# In the hub's environment, as root: start FORKER as the student, through the spawner's preexec function.
AS_THE_HUB = """
import subprocess, sys
from jupyterhub.spawner import set_user_setuid
from perceptron_course.hub.spawner import with_process_limit
user, limit, forker, wanted = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
preexec = with_process_limit(set_user_setuid(user, chdir=False), limit)
sys.exit(subprocess.run([sys.executable, "-c", forker, *wanted], preexec_fn=preexec, cwd="/").returncode)
"""


@pytest.fixture
def students():
    if os.geteuid() != 0:
        pytest.skip("making Linux users and starting processes as them needs root, as the hub has")
    if not environment_ready():
        pytest.skip(f"the hub's environment is not built at {PREFIX} (make hub-env)")
    from tools.hub import ensure_user

    uids = {}
    for name in STUDENTS:
        ensure_user(name, "unused-" + os.urandom(6).hex())
        uids[name] = pwd.getpwnam(name).pw_uid
        assert processes_of(uids[name]) == [], f"{name} already runs processes"
    yield uids
    for uid in uids.values():
        end_processes_of(uid)


def start_as_the_hub(user, *forker_arguments, **popen):
    return subprocess.Popen([f"{PREFIX}/venv/bin/python", "-c", AS_THE_HUB, user, str(LIMIT), FORKER,
                             *map(str, forker_arguments)], text=True, **popen)


def test_a_students_forks_stop_at_the_limit_she_cannot_raise_and_another_student_forks_on(students):
    bounded = start_as_the_hub(STUDENTS[0], 3 * LIMIT, "wait", stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        made, refused, raised, soft, hard = bounded.stdout.readline().strip().split("|")
        # Her forker and its children together stay within the limit, which counts every process and thread of
        # her uid. (Exactly LIMIT - 1 children where nothing else runs as her uid; a container that shares its
        # uids with the machine around it, as make test-systems' roots do, may count a few more there.)
        assert refused, f"no fork was refused: {made} children were made under a limit of {LIMIT}"
        assert LIMIT // 2 <= int(made) <= LIMIT - 1, f"{made} children were made under a limit of {LIMIT}"
        assert (raised, soft, hard) == ("not raised", str(LIMIT), str(LIMIT))
        assert len(processes_of(students[STUDENTS[0]])) == int(made) + 1
        # While she is at her limit, another student is not held to her count.
        other = subprocess.run([f"{PREFIX}/venv/bin/python", "-c", AS_THE_HUB, STUDENTS[1], str(LIMIT), FORKER,
                                str(LIMIT // 4)], capture_output=True, text=True, timeout=60)
        assert other.stdout.split("|")[:2] == [str(LIMIT // 4), ""], other.stdout + other.stderr
    finally:
        bounded.communicate("\n", timeout=60)
    assert bounded.returncode == 0


def test_an_account_made_for_the_hub_gets_no_subordinate_user_ids(tmp_path):
    """useradd allots a range of subordinate user ids (/etc/subuid, /etc/subgid) where those files exist; the
    processes of a user namespace mapped to them would be hers but not by number, beyond the process limit and
    the leftover killer. The hub's accounts get none."""
    if os.geteuid() != 0:
        pytest.skip("making Linux users needs root, as the hub has")
    from tools.hub import ensure_user

    name = "pcx-sub-" + os.urandom(3).hex()
    created = {path: os.path.exists(path) for path in ("/etc/subuid", "/etc/subgid")}
    for path in created:  # useradd allots ranges only where the file exists, as on Debian with uidmap
        open(path, "a").close()
    try:
        ensure_user(name)
        for path in created:
            with open(path, encoding="utf-8") as handle:
                assert not any(line.split(":")[0] == name for line in handle), f"{name} has a range in {path}"
    finally:
        subprocess.run(["userdel", "--remove", name], capture_output=True)
        for path, existed in created.items():
            if not existed and os.path.getsize(path) == 0:
                os.remove(path)
