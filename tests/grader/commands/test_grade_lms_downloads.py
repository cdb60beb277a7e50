"""A real grading run over a download laid out as the LMSes hand it out, with a roster and a deadline.

The issue's eight students and a Gradescope group of two (Canvas, Moodle folder and flat file, Blackboard
with its receipt, Gradescope with its metadata, plain folder and file), plus
a second Blackboard attempt, a helper file beside a notebook and a roster
student who submitted nothing, zipped as a download is, and graded by the
command line in the sandbox.  Every student gets exactly one row; receipts
and metadata get none; the earlier attempt, the receipt and the metadata are
in the report with the reason.
"""

import csv
import io
import subprocess
import sys
import zipfile

import nbformat
import pytest

from autograder.running import sandbox
from tests.support.lms_layouts import GRADESCOPE_METADATA, blackboard_attempt, issue_example, write
from tests.support.grading import correct_submission
from tests.support.released import copy_course

from tests.support import ROOT
PS1 = "ps1_hyperplanes"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

ROSTER = """student_id,name,email,lms_id
s01,Ada Lovelace,ada@example.edu,104233
s02,Grace Hopper,grace@example.edu,
s03,Alan Turing,,
s04,Émilie du Châtelet,,
kjohnson,Katherine Johnson,,
s06,Barbara Liskov,,
s08,Dorothy Vaughan,dvaughan@example.edu,
s09,Frances Allen,fran@example.edu,
s10,Mary Jackson,mjackson@example.edu,
s11,Annie Easley,aeasley@example.edu,
"""


@pytest.fixture(scope="module")
def graded(released_course, tmp_path_factory):
    status = sandbox.sandbox_status()
    assert status.available, f"bubblewrap cannot make a sandbox here: {status.description}"
    course = copy_course(released_course, tmp_path_factory.mktemp("course"))
    release_nb = nbformat.read(str(course / "release" / PS1 / f"{PS1}.ipynb"), as_version=4)
    source_nb = nbformat.read(str(course / "source" / PS1 / f"{PS1}.ipynb"), as_version=4)
    correct = nbformat.writes(correct_submission(release_nb, source_nb)).encode("utf-8")
    blank = nbformat.writes(release_nb).encode("utf-8")

    folder = tmp_path_factory.mktemp("download") / "ps1_download"
    folder.mkdir()
    issue_example(str(folder), PS1, correct)
    # Barbara Liskov's notebook is the blank release; Ada Lovelace left a helper module beside hers.
    write(folder, f"Barbara Liskov (2)/{PS1}.ipynb", blank)
    write(folder, "lovelaceada_104233_5512301_numpy.py", "raise SystemExit('shadowed numpy')\n")
    # Katherine Johnson's earlier Blackboard attempt was blank; the later one (issue_example's) is graded.
    blackboard_attempt(str(folder), "PS1 Hyperplanes", "kjohnson", "Katherine Johnson", "2025-01-29-08-00-00",
                       [(f"{PS1}.ipynb", None)], blank)
    # A Gradescope group submission (Mary Jackson with Annie Easley), beside Dorothy Vaughan's.
    write(folder, "submission_metadata.yml", GRADESCOPE_METADATA)
    write(folder, f"submission_2287790/{PS1}.ipynb", correct)
    archive = tmp_path_factory.mktemp("zip") / "download.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, str(path.relative_to(folder.parent)))
    roster = tmp_path_factory.mktemp("roster") / "roster.csv"
    roster.write_text(ROSTER, encoding="utf-8")
    out = tmp_path_factory.mktemp("out")
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", PS1, str(archive), "--out", str(out),
                          "--course-dir", str(course), "--roster", str(roster), "--deadline", "2025-01-31T12:00Z",
                          "--workers", "2", "--timeout", "120"],
                         capture_output=True, text=True, cwd=ROOT, timeout=900)
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    return {"run": run, "out": out, "rows": rows, "report": (out / "report.html").read_text(encoding="utf-8")}


def flags(row):
    return set(filter(None, row["flags"].split(";")))


def test_every_student_gets_exactly_one_row(graded):
    assert graded["run"].returncode == 0, graded["run"].stderr
    rows = graded["rows"]
    assert set(rows) == {"s01", "s02", "s03", "s04", "kjohnson", "s06", "s08", "s09", "s10", "s11", "mhamilton"}
    assert not any(r["source"].endswith((".txt", ".yml")) for r in rows.values()), "receipts are never students"
    max_score = float(rows["s01"]["max_score"])
    assert max_score > 0
    for student in ("s01", "s02", "s03", "s04", "kjohnson", "s08", "s10", "s11", "mhamilton"):
        assert (rows[student]["status"], float(rows[student]["score"])) == ("graded", max_score), rows[student]
    assert (rows["s06"]["status"], float(rows["s06"]["score"])) == ("graded", 0.0), "the blank release scores 0"
    assert rows["s06"]["source"] == "Barbara Liskov (2)"
    assert rows["s04"]["source"] == f"Émilie du Châtelet_88131_assignsubmission_file_{PS1}.ipynb"


def test_roster_missing_unmatched_late_and_extra_files(graded):
    rows = graded["rows"]
    assert (rows["s09"]["status"], rows["s09"]["score"], rows["s09"]["source"]) == ("missing", "0", "")
    assert float(rows["s09"]["max_score"]) == float(rows["s01"]["max_score"])
    assert flags(rows["mhamilton"]) == {"not-on-roster"}
    assert "late" in flags(rows["s02"]), "Canvas's LATE marker"
    assert "late" in flags(rows["s08"]) and rows["s08"]["submitted_at"].startswith("2025-01-31T23:40:12")
    assert "late" not in flags(rows["kjohnson"]) and rows["kjohnson"]["submitted_at"] == "2025-01-30T22:15:07"
    assert "extra-files" in flags(rows["s01"])
    assert flags(rows["s11"]) == {"group-submission", "late"} and rows["s11"]["source"] == "submission_2287790"
    assert "group-submission" not in flags(rows["s10"])
    assert (graded["out"] / "feedback" / "s11.html").exists(), "a group member gets the feedback too"
    assert float(rows["s01"]["score"]) == float(rows["s01"]["max_score"]), "the helper never reached the notebook"


def test_report_says_what_was_not_graded_and_why(graded):
    report = graded["report"]
    assert "PS1 Hyperplanes_kjohnson_attempt_2025-01-29-08-00-00_ps1_hyperplanes.ipynb" in report
    assert "an earlier attempt by kjohnson" in report
    assert "PS1 Hyperplanes_kjohnson_attempt_2025-01-30-22-15-07.txt" in report and "receipt" in report
    assert "submission_metadata.yml" in report
    assert "Barbara Liskov (2)" in report and "Émilie du Châtelet" in report
    assert "lovelaceada_104233_5512301_numpy.py" not in report and "numpy.py" in report
    assert "s09" in report and 'href="feedback/s09.html"' not in report
    assert "1 student submitted nothing" in report
    assert not (graded["out"] / "feedback" / "s09.html").exists()


def test_gradebook_exports_hold_every_row(graded):
    out, rows = graded["out"], graded["rows"]
    canvas = list(csv.reader(io.StringIO((out / "canvas_import.csv").read_text(encoding="utf-8"))))
    assert canvas[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", PS1]
    assert canvas[1][0] == "Points Possible" and float(canvas[1][5]) == float(rows["s01"]["total_max"])
    by_sis = {r[2]: r for r in canvas[2:]}
    assert set(by_sis) == set(rows)
    assert by_sis["s01"][:2] == ["Ada Lovelace", "104233"] and by_sis["s02"][1] == "104871"
    assert by_sis["s09"][5] == "0"
    moodle = list(csv.DictReader(io.StringIO((out / "moodle_import.csv").read_text(encoding="utf-8"))))
    assert {r["ID number"]: float(r[PS1]) for r in moodle} == {s: float(r["total"]) for s, r in rows.items()}
    assert {r["ID number"]: r["Email address"] for r in moodle}["s08"] == "dvaughan@example.edu"
