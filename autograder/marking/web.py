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

import hmac
import os
import secrets
import time
import urllib.parse

from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from autograder.marking import rubrics
from autograder.marking.answers import short_checksum
from autograder.marking.render import markdown_html, word_changes
from autograder.marking.state import MAX_NAME, SESSION_SECONDS, Marking, answer_key, find_mathjax

__all__ = ["Marking", "create_app", "find_mathjax", "answer_key"]

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = os.path.join(HERE, "templates")
STATIC = os.path.join(HERE, "static")
MAX_BODY = 1 << 20

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


# -- the gate: the token, the session and the security headers -------------------------------------

class Gate:
    """ASGI middleware: refuses a request without the token or a session cookie; adds :data:`HEADERS`, and the
    session's cookie again whenever what it holds (the TA's name, the names setting) changed."""

    def __init__(self, app, marking):
        self.app = app
        self.marking = marking

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        files = scope["path"].startswith(("/static/", "/mathjax/"))
        request = Request(scope)
        marking = self.marking
        sent_cookie = request.cookies.get(marking.cookie, "")
        session = marking.session_of(sent_cookie)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                kept = [header for header in message.get("headers", []) if header[0].lower() != b"cache-control"]
                if session is not None and not files and marking.session_cookie(session) != sent_cookie:
                    kept = [header for header in kept if header[0].lower() != b"set-cookie"]
                    kept.append((b"set-cookie", _cookie_header(marking.cookie, marking.session_cookie(session))))
                message["headers"] = kept + HEADERS + [KEEP if files else NO_STORE]
            await send(message)

        token = request.query_params.get("token")
        if token is not None and marking.token_ok(token) and request.method in ("GET", "HEAD"):
            # The token's use: a session cookie (the same session again, renewed for another week, when the browser
            # has one), and the address again without the token.
            if session is None:
                session = marking.new_session()
            else:
                session.issued = int(time.time())
            query = urllib.parse.urlencode([(k, v) for k, v in request.query_params.multi_items() if k != "token"])
            response = RedirectResponse(request.url.path + (f"?{query}" if query else ""), status_code=303)
            await response(scope, receive, send_with_headers)
            return
        if session is None:
            response = HTMLResponse(
                "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Marking: sign in with the "
                "page's address</title></head><body><main><h1>This page needs its address with the token</h1><p>Open "
                "the address that <code>python -m autograder mark</code> printed when it started: it ends in "
                "<code>?token=</code> and a long random string. A restarted server prints the same address, unless it "
                "was started with <code>--new-token</code>; what you had typed in a form is kept in this browser and "
                "comes back when you open the answer again.</p></main></body></html>", status_code=403)
            await response(scope, receive, send_with_headers)
            return
        scope.setdefault("state", {})["session"] = session
        await self.app(scope, receive, send_with_headers)


def _cookie_header(name, value):
    # The session outlives the browser (a crash, a restart), for as long as the server accepts its cookie: the TA's
    # name, settings and claims stay hers.
    return f"{name}={value}; Max-Age={SESSION_SECONDS}; HttpOnly; Path=/; SameSite=strict".encode("latin-1")


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


def _excerpt(text, length=140):
    """The start of an answer on one line, for the list of answers."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= length else flat[:length - 1].rstrip() + "\u2026"


def _held_by_others(claims, session):
    """The claims among ``claims`` (``{student_id: Claim}``) that another session holds: answers another marker
    has open, which "the next to mark" passes over and the page names."""
    return {sid: claim for sid, claim in claims.items() if claim.session != session.id}


def _marked_alike(group):
    """Whether every answer of a group is marked, all with one mark: the group's form then shows that mark."""
    return all(row.done for row in group.rows) and len({
        (row.shown.points, row.shown.comment, tuple(row.shown.items), row.shown.adjustment, row.shown.note)
        for row in group.rows}) == 1


def _marked_apart(group):
    """The answers of a group with a mark of their own that the group's form does not show: when its answers are not
    all marked alike, those a marker marked (a blank answer's automatic 0 aside). A group save leaves them as they
    are unless the TA asks for them to be given the group's mark too."""
    if _marked_alike(group):
        return []
    return [row for row in group.rows if row.done and (row.shown.marker or not row.mark.blank)]


def _member(row):
    """What a group's form carries of one member: its answer, the version of its mark, and its answer's checksum."""
    return f"{row.key}:{row.version}:{short_checksum(row.mark.checksum)}"


class Views:
    """The page's views; each renders a template from the gradebook's state."""

    def __init__(self, marking):
        self.marking = marking
        self.templates = Jinja2Templates(directory=TEMPLATES)
        env = self.templates.env
        env.globals.update(points=_points, signed=_signed, q_path=_q_path, assignment=marking.assignment,
                           mathjax=marking.mathjax is not None, member=_member, dict=dict)
        env.filters["markdown"] = lambda text: Markup(markdown_html(text))
        env.filters["when"] = _when
        env.filters["excerpt"] = _excerpt

    def page(self, request, name, context, status_code=200):
        session = request.state.session
        flash, session.flash = session.flash, None
        saved, session.saved = session.saved, None
        refused_item, session.rubric_form = session.rubric_form, None
        state = context.get("state")
        if refused_item and (state is None or refused_item["question"] != _q_path(state.question)):
            refused_item = None  # refused on another question's page (in another tab): not this rubric's form
        context = {"session": session, "csrf": self.marking.csrf(session), "flash": flash, "saved_draft": saved,
                   "refused_item": refused_item,
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
            "text": "The form did not carry this session's security token (it came from another page, or from a "
                    "server started since with a new token). Nothing was changed: open the page again and repeat "
                    "what you did; what you had typed in the marking form is kept in this browser."},
            status_code=403)

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

    async def _items(self, state):
        from autograder.outputs.gradebook import rubric_items

        question = state.question
        return await run_in_threadpool(self.marking.with_gradebook, lambda gb: rubric_items(
            gb, self.marking.assignment, question.notebook, question.grade_id))

    async def _groups(self, state):
        return await run_in_threadpool(self.marking.with_gradebook, lambda gb: self.marking.groups(gb, state))

    def _claims(self, state):
        """The live claims on a question's answers: ``{student_id: Claim}``."""
        return self.marking.claims.live(self.marking.assignment, *state.key)

    def _others(self, state, session, claims):
        """Who else is marking this question: ``[(marker, [answer positions])]``."""
        positions = {row.student_id: row.position for row in state.rows}
        others = {}
        for claim in _held_by_others(claims, session).values():
            if claim.student_id in positions:
                others.setdefault(claim.marker, []).append(positions[claim.student_id])
        return sorted((marker, sorted(found)) for marker, found in others.items())

    def _next_question(self, states, state):
        """The question after ``state`` that still has answers to mark (going round), or ``None``."""
        index = states.index(state)
        return next((s for s in states[index + 1:] + states[:index] if s.marked < len(s.rows)), None)

    def _taken(self, state, session):
        return set(_held_by_others(self._claims(state), session))

    # -- pages ---------------------------------------------------------------------------------------

    async def overview(self, request):
        states = await run_in_threadpool(self._states)
        return self.page(request, "overview.html", {"states": states, "title": f"Marking {self.marking.assignment}"})

    async def question(self, request):
        states, state = await self._requested(request)
        if state is None:
            return self._no_question(request)
        items = await self._items(state)
        groups = await self._groups(state)
        question = state.question
        texts = await run_in_threadpool(self.marking.answer_texts, question, state.rows)
        group_of = {row.student_id: group for group in groups for row in group.rows}
        session = request.state.session
        claims = self._claims(state)
        search = " ".join(str(request.query_params.get("search", "")).split())[:200]
        order = request.query_params.get("order", "")
        rows = state.rows
        if search:
            needle = search.casefold()
            rows = [row for row in rows if needle in texts.get(row.student_id, "").casefold()]
        if order == "group":
            rows = sorted(rows, key=lambda row: (group_of[row.student_id].number, row.position))
        elif order == "state":
            rows = sorted(rows, key=lambda row: (row.done, row.position))
        elif order == "mark":
            rows = sorted(rows, key=lambda row: (row.mark.points is None, row.mark.points or 0, row.position))
        share = session.shares.get(state.key)
        return self.page(request, "question.html", {
            "states": states, "state": state, "items": items, "names": {item.id: item for item in items},
            "groups": groups, "group_of": group_of, "texts": texts, "rows": rows, "search": search, "order": order,
            "others": self._others(state, session, claims), "share": share,
            "in_share": {row.student_id for row in state.share(*share)} if share else None,
            "next_question": self._next_question(states, state),
            "next_group": self._next_group(groups, claims, session)})

    async def next_answer(self, request):
        states, state = await self._requested(request)
        if state is None:
            return self._no_question(request)
        session = request.state.session
        share = session.shares.get(state.key)
        row = state.next_to_mark(taken=self._taken(state, session), share=share)
        if row is None:
            request.state.session.flash = ("status", self._nothing_left(states, state, session, share))
            return RedirectResponse(_q_path(state.question), status_code=303)
        return RedirectResponse(_q_path(state.question, "a", row.key), status_code=303)

    def _nothing_left(self, states, state, session, share):
        """Why "the next to mark" found nothing: what is true of the question now."""
        label = state.question.label
        left = [row for row in (state.share(*share) if share else state.rows) if not row.done]
        where = f"your part ({share[0]} of {share[1]}) of {label}" if share else label
        if not left:
            said = f"Every answer in {where} is marked."
        else:
            said = (f"{len(left)} {'answer' if len(left) == 1 else 'answers'} in {where} "
                    f"{'is' if len(left) == 1 else 'are'} still to mark, and other markers have "
                    f"{'it' if len(left) == 1 else 'them'} open.")
        following = self._next_question(states, state)
        if following is not None and following is not state:
            said += f" {following.question.label} has answers to mark."
        return said

    async def answer(self, request):
        waiting = self.needs_name(request)
        if waiting is not None:
            return waiting
        return await self._answer_page(request)

    async def _answer_page(self, request, *, values=None, error=None, status_code=200, confirm_unmark=None,
                           invalid=None):
        states, state = await self._requested(request)
        row = state and state.row(request.path_params["key"])
        if row is None:
            return self.missing(request, "There is no such answer: the student's submission may have been removed "
                                         "by a later grading run. Go back to the question's list.")
        session = request.state.session
        question = state.question
        text = "" if row.mark.blank else await run_in_threadpool(
            self.marking.answer_text, row.student_id, question.notebook, question.grade_id)
        items = await self._items(state)
        groups = await self._groups(state)
        group = next((g for g in groups if any(member is row for member in g.rows)), None)
        page = secrets.token_urlsafe(12)
        held = await run_in_threadpool(self.marking.claims.hold, self.marking.assignment, *state.key,
                                       [row.student_id], session=session.id, marker=session.ta, page=page)
        claims = self._claims(state)
        holder = claims.get(row.student_id) if not held else None
        index = state.rows.index(row)
        previous = state.rows[index - 1] if index > 0 else None
        following = state.rows[index + 1] if index + 1 < len(state.rows) else None
        earlier_items, changes = (), None
        if row.mark.to_remark and text:
            earlier = await run_in_threadpool(self.marking.earlier_answer, row.student_id, question.notebook,
                                              question.grade_id, row.mark.earlier.checksum)
            changes = None if earlier is None else Markup(word_changes(earlier, text))
        if values is None:
            shown = row.shown
            values = {"items": set(shown.items),
                      "adjustment": "" if shown.adjustment is None else f"{shown.adjustment:g}",
                      "points": "" if shown.points is None or shown.items else f"{shown.points:g}",
                      "comment": shown.comment, "note": shown.note}
            if row.mark.to_remark:
                earlier_items = await run_in_threadpool(self._earlier_items, row, state)
                if earlier_items and not values["items"]:
                    values["items"] = {item.id for item in earlier_items}
        cells = await run_in_threadpool(self.marking.notebook_cells, row.student_id, question.notebook)
        names = {item.id: item for item in items}
        return self.page(request, "answer.html", {
            "states": states, "state": state, "row": row, "text": text, "items": items, "values": values,
            "used": [names[i] for i in row.shown.items if i in names], "previous": previous,
            "following": following, "error": error, "answer_checksum": short_checksum(row.mark.checksum),
            "group": group, "holder": holder, "others": self._others(state, session, claims),
            "earlier_items": earlier_items, "cells": cells, "confirm_unmark": confirm_unmark, "changes": changes,
            "next_question": self._next_question(states, state), "claim_page": page, "invalid": invalid,
        }, status_code=status_code)

    def _earlier_items(self, row, state):
        """The rubric items of the mark an answer had before the student changed it, when the page gave it."""
        from autograder.outputs.gradebook import page_records

        def read(gb):
            record = page_records(gb, self.marking.assignment, row.student_id).get((row.student_id, *state.key))
            earlier = row.mark.earlier
            if record is None or earlier is None or record.checksum != earlier.checksum:
                return ()
            return record.items

        return self.marking.with_gradebook(read)

    # -- actions ----------------------------------------------------------------------------------

    def _posted_mark(self, form, max_points):
        """The mark a form asks for: ``(values as typed, item ids, adjustment, points)``; ``RubricError`` (with the
        values) when a number cannot be read."""
        values = {"items": set(), "adjustment": str(form.get("adjustment", "")),
                  "points": str(form.get("points", "")), "comment": str(form.get("comment", "")),
                  "note": str(form.get("note", ""))}
        try:
            values["items"] = {int(value) for value in form.getlist("item")}
        except ValueError:
            raise _Unreadable(values, "a rubric item was not a number", "item") from None
        try:
            adjustment = rubrics.parse_number(values["adjustment"], what="the adjustment", low=-max_points,
                                              high=max_points, field="adjustment")
            points = None if values["items"] else rubrics.parse_number(values["points"], what="the points", low=0,
                                                                       high=max_points, field="points")
        except rubrics.RubricError as exc:
            raise _Unreadable(values, str(exc), exc.field) from None
        return values, sorted(values["items"]), adjustment, points

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
        question = state.question
        try:
            values, item_ids, adjustment, points = self._posted_mark(form, question.max_points)
        except _Unreadable as problem:
            return await self._answer_page(request, values=problem.values, error=problem.message, status_code=400,
                                           invalid=problem.field)
        session = request.state.session
        if (points is None and not item_ids and row.mark.marked and not row.mark.blank
                and form.get("unmark") != "yes"):
            # An empty points field on a marked answer: ask, never unmark silently.
            return await self._answer_page(request, values=values, confirm_unmark=row.mark.points, status_code=409)
        target = rubrics.Target(row.student_id, str(form.get("version", "")), str(form.get("answer", "")))

        def work(gb):
            before = self.marking.data_version()
            outcome, = rubrics.save_marks(gb, self.marking.assignment, notebook=question.notebook,
                                          grade_id=question.grade_id, targets=[target], item_ids=item_ids,
                                          adjustment=adjustment, points=points,
                                          comment=values["comment"].replace("\r\n", "\n"), marker=session.ta,
                                          note=values["note"])
            if isinstance(outcome, rubrics.Saved) and outcome.changed:
                self.marking.saved(gb, row.student_id, before)
            return outcome

        try:
            outcome = await run_in_threadpool(self.marking.with_gradebook, work)
        except rubrics.RubricError as exc:
            return await self._answer_page(request, values=values, error=str(exc), status_code=400,
                                           invalid=exc.field)
        if isinstance(outcome, rubrics.Conflict):
            items = {item.id: item for item in await self._items(state)}
            return self.page(request, "conflict.html", {
                "states": states, "state": state, "row": row, "conflict": outcome, "items": items,
                "values": values, "answer_checksum": short_checksum(row.mark.checksum)}, status_code=409)
        await run_in_threadpool(self.marking.claims.give_up, self.marking.assignment, session=session.id)
        session.saved = _q_path(question, "a", row.key)
        mark = outcome.mark
        if mark.points is None:
            said = f"Answer {row.position} is unmarked now"
        elif outcome.changed:
            said = f"Saved answer {row.position}: {_points(mark.points)} / {question.max_points:g}"
        else:
            said = f"Answer {row.position} was already marked so: nothing to save"
        if form.get("go") == "stay":
            session.flash = ("status", said + ".")
            return RedirectResponse(_q_path(question, "a", row.key), status_code=303)
        # The next to mark, from the state as it is after the save.
        states, state = await self._requested(request)
        share = session.shares.get(state.key)
        following = state.next_to_mark(state.row(row.key), taken=self._taken(state, session), share=share)
        if following is None:
            session.flash = ("status", said + ". " + self._nothing_left(states, state, session, share))
            return RedirectResponse(_q_path(question), status_code=303)
        said += f"; answer {following.position} is the next to mark"
        session.flash = ("status", said + ".")
        return RedirectResponse(_q_path(question, "a", following.key), status_code=303)

    # -- groups -----------------------------------------------------------------------------------

    async def _requested_group(self, request):
        states, state = await self._requested(request)
        if state is None:
            return states, None, None, []
        groups = await self._groups(state)
        group = next((g for g in groups if g.key == request.path_params["group"]), None)
        return states, state, group, groups

    async def group(self, request):
        waiting = self.needs_name(request)
        if waiting is not None:
            return waiting
        return await self._group_page(request)

    async def _group_page(self, request, *, values=None, error=None, status_code=200, conflicts=(), invalid=None):
        states, state, group, groups = await self._requested_group(request)
        if group is None:
            return self.missing(request, "There is no such group any more: its answers were marked apart, split "
                                         "or merged since. Go back to the question's list of groups.")
        session = request.state.session
        question = state.question
        items = await self._items(state)
        texts = await run_in_threadpool(self.marking.answer_texts, question, group.rows)
        page = secrets.token_urlsafe(12)
        await run_in_threadpool(self.marking.claims.hold, self.marking.assignment, *state.key,
                                [row.student_id for row in group.rows if not row.done],
                                session=session.id, marker=session.ta, page=page)
        claims = self._claims(state)
        if values is None:
            values = {"items": set(), "adjustment": "", "points": "", "comment": "", "note": ""}
            if _marked_alike(group):
                first = group.rows[0].shown
                values = {"items": set(first.items),
                          "adjustment": "" if first.adjustment is None else f"{first.adjustment:g}",
                          "points": "" if first.points is None or first.items else f"{first.points:g}",
                          "comment": first.comment, "note": first.note}
        return self.page(request, "group.html", {
            "states": states, "state": state, "group": group, "groups": groups, "items": items, "texts": texts,
            "values": values, "error": error, "conflicts": conflicts,
            "held": _held_by_others(claims, session),
            "claim_page": page, "invalid": invalid,
            "others": self._others(state, session, claims), "names": {item.id: item for item in items},
            "apart": _marked_apart(group),
        }, status_code=status_code)

    async def group_save(self, request):
        form = await self.form(request)
        if form is None:
            return self.refused(request)
        waiting = self.needs_name(request)
        if waiting is not None:
            return waiting
        states, state, group, _ = await self._requested_group(request)
        if group is None:
            return self.missing(request, "There is no such group any more; nothing was saved.")
        question = state.question
        session = request.state.session
        try:
            values, item_ids, adjustment, points = self._posted_mark(form, question.max_points)
        except _Unreadable as problem:
            return await self._group_page(request, values=problem.values, error=problem.message, status_code=400,
                                          invalid=problem.field)
        values["replace"] = form.get("replace") == "yes"
        if points is None and not item_ids:
            return await self._group_page(request, values=values, status_code=400,
                                          error="a group's mark needs rubric items or points; to take marks back, "
                                                "open each answer")
        rows = {row.key: row for row in state.rows}
        targets = []
        for posted in form.getlist("member"):
            key, _, rest = str(posted).partition(":")
            version, _, checksum = rest.partition(":")
            row = rows.get(key)
            if row is None:
                return await self._group_page(request, values=values, status_code=409,
                                              error="an answer of the group is no longer in the gradebook (a later "
                                                    "grading run removed it); nothing was saved, look again")
            targets.append((row, rubrics.Target(row.student_id, version, checksum)))
        if not targets:
            return await self._group_page(request, values=values, status_code=400, error="the form named no answer")
        # An answer marked on its own (by another TA, or alone by this one) keeps its mark unless the TA asked to
        # replace it: the form did not show that mark, so saving over it would lose it unseen. One marked since the
        # form was opened stays a target, and its changed version stops the save (a conflict, shown).
        apart = {row.key for row in _marked_apart(group)}
        kept = [] if values["replace"] else [row for row, target in targets
                                             if row.key in apart and target.expected == row.version]
        targets = [(row, target) for row, target in targets if row not in kept]
        if not targets:
            return await self._group_page(
                request, values=values, status_code=400,
                error="every answer of the group has a mark of its own already, so nothing was saved; to give them "
                      "all this mark, tick \"Also give this mark to the answers marked already\", or open an answer "
                      "to mark it alone")

        def work(gb):
            before = self.marking.data_version()
            outcomes = rubrics.save_marks(gb, self.marking.assignment, notebook=question.notebook,
                                          grade_id=question.grade_id, targets=[t for _, t in targets],
                                          item_ids=item_ids, adjustment=adjustment, points=points,
                                          comment=values["comment"].replace("\r\n", "\n"), marker=session.ta,
                                          note=values["note"])
            if any(isinstance(outcome, rubrics.Saved) and outcome.changed for outcome in outcomes) and \
                    not any(isinstance(outcome, rubrics.Conflict) for outcome in outcomes):
                self.marking.saved(gb, [row.student_id for row, _ in targets], before)
            return outcomes

        try:
            outcomes = await run_in_threadpool(self.marking.with_gradebook, work)
        except rubrics.RubricError as exc:
            return await self._group_page(request, values=values, error=str(exc), status_code=400,
                                          invalid=exc.field)
        conflicts = [(row, outcome) for (row, _), outcome in zip(targets, outcomes)
                     if isinstance(outcome, rubrics.Conflict)]
        if conflicts:
            return await self._group_page(
                request, values=values, status_code=409, conflicts=conflicts,
                error=f"{len(conflicts)} of the group's answers changed since you opened the group (listed below); "
                      "nothing was saved. Look at them, then save again: the form now shows the group as it is")
        await run_in_threadpool(self.marking.claims.give_up, self.marking.assignment, session=session.id)
        session.saved = _q_path(question, "g", group.key)
        changed = sum(outcome.changed for outcome in outcomes)
        mark = outcomes[0].mark
        counted = (f"{len(outcomes)} of its {group.size} answers" if kept
                   else f"{len(outcomes)} {'answer' if len(outcomes) == 1 else 'answers'}")
        said = (f"Marked group {group.number} ({counted}): {_points(mark.points)} / {question.max_points:g}; "
                f"{changed} {'mark' if changed == 1 else 'marks'} changed.")
        if kept:
            said += " " + "; ".join(f"Answer {row.position} kept its own mark ({_points(row.shown.points)} / "
                                    f"{question.max_points:g}{f' by {row.shown.marker}' if row.shown.marker else ''})"
                                    for row in kept) + "."
        # On to the next group to mark, as a save goes on to the next answer; the question's page when none is left.
        _, state = await self._requested(request)
        following = self._next_group(await self._groups(state), self._claims(state), session)
        if following is None:
            session.flash = ("status", said + f" No group of {question.label} is left to mark.")
            return RedirectResponse(_q_path(question) + "#groups", status_code=303)
        session.flash = ("status", said + f" Group {following.number} is the next to mark.")
        return RedirectResponse(_q_path(question, "g", following.key), status_code=303)

    @staticmethod
    def _next_group(groups, claims, session):
        """The largest group of more than one answer with answers still to mark, none of them open for another
        marker; ``None`` when there is none."""
        taken = _held_by_others(claims, session)
        return next((g for g in groups if g.size > 1 and g.kind != "blank" and g.marked < g.size
                     and not any(row.student_id in taken for row in g.rows if not row.done)), None)

    async def group_decide(self, request):
        """Confirm a proposed group, split answers off a group, keep a proposal apart, or merge into another group."""
        import datetime

        from autograder.marking import groups as grouping

        form = await self.form(request)
        if form is None:
            return self.refused(request)
        waiting = self.needs_name(request)
        if waiting is not None:
            return waiting
        states, state, group, groups = await self._requested_group(request)
        if group is None:
            return self.missing(request, "There is no such group any more; nothing was changed.")
        session = request.state.session
        question = state.question
        action = str(form.get("action", ""))
        chosen = set(form.getlist("answer"))
        texts = await run_in_threadpool(self.marking.answer_texts, question, group.rows)
        placements = {}
        back = _q_path(question, "g", group.key)
        if group.kind == "blank":
            session.flash = ("alert", "Blank answers stay one group: open an answer to mark it alone.")
            return RedirectResponse(back, status_code=303)
        if action == "confirm":
            placements = {(row.student_id, row.mark.checksum): group.key for row in group.rows}
            said = f"Confirmed group {group.number}: its {group.size} answers are one group."
        elif action == "apart":
            placements = {(row.student_id, row.mark.checksum): grouping.same_key(texts.get(row.student_id, ""))
                          for row in group.rows}
            said = f"Kept the answers of group {group.number} apart: each is in the group of the answers the same as it."
        elif action == "split":
            picked = [row for row in group.rows if row.key in chosen]
            if not picked or len(picked) == len(group.rows):
                session.flash = ("alert", "Not split: tick the answers to take out of the group (some, not all).")
                return RedirectResponse(back, status_code=303)
            placements = {(row.student_id, row.mark.checksum): "own-" + row.key for row in picked}
            placements.update({(row.student_id, row.mark.checksum): group.key for row in group.rows
                               if row not in picked})
            said = (f"Took {len(picked)} {'answer' if len(picked) == 1 else 'answers'} out of group {group.number}; "
                    "each is a group of its own now.")
        elif action == "merge":
            into = next((g for g in groups if g.key == str(form.get("into", "")) and g.kind != "blank"), None)
            if into is None or into is group:
                session.flash = ("alert", "Not merged: choose another group to merge this one into.")
                return RedirectResponse(back, status_code=303)
            placements = {(row.student_id, row.mark.checksum): into.key for row in group.rows + into.rows}
            said = f"Merged group {group.number} into group {into.number}."
            back = _q_path(question, "g", into.key)
        else:
            return self.missing(request, "There is no such action on a group.")
        now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")

        def work(gb):
            from autograder.outputs.gradebook import begin_write

            before = self.marking.data_version()
            begin_write(gb)
            try:
                grouping.decide(gb, self.marking.assignment, question.notebook, question.grade_id, placements,
                                by=session.ta, now=now)
                gb.db.commit()
            except BaseException:
                gb.db.rollback()
                raise
            self.marking.wrote(before)

        await run_in_threadpool(self.marking.with_gradebook, work)
        session.flash = ("status", said)
        return RedirectResponse(back, status_code=303)

    async def share(self, request):
        """Mark one part of a question's list (``part`` of ``parts``), or all of it again."""
        form = await self.form(request)
        if form is None:
            return self.refused(request)
        _, state = await self._requested(request)
        if state is None:
            return self._no_question(request)
        session = request.state.session
        try:
            part, parts = int(str(form.get("part", ""))), int(str(form.get("parts", "")))
        except ValueError:
            part = parts = 0
        if parts <= 1:
            session.shares.pop(state.key, None)
            session.flash = ("status", f"You mark every answer to {state.question.label}.")
        elif not 1 <= part <= parts or parts > max(len(state.rows), 1):
            session.flash = ("alert", f"Not changed: give a part from 1 to the number of parts, and at most "
                                      f"{max(len(state.rows), 1)} parts.")
        else:
            session.shares[state.key] = (part, parts)
            rows = state.share(part, parts)
            where = f"answers {rows[0].position} to {rows[-1].position}" if rows else "no answer"
            session.flash = ("status", f"You mark part {part} of {parts} of {state.question.label}: {where}. "
                                       "\"The next to mark\" stays in your part.")
        return RedirectResponse(_q_path(state.question), status_code=303)

    # -- claims kept alive by the page's script ------------------------------------------------------

    async def claims_renew(self, request):
        form = await self.form(request)
        if form is None:
            return Response(status_code=403)
        count = await run_in_threadpool(self.marking.claims.renew, self.marking.assignment,
                                        session=request.state.session.id)
        return Response(str(count), media_type="text/plain")

    async def claims_give_up(self, request):
        form = await self.form(request)
        if form is None:
            return Response(status_code=403)
        # The page's own claims only: a reload's new page may have claimed the answer again before this arrives.
        page = str(form.get("page", "")) or None
        await run_in_threadpool(self.marking.claims.give_up, self.marking.assignment,
                                session=request.state.session.id, page=page)
        return Response(status_code=204)

    # -- the rubric ---------------------------------------------------------------------------------

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

    @staticmethod
    def _keep_refused_item(request, question, form_id, form, problem):
        """Keep what was typed in a refused rubric form of ``question``, for the page it goes back to: the form
        shows it again, the field to mend marked invalid and focused (a TA's half-typed item is not lost to a
        typo).  Only a page of the same question shows it."""
        request.state.session.rubric_form = {
            "question": _q_path(question), "form": str(form_id),
            "values": {name: str(form.get(name, "")) for name in ("points", "text", "note")}, "field": problem.field}

    async def add_item(self, request):
        posted = await self._rubric_form(request, "nothing was added")
        if not isinstance(posted, tuple):
            return posted
        form, question, back = posted
        try:
            points = rubrics.parse_number(str(form.get("points", "")), what="the item's points",
                                          low=-question.max_points, high=question.max_points, field="points")
            item = await run_in_threadpool(self.marking.with_gradebook, lambda gb: rubrics.add_item(
                gb, self.marking.assignment, notebook=question.notebook, grade_id=question.grade_id,
                max_points=question.max_points, points=points, text=str(form.get("text", "")),
                note=str(form.get("note", ""))))
        except rubrics.RubricError as exc:
            request.state.session.flash = ("alert", f"The item was not added: {exc}.")
            self._keep_refused_item(request, question, "new", form, exc)
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
                                              low=-question.max_points, high=question.max_points, field="points")
                rescored, changed = await run_in_threadpool(self.marking.with_gradebook, lambda gb: rubrics.change_item(
                    gb, self.marking.assignment, item_id, max_points=question.max_points, points=points,
                    text=str(form.get("text", "")), note=str(form.get("note", ""))))
                session.flash = ("status", f"Saved the rubric item: {_signed(points)}. Re-scored the {rescored} "
                                           f"{'answer' if rescored == 1 else 'answers'} it is part of; "
                                           f"{changed} {'mark' if changed == 1 else 'marks'} changed.")
        except rubrics.RubricError as exc:
            session.flash = ("alert", f"The rubric item was not changed: {exc}.")
            self._keep_refused_item(request, question, item_id, form, exc)
        return RedirectResponse(back, status_code=303)

    # -- the TA and the settings ------------------------------------------------------------------

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


class _Unreadable(Exception):
    """A marking form whose numbers cannot be read: the values as typed, what was wrong, and in which field."""

    def __init__(self, values, message, field):
        super().__init__(message)
        self.values = values
        self.message = message
        self.field = field


def create_app(marking):
    """The Starlette application of a :class:`Marking`."""
    views = Views(marking)
    question = "/q/{notebook}/{grade_id}"
    routes = [
        Route("/", views.overview),
        Route("/name", views.name_form, methods=["GET"]),
        Route("/name", views.set_name, methods=["POST"]),
        Route("/settings", views.settings, methods=["POST"]),
        Route("/claims/renew", views.claims_renew, methods=["POST"]),
        Route("/claims/give-up", views.claims_give_up, methods=["POST"]),
        Route(question, views.question),
        Route(question + "/next", views.next_answer),
        Route(question + "/share", views.share, methods=["POST"]),
        Route(question + "/a/{key}", views.answer, methods=["GET"]),
        Route(question + "/a/{key}", views.save, methods=["POST"]),
        Route(question + "/g/{group}", views.group, methods=["GET"]),
        Route(question + "/g/{group}", views.group_save, methods=["POST"]),
        Route(question + "/g/{group}/decide", views.group_decide, methods=["POST"]),
        Route(question + "/rubric", views.add_item, methods=["POST"]),
        Route(question + "/rubric/{item}", views.change_item, methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=STATIC), name="static"),
    ]
    if marking.mathjax:
        routes.append(Mount("/mathjax", app=StaticFiles(directory=marking.mathjax), name="mathjax"))
    app = Starlette(routes=routes, max_body_size=MAX_BODY)
    app.state.marking = marking
    return Gate(app, marking)
