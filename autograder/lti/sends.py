"""The record of every score sent to the LMS: ``<course>/.autograder/lti/sends.jsonl``, one JSON object a line.

Each time ``send-grades`` decides about a student it appends one line: when,
which run (the assignment and ``OUT``), which platform, the line item's URL,
the LMS user, the score as it was posted, the LMS's HTTP status, and the
outcome (:data:`SENT`, :data:`UNCHANGED` or :data:`NOT_SENT` with the
reason).  The last :data:`SENT` line of a student and line item is what the
LMS holds from the tool (:meth:`SendRecord.last_sent`), so sending the same
score again is seen and skipped.

A line is written whole or not at all, as far as a reader can tell: it is
one ``write`` of its bytes ending in a newline, flushed to the disk before
the next student; a reader takes only lines that end in a newline; and
before appending, a tail left without one (a crash in the middle of a
write) is cut off, since it never was a record.  A send holds an exclusive
lock on ``sends.lock`` for its whole run (:meth:`SendRecord.locked`), so two
sends never interleave.  The folder is the owner's alone (0700), the file
0600: it holds every student's grades and feedback.
"""

import contextlib
import fcntl
import json
import os

__all__ = ["SendRecord", "RecordBusy", "SENT", "UNCHANGED", "NOT_SENT", "same_score"]

SENT, UNCHANGED, NOT_SENT = "sent", "unchanged", "not sent"
RECORD_NAME = "sends.jsonl"
LOCK_NAME = "sends.lock"


class RecordBusy(Exception):
    """Another ``send-grades`` holds the record's lock."""


def same_score(earlier, score):
    """Whether two AGS scores say the same: every member but the ``timestamp``, which each send sets anew."""
    def content(value):
        return {k: v for k, v in (value or {}).items() if k != "timestamp"}

    return earlier is not None and content(earlier) == content(score)


class SendRecord:
    """The record of sends of the course directory ``course_dir``."""

    def __init__(self, course_dir):
        self.folder = os.path.join(course_dir, ".autograder", "lti")
        self.path = os.path.join(self.folder, RECORD_NAME)
        self.unreadable = 0  # complete lines that were not a JSON object (counted, never used)

    def rows(self):
        """Every complete line of the record, oldest first, as dicts."""
        try:
            with open(self.path, "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            return []
        rows, self.unreadable = [], 0
        for line in data.split(b"\n")[:-1]:  # the part after the last newline is no record
            try:
                row = json.loads(line.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                row = None
            if isinstance(row, dict):
                rows.append(row)
            elif line.strip():
                self.unreadable += 1
        return rows

    @staticmethod
    def last_sent(rows, line_item, student_id):
        """The last row that sent ``student_id``'s score to ``line_item``, or ``None``."""
        for row in reversed(rows):
            if row.get("outcome") == SENT and row.get("line_item") == line_item and row.get("student_id") == student_id:
                return row
        return None

    @contextlib.contextmanager
    def locked(self):
        """Hold the record's lock (:class:`RecordBusy` when another send holds it) and make its folder."""
        os.makedirs(self.folder, mode=0o700, exist_ok=True)
        os.chmod(self.folder, 0o700)
        descriptor = os.open(os.path.join(self.folder, LOCK_NAME), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
        try:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise RecordBusy(f"another 'send-grades' of this course is sending now ({self.path} is locked); "
                                 "wait for it to finish, then run this one again") from None
            yield self
        finally:
            os.close(descriptor)

    def append(self, row):
        """Add ``row`` as one whole line and flush it to the disk (call it inside :meth:`locked`)."""
        line = (json.dumps(row, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, 0o600)
        try:
            size = os.fstat(descriptor).st_size
            while size:  # cut off what a crash left after the last newline, however long
                start = max(0, size - (1 << 20))
                tail = os.pread(descriptor, size - start, start)
                if tail.endswith(b"\n"):
                    break
                cut = tail.rfind(b"\n")
                size = start + cut + 1 if cut >= 0 else start
                os.ftruncate(descriptor, size)
                if cut >= 0:
                    break
            written = 0
            while written < len(line):
                written += os.write(descriptor, line[written:])
            os.fsync(descriptor)
        finally:
            os.close(descriptor)
