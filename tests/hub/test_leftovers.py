"""Whose processes the hub ends when their server stops (:mod:`perceptron_course.hub.leftovers`); the real hub
ending a student's background processes is tested in ``test_hub_real.py``."""

import os
import pwd
import subprocess
import time

from perceptron_course.hub.leftovers import ends_leftovers_of, processes_of

STUDENT_GROUPS = ["course-perceptron-students", "course-perceptron-b-students"]


def test_a_students_leftovers_are_ended_and_staffs_and_admins_are_not():
    # nobody is a plain Linux user on every Debian system.
    assert ends_leftovers_of("nobody", STUDENT_GROUPS, admin=False)
    assert ends_leftovers_of("nobody", [], admin=False)
    # A TA or instructor in any one course works in a shell too, and may leave a grading running.
    assert not ends_leftovers_of("nobody", STUDENT_GROUPS + ["course-other-tas"], admin=False)
    assert not ends_leftovers_of("nobody", ["course-perceptron-instructors"], admin=False)
    assert not ends_leftovers_of("nobody", STUDENT_GROUPS, admin=True)


def test_no_leftovers_are_ended_for_root_the_hubs_own_user_or_a_name_with_no_linux_user():
    assert not ends_leftovers_of("root", STUDENT_GROUPS, admin=False)
    own = pwd.getpwuid(os.geteuid()).pw_name
    assert not ends_leftovers_of(own, STUDENT_GROUPS, admin=False)
    assert not ends_leftovers_of("no-such-user-pcx", STUDENT_GROUPS, admin=False)


def test_processes_of_finds_live_processes_and_leaves_out_zombies():
    assert os.getpid() in processes_of(os.getuid())
    child = subprocess.Popen(["true"])
    while open(f"/proc/{child.pid}/status", encoding="utf-8").read().find("State:\tZ") < 0:
        time.sleep(0.01)  # until it has exited and is a zombie, not yet reaped
    assert child.pid not in processes_of(os.getuid())
    child.wait()
