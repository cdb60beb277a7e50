"""The hidden checks' verdicts (:mod:`autograder.judging.checks`): which hint a failed case's message carries.

A check's ``hint`` follows a wrong answer; its ``hint_on_exception`` follows a case on which the function
raised, for a function that calls others of the notebook (a stub of one of them raises in the caller, which
alone is named); neither follows a time-out, a missing function or a call never reached.  Every test is pure
and fast: the probe's records are written by hand, no notebook runs.
"""

import os
import shutil

import numpy as np
import pytest

from autograder.boundary.from_sandbox import ProbeRecord, ProbeResults
from autograder.judging import checks as checks_module
from autograder.judging.checks import Case, Check, compare_values, evaluate_namespace, verdicts_from_results

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


def test_a_cases_answer_is_computed_once_for_all_the_submissions_judged_and_none_sees_anothers_copy():
    """Judging a class asks each case's answer once per submission: it is computed for the first and reused, and a
    comparison that spoils the answer it is handed spoils nothing for the next submission."""
    computed = []

    def answer(X):  # a tuple holding an array, as ps2's, ps4's and ps5's answers are: a shallow copy would share it
        computed.append(X)
        return np.hstack([X, np.ones((len(X), 1))]), len(X)

    def spoiling(got, want):
        problem = compare_values(got, want)
        want[0][...] = 0.0
        return problem

    check = Check(grade_id="lift_values", function="lift", cases=[Case("two points", (np.array([[1.0], [2.0]]),))],
                  expected=answer, compare=spoiling)
    right = ProbeRecord("returned", value=(np.array([[1.0, 1.0], [2.0, 1.0]]), 2))
    assert [verdict(check, right).passed for _ in range(3)] == [True, True, True]
    assert len(computed) == 1


def test_the_probes_inputs_are_written_once_for_every_implementation_evaluated_and_again_if_removed(monkeypatch):
    """verify evaluates dozens of implementations against the same checks: their inputs are written for the first
    and read by every later one, each judged on its own; a folder of inputs found gone is written again."""
    written = []
    real_write = checks_module.write_probes
    monkeypatch.setattr(checks_module, "write_probes", lambda *args: written.append(args[1]) or real_write(*args))
    check = lift_check()
    right = {"lift": lambda X: np.hstack([X, np.ones((len(X), 1))])}
    wrong = {"lift": lambda X: np.hstack([np.ones((len(X), 1)), X])}
    passed = [found.passed for namespace in (right, wrong, right) for found in evaluate_namespace([check], namespace)]
    assert passed == [True, False, True]
    assert len(written) == 1
    shutil.rmtree(written[0])
    assert [found.passed for found in evaluate_namespace([check], wrong)] == [False]
    assert len(written) == 2 and os.path.isdir(written[1])


# compare_values takes a value's type as the visible helpers do (expect_count, expect_number): a value they
# reject must not get the hidden check's points, and a right value they accept must not lose them.
from perceptron_course.test_helpers import expect_count, expect_number  # noqa: E402


@pytest.mark.parametrize("got", [3.0, True, np.float64(3.0), np.array(3), "3"])
def test_an_int_is_required_where_an_int_is_expected(got):
    problem = compare_values(got, 3)
    assert problem is not None and "expected an int" in problem
    with pytest.raises(AssertionError):
        expect_count("f", got, 3, "x")


@pytest.mark.parametrize("got", [np.array(2.5), np.array([2.5]), True, "2.5"])
def test_one_number_is_required_where_a_float_is_expected(got):
    problem = compare_values(got, 2.5)
    assert problem is not None and "expected a float" in problem
    with pytest.raises(AssertionError):
        expect_number("f", got, 2.5, "x")


def test_the_type_got_is_named():
    assert compare_values(np.array(2.5), 2.5) == "returned an array of shape (); expected a float"
    assert compare_values(3.0, 3) == "returned a float; expected an int"


@pytest.mark.parametrize("got,expected", [(3, 3), (np.int64(3), 3), (np.int32(3), np.int64(3)), (2.5, 2.5),
                                          (np.float64(2.5), 2.5), (np.float32(2.0), 2.0), (2, 2.0),
                                          (np.int64(2), 2.0)])
def test_a_right_value_written_another_way_is_accepted(got, expected):
    assert compare_values(got, expected) is None
