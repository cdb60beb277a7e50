"""Input checks shared by the plain functions of :mod:`perceptron_lib`, and ``sample_weight``.

The plain functions' validation lives here so that each error message is
written once and reads the same wherever it is raised.  The estimators check
``X`` and ``y`` with scikit-learn's ``validate_data`` instead, whose messages
scikit-learn's estimator checks expect, and their ``sample_weight`` here.
Checks raise ``ValueError`` or ``TypeError``; none of them uses ``assert``,
which ``python -O`` removes.
"""

import numbers

import numpy as np

__all__ = ["check_X", "check_X_y", "check_labels", "check_weights", "check_positive_int", "check_sample_weight"]


def _describe(values):
    shown = ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in values[:10])
    return "[" + shown + (", ..." if len(values) > 10 else "") + "]"


def check_X(X, *, name="X", n_features=None):
    """Return ``X`` as a finite float64 array of shape (n_samples, n_features)."""
    if X is None:
        raise TypeError(f"{name} must be an array-like of shape (n_samples, n_features). Got None instead.")
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be an array-like of numbers with shape (n_samples, n_features); "
            f"it could not be converted to floats ({exc})."
        ) from None
    if arr.ndim != 2:
        hint = " Use X.reshape(-1, 1) for a single feature or X.reshape(1, -1) for a single sample." if arr.ndim == 1 else ""
        raise ValueError(f"{name} must be 2-D with shape (n_samples, n_features). Got an array of shape {arr.shape} instead.{hint}")
    if arr.shape[0] == 0:
        raise ValueError(f"{name} must contain at least one sample. Got shape {arr.shape} instead.")
    if arr.shape[1] == 0:
        raise ValueError(f"{name} must have at least one feature. Got shape {arr.shape} instead.")
    if n_features is not None and arr.shape[1] != n_features:
        raise ValueError(f"{name} has {arr.shape[1]} features, but the model was fitted with {n_features} features.")
    if not np.isfinite(arr).all():
        bad = np.argwhere(~np.isfinite(arr))[0]
        raise ValueError(
            f"{name} must contain only finite values. Found {arr[tuple(bad)]} at row {bad[0]}, column {bad[1]}."
        )
    return np.ascontiguousarray(arr)


def check_labels(y, *, name="y", n_samples=None):
    """Return ``y`` as a float64 vector whose entries are all -1 or +1."""
    if y is None:
        raise TypeError(f"{name} must be an array-like of shape (n_samples,). Got None instead.")
    raw = np.asarray(y)
    if raw.ndim != 1:
        raise ValueError(f"{name} must be 1-D with shape (n_samples,). Got an array of shape {raw.shape} instead.")
    if n_samples is not None and raw.shape[0] != n_samples:
        raise ValueError(f"X has {n_samples} samples but {name} has {raw.shape[0]} labels; they must have the same length.")
    if raw.shape[0] == 0:
        raise ValueError(f"{name} must contain at least one label. Got an empty array.")
    try:
        found = np.unique(raw)
    except TypeError:
        found = np.array(sorted({repr(v) for v in raw.tolist()}), dtype=object)
    if raw.dtype.kind in "biuf" and np.isin(found, (-1, 1)).all():
        return raw.astype(np.float64)
    if raw.dtype.kind == "f" and not np.isfinite(raw).all():
        raise ValueError(f"{name} must contain only the labels -1 and +1. Found non-finite values.")
    hint = ""
    if len(found) == 2:
        a, b = (v.item() if hasattr(v, "item") else v for v in found)
        hint = f" To map them, use np.where({name} == {b!r}, 1, -1) (this makes {b!r} the positive class)."
    raise ValueError(
        f"{name} must contain only the labels -1 and +1. Found labels {_describe(found)}.{hint}"
    )


def check_X_y(X, y):
    """Validate a training set: 2-D finite ``X`` and a label vector ``y`` of matching length."""
    X = check_X(X)
    y = check_labels(y, n_samples=X.shape[0])
    return X, y


def check_weights(w, n_features, *, name="w"):
    """Return a weight vector as float64 of shape (n_features,)."""
    arr = np.asarray(w, dtype=np.float64)
    if arr.shape != (n_features,):
        raise ValueError(f"{name} must have shape ({n_features},) to match X. Got shape {arr.shape} instead.")
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} must contain only finite values.")
    return arr


def check_positive_int(value, name):
    """Check that ``value`` is an int >= 1 (bools are rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be an int in the range [1, inf). Got {value!r} instead.")
    return int(value)


def check_sample_weight(sample_weight, n_samples):
    """Return ``sample_weight`` as a float64 vector of ``n_samples`` finite, non-negative weights.

    ``None`` stays ``None`` (every example has weight 1); a single number is
    every example's weight.
    """
    if sample_weight is None:
        return None
    try:
        arr = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"sample_weight must be an array-like of numbers; it could not be converted to floats ({exc}).") from None
    if arr.ndim == 0:
        arr = np.full(n_samples, float(arr))
    if arr.shape != (n_samples,):
        raise ValueError(
            f"sample_weight must have shape (n_samples,) = ({n_samples},), one weight per example. "
            f"Got shape {arr.shape} instead."
        )
    if not np.isfinite(arr).all():
        raise ValueError("sample_weight must contain only finite values.")
    if (arr < 0).any():
        i = int(np.argmax(arr < 0))
        raise ValueError(f"sample_weight must be non-negative. Found {arr[i]} at index {i}.")
    return arr
