"""nbgrader 0.9's pluggable exchange, on the course exchange service.

With these classes configured (the hub's ``nbgrader_config.py`` does it for
every server), nbgrader's Assignments panel and its commands work unchanged:
a student's *Fetch*, *Submit* and *Fetch Feedback*, and an instructor's
``nbgrader release_assignment``, ``collect`` and ``release_feedback``.  Each
class turns one nbgrader verb into calls of
:class:`~perceptron_course.hub.client.ExchangeClient`; the service decides
whether the caller may, so nothing here is a permission.

A student's work is kept apart per course: ``<home>/<course>/<assignment>/``
(``path_includes_course``, on by default here).  A submission's time is the
exchange's, shown as nbgrader shows its own (``2026-01-31 23:59:59.123456 UTC``);
every earlier submission stays listed.
"""

import datetime
import hashlib
import os
import shutil

from nbgrader.exchange.abc import (Exchange as ABCExchange, ExchangeCollect as ABCExchangeCollect,
                                   ExchangeFetchAssignment as ABCExchangeFetchAssignment,
                                   ExchangeFetchFeedback as ABCExchangeFetchFeedback,
                                   ExchangeList as ABCExchangeList,
                                   ExchangeReleaseAssignment as ABCExchangeReleaseAssignment,
                                   ExchangeReleaseFeedback as ABCExchangeReleaseFeedback,
                                   ExchangeSubmit as ABCExchangeSubmit)
from traitlets import Bool, Unicode

from perceptron_course.hub.client import ExchangeClient, ExchangeClientError
from perceptron_course.hub.store import STAMP_FORMAT
from perceptron_course.hub.transfer import TransferError, files_from_folder, write_files

__all__ = ["Exchange", "ExchangeList", "ExchangeFetchAssignment", "ExchangeSubmit", "ExchangeFetchFeedback",
           "ExchangeCollect", "ExchangeReleaseAssignment", "ExchangeReleaseFeedback", "CLASSES", "display_time"]


def display_time(stamp):
    """The exchange's stamp as nbgrader writes times (its default ``timestamp_format``)."""
    when = datetime.datetime.strptime(stamp, STAMP_FORMAT)
    return when.strftime("%Y-%m-%d %H:%M:%S.%f UTC")


def _sha256(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


class Exchange(ABCExchange):
    url = Unicode("", help="The course exchange's address; COURSE_EXCHANGE_URL by default.").tag(config=True)
    path_includes_course = Bool(True, help="Keep each course's assignments in a folder named for the course, "
                                           "so two courses' work stays apart.").tag(config=True)

    def client(self):
        try:
            # nbgrader's panel runs these in the server's one thread: a busy exchange is reported at once (and asked
            # again by the student's next click), never waited for there.
            return ExchangeClient(self.url or None, busy_seconds=0)
        except ExchangeClientError as exc:
            self.fail(str(exc))

    def call(self, method, *args):
        try:
            return getattr(self.client(), method)(*args)
        except (ExchangeClientError, TransferError) as exc:
            self.fail(str(exc))

    def need_course(self):
        if not self.coursedir.course_id:
            self.fail("No course id specified. Re-run with --course flag.")
        return self.coursedir.course_id

    def local_folder(self, course, assignment):
        parts = (course, assignment) if self.path_includes_course else (assignment,)
        return os.path.abspath(os.path.join(self.assignment_dir, *parts))

    def init_src(self):
        pass

    def init_dest(self):
        pass

    def copy_files(self):
        pass


class ExchangeList(Exchange, ABCExchangeList):
    def _courses(self):
        if self.coursedir.course_id:
            return [self.coursedir.course_id]
        return sorted(self.call("courses"))

    def _released(self):
        out = []
        for course in self._courses():
            for item in self.call("released", course):
                assignment = item["assignment"]
                if self.coursedir.assignment_id and assignment != self.coursedir.assignment_id:
                    continue
                local = self.local_folder(course, assignment)
                fetched = os.path.isdir(local)
                notebooks = [f["path"] for f in item["files"] if f["path"].endswith(".ipynb")]
                out.append({
                    "course_id": course, "assignment_id": assignment,
                    "status": "fetched" if fetched else "released",
                    "path": local if fetched else f"{course}/{assignment}",
                    "released_at": item["released_at"],
                    "notebooks": [{"notebook_id": os.path.splitext(os.path.basename(n))[0],
                                   "path": os.path.join(local, n) if fetched else n} for n in notebooks],
                })
        return out

    def _submitted(self):
        groups = {}
        for course in self._courses():
            assignments = [self.coursedir.assignment_id] if self.coursedir.assignment_id else \
                [item["assignment"] for item in self.call("released", course)]
            for assignment in assignments:
                student = self.coursedir.student_id if self.inbound and self.coursedir.student_id not in ("", "*") \
                    else ""
                for record in self.call("submissions", course, assignment, student):
                    info = self._submission_info(course, assignment, record)
                    groups.setdefault((course, record["student"], assignment), []).append(info)
        out = []
        for (course, student, assignment), submissions in sorted(groups.items()):
            submissions.sort(key=lambda s: s["stamp"])
            out.append({"course_id": course, "student_id": student, "assignment_id": assignment,
                        "status": "submitted", "submissions": submissions})
        return out

    def _submission_info(self, course, assignment, record):
        timestamp = display_time(record["stamp"])
        local = os.path.join(self.local_folder(course, assignment), "feedback", timestamp)
        exchange_feedback = {os.path.splitext(f["path"])[0]: f["sha256"] for f in record.get("feedback") or ()}
        notebooks = []
        for item in record["files"]:
            if not item["path"].endswith(".ipynb") or "/" in item["path"]:
                continue
            notebook_id = item["path"][:-len(".ipynb")]
            local_file = os.path.join(local, notebook_id + ".html")
            has_local = os.path.isfile(local_file)
            notebooks.append({
                "notebook_id": notebook_id, "path": item["path"],
                "has_local_feedback": has_local, "has_exchange_feedback": notebook_id in exchange_feedback,
                "local_feedback_path": local_file if has_local else None,
                "feedback_updated": has_local and notebook_id in exchange_feedback
                and _sha256(local_file) != exchange_feedback[notebook_id],
            })
        has_local = bool(notebooks) and all(n["has_local_feedback"] for n in notebooks)
        return {
            "course_id": course, "student_id": record["student"], "assignment_id": assignment,
            "timestamp": timestamp, "stamp": record["stamp"], "status": "submitted",
            "path": f"{course}/{assignment}/{record['student']}/{record['stamp']}", "notebooks": notebooks,
            "has_local_feedback": has_local,
            "has_exchange_feedback": bool(notebooks) and all(n["has_exchange_feedback"] for n in notebooks),
            "feedback_updated": any(n["feedback_updated"] for n in notebooks),
            "local_feedback_path": local if has_local else None,
        }

    def list_files(self):
        if self.inbound or self.cached:
            assignments = self._submitted()
            self.log.info("Submitted assignments:")
            for assignment in assignments:
                for info in assignment["submissions"]:
                    if info["has_local_feedback"] and not info["feedback_updated"]:
                        feedback = "feedback already fetched"
                    elif info["has_exchange_feedback"]:
                        feedback = "feedback ready to be fetched"
                    else:
                        feedback = "no feedback available"
                    self.log.info("%s %s %s %s (%s)", info["course_id"], info["student_id"], info["assignment_id"],
                                  info["timestamp"], feedback)
        else:
            assignments = self._released()
            self.log.info("Released assignments:")
            for info in assignments:
                self.log.info("%s %s%s", info["course_id"], info["assignment_id"],
                              " (already downloaded)" if info["status"] == "fetched" else "")
        return assignments

    def remove_files(self):
        if self.inbound or self.cached:
            self.fail("Submissions are never removed from the course exchange: every submission is kept.")
        course = self.need_course()
        removed = self._released()
        for info in removed:
            self.call("unrelease", course, info["assignment_id"])
            info["status"] = "removed"
        self.log.info("Removed: %s", ", ".join(i["assignment_id"] for i in removed) or "nothing")
        return removed


class ExchangeFetchAssignment(Exchange, ABCExchangeFetchAssignment):
    def copy_files(self):
        course, assignment = self.need_course(), self.coursedir.assignment_id
        dest = self.local_folder(course, assignment)
        if os.path.isdir(dest) and not self.replace_missing_files:
            self.fail(f"You already have a copy of the assignment in this directory: {os.path.relpath(dest)}")
        files = self.call("fetch", course, assignment)
        try:
            written = write_files(files, dest, replace=False)
        except TransferError as exc:
            self.fail(str(exc))
        self.log.info("Fetched as: %s %s (%d files into %s)", course, assignment, len(written), dest)


class ExchangeSubmit(Exchange, ABCExchangeSubmit):
    def copy_files(self):
        course, assignment = self.need_course(), self.coursedir.assignment_id
        src = self.local_folder(course, assignment)
        if not os.path.isdir(src):
            self.fail(f"Assignment not found: {src} (fetch it first, and keep it in that folder)")
        try:
            files = files_from_folder(src, ignore=list(self.coursedir.ignore))
        except TransferError as exc:
            self.fail(f"Nothing was submitted: {exc}")
        released = {f["path"] for item in self.call("released", course) if item["assignment"] == assignment
                    for f in item["files"] if f["path"].endswith(".ipynb")}
        missing = sorted(released - {f.path for f in files})
        if missing:
            message = f"These notebooks of the release are missing from {src}: {', '.join(missing)}"
            if self.strict:
                self.fail(f"Assignment {assignment} not submitted. {message}")
            self.log.warning(message)
        record = self.call("submit", course, assignment, files)
        self.timestamp = display_time(record["stamp"])
        self.log.info("Submitted as: %s %s %s", course, assignment, self.timestamp)


class ExchangeFetchFeedback(Exchange, ABCExchangeFetchFeedback):
    def copy_files(self):
        course, assignment = self.need_course(), self.coursedir.assignment_id
        dest = os.path.join(self.local_folder(course, assignment), "feedback")
        fetched = 0
        for record in self.call("submissions", course, assignment):
            if not record.get("feedback"):
                continue
            files = self.call("feedback_files", course, assignment, record["student"], record["stamp"])
            try:
                fetched += len(write_files(files, os.path.join(dest, display_time(record["stamp"]))))
            except TransferError as exc:
                self.fail(str(exc))
        self.log.info("Fetched feedback: %d files into %s", fetched, dest)


class ExchangeCollect(Exchange, ABCExchangeCollect):
    def _duedate(self, course, assignment):
        """The assignment's due date in the course's gradebook (naive UTC, as nbgrader keeps it), or ``None``."""
        from nbgrader.api import Gradebook, MissingEntry

        with Gradebook(self.coursedir.db_url, course) as gradebook:
            try:
                return gradebook.find_assignment(assignment).duedate
            except MissingEntry:
                return None

    def copy_files(self):
        course, assignment = self.need_course(), self.coursedir.assignment_id
        only = self.coursedir.student_id if self.coursedir.student_id not in ("", "*") else ""
        by_student = {}
        for record in self.call("submissions", course, assignment, only):
            by_student.setdefault(record["student"], []).append(record)
        if not by_student:
            self.log.warning("No submissions of '%s' for course '%s' to collect", assignment, course)
        duedate = self._duedate(course, assignment) if self.before_duedate else None

        def utc(record):  # nbgrader compares naive UTC times
            return datetime.datetime.fromisoformat(record["timestamp"]).replace(tzinfo=None)

        missed = []
        for student, records in sorted(by_student.items()):
            records.sort(key=lambda r: r["stamp"])
            chosen = records[-1]
            if duedate is not None:
                before = [r for r in records if utc(r) <= duedate]
                chosen = before[-1] if before else chosen
            dest = self.coursedir.format_path(self.coursedir.submitted_directory, student, assignment)
            timestamp = display_time(chosen["stamp"])
            self._put_back(dest)
            if os.path.isdir(dest):
                existing = self.coursedir.get_existing_timestamp(dest)
                newer = existing is None or utc(chosen) > existing
                if not ((self.update and newer) or (self.before_duedate and existing != utc(chosen))):
                    self.log.info("Submission already exists, use --update to update: %s %s", student, assignment)
                    continue
            # One student's submission that cannot be fetched or written is named at the end, after everyone
            # else's is collected, and a copy collected earlier stays until the new one is whole beside it.
            try:
                files = self.client().submission_files(course, assignment, student, chosen["stamp"])
                self._replace(dest, files, timestamp)
            except (ExchangeClientError, TransferError, OSError) as exc:
                self.log.error("Could not collect %s's submission of %s (%s): %s", student, assignment,
                               timestamp, exc)
                missed.append(f"{student} ({exc})")
                continue
            self.log.info("Collected submission: %s %s %s", student, assignment, timestamp)
        if missed:
            self.fail(f"{len(missed)} submission(s) of {assignment} were not collected; every other one was, and "
                      "what was collected of them before is unchanged: " + "; ".join(missed))

    @staticmethod
    def _put_back(dest):
        """A copy a crash left moved aside (between :meth:`_replace`'s two renames) goes back where it was."""
        moved = dest + ".replaced"
        if not os.path.lexists(dest) and os.path.isdir(moved) and not os.path.islink(moved):
            os.rename(moved, dest)

    def _replace(self, dest, files, timestamp):
        """Write ``files`` and their ``timestamp.txt`` into ``dest``, replacing what it held only once they are
        all written."""
        staging, old = dest + ".collecting", dest + ".replaced"
        for leftover in (staging, old):
            if os.path.islink(leftover) or os.path.isfile(leftover):
                os.unlink(leftover)
            elif os.path.lexists(leftover):
                shutil.rmtree(leftover)
        os.makedirs(staging)
        try:
            write_files(files, staging)
            with open(os.path.join(staging, "timestamp.txt"), "w") as handle:
                handle.write(timestamp)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        if not os.path.isdir(dest):
            os.rename(staging, dest)
            return
        os.rename(dest, old)
        os.rename(staging, dest)
        try:
            shutil.rmtree(old)
        except OSError as exc:  # the new copy is in place; the old one is only left over
            self.log.warning("Collected, but could not remove the copy it replaces, %s: %s", old, exc)


class ExchangeReleaseAssignment(Exchange, ABCExchangeReleaseAssignment):
    def copy_files(self):
        course, assignment = self.need_course(), self.coursedir.assignment_id
        src = self.coursedir.format_path(self.coursedir.release_directory, ".", assignment)
        if not os.path.isdir(src):
            self.fail(f"Assignment not found: {src} (generate it first)")
        already = {item["assignment"] for item in self.call("released", course)}
        if assignment in already and not self.force:
            self.fail(f"{course}/{assignment} is already released; use --force to release it again")
        try:
            files = files_from_folder(src, ignore=list(self.coursedir.ignore))
        except TransferError as exc:
            self.fail(str(exc))
        self.call("release", course, assignment, files)
        self.log.info("Released as: %s %s (%d files)", course, assignment, len(files))


class ExchangeReleaseFeedback(Exchange, ABCExchangeReleaseFeedback):
    def copy_files(self):
        from perceptron_course.hub.transfer import File

        course, assignment = self.need_course(), self.coursedir.assignment_id
        only = self.coursedir.student_id if self.coursedir.student_id not in ("", "*") else ""
        excluded = set(filter(None, (self.coursedir.student_id_exclude or "").split(",")))
        stamps = {}
        for record in self.call("submissions", course, assignment, only):
            stamps[(record["student"], display_time(record["stamp"]))] = record["stamp"]
        root = self.coursedir.format_path(self.coursedir.feedback_directory, ".", ".")
        for student in sorted(os.listdir(root)) if os.path.isdir(root) else ():
            if (only and student != only) or student in excluded:
                continue
            folder = self.coursedir.format_path(self.coursedir.feedback_directory, student, assignment)
            stamp_file = os.path.join(folder, "timestamp.txt")
            if not os.path.isfile(stamp_file):
                continue
            with open(stamp_file) as handle:
                stamp = stamps.get((student, handle.read().strip()))
            if stamp is None:
                self.log.warning("No submission of %s matches the feedback in %s; not released", student, folder)
                continue
            files = []
            for name in sorted(os.listdir(folder)):
                if name.endswith(".html") and not os.path.islink(os.path.join(folder, name)):
                    with open(os.path.join(folder, name), "rb") as handle:
                        files.append(File(name, handle.read()))
            self.call("give_feedback", course, assignment, student, stamp, files)
            self.log.info("Released feedback for %s on %s/%s (%s)", student, course, assignment, stamp)


CLASSES = {
    "exchange": Exchange, "fetch_assignment": ExchangeFetchAssignment, "fetch_feedback": ExchangeFetchFeedback,
    "release_assignment": ExchangeReleaseAssignment, "release_feedback": ExchangeReleaseFeedback,
    "list": ExchangeList, "submit": ExchangeSubmit, "collect": ExchangeCollect,
}
