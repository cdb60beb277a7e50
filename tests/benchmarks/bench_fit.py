"""Training speed: perceptron_lib against scikit-learn, over a grid of sizes and difficulties.

The grid is n in {2,000, 20,000, 200,000} x d in {20, 100} x two kinds of
separable data: margin 0.05, which the perceptron separates within a few
epochs, and margin 0.002, which takes hundreds.  In every cell scikit-learn's
``Perceptron(shuffle=False, eta0=1, alpha=0, penalty=None, tol=None)`` makes
the same updates; it is given exactly as many epochs as our model needed (with
``tol=None`` it runs all of ``max_iter``), and the two must end with identical
weights, or the benchmark fails.  The last column compares one epoch of ours
with one ``X @ w`` over the same data, single-threaded as training is: the
time it takes just to read the data once.

The multiclass perceptron has no counterpart in scikit-learn (whose multiclass
models train one-vs-rest), so it is timed against the same model with the
compiled kernel switched off (the numpy engine) and against the plain
one-example-at-a-time loop, each giving identical weights, on overlapping
classes that keep it making mistakes for all its epochs.

The averaged and voted models are timed on two cells against scikit-learn's
``SGDClassifier(loss="perceptron", average=True)`` and its ``Perceptron``, and
the smallest cell against the plain one-example-at-a-time Python loop.
Ours and theirs alternate within each cell, and each keeps its best time.
"""

import statistics
import time
import warnings

import numpy as np
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.linear_model import SGDClassifier

import perceptron_lib as pl
from perceptron_lib._engine import single_threaded_blas

KINDS = {"few epochs": 0.05, "many epochs": 0.002}
TARGET_LARGE, TARGET_SMALL, TARGET_MEDIAN = 1.0, 1.5, 0.6


def data(n, d, margin, seed=0):
    X, y, _ = pl.make_separable(n, d, margin=margin, random_state=seed)
    return X + 0.1, y  # shifted off the origin, so the offset matters


def plain_loop(X, y, max_epochs):
    w = np.zeros(X.shape[1])
    b = 0.0
    for _ in range(max_epochs):
        made = 0
        for i in range(X.shape[0]):
            if y[i] * (X[i] @ w + b) <= 0:
                w = w + y[i] * X[i]
                b = b + y[i]
                made += 1
        if made == 0:
            break
    return w, b


def plain_multiclass_loop(X, y, n_classes, max_epochs):
    W = np.zeros((n_classes, X.shape[1]))
    b = np.zeros(n_classes)
    for _ in range(max_epochs):
        made = 0
        for i in range(X.shape[0]):
            scores = W @ X[i] + b
            others = scores.copy()
            others[y[i]] = -np.inf
            rival = int(np.argmax(others))
            if others[rival] >= scores[y[i]]:
                W[y[i]] = W[y[i]] + X[i]
                W[rival] = W[rival] - X[i]
                b[y[i]] = b[y[i]] + 1.0
                b[rival] = b[rival] - 1.0
                made += 1
        if made == 0:
            break
    return W, b


def overlapping_classes(n, d, n_classes, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, size=n)
    return rng.normal(size=(n_classes, d))[y] + 3 * rng.normal(size=(n, d)), y


def multiclass_rows(quick):
    """MulticlassPerceptron with its compiled kernel against its numpy engine and the plain loop."""
    from perceptron_lib import _engine

    def with_numpy_engine(fit):
        def run():
            saved, _engine._kernel_module = _engine._kernel_module, False
            try:
                return fit()
            finally:
                _engine._kernel_module = saved
        return run

    rows = []
    for n, d, k, epochs in ([(2_000, 20, 5, 20)] if quick else [(2_000, 20, 5, 50), (20_000, 50, 10, 10)]):
        X, y = overlapping_classes(n, d, k)
        fit = lambda: pl.MulticlassPerceptron(max_epochs=epochs).fit(X, y)
        ours_t, numpy_t, ours, numpy_model = race(fit, with_numpy_engine(fit), 3)
        case = f"n={n:,} d={d} {k} classes overlapping ({ours.n_epochs_} epochs, {ours.n_mistakes_} mistakes)"
        if not np.array_equal(ours.coef_, numpy_model.coef_):
            raise AssertionError(f"{case}: the compiled kernel's weights differ from the numpy engine's")
        rows.append(("MulticlassPerceptron.fit", case, ours_t, "its numpy engine (kernel off)", numpy_t, ""))
    X, y = overlapping_classes(2_000, 20, 5)
    epochs = 3
    ours_t, loop_t, ours, (W, b) = race(lambda: pl.MulticlassPerceptron(max_epochs=epochs).fit(X, y),
                                        lambda: plain_multiclass_loop(X, y, 5, epochs), 1)
    if not (np.array_equal(ours.coef_, W) and np.array_equal(ours.intercept_, b)):
        raise AssertionError("n=2,000 d=20 5 classes: MulticlassPerceptron and the plain loop weights differ")
    rows.append(("MulticlassPerceptron.fit", f"n=2,000 d=20 5 classes overlapping ({epochs} epochs, "
                 f"{ours.n_mistakes_} mistakes)", ours_t, "plain Python loop", loop_t, ""))
    return rows


def sklearn_perceptron(epochs):
    return SklearnPerceptron(shuffle=False, eta0=1, alpha=0, penalty=None, tol=None, max_iter=epochs)


def race(ours, theirs, repeats):
    """Best times of two callables run alternately; returns (ours_s, theirs_s, ours_result, theirs_result)."""
    best = [np.inf, np.inf]
    results = [None, None]
    for _ in range(repeats):
        for k, fn in enumerate((ours, theirs)):
            start = time.perf_counter()
            results[k] = fn()
            best[k] = min(best[k], time.perf_counter() - start)
    return best[0], best[1], results[0], results[1]


def read_once_seconds(X, repeats=20):
    """Best time of one ``X @ w`` with one BLAS thread: the floor for any pass over the data."""
    w = np.ones(X.shape[1])
    best = np.inf
    with single_threaded_blas():
        for _ in range(repeats):
            start = time.perf_counter()
            X @ w
            best = min(best, time.perf_counter() - start)
    return best


def repeats_for(n, kind):
    if n <= 2_000:
        return 15
    if n <= 20_000:
        return 5
    return 2 if kind == "many epochs" else 3


def run(quick=False):
    warnings.simplefilter("ignore")
    sizes = [2_000, 20_000] if quick else [2_000, 20_000, 200_000]
    rows = []
    for n in sizes:
        for d in (20, 100):
            for kind, margin in KINDS.items():
                X, y = data(n, d, margin)
                epochs = pl.Perceptron().fit(X, y).n_epochs_
                ours_t, sk_t, ours, sk = race(
                    lambda: pl.Perceptron().fit(X, y), lambda: sklearn_perceptron(epochs).fit(X, y),
                    repeats_for(n, kind))
                case = f"n={n:,} d={d} {kind}"
                if not (np.array_equal(ours.coef_, sk.coef_.ravel()) and ours.intercept_ == sk.intercept_[0]):
                    raise AssertionError(f"{case}: perceptron_lib and scikit-learn weights differ")
                per_epoch = ours_t / ours.n_epochs_ / read_once_seconds(X)
                rows.append(("Perceptron.fit", f"{case} ({ours.n_epochs_} epochs, {ours.n_mistakes_} mistakes)",
                             ours_t, "scikit-learn Perceptron", sk_t, f"1 epoch = {per_epoch:.1f} x X @ w"))
    X, y = data(2_000, 20, KINDS["few epochs"])
    ours_t, loop_t, ours, (w, b) = race(lambda: pl.Perceptron().fit(X, y), lambda: plain_loop(X, y, 1000), 1)
    if not (np.array_equal(ours.coef_, w) and ours.intercept_ == b):
        raise AssertionError("n=2,000 d=20: perceptron_lib and the plain loop weights differ")
    rows.append(("Perceptron.fit", f"n=2,000 d=20 few epochs ({ours.n_epochs_} epochs)", ours_t,
                 "plain Python loop", loop_t, ""))
    for n, d in ([(20_000, 20)] if quick else [(20_000, 20), (200_000, 20)]):
        X, y = data(n, d, KINDS["few epochs"])
        epochs = 10
        avg_t, sgd_t, avg, sgd = race(
            lambda: pl.AveragedPerceptron(max_epochs=epochs).fit(X, y),
            lambda: SGDClassifier(loss="perceptron", learning_rate="constant", eta0=1, alpha=0, penalty=None,
                                  shuffle=False, tol=None, max_iter=epochs, average=True).fit(X, y),
            3)
        if avg.n_epochs_ == epochs and not np.allclose(avg.coef_, sgd.coef_.ravel(), rtol=1e-9, atol=1e-12):
            raise AssertionError(f"n={n:,} d={d}: averaged weights differ from scikit-learn's")
        rows.append(("AveragedPerceptron.fit", f"n={n:,} d={d} few epochs ({avg.n_epochs_} epochs)", avg_t,
                     "scikit-learn SGDClassifier(average=True), same epochs", sgd_t, ""))
        voted_t, sk_t, voted, _ = race(
            lambda: pl.VotedPerceptron(max_epochs=epochs).fit(X, y), lambda: sklearn_perceptron(avg.n_epochs_).fit(X, y), 3)
        rows.append(("VotedPerceptron.fit", f"n={n:,} d={d} few epochs ({voted.n_epochs_} epochs)", voted_t,
                     "scikit-learn Perceptron, same epochs", sk_t, ""))
    rows += multiclass_rows(quick)
    return rows


def summarize(rows):
    """The grid's targets, each with its verdict."""
    grid = [(case, ours / theirs) for bench, case, ours, base, theirs, *_ in rows
            if bench == "Perceptron.fit" and base == "scikit-learn Perceptron"]
    large = [r for case, r in grid if not case.startswith("n=2,000 ")]
    small = [r for case, r in grid if case.startswith("n=2,000 ")]
    median = statistics.median(r for _, r in grid)
    verdict = lambda ok: "met" if ok else "NOT met"
    return [
        f"Perceptron grid: worst ratio with n >= 20,000 {max(large, default=float('nan')):.2f} "
        f"(target <= {TARGET_LARGE}: {verdict(all(r <= TARGET_LARGE for r in large))}); "
        f"worst at n = 2,000 {max(small):.2f} (target <= {TARGET_SMALL}: {verdict(max(small) <= TARGET_SMALL)}); "
        f"median {median:.2f} (target <= {TARGET_MEDIAN}: {verdict(median <= TARGET_MEDIAN)}).",
    ]
