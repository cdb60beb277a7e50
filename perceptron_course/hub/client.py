"""The course exchange's client: what nbgrader's exchange classes and the instructor's commands call.

It needs only the standard library.  Where the exchange is and whose token to
send come from the environment the hub gives every server:
``COURSE_EXCHANGE_URL`` (set by the hub's configuration, the service's address
as the servers reach it), ``COURSE_EXCHANGE_CA`` (the exchange's certificate,
which an ``https`` address is checked against before any token is sent) and
``JUPYTERHUB_API_TOKEN``.  Every refusal becomes
an :class:`ExchangeClientError` whose message is the exchange's own reason;
an exchange that is busy moving other large files (503 with ``Retry-After``)
is asked again, for up to ``busy_seconds``.
"""

import http.client
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request

from perceptron_course.hub.transfer import encode_files, parse_files

__all__ = ["ExchangeClient", "ExchangeClientError", "URL_VARIABLE", "CA_VARIABLE"]

URL_VARIABLE = "COURSE_EXCHANGE_URL"
CA_VARIABLE = "COURSE_EXCHANGE_CA"


class ExchangeClientError(Exception):
    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status


def _quote(part):
    return urllib.parse.quote(part, safe="")


def _retry_after(exc):
    """The seconds a busy exchange (503) asks to wait before asking again; ``None`` for any other refusal."""
    if exc.code != 503:
        return None
    try:
        return max(0.0, min(float(exc.headers.get("Retry-After", "")), 60.0))
    except ValueError:
        return None


class ExchangeClient:
    def __init__(self, url=None, token=None, *, ca=None, timeout=60.0, busy_seconds=120.0):
        self.url = (url or os.environ.get(URL_VARIABLE, "")).rstrip("/")
        self.token = token or os.environ.get("JUPYTERHUB_API_TOKEN", "")
        self.timeout, self.busy_seconds = timeout, busy_seconds
        ca = ca or os.environ.get(CA_VARIABLE) or None
        self._tls = None
        if self.url.startswith("https:"):
            import ssl

            # Only the exchange's own certificate when the hub names one: whoever else listens there gets no token.
            self._tls = ssl.create_default_context(cafile=ca) if ca else ssl.create_default_context()
        if not self.url:
            raise ExchangeClientError(f"no course exchange is configured: {URL_VARIABLE} is not set (the hub sets it "
                                      "for every server; outside the hub, set it to the exchange's address)")
        if not self.token:
            raise ExchangeClientError("no hub token: JUPYTERHUB_API_TOKEN is not set (the hub sets it for every "
                                      "server; outside the hub, make a token on the hub's token page)")

    def _call(self, method, path, body=None, query=None):
        url = f"{self.url}/api/{path}" + (f"?{urllib.parse.urlencode(query)}" if query else "")
        request = urllib.request.Request(url, data=body, method=method,
                                         headers={"Authorization": f"token {self.token}",
                                                  "Content-Type": "application/json"})
        give_up = time.monotonic() + self.busy_seconds
        while True:
            try:
                with urllib.request.urlopen(request, timeout=self.timeout, context=self._tls) as response:
                    return response.read()
            except urllib.error.HTTPError as exc:
                wait = _retry_after(exc)
                if wait is None or time.monotonic() + wait > give_up:
                    raise self._refusal(exc) from None
                exc.close()
                time.sleep(wait)
            except urllib.error.URLError as exc:
                raise ExchangeClientError(f"the course exchange at {self.url} cannot be reached ({exc.reason})") \
                    from None
            except (http.client.HTTPException, OSError) as exc:
                # A connection closed or timed out while the answer was on its way (a reply the exchange cut off
                # after exchange_upload_seconds, a proxy that dropped it): IncompleteRead, a reset, a timeout.
                raise ExchangeClientError(f"the connection to the course exchange at {self.url} broke off before "
                                          f"its answer was whole ({type(exc).__name__}: {exc})") from None

    @staticmethod
    def _refusal(exc):
        raw = exc.read()
        try:
            reason = json.loads(raw)["error"]
        except (ValueError, KeyError, TypeError):
            reason = raw.decode("utf-8", "replace")[:500] or exc.reason
        return ExchangeClientError(f"the course exchange refused: {reason}", exc.code)

    def _json(self, method, path, body=None, query=None):
        return json.loads(self._call(method, path, body, query))

    # -- everyone ---------------------------------------------------------------------------------------------
    def courses(self):
        """``{course: role}`` of the token's user."""
        return {c["course"]: c["role"] for c in self._json("GET", "courses")["courses"]}

    def released(self, course=""):
        return self._json("GET", "assignments", query={"course": course} if course else None)

    def fetch(self, course, assignment):
        return parse_files(self._call("GET", f"assignments/{_quote(course)}/{_quote(assignment)}"))

    def submissions(self, course, assignment, student=""):
        return self._json("GET", f"submissions/{_quote(course)}/{_quote(assignment)}",
                          query={"student": student} if student else None)

    def submission_files(self, course, assignment, student, stamp):
        return parse_files(self._call("GET", "submissions/" + "/".join(map(_quote, (course, assignment, student,
                                                                                      stamp)))))

    def feedback_files(self, course, assignment, student, stamp):
        return parse_files(self._call("GET", "feedback/" + "/".join(map(_quote, (course, assignment, student, stamp)))))

    def roster(self, course):
        """``{"student": [...], "ta": [...], "instructor": [...]}``: the course's people, from the hub's groups."""
        return self._json("GET", f"roster/{_quote(course)}")

    # -- students -----------------------------------------------------------------------------------------------
    def submit(self, course, assignment, files):
        return self._json("POST", f"submissions/{_quote(course)}/{_quote(assignment)}", encode_files(files))

    # -- instructors ----------------------------------------------------------------------------------------
    def release(self, course, assignment, files):
        return self._json("PUT", f"assignments/{_quote(course)}/{_quote(assignment)}", encode_files(files))

    def unrelease(self, course, assignment):
        return self._json("DELETE", f"assignments/{_quote(course)}/{_quote(assignment)}")

    def give_feedback(self, course, assignment, student, stamp, files):
        return self._json("PUT", "feedback/" + "/".join(map(_quote, (course, assignment, student, stamp))),
                          encode_files(files))
