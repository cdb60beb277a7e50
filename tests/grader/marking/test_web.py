"""The marking page in process, through Starlette's test client: everything but what needs a browser.

Each test marks a copy of a class's ps2 graded once for the run (``conftest.py``: three written answers of
their own, one code-only submission whose written answers are blank, the untouched release), as TAs would
through the page's forms, each TA a client with its own cookies; then it reads the gradebook.  A request
without the token is refused, a POST without the session's CSRF token changes nothing, a save over a mark
someone changed since it was opened is refused with both marks (409), a rubric item's new points re-score the
answers it is part of and no others, blank answers count as marked 0, names stay hidden until asked for, the
TA who marked is recorded for the report and reaches no student, and an assignment with no written answers
says there is nothing to mark.
"""

import html
import re
import socket
import time
import unittest.mock
import warnings
import zipfile
from html.parser import HTMLParser

import pytest

from autograder.marking.rubrics import RubricError
from autograder.marking.state import SESSION_SECONDS
from autograder.marking.web import Marking, answer_key, create_app, find_mathjax
from autograder.outputs.gradebook import (ANSWERS_TABLE, MarkChange, dump, open_gradebook, page_records, rubric_items,
                                          set_marks)
from tests.support.marking_class import A, D1, D2, STUDENTS, UNTOUCHED, marks_of
from tests.support.released import copy_course

with warnings.catch_warnings():
    # Starlette would rather its test client used the httpx2 fork; the project pins httpx, which it still takes.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

pytestmark = pytest.mark.slow  # the class is graded in the sandbox first (once per run)

TOKEN = "a-test-token-that-nobody-else-knows"
NAMES = [name for name, _, _ in STUDENTS.values()] + [UNTOUCHED[1]]


# -- reading the pages ---------------------------------------------------------------------------------

class Forms(HTMLParser):
    """The forms of a page: each one's ``action`` and its fields as ``(name, value)`` pairs, a checkbox's only
    when it is ticked (``boxes`` lists every checkbox with its label's ``for`` id)."""

    def __init__(self, page):
        super().__init__()
        self.forms, self._form, self._textarea = [], None, None
        self.labels = {}
        self._label = None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self._form = {"action": attrs.get("action"), "id": attrs.get("id"), "fields": [], "boxes": []}
            self.forms.append(self._form)
        elif tag == "input" and self._form is not None and attrs.get("name"):
            if attrs.get("type") == "checkbox":
                self._form["boxes"].append((attrs["name"], attrs.get("value"), "checked" in attrs, attrs.get("id")))
                if "checked" in attrs:
                    self._form["fields"].append((attrs["name"], attrs.get("value", "")))
            else:
                self._form["fields"].append((attrs["name"], attrs.get("value", "")))
        elif tag == "textarea" and self._form is not None:
            self._textarea = [attrs["name"], ""]
        elif tag == "label" and attrs.get("for"):
            self._label = [attrs["for"], ""]

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea[1] += data
        if self._label is not None:
            self._label[1] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "textarea" and self._textarea is not None:
            self._form["fields"].append(tuple(self._textarea))
            self._textarea = None
        elif tag == "label" and self._label is not None:
            self.labels[self._label[0]] = " ".join(self._label[1].split())
            self._label = None

    def form(self, action):
        found = [f for f in self.forms if f["action"] == action]
        assert found, f"the page has no form posting to {action}; its forms post to {[f['action'] for f in self.forms]}"
        return found[0]


def as_data(fields):
    """A form's ``(name, value)`` pairs as the test client posts them (a name given twice, as a list)."""
    data = {}
    for name, value in fields:
        data.setdefault(name, []).append(value)
    return {name: values[0] if len(values) == 1 else values for name, values in data.items()}


def answer_path(student, question=D1):
    return f"/q/{A}/{question}/a/{answer_key(A, student)}"


def flash(page):
    found = re.search(r'id="status"[^>]*>([^<]*)<', page)
    return found.group(1) if found else ""


class TA:
    """A TA's browser: its own cookies (so its own session), logged in with the token, named if ``name``."""

    def __init__(self, app, name=None):
        self.client = TestClient(app)
        self.last = self.client.get(f"/?token={TOKEN}")
        assert self.last.status_code == 200, self.last.text
        if name:
            page = self.client.get("/name?next=/")
            self.last = self.client.post("/name", data={"csrf": self.csrf(page.text), "name": name, "next": "/"})
            assert self.last.status_code == 200, self.last.text

    @staticmethod
    def csrf(page):
        return re.search(r'name="csrf" value="([^"]+)"', page).group(1)

    def open(self, path):
        self.last = self.client.get(path)
        assert self.last.status_code == 200, (path, self.last.status_code, self.last.text[:2000])
        return self.last.text

    def opened(self, student, question=D1):
        """The mark form of an answer as it is now: its fields, and the ids of the rubric items by their text."""
        page = self.open(answer_path(student, question))
        forms = Forms(page)
        form = forms.form(answer_path(student, question))
        items = {re.sub(r"^\d+ [+\u2212]?[\d.]+ ", "", forms.labels[box_id]): value
                 for _, value, _, box_id in form["boxes"]}
        return {"fields": dict(form["fields"]), "items": items, "page": page}

    def save(self, opened, *, items=(), points="", adjustment="", comment="", go="next"):
        """Post the mark form ``opened`` with these marks (rubric items by their text)."""
        fields = opened["fields"]
        data = {"csrf": fields["csrf"], "version": fields["version"], "answer": fields["answer"],
                "item": [opened["items"][text] for text in items], "adjustment": adjustment, "points": points,
                "comment": comment, "go": go}
        self.last = self.client.post(answer_path_of(opened), data=data)
        return self.last

    def mark(self, student, question=D1, **marks):
        response = self.save(self.opened(student, question), **marks)
        assert response.status_code == 200, (response.status_code, response.text[:3000])
        return response

    def add_item(self, points, text, question=D1):
        page = self.open(f"/q/{A}/{question}")
        self.last = self.client.post(f"/q/{A}/{question}/rubric",
                                     data={"csrf": self.csrf(page), "points": points, "text": text})
        return self.last

    def change_item(self, item_id, points, text, question=D1, action="save"):
        page = self.open(f"/q/{A}/{question}")
        self.last = self.client.post(f"/q/{A}/{question}/rubric/{item_id}",
                                     data={"csrf": self.csrf(page), "points": points, "text": text, "action": action})
        return self.last


def answer_path_of(opened):
    return re.search(r'<form method="post" id="mark-form" action="([^"]+)"', opened["page"]).group(1)


# -- fixtures --------------------------------------------------------------------------------------------

@pytest.fixture
def course(graded_class, tmp_path):
    return copy_course(graded_class / "course", tmp_path / "course")


@pytest.fixture
def marking(course):
    mathjax = find_mathjax()
    assert mathjax is not None, ("MathJax is not installed: the marking page serves the book build's copy "
                                 "(_build/.mathjax); run `make install` (book/build.py --install-mathjax) or "
                                 "set BOOK_MATHJAX_DIR")
    marking = Marking(course, A, token=TOKEN, mathjax=mathjax)
    yield marking
    marking.close()


@pytest.fixture
def app(marking):
    return create_app(marking)


def rows(course):
    gb = open_gradebook(str(course))
    try:
        return dump(gb, A)
    finally:
        gb.close()


def items_of(course, question=D1):
    gb = open_gradebook(str(course))
    try:
        return {item.text: item for item in rubric_items(gb, A, A, question)}
    finally:
        gb.close()


# -- the token and CSRF ------------------------------------------------------------------------------------

def test_requests_without_the_token_are_refused(app, marking):
    stranger = TestClient(app)
    for path in ("/", f"/q/{A}/{D1}", answer_path("noether"), "/static/marking.css", "/mathjax/tex-chtml.js",
                 "/?token=not-the-token", "/?token="):
        response = stranger.get(path)
        assert response.status_code == 403, (path, response.status_code)
        assert "noether" not in response.text and "Question D1" not in response.text
    assert stranger.post("/name", data={"name": "Mallory"}).status_code == 403

    visit = stranger.get(f"/?token={TOKEN}", follow_redirects=False)
    assert visit.status_code == 303 and visit.headers["location"] == "/", "the token leaves the address bar"
    cookie = visit.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and TOKEN.lower() not in cookie
    assert f"max-age={SESSION_SECONDS}" in cookie, "the session outlives the browser: a restart after a crash"
    for path in ("/", "/static/marking.css", "/mathjax/tex-chtml.js"):
        assert stranger.get(path).status_code == 200, path
    headers = stranger.get("/").headers
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["referrer-policy"] == "no-referrer" and headers["cache-control"] == "no-store"
    assert stranger.get("/mathjax/tex-chtml.js").headers["cache-control"] == "private, max-age=3600"



def test_a_restarted_server_keeps_its_address_and_its_tabs(course):
    """The token and the signing secret outlive a restart (kept 0600 in the course), so an open tab's session
    goes on, its TA's name included; ``--new-token`` ends every earlier address and session."""
    first = Marking(str(course), A)
    try:
        tab = TestClient(create_app(first))
        tab.get(f"/?token={first.token}")
        assert tab.post("/name", data={"name": "Tess", "next": "/", "csrf": _csrf_of(tab)}).status_code == 200
        token = first.token
    finally:
        first.close()
    secret = course / ".autograder" / "marking-secret.json"
    assert secret.stat().st_mode & 0o777 == 0o600 and len(token) >= 40

    again = Marking(str(course), A)
    try:
        assert again.token == token
        restarted = TestClient(create_app(again), cookies=tab.cookies)
        page = restarted.get("/")
        assert page.status_code == 200 and "Marking as <strong>Tess</strong>" in page.text
    finally:
        again.close()

    # A week after the token's address was opened, its cookie lets no one in (the browser drops it then too);
    # opening the address again before then renews the same session for another week.
    later = Marking(str(course), A)
    try:
        now = time.time()
        with unittest.mock.patch("time.time", return_value=now + SESSION_SECONDS + 60):
            expired = TestClient(create_app(later), cookies=tab.cookies).get("/")
        assert expired.status_code == 403
        renewed = TestClient(create_app(later), cookies=tab.cookies)
        with unittest.mock.patch("time.time", return_value=now + SESSION_SECONDS - 3600):
            assert renewed.get(f"/?token={token}").status_code == 200
        with unittest.mock.patch("time.time", return_value=now + SESSION_SECONDS + 60):
            page = renewed.get("/")
        assert page.status_code == 200 and "Marking as <strong>Tess</strong>" in page.text
    finally:
        later.close()

    fresh = Marking(str(course), A, new_token=True)
    try:
        assert len(fresh.token) >= 40 and fresh.token != token
        refused = TestClient(create_app(fresh), cookies=tab.cookies).get("/")
        assert refused.status_code == 403 and "--new-token" in refused.text
    finally:
        fresh.close()


def _csrf_of(client):
    import re

    return re.search(r'name="csrf" value="([^"]+)"', client.get("/name").text).group(1)


def test_every_form_post_needs_its_session_s_csrf_token(app, course):
    tess, grace = TA(app, "Tess"), TA(app, "Grace")
    before = rows(course)
    opened = tess.opened("noether")
    path = answer_path("noether")
    base = {"version": opened["fields"]["version"], "answer": opened["fields"]["answer"], "points": "2",
            "comment": "Forged."}
    real = opened["fields"]["csrf"]
    # Another session's token, and this session's with its last character changed (to another character).
    for csrf in ("", grace.csrf(grace.open("/")), real[:-1] + ("1" if real.endswith("0") else "0")):
        response = tess.client.post(path, data={**base, "csrf": csrf})
        assert response.status_code == 403 and "Nothing was changed" in response.text
    assert tess.client.post(f"/q/{A}/{D1}/rubric", data={"points": "1", "text": "Forged"}).status_code == 403
    assert tess.client.post("/settings", data={"names": "show"}).status_code == 403
    assert rows(course) == before
    assert items_of(course) == {}
    assert "Emmy Noether" not in tess.open(f"/q/{A}/{D1}")


# -- two TAs at once ----------------------------------------------------------------------------------------

def test_a_save_over_someone_else_s_change_is_refused_with_both_marks(app, course):
    tess, grace = TA(app, "Tess"), TA(app, "Grace")
    tess_form = tess.opened("noether")
    grace.mark("noether", points="2", comment="Complete, with the update rule.")

    refused = tess.save(tess_form, points="1", comment="Say why the online setting matters.")
    assert refused.status_code == 409
    page = refused.text
    assert "Not saved" in page and "Someone else saved a mark" in page
    theirs, yours = page.index("now in the gradebook"), page.index("yours, not saved")
    assert theirs < yours
    assert "2 / 2" in page and "Complete, with the update rule." in page and "Grace" in page
    assert "1 / 2" in page and "Say why the online setting matters." in page
    assert marks_of(course)["noether"][:3] == (2.0, "Complete, with the update rule.", "Grace"), "theirs is untouched"

    # Tess chooses hers: the conflict page's form carries the mark's version now.
    override = Forms(page).form(answer_path("noether"))
    response = tess.client.post(answer_path("noether"), data=as_data(override["fields"]))
    assert response.status_code == 200 and "Saved answer" in flash(response.text)
    assert marks_of(course)["noether"][:3] == (1.0, "Say why the online setting matters.", "Tess")

    # Saving exactly what is there already is no conflict, however old the form.
    again = tess.save(tess_form, points="1", comment="Say why the online setting matters.")
    assert again.status_code == 200 and "already marked so" in flash(again.text)


def test_a_save_of_an_answer_the_student_changed_since_is_refused(app, course):
    tess = TA(app, "Tess")
    opened = tess.opened("turing")
    gb = open_gradebook(str(course))
    try:  # as a regrade of a resubmission records it
        from sqlalchemy import text
        gb.db.execute(text(f"UPDATE {ANSWERS_TABLE} SET checksum = :c WHERE student = 'turing' AND cell = :q"),
                      {"c": "0" * 32, "q": D1})
        gb.db.commit()
    finally:
        gb.close()
    refused = tess.save(opened, points="2", comment="Right.")
    assert refused.status_code == 409
    assert "answer itself changed" in refused.text and "Save mine over theirs" not in refused.text
    assert marks_of(course)["turing"][0] is None


# -- the rubric ----------------------------------------------------------------------------------------------

def test_changing_an_item_s_points_rescores_every_answer_it_was_applied_to(app, course):
    tess = TA(app, "Tess")
    for points, text in (("2", "Correct and complete"), ("-0.5", "No reason given"), ("1", "Unused")):
        assert "Added rubric item" in flash(tess.add_item(points, text).text)
    tess.mark("noether", items=("Correct and complete", "No reason given"), comment="Why?")
    tess.mark("turing", items=("Correct and complete",))
    tess.mark("lovelace", points="1.5", comment="Typed.")
    tess.mark("hopper", items=("No reason given",), adjustment="0.25")
    assert {s: m[0] for s, m in marks_of(course).items()} == {
        "noether": 1.5, "turing": 2.0, "lovelace": 1.5, "hopper": 0.25, "babbage": 0.0}

    items = items_of(course)
    response = tess.change_item(items["No reason given"].id, "-1", "No reason given")
    assert "Re-scored the 2 answers it is part of; 1 mark changed" in flash(response.text)
    assert {s: m[0] for s, m in marks_of(course).items()} == {
        "noether": 1.0, "turing": 2.0, "lovelace": 1.5, "hopper": 0.25, "babbage": 0.0}, \
        "hopper's -1 clamps to 0 before the adjustment; typed marks are untouched"
    assert marks_of(course)["noether"][1:] == ("Why?", "Tess", ("Correct and complete", "No reason given"))

    # A mark changed elsewhere (the CSV route) is no longer the rubric's: a new weight leaves it alone.
    gb = open_gradebook(str(course))
    try:
        set_marks(gb, A, [MarkChange("turing", A, D1, 1.75, "From the CSV.")])
    finally:
        gb.close()
    response = tess.change_item(items["Correct and complete"].id, "1.5", "Correct and complete")
    assert "Re-scored the 1 answer it is part of; 1 mark changed" in flash(response.text)
    marks = marks_of(course)
    assert (marks["noether"][0], marks["turing"][:3]) == (0.5, (1.75, "From the CSV.", ""))

    deleting = tess.change_item(items["No reason given"].id, "-1", "No reason given", action="delete")
    assert "not changed" in flash(deleting.text) and "part of the mark of 2 answers" in flash(deleting.text)
    assert "Deleted" in flash(tess.change_item(items["Unused"].id, "1", "Unused", action="delete").text)
    assert set(items_of(course)) == {"Correct and complete", "No reason given"}


def test_marks_and_items_that_cannot_be_are_refused_and_what_was_typed_is_kept(app, course):
    tess = TA(app, "Tess")
    before = rows(course)
    for points, adjustment, message in (("3", "", "the points 3 is outside 0 to 2"),
                                        ("1,5", "", "write the decimal mark as a point"),
                                        ("", "0.5", "an adjustment changes the points of the rubric items")):
        response = tess.save(tess.opened("noether"), points=points, adjustment=adjustment,
                             comment="Kept <as typed>.")
        assert response.status_code == 400 and message in response.text, response.text[:3000]
        assert "Kept &lt;as typed&gt;." in response.text
    assert "outside -2 to 2" in flash(tess.add_item("5", "Too much").text)
    assert "needs a text" in flash(tess.add_item("1", "   ").text)
    assert rows(course) == before and items_of(course) == {}
    with pytest.raises(RubricError, match="give your name first"):
        from autograder.marking.rubrics import save_mark
        gb = open_gradebook(str(course))
        try:
            save_mark(gb, A, student_id="noether", notebook=A, grade_id=D1, expected="", answer_checksum="",
                      item_ids=[], adjustment=None, points=1.0, comment="", marker="")
        finally:
            gb.close()


def test_a_refused_rubric_item_or_comment_comes_back_as_typed_with_the_field_to_mend_marked(app, course):
    from autograder.marking.rubrics import MAX_COMMENT

    tess = TA(app, "Tess")

    def field(page, element_id):
        return re.search(rf'<(?:input|textarea)[^>]* id="{element_id}"[^>]*>', page).group(0)

    page = tess.add_item("1/2", "Clear <reasoning>").text
    assert "The item was not added: the item's points '1/2' is not a number" in html.unescape(flash(page))
    points, text = field(page, "new-points"), field(page, "new-text")
    assert 'value="1/2"' in points and 'aria-invalid="true" aria-describedby="status"' in points
    assert 'value="Clear &lt;reasoning&gt;"' in text and "aria-invalid" not in text
    assert '<details class="panel rubric-editor" id="rubric-editor" open>' in page
    again = field(tess.open(f"/q/{A}/{D1}"), "new-points")
    assert 'value=""' in again and "aria-invalid" not in again, "what was typed comes back once, with the message"
    # Refused on D1's page, while another tab opens D2's: D2's rubric form is not filled with D1's item.
    page = tess.open(f"/q/{A}/{D1}")
    tess.client.post(f"/q/{A}/{D1}/rubric", data={"csrf": tess.csrf(page), "points": "1/2", "text": "Meant for D1"},
                     follow_redirects=False)
    other = tess.open(f"/q/{A}/{D2}")
    assert "Meant for D1" not in other and "aria-invalid" not in field(other, "new-points")

    page = tess.add_item("1", "   ").text
    assert 'aria-invalid="true"' in field(page, "new-text") and "aria-invalid" not in field(page, "new-points")
    assert 'value="1"' in field(page, "new-points")

    assert "Added rubric item" in flash(tess.add_item("1", "Correct").text)
    item = items_of(course)["Correct"]
    page = tess.change_item(item.id, "9", "Correct, with reasons").text
    assert "The rubric item was not changed: the item's points 9 is outside -2 to 2" in html.unescape(flash(page))
    assert 'value="9"' in field(page, f"edit-points-{item.id}")
    assert 'aria-invalid="true"' in field(page, f"edit-points-{item.id}")
    assert 'value="Correct, with reasons"' in field(page, f"edit-text-{item.id}")
    assert 'value=""' in field(page, "new-points"), "only the refused form comes back as typed"
    assert (items_of(course)["Correct"].points, items_of(course)["Correct"].text) == (1.0, "Correct")

    # The mark form marks the field its refusal is about: here the comment, which keeps its text unselected.
    response = tess.save(tess.opened("noether"), points="1", comment="x" * (MAX_COMMENT + 1))
    assert response.status_code == 400 and "the comment has" in response.text
    comment = field(response.text, "comment")
    assert 'aria-invalid="true" aria-describedby="form-error"' in comment
    assert "aria-invalid" not in field(response.text, "points")
    assert 'aria-describedby="form-error"' not in field(response.text, "points")


# -- what the page shows ----------------------------------------------------------------------------------

def test_blank_answers_are_marked_zero_already_and_count_as_marked(app, course):
    tess = TA(app, "Tess")
    overview = tess.open("/")
    assert re.search(r"D1: 2 of 5 answers marked", overview), "hopper's and babbage's blank answers"
    page = tess.open(answer_path("hopper"))
    assert "No answer was written." in page and "badge-blank" in page and "Mark: 0 / 2" in page
    tess.mark("hopper", comment="Read section 2 of the notes.")
    assert marks_of(course)["hopper"][:2] == (0.0, "Read section 2 of the notes.")
    gb = open_gradebook(str(course))
    try:
        grade = gb.find_grade(D1, A, A, "hopper")
        assert (grade.manual_score, grade.auto_score) == (None, 0.0), "a comment alone keeps the blank's 0"
    finally:
        gb.close()
    for student in ("lovelace", "noether", "turing"):
        tess.mark(student, points="2")
    done = tess.open(f"/q/{A}/{D1}")
    assert "5 of 5 answers marked" in done and "Mark the next answer" not in done


def test_students_names_are_hidden_until_a_ta_asks(app):
    tess, grace = TA(app, "Tess"), TA(app, "Grace")
    pages = ["/", f"/q/{A}/{D1}", answer_path("noether"), answer_path("babbage", D2)]
    for path in pages:
        page = tess.open(path)
        assert not [name for name in NAMES if name in page], path
        assert not re.search(r"\b(lovelace|noether|turing|hopper|babbage)\b", page), path
    listed = tess.open(f"/q/{A}/{D1}")
    order = re.findall(r">Answer (\d+)<", listed)
    assert order == ["1", "2", "3", "4", "5"]

    shown = tess.client.post("/settings", data={"csrf": tess.csrf(listed), "names": "show", "back": f"/q/{A}/{D1}"})
    assert "names are shown" in flash(shown.text)
    assert "Emmy Noether (noether)" in shown.text and "Charles Babbage (babbage)" in shown.text
    assert "Emmy Noether" in tess.open(answer_path("noether"))
    assert "Emmy Noether" not in grace.open(f"/q/{A}/{D1}"), "each TA's own choice"


def test_the_answer_page_shows_the_question_the_model_answer_the_rendered_answer_and_the_keys(app):
    tess = TA(app, "Tess")
    page = tess.open(answer_path("noether"))
    assert "Question D1 (2 points)." in page and "The model answer (for markers only)" in page
    assert '<span class="math inline">\\(\\hat y_t = \\operatorname{sign}(w_t \\cdot x_t)\\)</span>' in page
    assert '<div class="math block">\n\\[w_{t+1} = w_t + y_t x_t\\]' in page
    assert '<script src="/mathjax/tex-chtml.js" defer></script>' in page
    assert not re.search(r'(src|href)="(https?:)?//', page), "nothing from another site"
    assert page.index('id="answer-heading"') < page.index('id="question-heading"') < page.index('id="model"'), \
        "the student's answer comes first, where the TA lands; the question and the model answer after it"
    keys = page[page.index('id="keys"'):]
    for key in ("<kbd>j</kbd>", "<kbd>n</kbd>", "<kbd>k</kbd>", "<kbd>p</kbd>", "<kbd>1</kbd> to <kbd>9</kbd>",
                "<kbd>s</kbd>", "<kbd>Ctrl</kbd>+<kbd>Enter</kbd>", "<kbd>c</kbd>", "<kbd>Esc</kbd>", "<kbd>m</kbd>",
                "<kbd>o</kbd>", "<kbd>g</kbd>", "<kbd>q</kbd>"):
        assert key in keys, key
    assert "<title>D1: answer" in page and "written_online_batch:" not in page, "named as the notebook names it"
    middle = sorted(list(STUDENTS) + [UNTOUCHED[0]], key=lambda student: answer_key(A, student))[2]
    page = tess.open(answer_path(middle))
    assert 'id="next" rel="next"' in page and 'id="previous" rel="prev"' in page and "answer 3 of 5" in page
    assert "2 of 5 marked." in page


def test_a_ta_is_asked_a_name_once_and_the_report_shows_each_ta_s_marks(app, course, graded_class, tmp_path):
    from autograder.commands.export import main as export

    tess = TA(app)
    asked = tess.client.get(answer_path("noether"), follow_redirects=False)
    assert asked.status_code == 303 and asked.headers["location"].startswith("/name?next=")
    named = tess.client.post("/name", data={"csrf": tess.csrf(tess.open(asked.headers["location"])),
                                            "name": "Tess Ta", "next": answer_path("noether")})
    assert "Marking as Tess Ta" in named.text and str(named.url).endswith(answer_path("noether"))
    grace = TA(app, "Grace Ta")

    tess.add_item("2", "Correct and complete")
    tess.add_item("-0.5", "No reason given")
    tess.mark("noether", items=("Correct and complete", "No reason given"))
    tess.mark("turing", items=("Correct and complete",))
    grace.mark("lovelace", points="1", comment="Needs the mistake count.")
    for student in ("noether", "turing", "lovelace"):
        tess.mark(student, D2, points="2")
    gb = open_gradebook(str(course))
    try:
        records = page_records(gb, A)
        assert records["noether", A, D1].marker == "Tess Ta" and records["lovelace", A, D1].marker == "Grace Ta"
    finally:
        gb.close()

    out = copy_course(graded_class / "out", tmp_path / "out")
    assert export([str(out), "--course-dir", str(course)]) == 0
    report = (out / "report.html").read_text(encoding="utf-8")
    each = report[report.index("Each TA's marks"):report.index("Rubric items used")]
    assert re.search(rf"<code>{D1}</code></td><td>Grace Ta</td><td class=\"num\">1</td><td class=\"num\">1.00", each)
    assert re.search(rf"<code>{D1}</code></td><td>Tess Ta</td><td class=\"num\">2</td><td class=\"num\">1.75", each)
    assert D2 not in each, "one TA marked D2"
    used = report[report.index("Rubric items used"):]
    assert re.search(r"<td class=\"num\">\+2</td><td class=\"comment\">Correct and complete</td>"
                     r"<td class=\"num\">2 of 2</td>", used)
    received = {}
    for path in out.rglob("*"):
        if path.is_file() and path.name not in ("report.html", "grading_run.json"):
            if path.suffix == ".zip":
                with zipfile.ZipFile(path) as zf:
                    received.update({f"{path.name}/{n}": zf.read(n).decode("utf-8", "replace") for n in zf.namelist()})
            else:
                received[path.name] = path.read_text(encoding="utf-8", errors="replace")
    assert "Needs the mistake count." in "".join(received.values()), "the comments reach the students"
    assert not [name for name, text in received.items() if "Tess Ta" in text or "Grace Ta" in text]


def test_a_fixed_ta_is_never_asked(course):
    marking = Marking(course, A, token=TOKEN, ta="  Ann   Other ")
    try:
        ann = TA(create_app(marking))
        assert "Marking as <strong>Ann Other</strong>" in ann.open("/")
        assert ann.client.get("/name", follow_redirects=False).status_code == 303
        ann.mark("turing", points="0.5")
        assert marks_of(course)["turing"][2] == "Ann Other"
    finally:
        marking.close()


def test_an_assignment_with_no_written_answers_has_nothing_to_mark_and_one_without_submissions_says_so(course):
    from nbgrader.api import Gradebook

    gb = Gradebook(f"sqlite:///{course / 'gradebook.db'}", course_id="")
    try:
        gb.add_assignment("lab0")
        gb.add_notebook("lab0", "lab0")
        gb.add_grade_cell("check_total", "lab0", "lab0", max_score=1, cell_type="code")
    finally:
        gb.close()
    marking = Marking(course, "lab0", token=TOKEN)
    try:
        tess = TA(create_app(marking), "Tess")
        page = tess.open("/")
        assert "lab0 has no written answers" in page and "nothing to mark" in page
        assert tess.client.get("/q/lab0/check_total").status_code == 404
    finally:
        marking.close()
    marking = Marking(course, "ps1_hyperplanes", token=TOKEN)
    try:
        assert "No submission of ps1_hyperplanes has been graded yet" in TA(create_app(marking), "Tess").open("/")
    finally:
        marking.close()


def test_the_command_says_why_it_cannot_serve(course, capsys):
    from autograder.commands.mark import main as mark

    assert mark(["ps9_unknown", "--course-dir", str(course)]) == 2
    assert "does not know the assignment 'ps9_unknown'" in capsys.readouterr().err
    assert mark([A, "--course-dir", str(course), "--to-csv", str(course / "x.csv"), "--port", "9000"]) == 2
    assert "--port, --ta, --new-token and --no-starting-rubric are options of the marking page" \
        in capsys.readouterr().err
    assert mark([A, "--course-dir", str(course), "--port", "70000"]) == 2
    assert "--port 70000 is not a port" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert mark([A, "--course-dir", str(course), "--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1, port {port}" in capsys.readouterr().err
