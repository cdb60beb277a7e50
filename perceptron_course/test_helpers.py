"""The visible tests' helpers: each checks one property of a value a student's function returned.

The test cells of the assignment notebooks call them.  When a check fails
it raises ``AssertionError`` with a message that says what came back, what
was expected, and on which input, so the student sees why in the cell's
output.  (They raise it themselves rather than with ``assert``, so they
check the same under ``python -O``.)

The last cell of every assignment calls :func:`check_this_notebook`, the
check from inside the notebook.  It lives here because this module is the
one of the package that a graded notebook is given too.
"""

import os

import numpy as np

__all__ = ["expect_returned", "expect_array", "expect_number", "expect_count", "expect_truth", "expect_tuple",
           "expect_unchanged", "check_this_notebook"]

# perceptron_course.protocol.RUNNER_ENVIRONMENT, named again: a graded notebook's package holds this module alone.
RUNNER_ENVIRONMENT = "PERCEPTRON_COURSE_RUNNER"
NOT_RUN_HERE = ("check_this_notebook: not run here. The notebook is being checked or graded, which runs its cells in "
                "a fresh Python: this cell starts no check of its own.")


def _require(condition, message):
    if not condition:
        raise AssertionError(message)


def expect_returned(name, got, where):
    """Check that the function returned something: ``got`` is not ``None``.

    Examples
    --------
    >>> expect_returned("margin", None, "the four-point example")
    Traceback (most recent call last):
    ...
    AssertionError: margin returned None on the four-point example. Check that the function ends with a return statement.
    """
    _require(got is not None,
             f"{name} returned None on {where}. Check that the function ends with a return statement.")


def expect_array(name, got, expected, where, hint=""):
    """Check that ``got`` is a numpy array with the shape and values of ``expected``.

    Parameters
    ----------
    name : str
        The function's name, as the message shows it.
    got : object
        What the function returned.
    expected : array_like
        The values it should have returned (compared with ``np.allclose``).
    where : str
        The input, in words ("the four-point example").
    hint : str, default=""
        A sentence added to the message when the values differ.

    Raises
    ------
    AssertionError
        When ``got`` is not a numeric array of the expected shape and values.

    Examples
    --------
    >>> expect_array("double", np.array([2.0, 4.0]), [2, 4], "the input [1, 2]")
    >>> expect_array("double", [2.0, 4.0], [2, 4], "the input [1, 2]")
    Traceback (most recent call last):
    ...
    AssertionError: double returned a list on the input [1, 2]; expected a numpy array of shape (2,).
    """
    expected = np.asarray(expected)
    expect_returned(name, got, where)
    _require(isinstance(got, np.ndarray),
             f"{name} returned a {type(got).__name__} on {where}; expected a numpy array of shape {expected.shape}.")
    _require(got.shape == expected.shape,
             f"{name} returned an array of shape {got.shape} on {where}; expected shape {expected.shape}.")
    _require(got.dtype.kind in "biuf", f"{name} returned an array of dtype {got.dtype} on {where}; expected numbers.")
    _require(np.allclose(got, expected),
             f"{name} returned {np.round(got, 4).tolist()} on {where}; expected {np.round(expected, 4).tolist()}. "
             f"{hint}")


def expect_number(name, got, expected, where, hint="", what=""):
    """Check that ``got`` is one real number close to ``expected`` (``np.isclose``).

    ``what`` follows each number in the message (a unit, for example
    ``" mistakes"``); the other parameters are those of :func:`expect_array`.

    Examples
    --------
    >>> expect_number("radius", 5.0, 5, "the points (3, 4) and (0, 1)")
    >>> expect_number("radius", True, 5, "the points (3, 4) and (0, 1)")
    Traceback (most recent call last):
    ...
    AssertionError: radius returned a bool on the points (3, 4) and (0, 1); expected a single number.
    """
    expect_returned(name, got, where)
    is_number = isinstance(got, (int, float, np.integer, np.floating)) and not isinstance(got, (bool, np.bool_))
    _require(is_number, f"{name} returned a {type(got).__name__} on {where}; expected a single number.")
    _require(np.isclose(got, expected), f"{name} returned {got:.6g}{what} on {where}; expected {expected:.6g}{what}. "
                                        f"{hint}")


def expect_count(name, got, expected, where, hint="", what=""):
    """Check that ``got`` is a whole number (``int`` or a numpy integer, not a bool) equal to ``expected``.

    Examples
    --------
    >>> expect_count("count_mistakes", 2, 3, "the four-point example", "Count every update.", " mistakes")
    Traceback (most recent call last):
    ...
    AssertionError: count_mistakes returned 2 mistakes on the four-point example; expected 3 mistakes. Count every update.
    """
    expect_returned(name, got, where)
    _require(isinstance(got, (int, np.integer)) and not isinstance(got, (bool, np.bool_)),
             f"{name} returned a {type(got).__name__} on {where}; expected an int.")
    _require(got == expected, f"{name} returned {got}{what} on {where}; expected {expected}{what}. {hint}")


def expect_truth(name, got, expected, where, hint=""):
    """Check that ``got`` is ``True`` or ``False`` (a Python or numpy bool) and equals ``expected``."""
    expect_returned(name, got, where)
    _require(isinstance(got, (bool, np.bool_)),
             f"{name} returned a {type(got).__name__} on {where}; expected True or False.")
    _require(got == expected, f"{name} returned {bool(got)} on {where}; expected {expected}. {hint}")


def expect_tuple(name, got, names, where):
    """Check that ``got`` is a tuple (or list) with one value for each of ``names``; return it.

    Examples
    --------
    >>> w, b = expect_tuple("split_offset", (np.zeros(2), 1.0), ("w", "b"), "theta = (0, 0, 1)")
    >>> expect_tuple("split_offset", np.zeros(3), ("w", "b"), "theta = (0, 0, 1)")
    Traceback (most recent call last):
    ...
    AssertionError: split_offset returned a ndarray on theta = (0, 0, 1); expected a tuple (w, b).
    """
    expect_returned(name, got, where)
    _require(isinstance(got, (tuple, list)),
             f"{name} returned a {type(got).__name__} on {where}; expected a tuple ({', '.join(names)}).")
    _require(len(got) == len(names),
             f"{name} returned {len(got)} values on {where}; expected {len(names)}: ({', '.join(names)}).")
    return got


def expect_unchanged(name, before, after, what):
    """Check that the function did not change its input array in place (``before`` is a copy taken first)."""
    _require(np.array_equal(before, after),
             f"{name} changed its argument {what} in place. Work on a copy (for example {what} = {what}.copy()) "
             "or build new arrays (w + y * x rather than w += y * x).")


def check_this_notebook():
    """Check this notebook as grading will run it, and print what is left to fix: the last cell of every assignment.

    It runs ``perceptron-check`` on the notebook's saved file (in Colab, on
    its current contents) in a fresh Python, never in this kernel; see
    :mod:`perceptron_course.notebook_check`.  When the check or grading runs
    the notebook, and so this cell, it only says that it starts no check.
    """
    if os.environ.get(RUNNER_ENVIRONMENT):
        print(NOT_RUN_HERE)
        return
    from perceptron_course.notebook_check import check_this_notebook as check

    check()
