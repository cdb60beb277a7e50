"""The set-up script that `make book`, `make pdf`, `make test` and `make grade` run first.

These run ``tools/system-packages.sh`` with a ``PATH`` on which the packages'
commands cannot be found, so they exercise the "missing" branches without
installing anything: as a user who cannot use sudo it must stop with one
message naming the packages and the command that installs them; on a machine
without apt-get it must say so instead of failing obscurely. The script is
read from standard input, so that the other user needs no access to the
checkout (which may be in a private home, mode 700). ``tools/venv.sh`` must
refuse a Python older than the project's floor in one sentence that says
what to install.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest

TOOLS = Path(__file__).resolve().parent.parent / "tools"
SCRIPT = TOOLS / "system-packages.sh"


@pytest.fixture
def bare_path():
    """A folder for PATH holding only the few commands the script itself runs, open to every user."""
    with tempfile.TemporaryDirectory() as folder:
        os.chmod(folder, 0o755)
        bin_dir = Path(folder) / "bin"
        bin_dir.mkdir(mode=0o755)
        for name in ("bash", "id"):
            os.symlink(shutil.which(name), bin_dir / name)
        yield bin_dir


def run_script(args, path, *, as_user=None, env=()):
    command = [shutil.which("bash"), "-s", "--", *args]
    if as_user is not None:
        command = [shutil.which("setpriv"), f"--reuid={as_user}", f"--regid={as_user}", "--clear-groups", *command]
    return subprocess.run(command, input=SCRIPT.read_text(encoding="utf-8"), env={"PATH": str(path), **dict(env)},
                          capture_output=True, text=True, timeout=30)


def fake_python(folder, *, version, include):
    """An executable that answers the two questions the scripts ask a Python: its version and its headers' folder."""
    script = folder / "fake-python"
    script.write_text(textwrap.dedent(f"""\
        #!{shutil.which("bash")}
        case "$*" in
            --version) echo "Python {version}" ;;
            *sysconfig*) echo "{include}" ;;
            *print*version_info*) echo "{version.rsplit('.', 1)[0]}" ;;
            *version_info*) exit 1 ;;
            *) exit 3 ;;
        esac
        """), encoding="utf-8")
    script.chmod(0o755)
    return script


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
    assert "unknown group 'everything'; expected build, book, pdf, test, grade or systems" in result.stderr


@pytest.mark.skipif(os.geteuid() != 0, reason="dropping to another user needs root")
def test_the_build_group_names_the_compiler_and_the_headers_of_the_python_it_builds_for(bare_path):
    python = fake_python(bare_path, version="3.99.1", include="/nonexistent/include/python3.99")
    result = run_script(["build"], bare_path, as_user=65534, env={"PYTHON": str(python)})
    assert result.returncode == 1, result.stderr
    named = result.stderr.split("Install")[0]
    assert "gcc" in named and "python3.99-dev" in named, result.stderr


def test_a_python_older_than_the_floor_is_refused_in_one_sentence_naming_what_to_install(bare_path, tmp_path):
    python = fake_python(bare_path, version="3.10.12", include="/usr/include/python3.10")
    result = subprocess.run([shutil.which("bash"), str(TOOLS / "venv.sh"), str(tmp_path / "venv"), "3.11"],
                            env={"PATH": str(bare_path), "PYTHON": str(python)}, capture_output=True, text=True,
                            timeout=30)
    assert result.returncode == 1
    message = result.stderr.strip()
    assert len(message.splitlines()) == 1, message
    assert "Python 3.11 or newer" in message and "Python 3.10.12" in message
    assert "python3.11-venv" in message and "python3.11-dev" in message
    assert not (tmp_path / "venv").exists()


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
    # The marking page's templates and its scripts and styles.
    marking = root / "autograder" / "marking"
    page_files = {str(p.relative_to(root)) for folder in ("templates", "static") for p in (marking / folder).iterdir()}
    assert page_files and page_files <= names, page_files - names
