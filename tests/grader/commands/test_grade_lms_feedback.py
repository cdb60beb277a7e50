"""A real grading run over a Canvas and a Moodle download, read back as each LMS would take its feedback.

The download (zipped, as Canvas and Moodle hand it out) holds two Canvas
students (one late, with an earlier upload and a ``-1`` resubmission), two
Moodle participants (a folder and a flat file, one name with accents) and a
Canvas file the instructor renamed.  Every notebook is the blank release, so
every test fails with a message the feedback must carry.  The command line
grades it in the sandbox; then the Canvas zip must name each file as the
download did, the Moodle zip and worksheet must name each participant, and
the report must list the renamed entry, whose feedback reaches no LMS.
"""

import csv
import subprocess
import sys
import zipfile

import nbformat
import pytest

from autograder.outputs import lms_feedback
from autograder.running import sandbox
from tests.support.lms_layouts import write
from tests.support.released import copy_course

from tests.support import ROOT
PS1 = "ps1_hyperplanes"
NB = f"{PS1}.ipynb"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

CANVAS = {"lovelaceada": f"lovelaceada_104233_5512301_{NB}",
          "hopper-grace": f"hopper grace_LATE_104871_5512377_{PS1}-1.ipynb"}
MOODLE = {"alan-turing": ("Alan Turing_88123_assignsubmission_file_", f"Alan Turing_88123_assignsubmission_file_/{NB}"),
          "emilie-du-chatelet": ("Émilie du Châtelet_88131_assignsubmission_file_",
                                 f"Émilie du Châtelet_88131_assignsubmission_file_{NB}")}
RENAMED = "Ada Lovelace final.ipynb"


@pytest.fixture(scope="module")
def graded(released_course, tmp_path_factory):
    status = sandbox.sandbox_status()
    assert status.available, f"bubblewrap cannot make a sandbox here: {status.description}"
    course = copy_course(released_course, tmp_path_factory.mktemp("course"))
    blank = nbformat.writes(nbformat.read(str(course / "release" / PS1 / NB), as_version=4)).encode("utf-8")

    folder = tmp_path_factory.mktemp("download") / "ps1_download"
    folder.mkdir()
    for name in list(CANVAS.values()) + [path for _, path in MOODLE.values()] + [RENAMED]:
        write(folder, name, blank)
    write(folder, f"hopper grace_LATE_104871_5512300_{NB}", blank)  # Grace's earlier upload
    archive = tmp_path_factory.mktemp("zip") / "download.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, str(path.relative_to(folder.parent)))
    out = tmp_path_factory.mktemp("out")
    (out / lms_feedback.BLACKBOARD_FILE).write_text("an older run's upload file", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "autograder", "grade", PS1, str(archive), "--out", str(out),
                          "--course-dir", str(course), "--workers", "2", "--timeout", "120"],
                         capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert run.returncode == 0, run.stderr
    with open(out / "grades.csv", newline="", encoding="utf-8") as f:
        rows = {row["student_id"]: row for row in csv.DictReader(f)}
    return {"out": out, "rows": rows}


def members(path):
    with zipfile.ZipFile(path) as zf:
        return {name: zf.read(name).decode("utf-8") for name in zf.namelist()}


def test_canvas_feedback_zip_matches_the_download(graded):
    out, rows = graded["out"], graded["rows"]
    files = members(out / lms_feedback.CANVAS_ZIP)
    assert set(files) == set(CANVAS.values())
    for sid, name in CANVAS.items():
        assert rows[sid]["source"] == name
        nb = nbformat.reads(files[name], as_version=4)
        summary = nb.cells[0].source
        assert f"{PS1}: 0 / {rows[sid]['max_score']} autograded points." in summary
        assert "not implemented yet" in summary
        page = (out / "feedback" / f"{sid}.html").read_text(encoding="utf-8")
        assert nb.cells[1].outputs[0]["data"]["text/html"] == page, "the notebook carries the feedback page"


def test_moodle_feedback_zip_and_worksheet_name_each_participant(graded):
    out, rows = graded["out"], graded["rows"]
    page_name = lms_feedback.moodle_page_name(PS1)
    files = members(out / lms_feedback.MOODLE_ZIP)
    assert set(files) == {f"{folder}/{page_name}" for folder, _ in MOODLE.values()}
    for sid, (folder, _) in MOODLE.items():
        assert files[f"{folder}/{page_name}"] == (out / "feedback" / f"{sid}.html").read_text(encoding="utf-8")
    with open(out / lms_feedback.MOODLE_WORKSHEET, newline="", encoding="utf-8") as f:
        worksheet = {row["Identifier"]: row for row in csv.DictReader(f)}
    assert set(worksheet) == {"Participant 88123", "Participant 88131"}
    chatelet = worksheet["Participant 88131"]
    assert chatelet["Full name"] == "Émilie du Châtelet"
    assert float(chatelet["Grade"]) == float(rows["emilie-du-chatelet"]["score"]) == 0
    assert "Failed tests:" in chatelet["Feedback comments"] and page_name in chatelet["Feedback comments"]


def test_report_lists_the_renamed_entry_and_nothing_is_left_for_blackboard(graded):
    out, rows = graded["out"], graded["rows"]
    assert set(rows) == set(CANVAS) | set(MOODLE) | {"ada-lovelace-final"}
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Feedback through the LMS" in report
    assert RENAMED in report and "renamed after downloading" in report
    assert not (out / lms_feedback.BLACKBOARD_FILE).exists(), "no Blackboard student: the old file is removed"
