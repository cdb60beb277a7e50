"""The block-jump engine: the one-example-at-a-time loop at numpy speed.

The plain perceptron loop visits examples in order and updates on the first
one it gets wrong.  Between two mistakes the weights do not change, so every
example up to the next mistake can be scored with one matrix-vector product:
score a block, find the first mistake in it, update, and start the next block
just after that mistake.  The updates, and so the weights, are the ones the
plain loop makes, in the same order.

Scores that are within rounding error of zero are recomputed with the same
expression the plain loop uses (``x @ w + b``), so a point that lies on the
plane within rounding is judged exactly as the plain loop judges it.
"""

import numpy as np

_MIN_BLOCK = 32
_MAX_BLOCK = 1 << 15
# A block score is trusted only when it is this far from zero, relative to
# ||x|| ||w|| + |b|; closer scores are recomputed one at a time.
_RELATIVE_SLACK = 1e-9


class MistakeFinder:
    """Find, for fixed weights, the first example at or after ``start`` that they get wrong."""

    def __init__(self, X, y, row_norms=None):
        self.X = X
        self.y = y
        self.n = X.shape[0]
        self.row_norms = np.sqrt(np.einsum("ij,ij->i", X, X)) if row_norms is None else row_norms
        self.block = 256

    def first_mistake(self, w, b, start):
        """Index of the first ``i >= start`` with ``y[i] * (X[i] @ w + b) <= 0``, or -1."""
        X, y, n = self.X, self.y, self.n
        w_norm = float(np.sqrt(w @ w))
        i = start
        while i < n:
            stop = min(n, i + self.block)
            agreement = y[i:stop] * (X[i:stop] @ w + b)
            slack = _RELATIVE_SLACK * (self.row_norms[i:stop] * w_norm + abs(b))
            doubtful = np.flatnonzero(agreement <= slack)
            for k in doubtful:
                j = i + int(k)
                if y[j] * (X[j] @ w + b) <= 0:
                    # Mistakes tend to come at a steady rate: size the next block
                    # to about twice the gap just seen.
                    self.block = int(min(_MAX_BLOCK, max(_MIN_BLOCK, 2 * (j - start + 1))))
                    return j
            self.block = min(_MAX_BLOCK, 2 * self.block)
            i = stop
        return -1

