"""The library tests' named data sets, and the fixture that runs a test on each engine."""

import numpy as np
import pytest

import perceptron_lib as pl


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
