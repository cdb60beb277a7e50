"""Training speed: perceptron_lib against scikit-learn, over a grid of sizes and difficulties.

The grid is n in {2,000, 20,000, 200,000} x d in {20, 100} x three kinds of
data: separable with a clear margin (0.05), which the perceptron separates
within a few epochs; separable with a small margin (0.002), which takes
hundreds; and two overlapping Gaussian classes, which it never separates and
where it makes a mistake every few examples, for 10 epochs.  In every cell
scikit-learn's ``Perceptron(shuffle=False, eta0=1, alpha=0, penalty=None,
tol=None)`` makes the same updates; it is given exactly as many epochs as our
model ran (with ``tol=None`` it runs all of ``max_iter``), and the two must end
with identical weights, or the benchmark fails.  Each cell is timed twice for
ours: with the compiled kernel (where it was built: the student package's wheel
for Linux on x86-64 carries it) and with the numpy engine alone, which is what
students on Windows and macOS, whose wheel is pure Python, train with;
the two must give identical weights too.  The last column compares one epoch
of ours with one ``X @ w`` over the same data, single-threaded as training is:
the time it takes just to read the data once.

The multiclass perceptron has no counterpart in scikit-learn (whose multiclass
models train one-vs-rest), so it is timed against the same model with the
compiled kernel switched off (the numpy engine) and against the plain
one-example-at-a-time loop, each giving identical weights, on overlapping
classes that keep it making mistakes for all its epochs.

The averaged and voted models are timed on two cells against scikit-learn's
``SGDClassifier(loss="perceptron", average=True)`` and its ``Perceptron``, and
the smallest cell against the plain one-example-at-a-time Python loop.
Ours and theirs alternate within each cell, and each keeps its best time.
Times are the CPU time of this process (every implementation timed here runs
on one thread), so that other work on a shared machine does not count.
"""

import statistics
import time
import warnings

import numpy as np
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.linear_model import SGDClassifier

import perceptron_lib as pl
from perceptron_lib import _engine
from perceptron_lib._engine import single_threaded_blas

# Each kind of data: its margin, or None for overlapping classes.
KINDS = {"clear margin": 0.05, "small margin": 0.002, "overlapping classes": None}
OVERLAPPING_EPOCHS = 10
# The compiled kernel's targets, over the separable cells.
TARGET_LARGE, TARGET_SMALL, TARGET_MEDIAN = 1.0, 1.5, 0.6
# The numpy engine's targets, over the clear-margin and overlapping cells.
NUMPY_TARGET_MEDIAN, NUMPY_TARGET_WORST = 1.0, 2.0
KERNEL, NUMPY_ENGINE = "Perceptron.fit, compiled kernel", "Perceptron.fit, numpy engine"


def data(n, d, margin, seed=0):
    if margin is None:
        return overlapping_classes(n, d, 2, seed)
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


def with_numpy_engine(fit):
    """``fit`` run with the compiled kernel switched off."""
    def run():
        saved, _engine._kernel_module = _engine._kernel_module, False
        try:
            return fit()
        finally:
            _engine._kernel_module = saved
    return run


def multiclass_rows(quick):
    """MulticlassPerceptron with its compiled kernel against its numpy engine and the plain loop."""
    rows = []
    for n, d, k, epochs in ([(2_000, 20, 5, 20)] if quick else [(2_000, 20, 5, 50), (20_000, 50, 10, 10)]):
        X, y = overlapping_classes(n, d, k)
        fit = lambda: pl.MulticlassPerceptron(max_epochs=epochs).fit(X, y)
        (ours_t, numpy_t), (ours, numpy_model) = race(fit, with_numpy_engine(fit), repeats=3)
        case = f"n={n:,} d={d} {k} classes overlapping ({ours.n_epochs_} epochs, {ours.n_mistakes_} mistakes)"
        if not np.array_equal(ours.coef_, numpy_model.coef_):
            raise AssertionError(f"{case}: the compiled kernel's weights differ from the numpy engine's")
        rows.append(("MulticlassPerceptron.fit", case, ours_t, "its numpy engine (kernel off)", numpy_t, ""))
    X, y = overlapping_classes(2_000, 20, 5)
    epochs = 3
    (ours_t, loop_t), (ours, (W, b)) = race(lambda: pl.MulticlassPerceptron(max_epochs=epochs).fit(X, y),
                                            lambda: plain_multiclass_loop(X, y, 5, epochs), repeats=1)
    if not (np.array_equal(ours.coef_, W) and np.array_equal(ours.intercept_, b)):
        raise AssertionError("n=2,000 d=20 5 classes: MulticlassPerceptron and the plain loop weights differ")
    rows.append(("MulticlassPerceptron.fit", f"n=2,000 d=20 5 classes overlapping ({epochs} epochs, "
                 f"{ours.n_mistakes_} mistakes)", ours_t, "plain Python loop", loop_t, ""))
    return rows


def sklearn_perceptron(epochs):
    return SklearnPerceptron(shuffle=False, eta0=1, alpha=0, penalty=None, tol=None, max_iter=epochs)


def race(*fits, repeats):
    """Best CPU times of callables run in turn; returns (times, results), each in the order given."""
    best = [np.inf] * len(fits)
    results = [None] * len(fits)
    for _ in range(repeats):
        for k, fit in enumerate(fits):
            start = time.process_time()
            results[k] = fit()
            best[k] = min(best[k], time.process_time() - start)
    return best, results


def read_once_seconds(X, repeats=20):
    """Best time of one ``X @ w`` with one BLAS thread: the floor for any pass over the data."""
    w = np.ones(X.shape[1])
    best = np.inf
    with single_threaded_blas():
        for _ in range(repeats):
            start = time.process_time()
            X @ w
            best = min(best, time.process_time() - start)
    return best


def repeats_for(n, kind):
    if n <= 2_000:
        return 15
    if n <= 20_000:
        return 5
    return 2 if kind != "clear margin" else 3


def perceptron_rows(n, d, kind):
    """The grid's cell: our Perceptron with the kernel (where built) and with the numpy engine, against scikit-learn."""
    X, y = data(n, d, KINDS[kind])
    max_epochs = OVERLAPPING_EPOCHS if KINDS[kind] is None else 1000
    fit = lambda: pl.Perceptron(max_epochs=max_epochs).fit(X, y)
    epochs = with_numpy_engine(fit)().n_epochs_
    fits = [lambda: sklearn_perceptron(epochs).fit(X, y), with_numpy_engine(fit)]
    kernel = _engine.compiled_kernel() is not None
    if kernel:
        fits.append(fit)
    times, (sk, *ours) = race(*fits, repeats=repeats_for(n, kind))
    case = f"n={n:,} d={d} {kind} ({ours[0].n_epochs_} epochs, {ours[0].n_mistakes_} mistakes)"
    for model in ours:
        if not (np.array_equal(model.coef_, sk.coef_.ravel()) and model.intercept_ == sk.intercept_[0]):
            raise AssertionError(f"{case}: perceptron_lib and scikit-learn weights differ")
    read_once = read_once_seconds(X)
    rows = []
    for bench, seconds, model in zip((NUMPY_ENGINE, KERNEL), times[1:], ours):
        rows.append((bench, case, seconds, "scikit-learn Perceptron", times[0],
                     f"1 epoch = {seconds / model.n_epochs_ / read_once:.1f} x X @ w"))
    return rows


def run(quick=False):
    warnings.simplefilter("ignore")
    sizes = [2_000, 20_000] if quick else [2_000, 20_000, 200_000]
    rows = []
    for n in sizes:
        for d in (20, 100):
            for kind in KINDS:
                rows += perceptron_rows(n, d, kind)
    X, y = data(2_000, 20, KINDS["clear margin"])
    (ours_t, loop_t), (ours, (w, b)) = race(lambda: pl.Perceptron().fit(X, y), lambda: plain_loop(X, y, 1000),
                                            repeats=1)
    if not (np.array_equal(ours.coef_, w) and ours.intercept_ == b):
        raise AssertionError("n=2,000 d=20: perceptron_lib and the plain loop weights differ")
    rows.append(("Perceptron.fit", f"n=2,000 d=20 clear margin ({ours.n_epochs_} epochs)", ours_t,
                 "plain Python loop", loop_t, ""))
    for n, d in ([(20_000, 20)] if quick else [(20_000, 20), (200_000, 20)]):
        X, y = data(n, d, KINDS["clear margin"])
        epochs = 10
        (avg_t, sgd_t), (avg, sgd) = race(
            lambda: pl.AveragedPerceptron(max_epochs=epochs).fit(X, y),
            lambda: SGDClassifier(loss="perceptron", learning_rate="constant", eta0=1, alpha=0, penalty=None,
                                  shuffle=False, tol=None, max_iter=epochs, average=True).fit(X, y),
            repeats=3)
        if avg.n_epochs_ == epochs and not np.allclose(avg.coef_, sgd.coef_.ravel(), rtol=1e-9, atol=1e-12):
            raise AssertionError(f"n={n:,} d={d}: averaged weights differ from scikit-learn's")
        rows.append(("AveragedPerceptron.fit", f"n={n:,} d={d} clear margin ({avg.n_epochs_} epochs)", avg_t,
                     "scikit-learn SGDClassifier(average=True), same epochs", sgd_t, ""))
        (voted_t, sk_t), (voted, _) = race(
            lambda: pl.VotedPerceptron(max_epochs=epochs).fit(X, y),
            lambda: sklearn_perceptron(avg.n_epochs_).fit(X, y), repeats=3)
        rows.append(("VotedPerceptron.fit", f"n={n:,} d={d} clear margin ({voted.n_epochs_} epochs)", voted_t,
                     "scikit-learn Perceptron, same epochs", sk_t, ""))
    rows += multiclass_rows(quick)
    return rows


def summarize(rows):
    """The grid's targets, each with its verdict: the compiled kernel's, then the numpy engine's."""
    def grid(bench, kinds):
        return [(case, ours / theirs) for row_bench, case, ours, base, theirs, *_ in rows
                if row_bench == bench and base == "scikit-learn Perceptron" and any(k in case for k in kinds)]

    verdict = lambda ok: "met" if ok else "NOT met"
    lines = []
    kernel = grid(KERNEL, ("clear margin", "small margin"))
    if kernel:
        large = [r for case, r in kernel if not case.startswith("n=2,000 ")]
        small = [r for case, r in kernel if case.startswith("n=2,000 ")]
        median = statistics.median(r for _, r in kernel)
        lines.append(
            f"Perceptron grid, compiled kernel, separable data: worst ratio with n >= 20,000 "
            f"{max(large, default=float('nan')):.2f} (target <= {TARGET_LARGE}: "
            f"{verdict(all(r <= TARGET_LARGE for r in large))}); worst at n = 2,000 {max(small):.2f} "
            f"(target <= {TARGET_SMALL}: {verdict(max(small) <= TARGET_SMALL)}); median {median:.2f} "
            f"(target <= {TARGET_MEDIAN}: {verdict(median <= TARGET_MEDIAN)}).")
    else:
        lines.append("Perceptron grid, compiled kernel: not timed (not built, or switched off by "
                     "PERCEPTRON_LIB_PURE_NUMPY).")
    for bench, name in ((NUMPY_ENGINE, "numpy engine"), (KERNEL, "compiled kernel")):
        cells = grid(bench, ("clear margin", "overlapping classes"))
        if not cells:
            continue
        ratios = [r for _, r in cells]
        median, (worst_case, worst) = statistics.median(ratios), max(cells, key=lambda cell: cell[1])
        line = (f"Perceptron grid, {name}, clear margin and overlapping classes: median ratio {median:.2f}, "
                f"worst {worst:.2f} ({worst_case.split(' (')[0]})")
        if bench == NUMPY_ENGINE:
            line += (f" (targets: median <= {NUMPY_TARGET_MEDIAN}: {verdict(median <= NUMPY_TARGET_MEDIAN)}; "
                     f"worst <= {NUMPY_TARGET_WORST}: {verdict(worst <= NUMPY_TARGET_WORST)})")
        lines.append(line + ".")
    return lines
