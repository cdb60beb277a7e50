"""The tool's registration with the LMS, as the instructor writes it: ``lti_grades.toml`` in the course directory.

When an LMS's administrator registers the course as an LTI 1.3 tool, the LMS
shows a few values that the tool needs to talk to it; the instructor copies
them into a small TOML file (README, "Sending grades back")::

    issuer = "https://canvas.instructure.com"
    client_id = "10000000000042"
    deployment_id = "42:8865aa05b4b79b64a91a86042e43af5ea8ae79eb"
    token_url = "https://sso.canvaslms.com/login/oauth2/token"
    jwks_url = "https://sso.canvaslms.com/api/lti/security/jwks"
    lineitems_url = "https://canvas.example.edu/api/lti/courses/1234/line_items"
    memberships_url = "https://canvas.example.edu/api/lti/courses/1234/names_and_roles"
    student_id_field = "lis_person_sourcedid"

:func:`load` reads it and checks every field at once: a missing field, a
field of the wrong kind, an address that is not HTTPS (plain HTTP is taken
only on this machine's loopback, where nothing leaves it) and a field it
does not know (a typo) are each named in one :class:`RegistrationError`.
The file holds nothing secret: the tool's private key lives apart
(:mod:`autograder.lti.tool_key`).
"""

import ipaddress
import os
import tomllib
import urllib.parse
from dataclasses import dataclass

__all__ = ["Registration", "RegistrationError", "load", "config_path", "CONFIG_NAME", "MEMBER_FIELDS", "is_allowed_url"]

CONFIG_NAME = "lti_grades.toml"

# The fields of an NRPS membership that can hold the course's student id, with what each is in Canvas and Moodle.
MEMBER_FIELDS = {
    "lis_person_sourcedid": "the SIS id (Canvas's SIS User ID, Moodle's ID number)",
    "email": "the e-mail address",
    "user_id": "the LMS's own opaque id of the user for this tool",
    "lti11_legacy_user_id": "the user id the LMS gave the course's LTI 1.1 tool (Canvas)",
}

_TEXT = ("issuer", "client_id", "deployment_id")
_URLS = ("token_url", "jwks_url", "lineitems_url", "memberships_url")
_REQUIRED = _TEXT + _URLS + ("student_id_field",)
_OPTIONAL = ("token_audience",)
_MEANING = {
    "issuer": "the platform's issuer (Canvas: https://canvas.instructure.com; Moodle: the site's address)",
    "client_id": "the client id the LMS gave the tool",
    "deployment_id": "the deployment id of the tool in the account or course",
    "token_url": "the platform's OAuth 2 token URL",
    "jwks_url": "the platform's public key set URL",
    "lineitems_url": "the line items URL of the course (its AGS endpoint)",
    "memberships_url": "the context memberships URL of the course (its NRPS endpoint)",
    "student_id_field": "the membership field that holds the course's student id",
    "token_audience": "the audience of the client assertion, when the platform wants another than the token URL",
}


class RegistrationError(Exception):
    """The registration file is missing or wrong; ``str()`` names every field to fix and how."""


@dataclass(frozen=True)
class Registration:
    """What the LMS registered for the tool, checked (see the module's text for each field)."""

    issuer: str
    client_id: str
    deployment_id: str
    token_url: str
    jwks_url: str
    lineitems_url: str
    memberships_url: str
    student_id_field: str
    token_audience: str
    path: str = ""

    @property
    def platform(self):
        """Which platform and deployment, as the record of sends names it."""
        return {"issuer": self.issuer, "client_id": self.client_id, "deployment_id": self.deployment_id}


def config_path(course_dir):
    return os.path.join(course_dir, CONFIG_NAME)


def is_allowed_url(url):
    """An ``https://`` address with a host, or ``http://`` to this machine's loopback (127.0.0.0/8, ::1, localhost)."""
    try:
        parts = urllib.parse.urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - a port that is no number raises here
    except ValueError:
        return False
    if not host or parts.username is not None or parts.password is not None:
        return False
    if parts.scheme == "https":
        return True
    if parts.scheme != "http":
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _text(data, name, problems):
    value = data.get(name)
    # TOML writes a number without quotes; Canvas's client ids are all digits, so one typed so is taken as its text.
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip():
        problems.append(f"{name} must be a non-empty text in quotes ({_MEANING[name]}); it is {_shown(value)}")
        return ""
    if any(ord(c) < 32 for c in value):
        problems.append(f"{name} holds a control character; copy it again from the LMS")
        return ""
    return value.strip()


def _url(data, name, problems):
    value = _text(data, name, problems)
    if value and not is_allowed_url(value):
        problems.append(f"{name} must be an https:// address ({_MEANING[name]}; plain http:// only to this "
                        f"machine's loopback); it is {value!r}")
        return ""
    return value


def _shown(value):
    return "missing" if value is None else f"{value!r}"


def load(path):
    """The :class:`Registration` in the TOML file at ``path``; :class:`RegistrationError` names what is wrong."""
    try:
        with open(path, "rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError:
        raise RegistrationError(
            f"there is no registration file at {path}: write it with the values the LMS showed when the tool "
            f"was registered ({', '.join(_REQUIRED)}; README, 'Sending grades back')") from None
    except OSError as exc:
        raise RegistrationError(f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise RegistrationError(f"{path} is not valid TOML ({exc}); each line is name = \"value\"") from None
    problems = []
    unknown = sorted(set(data) - set(_REQUIRED) - set(_OPTIONAL))
    problems += [f"{name} is not a field of the registration (a typo? the fields are "
                 f"{', '.join(_REQUIRED + _OPTIONAL)})" for name in unknown]
    values = {name: _text(data, name, problems) for name in _TEXT}
    values.update({name: _url(data, name, problems) for name in _URLS})
    field = data.get("student_id_field")
    if field not in MEMBER_FIELDS:
        problems.append(f"student_id_field must be one of {', '.join(map(repr, MEMBER_FIELDS))} ("
                        + "; ".join(f"{name}: {meaning}" for name, meaning in MEMBER_FIELDS.items())
                        + f"); it is {_shown(field)}")
    audience = values["token_url"]
    if "token_audience" in data:
        audience = _text(data, "token_audience", problems)
    if problems:
        raise RegistrationError(f"{path} has {len(problems)} {'field' if len(problems) == 1 else 'fields'} to fix:\n"
                                + "\n".join(f"- {problem}" for problem in problems))
    return Registration(student_id_field=field, token_audience=audience, path=os.path.abspath(path), **values)
