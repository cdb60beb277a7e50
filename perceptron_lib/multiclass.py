"""The multiclass perceptron: one weight vector per class, the highest score wins.

With classes ``0, ..., C-1`` and weights ``(w_c, b_c)`` for each, the model
predicts the class of highest score ``w_c @ x + b_c`` (the lowest index on a
tie).  Training visits the examples in order; on an example ``(x, y)`` let
``r`` be the best-scoring class other than ``y`` (the lowest index on a tie).
If ``r`` scores at least as high as ``y`` (a tie counts as a mistake, as a
score of 0 does for two classes), the update moves ``y``'s weights towards
``x`` and ``r``'s away from it::

    w_y <- w_y + s x,   b_y <- b_y + s,   w_r <- w_r - s x,   b_r <- b_r - s

(``s`` is the example's weight, 1 unless given).  This is the classical
linear machine of Duda and Hart (1973), trained as a two-class perceptron
through Kesler's construction; it is the special case of Collins's (2002)
structured perceptron whose feature map puts ``(x, 1)`` in the place of the
class, and the update of Crammer and Singer (2003) that puts all the
correction on the one highest-scoring wrong class.
With two classes it is the binary perceptron: ``w_1 = -w_0`` throughout, and
``w_1`` holds exactly the binary perceptron's weights, mistake for mistake.

The averaged form keeps, like :mod:`perceptron_lib.averaged`, one extra sum
per class and predicts with the average of the weights held after every visit.
"""

import numpy as np


class _MulticlassPass:
    """Training state: class weights ``W`` (one row per class), offsets ``b``, and the averaging sums."""

    def __init__(self, n_classes, n_features, fit_intercept, average=False):
        self.W = np.zeros((n_classes, n_features))
        self.b = np.zeros(n_classes)
        self.fit_intercept = fit_intercept
        self.average = average
        if average:
            self.U = np.zeros((n_classes, n_features))
            self.beta = np.zeros(n_classes)
        self.visits = 0
        self.mistakes = 0

    def run_epoch(self, finder):
        """One pass over the finder's examples in its order; returns the number of mistakes.

        The finder may make updates itself (the compiled kernel does, exactly as below)
        and leave only the others to this loop.
        """
        X, y, step = finder.X, finder.y, finder.step
        i, rival, made = finder.next_mistake(self, 0)
        while i >= 0:
            own, s = y[i], step[i]
            if self.average:
                # The update at visit t is missing from the t weight vectors held before it.
                moved = (self.visits + i) * s * X[i]
                self.U[own] += moved
                self.U[rival] -= moved
                if self.fit_intercept:
                    self.beta[own] += (self.visits + i) * s
                    self.beta[rival] -= (self.visits + i) * s
            self.W[own] += s * X[i]
            self.W[rival] -= s * X[i]
            if self.fit_intercept:
                self.b[own] += s
                self.b[rival] -= s
            made += 1
            i, rival, made_by_finder = finder.next_mistake(self, i + 1)
            made += made_by_finder
        self.visits += finder.n
        self.mistakes += made
        return made

    def averaged(self):
        """The mean of the weights held after each visit: ``W - U / T`` and ``b - beta / T``."""
        return self.W - self.U / self.visits, self.b - self.beta / self.visits
