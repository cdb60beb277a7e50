"""Training speed: perceptron_lib against scikit-learn and against the plain loop.

scikit-learn's ``Perceptron(shuffle=False, eta0=1, alpha=0, penalty=None,
tol=None)`` makes the same updates; it is given exactly as many epochs as our
model needed (with ``tol=None`` it would otherwise run all of ``max_iter``).
The averaged model is compared with ``SGDClassifier(loss="perceptron",
average=True, ...)``, which computes the same average.  The plain loop is the
one-example-at-a-time Python loop, timed only on the smaller sizes.
"""

import time
import warnings

import numpy as np
from sklearn.linear_model import Perceptron as SklearnPerceptron
from sklearn.linear_model import SGDClassifier

import perceptron_lib as pl

REPEATS = 3


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


def best_of(fn, repeats=REPEATS):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def data(n, d, margin, seed=0):
    X, y, _ = pl.make_separable(n, d, margin=margin, random_state=seed)
    return X + 0.1, y  # shifted off the origin, so the offset matters


def run(quick=False):
    sizes = [(2_000, 20, 0.01), (20_000, 50, 0.01), (200_000, 50, 0.01), (200_000, 50, 0.002)]
    if quick:
        sizes = sizes[:2]
    rows = []
    warnings.simplefilter("ignore")
    for n, d, margin in sizes:
        X, y = data(n, d, margin)
        case = f"n={n:,} d={d} margin={margin}"
        ours_t, ours = best_of(lambda: pl.Perceptron().fit(X, y))
        sk_t, sk = best_of(lambda: SklearnPerceptron(
            shuffle=False, eta0=1, alpha=0, penalty=None, tol=None, max_iter=ours.n_epochs_).fit(X, y))
        if not np.array_equal(ours.coef_, sk.coef_.ravel()):
            raise AssertionError(f"{case}: perceptron_lib and scikit-learn weights differ")
        case += f" ({ours.n_mistakes_} mistakes, {ours.n_epochs_} epochs)"
        rows.append(("Perceptron.fit", case, ours_t, "scikit-learn Perceptron", sk_t))
        if n * ours.n_epochs_ <= 2_000_000:
            loop_t, (w, b) = best_of(lambda: plain_loop(X, y, ours.n_epochs_), repeats=1)
            if not np.array_equal(w, ours.coef_):
                raise AssertionError(f"{case}: perceptron_lib and the plain loop weights differ")
            rows.append(("Perceptron.fit", case, ours_t, "plain Python loop", loop_t))
        epochs = 10
        avg_t, avg = best_of(lambda: pl.AveragedPerceptron(max_epochs=epochs).fit(X, y))
        sgd_t, sgd = best_of(lambda: SGDClassifier(
            loss="perceptron", learning_rate="constant", eta0=1, alpha=0, penalty=None, shuffle=False,
            tol=None, max_iter=avg.n_epochs_, average=True).fit(X, y))
        if not np.allclose(avg.coef_, sgd.coef_.ravel(), rtol=1e-9, atol=1e-12):
            raise AssertionError(f"{case}: averaged weights differ from scikit-learn's")
        rows.append(("AveragedPerceptron.fit", f"n={n:,} d={d} margin={margin}, {avg.n_epochs_} epochs", avg_t,
                     "scikit-learn SGDClassifier(average=True)", sgd_t))
        voted_t, voted = best_of(lambda: pl.VotedPerceptron(max_epochs=epochs).fit(X, y))
        rows.append(("VotedPerceptron.fit", f"n={n:,} d={d} margin={margin}, {voted.n_epochs_} epochs", voted_t,
                     "scikit-learn Perceptron, same epochs", best_of(lambda: SklearnPerceptron(
                         shuffle=False, eta0=1, alpha=0, penalty=None, tol=None, max_iter=voted.n_epochs_).fit(X, y))[0]))
    return rows
