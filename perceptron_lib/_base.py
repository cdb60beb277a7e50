"""What every perceptron shares: the online training pass and the epoch loop.

The pass visits the examples in order (or in a fresh random order per epoch
when shuffling), updates ``w += s y x`` and ``b += s y`` on every example with
``y (w @ x + b) <= 0`` (``s`` is the example's weight, 1 unless given), and
tells the training state about each mistake and the visit at which it
happened, so the voted and averaged models keep their extra bookkeeping
without a second loop.  Nothing here imports scikit-learn: the plain functions
train with it too, and importing :mod:`perceptron_lib` stays cheap.
"""

import numpy as np

from ._engine import single_threaded_blas


class ConvergenceWarning(UserWarning):
    """Training stopped at ``max_epochs`` before an epoch without mistakes."""


def sign(scores):
    """+1 where the score is > 0, else -1 (a point on the plane is labelled -1)."""
    return np.where(np.asarray(scores) > 0, 1, -1)


class _OnlinePass:
    """Mutable training state: current weights, offset and the number of visits so far.

    The weights and the offset share one vector ``v = (w, b)`` (``w`` alone
    without an offset), which is what the mistake finder scores with.
    """

    def __init__(self, n_features, fit_intercept):
        self.v = np.zeros(n_features + (1 if fit_intercept else 0))
        self.w = self.v[:n_features]
        self.fit_intercept = fit_intercept
        self.visits = 0
        self.mistakes = 0

    @property
    def b(self):
        """The offset (0.0 without one)."""
        return float(self.v[-1]) if self.fit_intercept else 0.0

    # Subclasses that override on_mistake set this, so the plain perceptron pays no call per mistake.
    keeps_history = False

    def on_mistake(self, x, y, visit):
        """Hook called before the update for the mistake made at ``visit`` (0-based).

        ``y`` is the signed step of the update: the label times the example's weight.
        """

    def run_epoch(self, finder):
        """One pass over the finder's examples in its order; returns the number of mistakes."""
        made = finder.run_epoch(self)
        self.visits += finder.n
        self.mistakes += made
        return made


def run_epochs(state, finder, max_epochs, order_of_epoch=None):
    """Run epochs until one makes no mistake or ``max_epochs`` have run.

    ``order_of_epoch``, when given, returns the finder to use for each epoch
    (a reordered one when shuffling).  Returns ``(n_epochs, converged)``.
    """
    made = None
    with single_threaded_blas():
        for epoch in range(1, max_epochs + 1):
            finder.start_epoch(made)
            current = finder if order_of_epoch is None else order_of_epoch(finder)
            made = state.run_epoch(current)
            if made == 0:
                return epoch, True
    return max_epochs, False
