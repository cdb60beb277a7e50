"""The library tests' named data sets, and the fixture that runs a test on each engine."""

import numpy as np
import pytest

import perceptron_lib as pl


def _overlapping(seed):
    """Two overlapping Gaussian classes: the perceptron makes a mistake on about one example in five."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(400) < 0.5, -1.0, 1.0)
    return rng.normal(size=(400, 5)) + 0.5 * y[:, None] + 0.3, y


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
    "overlapping_classes": lambda: (*_overlapping(7), False),
}


@pytest.fixture(params=["compiled", "small_data", "small_data_norm_bound", "large_data", "large_data_many_mistakes"])
def screen(request, monkeypatch):
    """Run a test with the compiled kernel and with each of the numpy engine's screens.

    The compiled kernel runs the loop in C and hands close calls back to numpy.
    Without it, small data is screened with a double-precision copy, and
    ``small_data_norm_bound`` computes ``||(w, b)||`` only once per epoch, so
    that the bound each update grows it by carries the whole epoch.  Large
    data is screened directly on X for the first epochs and then with a
    single-precision copy (``large_data``), or, after an epoch with many
    mistakes, with a double-precision copy (``large_data_many_mistakes``).
    Setting the size limit to 0 sends the named data sets down the large path,
    where every mistake counts as many.
    """
    from perceptron_lib import _engine

    if request.param == "compiled":
        if _engine.compiled_kernel() is None:
            pytest.skip("the compiled kernel was not built (no C compiler at install time) or is switched off")
        return request.param
    monkeypatch.setattr(_engine, "_kernel_module", False)
    if request.param == "small_data_norm_bound":
        monkeypatch.setattr(_engine, "_NORM_REFRESH", 10**9)
    elif request.param.startswith("large_data"):
        monkeypatch.setattr(_engine, "_SMALL_DATA", 0)
        if request.param == "large_data":
            monkeypatch.setattr(_engine, "_MISTAKE_COST", 0)
    return request.param


@pytest.fixture(params=["compiled", "numpy"])
def multiclass_engine(request, monkeypatch):
    """Run a multiclass test with the compiled kernel and with the numpy engine's blocks."""
    from perceptron_lib import _engine

    if request.param == "compiled":
        if _engine.compiled_kernel() is None:
            pytest.skip("the compiled kernel was not built (no C compiler at install time) or is switched off")
    else:
        monkeypatch.setattr(_engine, "_kernel_module", False)
    return request.param


@pytest.fixture(params=sorted(DATASETS), ids=sorted(DATASETS))
def dataset(request):
    X, y, separable = DATASETS[request.param]()
    return request.param, X, y, separable
