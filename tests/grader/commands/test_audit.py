"""Tests of the leak audit (autograder/commands/audit.py) on small planted sites: every kind of
secret is found where it hides (a page, a notebook inside a zip inside a wheel, a script's
string), and what is legitimately public (the reference library, the perceptron's update in
a page) is not."""

from __future__ import annotations

import html
import io
import json
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
