"""``python -m autograder grade``: end to end in the sandbox, and the pieces.

* A batch of correct, partially correct, blank and broken submissions gets
  the scores the hidden checks give the same code in-process, from a folder
  and from a zip; regrading gives identical ``grades.csv`` and gradebook;
  changing one student's file changes that student's grade only, and a
  manual grade of an unchanged written answer survives the regrade.
* Hostile submissions have a batch of their own: ``test_grade_hostile.py``.
* Unit tests: safe zip extraction, rebuilding a notebook around its locked
  cells, the static tamper scan, the atomic CSV, and the command's refusals.

The grading runs are module-scoped fixtures shared by the tests that read them.
"""

import copy
import csv
import json
import os
import re
import textwrap
import zipfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell

from autograder.commands import grade as grade_module
from autograder.running import sandbox
from autograder.running.batch import grade_submissions, reference_copies, similar_pairs
from autograder.boundary.notebook import parse_notebook
from autograder.course.assignments import load_checks
from autograder.judging.checks import evaluate_namespace
from autograder.outputs.gradebook import open_gradebook
from autograder.judging.integrity import prepare_notebook, scan_code
from perceptron_course.cells import grade_id, is_solution, is_test_cell, nbgrader_metadata
from perceptron_course.limits import Limits
from autograder.outputs.record import write_grades_csv
from autograder.results import Result, Settings
from autograder.intake.submissions import collect
from tests.support import COURSE, ROOT
from tests.support.grading import (PS1, autograded_points, correct_submission, downloaded_form, gradebook_rows,
                                   notebooks_of, partial_submission, read_grades, replace_function, run_grade,
                                   sandbox_processes, without_markers)
from tests.support.released import copy_course
from autograder.course import assignments as registry
from autograder.course.assignments import load_known_wrong

ASSIGNMENTS = tuple(registry.names())
os.environ.setdefault("MPLBACKEND", "Agg")
pytestmark = pytest.mark.timeout(900)


# -- building submissions ---------------------------------------------------------------

def in_process_points(nb, assignment, release_nb):
    """The autograded points the hidden checks give this notebook's code when run here, without a sandbox."""
    namespace = {"__name__": "submission"}
    for cell in nb.cells:
        meta = nbgrader_metadata(cell)
        if cell.cell_type == "code" and (meta.get("solution") or meta.get("locked") and not meta.get("grade")):
            exec(compile(cell.source, f"<{meta.get('grade_id')}>", "exec"), namespace)
    verdicts = {v.grade_id: v.passed for v in evaluate_namespace(load_checks(assignment), namespace)}
    return sum(float(nbgrader_metadata(c)["points"]) for c in release_nb.cells
               if is_test_cell(c) and verdicts.get(grade_id(c)))


# -- fixtures ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def basic(course, tmp_path_factory, sandbox_ready):
    """ps1 graded from a folder, then from a zip of the same folder, then after one student's file changed."""
    release_nb, source_nb = notebooks_of(course, PS1)
    folder = tmp_path_factory.mktemp("submissions")
    correct = correct_submission(release_nb, source_nb)
    partial = partial_submission(release_nb, source_nb, PS1)
    nbformat.write(correct, str(folder / "alice.ipynb"))
    nbformat.write(release_nb, str(folder / "bob.ipynb"))
    (folder / "carol").mkdir()
    nbformat.write(partial, str(folder / "carol" / f"{PS1}.ipynb"))
    (folder / "dave.ipynb").write_text('{"cells": [ this is not JSON', encoding="utf-8")
    (folder / "erin").mkdir()
    nbformat.write(downloaded_form(correct), str(folder / "erin" / "my work.ipynb"))
    (folder / "frank").mkdir()
    (folder / "frank" / "notes.txt").write_text("no notebook here", encoding="utf-8")
    (folder / "bad name!.ipynb").write_text("{}", encoding="utf-8")

    archive = tmp_path_factory.mktemp("zip") / "download.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                zf.write(path, "batch/" + str(path.relative_to(folder)))

    runs = {}
    out = tmp_path_factory.mktemp("out")
    # Every run's temporary files go to a folder of their own, which must be empty after each run.
    temporary = tmp_path_factory.mktemp("tmpdir")
    leftovers = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", str(temporary))
        runs["folder"] = run_grade(PS1, folder, "--out", out / "folder", "--course-dir", course, "--workers", 2,
                                   "--timeout", 120)
    leftovers["folder"] = sorted(os.listdir(temporary))
    gradebook_after_folder = gradebook_rows(course, PS1)
    # An instructor grades alice's written answers by hand before the regrades.
    gb = open_gradebook(str(course))
    manual_id = next(grade_id(c) for c in release_nb.cells
                     if nbgrader_metadata(c).get("grade") and is_solution(c))
    grade = gb.find_grade(manual_id, PS1, PS1, "alice")
    grade.manual_score = 1.5
    grade.needs_manual_grade = False  # as the formgrader does when a score is entered
    gb.db.commit()
    gb.close()
    gradebook_after_manual = gradebook_rows(course, PS1)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TMPDIR", str(temporary))
        runs["zip"] = run_grade(PS1, archive, "--out", out / "zip", "--course-dir", course, "--workers", 2,
                                "--timeout", 120)
    leftovers["zip"] = sorted(os.listdir(temporary))
    gradebook_after_zip = gradebook_rows(course, PS1)
    nbformat.write(correct, str(folder / "carol" / f"{PS1}.ipynb"))
    runs["changed"] = run_grade(PS1, folder, "--out", out / "changed", "--course-dir", course, "--workers", 2,
                                "--timeout", 120)
    gradebook_after_change = gradebook_rows(course, PS1)
    return {
        "runs": runs, "out": out, "course": course, "release": release_nb, "manual_id": manual_id,
        "leftovers": leftovers,
        "expected": {"alice": in_process_points(correct, PS1, release_nb),
                     "carol": in_process_points(partial, PS1, release_nb),
                     "erin": in_process_points(correct, PS1, release_nb),
                     "bob": 0.0, "dave": 0.0, "frank": 0.0},
        "gradebooks": {"folder": gradebook_after_folder, "manual": gradebook_after_manual,
                       "zip": gradebook_after_zip, "changed": gradebook_after_change},
    }


# -- end to end: a normal batch -----------------------------------------------------------

@pytest.mark.slow
def test_batch_gets_the_scores_the_checks_give_in_process(basic):
    run = basic["runs"]["folder"]
    assert run.returncode == 0, run.stderr
    rows = read_grades(basic["out"] / "folder")
    max_score = sum(autograded_points(basic["release"]).values())
    assert 0 < basic["expected"]["carol"] < max_score, "the partial submission should be partly right"
    for student, points in basic["expected"].items():
        assert float(rows[student]["score"]) == points, (student, rows[student])
        assert float(rows[student]["max_score"]) == max_score
        assert rows[student]["assignment"] == PS1
    assert {s: rows[s]["status"] for s in rows} == {
        "alice": "graded", "bob": "graded", "carol": "graded", "dave": "ungradable", "erin": "graded",
        "frank": "ungradable", "bad-name": "ungradable"}
    assert all(rows[s]["flags"] == "" for s in ("alice", "bob", "carol", "erin")), rows
    assert rows["bad-name"]["source"] == "bad name!.ipynb" and rows["bad-name"]["status"] == "ungradable"


@pytest.mark.slow
def test_grading_leaves_nothing_in_the_temporary_folder(basic):
    # Each run graded seven submissions in two worker processes, and unzipped the download for the second.
    assert basic["leftovers"] == {"folder": [], "zip": []}


@pytest.mark.slow
def test_command_reports_progress_and_summary(basic):
    run = basic["runs"]["folder"]
    assert re.search(r"^1/7 [\w-]+: \w+", run.stderr, re.M), run.stderr
    assert "7 submissions in" in run.stdout and "4 graded, 3 ungradable, 0 timeout, 0 crashed" in run.stdout
    assert "sandbox: bubblewrap" in run.stdout


@pytest.mark.slow
def test_ungradable_submissions_say_why(basic):
    out = basic["out"] / "folder"
    dave = (out / "feedback" / "dave.html").read_text()
    frank = (out / "feedback" / "frank.html").read_text()
    assert "not valid JSON" in dave
    assert "no notebook" in frank
    report = (out / "report.html").read_text()
    assert 'href="feedback/dave.html"' in report and 'href="feedback/frank.html"' in report


@pytest.mark.slow
def test_zip_and_regrade_give_identical_results(basic):
    assert basic["runs"]["zip"].returncode == 0, basic["runs"]["zip"].stderr
    folder_rows = read_grades(basic["out"] / "folder")
    zip_rows = read_grades(basic["out"] / "zip")
    # The regrade keeps the mark alice's written answer got in between, and counts it in her total.
    alice_before, alice_after = folder_rows.pop("alice"), zip_rows.pop("alice")
    assert float(alice_after["written"]) == float(alice_before["written"]) + 1.5
    assert float(alice_after["total"]) == float(alice_before["total"]) + 1.5
    assert basic["manual_id"] not in alice_after["to_mark"].split(";")
    assert {k: v for k, v in alice_after.items() if k not in ("written", "total", "to_mark")} == \
        {k: v for k, v in alice_before.items() if k not in ("written", "total", "to_mark")}
    assert zip_rows == folder_rows
    assert basic["gradebooks"]["zip"] == basic["gradebooks"]["manual"]


@pytest.mark.slow
def test_regrade_keeps_a_manual_grade_of_an_unchanged_answer(basic):
    rows = [r for r in basic["gradebooks"]["changed"]
            if r[0] == "grade" and r[1] == "alice" and r[3] == basic["manual_id"]]
    assert rows and rows[0][5] == 1.5 and rows[0][7] is False, rows


@pytest.mark.slow
def test_changed_file_changes_only_that_students_grade(basic):
    assert basic["runs"]["changed"].returncode == 0, basic["runs"]["changed"].stderr
    before = read_grades(basic["out"] / "zip")
    after = read_grades(basic["out"] / "changed")
    changed = {s for s in before if before[s] != after[s]}
    assert changed == {"carol"}
    assert float(after["carol"]["score"]) == basic["expected"]["alice"]
    old = [r for r in basic["gradebooks"]["zip"] if r[1] != "carol"]
    new = [r for r in basic["gradebooks"]["changed"] if r[1] != "carol"]
    assert old == new
    assert [r for r in basic["gradebooks"]["zip"] if r[1] == "carol"] != \
        [r for r in basic["gradebooks"]["changed"] if r[1] == "carol"]


@pytest.mark.slow
def test_gradebook_has_one_record_per_student_with_the_autograded_scores(basic):
    rows = read_grades(basic["out"] / "folder")
    points = autograded_points(basic["release"])
    for student, row in rows.items():
        auto = [r for r in basic["gradebooks"]["folder"] if r[0] == "grade" and r[1] == student and r[3] in points]
        assert len(auto) == len(points), student
        assert sum(r[4] for r in auto) == float(row["score"]), student
    notebook = basic["course"] / "autograded" / "alice" / PS1 / f"{PS1}.ipynb"
    assert notebook.is_file()
    nbformat.validate(nbformat.read(str(notebook), as_version=4))


@pytest.mark.slow
def test_report_is_self_contained_with_plots(basic):
    report = (basic["out"] / "folder" / "report.html").read_text()
    assert report.count("<svg") >= 2
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", report)
    assert "<script" not in report
    assert "graded by hand" in report or "formgrader" in report
    assert "bubblewrap" in report


@pytest.mark.slow
def test_report_compares_the_code_the_students_wrote(basic):
    # The section appears only when the workers sent back at least two students' own code.
    # alice, erin and carol share the solution's lines, which is most of this small class,
    # so those lines are set aside as common ones and no pair is reported.
    report = (basic["out"] / "folder" / "report.html").read_text()
    start = report.index("<h2>Similar submissions</h2>")
    section = report[start:report.index("</section>", start)]
    assert "No pair reached that figure." in section
    # Nor is any of them a copy of the reference library: the solution and a known-wrong function are not.
    start = report.index("<h2>Copies of the reference implementation</h2>")
    assert "No function of a submission matches one of the library." in report[start:report.index("</section>", start)]
    assert "reference-copy" not in report


def test_similar_pairs_compare_own_code_but_not_the_stubs(course):
    release_nb, source_nb = notebooks_of(course, PS1)
    release_path = os.path.join(course, "release", PS1, f"{PS1}.ipynb")
    own = ["def signed_distance(X, w, b=0.0):\n"
           "    norm = np.sqrt(np.sum(np.square(w)))\n"
           "    scores = np.einsum('ij,j->i', np.asarray(X, dtype=float), w)\n"
           "    shifted = scores + b\n"
           "    result = shifted / norm\n"
           "    return result\n"]
    renamed = [own[0].replace("norm", "length").replace("scores", "s")]
    stubs = [c.source for c in release_nb.cells if is_solution(c) and c.cell_type == "code"]
    results = [Result("ann", PS1, "graded", authored_code=tuple(own)),
               Result("ben", PS1, "graded", authored_code=tuple(renamed)),
               Result("cat", PS1, "graded", authored_code=tuple(stubs)),
               Result("dan", PS1, "graded", authored_code=tuple(stubs))]
    pairs = similar_pairs(results, release_path)
    assert [(p.first, p.second) for p in pairs] == [("ann", "ben")]
    assert pairs[0].similarity == 1.0
    assert similar_pairs(results[:1], release_path) is None  # one submission: nothing to compare


def test_reference_copies_find_a_pasted_library_function_but_not_the_solution(course):
    release_nb, source_nb = notebooks_of(course, PS1)
    release_path = os.path.join(course, "release", PS1, f"{PS1}.ipynb")
    answers = [c.source for c in correct_submission(release_nb, source_nb).cells
               if is_solution(c) and c.cell_type == "code"]
    with open(os.path.join(ROOT, "perceptron_lib", "_validation.py"), encoding="utf-8") as f:
        check_x = re.search(r"^def check_X\(.*?(?=^def )", f.read(), re.MULTILINE | re.DOTALL).group(0)
    pasted = check_x.replace("check_X", "as_points").replace("arr", "points") + "\n\n" + answers[0].replace(
        "X = np.asarray(X, dtype=float)", "X = as_points(X)")
    wrong = load_known_wrong(PS1)[0].code()
    results = [Result("ann", PS1, "graded", authored_code=tuple(answers)),
               Result("ben", PS1, "graded", authored_code=(wrong,) + tuple(answers[1:])),
               Result("cat", PS1, "graded", authored_code=(pasted,) + tuple(answers[1:]))]
    copies = reference_copies(results, release_path)
    assert [(c.submission, c.function, c.reference) for c in copies] == [
        ("cat", "as_points", "perceptron_lib._validation.check_X")]
    assert reference_copies(results[:1], release_path) == []  # one submission is compared too
    assert reference_copies([Result("dan", PS1, "graded")], release_path) is None  # no code of its own


# -- other assignments, as they are written -------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("assignment", [a for a in ASSIGNMENTS if a != PS1])
def test_other_assignments_grade_end_to_end(assignment, course, tmp_path, sandbox_ready):
    release_nb, source_nb = notebooks_of(course, assignment)
    folder = tmp_path / "in"
    folder.mkdir()
    correct = correct_submission(release_nb, source_nb)
    partial = partial_submission(release_nb, source_nb, assignment)
    nbformat.write(downloaded_form(correct), str(folder / "correct.ipynb"))
    nbformat.write(partial, str(folder / "partial.ipynb"))
    nbformat.write(release_nb, str(folder / "blank.ipynb"))
    run = run_grade(assignment, folder, "--out", tmp_path / "out", "--course-dir", course, "--workers", 2,
                    "--timeout", 240)
    assert run.returncode == 0, run.stderr
    rows = read_grades(tmp_path / "out")
    assert float(rows["correct"]["score"]) == in_process_points(correct, assignment, release_nb) \
        == sum(autograded_points(release_nb).values())
    assert float(rows["partial"]["score"]) == in_process_points(partial, assignment, release_nb)
    assert float(rows["blank"]["score"]) == 0.0
    assert {r["status"] for r in rows.values()} == {"graded"}


@pytest.mark.slow
def test_a_function_that_never_returns_costs_a_calibrated_limit_not_the_ceiling(course, tmp_path, sandbox_ready):
    from autograder.course.assignments.ps2_online_perceptron.known_wrong import _train

    ps2 = "ps2_online_perceptron"
    release_nb, source_nb = notebooks_of(course, ps2)
    endless = textwrap.dedent(_train(epochs="range(1, 10**15)", stop="pass")).strip() + "\n"
    (tmp_path / "in").mkdir()
    nbformat.write(replace_function(correct_submission(release_nb, source_nb), endless),
                   str(tmp_path / "in" / "endless.ipynb"))
    run = run_grade(ps2, tmp_path / "in", "--out", tmp_path / "out", "--course-dir", course, "--workers", 1)
    assert run.returncode == 0, run.stderr
    assert re.search(r"^time limits: [\d.]+ s per hidden-test call", run.stdout, re.M), run.stdout
    row = read_grades(tmp_path / "out")["endless"]
    assert row["status"] == "graded" and "cell-interrupted" in row["flags"], row
    training = {c.grade_id for c in load_checks(ps2) if c.function == "train_perceptron"}
    points = autograded_points(release_nb)
    assert float(row["score"]) == sum(p for gid, p in points.items() if gid not in training)
    assert "train_perceptron did not return within the time a hidden test allows one call" in (tmp_path / "out" / "feedback" / "endless.html").read_text()
    notebook = nbformat.read(str(course / "autograded" / "endless" / ps2 / f"{ps2}.ipynb"), as_version=4)
    limits = [float(m) for c in notebook.cells for o in c.get("outputs", []) if o.get("ename") == "CellTimeoutError"
              for m in re.findall(r"more than ([\d.]+) seconds", o.get("evalue", ""))]
    ceiling = Limits().cell_seconds
    assert limits and max(limits) < ceiling, (limits, ceiling)
    assert "Calibrated from the instructor" in (tmp_path / "out" / "report.html").read_text()


def test_grading_warns_when_the_source_changed_since_the_release(released_course, tmp_path):
    from autograder.commands.release import stale_release

    course = copy_course(released_course, tmp_path / "course")
    assert stale_release(PS1, str(course)) is None
    source = course / "source" / PS1 / f"{PS1}.ipynb"
    nb = nbformat.read(str(source), as_version=4)
    nb.cells[0].source += "\n\nA sentence added after the release."
    nbformat.write(nb, str(source))
    warning = stale_release(PS1, str(course))
    assert warning.startswith(f"the source of {PS1} or its hidden checks changed since it was released (")
    assert f"python -m autograder release {PS1}" in warning


@pytest.mark.slow
def test_limits_measured_at_release_are_reused_and_measured_again_on_request(
        course_release, released_course, tmp_path, sandbox_ready, capsys):
    from autograder.running.calibrate import saved_path

    # The run's release (python -m autograder release) measured and saved the limits.
    assert f"{PS1}: released to " in course_release.stdout
    assert "time limits measured from the solution and saved:" in course_release.stdout
    course = copy_course(released_course, tmp_path / "course")
    saved = json.loads(open(saved_path(str(course), PS1)).read())
    assert saved["cell_seconds_by_cell"] and 1 <= saved["call_seconds"] <= Limits().call_seconds

    release_nb, source_nb = notebooks_of(course, PS1)
    (tmp_path / "in").mkdir()
    nbformat.write(correct_submission(release_nb, source_nb), str(tmp_path / "in" / "alice.ipynb"))

    def grade(*extra):
        out = tmp_path / f"out{len(list(tmp_path.glob('out*')))}"
        code = grade_module.main([PS1, str(tmp_path / "in"), "--out", str(out), "--course-dir", str(course),
                                  "--workers", "1", *extra])
        assert code == 0, capsys.readouterr().err
        assert read_grades(out)["alice"]["status"] == "graded"
        return " ".join((out / "report.html").read_text().split())

    assert f"on {saved['measured']} (saved in .autograder/calibration/{PS1}.json" in grade()
    assert "at the start of this batch" in grade("--recalibrate")


def test_a_saved_measurement_holds_until_something_it_depends_on_changes(released_course, tmp_path, monkeypatch):
    """What the measurement depends on (the limits, the release, a readable record), without grading: each
    measurement here is recorded, as ``_measure`` records it, with made-up times."""
    from autograder.course.limits import load_limits
    from autograder.results import Settings
    from autograder.running import calibrate

    course = copy_course(released_course, tmp_path / "course")
    measured = []

    def measure(settings, course_dir, assignment):
        measured.append(settings.limits.calibration_factor)
        done = replace(settings, call_seconds=1.5, cell_seconds_by_cell=(("imports", 4.0),))
        calibrate._save(settings, course_dir, assignment, done, 0.2, 0.075)
        return done

    monkeypatch.setattr(calibrate, "_measure", measure)

    def limits_text():
        settings = Settings(limits=load_limits(str(course)))
        return calibrate.calibrated_settings(settings, str(course), PS1).budget_text

    assert "saved in" in limits_text() and measured == []  # the release's own measurement
    # A different limit is a different measurement: measured again, saved, and then reused.
    with open(course / "nbgrader_config.py", "a") as f:
        f.write("\nc.Autograder.calibration_factor = 10\n")
    limits_text()
    assert measured == [10]
    assert "saved in" in limits_text() and measured == [10]
    release = course / "release" / PS1 / f"{PS1}.ipynb"
    release.write_text(release.read_text().replace("Hyperplanes", "Hyperplanes!", 1))
    limits_text()
    assert measured == [10, 10]
    # A saved file that cannot be read is measured again, not trusted or fatal.
    with open(calibrate.saved_path(str(course), PS1), "w") as f:
        f.write('{"fingerprint": ')
    limits_text()
    assert measured == [10, 10, 10]
    assert json.loads(open(calibrate.saved_path(str(course), PS1)).read())["cell_seconds_by_cell"] == [["imports", 4.0]]


# -- the command's refusals -------------------------------------------------------------------

def test_unknown_assignment_is_refused(tmp_path, capsys):
    assert grade_module.main(["ps0_nothing", str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    assert "known assignments" in capsys.readouterr().err


def test_unreleased_assignment_is_refused(tmp_path, capsys):
    code = grade_module.main([PS1, str(tmp_path), "--out", str(tmp_path / "out"), "--course-dir", str(tmp_path)])
    assert code == 2
    assert "has not been released" in capsys.readouterr().err


def test_missing_submissions_are_refused(course, tmp_path, capsys):
    code = grade_module.main([PS1, str(tmp_path / "nowhere"), "--out", str(tmp_path / "out"),
                              "--course-dir", str(course)])
    assert code == 2
    assert "does not exist" in capsys.readouterr().err


def test_no_sandbox_is_refused_without_the_unsafe_flag(course, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sandbox, "sandbox_status",
                        lambda: sandbox.SandboxStatus(False, "bubblewrap (bwrap) is not installed"))
    (tmp_path / "in").mkdir()
    code = grade_module.main([PS1, str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--course-dir", str(course)])
    assert code == 2
    err = capsys.readouterr().err
    assert "no sandbox" in err and "--unsafe-no-sandbox" in err


@pytest.mark.slow
def test_unsafe_mode_grades_and_says_so_in_the_report(course, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(sandbox, "sandbox_status",
                        lambda: sandbox.SandboxStatus(False, "bubblewrap (bwrap) is not installed"))
    release_nb, source_nb = notebooks_of(course, PS1)
    (tmp_path / "in").mkdir()
    nbformat.write(correct_submission(release_nb, source_nb), str(tmp_path / "in" / "solo.ipynb"))
    code = grade_module.main([PS1, str(tmp_path / "in"), "--out", str(tmp_path / "out"), "--course-dir", str(course),
                              "--unsafe-no-sandbox", "--workers", "1", "--timeout", "120"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "WITHOUT a sandbox" in captured.out
    assert "No sandbox" in (tmp_path / "out" / "report.html").read_text()
    assert read_grades(tmp_path / "out")["solo"]["status"] == "graded"


@pytest.mark.slow
def test_any_executor_can_run_the_batch(course, tmp_path, sandbox_ready):
    release_nb, source_nb = notebooks_of(course, PS1)
    (tmp_path / "in").mkdir()
    nbformat.write(correct_submission(release_nb, source_nb), str(tmp_path / "in" / "threaded.ipynb"))
    submissions, _ = collect(str(tmp_path / "in"), PS1, str(tmp_path))
    with ThreadPoolExecutor(max_workers=1) as executor:
        results = grade_submissions(PS1, submissions, course_dir=str(course), out_dir=str(tmp_path / "out"),
                                    settings=Settings(limits=Limits(notebook_seconds=120)), executor=executor)
    assert [(r.student_id, r.status, r.score) for r in results] == [
        ("threaded", "graded", sum(autograded_points(release_nb).values()))]


# -- the sandbox itself -------------------------------------------------------------------------

SANDBOX_PROBE = """
import json, os, resource, socket, sys
seen = {"uid": os.getuid(), "pid": os.getpid(), "nproc": resource.getrlimit(resource.RLIMIT_NPROC)[0]}
try:
    socket.create_connection(("1.1.1.1", 53), timeout=2)
    seen["network"] = True
except OSError:
    seen["network"] = False
seen["repository"] = sorted(os.listdir(sys.argv[1])) if os.path.exists(sys.argv[1]) else None
try:
    import autograder.judging.checks
    seen["checks"] = True
except ImportError:
    seen["checks"] = False
import perceptron_lib
seen["perceptron_lib"] = perceptron_lib.__file__
for path in ("/usr/evil", "/home/evil", "/grader/evil", "/evil"):
    try:
        open(path, "w").close()
        seen[path] = True
    except OSError:
        seen[path] = False
with open("/home/student/work/ok", "w") as f:
    f.write("written")
print(json.dumps(seen))
"""


def test_sandbox_hides_the_repository_and_the_network(tmp_path, sandbox_ready):
    work = tmp_path / "work"
    work.mkdir()
    uid = sandbox.sandbox_uid()
    if uid is not None:
        os.chown(work, uid, uid)
    mounts = [sandbox.Mount(str(work), "/home/student/work", writable=True),
              sandbox.Mount(os.path.join(ROOT, "perceptron_lib"), "/grader/perceptron_lib")]
    outcome = sandbox.run_sandboxed([sandbox.python_executable(), "-c", SANDBOX_PROBE, ROOT], mounts=mounts,
                                    cwd="/home/student/work", env={"PATH": "/usr/bin:/bin", "PYTHONPATH": "/grader"},
                                    timeout=60,
                                    limits=replace(sandbox.ProcessLimits.of(Limits(), cpu_seconds=60), processes=50))
    assert outcome.returncode == 0, outcome.output
    seen = json.loads(outcome.output.strip().splitlines()[-1])
    assert seen["uid"] != 0 and seen["pid"] < 10
    assert seen["nproc"] == 50
    assert seen["network"] is False
    assert seen["repository"] == [".venv"] or seen["repository"] is None, seen["repository"]
    assert seen["checks"] is False
    assert seen["perceptron_lib"] == "/grader/perceptron_lib/__init__.py"
    assert not any(seen[p] for p in ("/usr/evil", "/home/evil", "/grader/evil", "/evil"))
    assert (work / "ok").read_text() == "written"
    assert outcome.leftover_processes == 0 and sandbox_processes() == []


def test_sandbox_reads_mounts_nested_under_its_private_tmp(tmp_path, sandbox_ready):
    # A checkout or virtual environment under /tmp (as in a CI clone) is
    # mounted beneath the sandbox's own /tmp; the directories leading to it
    # must exist there and be traversable by the sandbox's user.
    shared = tmp_path / "lib"
    shared.mkdir()
    (shared / "data.txt").write_text("visible", encoding="utf-8")
    target = "/tmp/checkout/nested/lib"
    outcome = sandbox.run_sandboxed(["/bin/cat", f"{target}/data.txt"], mounts=[sandbox.Mount(str(shared), target)],
                                    cwd="/", env={"PATH": "/usr/bin:/bin"}, timeout=60,
                                    limits=sandbox.ProcessLimits.of(Limits(), cpu_seconds=60))
    assert outcome.returncode == 0, outcome.output
    assert outcome.output.strip() == "visible"


def test_sandbox_is_stopped_by_its_watch_and_its_timeout(tmp_path, sandbox_ready):
    work = tmp_path / "work"
    work.mkdir()
    uid = sandbox.sandbox_uid()
    if uid is not None:
        os.chown(work, uid, uid)
    mounts = [sandbox.Mount(str(work), "/home/student/work", writable=True)]
    fill = "i=0; while :; do i=$((i+1)); head -c 1000000 /dev/zero > /home/student/work/f$i; done"

    def watch():
        size = sum(p.stat().st_size for p in work.iterdir())
        return "too many bytes" if size > 5_000_000 else None

    outcome = sandbox.run_sandboxed(["/bin/sh", "-c", fill], mounts=mounts, cwd="/home/student/work",
                                    env={"PATH": "/usr/bin:/bin"}, timeout=60, watch=watch,
                                    limits=sandbox.ProcessLimits.of(Limits(), cpu_seconds=60))
    assert outcome.stopped_reason == "too many bytes" and not outcome.timed_out
    sleeper = sandbox.run_sandboxed(["/bin/sh", "-c", "sleep 100 & sleep 100"], mounts=[], cwd="/",
                                    env={"PATH": "/usr/bin:/bin"}, timeout=1,
                                    limits=sandbox.ProcessLimits.of(Limits(), cpu_seconds=60))
    assert sleeper.timed_out and sleeper.seconds < 10
    assert sleeper.leftover_processes == 0 and sandbox_processes() == []


# -- pieces --------------------------------------------------------------------------------------

def test_grades_csv_is_replaced_whole_or_not_at_all(tmp_path):
    path = tmp_path / "grades.csv"
    path.write_text("old\n")

    class Exploding(Result):
        @property
        def flag_codes(self):
            raise RuntimeError("disk on fire")

    good = Result("ann", PS1, "graded", score=1.0, max_score=2.0)
    with pytest.raises(RuntimeError):
        write_grades_csv(str(path), [good, Exploding("bea", PS1, "graded")])
    assert path.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["grades.csv"]
    write_grades_csv(str(path), [good])
    assert path.read_text().splitlines() == ["student_id,assignment,score,max_score,status,flags,source,submitted_at,"
                                             "written,written_max,total,total_max,to_mark",
                                             f"ann,{PS1},1,2,graded,,,,0,0,1,2,"]


def test_grades_csv_cells_never_run_as_spreadsheet_formulas(tmp_path):
    # The download's entry name comes from the student; a spreadsheet runs a cell starting with = + - @.
    path = tmp_path / "grades.csv"
    rows = [Result("ann", PS1, "graded", score=1.0, max_score=2.0, source='=HYPERLINK("http://x","y")'),
            Result("bea", PS1, "graded", score=2.0, max_score=2.0, source="@SUM(A1)"),
            Result("cy", PS1, "graded", score=0.0, max_score=2.0, source="+1-2")]
    write_grades_csv(str(path), rows)
    with open(path, newline="", encoding="utf-8") as f:
        cells = [cell for row in csv.reader(f) for cell in row]
    assert not [cell for cell in cells if cell[:1] in ("=", "+", "-", "@")]
    assert "'=HYPERLINK(\"http://x\",\"y\")" in cells and "'@SUM(A1)" in cells and "'+1-2" in cells


def test_zip_extraction_refuses_escapes_links_and_bombs(tmp_path):
    archive = tmp_path / "lms.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../escape.ipynb", "{}")
        zf.writestr("/absolute.ipynb", "{}")
        zf.writestr("good.ipynb", '{"cells": []}')
        zf.writestr("huge.ipynb", "x" * 5000)
        link = zipfile.ZipInfo("linked.ipynb")
        link.external_attr = (0o120777 << 16)
        zf.writestr(link, "/etc/passwd")
        zf.writestr("__MACOSX/._good.ipynb", "junk")
        zf.writestr("corrupt.ipynb", '{"cells": []}' * 20, compress_type=zipfile.ZIP_DEFLATED)
    with zipfile.ZipFile(archive) as zf:
        info = zf.getinfo("corrupt.ipynb")
    data = bytearray(archive.read_bytes())
    start = info.header_offset + 30 + len(info.filename)
    data[start:start + 8] = b"\xff" * 8
    archive.write_bytes(bytes(data))
    work = tmp_path / "work"
    work.mkdir()
    submissions, skipped = collect(str(archive), PS1, str(work), max_notebook_bytes=1000)
    found = {s.student_id: s for s in submissions}
    assert set(found) == {"good", "huge", "linked", "corrupt"}
    assert "could not be extracted" in found["corrupt"].problem
    assert found["good"].path and not found["good"].problem
    assert "too large" in found["huge"].problem
    assert "symbolic link" in found["linked"].problem
    assert not (tmp_path / "escape.ipynb").exists() and not os.path.exists("/absolute.ipynb")
    assert all(str(p).startswith(str(work)) for p in work.rglob("*"))
    assert os.path.getsize(work / "extracted" / "huge.ipynb") <= 1001


def test_folder_entries_become_submissions_or_reasons(tmp_path):
    (tmp_path / "ann.ipynb").write_text('{"cells": []}')
    (tmp_path / "bea").mkdir()
    (tmp_path / "bea" / "a.ipynb").write_text("{}")
    (tmp_path / "bea" / "b.ipynb").write_text("{}")
    (tmp_path / "cy.pdf").write_bytes(b"%PDF")
    (tmp_path / "dee.ipynb").write_text("")
    os.mkfifo(tmp_path / "eve.ipynb")
    (tmp_path / "<script>.ipynb").write_text("{}")
    submissions, skipped = collect(str(tmp_path), PS1, str(tmp_path))
    problems = {s.student_id: s.problem for s in submissions}
    assert problems["ann"] is None
    assert "2 notebooks" in problems["bea"]
    assert "not a notebook" in problems["cy"]
    assert "empty" in problems["dee"]
    assert "not a regular file" in problems["eve"]
    # A name that is not a safe id becomes one; the original is kept as the row's source.
    assert {s.student_id: s.source for s in submissions}["script"] == "<script>.ipynb" and skipped == []


def _locked_release():
    def cell(source, **meta):
        made = new_code_cell(source) if meta.pop("code", True) else new_markdown_cell(source)
        if meta:
            made.metadata["nbgrader"] = dict(meta, schema_version=3)
        return made

    return nbformat.v4.new_notebook(cells=[
        cell("import numpy as np", grade_id="imports", locked=True, grade=False, solution=False),
        cell("def f(x):\n    raise NotImplementedError()", grade_id="f", solution=True, grade=False, locked=False),
        cell("assert f(1) == 2", grade_id="test_f", grade=True, solution=False, locked=True, points=2),
        cell("Explain.", code=False, grade_id="why", grade=True, solution=True, locked=False, points=1),
    ])


def test_prepared_notebook_restores_locked_cells_and_keeps_the_students_own():
    release_nb = _locked_release()
    student = json.loads(nbformat.writes(release_nb))
    student["cells"][1]["source"] = "def f(x):\n    return 2 * x\n"
    student["cells"][2]["source"] = "pass"  # edited test
    student["cells"].insert(2, {"cell_type": "code", "source": "helper = 1", "metadata": {}, "outputs": [],
                                "execution_count": None})
    student["cells"].append(copy.deepcopy(student["cells"][3]))  # copied test cell
    del student["cells"][0]  # deleted read-only cell
    submitted, problem = parse_notebook(json.dumps(student).encode())
    assert problem is None
    prepared, flags, authored, answers = prepare_notebook(submitted, release_nb)
    sources = [c.source for c in prepared.cells]
    assert sources == ["import numpy as np", "def f(x):\n    return 2 * x\n", "helper = 1",
                       "assert f(1) == 2", "Explain."]
    assert "nbgrader" not in prepared.cells[2].metadata
    assert {f.code: f.detail for f in flags} == {"edited-locked-cell": "changed: test_f",
                                                "deleted-locked-cell": "missing: imports",
                                                "duplicated-cell": "twice or more: test_f"}
    assert answers == {"f": "def f(x):\n    return 2 * x\n", "why": "Explain."}
    assert [label for label, _ in authored] == ["answer cell 'f'", "cell 3 (added by the student)"]


@pytest.mark.parametrize("source, code", [
    ("get_ipython().input_transformers_cleanup.append(lambda lines: lines)", "ipython-hooks"),
    ("ip = get_ipython()\nip.events.register('pre_run_cell', print)", "ipython-hooks"),
    ("%load_ext something", "ipython-hooks"),
    ("import numpy as np\nnp.testing.assert_allclose = print", "patched-modules"),
    ("import builtins\nbuiltins.len = lambda x: 3", "patched-modules"),
    ("setattr(np, 'allclose', lambda *a: True)", "patched-modules"),
    ("import sys\nsys.modules['numpy'] = None", "import-system"),
    ("mod = __import__('perceptron' + '_lib')", "import-system"),
    ("open('numpy.py', 'w').write('x = 1')", "module-file"),
    ("%%writefile json.py\nx = 1\n", "module-file"),
    ("open('/work/main/notebooks/gradebook.db').read()", "outside-paths"),
    ("import os\nos.listdir('..')", "outside-paths"),
    ("import os\nif 'CI' in os.environ: pass", "grading-detection"),
    ("import os\nos.kill(os.getppid(), 9)", "processes"),
    ("!ls", "processes"),
    ("class A:\n    def __eq__(self, other):\n        return True", "custom-equality"),
    ("from perceptron_lib import train_perceptron", "reference-solution"),
    ("import perceptron_lib as pl\nw = pl.Perceptron().fit", "reference-solution"),
    ("from perceptron_lib.theory import *", "reference-solution"),
    ("import perceptron_lib\nf = getattr(perceptron_lib, 'margin')", "reference-solution"),
    ("def f(:\n    get_ipython().ast_transformers.append(1)", "ipython-hooks"),
])
def test_tamper_scan_finds(source, code):
    assert code in {f.code for f in scan_code([("cell", source)])}


def test_a_function_of_a_locked_cell_defined_again_is_flagged_and_its_use_is_not():
    from autograder.judging.integrity import locked_definitions

    release_nb = nbformat.read(os.path.join(COURSE, "release", "ps4_offset", "ps4_offset.ipynb"), as_version=4)
    locked = locked_definitions(release_nb)
    assert "train_with_lifting_reversed" in locked
    faked = "def train_with_lifting_reversed(X, y, **kwargs):\n    return 0"
    flags = scan_code([("cell 12", faked), ("answer", "import numpy as np\nw = np.zeros(2)")], locked)
    assert [f.code for f in flags] == ["redefines-locked"] and "cell 12, line 1" in flags[0].detail
    used = "theta = train_with_lifting_reversed(X, y)\nresult = train_with_lifting_reversed"
    assert scan_code([("cell 12", used)], locked) == []
    assert scan_code([("cell 12", "train_with_lifting_reversed = print")], locked)[0].code == "redefines-locked"


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_tamper_scan_is_quiet_on_the_solutions_and_stubs(assignment):
    source_nb = nbformat.read(os.path.join(COURSE, "source", assignment, f"{assignment}.ipynb"), as_version=4)
    solutions = [(f"answer {grade_id(c)}", without_markers(c.source))
                 for c in source_nb.cells if is_solution(c) and c.cell_type == "code"]
    stubs = [("stub", "def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n"),
             ("plot", "%matplotlib inline\nimport matplotlib.pyplot as plt\nfrom perceptron_lib import make_xor"),
             # the first cell of a downloaded notebook; the runner installs nothing
             ("install", "%pip install --quiet https://example.edu/perceptron_course_student-1.0.0-py3-none-any.whl")]
    from autograder.judging.integrity import locked_definitions

    release_nb = nbformat.read(os.path.join(COURSE, "release", assignment, f"{assignment}.ipynb"), as_version=4)
    assert scan_code(solutions + stubs, locked_definitions(release_nb)) == []


def test_feedback_escapes_everything_from_the_submission():
    from autograder.outputs.report import feedback_html
    from autograder.results import CellResult, Flag

    result = Result("ann", PS1, "graded", score=0.0, max_score=1.0,
                    cells=[CellResult("t", 0.0, 1.0, False, "f raised ValueError: <img src=x onerror=alert(1)>")],
                    flags=[Flag("processes", "cell 3: <b>os.fork</b>")])
    page = feedback_html(result)
    assert "<img" not in page and "&lt;img" in page and "<b>os.fork" not in page


# -- the closing message ------------------------------------------------------------------------

def test_the_closing_message_names_the_marking_page_and_its_csv_route():
    hint = grade_module.marking_hint("ps2_online_perceptron", "grading/ps2", 3)
    assert hint == ("3 written answers are still to be marked (counted 0 in these files). Mark them on the marking "
                    "page: python -m autograder mark ps2_online_perceptron (it prints the page's address, for every "
                    "TA who marks); or offline, through its CSV route: python -m autograder mark "
                    "ps2_online_perceptron --to-csv FILE.csv, then --from-csv FILE.csv. Then: python -m autograder "
                    "export grading/ps2")
    # A course folder other than the default one is named in each command, so that it can be run as printed.
    hint = grade_module.marking_hint("ps1_hyperplanes", "out", 1, "/courses/other")
    assert hint.startswith("1 written answer is still to be marked")
    assert "python -m autograder mark ps1_hyperplanes --course-dir /courses/other (it prints" in hint
    assert "mark ps1_hyperplanes --to-csv FILE.csv --course-dir /courses/other, then" in hint
