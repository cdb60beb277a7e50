"""The marking page: TAs mark the written answers one question at a time across all submissions.

``python -m autograder mark ASSIGNMENT`` (:mod:`autograder.commands.mark`)
serves this Starlette application with uvicorn on 127.0.0.1.  Everything it
shows comes from the gradebook and the course's notebooks
(:func:`autograder.marking.answers.collect`'s questions and each student's
answer as graded), so it serves any assignment, one added later included.

**Who may use it.**  As Jupyter's server does, it prints an address holding
a random token; a request without the token (in the address, or in the
cookie the first visit with it sets) is refused with 403.  Every form that
changes something carries a CSRF token tied to the browser's session, and a
POST without the right one is refused with 403 too.  The page is for TAs on
the instructor's machine: it shows the instructor's model answers, so it
never leaves 127.0.0.1.  Each response forbids framing, scripts from
anywhere else and sending the address (with its token) as a referrer.

**What it does.**  The overview lists the written questions with how many
of each question's answers are marked; a question's page lists its answers;
an answer's page shows the question, the model answer, the student's answer
(Markdown and mathematics rendered, :mod:`autograder.marking.render`; the
course's own MathJax, served from the book build's copy, no network) and the
form that marks it: the rubric's items, an adjustment, typed points, a
comment.  Saving writes the gradebook through
:mod:`autograder.marking.rubrics`, which refuses a save of a mark that
someone changed since the form was opened (409, the page then shows both).
Students' names are hidden unless a TA asks for them: answers are numbered
in an order that does not follow the names.  Each save records the TA's
name (``--ta``, or asked once per browser).  The forms work without
JavaScript; ``static/marking.js`` adds the keys (listed on every answer's
page) and shows the mark as rubric items are ticked.
"""

import dataclasses
import hashlib
import hmac
import os
import secrets
import sqlite3
import threading
import urllib.parse
from dataclasses import dataclass, field

from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from autograder.course import ROOT
from autograder.marking import rubrics
from autograder.marking.answers import short_checksum
from autograder.marking.render import markdown_html

__all__ = ["Marking", "create_app", "find_mathjax", "answer_key"]

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(HERE, "templates")
STATIC = os.path.join(HERE, "static")
MAX_BODY = 1 << 20
MAX_NAME = 80

# The security headers of every response (see the module docstring).  MathJax writes its CSS into <style>
# elements, hence 'unsafe-inline' for styles only.
HEADERS = [
    (b"content-security-policy",
     b"default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
     b"font-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
]
# Pages hold marks that change under them, so none is kept; MathJax and the page's own files are kept a while.
NO_STORE = (b"cache-control", b"no-store")
KEEP = (b"cache-control", b"private, max-age=3600")


def find_mathjax(root=ROOT):
    """The folder of MathJax 3's ``tex-chtml.js`` the book build installed (``BOOK_MATHJAX_DIR`` first, then
    ``_build/.mathjax``, then the built book's copy), or ``None``."""
    candidates = [os.environ.get("BOOK_MATHJAX_DIR"),
                  os.path.join(root, "_build", ".mathjax", "node_modules", "mathjax", "es5"),
                  os.path.join(root, "_build", "html", "_static", "mathjax")]
    return next((folder for folder in candidates if folder and os.path.isfile(os.path.join(folder, "tex-chtml.js"))),
                None)


def answer_key(assignment, student_id):
    """The name of a student's answers in the page's addresses, and their order, which shows no name.

    Hiding names is against bias, not a secret from the TAs: one who has the class list could work a key out.
    """
    return hashlib.sha256(f"{assignment}\0{student_id}".encode("utf-8")).hexdigest()[:12]


@dataclass
class Session:
    """One browser's session: the TA's name, whether it shows students' names, and a message for its next page."""

    id: str
    ta: str = ""
    show_names: bool = False
    flash: tuple = None  # (kind, text): kind "status" or "alert"


@dataclass
class Row:
    """One answer to a question, as the page lists it."""

    key: str
    position: int
    student_id: str
    name: str
    mark: object  # WrittenMark
    shown: object  # rubrics.Mark
    version: str

    @property
    def status(self):
        if self.mark.to_remark:
            return "to mark again"
        if not self.mark.marked:
            return "to mark"
        return "blank" if self.mark.blank and self.mark.points == 0 and not self.shown.items else "marked"

    @property
    def done(self):
        return self.mark.marked


@dataclass
class QuestionState:
    """A written question and its answers, in the page's order."""

    question: object  # answers.Question
    rows: list = field(default_factory=list)

    @property
    def key(self):
        return (self.question.notebook, self.question.grade_id)

    @property
    def marked(self):
        return sum(row.done for row in self.rows)

    @property
    def blank(self):
        return sum(row.mark.blank for row in self.rows)

    def row(self, key):
        return next((row for row in self.rows if row.key == key), None)

    def next_to_mark(self, after=None):
        """The first answer still to be marked after ``after`` (a row, never the answer given), going round to
        the start."""
        start = 0 if after is None else self.rows.index(after) + 1
        ordered = self.rows[start:] + self.rows[:start]
        return next((row for row in ordered if not row.done and row is not after), None)


class Marking:
    """The state of one marking server: its course and assignment, the gradebook, the sessions, the secrets."""

    def __init__(self, course_dir, assignment, *, token=None, ta=None, mathjax=None):
        from autograder.outputs.gradebook import assignment_info, open_gradebook

        self.course_dir = os.path.abspath(course_dir)
        self.assignment = assignment
        self.token = token or secrets.token_urlsafe(32)
        self.fixed_ta = " ".join((ta or "").split())[:MAX_NAME]
        self.mathjax = mathjax
        self.secret = secrets.token_bytes(32)
        self.cookie = "marking-" + hashlib.sha256(self.token.encode("utf-8")).hexdigest()[:12]
        self.sessions = {}
        self.lock = threading.Lock()
        self._questions = (None, None)
        self._state = (None, None)
        self.gb = open_gradebook(self.course_dir)  # GradebookError: no gradebook, or unreadable
        try:
            assignment_info(self.gb, assignment)  # GradebookError: an assignment the gradebook does not know
        except BaseException:
            self.gb.close()
            raise
        # SQLite's data_version, read on a connection of its own, changes whenever any other connection (this
        # server's writes included) commits: the state is read again only then.
        self._watch = sqlite3.connect(f"file:{os.path.join(self.course_dir, 'gradebook.db')}?mode=ro", uri=True,
                                      check_same_thread=False)

    def close(self):
        self._watch.close()
        self.gb.close()

    # -- sessions and tokens -----------------------------------------------------------------

    def token_ok(self, token):
        return hmac.compare_digest(token.encode("utf-8"), self.token.encode("utf-8"))

    def new_session(self):
        session = Session(secrets.token_urlsafe(24), ta=self.fixed_ta)
        self.sessions[session.id] = session
        return session

    def csrf(self, session):
        return hmac.new(self.secret, f"csrf\0{session.id}".encode("utf-8"), hashlib.sha256).hexdigest()

    # -- the gradebook -----------------------------------------------------------------------

    def with_gradebook(self, work):
        """``work(gb)`` alone on the gradebook, in a fresh session (so it sees what other processes wrote)."""
        with self.lock:
            try:
                return work(self.gb)
            finally:
                self.gb.db.rollback()
                self.gb.db.remove()

    def questions(self, gb):
        """The written questions, read again only when a notebook they come from changed."""
        from autograder.marking.answers import _questions
        from autograder.outputs.gradebook import assignment_info

        info = assignment_info(gb, self.assignment)
        stamps = []
        for notebook in info:
            for part in ("release", "source"):
                path = os.path.join(self.course_dir, part, self.assignment, f"{notebook}.ipynb")
                stamps.append(os.stat(path).st_mtime_ns if os.path.isfile(path) else None)
        signature = (repr(info), tuple(stamps))
        if self._questions[0] != signature:
            self._questions = (signature, _questions(self.course_dir, self.assignment, info))
        return self._questions[1]

    def data_version(self):
        return self._watch.execute("PRAGMA data_version").fetchone()[0]

    def saved(self, gb, student_id, before):
        """After this server saved a mark of ``student_id`` (the gradebook's data version being ``before`` just
        before): that student's answers read again, and the rest kept, unless someone else wrote the gradebook
        since the state was read (then all of it is read again next time)."""
        from autograder.outputs.gradebook import page_records, written_marks

        signature, states = self._state
        if states is None or signature[0] != before:
            self._state = (None, None)
            return
        marks = written_marks(gb, self.assignment, student_id).get(student_id, ())
        records = page_records(gb, self.assignment, student_id)
        fresh = []
        for state in states:
            rows = []
            for row in state.rows:
                if row.student_id == student_id:
                    mark = next((m for m in marks if (m.notebook, m.grade_id) == state.key), None)
                    if mark is None:
                        self._state = (None, None)
                        return
                    record = records.get((student_id, *state.key))
                    row = dataclasses.replace(row, mark=mark, shown=rubrics.mark_of(mark, record),
                                              version=rubrics.version_of(mark, record))
                rows.append(row)
            fresh.append(QuestionState(state.question, rows))
        self._state = ((self.data_version(), signature[1]), fresh)

    def state(self, gb):
        """Every written question with its answers (without their text) as the gradebook holds them now.

        Reading every mark takes a while in a large class (nbgrader's records are read one by one), so the
        answer is kept until the gradebook or a notebook it comes from changes."""
        questions = self.questions(gb)
        signature = (self.data_version(), id(questions))
        if self._state[0] != signature:
            self._state = (signature, self._read_state(gb, questions))
        return self._state[1]

    def _read_state(self, gb, questions):
        from autograder.outputs.gradebook import page_records, written_marks

        marks = written_marks(gb, self.assignment)
        records = page_records(gb, self.assignment)
        names = {s.id: " ".join(part for part in (s.first_name, s.last_name) if part) for s in gb.students}
        states = []
        for question in questions:
            rows = []
            for student_id, student_marks in marks.items():
                mark = next((m for m in student_marks
                             if (m.notebook, m.grade_id) == (question.notebook, question.grade_id)), None)
                if mark is None:
                    continue
                record = records.get((student_id, mark.notebook, mark.grade_id))
                rows.append(Row(answer_key(self.assignment, student_id), 0, student_id, names.get(student_id, ""),
                                mark, rubrics.mark_of(mark, record), rubrics.version_of(mark, record)))
            rows.sort(key=lambda row: (row.key, row.student_id))
            for position, row in enumerate(rows, start=1):
                row.position = position
            states.append(QuestionState(question, rows))
        return states

    def answer_text(self, student_id, notebook, grade_id):
        """The student's answer as graded (from the autograded notebook, read as untrusted), or ``""``."""
        from autograder.boundary.notebook import parse_notebook, read_untrusted_file
        from autograder.course.limits import load_limits
        from perceptron_course.limits import Limits, LimitsError

        path = os.path.join(self.course_dir, "autograded", student_id, self.assignment, f"{notebook}.ipynb")
        if not os.path.isfile(path):
            return ""
        try:
            max_bytes = load_limits(self.course_dir).executed_notebook_bytes
        except LimitsError:
            max_bytes = Limits().executed_notebook_bytes
        data, problem = read_untrusted_file(path, max_bytes)
        nb, problem = (None, problem) if problem else parse_notebook(data)
        if problem:
            return ""
        return next((cell.source for cell in nb.cells if cell.grade_id == grade_id), "").strip()


# -- the gate: the token, the session and the security headers -------------------------------------

class Gate:
    """ASGI middleware: refuses a request without the token or a session cookie; adds :data:`HEADERS`."""

    def __init__(self, app, marking):
        self.app = app
        self.marking = marking

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        files = scope["path"].startswith(("/static/", "/mathjax/"))

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                kept = [header for header in message.get("headers", []) if header[0].lower() != b"cache-control"]
                message["headers"] = kept + HEADERS + [KEEP if files else NO_STORE]
            await send(message)

        request = Request(scope)
        marking = self.marking
        session = marking.sessions.get(request.cookies.get(marking.cookie, ""))
        token = request.query_params.get("token")
        if token is not None and marking.token_ok(token) and request.method in ("GET", "HEAD"):
            # The token's first use: a session cookie, and the address again without the token.
            session = session or marking.new_session()
            query = urllib.parse.urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "token"])
            response = RedirectResponse(request.url.path + (f"?{query}" if query else ""), status_code=303)
            response.set_cookie(marking.cookie, session.id, httponly=True, samesite="strict", path="/")
            await response(scope, receive, send_with_headers)
            return
        if session is None:
            response = HTMLResponse(
                "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Marking: the token is "
                "missing</title></head><body><main><h1>This page needs its token</h1><p>Open the address that "
                "<code>python -m autograder mark</code> printed when it started: it ends in "
                "<code>?token=</code> and a long random string.</p></main></body></html>", status_code=403)
            await response(scope, receive, send_with_headers)
            return
        scope.setdefault("state", {})["session"] = session
        await self.app(scope, receive, send_with_headers)


# -- the views ----------------------------------------------------------------------------------------

def _points(value):
    return "\u2013" if value is None else f"{value:g}"


def _signed(value):
    return f"+{value:g}" if value > 0 else ("\u2212" + f"{-value:g}" if value < 0 else "0")


def _when(iso):
    """An ISO 8601 time in UTC as the page shows it: ``2026-02-03 14:05 UTC``."""
    import datetime

    try:
        moment = datetime.datetime.fromisoformat(iso)
    except (TypeError, ValueError):
        return iso or ""
    if moment.tzinfo is not None:
        moment = moment.astimezone(datetime.timezone.utc)
    return moment.strftime("%Y-%m-%d %H:%M UTC")


def _q_path(question, *rest):
    parts = ["q", question.notebook, question.grade_id, *rest]
    return "/" + "/".join(urllib.parse.quote(str(part), safe="") for part in parts)


def _safe_next(target, default="/"):
    """A path on this server to go back to (never another site's address)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return default
    return target


class Views:
    """The page's views; each renders a template from the gradebook's state."""

    def __init__(self, marking):
        self.marking = marking
        self.templates = Jinja2Templates(directory=TEMPLATES)
        env = self.templates.env
        env.globals.update(points=_points, signed=_signed, q_path=_q_path, assignment=marking.assignment,
                           mathjax=marking.mathjax is not None)
        env.filters["markdown"] = lambda text: Markup(markdown_html(text))
        env.filters["when"] = _when

    def page(self, request, name, context, status_code=200):
        session = request.state.session
        flash, session.flash = session.flash, None
        context = {"session": session, "csrf": self.marking.csrf(session), "flash": flash,
                   "fixed_ta": bool(self.marking.fixed_ta), "here": request.url.path, **context}
        return self.templates.TemplateResponse(request, name, context, status_code=status_code)

    async def form(self, request):
        """The POSTed form, after its CSRF token is checked; ``None`` (and the caller answers 403) when it is wrong."""
        form = await request.form()
        given = str(form.get("csrf", ""))
        if not hmac.compare_digest(given.encode("utf-8"), self.marking.csrf(request.state.session).encode("utf-8")):
            return None
        return form

    def refused(self, request):
        return self.page(request, "message.html", {
            "title": "Not done: the form is out of date",
            "text": "The form did not carry this session's security token (it was opened before the marking "
                    "server restarted, or came from another page). Nothing was changed: open the page again and "
                    "repeat what you did."}, status_code=403)

    def missing(self, request, what):
        return self.page(request, "message.html", {"title": "Not found", "text": what}, status_code=404)

    def needs_name(self, request):
        session = request.state.session
        if session.ta:
            return None
        return RedirectResponse("/name?" + urllib.parse.urlencode({"next": request.url.path}), status_code=303)

    def _states(self):
        return self.marking.with_gradebook(self.marking.state)

    def _find(self, states, request):
        notebook, grade_id = request.path_params["notebook"], request.path_params["grade_id"]
        return next((s for s in states if s.key == (notebook, grade_id)), None)

    async def _requested(self, request):
        """Every question's state, and the state of the question the request's path names (``None`` if none)."""
        states = await run_in_threadpool(self._states)
        return states, self._find(states, request)

    def _no_question(self, request):
        return self.missing(request, f"{self.marking.assignment} has no written question "
                                     f"{request.path_params['grade_id']!r}.")

    # -- pages ---------------------------------------------------------------------------------------

    async def overview(self, request):
        states = await run_in_threadpool(self._states)
        return self.page(request, "overview.html", {"states": states, "title": f"Marking {self.marking.assignment}"})

    async def question(self, request):
        states, state = await self._requested(request)
        if state is None:
            return self._no_question(request)
        items = await self._items(state)
        return self.page(request, "question.html", {"states": states, "state": state, "items": items,
                                                    "names": {item.id: item for item in items}})

    async def _items(self, state):
        from autograder.outputs.gradebook import rubric_items

        question = state.question
        return await run_in_threadpool(self.marking.with_gradebook, lambda gb: rubric_items(
            gb, self.marking.assignment, question.notebook, question.grade_id))

    async def next_answer(self, request):
        _, state = await self._requested(request)
        if state is None:
            return self._no_question(request)
        row = state.next_to_mark()
        if row is None:
            request.state.session.flash = ("status", f"Every answer to {state.question.grade_id} is marked.")
            return RedirectResponse(_q_path(state.question), status_code=303)
        return RedirectResponse(_q_path(state.question, "a", row.key), status_code=303)

    async def answer(self, request):
        waiting = self.needs_name(request)
        if waiting is not None:
            return waiting
        return await self._answer_page(request)

    async def _answer_page(self, request, *, values=None, error=None, status_code=200):
        states, state = await self._requested(request)
        row = state and state.row(request.path_params["key"])
        if row is None:
            return self.missing(request, "There is no such answer: the student's submission may have been removed "
                                         "by a later grading run. Go back to the question's list.")
        question = state.question
        text = "" if row.mark.blank else await run_in_threadpool(
            self.marking.answer_text, row.student_id, question.notebook, question.grade_id)
        items = await self._items(state)
        index = state.rows.index(row)
        previous = state.rows[index - 1] if index > 0 else None
        following = state.rows[index + 1] if index + 1 < len(state.rows) else None
        if values is None:
            shown = row.shown
            values = {"items": set(shown.items),
                      "adjustment": "" if shown.adjustment is None else f"{shown.adjustment:g}",
                      "points": "" if shown.points is None or shown.items else f"{shown.points:g}",
                      "comment": shown.comment}
        names = {item.id: item for item in items}
        return self.page(request, "answer.html", {
            "states": states, "state": state, "row": row, "text": text, "items": items, "values": values,
            "used": [names[i] for i in row.shown.items if i in names], "previous": previous,
            "following": following, "error": error, "answer_checksum": short_checksum(row.mark.checksum),
        }, status_code=status_code)

    # -- actions ----------------------------------------------------------------------------------

    async def save(self, request):
        form = await self.form(request)
        if form is None:
            return self.refused(request)
        waiting = self.needs_name(request)
        if waiting is not None:
            return waiting
        states, state = await self._requested(request)
        row = state and state.row(request.path_params["key"])
        if row is None:
            return self.missing(request, "There is no such answer any more; nothing was saved.")
        values = {"items": set(), "adjustment": str(form.get("adjustment", "")),
                  "points": str(form.get("points", "")), "comment": str(form.get("comment", ""))}
        max_points = state.question.max_points
        try:
            values["items"] = {int(value) for value in form.getlist("item")}
            adjustment = rubrics.parse_number(values["adjustment"], what="the adjustment", low=-max_points,
                                              high=max_points)
            points = None if values["items"] else rubrics.parse_number(values["points"], what="the points", low=0,
                                                                       high=max_points)
        except ValueError as exc:
            message = str(exc) if isinstance(exc, rubrics.RubricError) else "a rubric item was not a number"
            return await self._answer_page(request, values=values, error=message, status_code=400)
        session = request.state.session
        question = state.question

        def work(gb):
            before = self.marking.data_version()
            outcome = rubrics.save_mark(gb, self.marking.assignment, student_id=row.student_id,
                                        notebook=question.notebook, grade_id=question.grade_id,
                                        expected=str(form.get("version", "")),
                                        answer_checksum=str(form.get("answer", "")), item_ids=sorted(values["items"]),
                                        adjustment=adjustment, points=points,
                                        comment=values["comment"].replace("\r\n", "\n"), marker=session.ta)
            if isinstance(outcome, rubrics.Saved) and outcome.changed:
                self.marking.saved(gb, row.student_id, before)
            return outcome

        try:
            outcome = await run_in_threadpool(self.marking.with_gradebook, work)
        except rubrics.RubricError as exc:
            return await self._answer_page(request, values=values, error=str(exc), status_code=400)
        if isinstance(outcome, rubrics.Conflict):
            items = {item.id: item for item in await self._items(state)}
            return self.page(request, "conflict.html", {
                "states": states, "state": state, "row": row, "conflict": outcome, "items": items,
                "values": values, "answer_checksum": short_checksum(row.mark.checksum)}, status_code=409)
        mark = outcome.mark
        said = (f"Saved answer {row.position}: {_points(mark.points)} / {max_points:g}"
                if outcome.changed else f"Answer {row.position} was already marked so: nothing to save")
        if form.get("go") == "stay":
            session.flash = ("status", said + ".")
            return RedirectResponse(_q_path(question, "a", row.key), status_code=303)
        # The next to mark, from the state read before the save (the answer just saved being marked now).
        following = state.next_to_mark(row)
        if following is None:
            session.flash = ("status", said + f". Every answer to {question.grade_id} is marked.")
            return RedirectResponse(_q_path(question), status_code=303)
        said += f"; answer {following.position} is the next to mark"
        session.flash = ("status", said + ".")
        return RedirectResponse(_q_path(question, "a", following.key), status_code=303)

    async def _rubric_form(self, request, nothing_done):
        """A rubric form's posted fields, its question and the page to go back to; or the response that refuses it
        (no valid CSRF token, or no such question: ``nothing_done`` says what did not happen)."""
        form = await self.form(request)
        if form is None:
            return self.refused(request)
        _, state = await self._requested(request)
        if state is None:
            return self.missing(request, f"There is no such question; {nothing_done}.")
        return form, state.question, _safe_next(str(form.get("back", "")), _q_path(state.question))

    async def add_item(self, request):
        posted = await self._rubric_form(request, "nothing was added")
        if not isinstance(posted, tuple):
            return posted
        form, question, back = posted
        try:
            points = rubrics.parse_number(str(form.get("points", "")), what="the item's points",
                                          low=-question.max_points, high=question.max_points)
            item = await run_in_threadpool(self.marking.with_gradebook, lambda gb: rubrics.add_item(
                gb, self.marking.assignment, notebook=question.notebook, grade_id=question.grade_id,
                max_points=question.max_points, points=points, text=str(form.get("text", ""))))
        except rubrics.RubricError as exc:
            request.state.session.flash = ("alert", f"The item was not added: {exc}.")
            return RedirectResponse(back, status_code=303)
        request.state.session.flash = ("status", f"Added rubric item {item.position}: {_signed(item.points)}, "
                                                 f"{item.text}.")
        return RedirectResponse(back, status_code=303)

    async def change_item(self, request):
        posted = await self._rubric_form(request, "nothing was changed")
        if not isinstance(posted, tuple):
            return posted
        form, question, back = posted
        try:
            item_id = int(request.path_params["item"])
        except ValueError:
            return self.missing(request, "There is no such rubric item.")
        session = request.state.session
        try:
            if form.get("action") == "delete":
                item = await run_in_threadpool(self.marking.with_gradebook, lambda gb: rubrics.delete_item(
                    gb, self.marking.assignment, item_id))
                session.flash = ("status", f"Deleted the rubric item {item.text!r}.")
            else:
                points = rubrics.parse_number(str(form.get("points", "")), what="the item's points",
                                              low=-question.max_points, high=question.max_points)
                rescored, changed = await run_in_threadpool(self.marking.with_gradebook, lambda gb: rubrics.change_item(
                    gb, self.marking.assignment, item_id, max_points=question.max_points, points=points,
                    text=str(form.get("text", ""))))
                session.flash = ("status", f"Saved the rubric item: {_signed(points)}. Re-scored the {rescored} "
                                           f"{'answer' if rescored == 1 else 'answers'} it is part of; "
                                           f"{changed} {'mark' if changed == 1 else 'marks'} changed.")
        except rubrics.RubricError as exc:
            session.flash = ("alert", f"The rubric item was not changed: {exc}.")
        return RedirectResponse(back, status_code=303)

    async def name_form(self, request):
        if self.marking.fixed_ta:
            return RedirectResponse("/", status_code=303)
        return self.page(request, "name.html", {"states": [], "next": _safe_next(request.query_params.get("next"))})

    async def set_name(self, request):
        form = await self.form(request)
        if form is None:
            return self.refused(request)
        session = request.state.session
        target = _safe_next(str(form.get("next", "")))
        if self.marking.fixed_ta:
            return RedirectResponse(target, status_code=303)
        name = " ".join(str(form.get("name", "")).split())
        if not name or len(name) > MAX_NAME:
            return self.page(request, "name.html", {
                "states": [], "next": target, "value": name,
                "error": f"Give your name, up to {MAX_NAME} characters: it is recorded with each mark you give."},
                status_code=400)
        session.ta = name
        session.flash = ("status", f"Marking as {name}.")
        return RedirectResponse(target, status_code=303)

    async def settings(self, request):
        form = await self.form(request)
        if form is None:
            return self.refused(request)
        session = request.state.session
        session.show_names = form.get("names") == "show"
        session.flash = ("status", "Students' names are shown." if session.show_names
                         else "Students' names are hidden.")
        return RedirectResponse(_safe_next(str(form.get("back", ""))), status_code=303)


def create_app(marking):
    """The Starlette application of a :class:`Marking`."""
    views = Views(marking)
    question = "/q/{notebook}/{grade_id}"
    routes = [
        Route("/", views.overview),
        Route("/name", views.name_form, methods=["GET"]),
        Route("/name", views.set_name, methods=["POST"]),
        Route("/settings", views.settings, methods=["POST"]),
        Route(question, views.question),
        Route(question + "/next", views.next_answer),
        Route(question + "/a/{key}", views.answer, methods=["GET"]),
        Route(question + "/a/{key}", views.save, methods=["POST"]),
        Route(question + "/rubric", views.add_item, methods=["POST"]),
        Route(question + "/rubric/{item}", views.change_item, methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    if marking.mathjax:
        routes.append(Mount("/mathjax", app=StaticFiles(directory=marking.mathjax), name="mathjax"))
    app = Starlette(routes=routes, max_body_size=MAX_BODY)
    app.state.marking = marking
    return Gate(app, marking)

