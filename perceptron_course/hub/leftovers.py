"""What a student's server leaves running when it stops: ended with it, as a systemd scope would end it.

LocalProcessSpawner stops the server's own process and nothing else. A student who started something in
the background (``nohup``, ``setsid``, a script that daemonizes itself) from their JupyterLab's terminal or a
notebook would keep it running after their server stopped, holding memory and processors, and able to
fill the disk while nobody sees it. The hub's configuration runs :func:`end_leftover_processes` after each
user's server stops (``Spawner.post_stop_hook``): every process still running as that student's Linux user
is killed.

Staff are left alone: a TA or an instructor of any course, or a hub administrator, also works in a shell
(``grade``, ``mark``) and may leave a grading running on purpose. So are users who are not plain Linux
users (root, the hub's own user).
"""

import asyncio
import os
import pwd
import sys

from perceptron_course.hub.courses import is_staff, roles_from_groups

__all__ = ["ends_leftovers_of", "end_leftover_processes", "processes_of"]

# Run as the student: signal -1 reaches every process the caller may signal (all of that user's, not
# the caller itself), in one call, so a process that forks as it is killed cannot outrun it for long.
# ESRCH says none is left; zombies still count, so the loop also ends after a second.
KILL_ALL_OF_MINE = """
import os, signal, time
for _ in range(100):
    try:
        os.kill(-1, signal.SIGKILL)
    except ProcessLookupError:
        break
    time.sleep(0.01)
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


def processes_of(uid):
    """The ids of the live processes (zombies left out) that run as ``uid``, read from ``/proc``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/status", encoding="utf-8") as handle:
                fields = dict(line.split(":", 1) for line in handle if ":" in line)
        except OSError:  # it ended while the folder was read
            continue
        if int(fields["Uid"].split()[0]) == uid and not fields["State"].strip().startswith("Z"):
            found.append(int(entry))
    return found


async def end_leftover_processes(spawner):
    """``Spawner.post_stop_hook``: kill what a student's stopped server left running, and log what was done."""
    user = spawner.user
    if not ends_leftovers_of(user.name, [group.name for group in user.groups], user.admin):
        return
    account = pwd.getpwnam(user.name)
    left = processes_of(account.pw_uid)
    if not left:
        return
    killer = await asyncio.create_subprocess_exec(
        sys.executable, "-I", "-c", KILL_ALL_OF_MINE, user=account.pw_uid, group=account.pw_gid, extra_groups=[],
        env={"PATH": "/usr/bin:/bin"}, cwd="/", stdin=asyncio.subprocess.DEVNULL)
    await killer.wait()
    still = processes_of(account.pw_uid)
    if still:
        spawner.log.error("%s's server stopped; of the %d processes it left running, %d still run: %s",
                          user.name, len(left), len(still), still)
    else:
        spawner.log.info("%s's server stopped; the %d processes it left running were ended", user.name, len(left))
