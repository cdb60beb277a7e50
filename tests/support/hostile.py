"""Hostile submissions: one small function per attack, each building the file a student would hand in.

Every case starts from a :class:`Kit`: the release notebook, a correct
submission made from it (the release with the source's solutions filled in),
the assignment's functions, and the paths a submission would love to reach
(the source notebook, the gradebook, the hidden checks, the output folder).
A case returns an :class:`Entry` (a notebook, raw bytes, or a symbolic link)
and states what grading must record for it in an :class:`Expect`: the
status, which graded cells lose their points (``"all"``, none, or the cells
of the functions it broke) and the flags that must be raised.

Cases that must reach the sandbox's limits (``TIMEOUT`` budget, per-cell
timeout, output cap) are written for a batch graded with ``--timeout 20
--cell-timeout 5``.
"""

import copy
import json
import re
from dataclasses import dataclass, field

import nbformat
from nbformat.v4 import new_code_cell

from perceptron_course.cells import is_solution, is_test_cell

__all__ = ["Kit", "Entry", "Expect", "CASES", "broken_function"]


@dataclass
class Kit:
    """What the cases build on."""

    release: nbformat.NotebookNode
    correct: nbformat.NotebookNode
    functions: list  # the names of the assignment's graded functions, in check order
    secret_paths: list  # files no submission may read
    writable_targets: list  # files no submission may write (gradebooks, grades.csv)

    def solved(self):
        return copy.deepcopy(self.correct)


@dataclass(frozen=True)
class Entry:
    """A submission file: ``kind`` is 'notebook' (payload: NotebookNode), 'bytes' or 'symlink' (payload: target)."""

    kind: str
    payload: object


@dataclass(frozen=True)
class Expect:
    """What grading must record: the status, which cells fail, and flags that must be among those raised."""

    status: str
    broken: str = "none"  # whose grade cells must fail: "none", "first" (the first function) or "all"
    flags: frozenset = field(default_factory=frozenset)


def _append(nb, source):
    nb.cells.append(new_code_cell(source))
    return nb


def broken_function(name):
    """A definition of ``name`` that accepts anything and returns a wrong answer of the wrong type."""
    return f"def {name}(*args, **kwargs):\n    return 0\n"


def _replace_answer(nb, function, source):
    """Put ``source`` in the answer cell that defines ``function``."""
    for cell in nb.cells:
        if is_solution(cell) and f"def {function}(" in cell.source:
            cell.source = source
            return nb
    raise LookupError(f"no answer cell defines {function}")


def _test_cells(nb):
    return [c for c in nb.cells if is_test_cell(c)]


# -- time and processes ----------------------------------------------------------

def infinite_loop(kit):
    """A cell that never ends: interrupted at the per-cell timeout; the cells after it still run."""
    return Entry("notebook", _append(kit.solved(), "while True:\n    pass\n"))


def infinite_loop_ignoring_interrupts(kit):
    """A loop that blocks the signals that interrupt it: only the notebook's time budget ends it."""
    source = ("import signal\n"
              "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGALRM})\n"
              "while True:\n    pass\n")
    return Entry("notebook", _append(kit.solved(), source))


def infinite_loop_swallowing_interrupts(kit):
    """A loop that catches every exception, the interruption included, and goes on: the budget ends it."""
    source = "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass\n"
    return Entry("notebook", _append(kit.solved(), source))


def os_exit(kit):
    """The notebook ends the process that runs it."""
    return Entry("notebook", _append(kit.solved(), "import os\nos._exit(0)\n"))


def kill_parent(kit):
    """The notebook kills the process that started it (the sandbox's launcher)."""
    return Entry("notebook", _append(kit.solved(), "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n"))


def stop_parent(kit):
    """The notebook stops the process that started it, which then never finishes."""
    return Entry("notebook", _append(kit.solved(), "import os, signal\nos.kill(os.getppid(), signal.SIGSTOP)\n"))


def background_writer(kit):
    """A detached sleeper that later writes into every gradebook or CSV file it can find, and stays alive."""
    targets = json.dumps(kit.writable_targets)
    source = f"""\
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(1)
        paths = {targets}
        for root, dirs, files in os.walk("/"):
            dirs[:] = [d for d in dirs if d not in ("proc", "dev", "sys", "usr")]
            paths += [os.path.join(root, f) for f in files if f.endswith((".db", ".csv"))]
        for path in paths:
            try:
                with open(path, "a") as f:
                    f.write("HAC" + "KED")
            except OSError:
                pass
        while True:
            time.sleep(1)
    os._exit(0)
time.sleep(3)
"""
    return Entry("notebook", _append(kit.solved(), source))


def fork_bomb(kit):
    """Every process forks until the process limit stops them all; the copies then hold their slots."""
    source = """\
import os, time
main = os.getpid()
try:
    while True:
        os.fork()
except OSError:
    pass
if os.getpid() != main:
    while True:
        time.sleep(60)
print("the process limit stopped the fork bomb")
"""
    return Entry("notebook", _append(kit.solved(), source))


def memory_hog(kit):
    """Asks for far more memory than the limit allows."""
    return Entry("notebook", _append(kit.solved(), "hog = bytearray(16 * 2**30)\n"))


# -- reading and writing what it must not -------------------------------------------

def read_secrets(kit):
    """Tries to read the source notebook, the hidden checks and the gradebook, and to import the checks."""
    paths = json.dumps(kit.secret_paths)
    source = f"""\
for path in {paths}:
    try:
        with open(path, "rb") as f:
            print("READ", path, len(f.read()))
    except OSError as exc:
        print("BLOCKED", path, type(exc).__name__)
try:
    import autograder.judging.checks
    print("READ autograder.judging.checks")
except ImportError as exc:
    print("BLOCKED autograder.judging.checks", type(exc).__name__)
"""
    return Entry("notebook", _append(kit.solved(), source))


def write_gradebook(kit):
    """Tries to give itself full marks in every gradebook and grades.csv it knows of."""
    paths = json.dumps(kit.writable_targets)
    source = f"""\
import sqlite3
for path in {paths}:
    try:
        if path.endswith(".db"):
            db = sqlite3.connect(path)
            db.execute("UPDATE grade SET auto_score = 999")
            db.commit()
        else:
            with open(path, "a") as f:
                f.write("HAC" + "KED,999")
        print("WROTE", path)
    except Exception as exc:
        print("BLOCKED", path, type(exc).__name__)
"""
    return Entry("notebook", _append(kit.solved(), source))


def big_output(kit):
    """Prints 100 MB."""
    return Entry("notebook", _append(kit.solved(), "for _ in range(100):\n    print('x' * 1_000_000)\n"))


def module_file(kit):
    """Writes files named like standard and project modules into its folder."""
    source = ("for name in ('numpy.py', 'json.py'):\n"
              "    with open(name, 'w') as f:\n"
              "        f.write('raise ImportError(\"replaced\")\\n')\n")
    return Entry("notebook", _append(kit.solved(), source))


# -- cheating the tests ------------------------------------------------------------

def patch_numpy_testing(kit):
    """Replaces numpy.testing's assertions with no-ops, and hands in a wrong function."""
    nb = kit.solved()
    _replace_answer(nb, kit.functions[0], broken_function(kit.functions[0]))
    source = ("import numpy.testing\n"
              "numpy.testing.assert_allclose = lambda *args, **kwargs: None\n"
              "np.testing.assert_array_equal = lambda *args, **kwargs: None\n")
    nb.cells.insert(2, new_code_cell(source))
    return Entry("notebook", nb)


def always_equal(kit):
    """Every function returns an object equal to anything."""
    nb = kit.solved()
    helper = ("class Anything:\n"
              "    def __eq__(self, other):\n        return True\n"
              "    def __ne__(self, other):\n        return False\n"
              "    def __bool__(self):\n        return True\n")
    nb.cells.insert(2, new_code_cell(helper))
    for name in kit.functions:
        _replace_answer(nb, name, f"def {name}(*args, **kwargs):\n    return Anything()\n")
    return Entry("notebook", nb)


def strip_asserts(kit):
    """Registers an IPython input transformer that deletes every assert, and hands in a wrong function."""
    nb = kit.solved()
    _replace_answer(nb, kit.functions[0], broken_function(kit.functions[0]))
    source = ("def _no_asserts(lines):\n"
              "    return [line for line in lines if not line.lstrip().startswith('assert')]\n"
              "get_ipython().input_transformers_cleanup.append(_no_asserts)\n")
    nb.cells.insert(2, new_code_cell(source))
    return Entry("notebook", nb)


def script_in_error(kit):
    """A function whose error message is HTML, which feedback must show as text."""
    nb = kit.solved()
    source = (f"def {kit.functions[0]}(*args, **kwargs):\n"
              "    raise ValueError(\"<script>alert('graded')</script>\")\n")
    _replace_answer(nb, kit.functions[0], source)
    return Entry("notebook", nb)


def detects_grading(kit):
    """Behaves only when it believes it is being graded."""
    nb = kit.solved()
    source = ("import os\n"
              "GRADED = os.environ.get('HOME') != os.path.expanduser('~user') or os.path.exists('/grading')\n")
    nb.cells.insert(2, new_code_cell(source))
    return Entry("notebook", nb)


def reference_solution(kit):
    """Hands in the reference library's implementation instead of its own (the import fails in the sandbox)."""
    nb = kit.solved()
    name = kit.functions[0]
    _replace_answer(nb, name, f"from perceptron_lib import {name}\n")
    return Entry("notebook", nb)


def reference_inside_function(kit):
    """Reaches the reference implementation only when called, by a computed attribute of the package."""
    nb = kit.solved()
    name = kit.functions[0]
    _replace_answer(nb, name, f"def {name}(*args, **kwargs):\n    import perceptron_lib\n"
                              f"    return getattr(perceptron_lib, {name!r})(*args, **kwargs)\n")
    return Entry("notebook", nb)


def reference_pasted(kit):
    """Pastes a function of the reference library, renamed, as the helper of its first answer.

    It runs and passes; the report's similarity pass names the library function it copies.
    """
    import inspect

    from perceptron_lib import _validation

    nb = kit.solved()
    name = kit.functions[0]
    helper = re.sub(r"\barr\b", "points", inspect.getsource(_validation.check_X).replace("check_X", "as_points"))
    answer = next(c for c in nb.cells if is_solution(c) and f"def {name}(" in c.source)
    _replace_answer(nb, name, helper + "\n\n" + answer.source.replace("np.asarray(X, dtype=float)", "as_points(X)"))
    return Entry("notebook", nb)


# -- locked cells -------------------------------------------------------------------

def deleted_test_cell(kit):
    """Deletes the first test cell."""
    nb = kit.solved()
    nb.cells.remove(_test_cells(nb)[0])
    return Entry("notebook", nb)


def copied_test_cell(kit):
    """Copies the first test cell (same nbgrader id) and empties the copy."""
    nb = kit.solved()
    first = _test_cells(nb)[0]
    duplicate = copy.deepcopy(first)
    duplicate.source = "pass\n"
    duplicate["id"] = "copied-test"
    nb.cells.insert(nb.cells.index(first) + 1, duplicate)
    return Entry("notebook", nb)


def edited_test_cell(kit):
    """Empties every test cell and hands in a wrong function."""
    nb = kit.solved()
    _replace_answer(nb, kit.functions[0], broken_function(kit.functions[0]))
    for cell in _test_cells(nb):
        cell.source = "pass\n"
    return Entry("notebook", nb)


# -- files that are not notebooks ----------------------------------------------------

def symlink(kit):
    """A link to the instructor's source notebook instead of a file."""
    return Entry("symlink", kit.secret_paths[0])


def not_json(kit):
    return Entry("bytes", b"def signed_distance(X, w, b=0.0):\n    return 0\n")


def empty_notebook(kit):
    return Entry("bytes", json.dumps({"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).encode())


def empty_file(kit):
    return Entry("bytes", b"")


CASES = {
    infinite_loop: Expect("graded", flags=frozenset({"cell-interrupted"})),
    infinite_loop_ignoring_interrupts: Expect("timeout", "all", frozenset({"processes"})),
    infinite_loop_swallowing_interrupts: Expect("timeout", "all"),
    os_exit: Expect("crashed", "all", frozenset({"processes"})),
    kill_parent: Expect("crashed", "all", frozenset({"processes"})),
    stop_parent: Expect("timeout", "all", frozenset({"processes"})),
    background_writer: Expect("graded", flags=frozenset({"processes", "outside-paths", "background-processes"})),
    fork_bomb: Expect("graded", flags=frozenset({"processes", "background-processes"})),
    memory_hog: Expect("graded"),
    read_secrets: Expect("graded", flags=frozenset({"outside-paths", "grading-detection"})),
    write_gradebook: Expect("graded", flags=frozenset({"outside-paths", "grading-detection"})),
    big_output: Expect("graded", flags=frozenset({"output-truncated"})),
    module_file: Expect("graded", flags=frozenset({"module-file"})),
    patch_numpy_testing: Expect("graded", "first", frozenset({"patched-modules"})),
    always_equal: Expect("graded", "all", frozenset({"custom-equality"})),
    strip_asserts: Expect("graded", "first", frozenset({"ipython-hooks"})),
    script_in_error: Expect("graded", "first"),
    detects_grading: Expect("graded", flags=frozenset({"grading-detection"})),
    reference_solution: Expect("graded", "first", frozenset({"reference-solution"})),
    reference_inside_function: Expect("graded", "first", frozenset({"reference-solution"})),
    reference_pasted: Expect("graded"),  # reference-copy is the report's finding, not a grade's flag
    deleted_test_cell: Expect("graded", flags=frozenset({"deleted-locked-cell"})),
    copied_test_cell: Expect("graded", flags=frozenset({"duplicated-cell"})),
    edited_test_cell: Expect("graded", "first", frozenset({"edited-locked-cell"})),
    symlink: Expect("ungradable", "all"),
    not_json: Expect("ungradable", "all"),
    empty_notebook: Expect("ungradable", "all"),
    empty_file: Expect("ungradable", "all"),
}
