"""From the LMS's entries to one row per student: ids, the roster, attempts and lateness.

:func:`resolve` takes the :class:`~autograder.intake.lms.Entry` records of a
download and decides, deterministically:

* each entry's student id: the roster's ``student_id`` when the entry
  matches a roster student (by LMS id, email, id or name, in that order),
  otherwise a safe id made from what the LMS says (:func:`~autograder.intake.lms.safe_id`),
  made unique when two people would share one;
* which entry of a student is graded: the latest attempt (by the time the
  LMS recorded, then by resubmission number); the others are reported;
* the flags of each graded entry: ``late`` (the LMS marked it, or it came
  after ``deadline``), ``extra-files`` (files beside the notebook, which the
  notebook never sees), ``not-on-roster``;
* the other members of a group submission (Gradescope lists them), who get
  its grade under their own ids, flagged ``group-submission``;
* which roster students submitted nothing (``missing``).

:func:`load_roster` reads the instructor's roster CSV.
"""

import csv
import dataclasses
import datetime
import hashlib
import re
import unicodedata
from dataclasses import dataclass

from autograder.intake.lms import LMS_NAMES, Unused, is_safe_student_id, safe_id

__all__ = ["RosterStudent", "RosterError", "Resolved", "GroupMember", "Resolution", "load_roster", "resolve", "parse_deadline",
           "name_keys"]

# Accepted header spellings (compared lower-cased, with spaces, dashes and underscores removed).
ROSTER_COLUMNS = {
    "student_id": ("studentid",),
    "name": ("name", "fullname", "studentname", "student"),
    "email": ("email", "emailaddress", "mail"),
    "lms_id": ("lmsid", "lmsuserid", "username", "canvasid", "canvasuserid", "moodleid", "blackboardid",
               "gradescopeid", "userid", "login"),
    "first": ("firstname", "givenname"),
    "last": ("lastname", "surname", "familyname"),
}
MAX_ROSTER_BYTES = 10 * 2**20


class RosterError(Exception):
    """The roster file cannot be used: the message says what is wrong and what is expected."""


@dataclass(frozen=True)
class RosterStudent:
    student_id: str
    name: str = ""
    email: str = ""
    lms_id: str = ""


@dataclass(frozen=True)
class Resolved:
    """One student's graded entry (or ``entry=None`` for a roster student with no submission)."""

    student_id: str
    entry: object  # autograder.intake.lms.Entry, or None when missing
    flags: tuple = ()  # (code, detail)
    roster: RosterStudent = None
    matched_by: str = ""  # how the entry was matched to the roster: "LMS id", "email", "student id" or "name"
    group: tuple = ()  # GroupMember: the other members of a group submission, who get the same grade


@dataclass(frozen=True)
class GroupMember:
    """A member of a group submission other than the one whose id the submission is graded under."""

    student_id: str
    name: str = ""
    email: str = ""
    flags: tuple = ()  # (code, detail)


@dataclass
class Resolution:
    graded: list  # Resolved with an entry, sorted by student id
    missing: list  # Resolved without an entry (roster students who submitted nothing)
    superseded: list  # Unused: the other attempts
    untimed: int = 0  # graded entries with no recorded time, when a deadline was given


def _header_key(text):
    return re.sub(r"[\s_\-]+", "", text.strip().lower())


def load_roster(path):
    """The students of a roster CSV (a ``student_id`` column, and any of name, email and LMS id)."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_ROSTER_BYTES + 1)
    except OSError as exc:
        raise RosterError(f"cannot read the roster {path}: {exc.strerror}") from None
    if len(data) > MAX_ROSTER_BYTES:
        raise RosterError(f"the roster {path} is larger than {MAX_ROSTER_BYTES:,} bytes; is it really a roster?")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("cp1252", errors="replace")
    rows = list(csv.reader(text.splitlines()))
    if not rows:
        raise RosterError(f"the roster {path} is empty; expected a header row with a student_id column")
    header = [_header_key(h) for h in rows[0]]
    columns = {}
    for field, spellings in ROSTER_COLUMNS.items():
        for i, key in enumerate(header):
            if key in spellings and field not in columns:
                columns[field] = i
    if "student_id" not in columns:
        raise RosterError(f"the roster {path} has no student_id column (its header is {', '.join(rows[0])}); "
                          "expected a header row with student_id and, optionally, name, email and lms_id")
    students, seen = [], {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue

        def cell(field):
            i = columns.get(field)
            return row[i].strip() if i is not None and i < len(row) else ""

        student_id = cell("student_id")
        if not student_id:
            raise RosterError(f"row {line} of the roster {path} has no student_id")
        if not is_safe_student_id(student_id):
            raise RosterError(f"row {line} of the roster {path}: the student_id {student_id!r} is not usable "
                              "(letters, digits and _ . @ + - only, starting with a letter or digit)")
        if student_id in seen:
            raise RosterError(f"the roster {path} lists the student_id {student_id!r} twice (rows {seen[student_id]} "
                              f"and {line})")
        seen[student_id] = line
        name = cell("name") or " ".join(p for p in (cell("first"), cell("last")) if p)
        students.append(RosterStudent(student_id, name, cell("email"), cell("lms_id")))
    return students


def name_keys(text):
    """Ways a name may be written by an LMS: ``Ada Lovelace`` → ``{adalovelace, lovelaceada}``.

    Accents, case, punctuation and spaces are ignored; Canvas writes the
    last name first with no space.
    """
    folded = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c)).lower()
    tokens = re.findall(r"[^\W_]+", folded)
    if not tokens:
        return set()
    return {"".join(tokens), "".join(reversed(tokens)), "".join(tokens[1:] + tokens[:1])}


def parse_deadline(text, *, local_zone=None):
    """A deadline given on the command line, as an aware datetime.

    ISO 8601: ``2025-01-31`` (the end of that day), ``2025-01-31T23:59``,
    ``2025-01-31 23:59:59+01:00`` or ``...Z``.  Without a time zone, the
    machine's local time (or ``local_zone``).
    """
    value = text.strip()
    date_only = re.fullmatch(r"\d{4}-\d{2}-\d{2}", value) is not None
    try:
        moment = datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"--deadline must be a date and time in ISO 8601 form, such as 2025-01-31T23:59 or "
                         f"2025-01-31T23:59+01:00; got {text!r}") from None
    if date_only:
        moment = moment.replace(hour=23, minute=59, second=59)
    return _aware(moment, local_zone)


def _aware(moment, local_zone):
    if moment is None or moment.tzinfo is not None:
        return moment
    return moment.replace(tzinfo=local_zone) if local_zone is not None else moment.astimezone()


def _raw_identity(entry):
    return entry.identity.split(":", 1)[1] if ":" in entry.identity else entry.identity


class _RosterIndex:
    def __init__(self, students):
        self.by_id = {s.student_id: s for s in students}
        self.by_id_folded = {}
        self.by_lms_id, self.by_email, self.by_name = {}, {}, {}
        for s in students:
            self.by_id_folded.setdefault(s.student_id.lower(), []).append(s)
            if s.lms_id:
                self.by_lms_id.setdefault(s.lms_id.lower(), []).append(s)
            if s.email:
                self.by_email.setdefault(s.email.lower(), []).append(s)
            for key in name_keys(s.name):
                self.by_name.setdefault(key, []).append(s)

    @staticmethod
    def _one(found):
        unique = {s.student_id: s for s in found or []}
        return next(iter(unique.values())) if len(unique) == 1 else None

    def match(self, name, email, raw_id, suggested):
        """The roster student this person is, and how it was decided; ``(None, "")`` when none."""
        if raw_id:
            student = self._one(self.by_lms_id.get(raw_id.lower()))
            if student:
                return student, "LMS id"
        if email:
            student = self._one(self.by_email.get(email.lower()))
            if student:
                return student, "email"
        for candidate in (raw_id, suggested):
            if candidate:
                student = self._one(self.by_id_folded.get(candidate.lower()))
                if student:
                    return student, "student id"
        found = [s for key in name_keys(name) for s in self.by_name.get(key, [])]
        student = self._one(found)
        if student:
            return student, "name"
        return None, ""


def _when(entry, local_zone):
    return _aware(entry.submitted_at, local_zone)


def _describe(entry):
    who = entry.name or _raw_identity(entry)
    return f"{LMS_NAMES.get(entry.lms, entry.lms)} entry {entry.source!r} ({who})"


def resolve(entries, *, roster=None, deadline=None, local_zone=None):
    """One :class:`Resolved` per student, the missing roster students, and the other attempts.

    ``deadline`` is an aware datetime (see :func:`parse_deadline`); LMS times
    without a zone (Blackboard's file names) are read in ``local_zone``
    (default: the machine's).
    """
    index = _RosterIndex(roster) if roster is not None else None
    roster_ids = set(index.by_id) if index else set()

    # 1. Each person (an LMS identity) gets one id; two people never share one.
    person_of = {}
    for entry in sorted(entries, key=lambda e: (e.lms, e.identity, e.source)):
        person_of.setdefault((entry.lms, entry.identity), entry)
    assigned, matched_by, taken = {}, {}, set(roster_ids)
    unmatched = []
    for key, entry in sorted(person_of.items()):
        if index is not None:
            student, how = index.match(entry.name, entry.email, _raw_identity(entry), entry.suggested_id)
            if student:
                assigned[key] = student.student_id
                matched_by[key] = (student, how)
                continue
        unmatched.append((key, entry))
    for key, entry in unmatched:
        candidate = entry.suggested_id
        if candidate in taken:
            digest = hashlib.sha256(f"{key[0]}:{key[1]}".encode("utf-8")).hexdigest()[:6]
            candidate = f"{candidate[:90]}-{digest}"
        taken.add(candidate)
        assigned[key] = candidate

    # 2. The latest attempt of each student is graded.
    by_student = {}
    for entry in entries:
        by_student.setdefault(assigned[(entry.lms, entry.identity)], []).append(entry)
    oldest = datetime.datetime.min.replace(tzinfo=datetime.timezone.utc)
    graded, superseded, untimed = [], [], 0
    for student_id in sorted(by_student):
        attempts = sorted(by_student[student_id],
                          key=lambda e: (_when(e, local_zone) is not None, _when(e, local_zone) or oldest,
                                         e.order, e.source))
        latest = attempts[-1]
        for earlier in attempts[:-1]:
            when = _when(earlier, local_zone)
            superseded.append(Unused(earlier.source, (
                f"an earlier attempt by {student_id}" + (f" (submitted {when.isoformat()})" if when else "")
                + f"; the latest, {latest.source!r}, was graded"), "superseded"))
        key = (latest.lms, latest.identity)
        flags = []
        when = _when(latest, local_zone)
        if latest.marked_late:
            flags.append(("late", f"{LMS_NAMES.get(latest.lms, latest.lms)} marked it LATE"))
        elif deadline is not None and when is not None and when > deadline:
            flags.append(("late", f"submitted {when.isoformat()}, {_duration(when - deadline)} after the deadline "
                                  f"{deadline.isoformat()}"))
        if deadline is not None and when is None and not latest.marked_late:
            untimed += 1
        if latest.extra_files:
            shown = ", ".join(latest.extra_files[:10]) + (f" and {len(latest.extra_files) - 10} more"
                                                          if len(latest.extra_files) > 10 else "")
            flags.append(("extra-files", shown))
        student, how = matched_by.get(key, (None, ""))
        if index is not None and student is None:
            flags.append(("not-on-roster", f"{_describe(latest)} matches no student of the roster"))
        graded.append(Resolved(student_id, latest, tuple(flags), student, how))

    # 3. The other members of a group submission get its grade, unless they have an entry of their own.
    covered = set(by_student)
    for n, resolved in enumerate(graded):
        members = []
        for name, sid, email in resolved.entry.co_submitters:
            student, _ = index.match(name, email, sid, safe_id(sid) if sid else "") if index else (None, "")
            member_id = student.student_id if student else safe_id(sid or (email.split("@")[0] if email else "")
                                                                   or name or "member")
            if member_id in covered:
                continue
            covered.add(member_id)
            flags = [("group-submission", f"graded from {resolved.entry.source!r}, submitted by "
                                          f"{resolved.entry.name or resolved.student_id} for the group")]
            if index is not None and student is None:
                flags.append(("not-on-roster", f"group member {name or sid or email} matches no student of the roster"))
            members.append(GroupMember(member_id, student.name if student else name,
                                       student.email if student and student.email else email, tuple(flags)))
        if members:
            graded[n] = dataclasses.replace(resolved, group=tuple(members))

    # 4. Roster students with no entry and in no group.
    missing = []
    if index is not None:
        missing = [Resolved(s.student_id, None, (), s) for s in sorted(roster, key=lambda s: s.student_id)
                   if s.student_id not in covered]
    return Resolution(graded, missing, superseded, untimed)


def _duration(delta):
    seconds = int(delta.total_seconds())
    days, seconds = divmod(seconds, 86400)
    hours, seconds = divmod(seconds, 3600)
    minutes = seconds // 60
    parts = [f"{days} d"] if days else []
    if hours or days:
        parts.append(f"{hours} h")
    parts.append(f"{minutes} min")
    return " ".join(parts)
