"""Who is what in which course: the hub's groups, read one way everywhere.

A user's role in a course is given by the hub's groups, never by anything the
user sends: ``course-<course>-students``, ``course-<course>-tas`` and
``course-<course>-instructors``.  An instructor can do everything a TA can, and
a TA everything staff may do except release work and feedback.  A user in two
courses has a role in each, and nothing of one course is visible from the other.
"""

import re

__all__ = ["ROLES", "STUDENT", "TA", "INSTRUCTOR", "group_name", "roles_from_groups", "is_course_id",
           "is_user_name", "is_assignment_id", "is_staff"]

STUDENT, TA, INSTRUCTOR = "student", "ta", "instructor"
ROLES = (STUDENT, TA, INSTRUCTOR)
_SUFFIX = {STUDENT: "students", TA: "tas", INSTRUCTOR: "instructors"}
_RANK = {STUDENT: 0, TA: 1, INSTRUCTOR: 2}

# Ids become folder names in the exchange's store and nbgrader's course folders: letters, digits and
# ._- only, starting with a letter or digit, so no id can be "..", hidden, or hold a separator.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}\Z")
# Hub user names are Linux user names here (PAM, LocalProcessSpawner), which are narrower still,
# but an LTI or OAuth hub may use e-mail-like names.
_USER = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.@-]{0,127}\Z")
_GROUP = re.compile(r"course-(?P<course>.+)-(?P<suffix>students|tas|instructors)\Z")


def is_course_id(text):
    return isinstance(text, str) and bool(_ID.match(text)) and ".." not in text


is_assignment_id = is_course_id


def is_user_name(text):
    return isinstance(text, str) and bool(_USER.match(text)) and ".." not in text


def group_name(course, role):
    """The hub group that makes its members ``role`` (student, ta, instructor) of ``course``."""
    if not is_course_id(course):
        raise ValueError(f"a course id is letters, digits and ._- (at most 64, not starting with . _ -); "
                         f"got {course!r}")
    if role not in _SUFFIX:
        raise ValueError(f"role must be one of {', '.join(ROLES)}; got {role!r}")
    return f"course-{course}-{_SUFFIX[role]}"


def roles_from_groups(groups):
    """``{course: role}`` from a user's hub groups; in several groups of one course, the highest role counts."""
    by_suffix = {suffix: role for role, suffix in _SUFFIX.items()}
    roles = {}
    for group in groups or ():
        match = _GROUP.match(group) if isinstance(group, str) else None
        if not match or not is_course_id(match["course"]):
            continue
        role = by_suffix[match["suffix"]]
        course = match["course"]
        if course not in roles or _RANK[role] > _RANK[roles[course]]:
            roles[course] = role
    return roles


def is_staff(role):
    return role in (TA, INSTRUCTOR)
