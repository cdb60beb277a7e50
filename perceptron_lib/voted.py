"""The voted perceptron of Freund and Schapire (1999).

Every weight vector the perceptron holds during training gets a vote, weighted
by its survival count: the number of example visits after which it was the
current vector.  A vector that survived long was right often, so its vote
counts for more.  The estimator :class:`perceptron_lib.VotedPerceptron`
trains with this state.
"""

from ._base import _OnlinePass


class _VotedPass(_OnlinePass):
    """Training state that also remembers every finished weight vector and its count."""

    keeps_history = True

    def __init__(self, n_features, fit_intercept):
        super().__init__(n_features, fit_intercept)
        self.history_w = []
        self.history_b = []
        self.history_counts = []
        self.created_at = 0  # the visit after which the current vector was first held

    def on_mistake(self, x, y, visit):
        # The current vector was held after visits created_at .. visit-1.
        self.history_w.append(self.w.copy())
        self.history_b.append(self.b)
        self.history_counts.append(visit - self.created_at)
        self.created_at = visit
