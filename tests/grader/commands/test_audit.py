"""Tests of the leak audit (autograder/commands/audit.py) on small planted sites: every kind of
secret is found where it hides (a page, a notebook inside a zip inside a wheel, a script's
string), and what is legitimately public (the reference library, the perceptron's update in
a page) is not.

Then uploads for students (``--upload``), on a grading run's folder as ``grade`` writes it: the
LMS's files and feedback pages pass, while the run's record, the grades, the report, a marking
CSV or booklet (under any name), a TA's name and another student's id or email are found, and a
Gradescope ``results.json`` is read as students see it.  Last, the notes for markers, in the gradebook and in
the starting rubrics (read, never run): a copy of one is found, escaped or in a CSV cell, while a line too
short to tell and a rubric item's own text are not."""

from __future__ import annotations

import html
import io
import json
import shutil
import sqlite3
import zipfile
from pathlib import Path

import nbformat
import pytest

from autograder.commands import audit as leak_audit
from autograder.outputs.record import GRADES_COLUMNS
from perceptron_course import cells

from tests.support import REPO_ROOT
SOURCE = REPO_ROOT / "notebooks" / "source"


@pytest.fixture(scope="module")
def secrets():
    return leak_audit.collect_secrets(REPO_ROOT)


def source_regions():
    """Every ``(notebook, grade id, kind, lines)`` secret region of the source notebooks."""
    regions = []
    for path in sorted(SOURCE.rglob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            for kind, lines in leak_audit._cell_parts(cell)[0]:
                regions.append((path.name, cells.grade_id(cell) or "", kind, lines))
    return regions


def solution_region(grade_id):
    (lines,) = [lines for _, gid, kind, lines in source_regions() if gid == grade_id and kind == "solution"]
    return lines


def highlighted_page(code: str) -> str:
    """A page with ``code`` as Sphinx shows it: every token in its own span."""
    import pygments
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer
    block = pygments.highlight(code, PythonLexer(), HtmlFormatter())
    return f"<!DOCTYPE html><html lang='en'><body><main>{block}</main></body></html>"


def zipped(members: dict[str, bytes | str]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in members.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def clean_site(root: Path) -> Path:
    """A site with what may be published: the library (in a wheel too), generic perceptron code."""
    site = root / "site"
    (site / "book").mkdir(parents=True)
    (site / "book" / "update.html").write_text(highlighted_page(
        "for x_i, y_i in zip(X, y):\n    if y_i * (w @ x_i) <= 0:\n        w = w + y_i * x_i\n"
        "for _ in range(max_epochs):\n    pass\nw, b = split_offset(theta)\n"), encoding="utf-8")
    library = {f"perceptron_lib/{p.name}": p.read_bytes() for p in (REPO_ROOT / "perceptron_lib").glob("*.py")}
    (site / "packages").mkdir()
    (site / "packages" / "course-1.0-py3-none-any.whl").write_bytes(zipped(library))
    release = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "def perceptron_update(w, b, x, y):\n    # YOUR CODE HERE\n    raise NotImplementedError()")])
    (site / "ps2.ipynb").write_text(nbformat.writes(release), encoding="utf-8")
    return site


def test_a_clean_site_has_no_findings(tmp_path, secrets):
    assert leak_audit.audit([clean_site(tmp_path)], secrets) == []


def test_a_solution_in_a_highlighted_page_is_found(tmp_path, secrets):
    site = clean_site(tmp_path)
    code = "\n".join(solution_region("train_perceptron"))
    (site / "book" / "leaky.html").write_text(highlighted_page(code), encoding="utf-8")
    findings = leak_audit.audit([site], secrets)
    assert {f.path for f in findings} == {"site/book/leaky.html"}
    assert any("solution: notebooks/source/ps2_online_perceptron/ps2_online_perceptron.ipynb, "
               "solution in train_perceptron" in f.what for f in findings)


def test_a_reformatted_solution_in_a_notebook_in_a_zip_in_a_wheel_is_found(tmp_path, secrets):
    site = clean_site(tmp_path)
    # Re-indented and re-spaced: the audit ignores whitespace.
    lines = [" " + line.replace(" = ", "=").replace(" * ", "*") for line in solution_region("training_errors")]
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("\n".join(lines))])
    inner = zipped({"ps2_online_perceptron/ps2_online_perceptron.ipynb": nbformat.writes(notebook)})
    wheel = zipped({"course/__init__.py": "", "course/data/assignment.zip": inner})
    (site / "packages" / "other-1.0-py3-none-any.whl").write_bytes(wheel)
    findings = leak_audit.audit([site], secrets)
    assert {f.path for f in findings} == {
        "site/packages/other-1.0-py3-none-any.whl!course/data/assignment.zip!"
        "ps2_online_perceptron/ps2_online_perceptron.ipynb"}
    assert any("solution in training_errors" in f.what for f in findings)


def typeset_pdf(lines: list[str]) -> bytes:
    """A PDF whose text (in compressed streams, as a typeset book keeps it) is ``lines``, one per row."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure = plt.figure(figsize=(8.5, 0.3 * len(lines) + 1))
    for row, line in enumerate(lines):
        figure.text(0.02, 1 - (row + 1) / (len(lines) + 1), line, family="monospace", fontsize=8)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="pdf")
    plt.close(figure)
    return buffer.getvalue()


def test_a_solution_typeset_in_a_pdf_is_found_and_a_clean_pdf_passes(tmp_path, secrets):
    site = clean_site(tmp_path)
    solution = solution_region("train_perceptron")
    leaky = typeset_pdf(solution)
    # The text is compressed: reading the bytes alone would miss it.
    assert max(solution, key=len).encode() not in leaky
    (site / "book.pdf").write_bytes(leaky)
    (site / "clean.pdf").write_bytes(typeset_pdf(["for x_i, y_i in zip(X, y):", "    w = w + y_i * x_i"]))
    findings = leak_audit.audit([site], secrets)
    assert {f.path for f in findings} == {"site/book.pdf"}
    assert any("solution in train_perceptron" in f.what for f in findings)


def test_a_pdf_is_never_passed_unread(tmp_path, secrets, monkeypatch):
    site = clean_site(tmp_path)
    (site / "book.pdf").write_bytes(typeset_pdf(["nothing secret"]))
    monkeypatch.setattr(leak_audit.shutil, "which", lambda program: None)
    findings = leak_audit.audit([site], secrets)
    assert [f.path for f in findings] == ["site/book.pdf"]
    assert "install pdftotext" in findings[0].what


def test_a_hidden_test_block_in_a_script_string_is_found(tmp_path, secrets):
    site = clean_site(tmp_path)
    (hidden,) = [lines for _, gid, kind, lines in source_regions()
                 if gid == "update_worked_example" and kind == "hidden test"]
    (site / "search.js").write_text("var cells = " + json.dumps("\n".join(hidden)) + ";", encoding="utf-8")
    findings = leak_audit.audit([site], secrets)
    assert {f.path for f in findings} == {"site/search.js"}
    assert any("hidden test in update_worked_example" in f.what for f in findings)


def test_a_model_written_answer_is_found(tmp_path, secrets):
    (answer,) = [lines for _, gid, kind, lines in source_regions() if gid == "written_order"]
    findings = leak_audit.audit_bytes("answers.md", "\n".join(answer).encode(), secrets)
    assert findings and "written answer" in findings[0].what


def test_a_check_module_in_a_wheel_is_found(tmp_path, secrets):
    site = clean_site(tmp_path)
    check = (REPO_ROOT / "autograder" / "course" / "assignments" / "ps1_hyperplanes" / "checks.py").read_bytes()
    (site / "packages" / "course-1.0-py3-none-any.whl").write_bytes(zipped({"course/checks.py": check}))
    findings = leak_audit.audit([site], secrets)
    origins = {f.what.split(" (")[0] for f in findings}
    assert "hidden check: autograder/course/assignments/ps1_hyperplanes/checks.py" in origins
    assert {f.path for f in findings} == {"site/packages/course-1.0-py3-none-any.whl!course/checks.py"}


def test_a_known_wrong_module_is_found(secrets):
    wrong = (REPO_ROOT / "autograder" / "course" / "assignments" / "ps4_offset" / "known_wrong.py").read_bytes()
    findings = leak_audit.audit_bytes("wrong.py", wrong, secrets)
    assert any("known-wrong implementation: autograder/course/assignments/ps4_offset/known_wrong.py" in f.what for f in findings)


def test_a_gradebook_under_any_name_is_found(tmp_path, secrets):
    site = clean_site(tmp_path)
    database = tmp_path / "data.bin"
    with sqlite3.connect(database) as connection:
        connection.execute("create table grade (id text, score real)")
    (site / "data.bin").write_bytes(database.read_bytes())
    findings = leak_audit.audit([site], secrets)
    assert [(f.path, "SQLite" in f.what) for f in findings] == [("site/data.bin", True)]


def test_grades_are_found_by_name_and_by_columns(tmp_path, secrets):
    site = clean_site(tmp_path)
    rows = ",".join(GRADES_COLUMNS) + "\nada,ps1_hyperplanes,10,10,graded,,ada.ipynb,\n"
    (site / "scores.csv").write_text(rows, encoding="utf-8")
    (site / "grades.csv").write_text("anything", encoding="utf-8")
    findings = leak_audit.audit([site], secrets)
    assert sorted(f.path for f in findings) == ["site/grades.csv", "site/scores.csv"]


def test_a_calibration_is_found(tmp_path, secrets):
    site = clean_site(tmp_path)
    folder = site / "notebooks" / ".autograder" / "calibration"
    folder.mkdir(parents=True)
    (folder / "ps1_hyperplanes.json").write_text("{}", encoding="utf-8")
    findings = leak_audit.audit([site], secrets)
    assert [f.path for f in findings] == ["site/notebooks/.autograder/calibration/ps1_hyperplanes.json"]
    assert "calibration" in findings[0].what


def test_every_secret_region_and_check_module_is_found_planted_alone(secrets):
    for notebook, grade_id, kind, lines in source_regions():
        page = "<html><pre>" + html.escape("\n".join(lines)) + "</pre></html>"
        findings = leak_audit.audit_bytes("page.html", page.encode(), secrets)
        assert any(grade_id in f.what for f in findings), f"{notebook} {kind} in {grade_id} not found"
    for module in ("checks", "known_wrong"):
        for path in sorted((REPO_ROOT / "autograder" / "course" / "assignments").glob(f"*/{module}.py")):
            findings = leak_audit.audit_bytes(path.name, path.read_bytes(), secrets)
            assert any(str(path.relative_to(REPO_ROOT)) in f.what for f in findings), path


def test_a_new_assignment_and_check_are_covered_without_changing_the_audit(tmp_path):
    root = tmp_path / "course"
    source = root / "notebooks" / "source" / "ps9_new"
    source.mkdir(parents=True)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "def kernel_trick(X):\n    ### BEGIN SOLUTION\n    gram_matrix = polynomial_features(X) @ X.T\n"
        "    return gram_matrix / trace_normaliser\n    ### END SOLUTION")])
    (source / "ps9_new.ipynb").write_text(nbformat.writes(notebook), encoding="utf-8")
    (root / "autograder" / "course" / "assignments" / "ps9_new").mkdir(parents=True)
    (root / "autograder" / "course" / "assignments" / "ps9_new" / "checks.py").write_text(
        "CHECKS = [Check('kernel_trick', cases=[Case(unusual_input_for_the_kernel)])]\n", encoding="utf-8")
    secrets = leak_audit.collect_secrets(root)
    page = highlighted_page("gram_matrix = polynomial_features(X) @ X.T\nreturn gram_matrix / trace_normaliser")
    assert any("ps9_new.ipynb" in f.what for f in leak_audit.audit_bytes("p.html", page.encode(), secrets))
    check = (root / "autograder" / "course" / "assignments" / "ps9_new" / "checks.py").read_bytes()
    assert any("autograder/course/assignments/ps9_new/checks.py" in f.what for f in leak_audit.audit_bytes("c.py", check, secrets))


def test_the_command_names_the_file_and_fails(tmp_path, capsys):
    site = clean_site(tmp_path)
    assert leak_audit.main([str(site)]) == 0
    (site / "grades.csv").write_text("x", encoding="utf-8")
    assert leak_audit.main([str(site)]) == 1
    assert "site/grades.csv" in capsys.readouterr().err
    assert leak_audit.main([str(tmp_path / "missing")]) == 2
    assert "does not exist" in capsys.readouterr().err


# -- what is uploaded for students: an LMS's files and Gradescope's results ------------------------
# A grading run's folder as ``grade`` and ``export`` write it (no notebook runs): ada came from Canvas, bob
# from Moodle, cyrus from a plain folder, and ann is a member of ada's group submission, whose feedback
# names ada as the one who submitted for the group.

A2 = "ps2_online_perceptron"
D1, D2 = "written_online_batch", "written_order"
CANVAS_FILE = f"lovelaceada_104233_5512301_{A2}.ipynb"
MOODLE_FOLDER = "Bob Ross_88123_assignsubmission_file_"
# What is uploaded after export (feedback/ for the students no LMS file carries).
UPLOADS = ("canvas_feedback.zip", "moodle_feedback.zip", "moodle_grading_worksheet.csv", "canvas_import.csv",
           "moodle_import.csv", "feedback")
TA = "Sam Okafor"


def graded_folder(tmp_path: Path, comments: dict[str, str] | None = None) -> Path:
    """``tmp_path/out`` written as a run of four students writes it, each TA comment from ``comments``."""
    from autograder.intake.lms import FeedbackRoute
    from autograder.outputs.gradebook import WrittenMark
    from autograder.outputs.graded_run import GradedRun, Person
    from autograder.outputs.record import write_run_files
    from autograder.results import GRADED, CellResult, Flag, Result

    comments = comments or {}
    people = {"ada": Person("ada", "Ada Lovelace", "ada@example.edu", "104233", "canvas",
                            FeedbackRoute("canvas", CANVAS_FILE)),
              "bob": Person("bob", "Bob Ross", "bob@example.edu", "", "moodle",
                            FeedbackRoute("moodle", MOODLE_FOLDER, "88123")),
              "cyrus": Person("cyrus", "", "", "", "plain"),
              "ann": Person("ann", "Ann Byron", "ann@example.edu")}
    group = [Flag("group-submission", f"graded from {CANVAS_FILE!r}, submitted by ada for the group")]
    sources = {"ada": CANVAS_FILE, "bob": MOODLE_FOLDER, "cyrus": "cyrus.ipynb", "ann": CANVAS_FILE}
    results = [Result(sid, A2, GRADED, score=10.0, max_score=10.0,
                      cells=[CellResult("update_rules", 10.0, 10.0, True, "Passed.")],
                      manual_cells=[(D1, 2.0, "c1"), (D2, 2.0, "c2")], source=sources[sid],
                      flags=list(group) if sid == "ann" else [])
               for sid in people]
    marks = {sid: (WrittenMark(A2, D1, 2.0, points=2.0, comment=comments.get(sid, ""), checksum="c1"),
                   WrittenMark(A2, D2, 2.0, points=1.0, checksum="c2")) for sid in people}
    out = tmp_path / "out"
    out.mkdir()
    write_run_files(str(out), GradedRun(A2, str(tmp_path / "course"), results, people, sandbox_text="bubblewrap"),
                    marks)
    return out


def uploads(out: Path) -> list[Path]:
    return [out / name for name in UPLOADS]


def test_what_a_run_leaves_for_the_lms_passes_an_upload_audit_and_is_grades_to_a_site(tmp_path, secrets):
    out = graded_folder(tmp_path, {"ada": "Clear and complete.", "bob": "The second half is missing."})
    assert leak_audit.audit_upload(uploads(out), secrets, leak_audit.recipients_of_run(out)) == []
    # Published on the course's site, the same files are every student's grades.
    published = {f.path.split("!")[0] for f in leak_audit.audit(uploads(out), secrets)}
    assert {"canvas_feedback.zip", "moodle_feedback.zip", "feedback/ada.html"} <= published


def test_a_feedback_notebook_is_found_in_a_site_under_any_name(tmp_path, secrets):
    # Canvas's feedback is a notebook whose output holds the page, its stylesheet in JSON strings.
    out = graded_folder(tmp_path)
    site = clean_site(tmp_path)
    (site / "downloads").mkdir()
    (site / "downloads" / "extras.zip").write_bytes((out / "canvas_feedback.zip").read_bytes())
    findings = leak_audit.audit([site], secrets)
    assert [(f.path, "feedback page" in f.what) for f in findings] == [
        (f"site/downloads/extras.zip!{CANVAS_FILE}", True)]


def test_an_upload_refuses_the_run_record_grades_and_the_report(tmp_path, secrets):
    out = graded_folder(tmp_path)
    findings = leak_audit.audit_upload([out], secrets, leak_audit.recipients_of_run(out))
    by_path = {f.path: f.what for f in findings}
    assert set(by_path) == {"out/grading_run.json", "out/grades.csv", "out/report.html"}
    assert "the grading run's record for export" in by_path["out/grading_run.json"]
    assert "the grading report" in by_path["out/report.html"]
    # Renamed, or inside a zip, the run's record is known by what it holds.
    (tmp_path / "up").mkdir()
    (tmp_path / "up" / "notes.json").write_bytes((out / "grading_run.json").read_bytes())
    (tmp_path / "up" / "all.zip").write_bytes(zipped({"x/run.json": (out / "grading_run.json").read_bytes()}))
    findings = leak_audit.audit_upload([tmp_path / "up"], secrets)
    assert sorted(f.path for f in findings) == ["up/all.zip!x/run.json", "up/notes.json"]
    assert all("the grading run's record for export" in f.what for f in findings)


def marking_files(with_model_answer: bool) -> tuple[str, str]:
    """A marking CSV and its booklet for two of ps2's answers, as ``mark --to-csv`` writes them."""
    from autograder.marking.answers import Answer, Question
    from autograder.marking.booklet import booklet_html
    from autograder.marking.sheet import sheet_text
    from autograder.outputs.gradebook import WrittenMark

    model = "\n".join(solution_region_of("written_order")) if with_model_answer else ""
    question = Question(A2, D2, 2.0, "**Question D2 (2 points).** Does the order matter?", model)
    answers = [Answer("ada", "Ada Lovelace", question, "It does: the reverse order makes 17 mistakes.",
                      WrittenMark(A2, D2, 2.0, checksum="c" * 64)),
               Answer("bob", "Bob Ross", question, "", WrittenMark(A2, D2, 2.0, points=0.0, blank=True))]
    return sheet_text(answers), booklet_html(A2, [question], answers)


def solution_region_of(grade_id):
    (lines,) = [lines for _, gid, kind, lines in source_regions() if gid == grade_id]
    return lines


@pytest.mark.parametrize("mode", ["upload", "site"])
def test_a_marking_csv_and_its_booklet_are_found_under_any_name(tmp_path, secrets, mode):
    sheet, booklet = marking_files(with_model_answer=False)
    folder = tmp_path / "files"
    folder.mkdir()
    (folder / "ps2 marks.csv").write_text(sheet, encoding="utf-8")
    (folder / "answers.html").write_text(booklet, encoding="utf-8")
    (folder / "bundle.zip").write_bytes(zipped({"a/b.csv": sheet, "a/c.htm": booklet}))
    findings = (leak_audit.audit_upload([folder], secrets) if mode == "upload"
                else leak_audit.audit([folder], secrets))
    kinds = {f.path: f.what for f in findings}
    assert set(kinds) == {"files/ps2 marks.csv", "files/answers.html", "files/bundle.zip!a/b.csv",
                          "files/bundle.zip!a/c.htm"}
    for path in ("files/ps2 marks.csv", "files/bundle.zip!a/b.csv"):
        assert "a marking CSV" in kinds[path] and "every student's written answers" in kinds[path]
    for path in ("files/answers.html", "files/bundle.zip!a/c.htm"):
        assert "a marking booklet" in kinds[path]


def test_a_booklet_with_the_model_answer_shows_the_model_answer_too(secrets):
    _, booklet = marking_files(with_model_answer=True)
    whats = [f.what for f in leak_audit.audit_bytes("b.html", booklet.encode(), secrets)]
    assert any("written answer in written_order" in what for what in whats)
    assert any("a marking booklet" in what for what in whats)


def test_a_feedback_page_that_names_a_ta_is_refused(tmp_path, secrets):
    out = graded_folder(tmp_path, {"ada": f"Clear and complete. ({TA})",
                                   "bob": f"see me in office hours -\n{TA.replace(' ', '  ')}"})
    findings = leak_audit.audit_upload(uploads(out), secrets, leak_audit.recipients_of_run(out, tas=[TA, "Lee"]))
    assert {f.path for f in findings} == {
        f"canvas_feedback.zip!{CANVAS_FILE}", f"moodle_feedback.zip!{MOODLE_FOLDER}/{A2}-feedback.html",
        "moodle_grading_worksheet.csv", "feedback/ada.html", "feedback/bob.html"}
    assert all(f"names the TA {TA!r}" in f.what for f in findings)
    # Not knowing the TAs' names, the audit cannot see them: the same files pass.
    assert leak_audit.audit_upload(uploads(out), secrets, leak_audit.recipients_of_run(out)) == []
    # A name is found as a whole word, as it is written: a TA called Will is not in "will".
    assert leak_audit.audit_upload(uploads(out), secrets, leak_audit.recipients_of_run(out, tas=["Will", "sam"])) \
        == []


def test_the_tas_who_marked_on_the_marking_page_are_looked_for(tmp_path, secrets, monkeypatch):
    from types import SimpleNamespace

    from autograder.outputs import gradebook

    out = graded_folder(tmp_path, {"ada": f"Clear and complete. ({TA})"})
    course = str(tmp_path / "course")

    class Gradebook:
        def close(self):
            pass

    def written_marks(gb, assignment):
        assert assignment == A2
        return {"ada": (SimpleNamespace(marker=TA), SimpleNamespace(marker="")), "bob": ()}

    monkeypatch.setattr(gradebook, "open_gradebook", lambda course_dir: Gradebook() if course_dir == course
                        else pytest.fail(f"the run's course directory is {course}, not {course_dir}"))
    monkeypatch.setattr(gradebook, "written_marks", written_marks)
    recipients = leak_audit.recipients_of_run(out)
    assert recipients.tas == (TA,)
    findings = leak_audit.audit_upload(uploads(out), secrets, recipients)
    assert {f.path for f in findings} == {f"canvas_feedback.zip!{CANVAS_FILE}", "feedback/ada.html"}


def test_a_feedback_page_that_shows_another_students_id_is_refused(tmp_path, secrets):
    out = graded_folder(tmp_path, {"ada": "The same wording as bob's answer.",
                                   "cyrus": "Compare with ann@example.edu."})
    findings = leak_audit.audit_upload(uploads(out), secrets, leak_audit.recipients_of_run(out))
    by_path = {f.path: f.what for f in findings}
    assert set(by_path) == {f"canvas_feedback.zip!{CANVAS_FILE}", "feedback/ada.html", "feedback/cyrus.html"}
    assert "ada's feedback shows another student: bob" in by_path["feedback/ada.html"]
    assert "cyrus's feedback shows another student: ann (ann@example.edu)" in by_path["feedback/cyrus.html"]
    # ann's page names ada, who submitted for their group; the worksheet, for the whole class, names everyone.
    assert "feedback/ann.html" not in by_path and "moodle_grading_worksheet.csv" not in by_path


def test_a_feedback_page_found_outside_its_run_is_known_by_its_title(tmp_path, secrets):
    out = graded_folder(tmp_path, {"ada": "The same wording as bob's answer."})
    page = (out / "feedback" / "ada.html").read_bytes()
    recipients = leak_audit.recipients_of_run(out)
    findings = leak_audit.audit_bytes("mail/attachment.html", page, secrets, upload=recipients)
    assert [f.what for f in findings] == ["ada's feedback shows another student: bob"]
    clean = (out / "feedback" / "bob.html").read_bytes()
    assert leak_audit.audit_bytes("page.html", clean, secrets, upload=leak_audit.Recipients()) == []


def gradescope_results(test_output: str, visibility: str) -> bytes:
    return json.dumps({"score": 1.0, "output": "Status: graded.", "stdout_visibility": "hidden", "tests": [
        {"name": "update_rules", "score": 1.0, "max_score": 1.0, "output": "Passed.", "visibility": "visible"},
        {"name": D2, "score": 0.0, "max_score": 0.0, "output": test_output, "visibility": visibility}]}).encode()


def test_gradescope_results_are_read_as_students_see_them(secrets):
    model = "\n".join(solution_region_of("written_order"))
    # An entry only the course staff see may hold a written answer (here, one a student copied).
    assert leak_audit.audit_upload_bytes("results.json", gradescope_results(model, "hidden"), secrets) == []
    for visibility in ("visible", "after_published", "after_due_date"):
        findings = leak_audit.audit_upload_bytes("results.json", gradescope_results(model, visibility), secrets)
        assert any("written answer in written_order" in f.what for f in findings), visibility
    visible = leak_audit.gradescope_visible(json.loads(gradescope_results("secret words", "hidden")))
    assert "Status: graded." in visible and "Passed." in visible and "secret words" not in visible


def test_the_command_audits_an_upload_against_its_run(tmp_path, capsys):
    out = graded_folder(tmp_path, {"ada": f"Well argued. {TA}"})
    paths = [str(path) for path in uploads(out)]
    assert leak_audit.main(["--upload", *paths]) == 0
    assert "4 students" in capsys.readouterr().out
    assert leak_audit.main(["--upload", "--ta", TA, *paths]) == 1
    assert f"names the TA {TA!r}" in capsys.readouterr().err
    assert leak_audit.main(["--upload", str(out)]) == 1
    err = capsys.readouterr().err
    assert "out/grading_run.json" in err and "out/report.html" in err and "canvas_feedback.zip" not in err


# -- notes for markers --------------------------------------------------------------------------------
# The marking page's notes live in the gradebook, beside rubric items whose texts students see by design.

def gradebook_with_notes(folder: Path, *, notes: bool = True) -> Path:
    """A course folder whose gradebook holds one rubric item and one mark with notes (or, made before notes, none)."""
    folder.mkdir(parents=True, exist_ok=True)
    note = ", note text" if notes else ""
    with sqlite3.connect(folder / "gradebook.db") as connection:
        connection.execute(f"create table autograder_rubric_items (id integer primary key, assignment text, "
                           f"notebook text, cell text, position integer, points real, text text{note})")
        connection.execute(f"create table autograder_markers (assignment text, student text, notebook text, "
                           f"cell text, marker text, marked_at text, checksum text, points real, adjustment real"
                           f"{note})")
        if notes:
            connection.execute("insert into autograder_rubric_items values (1, ?, ?, ?, 1, -0.5, ?, ?)",
                               (A2, A2, D1, "Part C is not placed", "Accept 'both' only with the fixed weights\n"
                                "short one\nPart C is not placed"))
            connection.execute("insert into autograder_markers values (?, 'ada', ?, ?, 'Sam', '', 'c', 1, null, ?)",
                               (A2, A2, D1, 'It says "always": check with the instructor before marking'))
    return folder


def test_the_gradebook_s_notes_are_looked_for_and_only_they(tmp_path):
    course = gradebook_with_notes(tmp_path / "course")
    secrets = leak_audit.collect_secrets(REPO_ROOT, course_dir=course)
    page = lambda text: f"<html><body><p>{html.escape(text)}</p></body></html>".encode()
    item = leak_audit.audit_bytes("p.html", page("Accept \u2018both\u2019? Accept 'both' only with the fixed "
                                                 "weights, says the note."), secrets)
    assert [f.what for f in item] == [f"the note for markers of the rubric item 'Part C is not placed' of {A2}, {D1}: "
                                      "notes for markers never reach a student"]
    # In a CSV cell, its quotes doubled; a part of it is not the note.
    mark = leak_audit.audit_bytes("p.csv", b'Name,Feedback\nAda,"It says ""always"": check with the instructor '
                                           b'before marking"\n', secrets)
    assert [f.what for f in mark] == [f"a marker's note on ada's answer to {A2}, {D1}: notes for markers never reach "
                                      "a student"]
    assert leak_audit.audit_bytes("p.csv", b'Name,Feedback\nAda,"It says ""always"": check it"\n', secrets) == []
    # A line too short to tell, and a line that is an item's own text (which students see), are not looked for.
    assert leak_audit.audit_bytes("p.html", page("short one. Part C is not placed."), secrets) == []


def test_a_gradebook_from_before_notes_or_none_at_all_is_no_trouble(tmp_path):
    course = gradebook_with_notes(tmp_path / "course", notes=False)
    assert leak_audit.collect_secrets(REPO_ROOT, course_dir=course).notes.keys() == \
        leak_audit.collect_secrets(REPO_ROOT, course_dir=tmp_path / "nowhere").notes.keys()


def test_the_starting_rubrics_notes_are_read_without_running_them(tmp_path):
    root = tmp_path / "repo"
    folder = root / "autograder" / "course" / "assignments" / "ps9_new"
    folder.mkdir(parents=True)
    (folder / "rubric.py").write_text(
        "raise SystemExit('never run')\n"
        "RUBRIC = {'w': parts(Item(1, 'The idea', note='Half the point for the idea without the proof'),\n"
        "                     Item(1, text='The proof', note='Induction on the number of updates is enough'))}\n",
        encoding="utf-8")
    secrets = leak_audit.collect_secrets(root)
    assert set(secrets.notes) == {"Halfthepointfortheideawithouttheproof", "Inductiononthenumberofupdatesisenough"}
    assert all(origin == "a note for markers in the starting rubric autograder/course/assignments/ps9_new/rubric.py"
               for origin in secrets.notes.values())
    assert {"Theidea", "Theproof"} <= secrets.item_texts


def test_a_note_that_quotes_what_the_course_publishes_shows_nothing_secret(tmp_path):
    # A TA's note that quotes the question (ps2's release asks it in these words) would be found in every
    # release and every page that shows the question; it holds nothing the course does not publish.
    course = gradebook_with_notes(tmp_path / "course")
    shutil.copytree(SOURCE, course / "source")
    with sqlite3.connect(course / "gradebook.db") as connection:
        connection.execute("update autograder_markers set note = ?",
                           ("Does the order of the examples change what the perceptron learns, or how\n"
                            "Answer from your experiment, and explain why",))
    secrets = leak_audit.collect_secrets(REPO_ROOT, course_dir=course)
    assert not any("marker's note" in origin for origin in secrets.notes.values())
    assert any("the rubric item" in origin for origin in secrets.notes.values())
