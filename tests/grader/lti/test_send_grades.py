"""``send-grades`` end to end: a graded class's totals into a stand-in LMS's gradebook through LTI Advantage.

No LMS runs here: the platform is :class:`tests.support.lti_grades_platform.GradesPlatform`, on loopback, which
stands in for Canvas or Moodle (a token endpoint that checks the tool's signed assertion, line items, scores and
memberships, as the specifications say) and records every score it stores.

The class is the marking tests' (``graded_class``: ps2 graded once per run for five plain submissions, three
with written answers to mark, one with them blank and the release untouched), copied with its ``OUT``.  The LMS
course has four of the five (babbage never joined it), one learner who is no student of the run, and the
instructor; one member's SIS id is in capitals.  In order, as an instructor would: the tool's key is made and
its key set registered; a send is refused while answers are unmarked, and nothing reaches the LMS; into a
second column, a dry run prints what ``--allow-unmarked`` sends and sends nothing, then it sends; the TAs mark
through the CSV route and ``export`` writes the files again; a send with comments stops when the LMS goes down
after two scores, naming who was sent and who not; the rerun sends only the rest; a third sends nothing.  Then,
each in a copy of the course: a damaged key, a key the LMS does not know, and a TA's comment that names another
student (the leak audit holds it back).  One grading run in all (shared).
"""

import base64
import csv
import io
import json
import shutil
import subprocess
import sys

import pytest

from autograder.lti import tool_key
from tests.support import ROOT
from tests.support.lti_grades_platform import INSTRUCTOR, GradesPlatform, member
from tests.support.marking_class import A, D1, D2
from tests.support.released import copy_course

CLIENT = "10000000000042"
COURSE_CONTEXT, EARLY_CONTEXT, HELD_CONTEXT = "perceptron-2026", "perceptron-2026-early", "perceptron-2026-held"
USERS = {"hopper": "u-81f3", "lovelace": "u-0a77", "noether": "u-5c21", "turing": "u-e940"}
MEMBERS = [member(USERS["lovelace"], "lovelace", "Ada Lovelace"), member(USERS["noether"], "noether", "Emmy Noether"),
           member(USERS["turing"], "TURING", "Alan Turing"), member(USERS["hopper"], "hopper", "Grace Hopper"),
           member("u-77aa", "knuth", "Donald Knuth"), member("u-teacher", "teacher", "Ann Teacher", roles=INSTRUCTOR)]
MARKS = {("lovelace", D1): ("2", "Clear and complete."), ("lovelace", D2): ("1.5", "Say why shuffling helps."),
         ("noether", D1): ("1", "Batch is missing."), ("noether", D2): ("2", ""),
         ("turing", D1): ("0.5", "Online is missing."), ("turing", D2): ("0", "Say why.")}
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def grades_of(out):
    with open(out / "grades.csv", encoding="utf-8", newline="") as handle:
        return {row["student_id"]: row for row in csv.DictReader(handle)}


def filled(data, marks):
    rows = list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    for row in rows:
        if (row["student_id"], row["question"]) in marks:
            row["points"], row["comment"] = marks[row["student_id"], row["question"]]
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=list(rows[0]), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    return text.getvalue().encode("utf-8")


@pytest.fixture(scope="module")
def journey(graded_class, tmp_path_factory):
    root = tmp_path_factory.mktemp("send-grades")
    course = copy_course(graded_class / "course", root / "course")
    out = root / "out"
    shutil.copytree(graded_class / "out", out)
    platform = GradesPlatform(page_size=2)
    platform.add_context(COURSE_CONTEXT, MEMBERS)
    platform.add_context(EARLY_CONTEXT, MEMBERS)
    platform.add_context(HELD_CONTEXT, MEMBERS)
    shown = []  # everything any command printed, for the key's check

    def autograder(*args, course_dir=course):
        done = subprocess.run([sys.executable, "-m", "autograder", *map(str, args), "--course-dir", str(course_dir)],
                              capture_output=True, text=True, cwd=ROOT, timeout=600)
        shown.append(done.stdout + done.stderr)
        return {"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr}

    steps = {"course": course, "out": out, "platform": platform, "shown": shown}
    steps["new key"] = autograder("send-grades", "--new-key")
    platform.register_tool(CLIENT, json.loads(steps["new key"]["stdout"]))
    (course / "lti_grades.toml").write_text(platform.registration_toml(COURSE_CONTEXT, CLIENT), encoding="utf-8")
    early = root / "early.toml"
    early.write_text(platform.registration_toml(EARLY_CONTEXT, CLIENT), encoding="utf-8")

    steps["refused"] = autograder("send-grades", out)
    steps["refused tokens"] = platform.token_requests
    steps["graded"] = grades_of(out)
    steps["early dry run"] = autograder("send-grades", out, "--allow-unmarked", "--dry-run", "--config", early)
    steps["early dry run stored"] = (list(platform.scores), platform.line_items(EARLY_CONTEXT))
    steps["early"] = autograder("send-grades", out, "--allow-unmarked", "--config", early)

    sheet = root / "marks.csv"
    steps["to csv"] = autograder("mark", A, "--to-csv", sheet)
    sheet.write_bytes(filled(sheet.read_bytes(), MARKS))
    steps["from csv"] = autograder("mark", A, "--from-csv", sheet)
    steps["export"] = autograder("export", out)
    steps["exported"] = grades_of(out)

    platform.fail_scores_after = len(platform.scores) + 2  # the LMS goes down after two more scores
    steps["failed"] = autograder("send-grades", out, "--comment")
    steps["stored after failure"] = len(platform.scores)
    platform.fail_scores_after = None
    steps["rerun"] = autograder("send-grades", out, "--comment")
    steps["stored after rerun"] = len(platform.scores)
    steps["again"] = autograder("send-grades", out, "--comment")
    steps["stored after again"] = len(platform.scores)
    steps["history"] = autograder("send-grades", "--history", out)
    steps["record"] = (course / ".autograder" / "lti" / "sends.jsonl").read_text(encoding="utf-8")

    # A damaged key, and a new key the LMS was never given, each in a copy of the course.
    damaged = copy_course(course, root / "damaged")
    key_file = damaged / ".autograder" / "lti" / tool_key.KEY_NAME
    steps["damaged bytes"] = key_file.read_bytes().replace(b"M", b"A")
    key_file.write_bytes(steps["damaged bytes"])
    steps["damaged"] = autograder("send-grades", out, course_dir=damaged)
    unknown = copy_course(course, root / "unknown")
    (unknown / ".autograder" / "lti" / tool_key.KEY_NAME).unlink()
    autograder("send-grades", "--new-key", course_dir=unknown)
    steps["unknown key"] = unknown / ".autograder" / "lti" / tool_key.KEY_NAME
    steps["unknown"] = autograder("send-grades", out, course_dir=unknown)
    steps["stored at the end"] = len(platform.scores)

    # In another copy, a TA's comment names another student: the leak audit holds that comment back.
    held, held_out = copy_course(course, root / "held"), root / "held-out"
    shutil.copytree(out, held_out)
    (held / "lti_grades.toml").write_text(platform.registration_toml(HELD_CONTEXT, CLIENT), encoding="utf-8")
    autograder("mark", A, "--to-csv", root / "held.csv", course_dir=held)
    (root / "held.csv").write_bytes(filled((root / "held.csv").read_bytes(),
                                           {("lovelace", D1): ("2", "As clear as noether's answer.")}))
    autograder("mark", A, "--from-csv", root / "held.csv", course_dir=held)
    autograder("export", held_out, course_dir=held)
    steps["held"] = autograder("send-grades", held_out, "--comment", course_dir=held)
    yield steps
    platform.close()


def main_item(journey):
    (item,) = journey["platform"].line_items(COURSE_CONTEXT)
    return item


def test_the_key_is_made_in_the_course_and_its_key_set_printed(journey):
    assert journey["new key"]["returncode"] == 0, journey["new key"]["stderr"]
    (jwk,) = json.loads(journey["new key"]["stdout"])["keys"]
    assert jwk["kty"] == "RSA" and "d" not in jwk


def test_unmarked_answers_are_refused_and_nothing_reaches_the_lms(journey):
    refused = journey["refused"]
    assert refused["returncode"] == 1
    for student in ("lovelace", "noether", "turing"):
        for question in (D1, D2):
            assert f"unmarked: student {student}, question {question}" in refused["stderr"]
    assert "6 written answers are still to be marked" in refused["stderr"]
    assert f"mark them (python -m autograder mark {A} --course-dir {journey['course']})" in refused["stderr"], \
        "the command to mark them opens this course"
    assert "--allow-unmarked" in refused["stderr"]
    assert journey["refused tokens"] == 0


def test_a_dry_run_prints_what_it_would_send_and_sends_nothing(journey):
    dry = journey["early dry run"]
    assert dry["returncode"] == 1, dry["stderr"]  # babbage would not be sent
    assert journey["early dry run stored"] == ([], [])
    graded = journey["graded"]
    assert f"would create the line item '{A}'" in dry["stdout"]
    for student, user in USERS.items():
        progress = "FullyGraded" if student == "hopper" else "PendingManual"
        total, maximum = float(graded[student]["total"]), float(graded[student]["total_max"])
        assert (f"{student}: would send {total:g} / {maximum:g} to LMS user {user}" in dry["stdout"]
                and f"Completed, {progress}, no comment" in dry["stdout"]), dry["stdout"]
    assert "babbage: would not send: no LMS member of the course has lis_person_sourcedid 'babbage'" in dry["stdout"]
    assert "nothing was sent or recorded" in dry["stdout"]


def test_allowing_unmarked_answers_sends_them_as_pending_manual_as_the_dry_run_said(journey):
    early = journey["early"]
    assert early["returncode"] == 1, early["stderr"]
    (item,) = journey["platform"].line_items(EARLY_CONTEXT)
    assert (item["label"], item["resourceId"], item["scoreMaximum"]) == (A, A, 14)
    sent = {s["userId"]: s for s in journey["platform"].scores_of(item["id"])}
    graded = journey["graded"]
    for student, user in USERS.items():
        score = sent.pop(user)
        assert score["scoreGiven"] == float(graded[student]["total"])
        assert score["gradingProgress"] == ("FullyGraded" if student == "hopper" else "PendingManual")
        assert "comment" not in score
        assert (f"{student}: would send {score['scoreGiven']:g} / {score['scoreMaximum']:g} to LMS user {user}"
                in journey["early dry run"]["stdout"])
    assert sent == {}


def test_the_lms_receives_exactly_the_totals_export_wrote_once_each(journey):
    assert journey["export"]["returncode"] == 0, journey["export"]["stderr"]
    item = main_item(journey)
    assert (item["label"], item["scoreMaximum"]) == (A, 14)
    scores = journey["platform"].scores_of(item["id"])
    assert sorted(s["userId"] for s in scores) == sorted(USERS.values())  # each once, failure and rerun together
    exported = journey["exported"]
    for student, user in USERS.items():
        (score,) = [s for s in scores if s["userId"] == user]
        row = exported[student]
        assert (score["scoreGiven"], score["scoreMaximum"]) == (float(row["total"]), float(row["total_max"]))
        assert (score["activityProgress"], score["gradingProgress"]) == ("Completed", "FullyGraded")
        assert score["comment"].startswith(f"{A}: ") and f"Total: {row['total']} / 14 points." in score["comment"]
        assert score["comment"].endswith(f"ask your instructor for the page {student}.html.")
    lovelace = next(s for s in scores if s["userId"] == USERS["lovelace"])
    assert "Clear and complete." in lovelace["comment"] and "Say why shuffling helps." in lovelace["comment"]


def test_a_failure_midway_names_who_was_sent_and_the_rerun_sends_only_the_rest(journey):
    failed, rerun = journey["failed"], journey["rerun"]
    assert failed["returncode"] == 1
    assert "hopper: sent" in failed["stdout"] and "lovelace: sent" in failed["stdout"]
    assert "noether: not sent: POST" in failed["stdout"] and "HTTP 503" in failed["stdout"]
    assert ("stopped: the LMS failed on noether's score" in failed["stderr"]
            and "Sent: hopper, lovelace. Not sent: babbage, noether, turing." in failed["stderr"])
    assert rerun["returncode"] == 1, rerun["stderr"]  # babbage still has no LMS account
    for student in ("hopper", "lovelace"):
        assert f"{student}: unchanged since it was sent" in rerun["stdout"]
    for student in ("noether", "turing"):
        assert f"{student}: sent" in rerun["stdout"]
    assert "sent 2, unchanged 2, not sent 1 (babbage)" in rerun["stdout"]


def test_a_second_send_changes_nothing(journey):
    again = journey["again"]
    assert journey["stored after again"] == journey["stored after rerun"]
    assert "sent 0, unchanged 4, not sent 1 (babbage)" in again["stdout"]
    assert again["returncode"] == 1


def test_every_student_has_a_row_of_every_send_in_the_record(journey):
    rows = [json.loads(line) for line in journey["record"].splitlines()]
    runs = {}
    for row in rows:
        runs.setdefault(row["line_item"] if row["line_item"] else None, []).append(row)
    item = main_item(journey)["id"]
    outcomes = [(r["student_id"], r["outcome"]) for r in runs[item]]
    students = ["babbage", "hopper", "lovelace", "noether", "turing"]
    assert sorted(outcomes[:5]) == [("babbage", "not sent"), ("hopper", "sent"), ("lovelace", "sent"),
                                    ("noether", "not sent"), ("turing", "not sent")]
    assert sorted(outcomes[5:10]) == [("babbage", "not sent"), ("hopper", "unchanged"), ("lovelace", "unchanged"),
                                      ("noether", "sent"), ("turing", "sent")]
    assert sorted(outcomes[10:]) == [(s, "not sent" if s == "babbage" else "unchanged") for s in students]
    by = {(r["student_id"], r["outcome"]): r for r in runs[item][:5]}
    assert by["noether", "not sent"]["http_status"] == 503
    assert by["turing", "not sent"]["reason"].startswith("not tried: the LMS failed on noether's score")
    assert by["babbage", "not sent"]["reason"] == "no LMS member of the course has lis_person_sourcedid 'babbage'"
    assert by["hopper", "sent"]["http_status"] == 200 and by["hopper", "sent"]["lms_user_id"] == USERS["hopper"]
    assert by["hopper", "sent"]["platform"] == {"issuer": journey["platform"].url, "client_id": CLIENT,
                                                 "deployment_id": "1:stand-in"}
    history = journey["history"]["stdout"]
    assert f"{len(rows)} rows of " in history
    assert sum(f"  {A}  " in line for line in history.splitlines()) == len(rows)


def test_the_learner_no_student_matches_is_named(journey):
    assert "1 learner of the LMS course matches no student of this run by lis_person_sourcedid: Donald Knuth " \
           "(user u-77aa, lis_person_sourcedid 'knuth')" in journey["rerun"]["stdout"]


def test_a_damaged_or_unknown_key_is_refused_with_a_clear_message_and_nothing_sent(journey):
    damaged, unknown = journey["damaged"], journey["unknown"]
    assert damaged["returncode"] == 2
    assert "is not an unencrypted PEM private key (damaged or replaced?)" in damaged["stderr"]
    assert unknown["returncode"] == 2
    assert "the LMS refused the tool's key for client id 10000000000042" in unknown["stderr"]
    assert "send-grades --public-key" in unknown["stderr"] and "nothing was sent" in unknown["stderr"]
    assert journey["stored at the end"] == journey["stored after again"]


def base64url(number):
    return base64.urlsafe_b64encode(number.to_bytes((number.bit_length() + 7) // 8, "big")).rstrip(b"=").decode()


def test_the_private_key_never_appears_in_anything_written_or_printed(journey):
    pieces = []
    for key_file in (journey["course"] / ".autograder" / "lti" / tool_key.KEY_NAME, journey["unknown key"]):
        pieces += [line for line in key_file.read_text().splitlines() if line and not line.startswith("-----")]
    pieces += [line for line in journey["damaged bytes"].decode().splitlines() if line and not line.startswith("---")]
    private = tool_key.load(journey["course"]).private_key.private_numbers()
    pieces += [base64url(number) for number in (private.d, private.p, private.q)]  # as a private JWK would hold it
    everything = "\n".join(journey["shown"]) + journey["record"] + json.dumps(journey["platform"].scores)
    everything += "".join(p.read_text(encoding="utf-8", errors="replace") for p in journey["out"].rglob("*")
                          if p.is_file())
    assert pieces and not [piece for piece in pieces if piece in everything]


def test_a_comment_the_leak_audit_finds_something_in_is_held_back_and_its_student_not_sent(journey):
    held = journey["held"]
    assert held["returncode"] == 1, held["stderr"]
    assert ("lovelace: not sent: the leak audit held the comment back: lms-comment-for-lovelace: lovelace's "
            "feedback shows another student: noether") in held["stdout"]
    (item,) = journey["platform"].line_items(HELD_CONTEXT)
    sent = sorted(s["userId"] for s in journey["platform"].scores_of(item["id"]))
    assert sent == sorted(USERS[s] for s in ("hopper", "noether", "turing"))
