"""Every limit declared once, configurable per course, refused when wrong, and listed in the report."""

import dataclasses

import pytest

from autograder.course.limits import load_limits
from perceptron_course.limits import Limits, LimitsError
from autograder.outputs.report import report_html
from autograder.results import Result, Settings


def write_config(folder, lines):
    (folder / "nbgrader_config.py").write_text("c = get_config()\n" + "\n".join(lines) + "\n", encoding="utf-8")


def test_every_limit_has_a_unit_a_meaning_and_a_positive_default():
    for spec in dataclasses.fields(Limits):
        assert spec.metadata["unit"] and spec.metadata["text"], spec.name
        assert getattr(Limits(), spec.name) > 0, spec.name


def test_a_course_sets_limits_in_nbgrader_config_and_the_command_line_overrides(tmp_path):
    write_config(tmp_path, ["c.CourseDirectory.course_id = 'x'", "c.Autograder.memory_bytes = 2 * 2**30",
                            "c.Autograder.notebook_seconds = 120", "c.Autograder.call_seconds = 2.5"])
    limits = load_limits(str(tmp_path), notebook_seconds=None, cell_seconds=30)
    assert (limits.memory_bytes, limits.notebook_seconds, limits.call_seconds, limits.cell_seconds) == \
        (2 * 2**30, 120, 2.5, 30)
    assert load_limits(str(tmp_path), notebook_seconds=90).notebook_seconds == 90
    assert load_limits(str(tmp_path / "no-such-course")) == Limits()


@pytest.mark.parametrize("line, message", [
    ("c.Autograder.memory_byte = 10", "unknown limit memory_byte"),
    ("c.Autograder.memory_bytes = '3G'", "memory_bytes must be an int of bytes; got '3G'"),
    ("c.Autograder.processes = 2.5", "processes must be an int of processes"),
    ("c.Autograder.notebook_seconds = 0", "notebook_seconds must be positive"),
    ("c.Autograder.call_seconds = True", "call_seconds must be a number of s"),
])
def test_wrong_limits_are_refused_with_the_setting_and_what_was_expected(tmp_path, line, message):
    write_config(tmp_path, [line])
    with pytest.raises(LimitsError, match=message) as caught:
        load_limits(str(tmp_path))
    assert "nbgrader_config.py" in str(caught.value)


def test_a_cell_limit_never_exceeds_the_notebook_budget():
    assert Limits(notebook_seconds=20, cell_seconds=60).cell_seconds == 20


def test_the_report_lists_every_limit_and_the_time_limits_applied():
    limits = Limits(memory_bytes=2 * 2**30, work_files=1234)
    settings = Settings(limits=limits, call_seconds=1.5, cell_seconds_by_cell=(("t1", 3.0), ("t2", 4.5)),
                        budget_text="Calibrated from the instructor's solution.")
    page = report_html("ps1_hyperplanes", [Result("ann", "ps1_hyperplanes", "graded")], settings=settings)
    for spec in dataclasses.fields(Limits):
        assert f"<code>{spec.name}</code>" in page, spec.name
    assert "2048 MiB" in page and "1,234 files" in page
    assert "1.5 s per call" in page and "from 3 to 4.5 s" in page and "Calibrated from the instructor" in page
