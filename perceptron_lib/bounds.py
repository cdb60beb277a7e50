"""Mistake bounds beyond the separable case, and the data sets that show their limits.

Freund and Schapire's bound for data that no hyperplane separates (in terms of
the hinge deviations of a reference hyperplane), a family of data sets on which
Novikoff's bound ``(R / gamma)^2`` is met exactly, and a family on which the
largest margin is exponentially small in the dimension.  Like the rest of the
theory helpers, everything here is about the perceptron through the origin;
for a separator with an offset, apply it to ``absorb_offset(X)``.
"""

import numpy as np

from ._validation import check_labels, check_positive_int, check_weights, check_X

__all__ = [
    "hinge_deviations",
    "deviation_mistake_bound",
    "make_tight",
    "make_small_margin",
    "small_margin_weights",
]


def _unit_reference(X, y, w, gamma):
    X = check_X(X)
    y = check_labels(y, n_samples=X.shape[0])
    w = check_weights(w, X.shape[1])
    norm = float(np.linalg.norm(w))
    if norm == 0:
        raise ValueError("w must be non-zero: the zero vector defines no hyperplane.")
    if not (np.isfinite(gamma) and gamma > 0):
        raise ValueError(f"gamma must be a positive finite number. Got {gamma!r} instead.")
    return X, y, w / norm, float(gamma)


def hinge_deviations(X, y, w, gamma):
    """How far each example falls short of the margin ``gamma`` along the unit vector ``w / ||w||``.

    ``d_i = max(0, gamma - y_i (u @ x_i))`` with ``u = w / ||w||``: zero for an
    example on its correct side by at least ``gamma``, positive otherwise (more
    than ``gamma`` for an example on the wrong side).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), labels -1 or +1
    w : array-like of shape (n_features,), non-zero
        The reference hyperplane ``w @ x = 0``; only its direction matters.
    gamma : float, > 0
        The target margin.

    Returns
    -------
    ndarray of shape (n_samples,)

    Examples
    --------
    >>> hinge_deviations([[2.0, 0.0], [0.5, 0.0], [-1.0, 0.0]], [1, 1, 1], [1.0, 0.0], 1.0)
    array([0. , 0.5, 2. ])
    """
    X, y, u, gamma = _unit_reference(X, y, w, gamma)
    return np.maximum(0.0, gamma - y * (X @ u))


def deviation_mistake_bound(X, y, w, gamma, *, epochs=1):
    """Freund and Schapire's bound ``((R + D) / gamma)^2`` for data that need not be separable.

    ``R`` is the largest norm of an example, and ``D`` the Euclidean norm of the
    :func:`hinge_deviations` over the whole sequence the perceptron sees: the
    examples in order, repeated ``epochs`` times, so ``D = sqrt(epochs * sum(d_i^2))``.
    The perceptron through the origin makes at most this many updates on that
    sequence, whatever ``w`` and ``gamma`` are (Freund and Schapire 1999, Theorem 2).
    On data that ``w`` separates with margin ``gamma``, ``D = 0`` and this is
    Novikoff's bound.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), labels -1 or +1
    w : array-like of shape (n_features,), non-zero
    gamma : float, > 0
    epochs : int, default=1
        How many times the sequence is repeated.

    Returns
    -------
    float

    Examples
    --------
    >>> deviation_mistake_bound([[1.0, 0.0], [0.0, 1.0]], [1, -1], [1.0, 0.0], 0.5)
    9.0
    """
    epochs = check_positive_int(epochs, "epochs")
    X, y, u, gamma = _unit_reference(X, y, w, gamma)
    deviations = np.maximum(0.0, gamma - y * (X @ u))
    radius = float(np.sqrt(np.einsum("ij,ij->i", X, X).max()))
    total_deviation = float(np.sqrt(epochs * np.sum(deviations**2)))
    return float(((radius + total_deviation) / gamma) ** 2)


def make_tight(k, *, radius=1.0, random_state=None):
    """``k`` examples on which the perceptron makes exactly ``(R / gamma)^2 = k`` mistakes.

    Example ``i`` is ``x_i = radius * y_i * e_i``, with ``e_i`` the ``i``-th unit
    vector of ``R^k`` and a random label ``y_i``, so that the vectors ``y_i x_i``
    are orthogonal and of equal length. The best separator through the origin is
    ``w_star = (1, ..., 1) / sqrt(k)``, with margin ``radius / sqrt(k)``, so the
    smallest bound ``(R / gamma)^2`` over all separators is ``k``; the perceptron
    through the origin makes exactly ``k`` mistakes on these examples, in every order.

    Parameters
    ----------
    k : int, >= 1
        The number of examples, the dimension, and the bound.
    radius : float, default=1.0
        The length of every example.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the labels.

    Returns
    -------
    X : ndarray of shape (k, k)
    y : ndarray of shape (k,), labels -1 or +1
    w_star : ndarray of shape (k,), the unit separator with the largest margin.

    Examples
    --------
    >>> from perceptron_lib import mistake_bound, train_perceptron
    >>> X, y, w_star = make_tight(5, random_state=0)
    >>> round(mistake_bound(X, y, w_star), 9), train_perceptron(X, y, fit_intercept=False).n_mistakes
    (5.0, 5)
    """
    k = check_positive_int(k, "k")
    if not (np.isfinite(radius) and radius > 0):
        raise ValueError(f"radius must be a positive finite number. Got {radius!r} instead.")
    rng = np.random.default_rng(random_state)
    y = rng.choice(np.array([-1.0, 1.0]), size=k)
    X = radius * np.diag(y)
    w_star = np.full(k, 1.0 / np.sqrt(k))
    return X, y, w_star


def small_margin_weights(d):
    """The integers ``a_1, ..., a_d`` with ``a_1 = 1``, ``a_2 = 2`` and ``a_{j+1} = a_j + a_{j-1} + 1``.

    They are the coordinates of the integer separator of :func:`make_small_margin`
    that has score exactly 1 on every example; ``a_j = F_{j+2} - 1`` with ``F``
    the Fibonacci numbers, so they grow like ``1.618^j``.

    Examples
    --------
    >>> small_margin_weights(6)
    array([ 1,  2,  4,  7, 12, 20])
    """
    d = check_positive_int(d, "d")
    a = np.empty(d, dtype=np.int64)
    for j in range(d):
        a[j] = 1 if j == 0 else 2 if j == 1 else a[j - 1] + a[j - 2] + 1
    return a


def make_small_margin(d):
    """``d`` examples in ``R^d`` with entries in {-1, 0, 1} whose largest margin is below ``1 / a_d``.

    All labels are +1 and the examples are ``e_1``, ``e_2 - e_1`` and
    ``e_{j+1} - e_j - e_{j-1}`` for ``j = 2, ..., d - 1``. A separator ``w``
    through the origin must have ``w_{j+1} > w_j + w_{j-1}``, so its coordinates
    grow like Fibonacci numbers: every unit separator has margin at most
    ``1 / a_d`` (see :func:`small_margin_weights`), and every integer separator,
    which is what the perceptron finds on integer data, has ``w_d >= a_d``.

    Parameters
    ----------
    d : int, >= 2

    Returns
    -------
    X : ndarray of shape (d, d)
    y : ndarray of shape (d,), all +1
    w_sep : ndarray of shape (d,), the integer separator ``(a_1, ..., a_d)``,
        with ``X @ w_sep`` equal to 1 for every example.

    Examples
    --------
    >>> X, y, w_sep = make_small_margin(4)
    >>> X
    array([[ 1.,  0.,  0.,  0.],
           [-1.,  1.,  0.,  0.],
           [-1., -1.,  1.,  0.],
           [ 0., -1., -1.,  1.]])
    >>> X @ w_sep
    array([1., 1., 1., 1.])
    """
    d = check_positive_int(d, "d")
    if d < 2:
        raise ValueError(f"d must be an int in the range [2, inf). Got {d!r} instead.")
    X = np.eye(d)
    X[1, 0] = -1.0
    for j in range(2, d):
        X[j, j - 1] = -1.0
        X[j, j - 2] = -1.0
    return X, np.ones(d), small_margin_weights(d).astype(np.float64)
