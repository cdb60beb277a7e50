"""A step-by-step record of the online protocol, for tables and animations.

Each step is one visit: the example shown, the score and prediction of the
current weights, whether it was a mistake, and the weights after the visit.
The trace is the plain loop written out; it is meant for the small examples
of the book, and agrees with :class:`Perceptron` on every step.
"""

from collections import namedtuple

import numpy as np

from ._validation import check_positive_int, check_X_y

__all__ = ["TraceStep", "trace_perceptron", "format_trace"]

TraceStep = namedtuple("TraceStep", "epoch index x y score prediction mistake w b")
TraceStep.__doc__ = """One visit of the online protocol.

``epoch`` (from 1) and ``index`` (the row of X) say which example was shown;
``score`` is ``w @ x + b`` before the visit and ``prediction`` its sign (+1 when
> 0, else -1); ``mistake`` is ``y * score <= 0``; ``w`` and ``b`` are the weights
after the visit."""


def trace_perceptron(X, y, *, fit_intercept=True, max_epochs=100):
    """Run the cyclic perceptron and record every visit.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), labels -1 or +1
    fit_intercept : bool, default=True
    max_epochs : int, default=100

    Returns
    -------
    list of TraceStep
        Ends with the first epoch that makes no mistake (all of whose visits are
        included), or after ``max_epochs`` epochs.

    Examples
    --------
    >>> from perceptron_lib import four_point_example
    >>> X, y = four_point_example()
    >>> steps = trace_perceptron(X, y, fit_intercept=False)
    >>> [(s.epoch, s.index, s.mistake) for s in steps if s.mistake]
    [(1, 0, True), (1, 1, True)]
    >>> steps[-1].w
    array([1., 1.])
    """
    X, y = check_X_y(X, y)
    max_epochs = check_positive_int(max_epochs, "max_epochs")
    w = np.zeros(X.shape[1])
    b = 0.0
    steps = []
    for epoch in range(1, max_epochs + 1):
        mistakes = 0
        for i in range(X.shape[0]):
            score = float(X[i] @ w + b)
            mistake = bool(y[i] * score <= 0)
            if mistake:
                w = w + y[i] * X[i]
                if fit_intercept:
                    b = b + y[i]
                mistakes += 1
            steps.append(TraceStep(epoch, i, X[i].copy(), int(y[i]), score, 1 if score > 0 else -1, mistake, w.copy(), float(b)))
        if mistakes == 0:
            break
    return steps


def _vec(v):
    return "(" + ", ".join(f"{float(c):g}" for c in v) + ")"


def format_trace(steps, *, fit_intercept=True):
    """Render a trace as a Markdown table (one row per visit).

    Examples
    --------
    >>> from perceptron_lib import four_point_example
    >>> X, y = four_point_example()
    >>> print(format_trace(trace_perceptron(X, y, fit_intercept=False), fit_intercept=False).splitlines()[2])
    | 1 | 1 | (1, 0) | +1 | 0 | -1 | yes | (1, 0) |
    """
    head = "| epoch | example | x | y | score | prediction | mistake | w after |"
    rule = "|---|---|---|---|---|---|---|---|"
    if fit_intercept:
        head += " b after |"
        rule += "---|"
    rows = [head, rule]
    for s in steps:
        row = (
            f"| {s.epoch} | {s.index + 1} | {_vec(s.x)} | {s.y:+d} | {s.score:g} | {s.prediction:+d} | "
            f"{'yes' if s.mistake else 'no'} | {_vec(s.w)} |"
        )
        if fit_intercept:
            row += f" {s.b:g} |"
        rows.append(row)
    return "\n".join(rows)


def update_angles(steps, w_star):
    """The angle between the weights after each update and a reference direction ``w_star``.

    The convergence proof follows the angle :math:`\\omega_k` between
    :math:`w^{(k)}`, the weights right after the :math:`k`-th update, and a
    separating direction :math:`w^\\ast`: if every example has length at most
    :math:`R` and margin at least :math:`\\gamma` for the unit vector
    :math:`w^\\ast`, then :math:`\\cos\\omega_k \\ge \\sqrt{k}\\,\\gamma/R`.

    Parameters
    ----------
    steps : list of TraceStep
        A trace of the perceptron through the origin, from
        ``trace_perceptron(X, y, fit_intercept=False)`` (or on ``absorb_offset(X)``).
    w_star : array-like of shape (n_features,)
        The reference direction; any non-zero length (only its direction matters).

    Returns
    -------
    ndarray of shape (n_updates,)
        The angle, in radians from 0 to pi, between ``w_star`` and the weights
        after each update, in the order of the updates. An update that brings
        the weights back to zero has no angle: its entry is NaN.

    Raises
    ------
    ValueError
        If ``steps`` is not a list of TraceStep, if the trace has an offset
        (the proof is about the perceptron through the origin), or if
        ``w_star`` is zero, not finite, or of another length than the examples.

    Examples
    --------
    >>> import numpy as np
    >>> from perceptron_lib import four_point_example
    >>> X, y = four_point_example()
    >>> steps = trace_perceptron(X, y, fit_intercept=False)
    >>> np.degrees(update_angles(steps, [1.0, 1.0])).round(6)
    array([45.,  0.])
    """
    steps = list(steps)
    if not all(isinstance(step, TraceStep) for step in steps):
        raise ValueError("steps must be a list of TraceStep, as trace_perceptron returns.")
    if not steps:
        raise ValueError("steps is empty: trace at least one visit with trace_perceptron.")
    with_offset = [step for step in steps if step.b != 0.0]
    if with_offset:
        raise ValueError(
            "update_angles follows the perceptron through the origin, but this trace has an offset "
            f"(b = {with_offset[0].b:g} after visit {steps.index(with_offset[0]) + 1}). Trace with "
            "fit_intercept=False, on absorb_offset(X) to include the offset as a weight."
        )
    n_features = steps[0].w.shape[0]
    direction = np.asarray(w_star, dtype=np.float64)
    if direction.shape != (n_features,):
        raise ValueError(
            f"w_star must have shape ({n_features},) to match the examples of the trace. "
            f"Got shape {direction.shape} instead."
        )
    if not np.isfinite(direction).all() or not np.any(direction):
        raise ValueError(f"w_star must be a finite, non-zero vector. Got {direction!r}.")
    weights = np.array([step.w for step in steps if step.mistake]).reshape(-1, n_features)
    unit = direction / np.linalg.norm(direction)
    along = weights @ unit
    across = np.linalg.norm(weights - along[:, None] * unit, axis=1)
    # atan2 of the two components is accurate for small angles, where arccos of the
    # cosine is not (a cosine of 1 - 1e-16 is an angle of 1e-8).
    angles = np.arctan2(across, along)
    angles[~np.any(weights, axis=1)] = np.nan
    return angles

__all__ += ["update_angles"]
