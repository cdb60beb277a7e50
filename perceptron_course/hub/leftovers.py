"""What a student's server leaves running when it stops: ended with it.

LocalProcessSpawner stops the server's own process and nothing else. A student who started something in
the background (``nohup``, ``setsid``, a script that daemonizes itself) from their JupyterLab's terminal or a
notebook would keep it running after their server stopped, holding memory and processors, and able to
fill the disk while nobody sees it. The hub's configuration runs :func:`end_leftover_processes` after each
user's server stops (``Spawner.post_stop_hook``): every process still running as that student's Linux user
is killed at once (:func:`end_processes_of`), by a child of the hub that none of her processes may signal or
trace.

This works by user, not by control group as a systemd scope does: everything of the student's account
ends, so on a hub her account must be for the hub only (no SSH login, no crontab or ``at`` jobs: README,
"Running the course on a JupyterHub"). Only accounts made for the hub are touched (an ordinary user in the
hub's accounts group, :func:`perceptron_course.hub.lti_launch.is_hub_account`): never root, the hub's own
user or a system account that a hub user happens to be named after. Staff are left alone too: a TA or an
instructor of any course, or a hub administrator, also works in a shell (``grade``, ``mark``) and may leave
a grading running on purpose.
"""

import asyncio
import os
import pwd
import subprocess
import sys
import threading
import time

from perceptron_course.hub.courses import is_staff, roles_from_groups
from perceptron_course.hub.lti_launch import ACCOUNTS_GROUP, is_hub_account

__all__ = ["is_hub_student", "end_leftover_processes", "end_processes_of", "killer_uid", "processes_of"]

# Kills before giving up, and how long after each the kernel has to take her processes away.
MAX_KILLS = 5
SETTLE_SECONDS = 5.0
KILL_TIMEOUT_SECONDS = 30
# The killer of uid u runs with real and saved uid KILLER_UID_BASE + u, a uid no account or process has:
# so nothing but root may signal or trace it, and two killers for two students (two stops at once) may not
# signal each other either.
KILLER_UID_BASE = 2**31
# The killer itself, in a child of the hub: no groups, her uid as the effective one, then every process that
# effective uid may signal (whose real or saved uid is hers) is killed in one step.
_KILL_AS = """
import os, signal, sys
uid, killer = int(sys.argv[1]), int(sys.argv[2])
os.setgroups([])
os.setresgid(killer, killer, killer)
os.setresuid(killer, uid, killer)
os.kill(-1, signal.SIGKILL)
"""
# One killer at a time for each uid (two of the same student's servers may stop together).
_locks_guard = threading.Lock()
_locks = {}


def is_hub_student(user_name, groups, admin, accounts_group=ACCOUNTS_GROUP):
    """Whether this user is one of the hub's students, whose processes end with their server and whose servers
    are held to the students' limits (:mod:`perceptron_course.hub.spawner`): an account made for the hub (an
    ordinary user in ``accounts_group``), other than the hub's own, of someone who is staff nowhere."""
    if admin or any(is_staff(role) for role in roles_from_groups(groups).values()):
        return False
    if not is_hub_account(user_name, accounts_group):
        return False
    return pwd.getpwnam(user_name).pw_uid not in (0, os.geteuid())


def killer_uid(uid):
    """The real and saved uid of the child that kills ``uid``'s processes."""
    if not 0 < uid < KILLER_UID_BASE - 1:
        raise ValueError(f"no killer for uid {uid}: it must be between 1 and {KILLER_UID_BASE - 2}")
    return KILLER_UID_BASE + uid


def _status(pid):
    """``(real uid, state letter, threads)`` of a process, or ``None`` once it is gone. Read as bytes: a
    process names itself (``prctl``), and a name that is not UTF-8 must not stop the scan."""
    try:
        with open(f"/proc/{pid}/status", "rb") as handle:
            fields = dict(line.split(b":", 1) for line in handle if b":" in line)
        return int(fields[b"Uid"].split()[0]), fields[b"State"].strip()[:1].decode("ascii"), \
            int(fields.get(b"Threads", b"1"))
    except (OSError, KeyError, ValueError, IndexError):  # it ended while it was read
        return None


def processes_of(uid):
    """The ids of the live processes that run as ``uid``, read from ``/proc``: zombies (``Z``) and the dead
    being reaped (``X``, for a moment) left out, except one whose main thread has exited while its other
    threads still run."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            seen = _status(entry)
            if seen is not None and seen[0] == uid and (seen[1] not in "ZX" or seen[2] > 1):
                found.append(int(entry))
    return found


def _lock_of(uid):
    with _locks_guard:
        return _locks.setdefault(uid, threading.Lock())


def end_processes_of(uid):
    """Kill every process of ``uid`` at once, and wait until none is left; return those still running.

    A scan of ``/proc`` cannot do it alone: a process that forks and exits while the scan reads the list is
    seen in neither form, so a pass may find nothing while her daemon lives on. ``kill(-1, SIGKILL)`` is one
    step instead: the kernel signals every process the caller may signal while holding the lock that fork
    needs, so no child is made after it that it missed. It must run as her to reach only hers, but not as
    a process of hers: :func:`_killer` runs with her uid as its effective one only (the one signals are
    checked by), and with :func:`killer_uid` as its real and saved ones, which no process of hers may signal,
    stop or trace. A process that was just starting as her (her new login, a new server) is caught by the
    next kill, and a killer that could not start (no process ids left) is tried again: at most
    :data:`MAX_KILLS`, each followed by a wait for the kernel to reap what it killed."""
    killer_uid(uid)  # refuses root and impossible uids before anything runs
    with _lock_of(uid):
        for _ in range(MAX_KILLS):
            # Killed whether or not a scan saw anything: a process that hops from fork to fork can hide from one.
            try:
                _killer(uid)
            except (OSError, subprocess.SubprocessError):
                time.sleep(0.2)  # her processes may hold every process id for a moment; the next attempt retries
            deadline = time.monotonic() + SETTLE_SECONDS
            while processes_of(uid) and time.monotonic() < deadline:
                time.sleep(0.01)
            if not processes_of(uid):
                return []
        return processes_of(uid)


def _killer(uid):
    """Run :data:`_KILL_AS` in a child of the hub: ``kill(-1, SIGKILL)`` with effective uid ``uid``."""
    killer = killer_uid(uid)
    try:
        pwd.getpwuid(killer)
    except KeyError:
        pass
    else:
        raise RuntimeError(f"refusing to kill as uid {uid}: uid {killer}, which its killer runs as, is an account's")
    if processes_of(killer):
        raise RuntimeError(f"refusing to kill as uid {uid}: uid {killer}, which its killer runs as, has processes")
    subprocess.run([sys.executable, "-I", "-S", "-c", _KILL_AS, str(uid), str(killer)],
                   stdin=subprocess.DEVNULL, check=True, timeout=KILL_TIMEOUT_SECONDS)


def _waiting_on(pid):
    """What a process that outlived its SIGKILL waits on in the kernel (``/proc/<pid>/wchan``), for the log."""
    try:
        with open(f"/proc/{pid}/wchan", "rb") as handle:
            return handle.read().decode("ascii", "replace") or "?"
    except OSError:
        return "?"


async def end_leftover_processes(spawner):
    """``Spawner.post_stop_hook``: kill what a student's stopped server left running, and log what was done."""
    user = spawner.user
    group = getattr(getattr(user, "authenticator", None), "accounts_group", ACCOUNTS_GROUP)
    if not is_hub_student(user.name, [g.name for g in user.groups], user.admin, group):
        return
    # A stop that took long enough for the hub to let her start again: her new server is not a leftover.
    if any(other is not spawner and other.active for other in user.spawners.values()):
        spawner.log.info("%s has a server running again; nothing of hers is ended", user.name)
        return
    uid = pwd.getpwnam(user.name).pw_uid
    left = await asyncio.to_thread(processes_of, uid)  # counted for the log only: a scan can miss a hopper
    still = await asyncio.to_thread(end_processes_of, uid)
    if still:
        spawner.log.error("%s's server stopped; of the %d processes it left running, these still run after %d "
                          "kills (process: what it waits on): %s", user.name, len(left), MAX_KILLS,
                          ", ".join(f"{pid}: {_waiting_on(pid)}" for pid in still))
    else:
        spawner.log.info("%s's server stopped; the processes it left running were ended (%d seen before)",
                         user.name, len(left))
