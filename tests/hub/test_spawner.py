"""A student's processes under the hub's limits (:mod:`perceptron_course.hub.spawner`), as real Linux users.

The hub's environment runs the spawner (it needs JupyterHub, which this project's own environment does not
have), so the tests run its ``for_a_student`` there, as the hub would, in front of a student's process that
forks as fast as it can, or takes memory as fast as it can. That the hub starts a student's server under the
limits, and a TA's without them, is tested against the real hub in ``test_hub_real.py``.
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
from perceptron_course.hub.student_limits import MemoryGroups, for_a_student
user, limit, memory, program, wanted = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5:]
group = MemoryGroups().prepare(user, memory) if memory else None
preexec = for_a_student(set_user_setuid(user, chdir=False), limit, group)
done = subprocess.run([sys.executable, "-c", program, *wanted], preexec_fn=preexec, cwd="/")
print("exit", done.returncode, flush=True)
"""

# Takes memory in chunks it writes to (so that the kernel must give it pages), saying how many it holds; then
# tries to leave its memory group, and to raise its limit.
EATER = """
import os, sys
chunks = []
for _ in range(int(sys.argv[1])):
    chunks.append(b"\\x01" * (16 * 2**20))
    print("held", 16 * len(chunks), flush=True)
own = [line.split(":", 2)[2].strip() for line in open("/proc/self/cgroup") if "memory" in line.split(":")[1]]
print("group", own[0], flush=True)
limit = os.path.join(os.path.dirname(sys.argv[2]), own[0].rsplit("/", 1)[1], "memory.limit_in_bytes")
for what, path, value in (("leave", sys.argv[2], "0"), ("raise", limit, str(2**40))):
    try:
        with open(path, "w") as handle:
            handle.write(value)
        print(what, "done", flush=True)
    except OSError as exc:
        print(what, "refused", exc.strerror, flush=True)
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
    return subprocess.Popen([f"{PREFIX}/venv/bin/python", "-c", AS_THE_HUB, user, str(LIMIT), "0", FORKER,
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
        other = subprocess.run([f"{PREFIX}/venv/bin/python", "-c", AS_THE_HUB, STUDENTS[1], str(LIMIT), "0",
                                FORKER, str(LIMIT // 4)], capture_output=True, text=True, timeout=60)
        assert other.stdout.split("|")[:2] == [str(LIMIT // 4), ""], other.stdout + other.stderr
    finally:
        out, _ = bounded.communicate("\n", timeout=60)
    assert bounded.returncode == 0 and "exit 0" in out, out


def eat_as_the_hub(user, memory, chunks):
    """Run EATER as ``user`` through the spawner's preexec with a memory group of ``memory`` bytes: its lines."""
    from perceptron_course.hub.student_limits import GROUP_FOLDER, _memory_hierarchy_v1

    parent = os.path.join(_memory_hierarchy_v1(), GROUP_FOLDER, "cgroup.procs")
    done = subprocess.run([f"{PREFIX}/venv/bin/python", "-c", AS_THE_HUB, user, "1000", str(memory), EATER,
                           str(chunks), parent], capture_output=True, text=True, timeout=120)
    return done.stdout.splitlines()


def test_a_students_memory_stops_at_her_groups_limit_which_she_cannot_leave_and_another_has_her_own(students):
    from perceptron_course.hub.student_limits import GROUP_FOLDER, MemoryGroupError, MemoryGroups

    try:
        MemoryGroups()
    except MemoryGroupError as exc:
        pytest.skip(f"no memory control groups here: {exc}")
    limit = 96 * 2**20
    # 10 chunks of 16 MiB are more than her 96 MiB: the kernel ends her process (SIGKILL) partway.
    lines = eat_as_the_hub(STUDENTS[0], limit, 10)
    held = [int(line.split()[1]) for line in lines if line.startswith("held")]
    assert lines[-1] == "exit -9" and held and max(held) < 96, lines
    # Another student, in a group of her own with the same limit, holds what fits, more than the first had
    # left: the limit is each student's. She can neither leave her group nor raise its limit.
    lines = eat_as_the_hub(STUDENTS[1], limit, 4)
    assert lines[:4] == [f"held {16 * n}" for n in range(1, 5)], lines
    assert lines[4] == f"group {lines[4].split()[1]}" and lines[4].endswith(f"/{GROUP_FOLDER}/{STUDENTS[1]}"), lines
    assert lines[5].startswith("leave refused") and lines[6].startswith("raise refused"), lines
    assert lines[7:] == ["exit 0"], lines


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


def test_with_cgroup_v2_a_delegated_group_is_used_and_one_without_the_memory_controller_is_named(tmp_path):
    """The cgroup v2 path, with stand-in files (this machine's memory controller is on cgroup v1): the student's
    group is made in the folder the hub was given, with ``memory.max``; a folder that does not give its groups the
    memory controller is refused, naming what to write."""
    from perceptron_course.hub.student_limits import MemoryGroupError, MemoryGroups

    (tmp_path / "cgroup.controllers").write_text("cpu io memory pids\n")
    (tmp_path / "cgroup.subtree_control").write_text("cpu pids\n")
    with pytest.raises(MemoryGroupError, match=r"write \+memory to .*cgroup.subtree_control"):
        MemoryGroups(str(tmp_path))
    (tmp_path / "cgroup.subtree_control").write_text("cpu memory pids\n")
    group = MemoryGroups(str(tmp_path)).prepare("pcx-ann", 2**30)
    assert (tmp_path / "pcx-ann" / "memory.max").read_text() == str(2**30) and group == str(tmp_path / "pcx-ann")


def test_the_hubs_own_memory_group_is_found_from_the_mount_table(tmp_path):
    from perceptron_course.hub.student_limits import _memory_hierarchy_v1

    mountinfo, cgroup = tmp_path / "mountinfo", tmp_path / "cgroup"
    mountinfo.write_text("30 25 0:26 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
                         "31 25 0:27 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n")
    cgroup.write_text("4:memory:/system.slice/hub.service\n1:cpu:/\n")
    assert _memory_hierarchy_v1(str(mountinfo), str(cgroup)) == "/sys/fs/cgroup/memory/system.slice/hub.service"
    # A container whose mount shows only its own part of the hierarchy.
    mountinfo.write_text("31 25 0:27 /ctr /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n")
    cgroup.write_text("4:memory:/ctr/job\n")
    assert _memory_hierarchy_v1(str(mountinfo), str(cgroup)) == "/sys/fs/cgroup/memory/job"
    mountinfo.write_text("32 25 0:28 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n")
    assert _memory_hierarchy_v1(str(mountinfo), str(cgroup)) is None
