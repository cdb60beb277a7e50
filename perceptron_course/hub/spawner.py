"""The hub's spawner: each user's JupyterLab as that Linux user (LocalProcessSpawner), a student's held to limits
on her processes and her memory.

One student's runaway code (a fork bomb, a loop that starts a process each time round, a thousand kernels, an
array of a hundred gigabytes) would otherwise take the process table or the memory, and every other user's next
kernel, terminal or login with it. So a student's server starts

- with a hard limit on the processes and threads her Linux user may run at once (``RLIMIT_NPROC``,
  :attr:`perceptron_course.limits.Limits.hub_student_processes`): her processes inherit it and none of them may
  raise it, so past it her next ``fork`` fails (Python raises ``BlockingIOError``) and nobody else's does. The
  kernel counts it by her uid, across all her servers;
- in a memory control group of her own (``<group>/<her name>``,
  :class:`~perceptron_course.hub.student_limits.MemoryGroups`), which holds everything
  her server starts to ``hub_student_memory_bytes``: past it the kernel ends the largest of her processes (her
  notebook's kernel, which JupyterLab shows as died), and no one else's. The group's files are root's, so she
  cannot leave it or change its limit.

Who counts as a student is :func:`perceptron_course.hub.leftovers.is_hub_student`: staff, who grade in their
servers, are not limited. What this does not bound, disk, needs the server's quotas (README, "Running the course
on a JupyterHub").
"""

from jupyterhub.spawner import LocalProcessSpawner
from traitlets import Unicode

from perceptron_course.hub.leftovers import is_hub_student
from perceptron_course.hub.lti_launch import ACCOUNTS_GROUP
from perceptron_course.hub.student_limits import MemoryGroupError, MemoryGroups, for_a_student
from perceptron_course.limits import course_limits

__all__ = ["CourseSpawner"]


class CourseSpawner(LocalProcessSpawner):
    """LocalProcessSpawner, with a student's server started under the students' limits."""

    memory_group_folder = Unicode(
        "", config=True,
        help="With cgroup v2, a control group delegated to the hub (memory controller on for its children), in "
             "which each student gets a group of her own; empty: a group under the hub's own, with cgroup v1.")

    _memory_groups = None

    def _groups(self):
        # Made once per hub process, by the first student's start; a failure is logged each start, not hidden.
        if CourseSpawner._memory_groups is None:
            try:
                CourseSpawner._memory_groups = MemoryGroups(self.memory_group_folder)
            except MemoryGroupError as exc:
                self.log.error("students' memory is NOT bounded: %s", exc)
                return None
        return CourseSpawner._memory_groups

    def make_preexec_fn(self, name):
        set_user = super().make_preexec_fn(name)
        user = self.user
        group = getattr(getattr(user, "authenticator", None), "accounts_group", ACCOUNTS_GROUP)
        if not is_hub_student(name, [g.name for g in user.groups], user.admin, group):
            return set_user
        limits = course_limits()
        groups, memory_group = self._groups(), None
        if groups is not None:
            try:
                memory_group = groups.prepare(name, limits.hub_student_memory_bytes)
            except OSError as exc:
                self.log.error("%s's memory is NOT bounded: her group in %s cannot be made (%s)", name,
                               groups.folder, exc)
        self.log.info("%s's server starts with a limit of %d processes and %s of memory", name,
                      limits.hub_student_processes,
                      f"{limits.hub_student_memory_bytes:,} bytes" if memory_group else "no limit")
        return for_a_student(set_user, limits.hub_student_processes, memory_group)
