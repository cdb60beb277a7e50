"""Every pin set installs on every Python the project claims.

``pyproject.toml`` states the oldest Python (``requires-python``) and the
versions supported (its classifiers). For the first release of each claimed
version (3.11.0 for the oldest: Debian 12 has 3.11.2, Ubuntu 22.04 a 3.11.0
release candidate), pip's resolver, in dry-run mode against the
package index, must find an installation of ``requirements.txt`` under
``constraints.txt`` (what ``make`` installs) and of the Gradescope zip's pins
under the same constraints (what its ``setup.sh`` installs). A pin whose
release needs a newer Python than the floor (a ``Requires-Python`` of
``>=3.11.5``, say) fails here, on any machine, instead of on a department's
Debian server. The other places that state the floor must agree with it.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from autograder.commands import gradescope
from tests.support import REPO_ROOT as ROOT

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
FLOOR = re.fullmatch(r">=(\d+\.\d+)", PROJECT["requires-python"]).group(1)
CLAIMED = [c.rsplit(" :: ", 1)[1] for c in PROJECT["classifiers"]
           if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)]
# The first release of every claimed version, the floor's (3.11.0) among them: pip reads a version without
# its last number, "3.12", as 3.12.0 too, so the first release is what checking a claimed version checks.
PYTHONS = [f"{version}.0" for version in CLAIMED]


def resolve(requirements_text, python_version, tmp_path):
    """pip's answer to installing these pins, with these constraints, on that Python (nothing is installed)."""
    requirements = tmp_path / "requirements.txt"
    requirements.write_text(requirements_text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--only-binary=:all:",
         "--python-version", python_version, "--target", str(tmp_path / "target"), "--progress-bar", "off",
         "-r", str(requirements), "-c", str(ROOT / "constraints.txt")],
        capture_output=True, text=True, timeout=600)


def the_cause(done):
    """pip's own explanation of a failed resolution, without its notes about ignored index folders."""
    return "\n".join(line for line in (done.stdout + done.stderr).splitlines()
                     if not line.startswith("WARNING: Location"))[-3000:]


# What make installs, for every claimed Python; the Gradescope zip's pins (a subset of requirements.txt's,
# under the same constraints) for the oldest, which is what Ubuntu 22.04's image has.
RESOLUTIONS = [("make", version) for version in PYTHONS] + [("gradescope", PYTHONS[0])]
PIN_SETS = {
    "make": lambda: (ROOT / "requirements.txt").read_text(encoding="utf-8"),
    "gradescope": gradescope._pinned_requirements,
}


@pytest.mark.slow
def test_the_pins_install_on_every_claimed_python(tmp_path):
    # pip mostly waits for the index here, so the resolutions run side by side.
    def attempt(case):
        pin_set, version = case
        folder = tmp_path / f"{pin_set}-{version}"
        folder.mkdir()
        return resolve(PIN_SETS[pin_set](), version, folder)

    with ThreadPoolExecutor(len(RESOLUTIONS)) as pool:
        outcomes = dict(zip(RESOLUTIONS, pool.map(attempt, RESOLUTIONS)))
    failed = {case: the_cause(done) for case, done in outcomes.items()
              if done.returncode != 0 or "Would install" not in done.stdout}
    assert not failed, "\n\n".join(f"the {pin_set} pins do not install on Python {version}:\n{cause}"
                                    for (pin_set, version), cause in failed.items())


@pytest.mark.slow
def test_a_pin_too_new_for_the_floor_is_reported_with_its_cause(tmp_path):
    # soupsieve 4.1.2 needs Python 3.11.5 or later: the check must fail on it, naming it.
    done = resolve("soupsieve==4.1.2\n", FLOOR + ".0", tmp_path)
    assert done.returncode != 0
    assert "soupsieve" in the_cause(done)


def test_every_place_that_states_the_oldest_python_agrees():
    assert CLAIMED and CLAIMED[0] == FLOOR, (CLAIMED, FLOOR)
    student = (ROOT / "tools" / "student_package.py").read_text(encoding="utf-8")
    assert f'requires-python = ">={FLOOR}"' in student
    setup = (Path(gradescope.TEMPLATES) / "setup.sh").read_text(encoding="utf-8")
    major, minor = FLOOR.split(".")
    assert f"sys.version_info < ({major}, {minor})" in setup
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert f"PYTHON_FLOOR := {FLOOR}" in makefile
    # The compiled kernel is built against the stable ABI of the floor, and its wheel tagged for it.
    setup_py = (ROOT / "setup.py").read_text(encoding="utf-8")
    assert f'LIMITED_API = "0x{int(major):02X}{int(minor):02X}0000"' in setup_py
    assert f'"py_limited_api": "cp{major}{minor}"' in setup_py
    assert f'COMPILED_TAG = "cp{major}{minor}-abi3-manylinux"' in student
