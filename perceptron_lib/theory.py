"""The geometry and the quantities of the convergence theorem.

Signed distance to a hyperplane, margins, the radius of a data set, the
mistake bound ``(R / gamma)^2``, and the lifting that absorbs the offset into
the weights.
"""

import numpy as np

from ._validation import check_labels, check_weights, check_X

__all__ = [
    "absorb_offset",
    "split_offset",
    "signed_distance",
    "margin",
    "radius",
    "mistake_bound",
    "is_separated",
]


def absorb_offset(X, *, constant=1.0):
    """Append a constant coordinate, so that ``w @ x + b`` becomes ``theta @ (x, constant)`` with ``theta = (w, b / constant)``.

    :func:`split_offset` turns ``theta`` back into ``(w, b)``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    constant : float, default=1.0
        The value of the new coordinate. Its size matters for the mistake bound:
        it enters the radius ``R`` of the lifted data.

    Returns
    -------
    ndarray of shape (n_samples, n_features + 1)

    Examples
    --------
    >>> absorb_offset([[1.0], [2.0]])
    array([[1., 1.],
           [2., 1.]])
    """
    X = check_X(X)
    if not np.isfinite(constant) or constant == 0:
        raise ValueError(f"constant must be a finite non-zero number. Got {constant!r} instead.")
    return np.hstack([X, np.full((X.shape[0], 1), float(constant))])


def split_offset(theta, *, constant=1.0):
    """Undo :func:`absorb_offset` on a weight vector: return ``(w, b)``.

    Parameters
    ----------
    theta : array-like of shape (n_features + 1,)
    constant : float, default=1.0
        The constant used when lifting; ``b = constant * theta[-1]``.

    Returns
    -------
    w : ndarray of shape (n_features,)
    b : float

    Examples
    --------
    >>> split_offset([-1.0, 2.5])
    (array([-1.]), 2.5)
    """
    theta = np.asarray(theta, dtype=np.float64)
    if theta.ndim != 1 or theta.shape[0] < 2:
        raise ValueError(f"theta must be a 1-D vector with at least 2 entries (weights, then offset). Got shape {theta.shape}.")
    return theta[:-1].copy(), float(constant * theta[-1])


def _plane(X, w, b):
    X = check_X(X)
    w = check_weights(w, X.shape[1])
    norm = float(np.linalg.norm(w))
    if norm == 0:
        raise ValueError("w must be non-zero: the zero vector defines no hyperplane.")
    if not np.isfinite(b):
        raise ValueError(f"b must be finite. Got {b!r} instead.")
    return X, w, float(b), norm


def signed_distance(X, w, b=0.0):
    """Signed distance of each point to the hyperplane ``w @ x + b = 0``.

    Positive on the side ``w`` points to, negative on the other side.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    w : array-like of shape (n_features,), non-zero
    b : float, default=0.0

    Returns
    -------
    ndarray of shape (n_samples,)

    Examples
    --------
    >>> signed_distance([[3.0, 4.0], [0.0, 0.0]], [3.0, 4.0], -5.0)
    array([ 4., -1.])
    """
    X, w, b, norm = _plane(X, w, b)
    return (X @ w + b) / norm


def margin(X, y, w, b=0.0):
    """Margin of a data set with respect to a hyperplane: ``min_i y_i (w @ x_i + b) / ||w||``.

    It is positive exactly when the hyperplane separates the data, and is then
    the distance from the plane to the closest point.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), labels -1 or +1
    w : array-like of shape (n_features,), non-zero
    b : float, default=0.0

    Returns
    -------
    float

    Examples
    --------
    >>> margin([[1, 0], [0, -1], [0, 1], [-1, 0]], [1, -1, 1, -1], [1, 1])
    0.7071067811865475
    """
    X, w, b, norm = _plane(X, w, b)
    y = check_labels(y, n_samples=X.shape[0])
    return float(np.min(y * (X @ w + b)) / norm)


def radius(X):
    """Radius of the smallest origin-centred ball holding the data: ``max_i ||x_i||``.

    Examples
    --------
    >>> radius([[3, 4], [1, 0]])
    5.0
    """
    X = check_X(X)
    return float(np.sqrt(np.einsum("ij,ij->i", X, X).max()))


def is_separated(X, y, w, b=0.0):
    """True when every point is strictly on its own side: ``y_i (w @ x_i + b) > 0`` for all i."""
    X = check_X(X)
    y = check_labels(y, n_samples=X.shape[0])
    w = check_weights(w, X.shape[1])
    return bool(np.all(y * (X @ w + b) > 0))


def mistake_bound(X, y, w, b=0.0):
    """Novikoff's bound ``(R / gamma)^2`` on the perceptron's mistakes, for one separator.

    ``R`` is :func:`radius` of ``X`` and ``gamma`` the :func:`margin` of ``(w, b)``.
    The bound holds for the perceptron through the origin, with ``b = 0``.
    With ``b != 0`` the value is not a bound on any perceptron's mistakes: for
    the perceptron with an offset and the separator ``(w, b)``, call
    ``mistake_bound(absorb_offset(X), y, np.append(w, b))``, which is
    ``(R^2 + 1) (1 + D^2) / gamma^2`` with ``D = |b| / ||w||``.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), labels -1 or +1
    w : array-like of shape (n_features,), non-zero
    b : float, default=0.0

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``(w, b)`` does not separate the data (its margin is not positive).

    Examples
    --------
    >>> mistake_bound([[1, 0], [0, -1], [0, 1], [-1, 0]], [1, -1, 1, -1], [1, 1])
    2.0000000000000004
    """
    gamma = margin(X, y, w, b)
    if gamma <= 0:
        raise ValueError(
            f"The hyperplane (w, b) does not separate the data: its margin is {gamma:.6g}, but the bound "
            "needs a separator with a positive margin."
        )
    return float((radius(X) / gamma) ** 2)
