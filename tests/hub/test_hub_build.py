"""``python -m tools.hub build`` decides whether the hub's environment is up to date from what it is made of.

The decision is a hash of :func:`tools.hub.environment_inputs` and of the student package's sources as its
build lays them out; these tests hold it to changing with any of them.
"""

import os
import re

from tools import hub, student_package


def test_the_environment_is_stale_when_a_staged_source_changes_or_moves(tmp_path):
    staged = tmp_path / "staged"
    staged.mkdir()
    student_package.stage(str(staged))
    inputs = hub.environment_inputs()
    before = hub._digest(inputs, staged)
    assert hub._digest(inputs, staged) == before
    source = staged / "perceptron_course" / "check.py"
    assert source.is_file(), f"the student package's build no longer stages {source.name}"
    source.write_bytes(source.read_bytes() + b"\n")
    changed = hub._digest(inputs, staged)
    assert changed != before
    # The same bytes under another name are a change too.
    source.rename(source.with_name("check_moved.py"))
    assert hub._digest(inputs, staged) not in (before, changed)


def test_the_environment_is_stale_when_an_input_file_changes(tmp_path):
    staged = tmp_path / "staged"
    staged.mkdir()
    (staged / "a.py").write_text("x = 1\n")
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    first.write_text("jupyterhub==6.1.1\n")
    second.write_text("")
    before = hub._digest([first, second], staged)
    first.write_text("jupyterhub==6.1.2\n")
    assert hub._digest([first, second], staged) != before
    # Content moved from one file to the next is a change: each file's name and length are hashed with it.
    first.write_text("")
    second.write_text("jupyterhub==6.1.1\n")
    assert hub._digest([first, second], staged) != before


def test_every_file_the_compiled_wheel_takes_from_the_repository_is_an_input():
    """The compiled wheel's build copies files of the repository beside the staged tree; each must be among
    the inputs, or a change to it (the C kernel) would leave the hub with the old binary."""
    source = open(student_package.__file__, encoding="utf-8").read()
    taken = set(re.findall(r'shutil\.copyfile\(os\.path\.join\(ROOT, ("[^"]+"|\w+)\)', source))
    named = {json_name.strip('"') if json_name.startswith('"') else getattr(student_package, json_name)
             for json_name in taken}
    assert named, "found no file that the compiled wheel's build copies from the repository"
    inputs = {os.path.relpath(path, hub.ROOT) for path in hub.environment_inputs()}
    assert named <= inputs, f"copied into the compiled wheel's build but not among the inputs: {named - inputs}"
