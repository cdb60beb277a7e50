"""The record of sends: whole lines only, a crash's half line never read and cut off before the next, the last
send of a student and line item found, and one send at a time."""

import json
import os
import stat

import pytest

from autograder.lti.sends import NOT_SENT, SENT, UNCHANGED, RecordBusy, SendRecord, same_score

ITEM, OTHER_ITEM = "https://lms.example.edu/line_items/1", "https://lms.example.edu/line_items/2"


def row(student, outcome, given, item=ITEM, at="2026-01-01T00:00:00.000+00:00"):
    return {"at": at, "student_id": student, "outcome": outcome, "line_item": item,
            "score": {"userId": f"u-{student}", "scoreGiven": given, "scoreMaximum": 14,
                      "timestamp": at, "gradingProgress": "FullyGraded", "activityProgress": "Completed"}}


def test_rows_come_back_in_order_as_written_and_the_file_is_the_owner_s(tmp_path):
    record = SendRecord(tmp_path)
    with record.locked():
        record.append(row("ada", SENT, 12))
        record.append(row("grace", NOT_SENT, 10) | {"reason": "no LMS member … matches"})
    assert [r["student_id"] for r in record.rows()] == ["ada", "grace"]
    assert record.rows()[1]["reason"] == "no LMS member … matches"
    assert stat.S_IMODE(os.stat(record.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(record.folder).st_mode) == 0o700


def test_a_half_written_line_is_never_read_and_is_cut_off_before_the_next(tmp_path):
    record = SendRecord(tmp_path)
    with record.locked():
        record.append(row("ada", SENT, 12))
    whole = open(record.path, "rb").read()
    with open(record.path, "ab") as handle:  # a crash in the middle of the next line
        handle.write(json.dumps(row("grace", SENT, 10)).encode()[:40])
    assert [r["student_id"] for r in record.rows()] == ["ada"]
    with record.locked():
        record.append(row("alan", SENT, 9))
    data = open(record.path, "rb").read()
    assert data.startswith(whole) and data.count(b"\n") == 2 and data.endswith(b"\n")
    assert [r["student_id"] for r in record.rows()] == ["ada", "alan"]
    assert record.unreadable == 0


def test_a_line_that_is_no_record_is_counted_and_left_out(tmp_path):
    record = SendRecord(tmp_path)
    os.makedirs(record.folder)
    with open(record.path, "wb") as handle:
        handle.write(b"not json\n" + json.dumps(row("ada", SENT, 12)).encode() + b"\n[1, 2]\n")
    assert [r["student_id"] for r in record.rows()] == ["ada"]
    assert record.unreadable == 2


def test_the_last_send_is_of_that_student_and_line_item_and_a_send_that_happened(tmp_path):
    rows = [row("ada", SENT, 10, at="1"), row("ada", SENT, 12, at="2"), row("ada", NOT_SENT, 13, at="3"),
            row("ada", UNCHANGED, 12, at="4"), row("ada", SENT, 5, OTHER_ITEM, at="5"), row("grace", SENT, 1, at="6")]
    assert SendRecord.last_sent(rows, ITEM, "ada")["at"] == "2"
    assert SendRecord.last_sent(rows, OTHER_ITEM, "ada")["at"] == "5"
    assert SendRecord.last_sent(rows, ITEM, "alan") is None


def test_the_same_score_is_the_same_whenever_it_was_sent():
    earlier = row("ada", SENT, 12, at="2026-01-01")["score"]
    assert same_score(earlier, {**earlier, "timestamp": "2026-02-01"})
    assert not same_score(earlier, {**earlier, "scoreGiven": 12.5})
    assert not same_score(earlier, {**earlier, "comment": "Well done."})
    assert not same_score(earlier, {**earlier, "gradingProgress": "PendingManual"})
    assert not same_score(None, earlier)


def test_one_send_at_a_time(tmp_path):
    record = SendRecord(tmp_path)
    with record.locked():
        with pytest.raises(RecordBusy, match="another 'send-grades' of this course is sending now"):
            with SendRecord(tmp_path).locked():
                pass
    with SendRecord(tmp_path).locked():  # free again once the first is done
        pass
