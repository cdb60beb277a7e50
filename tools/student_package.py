"""Build the student package: one pure-Python wheel with everything a student installs, and nothing secret.

``python -m tools.student_package --out DIR`` (or :func:`build_wheel`)
stages, in a temporary folder,

* ``perceptron_lib``, the reference library the chapters import (its
  Python modules only: the optional compiled kernel is left out, so the
  wheel installs on any platform, and the library trains with its numpy
  engine, with the same results);
* ``perceptron_course``, the student side: the visible tests' helpers, the
  check (console command ``perceptron-check``), and the runner, probe,
  notebook readers and limits it shares with the grader;
* the release notebooks of ``notebooks/release/`` (public: what students
  download anyway), as package data the check compares a notebook with;
* the course's limits, read now from ``notebooks/nbgrader_config.py``
  (``c.Autograder``), as ``perceptron_course/course_limits.json``;

then builds it with ``pip wheel --no-deps --no-build-isolation --no-index``
(setuptools from this environment, no network) into ``DIR`` and prints the
wheel's path.  Before building it refuses a release that is missing or in
which the leak audit (:mod:`autograder.commands.audit`) finds instructor-only
text; after building it reads the wheel back and
refuses any file that is not one of the staged modules, notebooks or data,
in particular anything of ``autograder`` and any compiled file.
"""

import argparse
import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import zipfile

from perceptron_course.check import COMMAND as CONSOLE_COMMAND
from perceptron_course.check import DISTRIBUTION, RELEASE_DIR
from perceptron_course.limits import COURSE_LIMITS_FILE

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COURSE_DIR = os.path.join(ROOT, "notebooks")

PACKAGES = ("perceptron_lib", "perceptron_course")
# Where the check looks for them, inside perceptron_course.
RELEASE_FOLDER = os.path.basename(RELEASE_DIR)
LIMITS_FILE = os.path.basename(COURSE_LIMITS_FILE)
# What the library, the check and the chapters need, with the oldest versions known to provide what is used
# (scikit-learn 1.6 added validate_data, which perceptron_lib's estimators call).
DEPENDENCIES = (
    "numpy>=1.24",
    "matplotlib>=3.7",
    "scikit-learn>=1.6",
    "ipython>=8.10",
    "nbformat>=5.7",
    "traitlets>=5.9",
)
DESCRIPTION = "The perceptron course's student package: its reference library, its tests' helpers and its check"

__all__ = ["build_wheel", "StudentPackageError", "DISTRIBUTION", "CONSOLE_COMMAND", "main"]


class StudentPackageError(Exception):
    """The student package cannot be built (no release, a leaking release, a wheel holding something else)."""


def _project_version():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]["version"]


def _released(course_dir):
    """The release's assignment folders: ``{assignment: folder}``; raises when there is none or one leaks."""
    from autograder.commands.audit import audit, collect_secrets

    release = os.path.join(course_dir, "release")
    found = {}
    if os.path.isdir(release):
        for name in sorted(os.listdir(release)):
            if os.path.isfile(os.path.join(release, name, f"{name}.ipynb")):
                found[name] = os.path.join(release, name)
    if not found:
        raise StudentPackageError(f"no released assignment in {release}: run `python -m autograder release` "
                                  "(or `make assignments`) first")
    findings = audit([release], collect_secrets(course_dir=course_dir))
    if findings:
        first = findings[0]
        raise StudentPackageError(f"the release holds instructor-only text ({first.what} in {first.path}); "
                                  "release again with `python -m autograder release` before building")
    return found


def _copy_modules(package, target):
    """Copy the Python modules of the repository's ``package`` (no compiled or C files, no caches)."""
    source = os.path.join(ROOT, package)
    os.makedirs(target)
    copied = []
    for entry in sorted(os.listdir(source)):
        if entry.endswith(".py") and os.path.isfile(os.path.join(source, entry)):
            shutil.copyfile(os.path.join(source, entry), os.path.join(target, entry))
            copied.append(entry)
    return copied


def _copy_release(folder, target):
    """Copy one assignment's release folder, leaving out hidden files (``.ipynb_checkpoints`` ...)."""
    shutil.copytree(folder, target, ignore=lambda _, names: [n for n in names if n.startswith(".")])


def _pyproject(version):
    dependencies = ", ".join(json.dumps(d) for d in DEPENDENCIES)
    packages = ", ".join(json.dumps(p) for p in PACKAGES)
    return f"""[build-system]
requires = ["setuptools>=61"]
build-backend = "setuptools.build_meta"

[project]
name = "{DISTRIBUTION}"
version = "{version}"
description = "{DESCRIPTION}"
readme = "README.md"
requires-python = ">=3.11"
dependencies = [{dependencies}]
classifiers = ["Programming Language :: Python :: 3", "Operating System :: OS Independent"]

[project.scripts]
{CONSOLE_COMMAND} = "perceptron_course.check:console_main"

[tool.setuptools]
packages = [{packages}]
include-package-data = false

[tool.setuptools.package-data]
perceptron_course = ["{RELEASE_FOLDER}/**/*", "{LIMITS_FILE}"]
"""


README = """# {distribution}

The student package of the perceptron course: the reference library the
chapters import (`perceptron_lib`), the helpers the assignments' visible
tests use (`perceptron_course.test_helpers`), and the check to run before
submitting an assignment:

    {command} ps1_hyperplanes.ipynb

It runs the notebook as grading does, with the course's time limits, and
lists what is left to fix; it ends with *Ready to submit* (exit status 0) or
*Not ready* (1), or says why the notebook cannot be checked (2). The last
cell of every assignment runs the same check from inside the notebook, in
Jupyter, on a JupyterHub or in Colab. It works on Windows, macOS and Linux,
offline, and sends nothing anywhere. Assignments: {assignments}.
"""


def stage(target, course_dir=COURSE_DIR):
    """Lay out the package's source tree in the empty folder ``target``; return the assignments it holds."""
    from autograder.course.limits import load_limits

    released = _released(course_dir)
    limits = load_limits(course_dir)
    for package in PACKAGES:
        _copy_modules(package, os.path.join(target, package))
    course = os.path.join(target, "perceptron_course")
    for name, folder in released.items():
        _copy_release(folder, os.path.join(course, RELEASE_FOLDER, name))
    with open(os.path.join(course, LIMITS_FILE), "w", encoding="utf-8") as f:
        json.dump(dataclasses.asdict(limits), f, indent=1, sort_keys=True)
    with open(os.path.join(target, "pyproject.toml"), "w", encoding="utf-8") as f:
        f.write(_pyproject(_project_version()))
    with open(os.path.join(target, "README.md"), "w", encoding="utf-8") as f:
        f.write(README.format(distribution=DISTRIBUTION, command=CONSOLE_COMMAND, assignments=", ".join(released)))
    return tuple(released)


def _expected_members(staged):
    """The files the wheel may hold under its packages: exactly those staged."""
    expected = set()
    for package in PACKAGES:
        for folder, _, files in os.walk(os.path.join(staged, package)):
            expected.update(os.path.relpath(os.path.join(folder, f), staged).replace(os.sep, "/") for f in files)
    return expected


def check_wheel(path, expected):
    """Raise :class:`StudentPackageError` unless the wheel holds exactly ``expected`` besides its metadata."""
    with zipfile.ZipFile(path) as wheel:
        names = [n for n in wheel.namelist() if not n.endswith("/")]
    metadata = [n for n in names if n.split("/")[0].endswith(".dist-info")]
    held = set(names) - set(metadata)
    unexpected = sorted(held - expected)
    missing = sorted(expected - held)
    if unexpected or missing:
        raise StudentPackageError(f"the wheel {path} does not hold what was staged: "
                                  f"unexpected {unexpected[:5]}, missing {missing[:5]}")
    forbidden = sorted(n for n in names if n.startswith("autograder/") or n.endswith((".so", ".pyd", ".c", ".dll")))
    if forbidden:
        raise StudentPackageError(f"the wheel {path} holds files students must not get: {forbidden[:5]}")


def build_wheel(out_dir, *, course_dir=COURSE_DIR):
    """Build the student wheel into the folder ``out_dir`` (created if needed); return the wheel's path.

    Needs the release (``python -m autograder release``) of ``course_dir``.
    Raises :class:`StudentPackageError` when it is missing or leaks, when
    the build fails, or when the wheel holds anything not staged.
    """
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="student-package-") as work:
        staged = os.path.join(work, "src")
        os.makedirs(staged)
        stage(staged, course_dir)
        wheels = os.path.join(work, "wheels")
        done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
                               "--no-index", "--wheel-dir", wheels, staged],
                              capture_output=True, text=True, cwd=work)
        built = sorted(os.listdir(wheels)) if os.path.isdir(wheels) else []
        if done.returncode != 0 or len(built) != 1:
            raise StudentPackageError(f"pip wheel failed (exit status {done.returncode}):\n{done.stderr.strip()}")
        check_wheel(os.path.join(wheels, built[0]), _expected_members(staged))
        target = os.path.join(out_dir, built[0])
        shutil.copyfile(os.path.join(wheels, built[0]), target)
    return target


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.student_package", description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, metavar="DIR", help="the folder the wheel is written to")
    parser.add_argument("--course-dir", default=COURSE_DIR, help="the course directory (default: %(default)s)")
    args = parser.parse_args(argv)
    try:
        path = build_wheel(args.out, course_dir=args.course_dir)
    except StudentPackageError as exc:
        print(f"student package: {exc}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
