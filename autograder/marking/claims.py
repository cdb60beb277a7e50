"""Claims: which answers each marker has open, so that "the next to mark" never sends two TAs to one answer.

Opening an answer (or a group) on the marking page claims it for that
browser's session for :data:`CLAIM_SECONDS`; the page renews the claim while
it stays open (``static/marking.js``), and saving or leaving gives it up.
Each claim names the page that holds it, so that leaving one page (a reload
included, whose leaving the server may hear of after the new page claimed the
answer again) gives up only what that page held.  "The next to mark" passes
over answers another marker holds, and the page shows who else is marking the
same question.  A marker's claims are hers in every session: a browser that
was closed without leaving its page (a crash, a laptop shut) leaves claims
behind for :data:`CLAIM_SECONDS`, and her next browser is not kept from them,
nor shown her own name as another marker's.  A claim is only a courtesy
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
CREATE TABLE IF NOT EXISTS claims (
    assignment TEXT NOT NULL, notebook TEXT NOT NULL, cell TEXT NOT NULL, student TEXT NOT NULL,
    session TEXT NOT NULL, marker TEXT NOT NULL, until REAL NOT NULL, page TEXT NOT NULL,
    PRIMARY KEY (assignment, notebook, cell, student))
"""
_COLUMNS = ["assignment", "notebook", "cell", "student", "session", "marker", "until", "page"]


@dataclass(frozen=True)
class Claim:
    """An answer a marker has open: whose session, the marker's name, until when (seconds since the epoch), and the
    page that holds it."""

    student_id: str
    session: str
    marker: str
    until: float
    page: str = ""

    def mine(self, session, marker):
        """Whether the claim is the marker's own: held by this session, or by another session of hers."""
        return self.session == session or bool(marker) and self.marker == marker


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
        # A file of an earlier layout is made again: nothing in it outlives CLAIM_SECONDS.
        if [row[1] for row in self._db.execute("PRAGMA table_info(claims)")] not in ([], _COLUMNS):
            self._db.execute("DROP TABLE claims")
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
        """Claim the answers of ``student_ids`` for ``session``'s ``page``, giving up every other answer the marker
        held in this assignment (in any session); an answer another marker holds stays theirs.  Return the
        answers now held."""
        now = self.clock()
        held = self.live(assignment, notebook, grade_id)
        mine = [s for s in student_ids if s not in held or held[s].mine(session, marker)]
        statements = [("DELETE FROM claims WHERE until < ?", (now,)),
                      ("DELETE FROM claims WHERE assignment = ? AND (session = ? OR (marker = ? AND marker != ''))",
                       (assignment, session, marker))]
        statements += [("INSERT OR REPLACE INTO claims VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (assignment, notebook, grade_id, student, session, marker, now + seconds, page))
                       for student in mine]
        self._write(statements)
        return mine

    def renew(self, assignment, *, session, seconds=CLAIM_SECONDS):
        """Keep what ``session`` holds for another ``seconds``; return how many answers it holds."""
        now = self.clock()
        with self._lock:
            cursor = self._db.execute("UPDATE claims SET until = ? WHERE assignment = ? AND session = ? AND until >= ?",
                                      (now + seconds, assignment, session, now))
            return cursor.rowcount

    def give_up(self, assignment, *, session, student_ids=None, page=None):
        """Give up what ``session`` holds: only what its ``page`` holds when one is named, only the answers of
        ``student_ids`` when they are given."""
        if page is not None:
            self._write([("DELETE FROM claims WHERE assignment = ? AND session = ? AND page = ?",
                          (assignment, session, page))])
        elif student_ids is None:
            self._write([("DELETE FROM claims WHERE assignment = ? AND session = ?", (assignment, session))])
        else:
            self._write([("DELETE FROM claims WHERE assignment = ? AND session = ? AND student = ?",
                          (assignment, session, student)) for student in student_ids])

    def live(self, assignment, notebook, grade_id):
        """``{student_id: Claim}``: the live claims on one question's answers."""
        now = self.clock()
        with self._lock:
            rows = self._db.execute("SELECT student, session, marker, until, page FROM claims WHERE assignment = ? "
                                    "AND notebook = ? AND cell = ? AND until >= ?",
                                    (assignment, notebook, grade_id, now)).fetchall()
        return {row[0]: Claim(*row) for row in rows}
