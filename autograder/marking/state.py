"""The marking server's state: the course, the gradebook's marks as the page shows them, the TAs' sessions.

:class:`Marking` is one marking server: it reads every written question and
its answers' marks from the gradebook (:class:`QuestionState`, one
:class:`Row` per answer), keeps them until the gradebook changes, groups
each question's answers (:mod:`autograder.marking.groups`), and knows which
answers other markers have open (:mod:`autograder.marking.claims`).  The
views (:mod:`autograder.marking.web`) show it; the rules of a mark are in
:mod:`autograder.marking.rubrics`.

The page's token and the secret its sessions and forms are signed with are
kept in ``<course>/.autograder/marking-secret.json`` (mode 0600), so that a
restarted server takes the address it printed before, and the tabs it
opened, until the instructor asks for a new token (``mark --new-token``).
"""

import dataclasses
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass, field

from autograder.course import ROOT
from autograder.marking import rubrics

__all__ = ["Marking", "Session", "Row", "QuestionState", "find_mathjax", "answer_key", "MAX_NAME", "SESSION_SECONDS"]

MAX_NAME = 80
# How long a session's cookie lets its browser in, from when the token's address was opened: a week of marking,
# through browser restarts; then the address with the token again.
SESSION_SECONDS = 7 * 24 * 3600


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
    """One browser's session: the TA's name, whether it shows students' names, which part of each question it
    marks (``{question key: (part, parts)}``), and a message for its next page."""

    id: str
    ta: str = ""
    show_names: bool = False
    flash: tuple = None  # (kind, text): kind "status" or "alert"
    shares: dict = field(default_factory=dict)
    saved: str = None  # the path of the form whose mark was just saved: its draft in the browser is done with
    issued: int = 0  # when the token's address was opened (seconds since the epoch): the cookie's age is from it
    # A rubric form the server refused, for the next page of its question to show again as typed: {"question":
    # the question's path, "form": "new" or the item's id, "values": {field: text}, "field": the field to mend}.
    rubric_form: dict = None


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

    def next_to_mark(self, after=None, *, taken=(), share=None):
        """The first answer still to be marked after ``after`` (a row, never the answer given), going round to
        the start, passing over the students in ``taken`` (answers other markers have open) and, with
        ``share`` = ``(part, parts)``, over the answers outside that part of the list."""
        rows = self.rows if share is None else self.share(*share)
        start = 0 if after is None or after not in rows else rows.index(after) + 1
        ordered = rows[start:] + rows[:start]
        return next((row for row in ordered if not row.done and row is not after and row.student_id not in taken),
                    None)

    def share(self, part, parts):
        """The answers of part ``part`` (from 1) when the list is cut into ``parts`` runs as even as can be."""
        count = len(self.rows)
        return self.rows[(part - 1) * count // parts:part * count // parts]


def _secrets(course_dir, token, *, new):
    """The page's token and signing secret: kept in ``.autograder/marking-secret.json`` (0600) across restarts;
    made afresh when there is none, when ``new``, or when the file cannot be read.  A token given (the tests')
    is used as it is, with a secret of its own."""
    if token:
        return token, secrets.token_bytes(32)
    folder = os.path.join(course_dir, ".autograder")
    path = os.path.join(folder, "marking-secret.json")
    if not new:
        try:
            with open(path, encoding="utf-8") as handle:
                kept = json.load(handle)
            return str(kept["token"]), bytes.fromhex(kept["secret"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    token, secret = secrets.token_urlsafe(32), secrets.token_bytes(32)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    staged = f"{path}.{os.getpid()}.tmp"
    descriptor = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump({"token": token, "secret": secret.hex()}, handle)
    os.replace(staged, path)
    return token, secret


class Marking:
    """The state of one marking server: its course and assignment, the gradebook, the sessions, the secrets."""

    def __init__(self, course_dir, assignment, *, token=None, ta=None, mathjax=None, new_token=False):
        from autograder.marking.claims import Claims
        from autograder.outputs.gradebook import assignment_info, open_gradebook

        self.course_dir = os.path.abspath(course_dir)
        self.assignment = assignment
        self.fixed_ta = " ".join((ta or "").split())[:MAX_NAME]
        self.mathjax = mathjax
        self.token, self.secret = _secrets(self.course_dir, token, new=new_token)
        self.cookie = "marking-" + hashlib.sha256(self.token.encode("utf-8")).hexdigest()[:12]
        self.sessions = {}
        self.lock = threading.Lock()
        self._questions = (None, None)
        self._state = (None, None)
        self._texts = {}
        self._groups = {}
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
        self.claims = Claims(self.course_dir)

    def close(self):
        self.claims.close()
        self._watch.close()
        self.gb.close()

    # -- sessions and tokens -----------------------------------------------------------------

    def token_ok(self, token):
        return hmac.compare_digest(token.encode("utf-8"), self.token.encode("utf-8"))

    def new_session(self):
        session = Session(secrets.token_urlsafe(24), ta=self.fixed_ta, issued=int(time.time()))
        self.sessions[session.id] = session
        return session

    def _signature(self, text):
        return hmac.new(self.secret, f"session\0{text}".encode("utf-8"), hashlib.sha256).hexdigest()[:32]

    def session_cookie(self, session):
        """The cookie that names ``session``, its TA and its settings, signed: a restarted server reads it back."""
        import base64

        payload = base64.urlsafe_b64encode(json.dumps([session.id, session.ta, session.show_names,
                                                       session.issued]).encode("utf-8"))
        text = payload.decode("ascii")
        return f"{text}.{self._signature(text)}"

    def session_of(self, cookie):
        """The session a cookie names, made again from the cookie after a restart; ``None`` if it is not ours."""
        import base64

        text, _, signature = (cookie or "").rpartition(".")
        if not text or not hmac.compare_digest(signature.encode("ascii", "replace"),
                                               self._signature(text).encode("ascii")):
            return None
        try:
            session_id, ta, show_names, issued = json.loads(base64.urlsafe_b64decode(text.encode("ascii")))
            issued = int(issued)
        except (ValueError, TypeError):
            return None  # not ours, or an earlier version's cookie, which says not when it was issued
        if time.time() - issued > SESSION_SECONDS:
            return None
        session = self.sessions.get(session_id)
        if session is None:
            name = self.fixed_ta or " ".join(str(ta).split())[:MAX_NAME]
            session = self.sessions[session_id] = Session(str(session_id), ta=name, show_names=bool(show_names),
                                                          issued=issued)
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
        from autograder.marking.answers import read_questions
        from autograder.outputs.gradebook import assignment_info

        info = assignment_info(gb, self.assignment)
        stamps = []
        for notebook in info:
            for part in ("release", "source"):
                path = os.path.join(self.course_dir, part, self.assignment, f"{notebook}.ipynb")
                stamps.append(os.stat(path).st_mtime_ns if os.path.isfile(path) else None)
        signature = (repr(info), tuple(stamps))
        if self._questions[0] != signature:
            self._questions = (signature, read_questions(self.course_dir, self.assignment, info))
        return self._questions[1]

    def data_version(self):
        return self._watch.execute("PRAGMA data_version").fetchone()[0]

    def saved(self, gb, student_ids, before):
        """After this server saved marks of ``student_ids`` (one id, or several: a group; the gradebook's data
        version being ``before`` just before): those students' answers read again, and the rest kept, unless
        someone else wrote the gradebook since the state was read (then all of it is read again next time)."""
        from autograder.outputs.gradebook import page_records, written_marks

        wanted = {student_ids} if isinstance(student_ids, str) else set(student_ids)
        signature, states = self._state
        if states is None or signature[0] != before:
            self._state = (None, None)
            return
        if len(wanted) == 1:
            student_id = next(iter(wanted))
            marks = written_marks(gb, self.assignment, student_id)
            records = page_records(gb, self.assignment, student_id)
        else:
            marks, records = written_marks(gb, self.assignment, wanted), page_records(gb, self.assignment, wanted)
        fresh = []
        for state in states:
            rows = []
            for row in state.rows:
                if row.student_id in wanted:
                    mark = next((m for m in marks.get(row.student_id, ()) if (m.notebook, m.grade_id) == state.key),
                                None)
                    if mark is None:
                        self._state = (None, None)
                        return
                    record = records.get((row.student_id, *state.key))
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

    def notebook_of(self, student_id, notebook):
        """A student's autograded notebook as the trust boundary parses it (``None`` when there is none or it
        cannot be read), kept until the file changes."""
        from autograder.boundary.notebook import parse_notebook, read_untrusted_file

        path = os.path.join(self.course_dir, "autograded", student_id, self.assignment, f"{notebook}.ipynb")
        try:
            stat = os.stat(path)
        except OSError:
            return None
        stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
        kept = self._texts.get((student_id, notebook))
        if kept is not None and kept[0] == stamp:
            return kept[1]
        data, problem = read_untrusted_file(path, self.limits().executed_notebook_bytes)
        nb, problem = (None, problem) if problem else parse_notebook(data)
        nb = None if problem else nb
        self._texts[(student_id, notebook)] = (stamp, nb)
        return nb

    def limits(self):
        """The course's limits (its ``nbgrader_config.py``'s, else the defaults), read again only when that
        file changes: every notebook read is held to them."""
        from autograder.course.limits import load_limits
        from perceptron_course.limits import Limits, LimitsError

        config = os.path.join(self.course_dir, "nbgrader_config.py")
        try:
            stamp = os.stat(config).st_mtime_ns
        except OSError:
            stamp = None
        if getattr(self, "_limits", (object(), None))[0] != stamp:
            try:
                found = load_limits(self.course_dir)
            except LimitsError:
                found = Limits()
            self._limits = (stamp, found)
        return self._limits[1]

    def answer_text(self, student_id, notebook, grade_id):
        """The student's answer as graded (from the autograded notebook, read as untrusted), or ``""``."""
        nb = self.notebook_of(student_id, notebook)
        if nb is None:
            return ""
        return next((cell.source for cell in nb.cells if cell.grade_id == grade_id), "").strip()

    def answer_texts(self, question, rows):
        """``{student_id: text}`` of the answers of ``rows`` to ``question`` that are not blank."""
        return {row.student_id: self.answer_text(row.student_id, question.notebook, question.grade_id)
                for row in rows if not row.mark.blank}

    def groups(self, gb, state):
        """The answer groups of one question (:func:`autograder.marking.groups.find_groups`), largest first,
        found again only when an answer, a mark or a TA's decision changed."""
        from autograder.marking.groups import decisions, find_groups

        question = state.question
        decided = decisions(gb, self.assignment, question.notebook, question.grade_id)
        # Grouping reads the answers and the decisions, never the marks: a mark given keeps the groups, with
        # each member's row brought up to date.
        signature = (tuple((row.student_id, row.mark.checksum, row.mark.blank) for row in state.rows),
                     tuple(sorted(decided.items())))
        kept = self._groups.get(state.key)
        if kept is None or kept[0] != signature:
            texts = self.answer_texts(question, state.rows)
            kept = self._groups[state.key] = (signature, find_groups(state.rows, texts, decided))
            return kept[1]
        rows = {row.student_id: row for row in state.rows}
        for group in kept[1]:
            group.rows = [rows[row.student_id] for row in group.rows]
        return kept[1]

    def warm(self):
        """Read every answer and group every question now (``mark`` does it before it prints the address), so
        that no TA's first page waits for it; return the questions' states."""
        def read(gb):
            states = self.state(gb)
            for state in states:
                self.groups(gb, state)
            return states

        return self.with_gradebook(read)

    def wrote(self, before):
        """After this server wrote what the state does not show (a group decision) while the gradebook's data
        version was ``before``: the state is kept, unless someone else wrote the gradebook since."""
        signature, states = self._state
        if states is not None and signature[0] == before:
            self._state = ((self.data_version(), signature[1]), states)
        else:
            self._state = (None, None)

    def notebook_cells(self, student_id, notebook):
        """The cells of a student's graded notebook, each with what it printed when it ran (code cells):
        ``[(SubmittedCell, (CellOutput, ...))]``, read as untrusted; ``[]`` when there is no such notebook."""
        from autograder.boundary.from_sandbox import read_executed_cells

        nb = self.notebook_of(student_id, notebook)
        if nb is None:
            return []
        limits = self.limits()
        path = os.path.join(self.course_dir, "autograded", student_id, self.assignment, f"{notebook}.ipynb")
        ran = read_executed_cells(path, [cell.kind for cell in nb.cells], max_bytes=limits.executed_notebook_bytes,
                                  cell_output_chars=limits.cell_output_bytes,
                                  total_output_chars=limits.total_output_bytes)
        return [(cell, executed.outputs if executed is not None else ()) for cell, executed in zip(nb.cells, ran)]

    def earlier_answer(self, student_id, notebook, grade_id, checksum):
        """The text of the answer an earlier mark was given to (its ``checksum``), when the notebook a regrade
        replaced is kept and holds that answer (:func:`autograder.outputs.record.earlier_path`); else ``None``."""
        from autograder.boundary.notebook import parse_notebook, read_untrusted_file
        from autograder.judging.integrity import answer_checksum
        from autograder.outputs.record import earlier_path

        if not checksum:
            return None
        path = earlier_path(self.course_dir, student_id, self.assignment, f"{notebook}.ipynb")
        if not os.path.isfile(path):
            return None
        data, problem = read_untrusted_file(path, self.limits().executed_notebook_bytes)
        nb, problem = (None, problem) if problem else parse_notebook(data)
        if problem:
            return None
        text = next((cell.source for cell in nb.cells if cell.grade_id == grade_id), None)
        return text.strip() if text is not None and answer_checksum(text) == checksum else None
