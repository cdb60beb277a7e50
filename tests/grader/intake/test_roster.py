"""Ids, the roster, attempts and lateness (:mod:`autograder.intake.roster`), and the gradebook exports (:mod:`autograder.outputs.exports`)."""

import csv
import datetime
import io

import pytest

from autograder.outputs.exports import ExportRow, canvas_csv, moodle_csv
from autograder.intake.lms import Entry, scan
from autograder.intake.roster import RosterError, RosterStudent, load_roster, name_keys, parse_deadline, resolve
from tests.support.lms_layouts import GRADESCOPE_METADATA, blackboard_attempt, issue_example, write

A = "ps1_hyperplanes"
NB = f"{A}.ipynb"
UTC = datetime.timezone.utc


def entry(lms, identity, suggested, **kw):
    kw.setdefault("notebook", f"/x/{identity}.ipynb")
    return Entry(lms, kw.pop("source", f"{identity}-src"), identity, suggested, **kw)


def flags(resolved):
    return dict(resolved.flags)


# -- the roster file ------------------------------------------------------------------------

def test_load_roster_accepts_common_headers(tmp_path):
    path = write(tmp_path, "roster.csv", "\ufeffStudent ID,First Name,Last Name,Email Address,Username\n"
                                         "s001,Ada,Lovelace,ada@example.edu,104233\n\n"
                                         "s002,Grace,Hopper,,\n")
    assert load_roster(path) == [RosterStudent("s001", "Ada Lovelace", "ada@example.edu", "104233"),
                                 RosterStudent("s002", "Grace Hopper", "", "")]


@pytest.mark.parametrize("text, message", [
    ("name,email\nAda,a@x\n", "no student_id column"),
    ("student_id,name\ns1,Ada\ns1,Bob\n", "twice (rows 2 and 3)"),
    ("student_id,name\n,Ada\n", "row 2 of the roster"),
    ("student_id,name\n../etc,Ada\n", "not usable"),
    ("", "is empty"),
])
def test_load_roster_rejects_bad_files_with_the_reason(tmp_path, text, message):
    path = write(tmp_path, "roster.csv", text)
    with pytest.raises(RosterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_roster(path)


def test_load_roster_names_a_missing_file(tmp_path):
    with pytest.raises(RosterError, match="cannot read the roster"):
        load_roster(str(tmp_path / "nope.csv"))


def test_name_keys_ignore_order_accents_and_case():
    assert "lovelaceada" in name_keys("Ada Lovelace")
    assert name_keys("hopper grace") & name_keys("Grace HOPPER")
    assert name_keys("Zoë Ångström") & name_keys("Zoe Angstrom")
    assert name_keys("") == set()


# -- ids without a roster ------------------------------------------------------------------------

def test_ids_without_roster_come_from_the_lms_and_never_collide():
    entries = [entry("canvas", "canvas:1", "zoe"), entry("moodle", "moodle:7", "zoe", name="Zoë"),
               entry("plain", "plain:bob", "bob")]
    result = resolve(entries)
    ids = sorted(r.student_id for r in result.graded)
    assert len(ids) == 3 and "bob" in ids and "zoe" in ids
    other = next(i for i in ids if i not in ("bob", "zoe"))
    assert other.startswith("zoe-") and len(other) == len("zoe-") + 6
    assert sorted(r.student_id for r in resolve(list(reversed(entries))).graded) == ids, "order does not matter"
    assert result.missing == [] and all(not r.flags for r in result.graded)


# -- the roster ------------------------------------------------------------------------------------

def test_roster_matches_lms_ids_emails_ids_and_names(tmp_path):
    issue_example(str(tmp_path))
    entries, _ = scan(str(tmp_path), A)
    roster = [RosterStudent("s01", "Ada Lovelace"), RosterStudent("s02", "Grace Hopper", lms_id="104871"),
              RosterStudent("s03", "Alan Turing"), RosterStudent("s04", "Emilie du Chatelet"),
              RosterStudent("kjohnson", "Katherine Johnson"), RosterStudent("s06", "Barbara Liskov"),
              RosterStudent("s07", "M. Hamilton", lms_id="mhamilton"),
              RosterStudent("s08", "D. Vaughan", email="DVaughan@example.edu"),
              RosterStudent("s09", "Frances Allen")]
    result = resolve(entries, roster=roster)
    got = {r.entry.source: r.student_id for r in result.graded}
    assert got == {f"lovelaceada_104233_5512301_{NB}": "s01",
                   f"hopper grace_LATE_104871_5512377_{A}-1.ipynb": "s02",
                   "Alan Turing_88123_assignsubmission_file_": "s03",
                   f"Émilie du Châtelet_88131_assignsubmission_file_{NB}": "s04",
                   f"PS1 Hyperplanes_kjohnson_attempt_2025-01-30-22-15-07_{NB}": "kjohnson",
                   "Barbara Liskov (2)": "s06", "mhamilton.ipynb": "s07", "submission_2287731": "s08"}
    assert [m.student_id for m in result.missing] == ["s09"]
    assert all("not-on-roster" not in flags(r) for r in result.graded)


def test_roster_unmatched_submission_is_graded_and_flagged():
    roster = [RosterStudent("s01", "Ada Lovelace")]
    result = resolve([entry("canvas", "canvas:9", "mallory", name="mallory")], roster=roster)
    (only,) = result.graded
    assert only.student_id == "mallory" and only.roster is None
    assert "not-on-roster" in flags(only) and "mallory" in flags(only)["not-on-roster"]
    assert [m.student_id for m in result.missing] == ["s01"]


def test_roster_ambiguous_name_is_not_guessed():
    roster = [RosterStudent("s1", "Sam Lee"), RosterStudent("s2", "Lee Sam")]
    (only,) = resolve([entry("moodle", "moodle:3", "sam-lee", name="Sam Lee")], roster=roster).graded
    assert "not-on-roster" in flags(only)


def test_group_members_are_not_missing(tmp_path):
    write(tmp_path, "submission_metadata.yml", GRADESCOPE_METADATA)
    write(tmp_path, f"submission_2287790/{NB}", b"{}")
    entries, _ = scan(str(tmp_path), A)
    roster = [RosterStudent("mj0077", "Mary Jackson"), RosterStudent("ae0013", "Annie Easley"),
              RosterStudent("dv0042", "Dorothy Vaughan")]
    result = resolve(entries, roster=roster)
    assert [r.student_id for r in result.graded] == ["mj0077"]
    (member,) = result.graded[0].group
    assert (member.student_id, member.name, member.email) == ("ae0013", "Annie Easley", "aeasley@example.edu")
    assert [code for code, _ in member.flags] == ["group-submission"]
    assert "submission_2287790" in dict(member.flags)["group-submission"]
    assert [m.student_id for m in result.missing] == ["dv0042"]
    (member,) = resolve(entries).graded[0].group
    assert member.student_id == "ae0013", "without a roster the member's SID is the id"


def test_group_member_with_an_entry_of_their_own_keeps_it(tmp_path):
    write(tmp_path, "submission_metadata.yml", GRADESCOPE_METADATA + "submission_2287800:\n  :submitters:\n"
                                               "  - :name: Annie Easley\n    :sid: ae0013\n")
    write(tmp_path, f"submission_2287790/{NB}", b"{}")
    write(tmp_path, f"submission_2287800/{NB}", b"{}")
    entries, _ = scan(str(tmp_path), A)
    result = resolve(entries)
    assert sorted(r.student_id for r in result.graded) == ["ae0013", "mj0077"]
    assert all(r.group == () for r in result.graded)


# -- attempts ---------------------------------------------------------------------------------------

def test_latest_blackboard_attempt_is_graded_the_other_listed(tmp_path):
    blackboard_attempt(tmp_path, "PS1", "alovelace", "Ada Lovelace", "2025-01-30-09-30-00", [(NB, None)])
    blackboard_attempt(tmp_path, "PS1", "alovelace", "Ada Lovelace", "2025-01-29-10-00-00", [(NB, None)])
    entries, _ = scan(str(tmp_path), A)
    result = resolve(entries, local_zone=UTC)
    (only,) = result.graded
    assert only.entry.source == f"PS1_alovelace_attempt_2025-01-30-09-30-00_{NB}"
    (older,) = result.superseded
    assert older.name == f"PS1_alovelace_attempt_2025-01-29-10-00-00_{NB}" and older.kind == "superseded"
    assert "2025-01-29T10:00:00+00:00" in older.reason and only.entry.source in older.reason


def test_same_student_in_two_layouts_matched_by_roster_keeps_the_later(tmp_path):
    write(tmp_path, f"Alan Turing_88123_assignsubmission_file_/{NB}", b"{}")   # no time recorded
    write(tmp_path, "submission_metadata.yml", "submission_5:\n  :submitters:\n  - :name: Alan Turing\n"
                                               "    :sid: at1\n  :created_at: 2025-01-02 10:00:00 +00:00\n")
    write(tmp_path, f"submission_5/{NB}", b"{}")
    entries, _ = scan(str(tmp_path), A)
    result = resolve(entries, roster=[RosterStudent("at1", "Alan Turing")])
    assert [(r.student_id, r.entry.source) for r in result.graded] == [("at1", "submission_5")]
    assert [u.name for u in result.superseded] == ["Alan Turing_88123_assignsubmission_file_"]


def test_plain_copies_keep_the_highest_copy_number(tmp_path):
    write(tmp_path, f"Barbara Liskov/{NB}", b"{}")
    write(tmp_path, f"Barbara Liskov (2)/{NB}", b"{}")
    entries, _ = scan(str(tmp_path), A)
    result = resolve(entries)
    assert [(r.student_id, r.entry.source) for r in result.graded] == [("barbara-liskov", "Barbara Liskov (2)")]
    assert [u.name for u in result.superseded] == ["Barbara Liskov"]


# -- lateness and extra files ---------------------------------------------------------------------------

def test_deadline_flags_later_submissions_only():
    deadline = parse_deadline("2025-01-31T23:59:00+00:00")
    on_time = entry("gradescope", "gradescope:a", "a", submitted_at=datetime.datetime(2025, 1, 31, 23, 0, tzinfo=UTC))
    late = entry("gradescope", "gradescope:b", "b", submitted_at=datetime.datetime(2025, 2, 2, 1, 30, tzinfo=UTC))
    untimed = entry("moodle", "moodle:1", "c")
    canvas_late = entry("canvas", "canvas:2", "d", marked_late=True)
    result = resolve([on_time, late, untimed, canvas_late], deadline=deadline)
    got = {r.student_id: flags(r).get("late") for r in result.graded}
    assert got["a"] is None and got["c"] is None
    assert got["b"] == "submitted 2025-02-02T01:30:00+00:00, 1 d 1 h 31 min after the deadline 2025-01-31T23:59:00+00:00"
    assert got["d"] == "Canvas marked it LATE"
    assert result.untimed == 1
    assert all("late" not in flags(r) or r.student_id == "d" for r in resolve([on_time, late, untimed, canvas_late]).graded)


def test_blackboard_local_times_compare_in_the_given_zone():
    bb = entry("blackboard", "blackboard:x", "x", submitted_at=datetime.datetime(2025, 2, 1, 0, 30))
    deadline = parse_deadline("2025-02-01T00:00:00+01:00")
    assert "late" in flags(resolve([bb], deadline=deadline, local_zone=UTC).graded[0])
    plus_two = datetime.timezone(datetime.timedelta(hours=2))
    assert "late" not in flags(resolve([bb], deadline=deadline, local_zone=plus_two).graded[0])


def test_parse_deadline():
    assert parse_deadline("2025-01-31", local_zone=UTC) == datetime.datetime(2025, 1, 31, 23, 59, 59, tzinfo=UTC)
    assert parse_deadline("2025-01-31T12:00Z") == datetime.datetime(2025, 1, 31, 12, tzinfo=UTC)
    with pytest.raises(ValueError, match="ISO 8601.*got 'next friday'"):
        parse_deadline("next friday")


def test_extra_files_flag_names_them():
    many = tuple(f"f{i}.py" for i in range(12))
    (r,) = resolve([entry("plain", "plain:a", "a", extra_files=("numpy.py", "helper.py"))]).graded
    assert flags(r)["extra-files"] == "numpy.py, helper.py"
    (r,) = resolve([entry("plain", "plain:a", "a", extra_files=many)]).graded
    assert flags(r)["extra-files"].endswith("f9.py and 2 more")


# -- exports ------------------------------------------------------------------------------------------------

ROWS = [ExportRow("s02", 7.5, "Grace Hopper", "grace@example.edu", "104871"),
        ExportRow("s01", 10, "Ada Lovelace", "", ""),
        ExportRow("s03", 0, "=HYPERLINK(\"x\")", "", "")]


def test_canvas_export_has_canvas_gradebook_columns():
    rows = list(csv.reader(io.StringIO(canvas_csv(A, 10, ROWS))))
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", A]
    assert rows[1] == ["Points Possible", "", "", "", "", "10"]
    assert rows[2] == ["Ada Lovelace", "", "s01", "", "", "10"]
    assert rows[3] == ["Grace Hopper", "104871", "s02", "", "", "7.5"]
    assert rows[4][0] == "'=HYPERLINK(\"x\")", "a cell that would run as a formula is quoted"


def test_moodle_export_has_an_id_number_and_email_to_map_from():
    rows = list(csv.reader(io.StringIO(moodle_csv(A, ROWS))))
    assert rows[0] == ["ID number", "Email address", "Full name", A]
    assert rows[1:3] == [["s01", "", "Ada Lovelace", "10"], ["s02", "grace@example.edu", "Grace Hopper", "7.5"]]


# -- the command line refuses a bad roster or deadline before grading anything -----------------------

def test_grade_command_refuses_a_bad_roster_or_deadline(tmp_path, capsys):
    from autograder.commands import grade

    bad = write(tmp_path, "roster.csv", "name,email\nAda,ada@example.edu\n")
    args = ["ps1_hyperplanes", str(tmp_path), "--out", str(tmp_path / "out")]
    assert grade.main(args + ["--roster", bad]) == 2
    assert "no student_id column" in capsys.readouterr().err
    assert grade.main(args + ["--deadline", "friday"]) == 2
    assert "--deadline must be a date and time in ISO 8601 form" in capsys.readouterr().err
    assert not (tmp_path / "out" / "grades.csv").exists()
