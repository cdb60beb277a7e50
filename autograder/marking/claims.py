"""Claims: which answers each marker has open, so that "the next to mark" never sends two TAs to one answer.

Opening an answer (or a group) on the marking page claims it for that
browser's session for :data:`CLAIM_SECONDS`; the page renews the claim while
it stays open (``static/marking.js``), and saving or leaving gives it up.
Each claim names the page that holds it, so that leaving one page (a reload
included, whose leaving the server may hear of after the new page claimed the
answer again) gives up only what that page held.  "The next to mark" passes
over answers another marker holds, and the page shows who else is marking the
same question.  Claims are a session's: the page's session outlives the
browser (its cookie is kept for a week), so a browser closed without leaving
its page (a crash, a laptop shut) finds its claims its own when it is opened
again.  (Two markers may type the same name, so a name never stands for a
session.)  A claim is only a courtesy
between markers: it never refuses a save; the gradebook's check of the mark
a form showed (:func:`autograder.marking.rubrics.save_marks`) still catches
every conflicting save.

Claims are shared by every marking server of one course, on one machine or
several that share the course folder, through a small SQLite file of their
own, ``<course>/.autograder/marking-claims.sqlite``: they change at every
page a TA opens, and keeping them out of the gradebook keeps the gradebook's
readers from reading every mark again each time.  Nothing in it outlives
:data:`CLAIM_SECONDS`; losing the file loses nothing but the courtesy.
"""

import os
import sqlite3
import threading
import time
from dataclasses import dataclass

__all__ = ["CLAIM_SECONDS", "Claim", "Claims"]

CLAIM_SECONDS = 300.0

_SCHEMA = """
CREATE TABLE IF NOT EXISTS page_claims (
    assignment TEXT NOT NULL, notebook TEXT NOT NULL, cell TEXT NOT NULL, student TEXT NOT NULL,
    session TEXT NOT NULL, marker TEXT NOT NULL, until REAL NOT NULL, page TEXT NOT NULL,
    PRIMARY KEY (assignment, notebook, cell, student))
"""


@dataclass(frozen=True)
class Claim:
    """An answer a marker has open: whose session, the marker's name, until when (seconds since the epoch), and the
    page that holds it."""

    student_id: str
    session: str
    marker: str
    until: float
    page: str = ""


class Claims:
    """The claims of one course's marking servers, in ``<course_dir>/.autograder/marking-claims.sqlite``."""

    def __init__(self, course_dir, *, clock=time.time):
        folder = os.path.join(course_dir, ".autograder")
        os.makedirs(folder, mode=0o700, exist_ok=True)
        self.path = os.path.join(folder, "marking-claims.sqlite")
        self.clock = clock
        self._lock = threading.Lock()
        self._db = sqlite3.connect(self.path, timeout=10, check_same_thread=False, isolation_level=None)
        os.chmod(self.path, 0o600)
        self._db.execute("PRAGMA journal_mode=WAL")
        # A table of its own, beside the one an earlier version's servers may still be using (``claims``, without
        # pages), so that neither breaks the other while a course's servers are upgraded one by one.
        self._db.execute(_SCHEMA)

    def close(self):
        self._db.close()

    def _write(self, statements):
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for sql, parameters in statements:
                    self._db.execute(sql, parameters)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    def hold(self, assignment, notebook, grade_id, student_ids, *, session, marker, page="",
             seconds=CLAIM_SECONDS):
        """Claim the answers of ``student_ids`` for ``session``'s ``page``, giving up every other answer the session
        held in this assignment; an answer another live session holds stays theirs.  Return the answers now
        held."""
        now = self.clock()
        held = self.live(assignment, notebook, grade_id)
        mine = [s for s in student_ids if s not in held or held[s].session == session]
        statements = [("DELETE FROM page_claims WHERE until < ?", (now,)),
                      ("DELETE FROM page_claims WHERE assignment = ? AND session = ?", (assignment, session))]
        statements += [("INSERT OR REPLACE INTO page_claims VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (assignment, notebook, grade_id, student, session, marker, now + seconds, page))
                       for student in mine]
        self._write(statements)
        return mine

    def renew(self, assignment, *, session, seconds=CLAIM_SECONDS):
        """Keep what ``session`` holds for another ``seconds``; return how many answers it holds."""
        now = self.clock()
        with self._lock:
            cursor = self._db.execute("UPDATE page_claims SET until = ? WHERE assignment = ? AND session = ? AND until >= ?",
                                      (now + seconds, assignment, session, now))
            return cursor.rowcount

    def give_up(self, assignment, *, session, student_ids=None, page=None):
        """Give up what ``session`` holds: only what its ``page`` holds when one is named, only the answers of
        ``student_ids`` when they are given."""
        if page is not None:
            self._write([("DELETE FROM page_claims WHERE assignment = ? AND session = ? AND page = ?",
                          (assignment, session, page))])
        elif student_ids is None:
            self._write([("DELETE FROM page_claims WHERE assignment = ? AND session = ?", (assignment, session))])
        else:
            self._write([("DELETE FROM page_claims WHERE assignment = ? AND session = ? AND student = ?",
                          (assignment, session, student)) for student in student_ids])

    def live(self, assignment, notebook, grade_id):
        """``{student_id: Claim}``: the live claims on one question's answers."""
        now = self.clock()
        with self._lock:
            rows = self._db.execute("SELECT student, session, marker, until, page FROM page_claims WHERE assignment = ? "
                                    "AND notebook = ? AND cell = ? AND until >= ?",
                                    (assignment, notebook, grade_id, now)).fetchall()
        return {row[0]: Claim(*row) for row in rows}
