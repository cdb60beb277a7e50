"""The exchange's disk: released assignments, every submission with its time, and feedback.

Only the exchange's own user reads or writes here (the folder is made 0700);
students and instructors reach it through the service, never through the file
system, so nothing depends on a name being hard to guess.  Every write lands
in a private scratch folder first and is renamed into place, so a reader
never sees half a release, half a submission or half a feedback, and a crash
leaves the store as it was.  Times are the store's own clock (UTC), never the
sender's.  The layout::

    <root>/<course>/released/<assignment>/           the files, and release.json
    <root>/<course>/submissions/<assignment>/<student>/<stamp>/   files/ and submission.json
    <root>/<course>/feedback/<assignment>/<student>/<stamp>/      files/

Every submission is kept; a resubmission is one more ``<stamp>`` folder.
"""

import datetime
import hashlib
import json
import os
import shutil
import stat
import uuid

from perceptron_course.hub.courses import is_assignment_id, is_course_id, is_user_name
from perceptron_course.hub.transfer import File

__all__ = ["Store", "StoreError", "NotFound", "OverQuota"]

STAMP_FORMAT = "%Y%m%dT%H%M%S.%fZ"
BLOCK = 4096  # what a file system gives a file at least, and a folder


class StoreError(Exception):
    """A request the store cannot carry out; its message is for the person who asked."""


class NotFound(StoreError):
    pass


class OverQuota(StoreError):
    """A submission the student's share of the store has no room for."""


def _check_ids(course, assignment=None, student=None, stamp=None):
    if not is_course_id(course):
        raise StoreError(f"{course!r} is not a course id (letters, digits and ._-)")
    if assignment is not None and not is_assignment_id(assignment):
        raise StoreError(f"{assignment!r} is not an assignment id (letters, digits and ._-)")
    if student is not None and not is_user_name(student):
        raise StoreError(f"{student!r} is not a user name")
    if stamp is not None:
        try:
            datetime.datetime.strptime(stamp, STAMP_FORMAT)
        except (TypeError, ValueError):
            raise StoreError(f"{stamp!r} is not a submission's time as the exchange writes it "
                             "(like 20260131T235959.123456Z)") from None


def stamp_to_iso(stamp):
    """The ISO 8601 time (UTC) of a submission's stamp."""
    when = datetime.datetime.strptime(stamp, STAMP_FORMAT).replace(tzinfo=datetime.timezone.utc)
    return when.isoformat()


class Store:
    def __init__(self, root, *, clock=None):
        self.root = os.path.abspath(root)
        self._clock = clock or (lambda: datetime.datetime.now(datetime.timezone.utc))
        os.makedirs(self.root, mode=0o700, exist_ok=True)
        info = os.lstat(self.root)
        # A store someone else made (or a link to one) could hold what they planted: refuse it.
        if stat.S_ISLNK(info.st_mode) or info.st_uid != os.geteuid():
            raise StoreError(f"{self.root} is not a folder of this user's ({os.geteuid()}): the exchange keeps "
                             "its store only in a folder it made itself")
        os.chmod(self.root, 0o700)
        self._scratch = os.path.join(self.root, ".scratch")
        # What a crashed write left behind is never part of the store.
        shutil.rmtree(self._scratch, ignore_errors=True)
        os.makedirs(self._scratch, mode=0o700)

    # -- writing ---------------------------------------------------------------------------------------------
    def _stage(self, files, record_name=None, record=None):
        """A scratch folder holding ``files/`` (and a JSON record), ready to be renamed into place.

        Whatever goes wrong on the way (a full disk, a name the file system refuses), nothing of it stays.
        """
        staging = os.path.join(self._scratch, uuid.uuid4().hex)
        try:
            os.makedirs(os.path.join(staging, "files"), mode=0o700)
            for item in files:
                target = os.path.join(staging, "files", *item.path.split("/"))
                os.makedirs(os.path.dirname(target), mode=0o700, exist_ok=True)
                # O_EXCL|O_NOFOLLOW: the path was checked, and nothing can be there yet; belt and braces.
                fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
                with os.fdopen(fd, "wb") as handle:
                    handle.write(item.data)
            if record_name:
                with open(os.path.join(staging, record_name), "w", encoding="utf-8") as handle:
                    json.dump(record, handle, indent=1)
        except (OSError, UnicodeError) as exc:
            shutil.rmtree(staging, ignore_errors=True)
            raise StoreError(f"the files could not be stored ({getattr(exc, 'strerror', None) or exc})") from None
        return staging

    def _replace(self, staging, destination):
        os.makedirs(os.path.dirname(destination), mode=0o700, exist_ok=True)
        old = None
        if os.path.exists(destination):
            old = os.path.join(self._scratch, uuid.uuid4().hex)
            os.rename(destination, old)
        os.rename(staging, destination)
        if old:
            shutil.rmtree(old, ignore_errors=True)

    @staticmethod
    def _disk_bytes(files, record_bytes=4096):
        """What ``files`` take on disk at most: each file in whole 4 KiB blocks, at least one (an empty file takes an
        inode and a name); each folder in whole blocks of its entries as ext4 writes them (8 bytes and the name,
        in 4-byte steps), at least one; a block for the submission's own folder; and the record. So empty files,
        in deep folders or side by side, and long names are not free."""
        entries = {}  # folder -> the names in it
        for f in files:
            parts = f.path.split("/")
            for depth in range(len(parts)):
                entries.setdefault("/".join(parts[:depth]), set()).add(parts[depth])
        blocks = sum(max(1, -(-len(f.data) // BLOCK)) for f in files)
        blocks += sum(max(1, -(-sum(8 + -(-len(name.encode()) // 4) * 4 for name in names) // BLOCK))
                      for names in entries.values())
        return BLOCK * (blocks + 1) + record_bytes

    @staticmethod
    def _manifest(files):
        return [{"path": f.path, "size": len(f.data), "sha256": hashlib.sha256(f.data).hexdigest()} for f in files]

    def release(self, course, assignment, files):
        _check_ids(course, assignment)
        if not any(f.path.endswith(".ipynb") for f in files):
            raise StoreError("a release holds at least one notebook (.ipynb)")
        now = self._clock()
        record = {"released_at": now.isoformat(), "files": self._manifest(files)}
        staging = self._stage(files, "release.json", record)
        self._replace(staging, os.path.join(self.root, course, "released", assignment))
        return record

    def unrelease(self, course, assignment):
        _check_ids(course, assignment)
        folder = os.path.join(self.root, course, "released", assignment)
        if not os.path.isdir(folder):
            raise NotFound(f"{course}/{assignment} is not released")
        trash = os.path.join(self._scratch, uuid.uuid4().hex)
        os.rename(folder, trash)
        shutil.rmtree(trash, ignore_errors=True)

    def submit(self, course, assignment, student, files, *, keep_at_most=None, student_bytes=None):
        """Keep a new submission; returns its record (with ``stamp`` and ``timestamp``, the store's time).

        A student keeps at most ``keep_at_most`` submissions of an assignment, and their kept submissions to the
        course hold at most ``student_bytes``: one more is refused (:class:`OverQuota` for the bytes), and every
        earlier one stays.
        """
        _check_ids(course, assignment, student)
        if not self.is_released(course, assignment):
            raise NotFound(f"{assignment} is not released in {course}, so it cannot be submitted")
        if not files:
            raise StoreError("a submission holds at least one file")
        folder = os.path.join(self.root, course, "submissions", assignment, student)
        if keep_at_most is not None and os.path.isdir(folder) and len(os.listdir(folder)) >= keep_at_most:
            raise StoreError(f"{student} has submitted {assignment} {keep_at_most} times, as many as the exchange "
                             "keeps (Autograder.exchange_submissions); ask the instructor")
        manifest = self._manifest(files)
        # The record, with its list of files, takes room too: it is counted at its size, rounded up to blocks.
        size = self._disk_bytes(files, -(-len(json.dumps(manifest, indent=1)) // BLOCK) * BLOCK)
        if student_bytes is not None:
            used = self.student_bytes(course, student)
            if used + size > student_bytes:
                raise OverQuota(f"{student}'s kept submissions to {course} take {used:,} bytes on the exchange's "
                                f"disk, and this one {size:,} more: over the {student_bytes:,} the exchange keeps "
                                "for each student (Autograder.exchange_student_bytes). Remove large data or "
                                "outputs from the assignment's folder, or ask the instructor")
        now = self._clock()
        stamp = now.strftime(STAMP_FORMAT)
        while os.path.exists(os.path.join(folder, stamp)):  # two within a microsecond: both are kept
            now += datetime.timedelta(microseconds=1)
            stamp = now.strftime(STAMP_FORMAT)
        record = {"student": student, "stamp": stamp, "timestamp": now.isoformat(), "disk_bytes": size,
                  "files": manifest}
        staging = self._stage(files, "submission.json", record)
        os.makedirs(folder, mode=0o700, exist_ok=True)
        os.rename(staging, os.path.join(folder, stamp))
        return record

    def give_feedback(self, course, assignment, student, stamp, files):
        _check_ids(course, assignment, student, stamp)
        if not os.path.isdir(os.path.join(self.root, course, "submissions", assignment, student, stamp)):
            raise NotFound(f"{student} has no submission of {course}/{assignment} at {stamp}")
        staging = self._stage(files, "feedback.json", {"given_at": self._clock().isoformat(),
                                                       "files": self._manifest(files)})
        self._replace(staging, os.path.join(self.root, course, "feedback", assignment, student, stamp))

    # -- reading ---------------------------------------------------------------------------------------------
    def _read_files(self, folder):
        files = []
        base = os.path.join(folder, "files")
        for current, dirs, names in os.walk(base):
            dirs.sort()
            for name in sorted(names):
                full = os.path.join(current, name)
                # The store writes regular files only; anything else was not put there by it.
                fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(fd, "rb") as handle:
                    if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                        raise StoreError(f"{full} is not a regular file")
                    files.append(File(os.path.relpath(full, base).replace(os.sep, "/"), handle.read()))
        return tuple(files)

    @staticmethod
    def _record(folder, name):
        with open(os.path.join(folder, name), encoding="utf-8") as handle:
            return json.load(handle)

    def courses(self):
        return sorted(n for n in os.listdir(self.root) if is_course_id(n))

    def is_released(self, course, assignment):
        _check_ids(course, assignment)
        return os.path.isfile(os.path.join(self.root, course, "released", assignment, "release.json"))

    def released(self, course):
        """``[{assignment, released_at, files}]`` of ``course``, by assignment id."""
        _check_ids(course)
        folder = os.path.join(self.root, course, "released")
        out = []
        for assignment in sorted(os.listdir(folder)) if os.path.isdir(folder) else ():
            if is_assignment_id(assignment) and self.is_released(course, assignment):
                record = self._record(os.path.join(folder, assignment), "release.json")
                out.append({"assignment": assignment, **record})
        return out

    def release_files(self, course, assignment):
        if not self.is_released(course, assignment):
            raise NotFound(f"{assignment} is not released in {course}")
        return self._read_files(os.path.join(self.root, course, "released", assignment))

    def submissions(self, course, assignment, student=None):
        """Every submission of ``assignment`` (of ``student`` only, if given), oldest first per student."""
        _check_ids(course, assignment, student)
        base = os.path.join(self.root, course, "submissions", assignment)
        students = [student] if student else (sorted(os.listdir(base)) if os.path.isdir(base) else [])
        out = []
        for name in students:
            folder = os.path.join(base, name)
            if not is_user_name(name) or not os.path.isdir(folder):
                continue
            for stamp in sorted(os.listdir(folder)):
                record = self._record(os.path.join(folder, stamp), "submission.json")
                feedback = os.path.join(self.root, course, "feedback", assignment, name, stamp)
                # The feedback's files and checksums, so a student's server can tell new feedback from old.
                record["feedback"] = self._record(feedback, "feedback.json")["files"] \
                    if os.path.isdir(feedback) else None
                out.append(record)
        return out

    def student_bytes(self, course, student):
        """What all of ``student``'s kept submissions to ``course`` take on disk, as their records say."""
        _check_ids(course, student=student)
        base = os.path.join(self.root, course, "submissions")
        total = 0
        for assignment in os.listdir(base) if os.path.isdir(base) else ():
            folder = os.path.join(base, assignment, student)
            if not is_assignment_id(assignment) or not os.path.isdir(folder):
                continue
            for stamp in os.listdir(folder):
                record = self._record(os.path.join(folder, stamp), "submission.json")
                total += record.get("disk_bytes", sum(f["size"] for f in record["files"]))
        return total

    def files_bytes(self, course, assignment, student=None, stamp=None, *, feedback=False):
        """The bytes of files a release (no ``student``), a submission or its ``feedback`` holds, from its record,
        so that a reply's size is known before its files are read."""
        _check_ids(course, assignment, student, stamp)
        if student is None:
            folder, record = os.path.join(self.root, course, "released", assignment), "release.json"
        else:
            kind, record = ("feedback", "feedback.json") if feedback else ("submissions", "submission.json")
            folder = os.path.join(self.root, course, kind, assignment, student, stamp)
        if not os.path.isfile(os.path.join(folder, record)):
            return None
        return sum(f["size"] for f in self._record(folder, record)["files"])

    def submission_files(self, course, assignment, student, stamp):
        _check_ids(course, assignment, student, stamp)
        folder = os.path.join(self.root, course, "submissions", assignment, student, stamp)
        if not os.path.isdir(folder):
            raise NotFound(f"{student} has no submission of {course}/{assignment} at {stamp}")
        return self._read_files(folder)

    def feedback_files(self, course, assignment, student, stamp):
        _check_ids(course, assignment, student, stamp)
        folder = os.path.join(self.root, course, "feedback", assignment, student, stamp)
        if not os.path.isdir(folder):
            raise NotFound(f"there is no feedback for {student}'s submission of {course}/{assignment} at {stamp}")
        return self._read_files(folder)
