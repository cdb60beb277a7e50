"""The platform's services as the tool calls them: a token, the course's members, its line items, and scores.

Every request goes to an address of the registration
(:mod:`autograder.lti.registration`) or to one the platform gave back on the
same host (a line item's id, the next page of a list), always HTTPS (plain
HTTP only on loopback), never following a redirect, so the access token
reaches nothing but the platform.  Every byte the platform answers with is
read here, with a size cap, into frozen records (:class:`Member`,
:class:`LineItem`) or a :class:`PlatformError` whose message quotes at most
a short, printable part of the platform's words.

* :meth:`Platform.token`: OAuth 2 client credentials with a signed client
  assertion (RFC 7523; :func:`autograder.lti.tool_key.client_assertion`) for
  the scopes of :data:`SCOPES`; a token the platform grants with fewer
  scopes is refused, naming the ones missing.
* :meth:`Platform.members`: the context's memberships (LTI NRPS 2.0), every
  page of them (``Link: <...>; rel="next"``).
* :meth:`Platform.line_items` and :meth:`Platform.create_line_item`: the
  context's line items with a ``resourceId`` (LTI AGS 2.0), and a new one.
* :meth:`Platform.post_score`: one score to ``<line item>/scores`` as
  ``application/vnd.ims.lis.v1.score+json``.

A request answered 401 asks for a new token once and tries again: a token
can expire in the middle of a class.
"""

import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field

from autograder.lti.registration import is_allowed_url
from autograder.lti.tool_key import client_assertion

__all__ = ["Platform", "PlatformError", "Member", "LineItem", "SCOPES", "SCORE_TYPE", "LINE_ITEM_TYPE",
           "LINE_ITEMS_TYPE", "MEMBERSHIPS_TYPE", "scores_url", "printable"]

SCOPES = ("https://purl.imsglobal.org/spec/lti-ags/scope/lineitem",
          "https://purl.imsglobal.org/spec/lti-ags/scope/score",
          "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly")
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINE_ITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINE_ITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
MEMBERSHIPS_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
MAX_BYTES = 16 * 2**20  # one answer of the platform; a class of thousands of members is a few megabytes
MAX_PAGES = 1000
_NEXT = re.compile(r'<([^>]*)>\s*;[^,]*\brel\s*=\s*"?next"?', re.IGNORECASE)


class PlatformError(Exception):
    """The platform refused a request or could not be reached.

    ``status`` is the HTTP status (``None`` when there was no answer);
    ``about_one`` is true when the refusal is about the one score sent (a 400,
    404, 409 or 422 for that user), so that the others may still go.
    """

    def __init__(self, message, status=None, about_one=False):
        super().__init__(message)
        self.status = status
        self.about_one = about_one


@dataclass(frozen=True)
class Member:
    """One membership of the context: ``user_id`` is the id AGS wants as ``userId``; ``fields`` its other texts."""

    user_id: str
    status: str = "Active"
    roles: tuple = ()
    fields: dict = field(default_factory=dict, hash=False, compare=False)

    @property
    def name(self):
        return self.fields.get("name", "")

    @property
    def is_learner(self):
        return any(role.rsplit("#", 1)[-1] == "Learner" or role == "Learner" for role in self.roles)


@dataclass(frozen=True)
class LineItem:
    """A gradebook column: ``id`` is its URL."""

    id: str
    label: str
    score_maximum: float
    resource_id: str = ""


def printable(text, limit=300):
    """At most ``limit`` printable characters of ``text`` (the platform's words, quoted in a message)."""
    text = "".join(c if c.isprintable() else " " for c in str(text))
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def scores_url(line_item_url):
    """``<line item>/scores``, the query of the line item's URL kept (Moodle's carry one)."""
    parts = urllib.parse.urlsplit(line_item_url)
    return urllib.parse.urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/scores"))


def _with_query(url, **params):
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True) + list(params.items())
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def _origin(url):
    parts = urllib.parse.urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port or {"https": 443, "http": 80}.get(parts.scheme)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect is an answer, not a new request: a bearer token never follows one to another address."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def _error_text(body):
    """What a refusal says: OAuth's ``error`` and ``error_description``, or the start of the body."""
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return printable(body.decode("utf-8", errors="replace"), 200)
    if isinstance(data, dict):
        parts = [data.get(k) for k in ("error", "error_description", "message", "errors") if data.get(k)]
        if parts:
            return printable(": ".join(p if isinstance(p, str) else json.dumps(p) for p in parts), 300)
    return printable(json.dumps(data), 200)


class Platform:
    """The platform of a :class:`~autograder.lti.registration.Registration`, called with the tool's key."""

    def __init__(self, registration, key, *, timeout=30.0):
        self.registration = registration
        self.key = key
        self.timeout = timeout
        self._opener = urllib.request.build_opener(_NoRedirects())
        self._token = None
        self._token_expires = 0.0
        self.granted = ()

    # -- HTTP --------------------------------------------------------------------------------

    def _check_url(self, url, origin_of):
        if not is_allowed_url(url):
            raise PlatformError(f"the platform gave the address {printable(url, 200)!r}, which is not https://; "
                                "nothing was sent there")
        if origin_of is not None and _origin(url) != _origin(origin_of):
            raise PlatformError(f"the platform gave the address {printable(url, 200)!r}, on another host than "
                                f"{origin_of}; the access token goes to the registered hosts only, so nothing was "
                                "sent there")

    def _request(self, method, url, *, accept=None, body=None, content_type=None, token=True, origin_of=None):
        """``(status, headers, body)`` of a 2xx answer; :class:`PlatformError` for anything else."""
        self._check_url(url, origin_of)
        for attempt in (1, 2):
            headers = {"User-Agent": "perceptron-course-autograder"}
            if accept:
                headers["Accept"] = accept
            if content_type:
                headers["Content-Type"] = content_type
            if token:
                headers["Authorization"] = f"Bearer {self.token()}"
            request = urllib.request.Request(url, data=body, method=method, headers=headers)
            try:
                with self._opener.open(request, timeout=self.timeout) as answer:
                    return answer.status, answer.headers, self._read(answer, url)
            except urllib.error.HTTPError as exc:
                try:
                    detail = _error_text(exc.read(64 * 1024))
                except OSError:
                    detail = ""
                finally:
                    exc.close()
                if exc.code == 401 and token and attempt == 1:
                    self._token = None  # expired, or revoked: one new token, one more try
                    continue
                if 300 <= exc.code < 400:
                    detail = (f"a redirect to {printable(exc.headers.get('Location', ''), 200)!r}, not followed "
                              "(give the final address in the registration)")
                raise PlatformError(f"{method} {url} was answered HTTP {exc.code}" + (f": {detail}" if detail else ""),
                                    exc.code, about_one=exc.code in (400, 404, 409, 422)) from None
            except (urllib.error.URLError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                raise PlatformError(f"cannot reach {url}: {printable(reason, 200)}") from None
        raise AssertionError("unreachable")  # pragma: no cover

    @staticmethod
    def _read(answer, url):
        data = answer.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            raise PlatformError(f"the answer of {url} is larger than {MAX_BYTES // 2**20} MiB; not read")
        return data

    @staticmethod
    def _json(data, url, kind):
        try:
            value = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            start = printable(data[:120].decode("utf-8", "replace"))
            raise PlatformError(f"the answer of {url} is not JSON ({start!r})") from None
        if not isinstance(value, kind):
            raise PlatformError(f"the answer of {url} is JSON of the wrong shape (a {type(value).__name__}, not a "
                                f"{kind.__name__})")
        return value

    def _pages(self, url, accept, key):
        """Every item of the list ``key`` (or the answer itself, for a bare list) over every page from ``url``."""
        start, items, seen = url, [], set()
        while url:
            if url in seen or len(seen) >= MAX_PAGES:
                raise PlatformError(f"the pages of {start} do not end (more than {MAX_PAGES}, or a page links back)")
            seen.add(url)
            _, headers, body = self._request("GET", url, accept=accept)
            value = self._json(body, url, list if key is None else dict)
            page = value if key is None else value.get(key, [])
            if not isinstance(page, list):
                raise PlatformError(f"the answer of {url} has no list {key!r}")
            items += page
            following = None
            for link in headers.get_all("Link") or ():
                match = _NEXT.search(link)
                if match:
                    following = urllib.parse.urljoin(url, match.group(1))
            if following is not None:
                self._check_url(following, url)
            url = following
        return items

    # -- the services ------------------------------------------------------------------------

    def token(self):
        """An access token for :data:`SCOPES`, asked for again a minute before it expires."""
        if self._token is not None and time.monotonic() < self._token_expires:
            return self._token
        reg = self.registration
        form = urllib.parse.urlencode({
            "grant_type": "client_credentials", "client_assertion_type": ASSERTION_TYPE,
            "client_assertion": client_assertion(self.key, reg.client_id, reg.token_audience),
            "scope": " ".join(SCOPES)}).encode("ascii")
        try:
            _, _, body = self._request("POST", reg.token_url, accept="application/json", body=form,
                                       content_type="application/x-www-form-urlencoded", token=False)
        except PlatformError as exc:
            if exc.status in (400, 401) and "invalid_client" in str(exc):
                raise PlatformError(
                    f"the LMS refused the tool's key for client id {reg.client_id} ({exc}). The public key it has "
                    f"registered for that client is not this key (id {self.key.kid}): print it with 'python -m "
                    "autograder send-grades --public-key' and register it in the LMS (README, 'Sending grades "
                    "back'), or check client_id in the registration", exc.status) from None
            raise PlatformError(f"the LMS gave no access token: {exc}", exc.status) from None
        data = self._json(body, reg.token_url, dict)
        token = data.get("access_token")
        if not isinstance(token, str) or not token or str(data.get("token_type", "")).lower() != "bearer":
            raise PlatformError(f"the token endpoint {reg.token_url} answered without a bearer access token")
        granted = data.get("scope")
        granted = tuple(granted.split()) if isinstance(granted, str) else SCOPES  # RFC 6749 5.1: left out, as asked
        missing = [scope for scope in SCOPES if scope not in granted]
        if missing:
            raise PlatformError(f"the LMS granted the tool no access to {', '.join(missing)}: turn on the "
                                "Assignment and Grade Services and Names and Role Provisioning for the tool (README, "
                                "'Sending grades back')")
        expires_in = data.get("expires_in", 3600)
        expires_in = expires_in if isinstance(expires_in, (int, float)) and expires_in > 0 else 3600
        self._token, self.granted = token, granted
        self._token_expires = time.monotonic() + max(expires_in - 60, expires_in / 2)
        return token

    def members(self):
        """``(members, dropped)``: every membership of the context with a ``user_id``, and how many had none."""
        raw = self._pages(self.registration.memberships_url, MEMBERSHIPS_TYPE, "members")
        members, dropped = [], 0
        for entry in raw:
            user_id = entry.get("user_id") if isinstance(entry, dict) else None
            if not isinstance(user_id, str) or not user_id:
                dropped += 1
                continue
            roles = entry.get("roles")
            roles = tuple(r for r in roles if isinstance(r, str)) if isinstance(roles, list) else ()
            status = entry.get("status", "Active")
            texts = {k: v for k, v in entry.items() if isinstance(k, str) and isinstance(v, str)}
            members.append(Member(user_id, status if isinstance(status, str) else "?", roles, texts))
        return members, dropped

    @staticmethod
    def _line_item(value, url):
        if not isinstance(value, dict):
            raise PlatformError(f"a line item in the answer of {url} is not a JSON object")
        item_id, maximum = value.get("id"), value.get("scoreMaximum")
        if not isinstance(item_id, str) or not item_id:
            raise PlatformError(f"a line item in the answer of {url} has no id")
        if isinstance(maximum, bool) or not isinstance(maximum, (int, float)):
            maximum = float("nan")
        label, resource = value.get("label", ""), value.get("resourceId", "")
        return LineItem(item_id, label if isinstance(label, str) else "", float(maximum),
                        resource if isinstance(resource, str) else "")

    def line_items(self, resource_id):
        """The context's line items whose ``resourceId`` is ``resource_id``."""
        url = _with_query(self.registration.lineitems_url, resource_id=resource_id)
        items = [self._line_item(value, url) for value in self._pages(url, LINE_ITEMS_TYPE, None)]
        for item in items:
            self._check_url(item.id, self.registration.lineitems_url)
        return [item for item in items if item.resource_id == resource_id]

    def create_line_item(self, resource_id, label, score_maximum):
        """A new line item in the context: ``label``, out of ``score_maximum``, with ``resource_id``."""
        url = self.registration.lineitems_url
        body = json.dumps({"scoreMaximum": score_maximum, "label": label, "resourceId": resource_id}).encode("utf-8")
        _, _, answer = self._request("POST", url, accept=LINE_ITEM_TYPE, body=body, content_type=LINE_ITEM_TYPE)
        item = self._line_item(self._json(answer, url, dict), url)
        self._check_url(item.id, url)
        return item

    def post_score(self, line_item, score):
        """POST ``score`` (the AGS score's JSON object) to the line item's scores; the HTTP status."""
        url = scores_url(line_item.id)
        status, _, _ = self._request("POST", url, body=json.dumps(score).encode("utf-8"), content_type=SCORE_TYPE,
                                     accept="application/json", origin_of=self.registration.lineitems_url)
        return status
