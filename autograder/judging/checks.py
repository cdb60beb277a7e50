"""Hidden checks: what each graded cell requires, judged on the trusted side.

Each assignment has a module here (``autograder/course/assignments/<assignment>/checks.py``) with
a list ``CHECKS`` of :class:`Check` objects.  A check names the nbgrader grade
cell it scores (``grade_id``), the student's function it calls, the inputs it
calls it on (:class:`Case`), and how to compute the right answer with
``perceptron_lib``.  A grade cell earns its points only when every case of
every check with its ``grade_id`` passes.

The same checks run two ways, with the same verdicts:

* in the sandbox: :func:`write_probes` turns the cases into data files, the
  student's kernel runs :mod:`perceptron_course.probe` on them, the host reads the
  returned data at the trust boundary
  (:func:`autograder.boundary.from_sandbox.read_probe_results`) and
  :func:`verdicts_from_results` judges it;
* in-process, for the instructor's own notebooks and for tests:
  :func:`evaluate_namespace` calls the functions directly, and
  :func:`run_in_notebook` raises ``AssertionError`` if a grade cell fails.

These modules are never released to students.  Feedback reports a failed
hidden case by its description only, never by its expected value.
"""

import atexit
import copy
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from perceptron_course import probe as _probe
from perceptron_course import protocol
from perceptron_course.probe import Opaque

__all__ = ["Case", "Check", "Verdict", "probe_ids", "write_probes", "expected_answer", "verdicts_from_results",
           "evaluate_namespace", "run_in_notebook"]


@dataclass(frozen=True)
class Case:
    """One call of a student's function.

    ``describe`` says what the input is ("a point exactly on the plane"); it is
    shown in feedback.  ``visible`` cases are the ones the notebook's visible
    tests also use: their expected values may be shown, hidden ones never.
    """

    describe: str
    args: tuple
    kwargs: dict = field(default_factory=dict)
    visible: bool = False


@dataclass(frozen=True)
class Check:
    """A requirement on one student function, scored under one grade cell.

    Parameters
    ----------
    grade_id : str
        The nbgrader grade cell this check scores.
    function : str
        Name of the student's function in the notebook.
    cases : list of Case
    expected : callable
        ``expected(*case.args, **case.kwargs)`` returns the right answer, computed
        with ``perceptron_lib`` on the host.
    hint : str
        What to look at when this check fails with a wrong answer, shown in feedback.
    compare : callable, optional
        ``compare(got, expected)`` returns ``None`` when ``got`` is acceptable or a
        sentence saying what is wrong.  Default: :func:`compare_values`.
    allow_mutation : bool, default=False
        Whether the function may change its inputs in place.
    hint_on_exception : str
        What to look at when a case fails because the function raised, added to the
        message that names the exception: for a function that calls others of the
        notebook, which of them to write or fix first.
    """

    grade_id: str
    function: str
    cases: list
    expected: Callable[..., Any]
    hint: str = ""
    compare: Callable[[Any, Any], Any] = None
    allow_mutation: bool = False
    hint_on_exception: str = ""


@dataclass
class Verdict:
    """The result of one grade cell: passed or not, and the feedback message."""

    grade_id: str
    passed: bool
    message: str


# -- data in and out of the sandbox -------------------------------------------

def _probe_id(check_index, case_index):
    return f"c{check_index}_{case_index}"


def probe_ids(checks):
    """The ids of every case of ``checks``, as :func:`write_probes` names them."""
    return frozenset(_probe_id(i, j) for i, check in enumerate(checks) for j in range(len(check.cases)))


def write_probes(checks, directory):
    """Write every case of ``checks`` into ``directory`` as the probe's calls
    (:data:`~perceptron_course.protocol.PROBES_FILE` and its arrays)."""
    arrays = {}
    probes = []
    for i, check in enumerate(checks):
        for j, case in enumerate(check.cases):
            probes.append({
                "id": _probe_id(i, j),
                "function": check.function,
                "args": _probe.encode(tuple(case.args), arrays),
                "kwargs": _probe.encode(dict(case.kwargs), arrays),
            })
    os.makedirs(directory, exist_ok=True)
    np.savez(os.path.join(directory, protocol.PROBE_ARRAYS_FILE), **arrays)
    with open(os.path.join(directory, protocol.PROBES_FILE), "w") as f:
        json.dump(probes, f)


# -- judging -------------------------------------------------------------------

def _type_name(value):
    if isinstance(value, Opaque):
        return value.description
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape}"
    name = type(value).__name__
    return f"{'an' if name[0] in 'aeiou' else 'a'} {name}"


def _as_vector(value):
    """Accept an ndarray, or a list/tuple of plain numbers (as the probe reads them: ints, floats, numpy's
    integers and float64, not bools or float32), as a numeric array; else None."""
    if isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
        return value.astype(np.float64)
    if isinstance(value, (list, tuple)) and all(type(v) in _probe.PLAIN_NUMBER_TYPES for v in value):
        return np.asarray(value, dtype=np.float64)
    return None


def in_result(k, problem):
    """``problem`` of value ``k`` (from 0) of a tuple a function returned, as a message reads it after the
    function's name: "returned, as value 2 of its result, an integer; ..."."""
    if problem.startswith("returned "):
        return f"returned, as value {k + 1} of its result, {problem[len('returned '):]}"
    return f"got, as value {k + 1} of its result, a value that is wrong: {problem}"


def compare_near_float32(got, expected):
    """:func:`compare_values`; values that miss the tolerance but agree to single precision were computed in
    float32 (inputs converted with ``dtype=np.float32``, even if the result is float64 again): the message says
    so."""
    problem = compare_values(got, expected)
    if problem and compare_values(got, expected, rtol=1e-5, atol=1e-6) is None:
        problem += FLOAT32_DIAGNOSIS
    return problem


# "About 7 significant digits", as the notebooks say of float32: its machine epsilon is 1.2e-7.
FLOAT32_DIAGNOSIS = (" (they agree with the right values only to about 7 significant digits, as values computed "
                     "in float32 do: compute in float64, with np.asarray(..., dtype=float))")


def float64_problem(got, expected):
    """``None`` if every array of ``expected`` came back as a float64 numpy array in ``got`` and every float as a
    float (not an integer, not a numpy float32), as the docstrings that promise float64 ask; else the reason.
    Everything else is :func:`compare_values`' to judge."""
    if isinstance(expected, tuple) and isinstance(got, (tuple, list)) and len(got) == len(expected):
        for k, (g, e) in enumerate(zip(got, expected)):
            problem = float64_problem(g, e)
            if problem:
                return in_result(k, problem)
        return None
    if isinstance(expected, np.ndarray):
        if not isinstance(got, np.ndarray):
            return f"returned a {type(got).__name__}; the docstring asks for a numpy array of float64"
        if got.dtype != np.float64:
            return (f"returned an array of dtype {got.dtype}; the docstring asks for float64 "
                    "(compute with np.asarray(..., dtype=float))")
    if isinstance(expected, float):
        if isinstance(got, (int, np.integer, np.bool_)) or (isinstance(got, np.ndarray) and got.dtype.kind in "iub"):
            return "returned an integer; the docstring asks for a float (convert with float(...))"
        if isinstance(got, np.floating) and not isinstance(got, float):  # a float64 is a float; a float32 is not
            return (f"returned a numpy {got.dtype.name}; the docstring asks for a float, which is float64 "
                    "(convert with float(...), and compute in float64)")
    return None


def compare_float64(got, expected):
    """:func:`compare_near_float32`, and :func:`float64_problem`: the values, then the types the docstrings
    promise."""
    return compare_near_float32(got, expected) or float64_problem(got, expected)


def compare_values(got, expected, *, rtol=1e-7, atol=1e-9):
    """``None`` if ``got`` matches ``expected`` in structure, type, shape and value, else the reason.

    Arrays match arrays (or lists of numbers) of the same shape, floats match
    real numbers (``int``, ``float`` or numpy scalars; not bools, not arrays of
    shape ``()``), ints must be ``int`` or numpy integers equal to the expected
    value (a whole float is not an int), bools must be exact, tuples match tuples or lists
    element by element.  Anything else, such as an object with a custom
    ``__eq__``, never matches.
    """
    numpy_ints, numpy_floats = _probe.NUMPY_INTS, _probe.NUMPY_FLOATS  # the numbers the probe sends as numbers
    if isinstance(expected, tuple):
        if not isinstance(got, (tuple, list)):
            return f"returned {_type_name(got)}; expected a tuple of {len(expected)} values"
        if len(got) != len(expected):
            return f"returned {len(got)} values; expected {len(expected)}"
        for k, (g, e) in enumerate(zip(got, expected)):
            problem = compare_values(g, e, rtol=rtol, atol=atol)
            if problem:
                return in_result(k, problem)
        return None
    if isinstance(expected, np.ndarray):
        vec = _as_vector(got)
        if vec is None:
            return f"returned {_type_name(got)}; expected an array of shape {expected.shape}"
        if vec.shape != expected.shape:
            return f"returned an array of shape {vec.shape}; expected shape {expected.shape}"
        if not np.all(np.isfinite(vec)):
            return "returned an array containing NaN or infinity"
        if expected.dtype.kind in "biu":
            return None if np.array_equal(vec, expected) else "returned the wrong values"
        return None if np.allclose(vec, expected, rtol=rtol, atol=atol) else "returned the wrong values"
    if isinstance(expected, (bool, np.bool_)):
        if type(got) is not bool:
            return f"returned {_type_name(got)}; expected True or False"
        return None if got == bool(expected) else "returned the wrong truth value"
    if isinstance(expected, (int, np.integer)):
        # Exact types, as the visible expect_count: a float, even a whole one, or a bool is not an int.
        if type(got) is not int and type(got) not in numpy_ints:
            return f"returned {_type_name(got)}; expected an int"
        return None if int(got) == int(expected) else "returned the wrong number"
    if isinstance(expected, (float, np.floating)):
        # As the visible expect_number: one number (not a bool, not an array, even of shape ()).
        if type(got) not in (int, float) and type(got) not in numpy_ints + numpy_floats:
            return f"returned {_type_name(got)}; expected a float"
        got = float(got)
        if not np.isfinite(got):
            return "returned NaN or infinity; expected a finite number"
        return None if np.isclose(got, float(expected), rtol=rtol, atol=atol) else "returned the wrong number"
    if expected is None:
        return None if got is None else f"returned {_type_name(got)}; expected None"
    raise TypeError(f"compare_values cannot compare expected values of type {type(expected).__name__}")


def _show(value):
    """A value as a message shows it: arrays and floats to 6 significant digits (2.0000000000000004 is 2.0)."""
    if isinstance(value, np.ndarray):
        return np.array2string(value, precision=4, separator=", ")
    if isinstance(value, tuple):
        return "(" + ", ".join(_show(v) for v in value) + ")"
    if isinstance(value, (float, np.floating)):
        shown = f"{float(value):.6g}"
        return shown + ".0" if shown.lstrip("-").isdigit() else shown
    return repr(value)


# Each case's right answer, computed once per process: a class's submissions are judged against the same cases
# (each once per submission), and one answer can cost dozens of reference trainings (ps2's curve of training
# errors trains the perceptron again for every epoch). Keyed by identity; each entry holds its check and case, so
# that while it exists no other object can take their ids. The checks are module constants (``load_checks`` hands
# out the same objects).
_ANSWERS: dict = {}


def expected_answer(check, case):
    """``check.expected`` on ``case``'s arguments, computed the first time it is asked for; a copy each time, so
    that nothing a comparison does to it reaches the next submission's."""
    key = (id(check), id(case))
    if key not in _ANSWERS:
        _ANSWERS[key] = (check, case, check.expected(*case.args, **case.kwargs))
    return copy.deepcopy(_ANSWERS[key][2])


def _judge_case(check, case, record):
    """``(message, is_wrong_answer)`` saying why this case failed, or ``None`` when it passed.

    ``record`` is the case's :class:`~autograder.boundary.from_sandbox.ProbeRecord`, or ``None`` when it was never reached.
    """
    name = check.function
    if record is None:
        return f"{name} was not reached on {case.describe}: the notebook stopped before it could be called", False
    status = record.status
    if status == "missing":
        return (f"{name} is not defined when the notebook has run: keep its name, and look for an error in the cell "
                "that defines it or an earlier one (a cell stops at its first error)"), False
    if status == "timeout":
        # Never only "a loop that never ends": a right function that does far more work than it needs (a loop
        # over every pair where one product would do) runs out of time too, and the function named may be a
        # locked one of the notebook that calls the student's.
        return (f"{name} did not return within the time a hidden test allows one call on {case.describe}: look, "
                f"in {name} and in the functions of yours it calls, for a loop that never ends or one that does "
                "far more work than the task needs"), False
    if status == "raised":
        exc = record.exception
        if exc == "NotImplementedError":
            return f"{name} raised NotImplementedError: {name}, or a function it calls, is not implemented yet", False
        # Long details are cut at a word, never inside one.
        detail = record.detail if len(record.detail) <= 300 else record.detail[:300].rsplit(" ", 1)[0] + " ..."
        return f"On {case.describe}, {name} raised {exc}" + (f": {detail}" if detail else ""), False
    if status != "returned":
        return f"{name} gave no usable result on {case.describe}", False
    if record.mutated and not check.allow_mutation:
        return (f"On {case.describe}, {name} (or a function of yours it calls) changed its input arrays in place: "
                "work on a copy of any input you change (for an input named x: x = np.array(x, dtype=float))"), False
    got = record.value
    want = expected_answer(check, case)
    problem = (check.compare or compare_values)(got, want)
    if problem is None:
        return None
    message = f"On {case.describe}, {name} {problem}"
    if case.visible:
        message += f" (got {_show(got)}, expected {_show(want)})"
    return message, True


def verdicts_from_results(checks, results):
    """Judge :class:`~autograder.boundary.from_sandbox.ProbeResults`; one :class:`Verdict` per grade_id, in the checks' order."""
    verdicts = {}
    for i, check in enumerate(checks):
        verdict = verdicts.setdefault(check.grade_id, Verdict(check.grade_id, True, "passed"))
        if not verdict.passed:
            continue
        for j, case in enumerate(check.cases):
            record = results.get(_probe_id(i, j))
            failure = _judge_case(check, case, record)
            if failure:
                message, wrong_answer = failure
                # A student's exception text may end a sentence already.
                message += "" if message.endswith((".", "!", "?")) else "."
                # A check's hint is about the algorithm; values that are right but for float32 need no such hint,
                # which would send the student looking for a mistake in a right loop.
                if wrong_answer and check.hint and FLOAT32_DIAGNOSIS not in message:
                    message += " " + check.hint
                elif record is not None and record.status == "raised" and check.hint_on_exception:
                    message += " " + check.hint_on_exception
                verdicts[check.grade_id] = Verdict(check.grade_id, False, message)
                break
    return list(verdicts.values())


def evaluate_namespace(checks, namespace, *, seconds_per_call=10):
    """Run the checks in this process against functions in ``namespace``; same verdicts as the sandbox."""
    from autograder.boundary.from_sandbox import read_probe_results
    from perceptron_course.limits import Limits

    with tempfile.TemporaryDirectory() as tmp:
        _probe.run_probes(namespace, _probe_inputs(checks), os.path.join(tmp, "out"), seconds_per_call=seconds_per_call)
        results = read_probe_results(os.path.join(tmp, "out"), Limits().probe_results_bytes,
                                     probe_ids(checks))
    return verdicts_from_results(checks, results)


# The probe's input files of each list of checks, written once per process into a folder of its own (removed
# when the process ends): verify evaluates dozens of known-wrong implementations against the same checks, and
# writing ps2's cases again each time was a sixth of its run. Keyed by identity, as :data:`_ANSWERS` is, each
# entry holding its checks; a folder found gone is written again.
_PROBE_INPUTS: dict = {}


def _probe_inputs(checks):
    checks = tuple(checks)
    key = tuple(map(id, checks))
    entry = _PROBE_INPUTS.get(key)
    if entry is None or not os.path.isfile(os.path.join(entry[1], protocol.PROBES_FILE)):
        folder = tempfile.mkdtemp(prefix="probe-inputs-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        write_probes(checks, folder)
        entry = _PROBE_INPUTS[key] = (checks, folder)
    return entry[1]


def run_in_notebook(assignment, grade_id, namespace):
    """Raise ``AssertionError`` with the feedback message if ``grade_id`` fails; for source notebooks."""
    from autograder.course.assignments import load_checks

    checks = [c for c in load_checks(assignment) if c.grade_id == grade_id]
    if not checks:
        raise ValueError(f"Assignment {assignment!r} has no hidden checks for grade cell {grade_id!r}.")
    for verdict in evaluate_namespace(checks, namespace):
        if not verdict.passed:
            raise AssertionError(verdict.message)
