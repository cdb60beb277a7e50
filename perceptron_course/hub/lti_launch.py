"""What an LTI 1.3 launch from Canvas or Moodle means for the course's hub: who, which course, which role.

The hub's authenticator (``hub/course_lti.py``) checks that a launch is the
platform's own (its signature against the platform's published key set, its
issuer, audience, expiry, nonce and state); this module then reads the
verified claims, and is the one place that decides:

* the **user name**: the claim the course's LMS files and roster identify
  people by (:data:`DEFAULT_USERNAME_CLAIM`, the login id that the LMS sends as
  the custom parameter ``login_id=$User.username``; or ``lis.person_sourcedid``,
  the SIS id), as a Linux user name, since each user's server runs as one;
* the **course**: from the launch's context (the LMS course it came from),
  through the hub's configured mapping from context ids to course ids; a
  context the hub does not know is refused, whatever role it claims;
* the **role** in that course, from the context's LIS roles only (Learner →
  student, TeachingAssistant or Grader → TA, Instructor → instructor);
  institution and system roles are not roles in a course and count for nothing;
* the **assignment** a link opens, if any (``assignment=`` in the link's
  target URI, or the custom parameter ``assignment``); a link that names a
  course (``course=``) other than the launch's own is refused, since a role
  given in one course never reaches another.

Each refusal is a :class:`LaunchRefused` whose message is written for the
person who followed the link.  Nothing here reads a secret or changes
anything: :func:`group_to_join` says which group a launch adds its user to
(never removing one), and :func:`check_account` refuses names of the
server's own accounts that were not made for the hub.
"""

import dataclasses
import json
import os
import re
import time
import urllib.parse

from perceptron_course.hub.courses import INSTRUCTOR, STUDENT, TA, group_name, is_assignment_id, is_course_id
from perceptron_course.hub.courses import roles_from_groups

__all__ = ["Launch", "LaunchRules", "LaunchRefused", "NonceLedger", "read_launch", "course_role", "group_to_join",
           "claim_value", "is_account_name", "is_hub_account", "check_account", "ACCOUNTS_GROUP", "DEFAULT_USERNAME_CLAIM",
           "CLAIM", "RESOURCE_LINK_REQUEST"]

_LTI = "https://purl.imsglobal.org/spec/lti/claim/"
CLAIM = {name: _LTI + name for name in ("message_type", "version", "deployment_id", "target_link_uri", "roles",
                                        "context", "resource_link", "custom", "lis")}
RESOURCE_LINK_REQUEST = "LtiResourceLinkRequest"
# The LIS context (membership) roles of LTI 1.3: "<base>#Role", and sub-roles "<base>/Role#SubRole".
_MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
DEFAULT_USERNAME_CLAIM = "custom.login_id"
# The Linux group of the accounts made for the hub: a launch may log in as an existing account only if it is one.
ACCOUNTS_GROUP = "course-hub-users"
# A Linux user name: lower case, a letter or _ first (so never all digits, which tools would read as a uid).
_ACCOUNT = re.compile(r"[a-z_][a-z0-9._-]{0,31}\Z")
_RANK = {STUDENT: 0, TA: 1, INSTRUCTOR: 2}


class LaunchRefused(Exception):
    """A launch the hub does not accept; ``str()`` is the message for the person who followed the link."""

    def __init__(self, message, status=403):
        super().__init__(message)
        self.status = status


@dataclasses.dataclass(frozen=True)
class Launch:
    """A verified launch, read: who it is, their role in which course, and where the link leads."""

    user: str
    course: str
    role: str
    assignment: str | None
    context_id: str
    context_title: str
    deployment_id: str


@dataclasses.dataclass(frozen=True)
class LaunchRules:
    """The hub's settings for reading launches.

    ``courses`` maps the LMS's context ids to the hub's course ids;
    ``deployment_ids`` are the deployments of the tool the hub accepts;
    ``username_claim`` is where the user name is: ``custom.<name>`` (a custom
    parameter), ``lis.<name>`` (the LIS claim, e.g. ``lis.person_sourcedid``)
    or a claim of the token itself (``email``, ``sub``, ...).
    """

    courses: dict
    deployment_ids: frozenset
    username_claim: str = DEFAULT_USERNAME_CLAIM

    def __post_init__(self):
        for context, course in self.courses.items():
            if not isinstance(context, str) or not context:
                raise ValueError(f"a context id must be a non-empty string; got {context!r}")
            if not is_course_id(course):
                raise ValueError(f"the course for context {context!r} must be a course id (letters, digits and "
                                 f"._-, at most 64); got {course!r}")
        if not self.deployment_ids:
            raise ValueError("deployment_ids must name at least one deployment of the tool (the LMS shows it)")
        if not self.username_claim:
            raise ValueError("username_claim must name a claim, such as custom.login_id or lis.person_sourcedid")


def claim_value(claims, path):
    """The string at ``path`` (``custom.<name>``, ``lis.<name>`` or a top-level claim), or None."""
    source, key = claims, path
    for prefix in ("custom", "lis"):
        if path.startswith(prefix + "."):
            source, key = claims.get(CLAIM[prefix]), path[len(prefix) + 1:]
    value = source.get(key) if isinstance(source, dict) else None
    return value if isinstance(value, str) else None


def is_account_name(name):
    return isinstance(name, str) and bool(_ACCOUNT.match(name))


def course_role(roles):
    """The role in the launch's own course that LTI 1.3 ``roles`` give: student, ta, instructor or None.

    Only context (membership) roles count.  Canvas sends a TA both Instructor
    and the sub-role Instructor#TeachingAssistant, so a TA sub-role (or Grader)
    makes a TA unless another Instructor sub-role (PrimaryInstructor,
    Lecturer, ...) says instructor; plain Instructor makes an instructor, and
    Learner (with any sub-role) a student.

    >>> course_role(["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"])
    'student'
    >>> course_role(["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
    ...              "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant"])
    'ta'
    >>> course_role(["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor"]) is None
    True
    """
    found = set()
    for role in roles if isinstance(roles, list) else ():
        if not isinstance(role, str):
            continue
        if role.startswith(_MEMBERSHIP + "#"):
            base, sub = role[len(_MEMBERSHIP) + 1:], ""
        elif role.startswith(_MEMBERSHIP + "/"):
            base, _, sub = role[len(_MEMBERSHIP) + 1:].partition("#")
        elif role in ("Learner", "Instructor", "TeachingAssistant"):  # LTI's short names for context roles
            base, sub = role, ""
        else:
            continue  # an institution or system role, or another vocabulary: not a role in this course
        if base == "TeachingAssistant" or (base == "Instructor" and (sub.startswith("TeachingAssistant")
                                                                     or sub == "Grader")):
            found.add("ta")
        elif base == "Instructor":
            found.add("instructor-named" if sub else "instructor")
        elif base == "Learner":
            found.add(STUDENT)
    if "instructor-named" in found:
        return INSTRUCTOR
    if "ta" in found:
        return TA
    if "instructor" in found:
        return INSTRUCTOR
    return STUDENT if STUDENT in found else None


def group_to_join(course, role, groups):
    """The hub group a launch as ``role`` of ``course`` adds its user to, given their ``groups``; None if none.

    Launches only add: a role the user already has in the course, or a lower
    one than they have (a TA who follows a student's link), adds nothing, and
    nothing is ever removed, in this course or another.

    >>> group_to_join("perceptron", "student", ["course-perceptron-tas"]) is None
    True
    >>> group_to_join("perceptron", "ta", ["course-perceptron-students", "course-other-instructors"])
    'course-perceptron-tas'
    """
    held = roles_from_groups(groups).get(course)
    if held is not None and _RANK[held] >= _RANK[role]:
        return None
    return group_name(course, role)


def _link_parameters(claims):
    """``assignment`` and ``course`` as the link names them: custom parameters first, then the target URI's query."""
    custom = claims.get(CLAIM["custom"]) if isinstance(claims.get(CLAIM["custom"]), dict) else {}
    target = claims.get(CLAIM["target_link_uri"])
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(target).query) if isinstance(target, str) else {}
    found = {}
    for key in ("assignment", "course"):
        value = custom.get(key)
        if value in (None, "") and query.get(key):
            value = query[key][0]
        if value not in (None, ""):
            found[key] = value
    return found


def read_launch(claims, rules):
    """The :class:`Launch` that verified ``claims`` make under ``rules``; raises :class:`LaunchRefused`."""
    message_type = claims.get(CLAIM["message_type"])
    if message_type != RESOURCE_LINK_REQUEST:
        raise LaunchRefused(f"This link asks the hub for {message_type!r}, which it does not offer: only links "
                            "that open the course (resource links) can be launched. Add the hub to the course as an "
                            "external tool link instead.", status=400)
    deployment = claims.get(CLAIM["deployment_id"])
    if deployment not in rules.deployment_ids:
        raise LaunchRefused(f"This launch comes from a deployment of the tool that this hub does not know "
                            f"({deployment!r}). The hub's administrator must add it to the hub's LTI deployment "
                            "ids before the link can be used.")
    context = claims.get(CLAIM["context"])
    context_id = context.get("id") if isinstance(context, dict) else None
    title = (context.get("title") or context.get("label") or "") if isinstance(context, dict) else ""
    if not isinstance(context_id, str) or not context_id:
        raise LaunchRefused("This launch did not come from a course in the LMS: open the hub from your course's "
                            "link.")
    course = rules.courses.get(context_id)
    if course is None:
        raise LaunchRefused(f"The LMS course this link came from ({title or 'untitled'}, context id "
                            f"{context_id!r}) is not one of this hub's courses. The hub's administrator can link it "
                            "to a course on the hub by adding its context id to the hub's LTI courses.")
    role = course_role(claims.get(CLAIM["roles"]))
    if role is None:
        raise LaunchRefused(f"Your role in {title or course} gives you no place on the course's hub: the hub takes "
                            "students (Learner), TAs (TeachingAssistant) and instructors (Instructor) of the course.")
    user = claim_value(claims, rules.username_claim)
    if user is None or not user.strip():
        raise LaunchRefused(f"The LMS did not send the identifier the course's hub names you by (the claim "
                            f"{rules.username_claim}). The hub's administrator must set the LMS to send it (see the "
                            "course's README, \"Launching from Canvas or Moodle\").")
    user = user.strip()
    if user.startswith("$"):
        raise LaunchRefused(f"The LMS sent {user!r} in place of your identifier: it did not fill that variable in, "
                            "usually because the tool's privacy setting does not share it. The hub's administrator "
                            "must let the LMS share it.")
    user = user.lower()
    if not is_account_name(user):
        raise LaunchRefused(f"The identifier the LMS sent for you ({user!r}) cannot be a user name on this hub "
                            "(lower-case letters, digits and . _ -, starting with a letter or _, at most 32). The "
                            "hub's administrator can name users by another claim.", status=400)
    link = _link_parameters(claims)
    if "course" in link and link["course"] != course:
        raise LaunchRefused(f"This link is for the course {link['course']!r}, but it was launched from "
                            f"{title or course} ({course} on the hub). A role in one LMS course counts only in "
                            "that course: follow the link from the course it belongs to.")
    assignment = link.get("assignment")
    if assignment is not None and not is_assignment_id(assignment):
        raise LaunchRefused(f"This link names an assignment the hub cannot have ({assignment!r}): ask your "
                            "instructor to check the link.", status=400)
    return Launch(user=user, course=course, role=role, assignment=assignment, context_id=context_id,
                  context_title=title, deployment_id=deployment)


class NonceLedger:
    """The nonces of the launches accepted so far, each kept until its token expires: a second use is a replay.

    With a ``path``, the ledger is kept in that file too (written whole and
    renamed into place at every launch), so a hub that restarts still knows
    the nonces of tokens that have not expired.
    """

    def __init__(self, path=None, clock=time.time):
        self._until = {}
        self._clock = clock
        self._path = path
        if path:
            try:
                with open(path, encoding="utf-8") as handle:
                    kept = json.load(handle)
                self._until = {str(n): float(t) for n, t in kept.items()} if isinstance(kept, dict) else {}
            except (OSError, ValueError, TypeError, AttributeError):
                self._until = {}

    def first_use(self, nonce, expires):
        """Record ``nonce`` (its token expiring at ``expires``, seconds since the epoch); False if seen before."""
        now = self._clock()
        for old in [n for n, until in self._until.items() if until < now]:
            del self._until[old]
        if nonce in self._until:
            return False
        self._until[nonce] = max(float(expires), now)
        if self._path:
            staged = f"{self._path}.{os.getpid()}.tmp"
            fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(self._until, handle)
            os.replace(staged, self._path)
        return True


def _uid_min():
    try:
        with open("/etc/login.defs", encoding="utf-8") as handle:
            for line in handle:
                parts = line.split()
                if len(parts) == 2 and parts[0] == "UID_MIN" and parts[1].isdigit():
                    return int(parts[1])
    except OSError:
        pass
    return 1000


def is_hub_account(name, group=ACCOUNTS_GROUP):
    """Whether the account ``name`` was made for the hub: an ordinary user (uid at least the system's
    ``UID_MIN``) in ``group``, the group of the accounts made for the hub; root, system accounts (the
    exchange's own, daemons) and the server's other people are not.  ``None`` when there is no such account."""
    import grp
    import pwd

    try:
        account = pwd.getpwnam(name)
    except KeyError:
        return None
    try:
        hub = grp.getgrnam(group)
        members, gid = set(hub.gr_mem), hub.gr_gid
    except KeyError:
        members, gid = set(), None
    return account.pw_uid >= _uid_min() and (name in members or account.pw_gid == gid)


def check_account(name, group=ACCOUNTS_GROUP):
    """Refuse ``name`` if it is an account of the server that was not made for the hub (:func:`is_hub_account`);
    a name with no account is free (the hub makes it)."""
    if is_hub_account(name, group) is not False:
        return
    raise LaunchRefused(f"The identifier the LMS sent for you ({name!r}) is the name of an account on the hub's "
                        "server that is not one of the course's: the hub does not log anyone in as it. Tell the "
                        "hub's administrator.")
