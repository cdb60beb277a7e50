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

What it holds in memory is bounded, whoever sends what: who may send a body
to an address (the roles of its ``@upload``) and how long the body says it is
are checked from the request's head, before any of it is kept (403, or 413
naming the limit); each user has at most ``exchange_transfers_per_user``
uploads and downloads of files in progress, one of them over 1 MiB (429); and
those large ones, from everyone, hold at most ``exchange_memory_bytes`` at
once, of which students' leave one of the largest bodies free for the
course's staff (where it holds two); one more is asked to come back (503
with ``Retry-After``, which the client may wait for).  A body or a reply that takes longer than
``exchange_upload_seconds`` is cut off, which frees its share.  Each user of the hub's machine holds at most
``exchange_connections_per_user`` connections open at once (:mod:`~perceptron_course.hub.connections`), so
that no one can take all of the exchange's file descriptors by opening connections and leaving them idle.

Run by the hub as ``python -m perceptron_course.hub.service --store /var/lib/course-exchange``.
"""

import argparse
import asyncio
import functools
import json
import logging
import os
import re
import sys

from tornado import web
from tornado.httpserver import HTTPServer
from tornado.iostream import StreamClosedError
from tornado.ioloop import IOLoop

from perceptron_course.hub.connections import ConnectionGuard
from perceptron_course.hub.courses import INSTRUCTOR, STUDENT, TA, group_name, is_staff, roles_from_groups
from perceptron_course.hub.store import NotFound, OverQuota, Store, StoreError, stamp_to_iso
from perceptron_course.hub.transfer import TransferError, encode_files, over_body_bytes, parse_files
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


# A body this small never waits for the large ones: the users' own caps bound how many there are.
SMALL_BODY = 2**20
BUSY_RETRY_SECONDS = 5


class Busy(web.HTTPError):
    """The exchange is holding as much as it may at once; the request is asked to come back."""

    def __init__(self, reason):
        super().__init__(503, reason=reason)


class Transfers:
    """The uploads and downloads of files in progress: how many per user, and the bytes of the large ones.

    The service runs on one event loop, so nothing here needs a lock.
    """

    def __init__(self, limits):
        self.per_user, self.budget = limits.exchange_transfers_per_user, limits.exchange_memory_bytes
        # Students' large transfers together leave room for one of the largest bodies, where the budget holds two:
        # a few students holding large uploads open then never keep the course's staff from releasing,
        # collecting for grading or returning feedback.
        body = limits.exchange_body_bytes
        self.students_budget = self.budget - body if self.budget >= 2 * body else self.budget
        self.by_user = {}
        self.large_users = set()  # who is moving a large body now: one each, so few can fill the budget
        self.large_bytes = 0

    def start(self, user, size, *, staff=False):
        """A ticket for ``user`` (one of the course's staff, or not) to move a body of ``size`` bytes, or an HTTP
        error saying why not now."""
        if self.by_user.get(user, 0) >= self.per_user:
            raise web.HTTPError(429, reason=f"{user} already has {self.per_user} uploads or downloads in progress "
                                            "at the course exchange (Autograder.exchange_transfers_per_user); "
                                            "wait for them to finish")
        large = size if size > SMALL_BODY else 0
        if large and user in self.large_users:
            raise web.HTTPError(429, reason=f"{user} is already moving a file of more than 1 MiB at the course "
                                            "exchange; wait for it to finish")
        budget = self.budget if staff else self.students_budget
        if large and self.large_bytes + large > budget:
            kept = "" if budget == self.budget else f", less {self.budget - budget:,} kept for the course's staff"
            raise Busy(f"the course exchange is moving other large files ({self.large_bytes:,} bytes of the "
                       f"{self.budget:,} it holds at once, Autograder.exchange_memory_bytes{kept}); try again in "
                       "a minute")
        self.by_user[user] = self.by_user.get(user, 0) + 1
        if large:
            self.large_users.add(user)
            self.large_bytes += large
        return [user, large]

    def end(self, ticket):
        user, large = ticket
        self.by_user[user] -= 1
        if not self.by_user[user]:
            del self.by_user[user]
        if large:
            self.large_users.discard(user)
            self.large_bytes -= large


def announced_length(headers):
    """The body's length a request announces (``Content-Length``), ``None`` without one; a value that is not a
    number of bytes is a 400.  (A repeated header, ``10, 10``, counts when its values agree, as tornado reads it.)"""
    value = headers.get("Content-Length")
    if value is None:
        return None
    pieces = {piece.strip() for piece in value.split(",")}
    if len(pieces) != 1 or not re.fullmatch(r"[0-9]{1,18}", next(iter(pieces))):
        raise web.HTTPError(400, reason=f"Content-Length must be a number of bytes, not {value[:40]!r}")
    return int(pieces.pop())


def upload(*roles, what):
    """Marks a handler's method that takes a body, which only ``roles`` of the course the address names may send
    (``what`` they would do, for the refusal). Who may send it is checked from the request's head, before any of
    the body is kept (:meth:`Handler.prepare`); the method runs once the body has arrived, unless the head was
    refused, which it answers instead."""

    def mark(method):
        @functools.wraps(method)
        def run(self, *args):
            if self._refusal is not None:
                raise self._refusal
            return method(self, *args)

        run.upload_roles, run.upload_what = roles, what
        return run

    return mark


@web.stream_request_body
class Handler(web.RequestHandler):
    def initialize(self, store, identify, limits, members, transfers):
        self.store, self.identify, self.limits, self.members = store, identify, limits, members
        self.transfers = transfers
        self._ticket = self._body = self._refusal = None
        self._sending = False

    def check_xsrf_cookie(self):
        # Tokens only, never cookies: a page in a browser cannot make a request in a user's name.
        pass

    async def prepare(self):
        try:
            await self._identify_caller()
            if self.request.method in ("PUT", "POST"):
                self._receive()
            elif self.request.headers.get("Content-Length", "0") != "0" or "Transfer-Encoding" in self.request.headers:
                raise web.HTTPError(400, reason=f"a {self.request.method} request carries no body")
        except web.HTTPError as refusal:
            # A sender such as Python's urllib sends its whole body before it reads the answer: a connection closed
            # on a body it has not finished sending shows it only "connection reset", not the reason.  So a body
            # the server would read anyway is read and dropped first, and the refusal answered then (@upload).
            # Such a body holds no share of the exchange's memory, however long it takes; it counts as one of
            # its sender's transfers in progress, so no one holds more than those few open so. A request whose
            # token the hub does not accept (anyone's, through the hub's public proxy) is answered at once, and
            # its connection closed, unread.
            try:
                length = announced_length(self.request.headers)
            except web.HTTPError:
                length = None
            caller = getattr(self, "caller", None)
            if caller is None or self.request.method not in ("PUT", "POST") or length is None \
                    or length > 2 * self.limits.exchange_body_bytes:
                raise
            try:
                self._ticket = self.transfers.start(caller.name, 0)
            except web.HTTPError:
                raise refusal from None
            self._refusal = refusal

    async def _identify_caller(self):
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

    def _receive(self):
        """Admit an upload's body by who sends it where, and by its announced length, before a byte of it is kept."""
        method = getattr(type(self), self.request.method.lower(), None)
        if not hasattr(method, "upload_roles"):
            raise web.HTTPError(405, reason=f"this address of the course exchange takes no {self.request.method}")
        role = self.need(self.path_args[0], roles=method.upload_roles, what=method.upload_what)
        size = announced_length(self.request.headers)
        if size is None:
            raise web.HTTPError(411, reason="an upload announces its length (Content-Length)")
        if size > self.limits.exchange_body_bytes:
            raise web.HTTPError(413, reason=str(over_body_bytes(size, self.limits)))
        self._ticket = self.transfers.start(self.caller.name, size, staff=is_staff(role))
        self.request.connection.set_max_body_size(size)
        self._body = bytearray()

    def data_received(self, chunk):
        # Only an admitted upload keeps what arrives; what follows a refusal is dropped as it comes.
        if self._body is not None and not self._finished:
            self._body += chunk

    def _end_transfer(self):
        if self._ticket is not None:
            self.transfers.end(self._ticket)
            self._ticket = self._body = None

    def on_finish(self):
        if not self._sending:  # a reply of files frees its share once it has left (send_files)
            self._end_transfer()

    def on_connection_close(self):
        if not self._sending:
            self._end_transfer()
        super().on_connection_close()

    async def send_files(self, size, read, *, role):
        """Reply with the files ``read()`` gives, whose bytes the store's record says are ``size``, to a caller with
        ``role`` in the course; the reply's share of the exchange's memory is held until it has left, or until
        ``exchange_upload_seconds`` cut it off."""
        if size is not None:
            self._ticket = self.transfers.start(self.caller.name, size * 4 // 3, staff=is_staff(role))
        self._sending = True
        try:
            body = encode_files(read())
            self.set_header("Content-Type", "application/json")
            self.set_header("Cache-Control", "no-store")
            try:
                await asyncio.wait_for(self.finish(body), self.limits.exchange_upload_seconds)
            except (asyncio.TimeoutError, StreamClosedError):
                self.request.connection.close()
        finally:
            self._sending = False
            self._end_transfer()

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
        """The upload's files; the raw body is let go once they are read, so it is not held beside them."""
        body, self._body = self._body, None
        try:
            return parse_files(body, self.limits)
        except TransferError as exc:
            raise web.HTTPError(413 if exc.too_large else 400, reason=str(exc)) from None

    def _handle_request_exception(self, e):
        if isinstance(e, NotFound):
            self.send_error(404, reason=str(e))
        elif isinstance(e, OverQuota):
            self.send_error(413, reason=str(e))
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
        if "exc_info" in kwargs and isinstance(kwargs["exc_info"][1], Busy):
            self.set_header("Retry-After", str(BUSY_RETRY_SECONDS))
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
    async def get(self, course, assignment):
        role = self.need(course, roles=(STUDENT, TA, INSTRUCTOR), what="fetch its assignments")
        await self.send_files(self.store.files_bytes(course, assignment),
                              lambda: self.store.release_files(course, assignment), role=role)

    @upload(INSTRUCTOR, what="release assignments")
    def put(self, course, assignment):
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
    @upload(STUDENT, what="submit its assignments")
    def post(self, course, assignment):
        record = self.store.submit(course, assignment, self.caller.name, self.files_body(),
                                   keep_at_most=self.limits.exchange_submissions,
                                   student_bytes=self.limits.exchange_student_bytes)
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
    async def get(self, course, assignment, student, stamp):
        role = self.need(course, roles=(STUDENT, TA, INSTRUCTOR), what="read submissions")
        if not is_staff(role) and student != self.caller.name:
            raise web.HTTPError(403, reason="a student reads only their own submissions")
        await self.send_files(self.store.files_bytes(course, assignment, student, stamp),
                              lambda: self.store.submission_files(course, assignment, student, stamp), role=role)


class Feedback(Handler):
    @upload(INSTRUCTOR, what="give feedback")
    def put(self, course, assignment, student, stamp):
        files = self.files_body()
        self.store.give_feedback(course, assignment, student, stamp, files)
        log.info("%s gave feedback to %s on %s/%s at %s", self.caller.name, student, course, assignment, stamp)
        self.reply({"course": course, "assignment": assignment, "student": student, "stamp": stamp,
                    "files": len(files)})

    async def get(self, course, assignment, student, stamp):
        role = self.need(course, roles=(STUDENT, TA, INSTRUCTOR), what="read feedback")
        if not is_staff(role) and student != self.caller.name:
            raise web.HTTPError(403, reason="a student reads only their own feedback")
        await self.send_files(self.store.files_bytes(course, assignment, student, stamp, feedback=True),
                              lambda: self.store.feedback_files(course, assignment, student, stamp), role=role)


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
    limits = limits or course_limits()
    settings = {"store": store, "identify": identify, "limits": limits, "members": members,
                "transfers": Transfers(limits)}
    routes = [
        (r"api/courses", Courses),
        (r"api/assignments", Assignments),
        (rf"api/assignments/{_PART}/{_PART}", Assignment),
        (rf"api/submissions/{_PART}/{_PART}", Submissions),
        (rf"api/submissions/{_PART}/{_PART}/{_PART}/{_PART}", Submission),
        (rf"api/feedback/{_PART}/{_PART}/{_PART}/{_PART}", Feedback),
        (rf"api/roster/{_PART}", Roster),
    ]
    # The size of a body is held to the limits before it is read (Handler._receive), and by parse_files.
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
    """The exchange's HTTP server settings from the course's limits.  A body over what one request may hold is
    refused from its announced length (the handler names the limit), and up to twice that is still read and
    dropped as it arrives, because a sender such as Python's urllib sends the whole body before it reads the
    answer and would otherwise see only a broken connection; a longer one is not read at all.  A body that
    trickles in past ``exchange_upload_seconds`` is cut off, so slow uploads cannot hold its connections, and a
    connection that sends no request for a minute is closed (the exchange's client makes one request per
    connection)."""
    return {"max_body_size": 2 * limits.exchange_body_bytes, "body_timeout": limits.exchange_upload_seconds,
            "idle_connection_timeout": 60.0}


class GuardedHTTPServer(HTTPServer):
    """Tornado's HTTP server, closing at once a new connection whose owner holds its limit of them already."""

    guard = None  # a ConnectionGuard

    def handle_stream(self, stream, address):
        if self.guard is not None and not self.guard.admit(stream):
            stream.close()
            return
        super().handle_stream(stream, address)


def _raise_open_files():
    """The soft limit on open files up to the hard one: the per-user limit, not this one, is what holds users."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


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
    open_files = _raise_open_files()
    server = GuardedHTTPServer(app, ssl_options=tls, **server_settings(limits))
    server.guard = ConnectionGuard(limits.exchange_connections_per_user, exempt_uids={0, os.getuid()})
    server.listen(where.port, address=where.hostname)
    log.info("course exchange on %s, store %s, at most %d open files, %d connections per user", url, args.store,
             open_files, limits.exchange_connections_per_user)
    IOLoop.current().start()


if __name__ == "__main__":
    main()
