"""The optional compiled epoch loop: built where a compiler is, loaded lazily, and exact on close calls."""

import shutil
import subprocess
import sys
import sysconfig
import warnings

import numpy as np
import pytest

import perceptron_lib as pl
from perceptron_lib import _engine

from tests.support.oracles import plain_multiclass_perceptron, plain_perceptron


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


# --- the multiclass loop ------------------------------------------------------------------------

def fit_multiclass(X, y, **params):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pl.ConvergenceWarning)
        return pl.MulticlassPerceptron(**params).fit(X, y)


@pytest.mark.parametrize("average", [False, True], ids=["last", "averaged"])
@pytest.mark.parametrize("fit_intercept", [True, False], ids=["with_offset", "through_origin"])
def test_multiclass_close_calls_go_back_to_numpy_which_finds_mistakes_and_non_mistakes(kernel, monkeypatch,
                                                                                     fit_intercept, average):
    X, _ = close_calls()
    y = np.random.default_rng(2).integers(0, 4, size=len(X))
    decided_by_numpy = []

    def recording_scan(X, y, step, W, b, *rest):
        i, status, made = kernel.scan_multiclass(X, y, step, W, b, *rest)
        if status == 2:
            scores = W @ X[i] + b
            others = scores.copy()
            others[y[i]] = -np.inf
            decided_by_numpy.append(bool(others.max() >= scores[y[i]]))
        return i, status, made

    params = dict(fit_intercept=fit_intercept, max_epochs=40, average=average)
    monkeypatch.setattr(_engine, "_kernel_module", False)
    numpy_engine = fit_multiclass(X, y, **params)
    monkeypatch.setattr(_engine, "_kernel_module", type("Recording", (), {"scan_multiclass": staticmethod(recording_scan)}))
    model = fit_multiclass(X, y, **params)
    W, b, mistakes, epochs, _ = plain_multiclass_perceptron(X, y, 4, fit_intercept=fit_intercept, max_epochs=40)
    np.testing.assert_array_equal(model.last_coef_ if average else model.coef_, W)
    np.testing.assert_array_equal(model.last_intercept_ if average else model.intercept_, b)
    assert (model.n_mistakes_, model.n_epochs_) == (mistakes, epochs)
    # The averaging sums the kernel keeps are numpy's, bit for bit.
    np.testing.assert_array_equal(model.coef_, numpy_engine.coef_)
    np.testing.assert_array_equal(model.intercept_, numpy_engine.intercept_)
    assert True in decided_by_numpy and False in decided_by_numpy


def scan_multiclass(kernel, X, y, W, b, sums=(None, None), visits=0, start=0, max_z_norm=None):
    """The kernel's multiclass scan on small arrays, with the sizes taken from them."""
    y = np.asarray(y, dtype=np.intp)
    if max_z_norm is None:
        max_z_norm = _engine.norm_bound(_engine.max_squared_norm(X) + 1.0)
    return kernel.scan_multiclass(X, y, np.ones(len(y)), W, b, *sums, visits, X.shape[0], X.shape[1], W.shape[0],
                                  True, start, max_z_norm)


def test_multiclass_zero_weights_make_a_mistake_against_the_first_other_class(kernel):
    X = np.array([[1.0, -2.0]])
    W, b, U, beta = np.zeros((3, 2)), np.zeros(3), np.zeros((3, 2)), np.zeros(3)
    assert scan_multiclass(kernel, X, [2], W, b, (U, beta), visits=5) == (1, 0, 1)
    np.testing.assert_array_equal(W, [[-1.0, 2.0], [0.0, 0.0], [1.0, -2.0]])
    np.testing.assert_array_equal(b, [-1.0, 0.0, 1.0])
    # Visit 5 (the first example after five earlier visits) adds 5 x to the sums.
    np.testing.assert_array_equal(U, [[-5.0, 10.0], [0.0, 0.0], [5.0, -10.0]])
    np.testing.assert_array_equal(beta, [-5.0, 0.0, 5.0])


def test_multiclass_rival_too_close_to_call_goes_back_to_numpy(kernel):
    # Classes 1 and 2 tie for the best other score: the mistake is certain, the rival is not.
    X = np.array([[1.0, 0.0]])
    W = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    b = np.zeros(3)
    assert scan_multiclass(kernel, X, [0], W, b) == (0, 2, 0)
    np.testing.assert_array_equal(W, [[0.0, 0.0], [1.0, 0.0], [1.0, 0.0]])
    # One class clearly ahead of the other: the kernel updates against it.
    W[2, 0] = 0.5
    assert scan_multiclass(kernel, X, [0], W, b) == (1, 0, 1)
    np.testing.assert_array_equal(W, [[1.0, 0.0], [0.0, 0.0], [0.5, 0.0]])


def test_multiclass_weights_too_large_to_bound_are_left_to_numpy(kernel):
    X = np.array([[1e200, 1e200]])
    W = np.array([[1e200, -1e200], [0.0, 0.0]])
    assert scan_multiclass(kernel, X, [1], W, np.zeros(2), max_z_norm=2e200) == (0, 2, 0)
    W = np.array([[np.nan, 0.0], [0.0, 0.0]])
    assert scan_multiclass(kernel, np.ones((1, 2)), [1], W, np.zeros(2)) == (0, 2, 0)


def test_multiclass_arguments_of_the_wrong_size_or_kind_are_refused(kernel):
    X, W, b = np.zeros((2, 2)), np.zeros((3, 2)), np.zeros(3)
    with pytest.raises(ValueError, match=r"y\[1\] is 3, not a class index in \[0, 3\)"):
        scan_multiclass(kernel, X, [0, 3], W, b)
    # Floats of the size of an index are told apart by their format.
    for labels in (np.zeros(2), np.zeros(3, dtype=np.intp), np.zeros(2, dtype=np.int32)):
        with pytest.raises(ValueError, match="y must hold 2 class indices of type intp"):
            kernel.scan_multiclass(X, labels, np.ones(2), W, b, None, None, 0, 2, 2, 3, True, 0, 1.0)
    with pytest.raises(ValueError, match="W must hold 4 float64 values"):
        scan_multiclass(kernel, X, [0, 1], np.zeros((2, 2))[:, :1].copy(), b[:2])
    with pytest.raises(ValueError, match="U and beta must both be given"):
        scan_multiclass(kernel, X, [0, 1], W, b, (np.zeros((3, 2)), None))
    with pytest.raises(ValueError, match="U must hold 6 float64 values"):
        scan_multiclass(kernel, X, [0, 1], W, b, (np.zeros(5), np.zeros(3)))
    with pytest.raises(ValueError, match="visits must be at least 0"):
        scan_multiclass(kernel, X, [0, 1], W, b, visits=-1)
    W.flags.writeable = False
    with pytest.raises(TypeError, match="argument 4 must be read-write bytes-like"):
        scan_multiclass(kernel, X, [0, 1], W, b)
