"""Fixtures of the student side's tests: Pythons made to lack what Windows or macOS lack, and the student's wheel
installed into fresh virtual environments of them.

These machines run Linux only, so the other systems are imitated where it matters to the student package:

* ``windows``: a Python without ``signal.SIGALRM``, ``setitimer`` and the rest of the interval timers,
  without ``os.fork``, and to which ``/proc`` does not exist; run with :func:`non_utf8_locale`, whose
  preferred encoding (and so ``open()``'s default) is ISO-8859-1, as Windows' is a code page;
* ``macos``: a Python to which ``/proc`` does not exist (it has the POSIX timers);
* ``linux``: this system's own Python, lacking nothing (a JupyterHub's, say).

Each is a virtual environment whose ``site-packages`` runs a module at start-up (a ``.pth`` line, which
``python -I`` runs too, as the check starts the runner) that deletes those names.  Its other packages
(numpy, IPython, nbformat ...) come from this test environment through a ``.pth`` path line, which does not
run their own ``.pth`` files (the repository's editable install among them), so that an environment is made in
a second, not in the minute pip would take to install them again; the course's package in it is the student
wheel, built from the run's release by ``tools/student_package.py`` and installed by pip.  One environment of
each kind is made per session.
"""

import os
import subprocess
import sys
import sysconfig

import pytest

# What each imitated system lacks, run at the start of every Python of its environment.
LACKS_PROC = '''
_isdir, _exists, _listdir = os.path.isdir, os.path.exists, os.listdir


def _in_proc(path):
    return isinstance(path, (str, bytes, os.PathLike)) and os.fsdecode(path).startswith("/proc")


os.path.isdir = lambda path: False if _in_proc(path) else _isdir(path)
os.path.exists = lambda path: False if _in_proc(path) else _exists(path)


def _listdir_without_proc(path="."):
    if _in_proc(path):
        raise FileNotFoundError(2, "No such file or directory", path)
    return _listdir(path)


os.listdir = _listdir_without_proc
'''
LACKS_POSIX_TIMERS = '''
for _name in ("SIGALRM", "setitimer", "getitimer", "ITIMER_REAL", "ITIMER_VIRTUAL", "ITIMER_PROF", "alarm",
              "pause", "siginterrupt"):
    if hasattr(signal, _name):
        delattr(signal, _name)
for _name in ("fork", "forkpty"):
    if hasattr(os, _name):
        delattr(os, _name)
'''
IMITATIONS = {
    "windows": '"""This Python lacks what Windows\' Python lacks."""\nimport os\nimport signal\n'
               + LACKS_POSIX_TIMERS + LACKS_PROC,
    "macos": '"""This Python lacks what macOS\'s Python lacks."""\nimport os\n' + LACKS_PROC,
    "linux": '"""This Python is Linux\'s own: it lacks nothing."""\n',
}
IMITATION_MODULE = "_imitated_system"


def make_environment(folder, system, wheel=None):
    """A virtual environment in ``folder`` imitating ``system`` (see the module), with ``wheel`` installed if
    given; returns its Python."""
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", str(folder)],
                   check=True, timeout=120)
    python = folder / "bin" / "python"
    purelib = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    with open(os.path.join(purelib, "test-dependencies.pth"), "w", encoding="utf-8") as f:
        f.write(sysconfig.get_paths()["purelib"] + "\n")
    with open(os.path.join(purelib, f"{IMITATION_MODULE}.py"), "w", encoding="utf-8") as f:
        f.write(IMITATIONS[system])
    with open(os.path.join(purelib, f"zz-{IMITATION_MODULE}.pth"), "w", encoding="utf-8") as f:
        f.write(f"import {IMITATION_MODULE}\n")
    if wheel is not None:
        done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps",
                               "--no-index", str(wheel)], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"installing {wheel} failed:\n{done.stdout}\n{done.stderr}"
    return python


@pytest.fixture(scope="session")
def imitated_python(tmp_path_factory):
    """``imitated_python(system)``: the Python of an environment imitating ``system``, without the course's
    package (the tests that use it run the repository's runner), one per system and session."""
    made = {}

    def python(system):
        if system not in made:
            made[system] = make_environment(tmp_path_factory.mktemp(f"python-like-{system}"), system)
        return made[system]

    return python


@pytest.fixture(scope="session")
def student_wheel(released_course, tmp_path_factory):
    """The student package's wheel, built from the run's released course."""
    from tools.student_package import build_wheels

    return build_wheels(str(tmp_path_factory.mktemp("student-wheel")), course_dir=str(released_course),
                        compiled=False).pure


@pytest.fixture(scope="session")
def student_python(student_wheel, tmp_path_factory):
    """``student_python(system)``: the Python of a fresh environment imitating ``system`` with the student wheel
    installed (its ``perceptron-check`` beside it), one per system and session."""
    made = {}

    def python(system):
        if system not in made:
            made[system] = make_environment(tmp_path_factory.mktemp(f"student-on-{system}"), system, student_wheel)
        return made[system]

    return python


@pytest.fixture(scope="session")
def non_utf8_locale(tmp_path_factory):
    """Environment variables for a locale whose encoding is ISO-8859-1, built for this session with ``localedef``
    (glibc reads it from ``LOCPATH``): under it Python's preferred encoding, ``open()``'s default, is not UTF-8."""
    folder = tmp_path_factory.mktemp("locales")
    name = "en_US.ISO-8859-1"
    done = subprocess.run(["localedef", "-i", "en_US", "-f", "ISO-8859-1", str(folder / name)], capture_output=True,
                          text=True, timeout=120)
    env = {"LOCPATH": str(folder), "LC_ALL": name}
    if done.returncode == 0:
        probe = subprocess.run([sys.executable, "-I", "-c", "import locale; print(locale.getpreferredencoding())"],
                               env={**os.environ, **env}, capture_output=True, text=True)
        if probe.stdout.strip() == "ISO-8859-1":
            return env
    pytest.fail(f"localedef could not build the locale {name} (it needs the Debian package locales): "
                f"{done.stderr.strip()}", pytrace=False)
