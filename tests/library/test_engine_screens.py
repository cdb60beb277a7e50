"""How the numpy engine chooses its screen for large data, and that every change of screen within a run
keeps the plain loop's weights.

Large data is screened on X itself for the first epochs; a run whose last epoch made many mistakes gets
the double-precision copy, and one with few mistakes the single-precision copy (going back from double
precision only once the mistakes have halved).  Here the data are small, so the size limits are lowered
to send them down that path: 50 examples of 4 features and an offset are 250 entries, and with one
mistake costing 10 entries an epoch of 25 mistakes or more counts as many, and one of 12 or fewer as few.
"""

import warnings

import numpy as np
import pytest

import perceptron_lib as pl
from perceptron_lib import ConvergenceWarning, Perceptron, _engine

from tests.support.oracles import plain_perceptron


@pytest.fixture
def large_path(monkeypatch):
    """The numpy engine, with every data set counted as large and a mistake as costing 10 entries."""
    monkeypatch.setattr(_engine, "_kernel_module", False)
    monkeypatch.setattr(_engine, "_SMALL_DATA", 0)
    monkeypatch.setattr(_engine, "_MISTAKE_COST", 10)


def finder_of_250_entries():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    y = np.where(rng.random(50) < 0.5, -1.0, 1.0)
    return _engine.MistakeFinder(X, y, True)


def screens(finder, mistakes_per_epoch):
    """The screen each epoch starts with ("X" for X itself, else the copy's dtype), given the mistakes of each epoch."""
    seen, last = [], None
    for made in mistakes_per_epoch:
        finder.start_epoch(last)
        seen.append("X" if finder.Z is None else finder.Z.dtype.name)
        last = made
    return seen


def test_few_mistakes_are_screened_on_X_then_on_the_single_precision_copy(large_path):
    assert screens(finder_of_250_entries(), [12] * 5) == ["X", "X", "X", "float32", "float32"]


def test_many_mistakes_get_the_double_precision_copy_after_the_first_epoch(large_path):
    assert screens(finder_of_250_entries(), [25] * 4) == ["X", "float64", "float64", "float64"]


def test_the_double_precision_copy_stays_until_the_mistakes_halve_and_comes_back_when_they_grow(large_path):
    # 20 and 13 mistakes are neither many nor few: the copy in use stays.
    assert screens(finder_of_250_entries(), [30, 20, 13, 12, 30, 0]) == [
        "X", "float64", "float64", "float64", "float32", "float64"]


def test_no_double_precision_copy_of_data_beyond_its_size_limit(large_path, monkeypatch):
    monkeypatch.setattr(_engine, "_LARGE_COPY", 249)
    assert screens(finder_of_250_entries(), [50] * 5) == ["X", "X", "X", "float32", "float32"]


def test_small_data_keeps_its_double_precision_copy(monkeypatch):
    monkeypatch.setattr(_engine, "_kernel_module", False)
    assert screens(finder_of_250_entries(), [50, 0, 0, 0, 50]) == ["float64"] * 5


def fit_recording_screens(X, y, **fit_params):
    """Fit a Perceptron; return it and the screen of each epoch, with repeats of one screen collapsed."""
    seen = []
    start_epoch = _engine.MistakeFinder.start_epoch

    def recording(finder, last_mistakes=None):
        start_epoch(finder, last_mistakes)
        screen = "X" if finder.Z is None else finder.Z.dtype.name
        if not seen or seen[-1] != screen:
            seen.append(screen)

    with pytest.MonkeyPatch.context() as patch, warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        patch.setattr(_engine.MistakeFinder, "start_epoch", recording)
        model = Perceptron(max_epochs=40).fit(X, y, **fit_params)
    return model, seen


def test_a_run_whose_mistakes_thin_out_changes_screen_twice_and_keeps_the_plain_loops_weights(large_path, monkeypatch):
    # 600 examples, 5 features and the offset: 3600 entries.  Its epochs make 49, 20, 20, 15, ... 8,
    # ... 2, 0 mistakes: at 180 entries a mistake, 20 are many and fewer than 10 few.
    monkeypatch.setattr(_engine, "_MISTAKE_COST", 180)
    X, y, _ = pl.make_separable(600, 5, margin=0.01, random_state=8)
    X = X + 0.2
    model, seen = fit_recording_screens(X, y)
    assert seen == ["X", "float64", "float32"]
    w, b, mistakes, epochs, _, converged = plain_perceptron(X, y, max_epochs=40)
    np.testing.assert_array_equal(model.coef_, w)
    assert (model.intercept_, model.n_mistakes_, model.n_epochs_, model.converged_) == (b, mistakes, epochs, converged)


def test_weights_too_small_for_single_precision_keep_the_double_precision_copy(large_path, monkeypatch):
    # Sample weights of 1e-20 keep ||(w, b)|| below the single-precision screen's lower limit (1e-15):
    # its first mistake sends the epoch to the double-precision copy, and no later epoch goes back.
    monkeypatch.setattr(_engine, "_MISTAKE_COST", 0)
    monkeypatch.setattr(_engine, "_DIRECT_EPOCHS", 1)
    X, y, _ = pl.make_separable(200, 3, margin=0.05, random_state=3)
    y = pl.flip_labels(y, 0.1, random_state=3)
    sample_weight = np.full(len(y), 1e-20)
    model, seen = fit_recording_screens(X + 0.2, y, sample_weight=sample_weight)
    assert seen == ["X", "float32", "float64"]
    w, b, mistakes, epochs, _, _ = plain_perceptron(X + 0.2, y, max_epochs=40, sample_weight=sample_weight)
    np.testing.assert_array_equal(model.coef_, w)
    assert (model.intercept_, model.n_mistakes_, model.n_epochs_) == (b, mistakes, epochs)
