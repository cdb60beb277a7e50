"""The hidden checks' verdicts (:mod:`autograder.judging.checks`): which hint a failed case's message carries.

A check's ``hint`` follows a wrong answer; its ``hint_on_exception`` follows a case on which the function
raised, for a function that calls others of the notebook (a stub of one of them raises in the caller, which
alone is named); neither follows a time-out, a missing function or a call never reached.  Every test is pure
and fast: the probe's records are written by hand, no notebook runs.
"""

import numpy as np
import pytest

from autograder.boundary.from_sandbox import ProbeRecord, ProbeResults
from autograder.judging.checks import Case, Check, evaluate_namespace, verdicts_from_results

HINT = "Append the column of ones last."
ON_EXCEPTION = "lift calls absorb and split: write them first."


def lift_check(**fields):
    return Check(grade_id="lift_values", function="lift", cases=[Case("two points", (np.array([[1.0], [2.0]]),))],
                 expected=lambda X: np.hstack([X, np.ones((len(X), 1))]), **fields)


def verdict(check, record):
    (found,) = verdicts_from_results([check], ProbeResults(records=(("c0_0", record),) if record else ()))
    return found


def test_the_new_field_is_empty_by_default():
    assert lift_check().hint_on_exception == ""


@pytest.mark.parametrize("exception, detail, start", [
    ("NotImplementedError", "", "lift raised NotImplementedError: lift, or a function it calls, is not implemented yet."),
    ("TypeError", "unsupported operand", "On two points, lift raised TypeError: unsupported operand."),
])
def test_a_case_that_raised_carries_the_exception_hint_and_not_the_other(exception, detail, start):
    found = verdict(lift_check(hint=HINT, hint_on_exception=ON_EXCEPTION),
                    ProbeRecord("raised", exception=exception, detail=detail))
    assert not found.passed
    assert found.message == f"{start} {ON_EXCEPTION}"


def test_a_wrong_answer_carries_the_hint_and_not_the_exception_hint():
    found = verdict(lift_check(hint=HINT, hint_on_exception=ON_EXCEPTION),
                    ProbeRecord("returned", value=np.array([[1.0, 1.0], [1.0, 2.0]])))
    assert found.message == f"On two points, lift returned the wrong values. {HINT}"


@pytest.mark.parametrize("record", [ProbeRecord("timeout"), ProbeRecord("missing"), None],
                         ids=["timeout", "missing", "not reached"])
def test_no_hint_follows_a_time_out_a_missing_function_or_a_call_never_reached(record):
    message = verdict(lift_check(hint=HINT, hint_on_exception=ON_EXCEPTION), record).message
    assert HINT not in message and ON_EXCEPTION not in message


def test_without_the_field_an_exception_s_message_is_as_before():
    found = verdict(lift_check(hint=HINT), ProbeRecord("raised", exception="NotImplementedError"))
    assert found.message == "lift raised NotImplementedError: lift, or a function it calls, is not implemented yet."


def test_in_process_a_stub_called_by_the_checked_function_gets_the_exception_hint():
    namespace = {"np": np}
    exec("def absorb(X):\n    raise NotImplementedError()\n\n"
         "def lift(X):\n    return absorb(X)\n", namespace)
    (found,) = evaluate_namespace([lift_check(hint=HINT, hint_on_exception=ON_EXCEPTION)], namespace)
    assert found.message == ("lift raised NotImplementedError: lift, or a function it calls, is not implemented yet. "
                             + ON_EXCEPTION)
