"""``python -m autograder send-grades OUT``: each student's total, straight into the LMS's gradebook column (LTI AGS).

Instead of importing ``canvas_import.csv`` or Moodle's worksheet, the
instructor sends the totals that ``grade`` or ``export`` wrote in
``OUT/grades.csv`` through LTI Advantage: the tool asks the platform for an
access token with a client assertion signed by its own key
(:mod:`autograder.lti.tool_key`), finds the assignment's line item by its
``resourceId`` (the assignment's name) or creates it out of the whole
assignment's points, matches each student of the run to an LMS user through
the course's memberships (NRPS: the field the registration names must hold
the student's id), and posts one score per student
(:mod:`autograder.lti.services`).  The registration is the instructor's
``lti_grades.toml`` in the course directory (:mod:`autograder.lti.registration`).

Every student of the run is decided about and recorded
(:mod:`autograder.lti.sends`): sent (with the LMS's HTTP status), unchanged
since the last send of the same score to the same line item (so a second
send sends nothing), or not sent and why (no LMS member matches, two do,
the LMS lists them as inactive, the leak audit held the comment back, the
LMS refused it).  When the LMS fails in the middle, the students sent and
those not sent are named, and the next run sends only what is left.

Options: ``--dry-run`` prints what would be sent and sends and records
nothing; ``--allow-unmarked`` sends while written answers are still
unmarked (refused otherwise, as ``export`` refuses), those students'
scores marked ``PendingManual``; ``--comment`` sends each student's
feedback summary as the score's comment; ``--history`` prints every earlier
send; ``--new-key`` makes the tool's key and prints its public key set
(JWKS) to register in the LMS, ``--public-key`` prints it again (``jwk``
for Canvas's form, ``pem`` for Moodle's).

Exit status 0 when every student was sent or unchanged; 1 when a student
was not sent, or when answers are unmarked (nothing sent); 2 when it cannot
start (the run, the gradebook, the registration, the key, the LMS's token,
members or line item), and then nothing was sent.
"""

import argparse
import datetime
import json
import os
import sys

__all__ = ["main"]


def _fail(message, status=2):
    print(f"autograder send-grades: {message}", file=sys.stderr)
    return status


def _parser():
    parser = argparse.ArgumentParser(
        prog="python -m autograder send-grades",
        description="Send each student's total of a grading run (OUT/grades.csv, as grade or export wrote it) "
                    "to the LMS's gradebook column through LTI Advantage's Assignment and Grade Services.")
    parser.add_argument("out", metavar="OUT", nargs="?",
                        help="the folder a 'python -m autograder grade ... --out OUT' run (and export) wrote")
    parser.add_argument("--dry-run", action="store_true",
                        help="print what would be sent (student, LMS user, score, comment); send and record nothing")
    parser.add_argument("--allow-unmarked", action="store_true",
                        help="send while written answers are still unmarked (counted 0, sent as PendingManual)")
    parser.add_argument("--comment", action="store_true",
                        help="send each student's feedback summary as the score's comment")
    parser.add_argument("--history", action="store_true",
                        help="print every earlier send of the course (of OUT's assignment, when OUT is given)")
    parser.add_argument("--new-key", action="store_true",
                        help="make the tool's private key in the course directory and print its public key set "
                             "(JWKS) to register in the LMS")
    parser.add_argument("--public-key", nargs="?", const="jwks", choices=("jwks", "jwk", "pem"),
                        help="print the public half of the tool's key again: jwks (default), jwk (one key, for "
                             "Canvas's Public JWK) or pem (for Moodle's RSA key)")
    parser.add_argument("--config", metavar="FILE",
                        help="the registration file (default: lti_grades.toml in the course directory)")
    parser.add_argument("--course-dir", metavar="DIR",
                        help="the nbgrader course directory (default: the one the grade run used, else notebooks/)")
    return parser


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    chosen = [name for name, given in (("--new-key", args.new_key), ("--public-key", args.public_key),
                                       ("--history", args.history)) if given]
    if len(chosen) > 1:
        parser.error(f"{' and '.join(chosen)} go one at a time")
    if args.new_key or args.public_key:
        if args.out or args.dry_run or args.allow_unmarked or args.comment:
            parser.error(f"{chosen[0]} takes no OUT and no sending option, only --course-dir")
        return _keys(args)
    if args.history:
        return _history(args)
    if not args.out:
        parser.error("give OUT, the folder of a grading run (or --history, --new-key, --public-key)")
    return _send(args)


def _course_dir(args):
    from autograder.course import COURSE_DIR

    return os.path.abspath(args.course_dir or COURSE_DIR)


# -- the key ----------------------------------------------------------------------------------

def _keys(args):
    from autograder.lti import tool_key

    course_dir = _course_dir(args)
    try:
        key = tool_key.make(course_dir) if args.new_key else tool_key.load(course_dir)
    except tool_key.ToolKeyError as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"cannot write the tool's key in {course_dir}: {exc.strerror or exc}")
    form = args.public_key or "jwks"
    if args.new_key:
        print(f"made the tool's key {key.path} (readable by you only; never copy it anywhere). Register its public "
              "half, printed below, in the LMS (README, 'Sending grades back'); 'send-grades --public-key jwk' or "
              "'--public-key pem' print it in the forms Canvas's and Moodle's settings take", file=sys.stderr)
    if form == "pem":
        print(tool_key.public_pem(key), end="")
    else:
        print(json.dumps(tool_key.public_jwks(key) if form == "jwks" else tool_key.public_jwk(key), indent=2))
    return 0


# -- the history ------------------------------------------------------------------------------

def _score_text(row):
    score = row.get("score") or {}
    given, maximum = score.get("scoreGiven"), score.get("scoreMaximum")
    if not isinstance(given, (int, float)) or not isinstance(maximum, (int, float)):
        return "-"
    return f"{given:g} / {maximum:g}"


def _history(args):
    from autograder.lti.sends import SendRecord
    from autograder.outputs import graded_run

    assignment = None
    course_dir = args.course_dir
    if args.out:
        try:
            run = graded_run.load(args.out)
        except graded_run.RunRecordError as exc:
            return _fail(str(exc))
        assignment, course_dir = run.assignment, course_dir or run.course_dir
    record = SendRecord(os.path.abspath(course_dir) if course_dir else _course_dir(args))
    rows = [row for row in record.rows() if assignment is None or row.get("assignment") == assignment]
    if record.unreadable:
        print(f"autograder send-grades: {record.unreadable} lines of {record.path} are not records; left out",
              file=sys.stderr)
    if not rows:
        print("nothing was sent to the LMS from this course yet" + (f" for {assignment}" if assignment else "")
              + f" ({record.path} holds no send)")
        return 0
    for row in rows:
        status = row.get("http_status")
        print("  ".join([str(row.get("at", "?")), str(row.get("assignment", "?")), str(row.get("student_id", "?")),
                         str(row.get("outcome", "?")), _score_text(row),
                         f"LMS user {row.get('lms_user_id') or '-'}", f"HTTP {status}" if status else "no request",
                         f"line item {row.get('line_item') or '-'}"])
              + (f"  ({row['reason']})" if row.get("reason") else "")
              + ("  with a comment" if (row.get("score") or {}).get("comment") else ""))
    print(f"{len(rows)} {'row' if len(rows) == 1 else 'rows'} of {record.path}")
    return 0


# -- sending ----------------------------------------------------------------------------------

def _now():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def _match_key(value):
    return value.strip().casefold()


def _members_by_field(members, field):
    """``{normalised value of field: [member, ...]}`` (case and surrounding spaces aside)."""
    found = {}
    for member in members:
        value = member.user_id if field == "user_id" else member.fields.get(field)
        if value and value.strip():
            found.setdefault(_match_key(value), []).append(member)
    return found


def _indented(text, prefix="      "):
    return "\n".join(prefix + line for line in text.splitlines())


def _send(args):
    from autograder.lti import outgoing, registration, tool_key
    from autograder.lti.sends import RecordBusy, SendRecord
    from autograder.lti.services import Platform
    from autograder.outputs.totals import mark_command, unmarked_refusal

    try:
        prepared = outgoing.prepare(args.out, course_dir=args.course_dir, comments=args.comment)
    except outgoing.OutgoingError as exc:
        return _fail(str(exc))
    if prepared.waiting and not args.allow_unmarked:
        lines, reason = unmarked_refusal("send-grades", prepared.waiting)
        print("\n".join(lines), file=sys.stderr)
        mark = mark_command(prepared.assignment, prepared.course_dir)
        return _fail(f"{reason}, so nothing was sent; mark them ({mark}), export {args.out} again and send, or pass "
                     "--allow-unmarked to send the totals now with those answers counted 0 and the scores marked "
                     "PendingManual", status=1)
    try:
        reg = registration.load(args.config or registration.config_path(prepared.course_dir))
        key = tool_key.load(prepared.course_dir)
    except (registration.RegistrationError, tool_key.ToolKeyError) as exc:
        return _fail(str(exc))
    held = outgoing.held_comments(prepared) if args.comment else {}
    record = SendRecord(prepared.course_dir)
    if args.dry_run:
        return _deliver(prepared, reg, Platform(reg, key), held, record, dry_run=True)
    try:
        with record.locked():
            return _deliver(prepared, reg, Platform(reg, key), held, record, dry_run=False)
    except RecordBusy as exc:
        return _fail(str(exc))
    except OSError as exc:
        return _fail(f"cannot write the record of sends {record.path}: {exc.strerror or exc}; the students whose "
                     "lines are not in it may have been sent: run send-grades again, which sends each one once more "
                     "at most")


def _deliver(prepared, reg, platform, held, record, *, dry_run):
    """Decide about every student, send (unless ``dry_run``) and record; the exit status."""
    from autograder.lti.sends import NOT_SENT, SENT, UNCHANGED, same_score
    from autograder.lti.services import PlatformError

    assignment = prepared.assignment
    try:
        members, dropped = platform.members()
        items = platform.line_items(assignment)
    except PlatformError as exc:
        return _fail(f"{exc}; nothing was sent")
    if len(items) > 1:
        return _fail(f"the course in the LMS has {len(items)} gradebook columns (line items) with resourceId "
                     f"{assignment!r}: " + ", ".join(f"{item.label!r} ({item.id})" for item in items)
                     + "; delete all but one in the LMS, then send again. Nothing was sent")
    item = items[0] if items else None
    if item is None and dry_run:
        print(f"would create the line item {assignment!r} (resourceId {assignment!r}) out of {prepared.maximum:g} "
              f"in {reg.lineitems_url}")
    elif item is None:
        try:
            item = platform.create_line_item(assignment, assignment, prepared.maximum)
        except PlatformError as exc:
            return _fail(f"cannot create the line item {assignment!r}: {exc}; nothing was sent")
        print(f"created the line item {item.label!r} (resourceId {assignment!r}) out of {item.score_maximum:g}: "
              f"{item.id}")
    else:
        print(f"line item {item.label!r} (resourceId {assignment!r}): {item.id}")
        if item.score_maximum != prepared.maximum:
            print(f"note: the line item is out of {item.score_maximum:g} and the assignment out of "
                  f"{prepared.maximum:g}; each score says it is out of {prepared.maximum:g}, and the LMS scales it")
    if dropped:
        print(f"note: the LMS listed {dropped} {'member' if dropped == 1 else 'members'} without a user_id, who "
              "cannot be matched")

    field = reg.student_id_field
    by_field = _members_by_field(members, field)
    rows = record.rows()
    line_item = item.id if item is not None else None
    outcomes = {SENT: [], UNCHANGED: [], NOT_SENT: []}
    matched = set()

    def write(student, outcome, *, member=None, score=None, reason="", status=None, since=None):
        outcomes[outcome].append(student.student_id)
        entry = {"at": _now(), "assignment": assignment, "out": prepared.out, "platform": reg.platform,
                 "line_item": line_item, "student_id": student.student_id,
                 "lms_user_id": member.user_id if member else None, "outcome": outcome, "reason": reason,
                 "score": score, "http_status": status}
        if since:
            entry["since"] = since
        if not dry_run:
            record.append(entry)

    def say(student, text):
        print(f"{student.student_id}: {text}")

    plan = []
    for student in prepared.students:
        found = by_field.get(_match_key(student.student_id), [])
        matched.update(m.user_id for m in found)
        if not found:
            reason = f"no LMS member of the course has {field} {student.student_id!r}"
            say(student, ("would not send: " if dry_run else "not sent: ") + reason)
            write(student, NOT_SENT, reason=reason)
            continue
        if len(found) > 1:
            reason = (f"{len(found)} LMS members have {field} {student.student_id!r} ("
                      + ", ".join(f"{m.name or '?'}, user {m.user_id}" for m in found) + "); none is guessed")
            say(student, ("would not send: " if dry_run else "not sent: ") + reason)
            write(student, NOT_SENT, reason=reason)
            continue
        member = found[0]
        if member.status != "Active":
            reason = f"the LMS lists them as {member.status} in the course (user {member.user_id})"
            say(student, ("would not send: " if dry_run else "not sent: ") + reason)
            write(student, NOT_SENT, member=member, reason=reason)
            continue
        if student.student_id in held:
            reason = ("the leak audit held the comment back: " + "; ".join(held[student.student_id])
                      + " (fix the cause, export and send again)")
            say(student, ("would not send: " if dry_run else "not sent: ") + reason)
            write(student, NOT_SENT, member=member, reason=reason)
            continue
        score = {"userId": member.user_id, "scoreGiven": student.total, "scoreMaximum": student.maximum,
                 "activityProgress": student.activity_progress, "gradingProgress": student.grading_progress,
                 "timestamp": _now()}
        if student.comment is not None:
            score["comment"] = student.comment
        earlier = record.last_sent(rows, line_item, student.student_id) if line_item else None
        if earlier is not None and same_score(earlier.get("score"), score):
            say(student, f"unchanged since it was sent {earlier.get('at')} ({student.total:g} / "
                         f"{student.maximum:g} to LMS user {member.user_id}); not sent again")
            write(student, UNCHANGED, member=member, score=score, since=earlier.get("at"))
            continue
        plan.append((student, member, score))

    stopped = None
    for student, member, score in plan:
        what = (f"{student.total:g} / {student.maximum:g} to LMS user {member.user_id}"
                + (f" ({member.name})" if member.name else "")
                + f", {score['activityProgress']}, {score['gradingProgress']}")
        if dry_run:
            say(student, "would send " + what + (", with the comment:" if "comment" in score else ", no comment"))
            if "comment" in score:
                print(_indented(score["comment"]))
            outcomes[SENT].append(student.student_id)
            continue
        if stopped is not None:
            say(student, "not sent: not tried after the LMS failed")
            write(student, NOT_SENT, member=member, score=score, reason=f"not tried: {stopped}")
            continue
        try:
            status = platform.post_score(item, score)
        except PlatformError as exc:
            if exc.about_one:
                say(student, f"not sent: the LMS refused it: {exc}")
                write(student, NOT_SENT, member=member, score=score, reason=f"the LMS refused it: {exc}",
                      status=exc.status)
                continue
            stopped = f"the LMS failed on {student.student_id}'s score: {exc}"
            say(student, f"not sent: {exc}")
            write(student, NOT_SENT, member=member, score=score, reason=str(exc), status=exc.status)
            continue
        say(student, f"sent {what} (HTTP {status})")
        write(student, SENT, member=member, score=score, status=status)

    unmatched = [m for m in members if m.is_learner and m.user_id not in matched]
    if unmatched:
        one = len(unmatched) == 1
        print(f"{len(unmatched)} {'learner' if one else 'learners'} of the LMS course {'matches' if one else 'match'} "
              f"no student of this run by {field}: "
              + ", ".join(f"{m.name or '?'} (user {m.user_id}"
                          + (f", {field} {m.fields.get(field)!r}" if field != "user_id" and m.fields.get(field) else "")
                          + ")" for m in unmatched))
    sent, unchanged, not_sent = outcomes[SENT], outcomes[UNCHANGED], outcomes[NOT_SENT]
    if dry_run:
        print(f"dry run: would send {len(sent)}, {len(unchanged)} unchanged, would not send {len(not_sent)}"
              + (f" ({', '.join(not_sent)})" if not_sent else "") + "; nothing was sent or recorded")
        return 1 if not_sent else 0
    if stopped is not None:
        print(f"autograder send-grades: stopped: {stopped}. Sent: {', '.join(sent) or 'none'}. Not sent: "
              f"{', '.join(not_sent)}. Run send-grades again to send the rest: what was sent is not sent twice",
              file=sys.stderr)
    print(f"sent {len(sent)}, unchanged {len(unchanged)}, not sent {len(not_sent)}"
          + (f" ({', '.join(not_sent)})" if not_sent else "") + f"; every student's row is in {record.path}")
    return 1 if not_sent else 0
