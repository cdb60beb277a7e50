"""``python -m autograder gradescope``: the zip, its scripts, and ``run_autograder`` end to end.

* The command builds ``autograder.zip`` from a released copy of the course
  (the ``course`` fixture of ``tests/grader/conftest.py``); it is unpacked into
  a temporary root laid out as Gradescope lays out ``/autograder``
  (``source/`` = the zip's contents, ``submission/``, ``results/``) and its
  own ``run_autograder`` grades, with ``GRADESCOPE_PYTHON`` standing in for
  the environment ``setup.sh`` would install: the instructor's solution
  (full score), the blank release (zero), a notebook that never ends
  (timeout, within its budget), and two attacks, one reading the hidden
  checks and one writing ``results.json``.  Each attack's notebook breaks
  its own answers unless its attempt fails with the error the isolation
  should give, so a full score proves the attempt was stopped there, and
  the flags must name it.  Every case runs in bubblewrap and, forced with
  ``GRADESCOPE_ISOLATION=user``, as the unprivileged user id.
* Every ``results.json`` is validated against a JSON Schema written from
  Gradescope's specification.
* ``setup.sh`` and ``run_autograder`` parse (``bash -n``); ``setup.sh``
  run against stand-in ``apt-get``, ``apt-cache`` and ``python3`` installs
  only what it should, and writes nowhere but its root.
* The written answers: ``results.json`` carries each one, exactly as written
  (or that it is blank), with its question, in a test only the course staff
  see; what students see of it passes the leak audit (no model answer).
* Unit tests: ``results_json`` for each visibility, ``find_notebook``.
"""

import copy
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import textwrap
import time
import zipfile

import jsonschema
import nbformat
import pytest
from nbformat.v4 import new_code_cell

from autograder.commands import audit as leak_audit
from autograder.commands import gradescope
from autograder.course.assignments import load_checks
from autograder.judging.integrity import scan_code
from perceptron_course.cells import grade_id, is_solution, is_test_cell, nbgrader_metadata
from perceptron_course.limits import Limits
from autograder.results import GRADED, TIMEOUT, CellResult, Flag, Result, Settings
from tests.support.hostile import Kit, infinite_loop_swallowing_interrupts
from tests.support.grading import PS1, correct_submission, notebooks_of, without_markers

from tests.support import ROOT
TEMPLATES = gradescope.TEMPLATES
pytestmark = pytest.mark.timeout(900)
# The notebook budget of the zip that grades the notebook that never ends: a few times what the solution
# needs, so that the notebook reaches its endless cell well before the budget ends it.
HANG_SECONDS = 6

# Gradescope's results.json, as its specification describes it
# (https://gradescope-autograders.readthedocs.io/en/latest/specs/): a score at the top or on every test,
# visibilities from one list, and no other keys.
VISIBILITY = {"enum": ["hidden", "after_due_date", "after_published", "visible"]}
RESULTS_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "score": {"type": "number"},
        "execution_time": {"type": "number", "minimum": 0},
        "output": {"type": "string"},
        "visibility": VISIBILITY,
        "stdout_visibility": VISIBILITY,
        "extra_data": {"type": "object"},
        "tests": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "score": {"type": "number"}, "max_score": {"type": "number"}, "name": {"type": "string"},
                "number": {"type": "string"}, "output": {"type": "string"},
                "tags": {"type": "array", "items": {"type": "string"}}, "visibility": VISIBILITY,
                "extra_data": {"type": "object"},
            },
            "additionalProperties": False,
        }},
        "leaderboard": {"type": "array", "items": {
            "type": "object", "required": ["name", "value"],
            "properties": {"name": {"type": "string"}, "value": {"type": ["number", "string"]},
                           "order": {"enum": ["asc", "desc"]}},
        }},
    },
    "additionalProperties": False,
    "anyOf": [{"required": ["score"]},
              {"required": ["tests"], "properties": {"tests": {"items": {"required": ["score"]}}}}],
}
# What this grader always writes, on top of the specification.
OUR_SCHEMA = {
    "type": "object",
    "required": ["score", "output", "tests", "stdout_visibility"],
    "properties": {"tests": {"items": {"required": ["name", "score", "max_score", "output", "visibility"]}},
                   "stdout_visibility": {"const": "hidden"}},
}


def validate(data):
    jsonschema.validate(data, RESULTS_SCHEMA)
    jsonschema.validate(data, OUR_SCHEMA)
    return data


def autograded_tests(data):
    return [t for t in data["tests"] if gradescope.WRITTEN_TAG not in t.get("tags", ())]


def written_tests(data):
    """``{grade_id: test}`` of the tests that show the written answers to the course staff."""
    return {t["extra_data"]["grade_id"]: t for t in data["tests"] if gradescope.WRITTEN_TAG in t.get("tags", ())}


def answer_shown(test):
    """The answer as a written answer's test shows it: everything after its heading."""
    return test["output"].split(f"\n{gradescope.ANSWER_HEADING}\n\n", 1)[1]


def solution_texts(source_nb):
    """``{grade_id: source}`` of the source notebook's written answers (Markdown solution cells), markers removed."""
    return {grade_id(c): without_markers(c.source) for c in source_nb.cells
            if is_solution(c) and c.cell_type == "markdown"}


def visible_findings(data, course):
    """What the leak audit finds in the parts of ``results.json`` students can see, against ``course``'s secrets."""
    secrets = leak_audit.collect_secrets(course_dir=course)
    return leak_audit.audit_upload_bytes("results.json", json.dumps(data).encode(), secrets)


# -- a Gradescope root ---------------------------------------------------------------------

def closed_ancestor(path):
    """``(directory, its child on the way to path)`` for the first directory others may not enter, or ``None``."""
    parts = os.path.realpath(path).strip("/").split("/")
    for i in range(len(parts) - 1):
        folder = "/" + "/".join(parts[:i + 1])
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return folder, "/" + "/".join(parts[:i + 2])
    return None


# Gradescope's Python is under /usr and its environment under /autograder, where every user may run them.
# Where the stand-in interpreter or its environment sits under a closed folder (pyenv in /root, a checkout
# in a private home), the forced fallback gets a passage to each, in a private mount namespace of its own
# run: the rest of each closed folder stays hidden. PASSAGES holds a "closed|child" line per passage.
PASSAGE = """\
set -e
holds=()
while IFS='|' read -r closed child; do
    hold=$(mktemp -d)
    mount --bind "$child" "$hold"
    holds+=("$closed|$child|$hold")
done <<< "$PASSAGES"
covered="|"
for entry in "${holds[@]}"; do
    IFS='|' read -r closed child hold <<< "$entry"
    case "$covered" in
        *"|$closed|"*) ;;
        *) mount -t tmpfs -o mode=0755,size=1m tmpfs "$closed"; covered="$covered$closed|" ;;
    esac
    mkdir -p "$child"
    mount --bind "$hold" "$child"
done
exec "$@"
"""


def passages(*paths):
    """The ``closed|child`` lines that open a way to each of ``paths`` (no two alike), for :data:`PASSAGE`."""
    lines = []
    for path in paths:
        closed = closed_ancestor(path)
        if closed and "|".join(closed) not in lines:
            lines.append("|".join(closed))
    return "\n".join(lines)


class GradescopeRoot:
    """A folder laid out as Gradescope's /autograder, world-traversable like it, removed by :meth:`remove`."""

    def __init__(self, zip_path):
        self.path = tempfile.mkdtemp(prefix="gradescope-root-")
        os.chmod(self.path, 0o755)
        for name in ("source", "submission", "results"):
            os.mkdir(os.path.join(self.path, name))
        with zipfile.ZipFile(zip_path) as zf:
            zf.extractall(os.path.join(self.path, "source"))
        for name in gradescope.SCRIPTS:
            os.chmod(os.path.join(self.path, "source", name), 0o755)

    def source(self, *parts):
        return os.path.join(self.path, "source", *parts)

    def submit(self, notebook, name=f"{PS1}.ipynb"):
        nbformat.write(notebook, os.path.join(self.path, "submission", name))

    def run(self, isolation=None):
        """Run the zip's ``run_autograder``; return ``(results.json as a dict, the process, seconds)``."""
        env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
        env.update(GRADESCOPE_ROOT=self.path, GRADESCOPE_PYTHON=sys.executable)
        command = ["bash", self.source("run_autograder")]
        if isolation:
            env["GRADESCOPE_ISOLATION"] = isolation
            ways = passages(sys.base_prefix, sys.prefix)
            if isolation == "user" and ways:
                env["PASSAGES"] = ways
                command = ["unshare", "--mount", "--propagation", "private", "bash", "-c", PASSAGE, "passage"] \
                    + command
        started = time.monotonic()
        run = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, cwd="/")
        seconds = time.monotonic() - started
        results = os.path.join(self.path, "results", "results.json")
        assert run.returncode == 0 and os.path.isfile(results), (run.returncode, run.stdout, run.stderr)
        with open(results, encoding="utf-8") as f:
            return validate(json.load(f)), run, seconds

    def remove(self):
        shutil.rmtree(self.path, ignore_errors=True)


def grade_on_gradescope(zip_path, notebook, isolation=None):
    root = GradescopeRoot(zip_path)
    try:
        root.submit(notebook)
        return root.run(isolation)
    finally:
        root.remove()


# -- attacks whose success would show in the score -----------------------------------------

def graded_functions():
    names = []
    for check in load_checks(PS1):
        if check.function not in names:
            names.append(check.function)
    return names


def attack(correct, attempt, expected_error):
    """The solution plus a last cell that runs ``attempt``: unless it raises ``expected_error``, the cell
    replaces every graded function with a wrong one, so anything but a full score means the attempt got further."""
    broken = "".join(f"    def {name}(*args, **kwargs):\n        return 0\n" for name in graded_functions())
    source = (f"try:\n{textwrap.indent(attempt, '    ')}    outcome = 'succeeded'\n"
              f"except Exception as exc:\n    outcome = type(exc).__name__\n"
              f"print('attempt:', outcome)\nif outcome != {expected_error!r}:\n{broken}")
    nb = copy.deepcopy(correct)
    nb.cells.append(new_code_cell(source))
    return nb


def read_checks_attempt(root_path):
    path = os.path.join(root_path, "source", "autograder", "course", "assignments", PS1, "checks.py")
    return f"with open({path!r}) as f:\n    f.read()\n"


def write_results_attempt(root_path):
    path = os.path.join(root_path, "results", "results.json")
    return f"with open({path!r}, 'w') as f:\n    f.write('{{\"score\": 1000}}')\n"


# -- fixtures ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def built(course, tmp_path_factory, sandbox_ready):  # noqa: F811 (pytest fixtures)
    """The zip the command writes, and a second one with a short notebook budget for the notebook that hangs."""
    out = tmp_path_factory.mktemp("gradescope")
    run = subprocess.run([sys.executable, "-m", "autograder", "gradescope", PS1, "--out", str(out / "default"),
                          "--course-dir", str(course)], capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert run.returncode == 0, run.stderr
    short = Settings(limits=Limits(notebook_seconds=HANG_SECONDS, cell_seconds=5, grace_seconds=5))
    hang_zip = gradescope.build(PS1, str(out / "short"), course_dir=str(course), settings=short)
    release_nb, source_nb = notebooks_of(course, PS1)
    correct = correct_submission(release_nb, source_nb)
    max_score = sum(float(nbgrader_metadata(c)["points"]) for c in release_nb.cells if is_test_cell(c))
    return {"zip": str(out / "default" / gradescope.ZIP_NAME), "hang_zip": hang_zip, "run": run,
            "release": release_nb, "correct": correct, "max_score": max_score}


ISOLATIONS = [pytest.param(None, id="bubblewrap"), pytest.param("user", id="unprivileged-user")]


def isolation_used(data, isolation):
    text = data["extra_data"]["isolation"]
    assert ("unprivileged user id" in text) == (isolation == "user"), text
    assert ("bubblewrap sandbox" in text) == (isolation is None), text
    assert f"Isolation: your notebook ran {text}" in data["output"]


# -- end to end ------------------------------------------------------------------------------

@pytest.mark.slow
def test_zip_holds_the_scripts_the_grader_and_this_assignment_only(built, course):
    with zipfile.ZipFile(built["zip"]) as zf:
        names = set(zf.namelist())
        modes = {info.filename: info.external_attr >> 16 for info in zf.infolist()}
        config = json.loads(zf.read(gradescope.CONFIG))
        requirements = zf.read("gradescope/requirements.txt").decode()
    assert {"setup.sh", "run_autograder"} <= names
    assert all(modes[name] & 0o111 for name in gradescope.SCRIPTS)
    assert {"autograder/running/worker.py", "autograder/judging/judge.py", "perceptron_course/runner.py",
            "perceptron_course/probe.py", f"autograder/course/assignments/{PS1}/checks.py",
            "perceptron_lib/__init__.py", f"notebooks/release/{PS1}/{PS1}.ipynb"} <= names
    # Only this assignment's checks; no solution, known-wrong code, gradebook or saved measurement.
    assert {n for n in names if n.startswith("autograder/course/assignments/")} == {
        "autograder/course/assignments/__init__.py", f"autograder/course/assignments/{PS1}/__init__.py",
        f"autograder/course/assignments/{PS1}/checks.py"}
    assert not [n for n in names if "known_wrong" in n or "/source/" in n or n.endswith((".db", ".pyc", ".so"))]
    # Read as the leak audit reads a site: no solution and no model answer anywhere in it (the hidden checks,
    # and the grader's own lines that hidden-test blocks share, are what it is for).
    findings = leak_audit.audit([built["zip"]], leak_audit.collect_secrets(course_dir=course))
    assert not [f for f in findings if f.what.startswith(("solution:", "written answer:"))], findings
    assert config["assignment"] == PS1 and config["hidden_visibility"] == "after_published"
    assert config["cell_seconds_by_cell"], "the time limits calibrated from the solution should ship"
    for line in requirements.splitlines():
        name, version = line.split("==")
        with open(os.path.join(ROOT, "requirements.txt"), encoding="utf-8") as f:
            assert f"{name}=={version}\n" in f.read()
    assert "students submit ps1_hyperplanes.ipynb" in built["run"].stdout


@pytest.mark.slow
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_the_solution_gets_full_marks(built, course, isolation):
    data, run, _ = grade_on_gradescope(built["zip"], built["correct"], isolation)
    assert data["score"] == built["max_score"] > 0
    assert data["extra_data"]["status"] == GRADED and not data["extra_data"]["flags"]
    assert all(t["score"] == t["max_score"] and t["visibility"] == "after_published" for t in autograded_tests(data))
    isolation_used(data, isolation)
    # The solution's written answers are the model answers: the course staff read them, students never do.
    models = solution_texts(notebooks_of(course, PS1)[1])
    shown = written_tests(data)
    assert set(shown) == set(models) and len(models) == 2
    for gid, model in models.items():
        assert answer_shown(shown[gid]) == model and shown[gid]["visibility"] == "hidden"
    assert visible_findings(data, course) == []


@pytest.mark.slow
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_the_blank_release_gets_zero(built, isolation):
    data, _, _ = grade_on_gradescope(built["zip"], built["release"], isolation)
    assert data["score"] == 0 and data["extra_data"]["status"] == GRADED
    assert sum(t["max_score"] for t in data["tests"]) == built["max_score"]
    assert all("not implemented yet" in t["output"] for t in autograded_tests(data)), data["tests"]
    assert all(t["extra_data"]["blank"] for t in written_tests(data).values()) and written_tests(data)
    # The scores wait for publishing: the always-visible summary holds no points.
    assert "points and message are shown with the test once your instructor publishes" in data["output"]
    assert "/ 10" not in data["output"] and "Failed tests" not in data["output"]


@pytest.mark.slow
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_notebook_that_never_ends_times_out_within_its_budget(built, isolation):
    kit = Kit(release=built["release"], correct=built["correct"], functions=[], secret_paths=[],
              writable_targets=[])
    data, _, seconds = grade_on_gradescope(built["hang_zip"], infinite_loop_swallowing_interrupts(kit).payload,
                                           isolation)
    assert data["extra_data"]["status"] == TIMEOUT and data["score"] == 0
    assert "Status: timeout." in data["output"]
    assert all(t["output"].startswith("Not run:") for t in autograded_tests(data))
    limits = Limits(notebook_seconds=HANG_SECONDS, grace_seconds=5)
    assert data["execution_time"] <= limits.notebook_seconds + limits.grace_seconds + 1
    isolation_used(data, isolation)


# Inside bubblewrap the grader's files do not exist; as the unprivileged user they exist but are closed.
EXPECTED_ERROR = {None: "FileNotFoundError", "user": "PermissionError"}


@pytest.mark.slow
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_reading_the_hidden_checks_fails_and_is_flagged(built, isolation):
    root = GradescopeRoot(built["zip"])
    try:
        check_file = root.source("autograder", "course", "assignments", PS1, "checks.py")
        # Without the grader closing source/, anyone could read the checks here, as in Gradescope's image.
        assert os.stat(check_file).st_mode & stat.S_IROTH and closed_ancestor(check_file) is None
        root.submit(attack(built["correct"], read_checks_attempt(root.path), EXPECTED_ERROR[isolation]))
        data, _, _ = root.run(isolation)
        with open(check_file, encoding="utf-8") as f:
            secret_lines = [line.strip() for line in f if len(line.strip()) > 30]
    finally:
        root.remove()
    assert data["score"] == built["max_score"], data
    assert {"outside-paths", "grading-detection"} <= set(data["extra_data"]["flags"])
    assert "outside-paths" in data["output"]
    text = json.dumps(data)
    assert not [line for line in secret_lines if json.dumps(line)[1:-1] in text]
    isolation_used(data, isolation)


@pytest.mark.slow
@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_writing_results_json_fails_and_is_flagged(built, isolation):
    root = GradescopeRoot(built["zip"])
    try:
        # Even a results folder open to everyone is closed before the notebook runs.
        os.chmod(os.path.join(root.path, "results"), 0o777)
        root.submit(attack(built["correct"], write_results_attempt(root.path), EXPECTED_ERROR[isolation]))
        data, _, _ = root.run(isolation)
        results_mode = stat.S_IMODE(os.stat(os.path.join(root.path, "results")).st_mode)
    finally:
        root.remove()
    assert data["score"] == built["max_score"] != 1000, data
    assert "outside-paths" in data["extra_data"]["flags"]
    assert results_mode == 0o700
    isolation_used(data, isolation)


@pytest.mark.slow
def test_without_isolation_nothing_of_the_student_runs(built, monkeypatch):
    """Where neither bubblewrap nor another user id works, the submission is not run, and results.json says why."""
    root = GradescopeRoot(built["zip"])
    marker = os.path.join(root.path, "ran")
    try:
        nb = copy.deepcopy(built["correct"])
        nb.cells.append(new_code_cell(f"open({marker!r}, 'w').close()"))
        root.submit(nb)
        monkeypatch.setattr(gradescope, "choose_isolation", lambda: (None, "no isolation: bubblewrap is not installed"))
        data = validate(gradescope.grade_in_container(root.path))
        ran = os.path.exists(marker)
    finally:
        root.remove()
    assert not ran
    assert data["score"] == 0 and data["extra_data"]["status"] == "ungradable"
    assert "could not isolate your notebook here (no isolation: bubblewrap is not installed)" in data["output"]


@pytest.mark.slow
def test_a_failure_of_the_grader_still_writes_results_json(built, monkeypatch):
    root = GradescopeRoot(built["zip"])
    try:
        root.submit(built["correct"])
        with open(os.path.join(root.path, "submission_metadata.json"), "w") as f:
            f.write("{}")

        def fails(job):
            raise RuntimeError("the disk is full")

        monkeypatch.setattr("autograder.running.worker.run_submission", fails)
        data = validate(gradescope.grade_in_container(root.path))
        metadata_mode = stat.S_IMODE(os.stat(os.path.join(root.path, "submission_metadata.json")).st_mode)
    finally:
        root.remove()
    assert data["score"] == 0 and data["extra_data"]["status"] == "crashed"
    assert "the grader itself failed on this submission (RuntimeError: the disk is full)" in data["output"]
    assert metadata_mode == 0o600


PS2 = "ps2_online_perceptron"
D1, D2 = "written_online_batch", "written_order"
# A student's own answer, with what a grader must keep as it is: Markdown, mathematics, a blank line.
STUDENT_ANSWER = ("Parts A and B are *online*: each example is predicted before its label is seen.\n\n"
                  "Training to convergence is batch. Spam filtering is online only; there the mistake count "
                  "$M \\le (R/\\gamma)^2$ counts wrong predictions made while learning.\n")


def ps2_submission(course):
    """ps2 solved, with a written answer of the student's own to D1 and D2 left as released (blank)."""
    release_nb, source_nb = notebooks_of(course, PS2)
    nb = correct_submission(release_nb, source_nb)
    released = {grade_id(c): c.source for c in release_nb.cells}
    for cell in nb.cells:
        if grade_id(cell) == D1:
            cell.source = STUDENT_ANSWER
        elif grade_id(cell) == D2:
            cell.source = released[D2]
    return nb


@pytest.mark.slow
def test_a_ps2_submission_shows_its_written_answers_to_the_staff_alone(course, tmp_path, sandbox_ready):
    zip_path = gradescope.build(PS2, str(tmp_path), course_dir=str(course), settings=Settings(limits=Limits()))
    release_nb, source_nb = notebooks_of(course, PS2)
    data, _, _ = grade_on_gradescope(zip_path, ps2_submission(course))
    autograded_max = sum(float(nbgrader_metadata(c)["points"]) for c in release_nb.cells if is_test_cell(c))
    # The written answers add no points: the score is the autograded one.
    assert data["score"] == autograded_max == sum(t["max_score"] for t in data["tests"])
    shown = written_tests(data)
    assert list(shown) == [D1, D2]
    for test in shown.values():
        assert test["visibility"] == "hidden" and test["score"] == test["max_score"] == 0
        assert "marked by hand" in test["name"] and test["extra_data"]["max_points"] == 2.0
    assert answer_shown(shown[D1]) == STUDENT_ANSWER and not shown[D1]["extra_data"]["blank"]
    assert "Question D1 (2 points)" in shown[D1]["output"]
    assert "Question D2 (2 points)" in shown[D2]["output"]
    assert answer_shown(shown[D2]).startswith("(blank: the student wrote nothing here")
    assert shown[D2]["extra_data"]["blank"]
    # What students see holds neither their answer nor any model answer.
    visible = leak_audit.gradescope_visible(data)
    assert "Spam filtering is online only" not in visible and "Question D1" not in visible
    assert visible_findings(data, course) == []
    # Nor does the rest: the zip holds no model answer to put there.
    secrets = leak_audit.collect_secrets(course_dir=course)
    whole = leak_audit.audit_bytes("results.json", json.dumps(data).encode(), secrets)
    assert not [f for f in whole if f.what.startswith(("written answer:", "solution:"))], whole
    assert len(solution_texts(source_nb)) == 2


def test_isolation_can_be_forced_and_nothing_else():
    with pytest.raises(gradescope.GradescopeError, match="GRADESCOPE_ISOLATION must be 'user' or 'bubblewrap'"):
        gradescope.choose_isolation({"GRADESCOPE_ISOLATION": "docker"})


# -- the scripts -------------------------------------------------------------------------------

@pytest.mark.parametrize("script", gradescope.SCRIPTS)
def test_scripts_parse(script):
    run = subprocess.run(["bash", "-n", os.path.join(TEMPLATES, script)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


STUB = """#!/usr/bin/env bash
echo "$(basename "$0") $*" >> "$STUB_LOG"
{body}
"""
PYTHON_STUB = """
case "$1 $2" in
  "-m venv") mkdir -p "$3/bin"; cp "$0" "$3/bin/python" ;;
esac
exit 0
"""


def test_setup_installs_under_its_root_only(tmp_path):
    """setup.sh against stand-ins that log their calls: what it installs, and that it writes only under its root."""
    stubs, root = tmp_path / "bin", tmp_path / "root"
    stubs.mkdir()
    (root / "source" / "gradescope").mkdir(parents=True)
    for name, body in {"apt-get": "exit 0", "apt-cache": "exit 0", "python3": PYTHON_STUB}.items():
        (stubs / name).write_text(STUB.format(body=body))
        (stubs / name).chmod(0o755)
    log = tmp_path / "calls.log"
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    run = subprocess.run(["bash", os.path.join(TEMPLATES, "setup.sh")], capture_output=True, text=True,
                         env={"PATH": f"{stubs}:/usr/bin:/bin", "GRADESCOPE_ROOT": str(root), "STUB_LOG": str(log)})
    assert run.returncode == 0, run.stderr
    calls = log.read_text().splitlines()
    installed = " ".join(c for c in calls if c.startswith("apt-get install"))
    for package in ("util-linux", "bubblewrap"):
        assert f" {package}" in installed, calls
    assert f"python3 -m venv {root}/venv" in calls
    assert (f"python -m pip install --progress-bar off --no-cache-dir -r {root}/source/gradescope/requirements.txt "
            f"-c {root}/source/gradescope/constraints.txt") in calls
    assert f"python -m autograder.commands.gradescope --check-setup {root}" in calls
    after = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    created = set(after) - set(before)
    assert all(str(p).startswith(("root/venv", "calls.log")) for p in created), created
    # Nothing in it removes, moves or overwrites files, or changes their owners or modes.
    with open(os.path.join(TEMPLATES, "setup.sh"), encoding="utf-8") as f:
        code = [line.split("#")[0] for line in f]
    for line in code:
        assert not any(word in line.split() for word in ("rm", "mv", "dd", "chmod", "chown", "truncate")), line
        assert ">" not in line.replace(">/dev/null", "").replace(">&2", "").replace("2>&1", ""), line


# -- results.json, without running anything --------------------------------------------------

def a_result(status=GRADED):
    cells = [CellResult("signed_distance_examples", 1.0, 1.0, True, "Passed."),
             CellResult("margin_separating", 0.0, 2.0, False, "margin returned 0.5 for a point on the plane.")]
    return Result("submission", PS1, status, score=1.0, max_score=3.0, cells=cells,
                  manual_cells=[("written_answer", 2.0, None)], flags=[Flag("outside-paths", "refers to '/etc'")],
                  run_seconds=3.4)


@pytest.mark.parametrize("visibility", gradescope.VISIBILITIES)
def test_results_json_follows_the_specification(visibility):
    data = validate(gradescope.results_json(a_result(), isolation="in a sandbox", hidden_visibility=visibility))
    assert data["score"] == 1.0 and data["execution_time"] == 3
    assert [(t["name"], t["score"], t["max_score"], t["visibility"]) for t in data["tests"]] == [
        ("signed_distance_examples", 1.0, 1.0, visibility), ("margin_separating", 0.0, 2.0, visibility)]
    assert data["tests"][1]["output"] == "margin returned 0.5 for a point on the plane."
    assert "Status: graded." in data["output"] and "outside-paths" in data["output"]
    assert "Isolation: your notebook ran in a sandbox." in data["output"]
    assert "written answers (2 points) are graded by hand" in data["output"]
    # The always-visible summary repeats the scores and messages only when the tests are visible too.
    assert ("margin returned 0.5" in data["output"]) == (visibility == "visible")
    assert ("1 / 3 autograded points" in data["output"]) == (visibility == "visible")


WRITTEN = [gradescope.WrittenAnswer("written_answer", 2.0, "**Question D1 (2 points).** Why?",
                                    "Because $\\|w\\|$ grows:\n\n- one\n- two\n", blank=False),
           gradescope.WrittenAnswer("written_blank", 2.0, "**Question D2 (2 points).** How?", "YOUR ANSWER HERE"),
           gradescope.WrittenAnswer("written_unread", 1.0, "Which?", problem="the file is empty")]


@pytest.mark.parametrize("visibility", gradescope.VISIBILITIES)
def test_written_answers_are_tests_only_the_staff_see(visibility):
    plain = gradescope.results_json(a_result(), isolation="in a sandbox", hidden_visibility=visibility)
    data = validate(gradescope.results_json(a_result(), isolation="in a sandbox", hidden_visibility=visibility,
                                            written=WRITTEN))
    # The autograded part is unchanged, and so is the score.
    assert autograded_tests(data) == plain["tests"] and data["score"] == plain["score"] == 1.0
    assert data["output"] == plain["output"]
    shown = written_tests(data)
    assert list(shown) == ["written_answer", "written_blank", "written_unread"]
    for answer, test in zip(WRITTEN, shown.values()):
        assert test["visibility"] == "hidden" and test["score"] == test["max_score"] == 0
        assert f"The question:\n\n{answer.question}\n\n" in test["output"]
        assert f"Give this answer's {answer.max_points:g} points in the manually graded question {answer.grade_id}" \
            in test["output"]
    assert answer_shown(shown["written_answer"]) == WRITTEN[0].text
    assert answer_shown(shown["written_blank"]).startswith("(blank:")
    assert answer_shown(shown["written_unread"]) == "(not read: the file is empty)"
    assert [t["extra_data"]["blank"] for t in shown.values()] == [False, True, False]
    assert "Because" not in leak_audit.gradescope_visible(data)


def test_written_answers_are_read_as_grading_reads_them(course, tmp_path):
    release_dir = str(course / "release" / PS2)
    path = tmp_path / f"{PS2}.ipynb"
    nb = ps2_submission(course)
    # A second copy of D1's cell further down is not the answer: the first is, as when grading.
    copy_of_d1 = copy.deepcopy(next(c for c in nb.cells if grade_id(c) == D1))
    copy_of_d1.source, copy_of_d1.id = "a draft", "a-copy-of-d1"
    nb.cells.append(copy_of_d1)
    nbformat.write(nb, str(path))
    found = gradescope.written_answers(str(path), release_dir, PS2, Limits().notebook_bytes)
    assert [(a.grade_id, a.max_points, a.blank, a.problem) for a in found] == [(D1, 2.0, False, ""),
                                                                                (D2, 2.0, True, "")]
    assert found[0].text == STUDENT_ANSWER
    assert found[0].question.startswith("**Question D1 (2 points).**") and "mistake count" in found[0].question
    path.write_text("{not a notebook", encoding="utf-8")
    unread = gradescope.written_answers(str(path), release_dir, PS2, Limits().notebook_bytes)
    assert [a.problem for a in unread] == ["the file is not valid JSON, so it is not a Jupyter notebook "
                                           "(was it saved from Jupyter?)"] * 2
    missing = gradescope.written_answers(None, release_dir, PS2, Limits().notebook_bytes)
    assert [a.problem for a in missing] == ["no notebook was submitted"] * 2


def test_gradescope_paths_count_as_outside_paths():
    flags = scan_code([("cell 3", "open('/autograder/results/results.json', 'w')")])
    assert "outside-paths" in {f.code for f in flags}


def test_find_notebook(tmp_path):
    assert gradescope.find_notebook(str(tmp_path), PS1) == (None, f"the submission holds no notebook; "
                                                                  f"upload {PS1}.ipynb")
    (tmp_path / "draft.ipynb").write_text("{}")
    assert gradescope.find_notebook(str(tmp_path), PS1) == (str(tmp_path / "draft.ipynb"), None)
    (tmp_path / "other.ipynb").write_text("{}")
    path, problem = gradescope.find_notebook(str(tmp_path), PS1)
    assert path is None and "2 notebooks" in problem and f"upload {PS1}.ipynb" in problem
    (tmp_path / "deep").mkdir()
    (tmp_path / "deep" / f"{PS1}.ipynb").write_text("{}")
    assert gradescope.find_notebook(str(tmp_path), PS1) == (str(tmp_path / "deep" / f"{PS1}.ipynb"), None)
    (tmp_path / ".ipynb_checkpoints").mkdir()
    (tmp_path / ".ipynb_checkpoints" / f"{PS1}.ipynb").write_text("{}")
    assert gradescope.find_notebook(str(tmp_path), PS1) == (str(tmp_path / "deep" / f"{PS1}.ipynb"), None)


def test_build_refuses_a_bad_visibility_and_an_unknown_assignment(tmp_path):
    with pytest.raises(gradescope.GradescopeError, match="must be one of hidden, after_due_date"):
        gradescope.build(PS1, str(tmp_path), course_dir=str(tmp_path), hidden_visibility="soon")
    with pytest.raises(gradescope.GradescopeError, match="ASSIGNMENT"):
        gradescope.build("ps9_nothing", str(tmp_path), course_dir=str(tmp_path))
