"""Running one untrusted command in a bubblewrap sandbox, with limits, and cleaning up after it.

A sandbox here is a ``bwrap`` process with new user, pid, network, IPC, UTS
and mount namespaces.  Inside it the command sees a read-only system
(``/usr`` and the ``/lib*`` and ``/bin`` links, the Python installation, a
few files from ``/etc``), the paths it is explicitly given (:class:`Mount`),
and small private ``/tmp`` and home directories; nothing else of the host,
and no network.  When the host is root, the sandbox runs as a user id of its
own (:func:`sandbox_uid`), so ``RLIMIT_NPROC`` counts only that sandbox's
processes: a fork bomb runs into the process limit instead of the machine's.
Limits on address space, processes, file size, CPU time and open files are
set with ``prlimit`` before ``bwrap`` starts, and a wall-clock timeout ends
the whole sandbox: killing ``bwrap`` kills the sandbox's init process
(``--die-with-parent``), which takes every process of the pid namespace
with it.

:func:`run_unsandboxed` runs the same command with the same resource limits
but none of the isolation, for machines without working user namespaces,
and only when the instructor asked for it.

:func:`run_as_user` is the small isolation left where bubblewrap cannot
start but the host is root (a Gradescope container may forbid the
namespaces): the command runs, with the same limits, as an unprivileged user
id of its own (:func:`sandbox_uid`) with no groups and no capabilities, so
file permissions keep it out of what only root may read or write, and
everything that user id still runs afterwards is killed.  It has no private
file system, process table or network.

Where bubblewrap is installed but cannot make a sandbox, :func:`sandbox_status`
says what is missing: :func:`namespace_facts` reads the kernel's settings
for user namespaces and tries to make one with ``unshare``, and
:func:`missing_for_sandbox` names, from those facts, the setting or change
that applies on this machine.
"""

import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Optional

from perceptron_course.limits import Limits

__all__ = ["ProcessLimits", "ProcessOutcome", "Mount", "SandboxStatus", "sandbox_status", "sandbox_uid",
           "run_sandboxed", "run_unsandboxed", "run_as_user", "user_isolation_status", "USER_ISOLATION_TEXT",
           "NamespaceFacts", "namespace_facts", "missing_for_sandbox", "read_sysctls"]

ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "nsswitch.conf",
             "hosts", "host.conf", "fonts", "mime.types", "ssl/openssl.cnf")
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SANDBOX_UID_BASE = 200_000
OUTPUT_TAIL_BYTES = 16_384
# The kernel's settings that decide whether an unprivileged process may make a user namespace: the switch only
# Debian's and Ubuntu's kernels have, the limit every kernel has, and Ubuntu's AppArmor restriction (23.10 on).
USERNS_CLONE = "kernel.unprivileged_userns_clone"
MAX_USER_NAMESPACES = "user.max_user_namespaces"
APPARMOR_RESTRICTION = "kernel.apparmor_restrict_unprivileged_userns"
USERNS_SYSCTLS = (USERNS_CLONE, MAX_USER_NAMESPACES, APPARMOR_RESTRICTION)


@dataclass(frozen=True)
class ProcessLimits:
    """Resource limits for everything the sandbox starts (each process gets its own copy).

    There are no defaults here: the values come from the course's
    :class:`~perceptron_course.limits.Limits` (:meth:`of`).
    """

    memory_bytes: int
    processes: int
    file_bytes: int
    cpu_seconds: int
    open_files: int
    tmp_bytes: int

    @classmethod
    def of(cls, limits, *, cpu_seconds):
        """The resource limits of one sandbox under the course's ``limits``, with ``cpu_seconds`` of CPU."""
        return cls(memory_bytes=limits.memory_bytes, processes=limits.processes, file_bytes=limits.file_bytes,
                   cpu_seconds=int(cpu_seconds), open_files=limits.open_files, tmp_bytes=limits.tmp_bytes)

    def prlimit_args(self):
        return [f"--as={self.memory_bytes}", f"--nproc={self.processes}", f"--fsize={self.file_bytes}",
                f"--cpu={self.cpu_seconds}", f"--nofile={self.open_files}", "--core=0"]


@dataclass(frozen=True)
class Mount:
    """A host path shown inside the sandbox at ``target``; read-only unless ``writable``."""

    source: str
    target: str
    writable: bool = False


@dataclass
class ProcessOutcome:
    """How one sandboxed (or :func:`run_unsandboxed`) process ended, as the host saw it."""

    returncode: int
    timed_out: bool
    seconds: float
    output: str = ""
    leftover_processes: int = 0
    stopped_reason: str = None  # set when ``watch`` asked for the run to be stopped


@dataclass(frozen=True)
class SandboxStatus:
    """Whether sandboxing works on this machine, and how it was set up or why not."""

    available: bool
    description: str


def sandbox_uid():
    """The user id the calling thread's sandboxes run as, or ``None`` when not root.

    It is derived from the thread's kernel id, which no other live thread or
    process of the host has, so sandboxes running at the same time (worker
    processes, or threads of one worker) never share a uid: one submission's
    fork bomb cannot use up another's process limit, and cleaning up after one
    sandbox kills nothing of another.
    """
    if os.geteuid() != 0:
        return None
    return SANDBOX_UID_BASE + threading.get_native_id()


def _system_args():
    args = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    args += ["--perms", "0755", "--dir", "/etc", "--perms", "0755", "--dir", "/etc/ssl"]
    for name in ETC_FILES:
        args += ["--ro-bind-try", f"/etc/{name}", f"/etc/{name}"]
    return args


def _python_mounts():
    """The Python installation and the virtual environment, at their own paths, read-only."""
    seen = []
    for prefix in (sys.base_prefix, sys.base_exec_prefix, sys.prefix, sys.exec_prefix):
        real = os.path.realpath(prefix)
        if any(real == s or real.startswith(s + os.sep) for s in seen):
            continue
        if any(real == d or real.startswith(d + os.sep) for d in SYSTEM_DIRS):
            continue
        seen.append(real)
    mounts = [Mount(p, p) for p in seen]
    # A virtual environment reached through a symbolic link is also shown at that path,
    # where its interpreter and pyvenv.cfg are looked for.
    if os.path.realpath(sys.prefix) != os.path.abspath(sys.prefix):
        mounts.append(Mount(os.path.realpath(sys.prefix), os.path.abspath(sys.prefix)))
    return mounts


def python_executable():
    """The interpreter to run inside the sandbox (the same one as the host's)."""
    return os.path.join(sys.prefix, "bin", "python") if sys.prefix != sys.base_prefix else sys.executable


def _ancestors(path):
    """``/a``, ``/a/b`` for ``/a/b/c``: the directories bwrap must create before mounting on ``path``."""
    parts = path.strip("/").split("/")[:-1]
    return ["/" + "/".join(parts[:i + 1]) for i in range(len(parts))]


def _setpriv_args(uid):
    """``setpriv`` becoming ``uid``: its own group, no supplementary groups, no capabilities, no new privileges."""
    return [shutil.which("setpriv") or "setpriv", "--reuid", str(uid), "--regid", str(uid), "--clear-groups",
            "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"]


def _bwrap_command(command, *, mounts, cwd, env, limits, uid):
    """Build the full ``prlimit ... bwrap ... command`` argument list.

    As root: an outer bwrap (privileged, so it can mount paths that only root
    may walk, such as a Python under /root) sets up the namespaces and mounts,
    drops to ``uid`` with ``setpriv``, and an inner unprivileged bwrap adds a
    user namespace that maps that uid to 1000 and forbids nested user
    namespaces.  As any other user: one unprivileged bwrap does all of it.
    """
    bwrap = shutil.which("bwrap") or "bwrap"
    args = [bwrap, "--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session", "--hostname", "sandbox"]
    if uid is None:
        args += ["--unshare-user", "--disable-userns", "--uid", "1000", "--gid", "1000"]
    args += _system_args()
    all_mounts = list(_python_mounts()) + list(mounts)
    # Directories to create for the mount points. Those under the private
    # /tmp and /home must be made after those tmpfs mounts, or the mounts hide
    # them (a checkout or virtual environment may well live under /tmp).
    parents = sorted({p for m in all_mounts for p in _ancestors(m.target)} - {"/tmp", "/home"})
    parents = [p for p in parents if not any(p == d or p.startswith(d + "/") for d in SYSTEM_DIRS)]
    on_tmpfs = [p for p in parents if p.startswith(("/tmp/", "/home/"))]
    for parent in parents:
        if parent not in on_tmpfs:
            args += ["--perms", "0755", "--dir", parent]
    args += ["--proc", "/proc", "--dev", "/dev",
             "--perms", "1777", "--size", str(limits.tmp_bytes), "--tmpfs", "/tmp",
             "--perms", "0755", "--size", str(limits.tmp_bytes), "--tmpfs", "/home"]
    for parent in on_tmpfs:
        args += ["--perms", "1777" if parent.startswith("/home/") else "0755", "--dir", parent]
    for mount in all_mounts:
        args += ["--bind" if mount.writable else "--ro-bind", mount.source, mount.target]
    args += ["--remount-ro", "/", "--chdir", cwd, "--clearenv"]
    for key, value in env.items():
        args += ["--setenv", key, value]
    if uid is not None:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP", "--",
                 *_setpriv_args(uid),
                 bwrap, "--unshare-user", "--disable-userns", "--uid", "1000", "--gid", "1000",
                 "--dev-bind", "/", "/", "--die-with-parent", "--chdir", cwd]
    args += ["--"] + list(command)
    prlimit = shutil.which("prlimit")
    if prlimit:
        args = [prlimit] + limits.prlimit_args() + ["--"] + args
    return args


def _drain(stream, keep):
    """Read a pipe to its end, keeping its first and last bytes only."""
    head, tail = bytearray(), bytearray()
    while True:
        chunk = stream.read(65536)
        if not chunk:
            break
        if len(head) < keep:
            take = keep - len(head)
            head += chunk[:take]
            chunk = chunk[take:]
        tail += chunk
        if len(tail) > keep:
            del tail[:-keep]
    text = head.decode("utf-8", "replace")
    if tail:
        text += "\n[...]\n" + tail.decode("utf-8", "replace")
    stream.close()
    return text


def _preexec_limits(limits):
    """A ``preexec_fn`` setting ``limits``, for machines without the ``prlimit`` command."""
    import resource

    def apply():
        for kind, value in ((resource.RLIMIT_AS, limits.memory_bytes), (resource.RLIMIT_NPROC, limits.processes),
                            (resource.RLIMIT_FSIZE, limits.file_bytes), (resource.RLIMIT_CPU, limits.cpu_seconds),
                            (resource.RLIMIT_NOFILE, limits.open_files), (resource.RLIMIT_CORE, 0)):
            resource.setrlimit(kind, (value, value))
    return apply


def _user_processes(uid):
    """The live (not zombie) processes whose real user id is ``uid``."""
    import psutil

    found = []
    for proc in psutil.process_iter(["uids", "status"]):
        try:
            if proc.info["uids"] and proc.info["uids"].real == uid and proc.info["status"] != psutil.STATUS_ZOMBIE:
                found.append(proc)
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return found


def _kill_user(uid, *, settle_seconds=2.0):
    """SIGKILL every process of ``uid`` that outlived its sandbox; return how many there were.

    When a sandbox's init process dies, the kernel kills the rest of its pid
    namespace, but not instantly: processes on their way out are given up to
    ``settle_seconds`` to go before anything still there counts as a survivor.
    """
    import psutil

    deadline = time.monotonic() + settle_seconds
    survivors = _user_processes(uid)
    while survivors and time.monotonic() < deadline:
        time.sleep(0.05)
        survivors = _user_processes(uid)
    for proc in survivors:
        try:
            proc.kill()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
    return len(survivors)


def _kill_tree(root_pid):
    """SIGKILL a process and all of its descendants; return how many descendants there were.

    Without a pid namespace this is best effort: a process that detached
    itself from the tree (a double fork) is not found.
    """
    import psutil

    try:
        root = psutil.Process(root_pid)
        children = root.children(recursive=True)
    except psutil.NoSuchProcess:
        return 0
    for proc in [root] + children:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            continue
    return len(children)


def _run(argv, *, timeout, cwd=None, preexec_fn=None, env=None, on_stop=None, watch=None, watch_every=1.0):
    """Run ``argv`` in its own session; stop it at ``timeout`` or when ``watch()`` returns a reason."""
    started = time.monotonic()
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            cwd=cwd, env=env, start_new_session=True, preexec_fn=preexec_fn)
    collected = {}
    reader = threading.Thread(target=lambda: collected.setdefault("text", _drain(proc.stdout, OUTPUT_TAIL_BYTES)),
                              daemon=True)
    reader.start()
    timed_out = False
    stopped_reason = None
    deadline = started + timeout
    while True:
        try:
            proc.wait(timeout=max(0.01, min(watch_every, deadline - time.monotonic())))
            break
        except subprocess.TimeoutExpired:
            pass
        if time.monotonic() >= deadline:
            timed_out = True
        elif watch is not None:
            stopped_reason = watch()
        if timed_out or stopped_reason:
            if on_stop is not None:
                on_stop(proc.pid)
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
            break
    reader.join(timeout=10)
    returncode = proc.returncode
    return ProcessOutcome(returncode=returncode if returncode >= 0 else 128 - returncode, timed_out=timed_out,
                          seconds=time.monotonic() - started, output=collected.get("text", ""),
                          stopped_reason=stopped_reason)


def _counting_my_processes(limits):
    """``limits`` with the process limit raised by the processes this user already runs.

    Without a user id of its own, the sandbox shares ``RLIMIT_NPROC``'s count
    with everything else the current user runs.
    """
    import psutil

    me = os.getuid()
    running = sum(1 for p in psutil.process_iter(["uids"]) if p.info["uids"] and p.info["uids"].real == me)
    return replace(limits, processes=limits.processes + running)


def run_sandboxed(command, *, mounts, cwd, env, timeout, limits, watch=None):
    """Run ``command`` in a new bubblewrap sandbox; kill it and everything in it after ``timeout`` seconds.

    Writable mounts must be writable by :func:`sandbox_uid` (the caller chowns them).
    """
    uid = sandbox_uid()
    if uid is None:
        limits = _counting_my_processes(limits)
    argv = _bwrap_command(command, mounts=mounts, cwd=cwd, env=env, limits=limits, uid=uid)
    preexec = None if shutil.which("prlimit") else _preexec_limits(limits)
    outcome = _run(argv, timeout=timeout, preexec_fn=preexec, watch=watch)
    if uid is not None:
        # Nothing of the sandbox may outlive it; with the pid namespace gone there should be nothing.
        outcome.leftover_processes = _kill_user(uid)
    return outcome


def run_unsandboxed(command, *, cwd, env, timeout, limits, watch=None):
    """Run ``command`` with resource limits but no isolation (``--unsafe-no-sandbox``)."""
    limits = _counting_my_processes(limits)
    prlimit = shutil.which("prlimit")
    argv = [prlimit] + limits.prlimit_args() + ["--"] + list(command) if prlimit else list(command)
    # The notebook may start processes in sessions of their own, so killing the runner's group is not enough.
    return _run(argv, timeout=timeout, cwd=cwd, env=env, preexec_fn=None if prlimit else _preexec_limits(limits),
                on_stop=_kill_tree, watch=watch)


USER_ISOLATION_TEXT = ("an unprivileged user id of its own, with no groups, no capabilities and the same resource "
                       "limits: it cannot read the grader's files or write its results, but it shares the system's "
                       "file tree, process table and network")


def run_as_user(command, *, cwd, env, timeout, limits, watch=None):
    """Run ``command`` as :func:`sandbox_uid` (host must be root), with resource limits but no namespaces.

    Whatever the command may read or write must be made so by the caller
    (owner or mode); what it started and left running is killed afterwards.
    """
    uid = sandbox_uid()
    if uid is None:
        raise PermissionError("running as an unprivileged user id needs root")
    prlimit = shutil.which("prlimit")
    argv = ([prlimit] + limits.prlimit_args() + ["--"] if prlimit else []) + _setpriv_args(uid) + list(command)
    outcome = _run(argv, timeout=timeout, cwd=cwd, env=env, preexec_fn=None if prlimit else _preexec_limits(limits),
                   on_stop=lambda pid: _kill_user(uid, settle_seconds=0.0))
    outcome.leftover_processes = _kill_user(uid)
    return outcome


@lru_cache(maxsize=1)
def user_isolation_status():
    """Whether :func:`run_as_user` works here, by running ``true`` as that user id."""
    if sys.platform != "linux" or os.geteuid() != 0:
        return SandboxStatus(False, "running student code as another user id needs Linux and root")
    if not shutil.which("setpriv"):
        return SandboxStatus(False, "setpriv (util-linux) is not installed")
    try:
        outcome = run_as_user(["/bin/true"], cwd="/", env={"PATH": "/usr/bin:/bin"}, timeout=30,
                              limits=ProcessLimits.of(Limits(), cpu_seconds=30))
    except OSError as exc:
        return SandboxStatus(False, f"setpriv could not be started: {exc}")
    if outcome.returncode != 0:
        detail = outcome.output.strip().splitlines()
        return SandboxStatus(False, "setpriv cannot change the user id here" + (f" ({detail[-1]})" if detail else ""))
    return SandboxStatus(True, USER_ISOLATION_TEXT)


# -- why bubblewrap cannot start ---------------------------------------------------------

@dataclass(frozen=True)
class NamespaceFacts:
    """What decides, on this machine, whether bubblewrap can make its namespaces (:func:`namespace_facts`).

    ``sysctls`` holds the settings of :data:`USERNS_SYSCTLS` this kernel has
    (a name it lacks is absent).  ``user_namespaces`` says whether an
    unprivileged process (the sandbox's user id, when the grader is root)
    could make a user namespace with ``unshare``, ``None`` when ``unshare`` is
    not installed; ``mount_namespaces``, probed only as root, whether this
    process could make a mount namespace itself, as the outer bubblewrap does.
    The errors are what ``unshare`` printed last.
    """

    bwrap: str
    bwrap_setuid: bool
    root: bool
    sysctls: dict = field(default_factory=dict)
    user_namespaces: Optional[bool] = None
    user_namespace_error: str = ""
    mount_namespaces: Optional[bool] = None
    mount_namespace_error: str = ""


def read_sysctls(names, *, root="/proc/sys"):
    """``{name: value}`` of the kernel settings ``names`` (dotted, as ``sysctl`` writes them) this kernel has."""
    found = {}
    for name in names:
        if not re.fullmatch(r"[a-z0-9_]+(\.[a-z0-9_]+)+", name):
            raise ValueError(f"{name!r} is not a sysctl name (words of a-z, 0-9 and _ joined by dots)")
        try:
            with open(os.path.join(root, *name.split("."))) as f:
                found[name] = f.read().strip()
        except OSError:
            continue
    return found


def _probe(command):
    """``(True, "")`` when ``command`` ends with status 0, else ``(False, its last line of output)``."""
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as exc:
        return False, str(exc)
    if done.returncode == 0:
        return True, ""
    lines = (done.stderr + done.stdout).strip().splitlines()
    return False, lines[-1] if lines else f"exit status {done.returncode}"


def namespace_facts():
    """Read the kernel's settings for user namespaces and try them with ``unshare`` (:class:`NamespaceFacts`)."""
    bwrap = shutil.which("bwrap") or "bwrap"
    try:
        setuid = bool(os.stat(bwrap).st_mode & stat.S_ISUID)
    except OSError:
        setuid = False
    root = os.geteuid() == 0
    facts = NamespaceFacts(bwrap=bwrap, bwrap_setuid=setuid, root=root, sysctls=read_sysctls(USERNS_SYSCTLS))
    unshare = shutil.which("unshare")
    if not unshare:
        return facts
    # The sandbox's own user namespace is made without privileges: as root, by the sandbox's user id.
    as_sandbox = _setpriv_args(sandbox_uid()) if root and shutil.which("setpriv") else []
    works, error = _probe(as_sandbox + [unshare, "--user", "--map-root-user", "/bin/true"])
    facts = replace(facts, user_namespaces=works, user_namespace_error=error)
    if root:
        works, error = _probe([unshare, "--mount", "/bin/true"])
        facts = replace(facts, mount_namespaces=works, mount_namespace_error=error)
    return facts


def _persist(name, value):
    return (f"as root, run 'sysctl -w {name}={value}', and put the line '{name} = {value}' in a file in "
            "/etc/sysctl.d/ to keep it after a reboot")


def missing_for_sandbox(facts):
    """What keeps bubblewrap from making a sandbox, given :class:`NamespaceFacts`, and what to change: a sentence.

    Each setting is named only where this kernel has it and it is what
    stops the sandbox: Debian's switch and AppArmor's restriction hold back
    only an unprivileged bwrap, the namespace limit everyone.
    """
    problems = []
    unprivileged = not facts.bwrap_setuid
    if unprivileged and facts.sysctls.get(USERNS_CLONE) == "0":
        problems.append(f"this kernel forbids unprivileged user namespaces ({USERNS_CLONE} is 0): "
                        + _persist(USERNS_CLONE, 1))
    if facts.sysctls.get(MAX_USER_NAMESPACES) == "0":
        problems.append(f"this kernel allows no user namespace at all ({MAX_USER_NAMESPACES} is 0): "
                        + _persist(MAX_USER_NAMESPACES, 10000))
    if unprivileged and facts.sysctls.get(APPARMOR_RESTRICTION) == "1":
        problems.append(
            f"AppArmor keeps programs without a profile of their own from using user namespaces "
            f"({APPARMOR_RESTRICTION} is 1, as Ubuntu 24.04 sets it): either give bwrap such a profile (as root, "
            f"a file /etc/apparmor.d/bwrap holding the two lines 'abi <abi/4.0>,' and "
            f"'profile bwrap {facts.bwrap} flags=(unconfined) {{ userns, }}', loaded with "
            f"'apparmor_parser -r /etc/apparmor.d/bwrap'), or lift the restriction for every program: "
            + _persist(APPARMOR_RESTRICTION, 0))
    if unprivileged and not problems and facts.user_namespaces is False:
        problems.append(
            f"this process may not make user namespaces although the kernel's settings allow them ('unshare "
            f"--user' said: {facts.user_namespace_error}): a container's seccomp filter or security profile forbids "
            "them; start the container with '--security-opt seccomp=unconfined --security-opt apparmor=unconfined'")
    if facts.root and facts.mount_namespaces is False:
        problems.append(
            f"as root, bubblewrap makes its namespaces with this process's own privileges, which lack CAP_SYS_ADMIN "
            f"('unshare --mount' said: {facts.mount_namespace_error}), as in a container started without it: start "
            "the container with '--cap-add SYS_ADMIN' and unconfined seccomp and AppArmor profiles, or "
            "'--privileged'")
    if problems:
        return "; ".join(problems)
    if facts.bwrap_setuid:
        return (f"{facts.bwrap} is setuid root, so no setting for unprivileged user namespaces stops it: bwrap's own "
                "message says what failed")
    if facts.user_namespaces is None:
        return ("whether user namespaces work here could not be checked ('unshare', from util-linux, is not "
                "installed): bwrap's own message says what failed")
    return "user namespaces work here ('unshare --user' made one), so bwrap's own message says what failed"


@lru_cache(maxsize=1)
def sandbox_status():
    """Check once whether bubblewrap can start a sandbox here, by running ``true`` in one."""
    if sys.platform != "linux":
        return SandboxStatus(False, f"bubblewrap sandboxes need Linux; this is {sys.platform}")
    if not shutil.which("bwrap"):
        return SandboxStatus(False, "bubblewrap (bwrap) is not installed; install it with 'apt-get install bubblewrap'")
    try:
        outcome = run_sandboxed(["/bin/true"], mounts=[], cwd="/", env={"PATH": "/usr/bin:/bin"}, timeout=30,
                                limits=ProcessLimits.of(Limits(), cpu_seconds=30))
    except OSError as exc:
        return SandboxStatus(False, f"bubblewrap could not be started: {exc}")
    if outcome.returncode != 0:
        detail = outcome.output.strip().splitlines()
        return SandboxStatus(False, "bubblewrap is installed but cannot create a sandbox here"
                             + (f" ({detail[-1]})" if detail else "") + ": " + missing_for_sandbox(namespace_facts()))
    version = subprocess.run(["bwrap", "--version"], capture_output=True, text=True).stdout.strip()
    who = "as a user id of its own" if os.geteuid() == 0 else f"as uid {os.getuid()}"
    return SandboxStatus(True, f"{version or 'bubblewrap'}: new user, pid, network, IPC and UTS namespaces, "
                               f"no network, read-only system, {who}")
