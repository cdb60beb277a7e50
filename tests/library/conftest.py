"""Shared data for the library tests, and the plain loop every model must match."""

import numpy as np
import pytest

import perceptron_lib as pl


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


def _noisy(seed):
    X, y, _ = pl.make_separable(150, 4, margin=0.05, random_state=seed)
    return X + 0.3, pl.flip_labels(y, 0.1, random_state=seed)


# Named training sets: (X, y, separable?)
DATASETS = {
    "four_point": lambda: (*pl.four_point_example(), True),
    "one_dimensional": lambda: (*pl.one_dimensional_example(), True),
    "separable_2d": lambda: (*pl.make_separable(60, 2, margin=0.1, random_state=3)[:2], True),
    "separable_shifted_10d": lambda: ((lambda X, y: (X + 0.5, y))(*pl.make_separable(300, 10, margin=0.05, random_state=4)[:2]) + (True,)),
    "integer_grid_ties": lambda: (np.array([[0, 1], [1, 0], [1, 1], [-1, 0], [0, -1], [-1, -1], [2, -2], [-2, 2]], float),
                                  np.array([1, 1, 1, -1, -1, -1, 1, -1], float), False),
    "xor": lambda: (*pl.make_xor(40, random_state=5), False),
    "noisy_labels": lambda: (*_noisy(6), False),
}


@pytest.fixture(params=["compiled", "small_data", "large_data"])
def screen(request, monkeypatch):
    """Run a test with the compiled kernel and with each of the numpy engine's screens.

    The compiled kernel runs the loop in C and hands close calls back to numpy.
    Without it, small data is screened with a double-precision copy; large data
    directly on X for the first epochs and with a single-precision copy after
    them.  Setting the size limit to 0 sends the named data sets down the large
    path.
    """
    from perceptron_lib import _engine

    if request.param == "compiled":
        if _engine.compiled_kernel() is None:
            pytest.skip("the compiled kernel was not built (no C compiler at install time) or is switched off")
    else:
        monkeypatch.setattr(_engine, "_kernel_module", False)
        if request.param == "large_data":
            monkeypatch.setattr(_engine, "_SMALL_DATA", 0)
    return request.param


@pytest.fixture(params=sorted(DATASETS), ids=sorted(DATASETS))
def dataset(request):
    X, y, separable = DATASETS[request.param]()
    return request.param, X, y, separable
