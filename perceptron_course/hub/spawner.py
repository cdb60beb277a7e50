"""The hub's spawner: each user's JupyterLab as that Linux user (LocalProcessSpawner), a student's held to a
limit on her processes.

One student's runaway code (a fork bomb, a loop that starts a process each time round, a thousand kernels)
would otherwise take the process table, and every other user's next kernel, terminal or login with it. A
student's server starts with a hard limit on the processes and threads her Linux user may run at once
(``RLIMIT_NPROC``, :attr:`perceptron_course.limits.Limits.hub_student_processes`): her processes inherit it
and none of them may raise it, so past it her next ``fork`` fails (Python raises ``BlockingIOError``) and
nobody else's does. The kernel counts it by her uid, across all her servers. Who counts as a student is
:func:`perceptron_course.hub.leftovers.is_hub_student`: staff, who grade in their servers, are not limited.

What this does not bound, memory and disk, needs the server's control groups and quotas (README, "Running
the course on a JupyterHub").
"""

import resource

from jupyterhub.spawner import LocalProcessSpawner

from perceptron_course.hub.leftovers import is_hub_student
from perceptron_course.hub.lti_launch import ACCOUNTS_GROUP
from perceptron_course.limits import course_limits

__all__ = ["CourseSpawner", "with_process_limit"]


def with_process_limit(set_user, processes):
    """A ``preexec_fn`` that sets the hard and soft process limit to ``processes`` and then becomes the user
    (``set_user``): set while still root, so that the user cannot raise it again."""

    def preexec():
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
        set_user()

    return preexec


class CourseSpawner(LocalProcessSpawner):
    """LocalProcessSpawner, with a student's server started under the students' process limit."""

    def make_preexec_fn(self, name):
        set_user = super().make_preexec_fn(name)
        user = self.user
        group = getattr(getattr(user, "authenticator", None), "accounts_group", ACCOUNTS_GROUP)
        if not is_hub_student(name, [g.name for g in user.groups], user.admin, group):
            return set_user
        processes = course_limits().hub_student_processes
        self.log.info("%s's server starts with a limit of %d processes", name, processes)
        return with_process_limit(set_user, processes)
