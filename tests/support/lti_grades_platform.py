"""A stand-in LTI 1.3 platform with the grade services, on loopback, for ``send-grades``' tests: it stands in for
Canvas or Moodle, which cannot run here (no LMS runs in the tests).

It does what those platforms do for a tool that sends grades, as the specifications say, and nothing else:

* it has its own RSA key, publishes its public half as a key set (``/api/lti/security/jwks``), and signs the
  access tokens it issues with it, so a service knows a token it did not issue;
* it knows each tool's public key set as an LMS administrator registers it (:meth:`GradesPlatform.register_tool`);
* its token endpoint (OAuth 2 client credentials, RFC 6749 4.4, with a JWT client assertion, RFC 7523) checks
  the assertion's RS256 signature against the registered keys (by ``kid``), ``iss`` and ``sub`` (the client
  id), ``aud`` (the token URL), ``exp`` and ``iat``, refuses a ``jti`` it has seen, and grants only the scopes
  of the Assignment and Grade Services and of Names and Role Provisioning;
* per course (context): the line items container (LTI AGS 2.0: GET with ``resource_id``, in pages linked by
  ``Link: <...>; rel="next"``; POST to create one), each line item, its ``/scores`` endpoint (POST only,
  ``application/vnd.ims.lis.v1.score+json``, each member checked) and the context memberships (LTI NRPS 2.0, in
  pages too), each behind the scope the specification names;
* it records every score it stores (:attr:`GradesPlatform.scores`) and every request it refused.

The paths are Canvas's (``/api/lti/courses/<context>/line_items``, ``.../names_and_roles``, ``/login/oauth2/token``).
A test can make the scores endpoint fail from the n-th score on (:attr:`GradesPlatform.fail_scores_after`), as a
platform that goes down in the middle of a class would.
"""

import datetime
import json
import re
import secrets
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa

__all__ = ["GradesPlatform", "LEARNER", "INSTRUCTOR", "member"]

AGS = "https://purl.imsglobal.org/spec/lti-ags/scope/"
LINE_ITEM_SCOPE, READ_ONLY_SCOPE, SCORE_SCOPE = AGS + "lineitem", AGS + "lineitem.readonly", AGS + "score"
RESULT_SCOPE = AGS + "result.readonly"
MEMBERSHIP_SCOPE = "https://purl.imsglobal.org/spec/lti-nrps/scope/contextmembership.readonly"
GRANTABLE = {LINE_ITEM_SCOPE, READ_ONLY_SCOPE, SCORE_SCOPE, RESULT_SCOPE, MEMBERSHIP_SCOPE}
SCORE_TYPE = "application/vnd.ims.lis.v1.score+json"
LINE_ITEM_TYPE = "application/vnd.ims.lis.v2.lineitem+json"
LINE_ITEMS_TYPE = "application/vnd.ims.lis.v2.lineitemcontainer+json"
MEMBERSHIPS_TYPE = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json"
ASSERTION_TYPE = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
ACTIVITY = {"Initialized", "Started", "InProgress", "Submitted", "Completed"}
GRADING = {"FullyGraded", "Pending", "PendingManual", "Failed", "NotReady"}
LEARNER = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"]
INSTRUCTOR = ["http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor"]


def member(user_id, sourcedid, name, *, roles=LEARNER, status="Active", email=None):
    """A membership as NRPS lists it (Canvas's fields)."""
    found = {"user_id": user_id, "status": status, "name": name, "roles": list(roles),
             "email": email or f"{sourcedid}@example.edu"}
    if sourcedid is not None:
        found["lis_person_sourcedid"] = sourcedid
    return found


class _Refusal(Exception):
    def __init__(self, status, error, description=""):
        super().__init__(description or error)
        self.status, self.error, self.description = status, error, description


class GradesPlatform:
    """The stand-in platform, served from a thread of the test's process on 127.0.0.1 (a free port)."""

    def __init__(self, *, page_size=2):
        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self._kid = secrets.token_hex(8)
        self.page_size = page_size
        self.clients = {}  # client id -> the tool's registered key set
        self.contexts = {}  # context id -> {"members": [...], "line_items": [...]}
        self.scores = []  # (line item id, score) of every score stored, in order
        self.refused = []  # (method, path, status, error, description) of every request refused
        self.token_requests = 0
        self.fail_scores_after = None  # the scores endpoint answers 503 once this many scores are stored
        self._jti_seen = set()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.token_url = f"{self.url}/login/oauth2/token"
        self.jwks_url = f"{self.url}/api/lti/security/jwks"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def close(self):
        self._server.shutdown()
        self._server.server_close()

    # -- what an administrator and a course set up ---------------------------------------------

    def register_tool(self, client_id, jwks):
        """Register the tool's public key set for ``client_id``, as an LMS administrator pastes it."""
        self.clients[client_id] = jwks

    def add_context(self, context_id, members):
        self.contexts[context_id] = {"members": [dict(m) for m in members], "line_items": []}

    def lineitems_url(self, context_id):
        return f"{self.url}/api/lti/courses/{context_id}/line_items"

    def memberships_url(self, context_id):
        return f"{self.url}/api/lti/courses/{context_id}/names_and_roles"

    def registration_toml(self, context_id, client_id, *, deployment_id="1:stand-in",
                          student_id_field="lis_person_sourcedid"):
        """The ``lti_grades.toml`` an instructor writes for this platform and course."""
        values = {"issuer": self.url, "client_id": client_id, "deployment_id": deployment_id,
                  "token_url": self.token_url, "jwks_url": self.jwks_url,
                  "lineitems_url": self.lineitems_url(context_id),
                  "memberships_url": self.memberships_url(context_id), "student_id_field": student_id_field}
        return "".join(f"{name} = {json.dumps(value)}\n" for name, value in values.items())

    def line_items(self, context_id):
        return list(self.contexts[context_id]["line_items"])

    def scores_of(self, line_item_id):
        return [score for item, score in self.scores if item == line_item_id]

    # -- the token endpoint --------------------------------------------------------------------

    def _token(self, form):
        self.token_requests += 1
        if form.get("grant_type") != "client_credentials":
            raise _Refusal(400, "unsupported_grant_type", "only client_credentials")
        if form.get("client_assertion_type") != ASSERTION_TYPE or not form.get("client_assertion"):
            raise _Refusal(400, "invalid_request", "a JWT client assertion is required")
        assertion = form["client_assertion"]
        try:
            header = jwt.get_unverified_header(assertion)
            claimed = jwt.decode(assertion, options={"verify_signature": False})
        except jwt.PyJWTError as exc:
            raise _Refusal(401, "invalid_client", f"the assertion is no JWT: {exc}") from None
        client_id = claimed.get("iss")
        if client_id not in self.clients:
            raise _Refusal(401, "invalid_client", "unknown client id")
        if header.get("alg") != "RS256":
            raise _Refusal(401, "invalid_client", "the assertion must be signed with RS256")
        keys = [k for k in self.clients[client_id].get("keys", []) if k.get("kid") == header.get("kid")]
        if not keys:
            raise _Refusal(401, "invalid_client", "no key of that id is registered for the client")
        try:
            claims = jwt.decode(assertion, jwt.PyJWK(keys[0]).key, algorithms=["RS256"], audience=self.token_url,
                                issuer=client_id, options={"require": ["iss", "sub", "aud", "exp", "iat", "jti"]})
        except jwt.PyJWTError as exc:
            raise _Refusal(401, "invalid_client", f"the assertion does not verify: {exc}") from None
        if claims["sub"] != client_id:
            raise _Refusal(401, "invalid_client", "sub must be the client id")
        if claims["exp"] - claims["iat"] > 3600:
            raise _Refusal(401, "invalid_client", "the assertion lives longer than an hour")
        with self._lock:
            if claims["jti"] in self._jti_seen:
                raise _Refusal(401, "invalid_client", "this assertion's jti was used before (a replay)")
            self._jti_seen.add(claims["jti"])
        asked = set(form.get("scope", "").split())
        if not asked or asked - GRANTABLE:
            raise _Refusal(400, "invalid_scope", f"cannot grant {sorted(asked - GRANTABLE) or 'nothing'}")
        now = int(time.time())
        token = jwt.encode({"iss": self.url, "sub": client_id, "scope": " ".join(sorted(asked)), "iat": now,
                            "exp": now + 3600, "jti": secrets.token_hex(8)}, self._key, algorithm="RS256",
                           headers={"kid": self._kid})
        return 200, "application/json", {"access_token": token, "token_type": "Bearer", "expires_in": 3600,
                                         "scope": " ".join(sorted(asked))}, {}

    def _granted(self, authorization):
        if not authorization.startswith("Bearer "):
            raise _Refusal(401, "invalid_token", "no bearer token")
        try:
            claims = jwt.decode(authorization[len("Bearer "):], self._key.public_key(), algorithms=["RS256"],
                                issuer=self.url, options={"require": ["exp", "scope", "sub"]})
        except jwt.PyJWTError as exc:
            raise _Refusal(401, "invalid_token", str(exc)) from None
        return set(claims["scope"].split())

    # -- the services --------------------------------------------------------------------------

    def _page(self, url, items, query):
        """One page of ``items`` and the ``Link`` header to the next, as Canvas pages them."""
        page = int(query.get("page", "1"))
        start = (page - 1) * self.page_size
        headers = {}
        if start + self.page_size < len(items):
            following = urllib.parse.urlencode({**query, "page": str(page + 1)})
            headers["Link"] = f'<{url}?{following}>; rel="next"'
        return items[start:start + self.page_size], headers

    def _memberships(self, context_id, scopes, accept, query):
        if MEMBERSHIP_SCOPE not in scopes:
            raise _Refusal(403, "insufficient_scope", "contextmembership.readonly is needed")
        if MEMBERSHIPS_TYPE not in accept:
            raise _Refusal(406, "not_acceptable", f"the memberships are served as {MEMBERSHIPS_TYPE}")
        url = self.memberships_url(context_id)
        members, headers = self._page(url, self.contexts[context_id]["members"], query)
        body = {"id": url, "context": {"id": context_id, "label": "PERC", "title": "The perceptron"},
                "members": members}
        return 200, MEMBERSHIPS_TYPE, body, headers

    def _line_items(self, context_id, method, scopes, accept, content_type, body, query):
        context = self.contexts[context_id]
        if method == "GET":
            if not scopes & {LINE_ITEM_SCOPE, READ_ONLY_SCOPE}:
                raise _Refusal(403, "insufficient_scope", "lineitem or lineitem.readonly is needed")
            if LINE_ITEMS_TYPE not in accept:
                raise _Refusal(406, "not_acceptable", f"line items are served as {LINE_ITEMS_TYPE}")
            items = [i for i in context["line_items"]
                     if "resource_id" not in query or i.get("resourceId") == query["resource_id"]]
            page, headers = self._page(self.lineitems_url(context_id), items, query)
            return 200, LINE_ITEMS_TYPE, page, headers
        if LINE_ITEM_SCOPE not in scopes:
            raise _Refusal(403, "insufficient_scope", "lineitem is needed to create a line item")
        if content_type != LINE_ITEM_TYPE:
            raise _Refusal(415, "unsupported_media_type", f"a line item is sent as {LINE_ITEM_TYPE}")
        item = json.loads(body)
        maximum = item.get("scoreMaximum")
        if not isinstance(item.get("label"), str) or not item["label"].strip():
            raise _Refusal(400, "bad_request", "label is required")
        if isinstance(maximum, bool) or not isinstance(maximum, (int, float)) or maximum <= 0:
            raise _Refusal(400, "bad_request", "scoreMaximum must be a number above 0")
        with self._lock:
            item["id"] = f"{self.lineitems_url(context_id)}/{len(context['line_items']) + 1}"
            context["line_items"].append(item)
        return 201, LINE_ITEM_TYPE, item, {}

    def _score(self, context_id, number, scopes, content_type, body):
        if SCORE_SCOPE not in scopes:
            raise _Refusal(403, "insufficient_scope", "score is needed")
        if content_type != SCORE_TYPE:
            raise _Refusal(415, "unsupported_media_type", f"a score is sent as {SCORE_TYPE}")
        context = self.contexts[context_id]
        items = [i for i in context["line_items"] if i["id"].rsplit("/", 1)[1] == number]
        if not items:
            raise _Refusal(404, "not_found", "no such line item")
        score = json.loads(body)
        if score.get("userId") not in {m.get("user_id") for m in context["members"]}:
            raise _Refusal(422, "unprocessable", "userId is no member of the course")
        if score.get("activityProgress") not in ACTIVITY or score.get("gradingProgress") not in GRADING:
            raise _Refusal(400, "bad_request", "activityProgress and gradingProgress are required")
        try:
            stamp = datetime.datetime.fromisoformat(score.get("timestamp", ""))
        except (TypeError, ValueError):
            raise _Refusal(400, "bad_request", "timestamp must be ISO 8601") from None
        if stamp.tzinfo is None:
            raise _Refusal(400, "bad_request", "timestamp must carry its time zone")
        if "scoreGiven" in score:
            given, maximum = score["scoreGiven"], score.get("scoreMaximum")
            if not isinstance(given, (int, float)) or given < 0:
                raise _Refusal(400, "bad_request", "scoreGiven must be a number of at least 0")
            if not isinstance(maximum, (int, float)) or maximum <= 0:
                raise _Refusal(400, "bad_request", "scoreMaximum is required with scoreGiven, above 0")
        with self._lock:
            if self.fail_scores_after is not None and len(self.scores) >= self.fail_scores_after:
                raise _Refusal(503, "unavailable", "the gradebook is down for maintenance")
            self.scores.append((items[0]["id"], score))
        return 200, "application/json", {"resultUrl": f"{items[0]['id']}/results/{score['userId']}"}, {}

    def _route(self, method, path, query, headers, body):
        if method == "POST" and path == "/login/oauth2/token":
            form = dict(urllib.parse.parse_qsl(body.decode("ascii")))
            return self._token(form)
        if method == "GET" and path == "/api/lti/security/jwks":
            jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self._key.public_key()))
            return 200, "application/json", {"keys": [{**jwk, "kid": self._kid, "alg": "RS256", "use": "sig"}]}, {}
        match = re.fullmatch(r"/api/lti/courses/([^/]+)/(line_items|names_and_roles)(?:/(\d+)(/scores)?)?", path)
        if not match or match.group(1) not in self.contexts:
            raise _Refusal(404, "not_found", "no such resource")
        scopes = self._granted(headers.get("Authorization", ""))
        context_id, service, number, scores = match.groups()
        accept, content_type = headers.get("Accept", ""), headers.get("Content-Type", "")
        if service == "names_and_roles" and method == "GET" and number is None:
            return self._memberships(context_id, scopes, accept, query)
        if service == "line_items" and number is None and method in ("GET", "POST"):
            return self._line_items(context_id, method, scopes, accept, content_type, body, query)
        if service == "line_items" and scores and method == "POST":
            return self._score(context_id, number, scopes, content_type, body)
        if service == "line_items" and number and not scores and method == "GET":
            item = [i for i in self.contexts[context_id]["line_items"] if i["id"].rsplit("/", 1)[1] == number]
            if item:
                return 200, LINE_ITEM_TYPE, item[0], {}
        raise _Refusal(405 if match else 404, "not_allowed", f"{method} is not served here")

    def _handler(self):
        platform = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _serve(self, method):
                parts = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(parts.query))
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                try:
                    status, content_type, answer, extra = platform._route(method, parts.path, query, self.headers, body)
                except Exception as exc:  # ValueError: a body that is no JSON; anything else is the stand-in's fault
                    refusal = (exc if isinstance(exc, _Refusal) else
                               _Refusal(400, "bad_request", f"unreadable: {exc}") if isinstance(exc, ValueError) else
                               _Refusal(500, "server_error", f"the stand-in failed: {exc!r}"))
                    platform.refused.append((method, parts.path, refusal.status, refusal.error, refusal.description))
                    status, content_type, extra = refusal.status, "application/json", {}
                    answer = {"error": refusal.error, "error_description": refusal.description}
                data = json.dumps(answer).encode("utf-8")
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._serve("GET")

            def do_POST(self):
                self._serve("POST")

        return Handler
