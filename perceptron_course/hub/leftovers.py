"""What a student's server leaves running when it stops: ended with it.

LocalProcessSpawner stops the server's own process and nothing else. A student who started something in
the background (``nohup``, ``setsid``, a script that daemonizes itself) from their JupyterLab's terminal or a
notebook would keep it running after their server stopped, holding memory and processors, and able to
fill the disk while nobody sees it. The hub's configuration runs :func:`end_leftover_processes` after each
user's server stops (``Spawner.post_stop_hook``): every process still running as that student's Linux user
is killed at once (:func:`end_processes_of`), by a child of the hub that none of her processes may signal or
trace.

This works by user, not by control group as a systemd scope does: everything of the student's account
ends, so on a hub her account must be for the hub only (no SSH login, no crontab: README, "Running the
course on a JupyterHub"). Staff are left alone: a TA or an instructor of any course, or a hub
administrator, also works in a shell (``grade``, ``mark``) and may leave a grading running on purpose. So
are users who are not plain Linux users (root, the hub's own user).
"""

import asyncio
import os
import pwd
import subprocess
import sys
import time

from perceptron_course.hub.courses import is_staff, roles_from_groups

__all__ = ["ends_leftovers_of", "end_leftover_processes", "end_processes_of", "processes_of"]

# Kills before giving up, and how long after each the kernel has to take her processes away.
MAX_KILLS = 5
SETTLE_SECONDS = 5.0
# A user id no account, file or process has (the largest the kernel allows is 2**32 - 2): the killer's real
# and saved uid, so that it is signalled or traced by nothing but root.
KILLER_UID = 2**32 - 1000
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


def ends_leftovers_of(user_name, groups, admin):
    """Whether this user's processes are ended with their server: a plain Linux user who is staff nowhere."""
    if admin or any(is_staff(role) for role in roles_from_groups(groups).values()):
        return False
    try:
        uid = pwd.getpwnam(user_name).pw_uid
    except KeyError:
        return False
    return uid not in (0, os.geteuid())


def _uid_and_state(pid):
    """``(real uid, state letter)`` of a process, or ``None`` once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as handle:
            fields = dict(line.split(":", 1) for line in handle if ":" in line)
    except OSError:  # it ended while it was read
        return None
    return int(fields["Uid"].split()[0]), fields["State"].strip()[:1]


def processes_of(uid):
    """The ids of the live processes (zombies left out) that run as ``uid``, read from ``/proc``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            seen = _uid_and_state(entry)
            if seen is not None and seen[0] == uid and seen[1] != "Z":
                found.append(int(entry))
    return found


def end_processes_of(uid):
    """Kill every process of ``uid`` at once, and wait until none is left; return those still running.

    A scan of ``/proc`` cannot do it alone: a process that forks and exits while the scan reads the list is
    seen in neither form, so a pass may find nothing while her daemon lives on. ``kill(-1, SIGKILL)`` is one
    step instead: the kernel signals every process the caller may signal while holding the lock that fork
    needs, so no child is made after it that it missed. It must run as her to reach only hers, but not as
    a process of hers: :func:`_killer` runs with her uid as its effective one only (the one signals are
    checked by), and with :data:`KILLER_UID` as its real and saved ones, which no process of hers may signal,
    stop or trace. A process that was just starting as her (her new login, a new server) is caught by the
    next kill: at most :data:`MAX_KILLS`, each followed by a wait for the kernel to reap what it killed."""
    for _ in range(MAX_KILLS):
        # Killed whether or not a scan saw anything: a process that hops from fork to fork can hide from one.
        _killer(uid)
        deadline = time.monotonic() + SETTLE_SECONDS
        while processes_of(uid) and time.monotonic() < deadline:
            time.sleep(0.01)
        if not processes_of(uid):
            return []
    return processes_of(uid)


def _killer(uid):
    """Run :data:`_KILL_AS` in a child of the hub: ``kill(-1, SIGKILL)`` with effective uid ``uid``."""
    try:
        pwd.getpwuid(KILLER_UID)
        taken = True
    except KeyError:
        taken = bool(processes_of(KILLER_UID))
    if uid in (0, KILLER_UID) or taken:
        raise RuntimeError(f"refusing to kill as uid {uid}: it is root, or uid {KILLER_UID}, which the killer "
                           "runs as, belongs to an account or has processes")
    subprocess.run([sys.executable, "-I", "-S", "-c", _KILL_AS, str(uid), str(KILLER_UID)],
                   stdin=subprocess.DEVNULL, check=True, timeout=30)


async def end_leftover_processes(spawner):
    """``Spawner.post_stop_hook``: kill what a student's stopped server left running, and log what was done."""
    user = spawner.user
    if not ends_leftovers_of(user.name, [group.name for group in user.groups], user.admin):
        return
    # A stop that took long enough for the hub to let her start again: her new server is not a leftover.
    if any(other is not spawner and other.active for other in user.spawners.values()):
        spawner.log.info("%s has a server running again; nothing of hers is ended", user.name)
        return
    uid = pwd.getpwnam(user.name).pw_uid
    left = await asyncio.to_thread(processes_of, uid)  # counted for the log only: a scan can miss a hopper
    still = await asyncio.to_thread(end_processes_of, uid)
    if still:
        spawner.log.error("%s's server stopped; of the %d processes it left running, %d still run: %s",
                          user.name, len(left), len(still), still)
    else:
        spawner.log.info("%s's server stopped; the processes it left running were ended (%d seen before)",
                         user.name, len(left))
