"""The optional compiled epoch loop: built where a compiler is, loaded lazily, and exact on close calls."""

import shutil
import subprocess
import sys
import sysconfig

import numpy as np
import pytest

import perceptron_lib as pl
from perceptron_lib import _engine

from .conftest import plain_perceptron


def compiler_available():
    compiler = (sysconfig.get_config_var("CC") or "").split()
    return bool(compiler) and shutil.which(compiler[0]) is not None


@pytest.fixture
def kernel():
    module = _engine.compiled_kernel()
    if module is None:
        pytest.skip("the compiled kernel was not built (no C compiler at install time) or is switched off")
    return module


@pytest.mark.skipif(not compiler_available(), reason="no C compiler: the numpy engine is the only one")
def test_the_kernel_is_built_where_a_compiler_is(monkeypatch):
    monkeypatch.delenv("PERCEPTRON_LIB_PURE_NUMPY", raising=False)
    monkeypatch.setattr(_engine, "_kernel_module", None)
    assert _engine.compiled_kernel() is not None


PROBE = """
import sys
import perceptron_lib
loaded_on_import = "perceptron_lib._kernel" in sys.modules
perceptron_lib.train_perceptron(*perceptron_lib.four_point_example())
print(loaded_on_import, "perceptron_lib._kernel" in sys.modules)
"""


@pytest.mark.parametrize("pure_numpy, expected", [("", "False True"), ("1", "False False")],
                         ids=["default", "switched_off"])
def test_loaded_on_first_training_only_and_switched_off_by_the_environment(kernel, pure_numpy, expected):
    env = {"PATH": "/usr/bin:/bin", "PERCEPTRON_LIB_PURE_NUMPY": pure_numpy}
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True, env=env).stdout
    assert out.strip() == expected


def close_calls():
    """Integer rows, the same rows moved by a few units in the last place, and scaled by 1 + 2^-52.

    Many scores are exactly 0 or within rounding of it, where the kernel must
    hand the example back to numpy.
    """
    rng = np.random.default_rng(1)
    base = rng.integers(-4, 5, size=(60, 12)).astype(float)
    X = np.vstack([base, base + rng.choice([-1, 1], size=base.shape) * 2.0**-50, base * (1 + 2.0**-52)])
    y = np.where(rng.random(len(X)) < 0.5, -1.0, 1.0)
    return X, y


@pytest.mark.parametrize("fit_intercept", [True, False], ids=["with_offset", "through_origin"])
def test_close_calls_go_back_to_numpy_which_finds_mistakes_and_non_mistakes(kernel, monkeypatch, fit_intercept):
    X, y = close_calls()
    decided_by_numpy = []

    def recording_scan(X, y, step, v, n, d, with_offset, start, max_z_norm, update):
        i, status, made = kernel.scan(X, y, step, v, n, d, with_offset, start, max_z_norm, update)
        if status == 2:
            decided_by_numpy.append(bool(y[i] * (X[i] @ v[:d] + (v[d] if with_offset else 0.0)) <= 0))
        return i, status, made

    monkeypatch.setattr(_engine, "_kernel_module", type("Recording", (), {"scan": staticmethod(recording_scan)}))
    result = pl.train_perceptron(X, y, fit_intercept=fit_intercept, max_epochs=40)
    w, b, mistakes, epochs, _, converged = plain_perceptron(X, y, fit_intercept=fit_intercept, max_epochs=40)
    np.testing.assert_array_equal(result.w, w)
    assert (result.b, result.n_mistakes, result.n_epochs, result.converged) == (b, mistakes, epochs, converged)
    assert True in decided_by_numpy and False in decided_by_numpy


def test_zero_weights_make_a_mistake_without_asking_numpy(kernel):
    X = np.array([[1.0, -2.0], [3.0, 4.0]])
    y = np.array([1.0, -1.0])
    v = np.zeros(3)
    assert kernel.scan(X, y, y, v, 2, 2, True, 0, 6.0, False) == (0, 1, 0)
    assert not v.any()
    # With updates: x_0 is learned, then x_1 scores 3 - 8 + 1 = -4 for label -1: right.
    assert kernel.scan(X, y, y, v, 2, 2, True, 0, 6.0, True) == (2, 0, 1)
    np.testing.assert_array_equal(v, [1.0, -2.0, 1.0])


def test_weights_too_large_to_bound_are_left_to_numpy(kernel):
    X = np.array([[1e200, 1e200]])
    v = np.array([1e200, -1e200, 0.0])
    assert kernel.scan(X, np.ones(1), np.ones(1), v, 1, 2, True, 0, 2e200, True) == (0, 2, 0)


def test_buffers_of_the_wrong_size_are_refused(kernel):
    X, y, v = np.zeros((3, 2)), np.ones(3), np.zeros(3)
    with pytest.raises(ValueError, match="X must hold 8 float64 values, got 48 bytes"):
        kernel.scan(X, y, y, v, 4, 2, True, 0, 1.0, True)
    with pytest.raises(ValueError, match="v must hold 2 float64 values"):
        kernel.scan(X, y, y, v, 3, 2, False, 0, 1.0, True)
    with pytest.raises(ValueError, match="start must be in"):
        kernel.scan(X, y, y, v, 3, 2, True, 4, 1.0, True)
    # A strided view is no contiguous buffer, and read-only weights cannot be updated.
    with pytest.raises(TypeError, match="argument 4 must be read-write bytes-like"):
        kernel.scan(X, y, y, np.zeros(6)[::2], 3, 2, True, 0, 1.0, True)
    v.flags.writeable = False
    with pytest.raises(TypeError, match="argument 4 must be read-write bytes-like"):
        kernel.scan(X, y, y, v, 3, 2, True, 0, 1.0, True)


def test_data_the_kernel_cannot_read_in_place_trains_with_numpy_instead():
    X, y = close_calls()
    fortran = np.asfortranarray(X)
    finder = _engine.MistakeFinder(fortran, y, True)
    assert finder.kernel is None
    result = pl.train_perceptron(fortran, y, max_epochs=40)
    w, b, mistakes, epochs, _, _ = plain_perceptron(X, y, max_epochs=40)
    np.testing.assert_array_equal(result.w, w)
    assert (result.b, result.n_mistakes, result.n_epochs) == (b, mistakes, epochs)
