"""The registry of assignments: each is one folder here, named as its nbgrader source folder.

An assignment ``<name>`` is ``notebooks/source/<name>/<name>.ipynb`` (what
nbgrader releases) and the folder ``autograder/course/assignments/<name>/``
(what is never released)::

    <name>/
        __init__.py     (empty: the folder is a package)
        checks.py       CHECKS: the hidden checks (autograder.judging.checks.Check)
        known_wrong.py  KNOWN_WRONG: typical mistakes and the grade cells that must
                        reject each (autograder.course.known_wrong.KnownWrong)
        rubric.py       RUBRIC: the starting rubric of each written question, which
                        ``mark`` loads for the TAs (autograder.course.rubric); optional

Adding an assignment is adding those two folders; every command (``release``,
``grade``, ``verify``, ``gradescope``, ``publish``) and the leak audit take the
list from :func:`names`.
"""

import importlib
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CHECKS_MODULE = "checks"
KNOWN_WRONG_MODULE = "known_wrong"
RUBRIC_MODULE = "rubric"

__all__ = ["UnknownAssignment", "names", "folder", "checks_file", "known_wrong_file", "rubric_file", "load_checks",
           "load_known_wrong", "load_rubric"]


class UnknownAssignment(ValueError):
    """A name that is not one of the registry's assignments."""


def names():
    """The assignments, in order of their names (``ps1_...`` before ``ps2_...``)."""
    return sorted(entry for entry in os.listdir(HERE)
                  if not entry.startswith(("_", ".")) and os.path.isfile(os.path.join(HERE, entry, f"{CHECKS_MODULE}.py")))


def folder(name):
    """The assignment's folder; :class:`UnknownAssignment`, naming the known ones, if there is none."""
    known = names()
    if name not in known:
        raise UnknownAssignment(f"No hidden checks for assignment {name!r}; known assignments: {', '.join(known) or 'none'}.")
    return os.path.join(HERE, name)


def checks_file(name):
    """The path of the assignment's hidden checks, ``<name>/checks.py``."""
    return os.path.join(folder(name), f"{CHECKS_MODULE}.py")


def known_wrong_file(name):
    """The path of the assignment's known-wrong code, ``<name>/known_wrong.py`` (it may not exist yet)."""
    return os.path.join(folder(name), f"{KNOWN_WRONG_MODULE}.py")


def rubric_file(name):
    """The path of the assignment's starting rubric, ``<name>/rubric.py`` (it may not exist)."""
    return os.path.join(folder(name), f"{RUBRIC_MODULE}.py")


def load_checks(name):
    """The assignment's ``CHECKS`` list."""
    folder(name)
    return list(importlib.import_module(f"{__name__}.{name}.{CHECKS_MODULE}").CHECKS)


def load_known_wrong(name):
    """The assignment's ``KNOWN_WRONG`` list, or ``[]`` when it has no ``known_wrong.py`` yet."""
    if not os.path.isfile(known_wrong_file(name)):
        return []
    return list(importlib.import_module(f"{__name__}.{name}.{KNOWN_WRONG_MODULE}").KNOWN_WRONG)


def load_rubric(name):
    """The assignment's ``RUBRIC`` (grade id -> :class:`autograder.course.rubric.StartingRubric`), or ``{}`` when
    it has no ``rubric.py``."""
    if not os.path.isfile(rubric_file(name)):
        return {}
    return dict(importlib.import_module(f"{__name__}.{name}.{RUBRIC_MODULE}").RUBRIC)
