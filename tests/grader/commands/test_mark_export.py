"""From ``grade`` to the students with the written answers marked: ``mark`` (CSV route) and ``export``, end to end.

Three Canvas submissions of ps2, with a roster that names them: code and
written answers (ada), code only (grace), the untouched release (charles).
The command line grades them in the sandbox; then, in order, as an
instructor and TAs would: ``export`` refuses while answers are unmarked and
writes nothing, ``--allow-unmarked`` writes and says which answers are
still to be marked; ``mark --to-csv`` writes the answers and the booklet; a
CSV with a bad row changes nothing; the filled CSV is read back; ``export``
writes every file with the marks.  Then ada resubmits with one written
answer changed and the download is graded again: the other marks (a
comment on grace's blank answer among them) are kept, the changed answer's
mark is set aside and listed for re-marking, ``export`` names it, and the
folder of the first run can no longer be exported.  Two grading runs in
all; the tests read what each step left.
"""

import csv
import io
import json
import subprocess
import sys
import zipfile

import nbformat
import pytest

from autograder.outputs import lms_feedback
from tests.support import ROOT
from tests.support.grading import correct_submission, gradebook_rows, notebooks_of
from tests.support.lms_layouts import write

A = "ps2_online_perceptron"
D1, D2 = "written_online_batch", "written_order"
NAMES = {"ada": f"lovelaceada_104233_5512301_{A}.ipynb", "grace": f"hoppergrace_104871_5512377_{A}.ipynb",
         "charles": f"babbagecharles_104950_5512450_{A}.ipynb"}
ROSTER = ("student_id,name,email,lms_id\nada,Ada Lovelace,ada@example.edu,104233\n"
          "grace,Grace Hopper,grace@example.edu,104871\ncharles,Charles Babbage,cb@example.edu,104950\n")
MARKS = {("ada", D1): ("2", "Clear and complete."), ("ada", D2): ("1.5", "-0.5: say why shuffling helps."),
         ("grace", D1): ("0", "No answer: read section 2 of the notes.")}
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def autograder(*args):
    done = subprocess.run([sys.executable, "-m", "autograder", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, timeout=900)
    return {"returncode": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


def snapshot(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def sheet_rows(data):
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"), newline="")))


def filled(data, marks):
    """The CSV ``data`` with ``marks`` ({(student, question): (points, comment)}) typed in."""
    rows = sheet_rows(data)
    for row in rows:
        if (row["student_id"], row["question"]) in marks:
            row["points"], row["comment"] = marks[row["student_id"], row["question"]]
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\r\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue().encode("utf-8")


def set_answer(nb, grade_id, text):
    for cell in nb.cells:
        if cell.get("metadata", {}).get("nbgrader", {}).get("grade_id") == grade_id:
            cell.source = text
    return nb


@pytest.fixture(scope="module")
def journey(course, tmp_path_factory, sandbox_ready):
    root = tmp_path_factory.mktemp("marking")
    release_nb, source_nb = notebooks_of(course, A)
    full = correct_submission(release_nb, source_nb)
    code_only = correct_submission(release_nb, source_nb)
    for cell, released in zip(code_only.cells, release_nb.cells):
        if cell.cell_type == "markdown":
            cell.source = released.source
    download = root / "download"
    for student, nb in (("ada", full), ("grace", code_only), ("charles", release_nb)):
        write(download, NAMES[student], nbformat.writes(nb))
    (root / "roster.csv").write_text(ROSTER, encoding="utf-8")
    out, sheet = root / "out", root / "marks.csv"
    grade = ("grade", A, download, "--course-dir", course, "--roster", root / "roster.csv", "--workers", 2)
    steps = {}

    steps["grade"] = autograder(*grade, "--out", out)
    steps["graded"] = snapshot(out)
    steps["refused"] = autograder("export", out)
    steps["after refused"] = snapshot(out)
    steps["allowed"] = autograder("export", out, "--allow-unmarked")
    steps["allowed files"] = snapshot(out)

    steps["to csv"] = autograder("mark", A, "--to-csv", sheet, "--course-dir", course)
    steps["sheet"], steps["booklet"] = sheet.read_bytes(), (root / "marks.html").read_text(encoding="utf-8")
    gradebook_before = gradebook_rows(course, A)
    (root / "bad.csv").write_bytes(filled(steps["sheet"], {**MARKS, ("grace", D2): ("3", "")}))
    steps["bad csv"] = autograder("mark", A, "--from-csv", root / "bad.csv", "--course-dir", course)
    steps["bad csv changed"] = gradebook_rows(course, A) != gradebook_before
    sheet.write_bytes(filled(steps["sheet"], MARKS))
    steps["from csv"] = autograder("mark", A, "--from-csv", sheet, "--course-dir", course)
    steps["export"] = autograder("export", out)
    steps["exported"] = snapshot(out)

    # ada resubmits with her second written answer changed; the same download is graded again elsewhere.
    nbformat.write(set_answer(full, D2, "No: the order never changes anything."), str(download / NAMES["ada"]))
    steps["regrade"] = autograder(*grade, "--out", root / "regraded")
    steps["regraded"] = snapshot(root / "regraded")
    steps["regraded export"] = autograder("export", root / "regraded")
    steps["outdated export"] = autograder("export", out)
    steps["to csv again"] = autograder("mark", A, "--to-csv", root / "again.csv", "--course-dir", course)
    steps["sheet again"] = (root / "again.csv").read_bytes()
    steps["course"] = course
    steps["source"] = source_nb
    return steps


def grades(files):
    return {row["student_id"]: row for row in csv.DictReader(io.StringIO(files["grades.csv"].decode("utf-8")))}


def canvas_summaries(files):
    with zipfile.ZipFile(io.BytesIO(files[lms_feedback.CANVAS_ZIP])) as zf:
        return {student: nbformat.reads(zf.read(name).decode("utf-8"), as_version=4).cells[0].source
                for student, name in NAMES.items()}


def test_grade_totals_are_over_the_whole_assignment_and_say_what_is_left_to_mark(journey):
    assert journey["grade"]["returncode"] == 0, journey["grade"]["stderr"]
    rows = grades(journey["graded"])
    assert {s: (r["score"], r["written"], r["total"], r["total_max"], r["to_mark"]) for s, r in rows.items()} == {
        "ada": ("10", "0", "10", "14", f"{D1};{D2}"), "grace": ("10", "0", "10", "14", ""),
        "charles": ("0", "0", "0", "14", "")}
    canvas = list(csv.reader(io.StringIO(journey["graded"]["canvas_import.csv"].decode("utf-8"))))
    assert canvas[1][-1] == "14" and ["Ada Lovelace", "104233", "ada", "", "", "10"] in canvas
    assert "2 written answers are still to be marked" in journey["grade"]["stdout"]
    assert f"Mark them on the marking page: python -m autograder mark {A} --course-dir" in journey["grade"]["stdout"]
    assert f"python -m autograder mark {A} --to-csv" in journey["grade"]["stdout"]


def test_grade_records_what_the_formgrader_lists(journey):
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    config = Config()
    config.CourseDirectory.root = str(journey["course"])
    api = NbGraderAPI(CourseDirectory(config=config), config=config)
    assert api.get_assignment(A)["num_submissions"] == 3
    listed = {s["student"]: (s["first_name"], s["last_name"], s["autograded"]) for s in api.get_submissions(A)}
    assert listed == {"ada": ("Ada", "Lovelace", True), "grace": ("Grace", "Hopper", True),
                      "charles": ("Charles", "Babbage", True)}


def test_export_refuses_while_answers_are_unmarked_and_writes_nothing(journey):
    refused = journey["refused"]
    assert refused["returncode"] == 1
    assert f"unmarked: student ada, question {D1}" in refused["stderr"]
    assert f"unmarked: student ada, question {D2} (D2 on the marking page)" in refused["stderr"]
    assert f"python -m autograder mark {A} --course-dir {journey['course']}" in refused["stderr"], \
        "the command to mark them opens this course, not the repository's"
    assert "grace" not in refused["stderr"] and "charles" not in refused["stderr"], "blank answers are marked 0"
    assert journey["after refused"] == journey["graded"]


def test_export_allowing_unmarked_answers_names_them_in_the_feedback(journey):
    assert journey["allowed"]["returncode"] == 0, journey["allowed"]["stderr"]
    page = journey["allowed files"]["feedback/ada.html"].decode("utf-8")
    # Named as the notebook names them, not by their cells' ids.
    assert "Still to be marked: D1, D2." in page and D1 not in page
    assert "- D1: still to be marked." in canvas_summaries(journey["allowed files"])["ada"]
    assert "Still to be marked" not in journey["allowed files"]["feedback/grace.html"].decode("utf-8")


def test_the_csv_holds_every_written_answer_and_the_booklet_shows_them(journey):
    assert journey["to csv"]["returncode"] == 0, journey["to csv"]["stderr"]
    rows = sheet_rows(journey["sheet"])
    assert [(r["student_id"], r["student_name"], r["question"], r["max_points"], r["points"], r["status"][:8])
            for r in rows] == [
        ("ada", "Ada Lovelace", D1, "2", "", "to mark"), ("charles", "Charles Babbage", D1, "2", "0", "blank: m"),
        ("grace", "Grace Hopper", D1, "2", "0", "blank: m"), ("ada", "Ada Lovelace", D2, "2", "", "to mark"),
        ("charles", "Charles Babbage", D2, "2", "0", "blank: m"), ("grace", "Grace Hopper", D2, "2", "0", "blank: m")]
    solutions = {c.metadata["nbgrader"]["grade_id"]: c.source.strip() for c in journey["source"].cells
                 if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") in (D1, D2)}
    assert rows[0]["answer"] == solutions[D1] and rows[3]["answer"] == solutions[D2]
    booklet = journey["booklet"]
    assert "<script" not in booklet and "http" not in booklet.replace("http-equiv", "")
    assert booklet.index(f"{D1} (2 points)") < booklet.index("Row 2: ada") < booklet.index(f"{D2} (2 points)")
    assert "Question D1 (2 points)" in booklet and "The model answer" in booklet


def test_a_csv_with_a_bad_row_changes_nothing(journey):
    bad = journey["bad csv"]
    assert bad["returncode"] == 1
    assert "row 7 (student 'grace', question 'written_order'): points 3 are more than the question's maximum of 2" \
        in bad["stderr"]
    assert "nothing was changed" in bad["stderr"]
    assert journey["bad csv changed"] is False


def test_the_marks_reach_every_file_the_students_get(journey):
    assert journey["from csv"]["returncode"] == 0, journey["from csv"]["stderr"]
    assert "3 answers got a new mark or comment, 3 unchanged" in journey["from csv"]["stdout"]
    assert journey["export"]["returncode"] == 0, journey["export"]["stderr"]
    files = journey["exported"]
    rows = grades(files)
    assert {s: (r["written"], r["total"], r["total_max"], r["to_mark"]) for s, r in rows.items()} == {
        "ada": ("3.5", "13.5", "14", ""), "grace": ("0", "10", "14", ""), "charles": ("0", "0", "14", "")}
    canvas = list(csv.reader(io.StringIO(files["canvas_import.csv"].decode("utf-8"))))
    assert ["Ada Lovelace", "104233", "ada", "", "", "13.5"] in canvas
    moodle = {r["ID number"]: r[A] for r in csv.DictReader(io.StringIO(files["moodle_import.csv"].decode("utf-8")))}
    assert moodle == {"ada": "13.5", "grace": "10", "charles": "0"}
    summary = canvas_summaries(files)["ada"]
    assert "- D2: 1.5 / 2. Comment: -0.5: say why shuffling helps." in summary and "Total: 13.5 / 14" in summary
    page = files["feedback/grace.html"].decode("utf-8")
    assert "No answer: read section 2 of the notes." in page and "Total: 10 / 14" in page
    report = files["report.html"].decode("utf-8")
    assert "Every written answer is marked." in report and "1.5 \u00d7 1" in report
    run = json.loads(files["grading_run.json"])
    assert run["assignment"] == A and set(files) == set(journey["graded"]), "the same files, rewritten"


def test_a_regrade_keeps_every_mark_and_sets_aside_the_changed_answer_s(journey):
    assert journey["regrade"]["returncode"] == 0, journey["regrade"]["stderr"]
    rows = grades(journey["regraded"])
    assert {s: (r["written"], r["total"], r["to_mark"]) for s, r in rows.items()} == {
        "ada": ("2", "12", D2), "grace": ("0", "10", ""), "charles": ("0", "0", "")}, "not 10 / 10 over the marks"
    assert "No answer: read section 2 of the notes." in journey["regraded"]["feedback/grace.html"].decode("utf-8")
    report = journey["regraded"]["report.html"].decode("utf-8")
    again = report[report.index("To be marked again"):]
    again = again[:again.index("</table>")]
    assert "ada.html" in again and f"<code>{D2}</code>" in again and "1.5" in again and "say why shuffling" in again
    row = next(r for r in sheet_rows(journey["sheet again"]) if (r["student_id"], r["question"]) == ("ada", D2))
    assert row["status"].startswith("to mark again") and row["points"] == ""
    assert (row["earlier_points"], row["earlier_comment"]) == ("1.5", "'-0.5: say why shuffling helps.")
    assert row["answer"] == "No: the order never changes anything."


def test_export_names_the_answer_to_mark_again_and_refuses_an_outdated_folder(journey):
    again = journey["regraded export"]
    assert again["returncode"] == 1
    assert f"unmarked: student ada, question {D2} (D2 on the marking page) (changed since its earlier mark)" in again["stderr"]
    outdated = journey["outdated export"]
    assert outdated["returncode"] == 2
    assert f"ada: the gradebook holds another submission than the one graded here (its answer to {D2} differs)" \
        in outdated["stderr"]


def test_the_marking_page_shows_what_a_resubmission_changed_in_an_answer_to_mark_again(journey, tmp_path):
    """After ada's resubmission is graded, her changed answer is to mark again, and the marking page shows it
    beside the answer its earlier mark was for, word by word (the replaced notebook is kept for that)."""
    import re
    import warnings

    from autograder.marking.web import Marking, answer_key, create_app
    from tests.support.released import copy_course

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient

    course = copy_course(journey["course"], tmp_path / "course")
    assert (course / ".autograder" / "earlier" / "ada" / A / f"{A}.ipynb").is_file()
    marking = Marking(str(course), A, token="t" * 40, ta="Tess")
    try:
        client = TestClient(create_app(marking))
        client.get("/?token=" + "t" * 40)
        page = client.get(f"/q/{A}/{D2}/a/{answer_key(A, 'ada')}").text
    finally:
        marking.close()
    assert "The student changed this answer after it was marked." in page
    changes = re.search(r'<p class="changes">(.*?)</p>', page, re.S).group(1)
    assert re.search(r'<ins><span class="visually-hidden">added: </span>[^<]*anything\.</ins>', changes), changes
    assert "<del>" in changes, "the earlier answer's words the student took out are shown struck through"
