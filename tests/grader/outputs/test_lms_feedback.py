"""The feedback each LMS takes back (:mod:`autograder.outputs.lms_feedback`), read back the way each LMS reads it.

The download is built with each LMS's naming rules (:mod:`tests.lms_layouts`):
names with spaces and accents, Canvas's LATE marker and ``-1`` resubmission,
a Moodle folder and a flat Moodle file, a Blackboard attempt with its
receipt, a Gradescope group submission, a plain file and a Canvas file the
instructor renamed.  The files are then read as the LMS's importer does:
Canvas takes the user id and the file's id from the name's first two
all-digit parts; Moodle splits each path part on ``_`` (at most five
pieces) for the participant id and reads the worksheet's Identifier, Grade,
Last modified (grade) and Feedback comments columns; Blackboard matches rows
by Username.  No sandbox runs here.
"""

import csv
import datetime
import io
import os
import zipfile

import nbformat
import numpy as np
import pytest

from autograder.outputs import lms_feedback
from autograder.outputs import record as outputs
from autograder.course.assignments import load_checks
from autograder.judging.checks import evaluate_namespace
from autograder.outputs.report import feedback_text, report_html
from autograder.results import GRADED, MISSING, TIMEOUT, CellResult, Result
from autograder.intake.submissions import collect_batch
from tests.support.lms_layouts import GRADESCOPE_METADATA, blackboard_attempt, write

A = "ps1_hyperplanes"
NB = f"{A}.ipynb"
WHEN = datetime.datetime(2025, 2, 3, 9, 30, tzinfo=datetime.timezone.utc)

CANVAS_NAMES = {  # student id (no roster) -> the file's name in Canvas's download
    "lovelaceada": f"lovelaceada_104233_5512301_{NB}",
    "hopper-grace": f"hopper grace_LATE_104871_5512377_{A}-1.ipynb",
}


def download(folder):
    """A download mixing every layout; returns nothing, the names are the fixture."""
    for name in CANVAS_NAMES.values():
        write(folder, name, b"{}")
    write(folder, f"hopper grace_LATE_104871_5512300_{NB}", b"{}")  # Grace's earlier upload
    write(folder, f"Alan Turing_88123_assignsubmission_file_/{NB}", b"{}")
    write(folder, f"Émilie du Châtelet_88131_assignsubmission_file_{NB}", b"{}")
    write(folder, f"=HYPERLINK(x)_88140_assignsubmission_file_/{NB}", b"{}")
    blackboard_attempt(folder, "PS1 Hyperplanes", "kjohnson", "Katherine Johnson", "2025-01-30-22-15-07",
                       [(NB, b"{}")])
    write(folder, "submission_metadata.yml", GRADESCOPE_METADATA)
    write(folder, f"submission_2287790/{NB}", b"{}")
    write(folder, "mhamilton.ipynb", b"{}")
    write(folder, "Ada copy for grading.ipynb", b"{}")  # a Canvas file the instructor renamed


def hidden_failure_cells():
    """ps1's signed-distance cells judged on a function right on the visible cases (the worked example, the plane
    in 3-D and the scaled plane) and wrong on the hidden ones after them: a hidden case fails."""
    import perceptron_lib as pl

    def signed_distance(X, w, b=0.0):
        right = pl.signed_distance(X, w, b)
        return right if b in (-5.0, -50.0) or np.shape(w) == (3,) else right + 1.0

    checks = [c for c in load_checks(A) if c.function == "signed_distance"]
    verdicts = evaluate_namespace(checks, {"signed_distance": signed_distance})
    return checks, [CellResult(v.grade_id, 2.0 if v.passed else 0.0, 2.0, v.passed, "Passed." if v.passed else v.message)
                    for v in verdicts]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    folder = tmp_path_factory.mktemp("download")
    download(str(folder))
    batch = collect_batch(str(folder), A, str(tmp_path_factory.mktemp("work")))
    people = {s.student_id: s for s in batch.submissions}
    people.update({m.student_id: m for s in batch.submissions for m in s.group})
    checks, cells = hidden_failure_cells()
    results = []
    for sid, person in sorted(people.items()):
        source = getattr(person, "source", "") or "submission_2287790"
        if sid == "mhamilton":
            results.append(Result(sid, A, TIMEOUT, reason="the notebook used its whole time budget", score=0.0,
                                  max_score=4.0, cells=[CellResult(c.grade_id, 0.0, 2.0, False, "Not run.")
                                                        for c in cells], source=source))
        else:
            results.append(Result(sid, A, GRADED, score=sum(c.points for c in cells), max_score=4.0,
                                  cells=list(cells), source=source))
    results.append(Result("s99", A, MISSING, reason="no submission", max_score=4.0))
    people["s99"] = None
    files, deliveries = lms_feedback.build(A, results, people, sandbox_text="bubblewrap", when=WHEN)
    return {"files": files, "deliveries": {d.student_id: d for d in deliveries}, "results": results,
            "people": people, "checks": checks}


def read_zip(data):
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        assert zf.testzip() is None
        return {name: zf.read(name).decode("utf-8") for name in zf.namelist()}


# -- Canvas -----------------------------------------------------------------------------------

def canvas_ids(name):
    """What Canvas reads from a re-uploaded file's name: the first two all-digit parts (user id, file id)."""
    return tuple([part for part in name.split("_") if part.isdigit()][:2])


def test_canvas_zip_names_each_file_as_the_download_did(run):
    members = read_zip(run["files"][lms_feedback.CANVAS_ZIP])
    assert set(members) == set(CANVAS_NAMES.values()), "the later upload, LATE marker and -1 kept"
    assert canvas_ids(CANVAS_NAMES["hopper-grace"]) == ("104871", "5512377")
    for sid, name in CANVAS_NAMES.items():
        nb = nbformat.reads(members[name], as_version=4)
        nbformat.validate(nb)
        summary, page = nb.cells[0].source, nb.cells[1].outputs[0]["data"]["text/html"]
        assert f"feedback for {sid}" in summary and "0 / 2" in summary
        assert "next cell of this notebook" in summary
        assert page.startswith("<!DOCTYPE html>") and sid in page


def test_summary_fence_cannot_be_closed_by_the_text():
    result = Result("s1", A, GRADED, score=0, max_score=1,
                    cells=[CellResult("c", 0, 1, False, "raised ```` then text")])
    text = feedback_text(result, full_page="x")
    cell = nbformat.reads(lms_feedback.feedback_notebook(result, text, "<p>page</p>"), as_version=4).cells[0].source
    fence = cell.splitlines()[2][:-len("text")]
    assert len(fence) == 5 and cell.rstrip().endswith(fence) and cell.count(fence) == 2


# -- Moodle ------------------------------------------------------------------------------------

def moodle_participant(path):
    """Moodle's importer: the path part ``fullname_id_assignsubmission_plugin[_...]`` names the participant.

    Moodle 4.1 and later write the folder without the trailing ``_`` (four
    pieces), earlier versions with it (five); the importer reads both.
    """
    for part in path.split("/"):
        pieces = part.split("_", 4)
        if len(pieces) >= 4 and pieces[1].isdigit() and pieces[2] == "assignsubmission":
            return pieces[1]
    return None


def test_moodle_zip_has_a_folder_per_participant(run):
    members = read_zip(run["files"][lms_feedback.MOODLE_ZIP])
    page = lms_feedback.moodle_page_name(A)
    assert set(members) == {f"Alan Turing_88123_assignsubmission_file_/{page}",
                            f"Émilie du Châtelet_88131_assignsubmission_file_/{page}",
                            f"=HYPERLINK(x)_88140_assignsubmission_file_/{page}"}
    assert {moodle_participant(name) for name in members} == {"88123", "88131", "88140"}
    assert all(text.startswith("<!DOCTYPE html>") for text in members.values())
    with zipfile.ZipFile(io.BytesIO(run["files"][lms_feedback.MOODLE_ZIP])) as zf:
        accented = [i for i in zf.infolist() if "Châtelet" in i.filename]
        assert accented and accented[0].flag_bits & 0x800, "non-ASCII names are marked UTF-8"


def test_moodle_worksheet_has_the_columns_the_importer_needs(run):
    text = run["files"][lms_feedback.MOODLE_WORKSHEET].decode("utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
                             "Last modified (grade)", "Feedback comments"]
    by_id = {r["Identifier"]: r for r in rows}
    assert set(by_id) == {"Participant 88123", "Participant 88131", "Participant 88140"}
    turing = by_id["Participant 88123"]
    assert (turing["Full name"], float(turing["Grade"]), float(turing["Maximum Grade"])) == ("Alan Turing", 0, 4)
    assert datetime.datetime.fromisoformat(turing["Last modified (grade)"]) == WHEN
    assert turing["Feedback comments"].startswith(f"{A}: 0 / 4 autograded points.")
    assert lms_feedback.moodle_page_name(A) in turing["Feedback comments"]
    assert by_id["Participant 88131"]["Full name"] == "Émilie du Châtelet"
    assert by_id["Participant 88140"]["Full name"] == "'=HYPERLINK(x)", "a name that is a formula is quoted"


# -- Blackboard ----------------------------------------------------------------------------------

def test_blackboard_upload_matches_by_username_with_score_and_feedback(run):
    text = run["files"][lms_feedback.BLACKBOARD_FILE].decode("utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    column = "PS1 Hyperplanes [Total Pts: 4 Score]"
    assert list(rows[0])[:6] == ["Last Name", "First Name", "Username", "Student ID", "Last Access", "Availability"]
    assert list(rows[0])[6:] == [column, "Feedback to Learner", "Feedback Format"]
    (row,) = rows
    assert (row["Username"], row["Last Name"], row["First Name"], float(row[column])) == \
        ("kjohnson", "Johnson", "Katherine", 0)
    assert "Failed tests:" in row["Feedback to Learner"] and "kjohnson.html" in row["Feedback to Learner"]
    header, first_row = text.splitlines()[:2]
    assert header == ",".join(f'"{name}"' for name in rows[0]), "every value is quoted"
    assert first_row.startswith('"Johnson","Katherine","kjohnson","","","","0",')


# -- what reaches no LMS -------------------------------------------------------------------------

def test_every_student_is_accounted_for(run):
    deliveries = run["deliveries"]
    assert "s99" not in deliveries, "a missing student has no feedback to deliver"
    assert set(deliveries) == {sid for sid in run["people"] if sid != "s99"}
    assert {sid: d.lms for sid, d in deliveries.items() if d.lms} == {
        "lovelaceada": "canvas", "hopper-grace": "canvas", "alan-turing": "moodle",
        "emilie-du-chatelet": "moodle", "hyperlink-x": "moodle", "kjohnson": "blackboard"}
    assert "renamed" in deliveries["ada-copy-for-grading"].note
    assert "renamed" in deliveries["mhamilton"].note
    assert "Gradescope" in deliveries["mj0077"].note
    assert "group submission" in deliveries["ae0013"].note
    page = report_html(A, run["results"], deliveries=list(deliveries.values()))
    assert "Feedback through the LMS" in page and "Ada copy for grading.ipynb" in page
    assert 'href="feedback/ae0013.html"' in page


def test_no_file_for_an_lms_nobody_came_from(run):
    results = [r for r in run["results"] if r.student_id == "mhamilton"]
    files, deliveries = lms_feedback.build(A, results, run["people"], sandbox_text="", when=WHEN)
    assert set(files.values()) == {None}
    assert deliveries[0].plain and deliveries[0].note.startswith("a plain folder")
    assert "Every entry of the download is a plain file or folder" in report_html(A, results, deliveries=deliveries)
    gradescope = [r for r in run["results"] if r.student_id in ("mhamilton", "mj0077")]
    _, deliveries = lms_feedback.build(A, gradescope, run["people"], sandbox_text="", when=WHEN)
    page = report_html(A, gradescope, deliveries=deliveries)
    assert "submission_2287790" in page and "Gradescope export" in page, "a layout with no route is listed"


# -- the summary ---------------------------------------------------------------------------------

def test_summary_names_failures_and_never_a_hidden_case_s_values(run):
    checks, cells = hidden_failure_cells()
    result = Result("s1", A, GRADED, score=0.0, max_score=4.0, cells=cells)
    text = feedback_text(result, full_page="the attached page")
    failed = [c for c in cells if not c.passed]
    assert failed, "the hidden case fails"
    assert text.splitlines()[0] == f"{A}: 0 / 4 autograded points."
    for cell in failed:
        assert f"- {cell.grade_id} (0 / 2): {cell.message}" in text
    assert "the attached page" in text
    hidden = [case for check in checks for case in check.cases if not case.visible]
    shown = [np.array2string(np.asarray(a, dtype=float), precision=4, separator=", ")
             for case in hidden for a in case.args if isinstance(a, np.ndarray)]
    assert any(case.describe in text for case in hidden), "a hidden case is named by its description"
    assert not any(s in text for s in shown), "its inputs never appear"
    assert "got " not in text and "expected " not in text


def test_summary_of_a_submission_that_did_not_run():
    result = Result("s1", A, TIMEOUT, reason="the notebook used its whole time budget", max_score=4.0,
                    cells=[CellResult("c", 0, 4, False, "Not run: the notebook used its whole time budget.")])
    text = feedback_text(result, full_page="x")
    assert "Status timeout" in text and "Why: the notebook used its whole time budget." in text
    assert "Failed tests" not in text


# -- writing ---------------------------------------------------------------------------------------

def test_writes_are_atomic_and_stale_files_removed(run, tmp_path, monkeypatch):
    stale = tmp_path / lms_feedback.BLACKBOARD_FILE
    stale.write_text("an older run's file")
    people = run["people"]
    results = [r for r in run["results"] if r.student_id in ("lovelaceada", "mhamilton")]
    outputs.write_lms_feedback(str(tmp_path), A, results, people, sandbox_text="")
    assert not stale.exists(), "no Blackboard student now: the old upload file is gone"
    first = (tmp_path / lms_feedback.CANVAS_ZIP).read_bytes()
    assert list(read_zip(first)) == [CANVAS_NAMES["lovelaceada"]]

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError):
        outputs.write_lms_feedback(str(tmp_path), A, run["results"], people, sandbox_text="")
    assert (tmp_path / lms_feedback.CANVAS_ZIP).read_bytes() == first, "a failed write leaves the old file whole"
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".tmp-")], "and no temporary file behind"


def test_routes_are_read_from_each_layout_s_names(tmp_path):
    from autograder.intake.lms import FeedbackRoute, scan

    write(tmp_path, f"Grace Hopper_88150_assignsubmission_file/{NB}", b"{}")  # Moodle 4.1's folder, no "_"
    blackboard_attempt(str(tmp_path), "PS1_Hyperplanes", "kjohnson", "Katherine Johnson", "2025-01-30-22-15-07",
                       [(NB, b"{}"), ("notes.txt", b"x")])
    write(tmp_path, "lovelaceada_104233_5512301_helper.py", b"x")  # a Canvas attempt with no notebook
    entries, _ = scan(str(tmp_path), A)
    routes = {e.identity: e.route for e in entries}
    assert routes == {
        "moodle:88150": FeedbackRoute("moodle", "Grace Hopper_88150_assignsubmission_file", "88150"),
        "blackboard:kjohnson": FeedbackRoute("blackboard", "PS1_Hyperplanes", "kjohnson"),
        "canvas:104233": FeedbackRoute("canvas", "lovelaceada_104233_5512301_helper.py"),
    }
    assert moodle_participant(f"{routes['moodle:88150'].name}/x.html") == "88150"
