"""The voted perceptron of Freund and Schapire (1999).

Every weight vector the perceptron holds during training gets a vote, weighted
by its survival count: the number of example visits after which it was the
current vector.  A vector that survived long was right often, so its vote
counts for more.
"""

import numpy as np

from ._base import OnlineLinearClassifier, _OnlinePass, sign
from ._validation import check_X

__all__ = ["VotedPerceptron"]


class _VotedPass(_OnlinePass):
    """Training state that also remembers every finished weight vector and its count."""

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


class VotedPerceptron(OnlineLinearClassifier):
    """The voted perceptron: every weight vector seen in training votes on each prediction.

    Parameters
    ----------
    fit_intercept : bool, default=True
    max_epochs : int, default=1000
    shuffle : bool, default=False
    random_state : int, numpy.random.Generator or None, default=None
        As in :class:`Perceptron`.

    Attributes
    ----------
    weights_ : ndarray of shape (n_vectors, n_features)
        The weight vectors held during training, in order, starting with zero.
    intercepts_ : ndarray of shape (n_vectors,)
        Their offsets.
    counts_ : ndarray of shape (n_vectors,)
        Survival counts: the number of example visits after which each vector was
        the current one. They add up to the number of visits. Every vector counts
        the visit that created it, so only the starting zero vector (which scores
        0, a mistake, on the first visit) has count 0 and no say in the vote.
    coef_, intercept_ : ndarray of shape (n_features,), float
        The last weight vector and offset (what the plain perceptron returns).
    n_mistakes_, n_epochs_, converged_
        As in :class:`Perceptron`.

    Notes
    -----
    The prediction is ``sign(sum_k c_k sign(w_k @ x + b_k))`` with ``sign(s) = +1``
    for ``s > 0`` and ``-1`` otherwise. Training is the perceptron's; only the
    bookkeeping differs. It stores one vector per mistake, so memory grows with
    the number of mistakes.

    References
    ----------
    Y. Freund and R. E. Schapire (1999). Large margin classification using the
    perceptron algorithm. Machine Learning 37(3).

    Examples
    --------
    >>> from perceptron_lib import VotedPerceptron
    >>> X = [[1, 0], [0, -1], [0, 1], [-1, 0]]
    >>> y = [1, -1, 1, -1]
    >>> model = VotedPerceptron(fit_intercept=False).fit(X, y)
    >>> model.weights_
    array([[0., 0.],
           [1., 0.],
           [1., 1.]])
    >>> model.counts_
    array([0, 1, 7])
    >>> model.predict([[2, 1]])
    array([1])
    """

    _state_class = _VotedPass

    def _publish(self):
        super()._publish()
        s = self._state
        self.weights_ = np.array(s.history_w + [s.w.copy()]).reshape(-1, s.w.shape[0])
        self.intercepts_ = np.array(s.history_b + [s.b], dtype=np.float64)
        self.counts_ = np.array(s.history_counts + [s.visits - s.created_at], dtype=np.int64)

    def decision_function(self, X):
        """The weighted vote ``sum_k c_k sign(w_k @ x + b_k)`` for each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        self._check_fitted()
        X = check_X(X, n_features=self.n_features_in_)
        keep = self.counts_ > 0
        votes = sign(X @ self.weights_[keep].T + self.intercepts_[keep])
        return (votes * self.counts_[keep]).sum(axis=1).astype(np.float64)
