"""The perceptron in the course's notation: labels -1 and +1, weights ``w`` and offset ``b``.

``perceptron_update`` is one step of the online protocol; ``train_perceptron``
is the cyclic (batch) algorithm that repeats passes until a pass makes no
mistake.  The estimator :class:`perceptron_lib.Perceptron` trains with the same
pass (see :mod:`perceptron_lib.estimators`).
"""

from collections import namedtuple

import numpy as np

from ._base import _OnlinePass, run_epochs
from ._engine import MistakeFinder
from ._validation import check_positive_int, check_X_y

__all__ = ["perceptron_update", "train_perceptron", "TrainingResult"]

TrainingResult = namedtuple("TrainingResult", "w b n_mistakes n_epochs converged")
TrainingResult.__doc__ = """What ``train_perceptron`` returns: the weights ``w``, the offset ``b``,
the total number of mistakes, the number of epochs run, and whether the last
epoch made no mistake."""


def perceptron_update(w, b, x, y):
    """One step of the online protocol: predict ``x``, and update if that was a mistake.

    Parameters
    ----------
    w : ndarray of shape (n_features,)
        Current weights. Not modified.
    b : float
        Current offset.
    x : ndarray of shape (n_features,)
        The example.
    y : {-1, +1}
        Its label.

    Returns
    -------
    w_new : ndarray of shape (n_features,)
    b_new : float
    mistake : bool
        True when ``y * (w @ x + b) <= 0``, in which case ``w_new = w + y x`` and
        ``b_new = b + y``; otherwise the weights come back unchanged (as copies).

    Examples
    --------
    The worked example from the course notes: from ``w = (1, -1)``, ``b = 1``, the
    positive point ``(1, 3)`` scores ``-1``, a mistake.

    >>> import numpy as np
    >>> w, b, mistake = perceptron_update(np.array([1.0, -1.0]), 1.0, np.array([1.0, 3.0]), 1)
    >>> w, b, mistake
    (array([2., 2.]), 2.0, True)
    """
    w = np.asarray(w, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    if w.shape != x.shape or w.ndim != 1:
        raise ValueError(f"w and x must be 1-D vectors of the same length. Got shapes {w.shape} and {x.shape}.")
    if y not in (-1, 1):
        raise ValueError(f"y must be -1 or +1. Got {y!r} instead.")
    if y * (w @ x + b) <= 0:
        return w + y * x, float(b + y), True
    return w.copy(), float(b), False


def train_perceptron(X, y, *, fit_intercept=True, max_epochs=1000):
    """The cyclic perceptron: pass over the data in order until a pass makes no mistake.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Labels, each -1 or +1.
    fit_intercept : bool, default=True
        Learn an offset ``b``; when False the plane passes through the origin.
    max_epochs : int, default=1000
        Upper limit on the number of passes.

    Returns
    -------
    TrainingResult
        ``(w, b, n_mistakes, n_epochs, converged)``.

    Examples
    --------
    The four-point example of the notes: two updates give ``w = (1, 1)``.

    >>> X = [[1, 0], [0, -1], [0, 1], [-1, 0]]
    >>> y = [1, -1, 1, -1]
    >>> train_perceptron(X, y, fit_intercept=False)
    TrainingResult(w=array([1., 1.]), b=0.0, n_mistakes=2, n_epochs=2, converged=True)
    """
    X, y = check_X_y(X, y)
    max_epochs = check_positive_int(max_epochs, "max_epochs")
    state = _OnlinePass(X.shape[1], bool(fit_intercept))
    n_epochs, converged = run_epochs(state, MistakeFinder(X, y, bool(fit_intercept)), max_epochs)
    return TrainingResult(state.w.copy(), state.b, state.mistakes, n_epochs, converged)
