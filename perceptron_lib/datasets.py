"""Data sets for the book, the assignments and the tests.

Separable data with a guaranteed margin, data that no hyperplane separates
(XOR, flipped labels), and the worked examples of the course notes, each
returned as plain numpy arrays with labels -1 and +1.
"""

from collections import namedtuple

import numpy as np

from ._validation import check_labels, check_positive_int, check_X

__all__ = [
    "make_separable",
    "make_xor",
    "flip_labels",
    "four_point_example",
    "offset_update_example",
    "one_dimensional_example",
    "OffsetUpdateExample",
]


def make_separable(n_samples, n_features, *, margin, radius=1.0, random_state=None):
    """Random points in a ball, separated through the origin with at least a given margin.

    A unit vector ``w_star`` is drawn at random. Each point gets a component along
    ``w_star`` of size between ``margin`` and ``radius`` (with a random sign,
    which is its label) and a random orthogonal part that keeps it inside the
    ball of the given radius.

    Parameters
    ----------
    n_samples : int
    n_features : int
    margin : float
        Every point is at least this far from the plane ``w_star @ x = 0``;
        must satisfy ``0 < margin < radius``.
    radius : float, default=1.0
        Every point has norm at most ``radius``.
    random_state : int, numpy.random.Generator or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), labels -1 or +1
    w_star : ndarray of shape (n_features,), a unit vector with
        ``y * (X @ w_star) >= margin`` for every sample.

    Examples
    --------
    >>> from perceptron_lib import margin, radius
    >>> X, y, w_star = make_separable(200, 5, margin=0.1, random_state=0)
    >>> X.shape, bool(margin(X, y, w_star) >= 0.1), bool(radius(X) <= 1.0)
    ((200, 5), True, True)
    """
    n_samples = check_positive_int(n_samples, "n_samples")
    n_features = check_positive_int(n_features, "n_features")
    if not (np.isfinite(radius) and radius > 0):
        raise ValueError(f"radius must be a positive finite number. Got {radius!r} instead.")
    if not (np.isfinite(margin) and 0 < margin < radius):
        raise ValueError(f"margin must be in the open range (0, radius) = (0, {radius}). Got {margin!r} instead.")
    rng = np.random.default_rng(random_state)
    w_star = rng.normal(size=n_features)
    w_star /= np.linalg.norm(w_star)
    y = rng.choice(np.array([-1.0, 1.0]), size=n_samples)
    along = rng.uniform(margin, radius, size=n_samples)
    # A random direction orthogonal to w_star, scaled to stay inside the ball.
    other = rng.normal(size=(n_samples, n_features))
    other -= np.outer(other @ w_star, w_star)
    norms = np.linalg.norm(other, axis=1, keepdims=True)
    np.divide(other, norms, out=other, where=norms > 0)
    room = np.sqrt(np.maximum(radius**2 - along**2, 0.0))
    # Uniform in the (d-1)-ball of that size (the orthogonal part is zero when d = 1).
    scale = room * rng.uniform(size=n_samples) ** (1.0 / max(n_features - 1, 1))
    X = (y * along)[:, None] * w_star + scale[:, None] * other
    return X, y, w_star


def make_xor(n_samples=200, *, spread=0.25, random_state=None):
    """Four clusters at the corners of a square, labelled like XOR: no line separates them.

    Points near ``(1, 1)`` and ``(-1, -1)`` are labelled +1, points near ``(1, -1)``
    and ``(-1, 1)`` are labelled -1.

    Parameters
    ----------
    n_samples : int, default=200
    spread : float, default=0.25
        Standard deviation of each cluster.
    random_state : int, numpy.random.Generator or None, default=None

    Returns
    -------
    X : ndarray of shape (n_samples, 2)
    y : ndarray of shape (n_samples,)

    Examples
    --------
    >>> X, y = make_xor(8, spread=0.0)
    >>> X[:4], y[:4]
    (array([[ 1.,  1.],
           [ 1., -1.],
           [-1.,  1.],
           [-1., -1.]]), array([ 1., -1., -1.,  1.]))
    """
    n_samples = check_positive_int(n_samples, "n_samples")
    if not (np.isfinite(spread) and spread >= 0):
        raise ValueError(f"spread must be a non-negative finite number. Got {spread!r} instead.")
    rng = np.random.default_rng(random_state)
    corners = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    which = np.arange(n_samples) % 4
    X = corners[which] + spread * rng.normal(size=(n_samples, 2))
    y = corners[which, 0] * corners[which, 1]
    return X, y


def flip_labels(y, fraction, *, random_state=None):
    """Return a copy of ``y`` with a given fraction of its labels flipped at random.

    Parameters
    ----------
    y : array-like of shape (n_samples,), labels -1 or +1
    fraction : float in [0, 1]
    random_state : int, numpy.random.Generator or None, default=None

    Returns
    -------
    ndarray of shape (n_samples,)

    Examples
    --------
    >>> y = [1, 1, 1, 1, -1, -1, -1, -1]
    >>> int((flip_labels(y, 0.25, random_state=0) != y).sum())
    2
    """
    y = check_labels(y)
    if not (0 <= fraction <= 1):
        raise ValueError(f"fraction must be in the range [0, 1]. Got {fraction!r} instead.")
    rng = np.random.default_rng(random_state)
    flipped = y.copy()
    chosen = rng.choice(y.shape[0], size=int(round(fraction * y.shape[0])), replace=False)
    flipped[chosen] *= -1
    return flipped


def four_point_example():
    """The four-point example of the notes, separable through the origin.

    ``(1, 0)`` and ``(0, 1)`` are positive, ``(0, -1)`` and ``(-1, 0)`` negative, in
    the notes' order p1 = (1, 0), p2 = (0, -1), p3 = (0, 1), p4 = (-1, 0).
    Starting from zero without an offset, the perceptron updates on p1 and p2
    and stops at ``w = (1, 1)``.

    Returns
    -------
    X : ndarray of shape (4, 2)
    y : ndarray of shape (4,)
    """
    X = np.array([[1.0, 0.0], [0.0, -1.0], [0.0, 1.0], [-1.0, 0.0]])
    y = np.array([1.0, -1.0, 1.0, -1.0])
    return X, y


OffsetUpdateExample = namedtuple("OffsetUpdateExample", "w b x y w_after b_after next_x next_y")


def offset_update_example():
    """The worked update with an offset from the notes.

    From ``w = (1, -1)``, ``b = 1``, the positive point ``x = (1, 3)`` scores
    ``1 - 3 + 1 = -1``: a mistake. The update gives ``w = (2, 2)``, ``b = 2``, which
    in turn gets the negative point ``(-1.5, 1.5)`` wrong (it scores 2).

    Returns
    -------
    OffsetUpdateExample
        Named fields ``w, b, x, y, w_after, b_after, next_x, next_y``.
    """
    return OffsetUpdateExample(
        w=np.array([1.0, -1.0]),
        b=1.0,
        x=np.array([1.0, 3.0]),
        y=1,
        w_after=np.array([2.0, 2.0]),
        b_after=2.0,
        next_x=np.array([-1.5, 1.5]),
        next_y=-1,
    )


def one_dimensional_example():
    """Points 1, 2, 3, 4 on a line, labelled +1, +1, -1, -1.

    The threshold 2.5 separates them (``w = -1``, ``b = 2.5``), but no line
    through the origin does: every ``w x`` has the same sign for all four
    positive inputs. After :func:`absorb_offset` they are separable through the
    origin.

    Returns
    -------
    X : ndarray of shape (4, 1)
    y : ndarray of shape (4,)
    """
    return np.array([[1.0], [2.0], [3.0], [4.0]]), np.array([1.0, 1.0, -1.0, -1.0])
