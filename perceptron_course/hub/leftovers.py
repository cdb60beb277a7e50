"""What a student's server leaves running when it stops: ended with it.

LocalProcessSpawner stops the server's own process and nothing else. A student who started something in
the background (``nohup``, ``setsid``, a script that daemonizes itself) from their JupyterLab's terminal or a
notebook would keep it running after their server stopped, holding memory and processors, and able to
fill the disk while nobody sees it. The hub's configuration runs :func:`end_leftover_processes` after each
user's server stops (``Spawner.post_stop_hook``): every process still running as that student's Linux user
is killed, by the hub (root), never by a process of hers, which she could stop or trace.

This works by user, not by control group as a systemd scope does: everything of the student's account
ends, so on a hub her account must be for the hub only (no SSH login, no crontab: README, "Running the
course on a JupyterHub"). Staff are left alone: a TA or an instructor of any course, or a hub
administrator, also works in a shell (``grade``, ``mark``) and may leave a grading running on purpose. So
are users who are not plain Linux users (root, the hub's own user).
"""

import asyncio
import os
import pwd
import signal
import time

from perceptron_course.hub.courses import is_staff, roles_from_groups

__all__ = ["ends_leftovers_of", "end_leftover_processes", "end_processes_of", "processes_of"]

# Passes of stop-then-kill before giving up: a pass ends what it found; a process forked meanwhile is found
# by the next one, and stopped before it can fork again.
MAX_PASSES = 50


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
    """Stop, then kill, every live process of ``uid``, pass after pass until one finds none (at most
    :data:`MAX_PASSES`); return those still running.

    Each process is held by a pidfd, which names one process for good: its owner is checked through /proc
    after the pidfd is opened, so a number reused by someone else's new process is never signalled."""
    for _ in range(MAX_PASSES):
        found = processes_of(uid)
        if not found:
            return []
        held = []
        for pid in found:
            try:
                handle = os.pidfd_open(pid)
            except OSError:  # ended already
                continue
            seen = _uid_and_state(pid)
            if seen is None or seen[0] != uid:
                os.close(handle)
                continue
            held.append(handle)
            try:
                signal.pidfd_send_signal(handle, signal.SIGSTOP)
            except OSError:
                pass
        for handle in held:
            try:
                signal.pidfd_send_signal(handle, signal.SIGKILL)
            except OSError:
                pass
            os.close(handle)
        time.sleep(0.01)
    return processes_of(uid)


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
    left = await asyncio.to_thread(processes_of, uid)
    if not left:
        return
    still = await asyncio.to_thread(end_processes_of, uid)
    if still:
        spawner.log.error("%s's server stopped; of the %d processes it left running, %d still run: %s",
                          user.name, len(left), len(still), still)
    else:
        spawner.log.info("%s's server stopped; the %d processes it left running were ended", user.name, len(left))
