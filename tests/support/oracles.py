"""The library tests' oracles, the plain one-example-at-a-time loops every model must match bit
for bit, and the data made to test the engines' rounding bounds at their edges: scores that
overflow, norms that underflow."""

import numpy as np


def plain_perceptron(X, y, *, fit_intercept=True, max_epochs=1000, orders=None, sample_weight=None):
    """The textbook loop, one example at a time: the oracle for exactness.

    Returns the final weights, offset, mistake count, epoch count, the
    weights held after every visit (for the averaged and voted models), and
    whether the last epoch made no mistake.
    ``orders`` optionally gives the visiting order of each epoch;
    ``sample_weight`` the size ``s`` of each example's update ``w += s y x``.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    s = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    w = np.zeros(X.shape[1])
    b = 0.0
    mistakes = 0
    history = []
    epochs = 0
    for epoch in range(max_epochs):
        order = range(len(y)) if orders is None else orders[epoch]
        made = 0
        for i in order:
            if y[i] * (X[i] @ w + b) <= 0:
                w = w + (s[i] * y[i]) * X[i]
                if fit_intercept:
                    b = b + s[i] * y[i]
                made += 1
            history.append((w.copy(), b))
        mistakes += made
        epochs += 1
        if made == 0:
            break
    return w, b, mistakes, epochs, history, made == 0


def plain_multiclass_perceptron(X, y, n_classes, *, fit_intercept=True, max_epochs=1000, orders=None, sample_weight=None):
    """The textbook multiclass loop: the oracle for exactness.

    ``y`` holds class indices.  On each visit the rival is the best other class
    (lowest index on a tie), and a tie with the true class is a mistake.
    Returns the final weights and offsets, mistakes, epochs, and the weights
    held after every visit.
    """
    X = np.asarray(X, dtype=float)
    s = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    W = np.zeros((n_classes, X.shape[1]))
    b = np.zeros(n_classes)
    mistakes, epochs, history = 0, 0, []
    for epoch in range(max_epochs):
        made = 0
        for i in (range(len(y)) if orders is None else orders[epoch]):
            scores = W @ X[i] + b
            others = scores.copy()
            others[y[i]] = -np.inf
            rival = int(np.argmax(others))
            if others[rival] >= scores[y[i]]:
                W[y[i]] = W[y[i]] + s[i] * X[i]
                W[rival] = W[rival] - s[i] * X[i]
                if fit_intercept:
                    b[y[i]] = b[y[i]] + s[i]
                    b[rival] = b[rival] - s[i]
                made += 1
            history.append((W.copy(), b.copy()))
        mistakes += made
        epochs += 1
        if made == 0:
            break
    return W, b, mistakes, epochs, history


def overflowing_data(seed, n_classes=2):
    """Small integer data scaled by 10^k, |k| < 200: with such weights, a score's terms can
    overflow when added in one order and not in another, so no rounding bound holds."""
    rng = np.random.default_rng(seed)
    n, d = int(rng.integers(5, 120)), int(rng.integers(1, 30))
    X = rng.integers(-3, 4, size=(n, d)).astype(float) * 10.0 ** rng.integers(-200, 200)
    if n_classes == 2:
        y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
        y[:2] = [1, -1]
    else:
        y = rng.integers(0, n_classes, size=n)
        y[:n_classes] = range(n_classes)
    return X, y


def tiny_norm_data(seed):
    """Near ties (rows moved by a few units in the last place) trained with weights
    about 1e-170 (or data about 1e-170 with sample weights about 1e170): the sum of
    squares of the weights, or of the data, underflows while the scores do not."""
    rng = np.random.default_rng(seed)
    n, d, tiny_data = int(rng.integers(5, 150)), int(rng.integers(1, 30)), seed % 3 == 1
    base = rng.integers(-4, 5, size=(n // 3 + 1, d)).astype(float)
    X = np.vstack([base, base + rng.choice([-1, 1], size=base.shape) * 2.0**-50, base * (1 + 2.0**-52)])[:n]
    if tiny_data:
        X = X * 1e-170
    y = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    y[:2] = [1, -1]
    sample_weight = np.full(n, 1e170 if tiny_data else 1e-170) * rng.integers(1, 3, size=n)
    return X, y, sample_weight
