"""The course exchange: a JupyterHub service that holds released work, submissions and feedback.

The hub starts it (``c.JupyterHub.services``), as a Linux user of its own whose
store no one else can read, and proxies it at ``/services/course-exchange/``.
Every request carries a hub token (``Authorization: token ...``, the
``JUPYTERHUB_API_TOKEN`` of a user's server, or one the user made on the hub's
token page); the hub says whose it is and which groups that user is in, and
:mod:`~perceptron_course.hub.courses` turns the groups into a role per course.
Nothing the client sends names the caller: a submission is always the caller's,
with the store's time.

What each role may do (any other request is refused with 403 and a reason):

============================================  ==========================  ======================
request                                       who                         what
============================================  ==========================  ======================
``GET  api/courses``                          anyone with a token         the caller's courses and roles
``GET  api/assignments[?course=C]``           members of C                released assignments
``GET  api/assignments/C/A``                  members of C                the released files
``PUT|DELETE api/assignments/C/A``            instructors of C            release, take back
``POST api/submissions/C/A``                  students of C               submit (kept with its time)
``GET  api/submissions/C/A[?student=S]``      staff of C; a student       every submission; only their own
``GET  api/submissions/C/A/S/T``              staff of C; S               one submission's files
``PUT  api/feedback/C/A/S/T``                 instructors of C            feedback for that submission
``GET  api/feedback/C/A/S/T``                 staff of C; S               its feedback
``GET  api/roster/C``                         staff of C                  C's students, TAs, instructors
============================================  ==========================  ======================

Run by the hub as ``python -m perceptron_course.hub.service --store /var/lib/course-exchange``.
"""

import argparse
import json
import logging
import os
import sys

from tornado import web
from tornado.ioloop import IOLoop

from perceptron_course.hub.courses import INSTRUCTOR, STUDENT, TA, group_name, is_staff, roles_from_groups
from perceptron_course.hub.store import NotFound, Store, StoreError, stamp_to_iso
from perceptron_course.hub.transfer import TransferError, encode_files, largest_body, parse_files
from perceptron_course.limits import course_limits

__all__ = ["make_app", "hub_identify", "main", "server_settings", "SERVICE_NAME"]

SERVICE_NAME = "course-exchange"
log = logging.getLogger("course-exchange")


class Caller:
    def __init__(self, name, groups):
        self.name = name
        self.roles = roles_from_groups(groups)

    def role(self, course):
        return self.roles.get(course)


class Handler(web.RequestHandler):
    def initialize(self, store, identify, limits, members):
        self.store, self.identify, self.limits, self.members = store, identify, limits, members

    def check_xsrf_cookie(self):
        # Tokens only, never cookies: a page in a browser cannot make a request in a user's name.
        pass

    async def prepare(self):
        header = self.request.headers.get("Authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() not in ("token", "bearer") or not token.strip():
            raise web.HTTPError(401, reason="send the hub token as 'Authorization: token ...'")
        model = await self.identify(token.strip())
        if not model or not model.get("name"):
            raise web.HTTPError(403, reason="the hub does not accept this token for the course exchange")
        if model.get("denied"):
            raise web.HTTPError(403, reason="this token does not grant access to the course exchange (scope "
                                            "access:services!service=course-exchange): use your server's own token")
        if "groups" not in model:
            raise web.HTTPError(403, reason="the token cannot show your hub groups (scope read:users:groups); "
                                            "make one with it on the hub's token page")
        self.caller = Caller(model["name"], model["groups"])

    def write_error(self, status_code, **kwargs):
        self.set_header("Content-Type", "application/json")
        self.finish(json.dumps({"error": self._message, "status": status_code}))

    def reply(self, value, status=200):
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(value))

    def need(self, course, *, roles, what):
        role = self.caller.role(course)
        if role not in roles:
            who = "not in " + course if role is None else f"a {role} of {course}"
            raise web.HTTPError(403, reason=f"{self.caller.name} is {who}, so cannot {what}")
        return role

    def files_body(self):
        try:
            return parse_files(self.request.body, self.limits)
        except TransferError as exc:
            raise web.HTTPError(413 if exc.too_large else 400, reason=str(exc)) from None

    def _handle_request_exception(self, e):
        if isinstance(e, NotFound):
            self.send_error(404, reason=str(e))
        elif isinstance(e, StoreError):
            self.send_error(400, reason=str(e))
        else:
            super()._handle_request_exception(e)

    def send_error(self, status_code=500, **kwargs):
        # The reason goes in the JSON body; the status line keeps HTTP's own words (it must be latin-1).
        reason = kwargs.pop("reason", None)
        if reason is None and "exc_info" in kwargs and isinstance(kwargs["exc_info"][1], web.HTTPError):
            reason = kwargs["exc_info"][1].reason
        self.clear()
        self.set_status(status_code)
        self._message = reason or self._reason
        self.write_error(status_code)


class Courses(Handler):
    def get(self):
        self.reply({"user": self.caller.name,
                    "courses": [{"course": c, "role": r} for c, r in sorted(self.caller.roles.items())]})


class Assignments(Handler):
    def get(self):
        course = self.get_argument("course", "")
        courses = [course] if course else sorted(self.caller.roles)
        out = []
        for name in courses:
            self.need(name, roles=(STUDENT, TA, INSTRUCTOR), what="see its assignments")
            out += [{"course": name, **item} for item in self.store.released(name)]
        self.reply(out)


class Assignment(Handler):
    def get(self, course, assignment):
        self.need(course, roles=(STUDENT, TA, INSTRUCTOR), what="fetch its assignments")
        self.set_header("Content-Type", "application/json")
        self.finish(encode_files(self.store.release_files(course, assignment)))

    def put(self, course, assignment):
        self.need(course, roles=(INSTRUCTOR,), what="release assignments")
        record = self.store.release(course, assignment, self.files_body())
        log.info("%s released %s/%s (%d files)", self.caller.name, course, assignment, len(record["files"]))
        self.reply({"course": course, "assignment": assignment, **record})

    def delete(self, course, assignment):
        self.need(course, roles=(INSTRUCTOR,), what="take back assignments")
        self.store.unrelease(course, assignment)
        log.info("%s took back %s/%s", self.caller.name, course, assignment)
        self.reply({"course": course, "assignment": assignment, "released": False})


def _public(record):
    return {**record, "timestamp": stamp_to_iso(record["stamp"])}


class Submissions(Handler):
    def post(self, course, assignment):
        self.need(course, roles=(STUDENT,), what=f"submit {assignment}")
        record = self.store.submit(course, assignment, self.caller.name, self.files_body(),
                                   keep_at_most=self.limits.exchange_submissions)
        log.info("%s submitted %s/%s at %s", self.caller.name, course, assignment, record["stamp"])
        self.reply(_public(record), status=201)

    def get(self, course, assignment):
        role = self.need(course, roles=(STUDENT, TA, INSTRUCTOR), what="list submissions")
        student = self.get_argument("student", "") or None
        if not is_staff(role):
            if student not in (None, self.caller.name):
                raise web.HTTPError(403, reason=f"a student sees only their own submissions, not {student}'s")
            student = self.caller.name
        self.reply([_public(r) for r in self.store.submissions(course, assignment, student)])


class Submission(Handler):
    def get(self, course, assignment, student, stamp):
        role = self.need(course, roles=(STUDENT, TA, INSTRUCTOR), what="read submissions")
        if not is_staff(role) and student != self.caller.name:
            raise web.HTTPError(403, reason="a student reads only their own submissions")
        self.set_header("Content-Type", "application/json")
        self.finish(encode_files(self.store.submission_files(course, assignment, student, stamp)))


class Feedback(Handler):
    def put(self, course, assignment, student, stamp):
        self.need(course, roles=(INSTRUCTOR,), what="give feedback")
        files = self.files_body()
        self.store.give_feedback(course, assignment, student, stamp, files)
        log.info("%s gave feedback to %s on %s/%s at %s", self.caller.name, student, course, assignment, stamp)
        self.reply({"course": course, "assignment": assignment, "student": student, "stamp": stamp,
                    "files": len(files)})

    def get(self, course, assignment, student, stamp):
        role = self.need(course, roles=(STUDENT, TA, INSTRUCTOR), what="read feedback")
        if not is_staff(role) and student != self.caller.name:
            raise web.HTTPError(403, reason="a student reads only their own feedback")
        self.set_header("Content-Type", "application/json")
        self.finish(encode_files(self.store.feedback_files(course, assignment, student, stamp)))


class Roster(Handler):
    async def get(self, course):
        self.need(course, roles=(TA, INSTRUCTOR), what="see its roster")
        self.reply({"course": course, **{role: sorted(await self.members(group_name(course, role)))
                                         for role in (STUDENT, TA, INSTRUCTOR)}})


_PART = r"([^/]+)"


def make_app(store, identify, *, members=None, prefix="/", limits=None):
    """The tornado application.

    ``identify(token)`` is a coroutine giving the hub's user model for a token, or ``None``;
    ``members(group)`` one giving the names in a hub group (the hub's versions: :func:`hub_identify`).
    """
    prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
    settings = {"store": store, "identify": identify, "limits": limits or course_limits(), "members": members}
    routes = [
        (r"api/courses", Courses),
        (r"api/assignments", Assignments),
        (rf"api/assignments/{_PART}/{_PART}", Assignment),
        (rf"api/submissions/{_PART}/{_PART}", Submissions),
        (rf"api/submissions/{_PART}/{_PART}/{_PART}/{_PART}", Submission),
        (rf"api/feedback/{_PART}/{_PART}/{_PART}/{_PART}", Feedback),
        (rf"api/roster/{_PART}", Roster),
    ]
    # The size of a body is held to the limits by parse_files, with a message naming the limit (HTTP 413).
    return web.Application([(prefix + pattern, handler, settings) for pattern, handler in routes])


def hub_identify(cache_seconds=10):
    """``(identify, members)``: ask the hub whose a token is, and who is in a group, as this service.

    The hub gives the service its credentials in its environment; the groups a
    token's user is in come with the hub's answer, cached ``cache_seconds``.
    """
    from jupyterhub.services.auth import HubAuth
    from jupyterhub.utils import url_path_join
    from tornado.httpclient import AsyncHTTPClient, HTTPClientError

    auth = HubAuth(cache_max_age=cache_seconds)

    async def identify(token):
        model = await auth.user_for_token(token, sync=False)
        # Any token of a user names the user; only one that grants access to this service may be used here
        # (not, say, the token of a server another user opened).
        if model and not auth.check_scopes(auth.access_scopes, model):
            return {"name": model.get("name"), "groups": model.get("groups"), "denied": True}
        return model

    async def members(group):
        url = url_path_join(auth.api_url, "groups", group)
        try:
            response = await AsyncHTTPClient().fetch(url, headers={"Authorization": f"token {auth.api_token}"})
        except HTTPClientError as exc:
            if exc.code == 404:
                return []
            raise
        return json.loads(response.body).get("users", [])

    return identify, members


def server_settings(limits):
    """The exchange's HTTP server settings from the course's limits.  A body up to twice the largest a request
    may hold is read and refused with the limit named (413, from :func:`parse_files`: what a student who
    submitted too much is told); a larger one is refused from its length alone, unread, so no one can make the
    exchange hold gigabytes in memory.  A body that trickles in past ``exchange_upload_seconds`` is cut off, so
    slow uploads cannot hold its connections forever."""
    return {"max_body_size": 2 * largest_body(limits), "body_timeout": limits.exchange_upload_seconds}


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m perceptron_course.hub.service", description=__doc__.split("\n")[0])
    parser.add_argument("--store", required=True, help="the folder the exchange keeps everything in (made 0700)")
    parser.add_argument("--limits", help="a JSON file of limits; otherwise the course's, as the package records "
                                         "them (course_limits.json)")
    parser.add_argument("--tls-cert", help="serve HTTPS with this certificate (the clients check it: "
                                           "COURSE_EXCHANGE_CA)")
    parser.add_argument("--tls-key", help="the certificate's private key")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="[%(name)s %(asctime)s] %(message)s")
    os.umask(0o077)
    limits = course_limits(args.limits)
    url = os.environ.get("JUPYTERHUB_SERVICE_URL")
    if not url:
        sys.exit("JUPYTERHUB_SERVICE_URL is not set: the hub starts this service (see hub/jupyterhub_config.py)")
    from urllib.parse import urlparse

    where = urlparse(url)
    identify, members = hub_identify()
    app = make_app(Store(args.store), identify, members=members, prefix=os.environ.get("JUPYTERHUB_SERVICE_PREFIX", "/"),
                   limits=limits)
    tls = None
    if args.tls_cert:
        import ssl

        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(args.tls_cert, args.tls_key)
    app.listen(where.port, address=where.hostname, ssl_options=tls, **server_settings(limits))
    log.info("course exchange on %s, store %s", url, args.store)
    IOLoop.current().start()


if __name__ == "__main__":
    main()
