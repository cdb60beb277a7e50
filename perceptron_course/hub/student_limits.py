"""What holds a student's processes on the hub, set while still root: a process limit and a memory control group
of her own (:mod:`perceptron_course.hub.spawner` uses them; they need no JupyterHub, so the tests run them as
real users directly).
"""

import os
import resource

__all__ = ["MemoryGroups", "MemoryGroupError", "for_a_student", "GROUP_FOLDER"]

GROUP_FOLDER = "perceptron-hub-students"


class MemoryGroupError(OSError):
    """The students' memory control groups cannot be made here; the message says why and what to do."""


def _memory_hierarchy_v1(mountinfo="/proc/self/mountinfo", cgroup="/proc/self/cgroup"):
    """The folder of this process's own control group in the cgroup v1 memory hierarchy, or ``None``."""
    mount = None
    with open(mountinfo, encoding="utf-8") as handle:
        for line in handle:
            fields, _, tail = line.partition(" - ")
            fstype, _, options = tail.split()[:3]
            if fstype == "cgroup" and "memory" in options.split(","):
                root, point = fields.split()[3:5]
                mount = (root, point)
                break
    if mount is None:
        return None
    with open(cgroup, encoding="utf-8") as handle:
        for line in handle:
            _, controllers, path = line.rstrip("\n").split(":", 2)
            if "memory" in controllers.split(","):
                root, point = mount
                inside = path[len(root):] if root != "/" and path.startswith(root) else path
                return point + inside.rstrip("/")
    return None


class MemoryGroups:
    """The memory control groups of the hub's students, one per student, under one folder.

    ``folder`` is given for cgroup v2 (a group delegated to the hub, with the memory controller on for its
    children; README); otherwise, with cgroup v1, it is a folder under the hub's own group in the memory
    hierarchy. :class:`MemoryGroupError` names why neither can be used.
    """

    def __init__(self, folder=""):
        if folder:
            self.v2 = os.path.exists(os.path.join(folder, "cgroup.controllers"))
            if self.v2:
                with open(os.path.join(folder, "cgroup.subtree_control"), encoding="utf-8") as handle:
                    if "memory" not in handle.read().split():
                        raise MemoryGroupError(f"{folder} does not give its groups the memory controller: write "
                                               f"+memory to {folder}/cgroup.subtree_control (README)")
            self.folder = folder
        else:
            own = _memory_hierarchy_v1()
            if own is None:
                raise MemoryGroupError("this machine has no cgroup v1 memory hierarchy (with cgroup v2, give the "
                                       "hub a group of its own: write_site's memory_group_folder, README)")
            self.v2, self.folder = False, os.path.join(own, GROUP_FOLDER)
        try:
            os.makedirs(self.folder, exist_ok=True)
        except OSError as exc:
            raise MemoryGroupError(f"the students' memory groups cannot be made in {self.folder} "
                                   f"({exc.strerror})") from None

    def prepare(self, name, limit):
        """Make (or reuse) ``name``'s group, holding it to ``limit`` bytes; returns its folder."""
        group = os.path.join(self.folder, name)
        os.makedirs(group, exist_ok=True)
        with open(os.path.join(group, "memory.max" if self.v2 else "memory.limit_in_bytes"), "w") as handle:
            handle.write(str(limit))
        return group


def for_a_student(set_user, processes, memory_group=None):
    """A ``preexec_fn`` that, while still root, sets the hard and soft process limit to ``processes`` and puts the
    process into ``memory_group`` (a folder of :meth:`MemoryGroups.prepare`), and then becomes the user
    (``set_user``), who can undo neither."""

    def preexec():
        resource.setrlimit(resource.RLIMIT_NPROC, (processes, processes))
        if memory_group is not None:
            with open(os.path.join(memory_group, "cgroup.procs"), "w") as handle:
                handle.write("0")  # this process; all it starts is in the group too
        set_user()

    return preexec
