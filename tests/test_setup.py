"""The set-up script that `make book`, `make pdf`, `make test` and `make grade` run first.

These run ``tools/system-packages.sh`` with a ``PATH`` on which the packages'
commands cannot be found, so they exercise the "missing" branches without
installing anything: as a user who cannot use sudo it must stop with one
message naming the packages and the command that installs them; on a machine
without apt-get it must say so instead of failing obscurely.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "tools" / "system-packages.sh"


@pytest.fixture
def bare_path(tmp_path):
    """A folder for PATH holding only the few commands the script itself runs."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("bash", "id"):
        os.symlink(shutil.which(name), bin_dir / name)
    return bin_dir


def run_script(args, path, *, as_user=None):
    command = [shutil.which("bash"), str(SCRIPT), *args]
    if as_user is not None:
        command = [shutil.which("setpriv"), f"--reuid={as_user}", f"--regid={as_user}", "--clear-groups", *command]
    return subprocess.run(command, env={"PATH": str(path)}, capture_output=True, text=True, timeout=30)


def test_present_packages_need_nothing():
    # This machine has what the tests need (the test suite itself is proof), so the
    # script must find it all and do nothing.
    result = subprocess.run(["bash", str(SCRIPT), "test"], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping to another user needs root")
def test_without_root_or_sudo_it_names_the_packages_and_the_command(bare_path):
    result = run_script(["test"], bare_path, as_user=65534)
    assert result.returncode == 1
    message = result.stderr
    for package in ("nodejs", "npm", "bubblewrap", "chromium", "chromium-driver"):
        assert package in message.split("Install")[0], message
    assert "sudo apt-get install -y --no-install-recommends" in message
    assert "chromium-driver" in message.splitlines()[-1]


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping to another user needs root")
def test_the_pdf_group_names_tex_live_and_the_pdf_tools(bare_path):
    # Found by their commands, which the bare PATH hides; the fonts and LaTeX packages
    # are found by their files, which are on this machine.
    result = run_script(["pdf"], bare_path, as_user=65534)
    assert result.returncode == 1
    named = result.stderr.split("Install")[0]
    for package in ("texlive-xetex", "latexmk", "poppler-utils"):
        assert package in named, result.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="the root branch is taken only as root")
def test_as_root_without_apt_get_it_says_what_to_do(bare_path):
    result = run_script(["grade"], bare_path)
    assert result.returncode == 1
    assert "bubblewrap" in result.stderr
    assert "no apt-get" in result.stderr


def test_groups_are_checked(bare_path):
    result = run_script(["everything"], bare_path)
    assert result.returncode == 2
    assert "unknown group 'everything'; expected book, pdf, test or grade" in result.stderr


@pytest.mark.slow
def test_the_instructors_distribution_holds_every_part_of_the_grader(tmp_path):
    # An installed (not editable) grader needs its hidden checks, known-wrong code and Gradescope scripts.
    import sys
    import zipfile

    root = SCRIPT.parent.parent
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                    "--wheel-dir", str(tmp_path), str(root)], check=True, capture_output=True, timeout=600)
    (wheel,) = tmp_path.glob("perceptron_course-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    registry = root / "autograder" / "course" / "assignments"
    modules = {str(p.relative_to(root)) for p in registry.glob("*/*.py")}
    assert {p.parent.name for p in registry.glob("*/checks.py")} >= {"ps1_hyperplanes", "ps5_voted_averaged"}
    assert modules <= names, modules - names
    assert {"autograder/commands/templates/gradescope/setup.sh",
            "autograder/commands/templates/gradescope/run_autograder"} <= names
    assert "perceptron_course/runner.py" in names and "perceptron_lib/__init__.py" in names
