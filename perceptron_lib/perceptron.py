"""The perceptron: functions in the course's notation, and the estimator class.

``perceptron_update`` is one step of the online protocol; ``train_perceptron``
is the cyclic (batch) algorithm that repeats passes until a pass makes no
mistake; :class:`Perceptron` wraps the same pass in a scikit-learn style API.
"""

from collections import namedtuple

import numpy as np

from ._base import OnlineLinearClassifier, _OnlinePass
from ._engine import MistakeFinder, single_threaded_blas
from ._validation import check_positive_int, check_X_y

__all__ = ["Perceptron", "perceptron_update", "train_perceptron", "TrainingResult"]

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
    finder = MistakeFinder(X, y, bool(fit_intercept))
    with single_threaded_blas():
        for epoch in range(1, max_epochs + 1):
            if state.run_epoch(finder) == 0:
                return TrainingResult(state.w, float(state.b), state.mistakes, epoch, True)
    return TrainingResult(state.w, float(state.b), state.mistakes, max_epochs, False)


class Perceptron(OnlineLinearClassifier):
    """Rosenblatt's perceptron, trained by cyclic passes until a pass makes no mistake.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an offset ``intercept_``; when False the plane passes through the origin.
    max_epochs : int, default=1000
        Upper limit on the number of passes over the data. Stopping there without
        an error-free pass raises a :class:`ConvergenceWarning`.
    shuffle : bool, default=False
        Visit the examples in a fresh random order in every epoch.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the shuffling; used only when ``shuffle=True``.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weight vector ``w``.
    intercept_ : float
        The offset ``b`` (0.0 when ``fit_intercept=False``).
    n_mistakes_ : int
        Number of updates made, over all epochs.
    n_epochs_ : int
        Number of passes made, including the final error-free one.
    converged_ : bool
        Whether the last pass made no mistake.

    Notes
    -----
    On each example ``(x, y)`` the model predicts with the sign of
    ``w @ x + b``. When ``y (w @ x + b) <= 0`` (a point on the plane counts as a
    mistake) it updates ``w <- w + y x`` and ``b <- b + y``, which raises the
    score of that example by ``||x||^2 + 1``. On data separable with margin
    ``gamma`` inside a ball of radius ``R`` it makes at most ``(R / gamma)^2``
    mistakes (Novikoff, 1962).

    The examples are not visited one by one in Python: each block of examples
    is scored with one matrix product, and training jumps to the first mistake
    in the block.  The updates are exactly those of the one-example loop.

    References
    ----------
    F. Rosenblatt (1958). The perceptron: a probabilistic model for information
    storage and organization in the brain. Psychological Review 65(6).

    Examples
    --------
    >>> from perceptron_lib import Perceptron
    >>> X = [[1, 0], [0, -1], [0, 1], [-1, 0]]
    >>> y = [1, -1, 1, -1]
    >>> model = Perceptron(fit_intercept=False).fit(X, y)
    >>> model.coef_, model.n_mistakes_, model.n_epochs_
    (array([1., 1.]), 2, 2)
    >>> model.predict([[2, 1], [-1, -3]])
    array([ 1, -1])
    """
