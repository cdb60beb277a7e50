"""The block-jump engine: the one-example-at-a-time loop at numpy speed.

The plain perceptron loop visits examples in order and updates on the first
one it gets wrong.  Between two mistakes the weights do not change, so every
example up to the next mistake can be scored with one matrix-vector product:
score a block, find the first mistake in it, update, and start the next block
just after that mistake.  The updates, and so the weights, are the ones the
plain loop makes, in the same order.

Scoring is memory-bound, so blocks are screened in single precision: the
engine keeps ``Z = [y x, y]`` in float32 (labels folded into the rows, plus a
column for the offset), and ``Z @ (w, b)`` is every example's agreement
``y (w @ x + b)`` at once.  An example is passed over only when its screened
agreement exceeds a proven bound on the float32 rounding error, so it is
certainly not a mistake.  The few others are decided with the plain loop's
own expression, ``y * (x @ w + b) <= 0`` in double precision.
"""

from contextlib import nullcontext

import numpy as np

try:
    from threadpoolctl import threadpool_limits
except ImportError:  # optional: without it, BLAS keeps its own thread settings
    threadpool_limits = None

_MIN_BLOCK = 32
_MAX_BLOCK = 1 << 15
_FLOAT32_UNIT = 2.0**-24
# Screening in float32 needs every product z_i v_i well inside its range;
# data or weights outside these norms are screened in float64 instead.
_FLOAT32_NORMS = (1e-15, 1e15)
_FLOAT32_PRODUCT_LIMIT = 1e36


def single_threaded_blas():
    """Context in which BLAS uses one thread.

    The blocks scored between two mistakes are small, and waking BLAS threads
    for each of them costs more than it saves (over twice the time on a busy
    machine), so training runs single-threaded.
    """
    return threadpool_limits(limits=1, user_api="blas") if threadpool_limits else nullcontext()


class MistakeFinder:
    """Find, for fixed weights, the first example at or after ``start`` that they get wrong.

    ``X`` and ``y`` are the examples in visiting order; they are not modified.
    ``step`` is the signed size of each example's update, ``y`` times its
    weight (``y`` itself when the examples are not weighted).
    """

    def __init__(self, X, y, fit_intercept, step=None):
        self.X = X
        self.y = y
        self.step = y if step is None else step
        self.n = X.shape[0]
        self.fit_intercept = fit_intercept
        self.max_z_norm = float(np.sqrt(np.einsum("ij,ij->i", X, X).max() + (1.0 if fit_intercept else 0.0)))
        low, high = _FLOAT32_NORMS
        self._build(np.float32 if low < self.max_z_norm < high else np.float64)
        self.block = 256

    def _build(self, dtype):
        """Make the screening copy ``Z = [y x, y]`` and its rounding bound in ``dtype``."""
        d = self.X.shape[1]
        self.Z = np.empty((self.n, d + (1 if self.fit_intercept else 0)), dtype=dtype)
        np.multiply(self.X, self.y[:, None], out=self.Z[:, :d], casting="same_kind")
        if self.fit_intercept:
            self.Z[:, -1] = self.y
        # Rounding Z and (w, b) to the screening precision, and the dot product
        # of m terms, together err by at most (m + 3) u ||z|| ||v|| (u the unit
        # roundoff), plus m times the smallest subnormal for each of rounding
        # a tiny entry, its product and its sum; twice that is the slack.
        m = self.Z.shape[1]
        unit, tiny = (_FLOAT32_UNIT, 2.0**-149) if dtype == np.float32 else (2.0**-53, 2.0**-1074)
        self.screen_factor = 2.0 * ((m + 3) * unit * self.max_z_norm + m * tiny)
        self.screen_floor = 2.0 * 3 * m * tiny
        self._v = np.empty(m, dtype=dtype)

    def reorder(self, order):
        """A finder over the same examples visited in ``order`` (used when shuffling)."""
        other = object.__new__(MistakeFinder)
        other.__dict__.update(self.__dict__)
        other.X, other.y, other.Z = self.X[order], self.y[order], self.Z[order]
        other.step = self.step[order]
        other._v = self._v.copy()
        return other

    def first_mistake(self, w, b, start):
        """Index of the first ``i >= start`` with ``y[i] * (X[i] @ w + b) <= 0``, or -1."""
        v_norm = float(np.sqrt(w @ w + (b * b if self.fit_intercept else 0.0)))
        if self.Z.dtype == np.float32 and v_norm * self.max_z_norm > _FLOAT32_PRODUCT_LIMIT:
            self._build(np.float64)
        X, y, Z, n, v = self.X, self.y, self.Z, self.n, self._v
        d = w.shape[0]
        v[:d] = w
        if self.fit_intercept:
            v[d] = b
        screen_slack = self.screen_factor * v_norm + self.screen_floor
        i = start
        while i < n:
            stop = min(n, i + self.block)
            doubtful = Z[i:stop] @ v <= screen_slack
            k = int(doubtful.argmax())
            while doubtful[k]:
                j = i + k
                if y[j] * (X[j] @ w + b) <= 0:
                    # Mistakes tend to come at a steady rate: size the next
                    # block to the gap just seen.
                    self.block = min(_MAX_BLOCK, max(_MIN_BLOCK, j - start + 1))
                    return j
                if k + 1 == doubtful.shape[0]:
                    break
                k += 1 + int(doubtful[k + 1 :].argmax())
            self.block = min(_MAX_BLOCK, 2 * self.block)
            i = stop
        return -1


class MulticlassMistakeFinder:
    """Find, for fixed class weights, the first example at or after ``start`` that they get wrong.

    The multiclass perceptron gets example ``i`` wrong when some other class
    scores at least as high as its own class ``y[i]``.  As for two classes,
    the weights only change at a mistake, so a block of examples is scored
    with one matrix product, in double precision; an example is passed over
    only when its own class beats every other by more than a proven bound on
    the rounding error of that product.  The few others are decided with the
    plain loop's own expression, ``W @ x + b``.
    """

    def __init__(self, X, y, fit_intercept, step):
        self.X = X
        self.y = y
        self.step = step
        self.n = X.shape[0]
        self.fit_intercept = fit_intercept
        max_x_norm = float(np.sqrt(np.einsum("ij,ij->i", X, X).max() + (1.0 if fit_intercept else 0.0)))
        # Each score errs by at most (m + 3) u ||(x, 1)|| ||(w_c, b_c)|| plus the
        # subnormal terms (as in MistakeFinder); a difference of two scores by
        # twice that, and twice again is the slack.
        m = X.shape[1] + 1
        unit, tiny = 2.0**-53, 2.0**-1074
        self.screen_factor = 4.0 * ((m + 3) * unit * max_x_norm + m * tiny)
        self.screen_floor = 4.0 * 3 * m * tiny
        self.block = 256

    def reorder(self, order):
        """A finder over the same examples visited in ``order`` (used when shuffling)."""
        other = object.__new__(MulticlassMistakeFinder)
        other.__dict__.update(self.__dict__)
        other.X, other.y, other.step = self.X[order], self.y[order], self.step[order]
        return other

    @staticmethod
    def rival(scores, label):
        """The plain loop's decision: the best-scoring other class (lowest index on ties), and whether it wins."""
        others = scores.copy()
        others[label] = -np.inf
        rival = int(others.argmax())
        return rival, bool(others[rival] >= scores[label])

    def first_mistake(self, W, b, start):
        """``(i, rival)`` for the first ``i >= start`` that ``(W, b)`` gets wrong, or ``(-1, -1)``."""
        X, y, n = self.X, self.y, self.n
        v_norm = float(np.sqrt((np.einsum("ij,ij->i", W, W) + b * b).max()))
        screen_slack = self.screen_factor * v_norm + self.screen_floor
        i = start
        while i < n:
            stop = min(n, i + self.block)
            scores = X[i:stop] @ W.T
            scores += b
            rows = np.arange(stop - i)
            own = scores[rows, y[i:stop]]
            scores[rows, y[i:stop]] = -np.inf
            doubtful = np.flatnonzero(own - scores.max(axis=1) <= screen_slack)
            for k in doubtful:
                j = i + int(k)
                rival, wrong = self.rival(W @ X[j] + b, y[j])
                if wrong:
                    self.block = min(_MAX_BLOCK, max(_MIN_BLOCK, j - start + 1))
                    return j, rival
            self.block = min(_MAX_BLOCK, 2 * self.block)
            i = stop
        return -1, -1
