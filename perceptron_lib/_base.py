"""What the three perceptrons share: the constructor, the training passes, scoring.

Each model is a thin class over the same training pass.  The pass visits the
examples in order (or in a fresh random order per epoch when ``shuffle=True``),
updates ``w += y x`` and ``b += y`` on every example with ``y (w @ x + b) <= 0``,
and tells the model about each mistake and the visit at which it happened, so
the voted and averaged models can keep their extra bookkeeping without a
second loop.
"""

import warnings

import numpy as np

from ._engine import MistakeFinder, single_threaded_blas
from ._validation import check_labels, check_positive_int, check_X, check_X_y


class ConvergenceWarning(UserWarning):
    """Training stopped at ``max_epochs`` before an epoch without mistakes."""


def sign(scores):
    """+1 where the score is > 0, else -1 (a point on the plane is labelled -1)."""
    return np.where(np.asarray(scores) > 0, 1, -1)


class _OnlinePass:
    """Mutable training state: current weights, offset and the number of visits so far."""

    def __init__(self, n_features, fit_intercept):
        self.w = np.zeros(n_features)
        self.b = 0.0
        self.fit_intercept = fit_intercept
        self.visits = 0
        self.mistakes = 0

    def on_mistake(self, x, y, visit):
        """Hook called before the update for the mistake made at ``visit`` (0-based)."""

    def run_epoch(self, finder):
        """One pass over the finder's examples in its order; returns the number of mistakes."""
        X, y = finder.X, finder.y
        made = 0
        i = finder.first_mistake(self.w, self.b, 0)
        while i >= 0:
            self.on_mistake(X[i], y[i], self.visits + i)
            self.w += y[i] * X[i]
            if self.fit_intercept:
                self.b += y[i]
            made += 1
            i = finder.first_mistake(self.w, self.b, i + 1)
        self.visits += X.shape[0]
        self.mistakes += made
        return made


class OnlineLinearClassifier:
    """Base class of :class:`Perceptron`, :class:`VotedPerceptron` and :class:`AveragedPerceptron`."""

    _state_class = _OnlinePass

    def __init__(self, *, fit_intercept=True, max_epochs=1000, shuffle=False, random_state=None):
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.shuffle = shuffle
        self.random_state = random_state

    def __repr__(self):
        defaults = {"fit_intercept": True, "max_epochs": 1000, "shuffle": False, "random_state": None}
        changed = [f"{k}={getattr(self, k)!r}" for k, v in defaults.items() if getattr(self, k) != v]
        return f"{type(self).__name__}({', '.join(changed)})"

    # -- training ---------------------------------------------------------
    def _check_params(self):
        check_positive_int(self.max_epochs, "max_epochs")
        for flag in ("fit_intercept", "shuffle"):
            if not isinstance(getattr(self, flag), (bool, np.bool_)):
                raise TypeError(f"{flag} must be True or False. Got {getattr(self, flag)!r} instead.")

    def _epoch_order(self, finder):
        if not self.shuffle:
            return finder
        return finder.reorder(self._rng.permutation(finder.n))

    def fit(self, X, y):
        """Train from zero weights, one epoch after another, until an epoch makes no mistake.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Labels, each -1 or +1.

        Returns
        -------
        self
            The fitted model.
        """
        self._check_params()
        X, y = check_X_y(X, y)
        self._rng = np.random.default_rng(self.random_state)
        self._state = self._state_class(X.shape[1], bool(self.fit_intercept))
        finder = MistakeFinder(X, y, bool(self.fit_intercept))
        self.converged_ = False
        self.n_epochs_ = 0
        with single_threaded_blas():
            for _ in range(self.max_epochs):
                made = self._state.run_epoch(self._epoch_order(finder))
                self.n_epochs_ += 1
                if made == 0:
                    self.converged_ = True
                    break
        if not self.converged_:
            warnings.warn(
                f"{type(self).__name__} made mistakes in every one of its max_epochs={self.max_epochs} epochs; "
                "the data may not be linearly separable. Increase max_epochs, or use the averaged or voted "
                "perceptron on data that is not separable.",
                ConvergenceWarning,
                stacklevel=2,
            )
        self._publish()
        return self

    def partial_fit(self, X, y):
        """Make one online pass over ``(X, y)``, continuing from the current weights.

        The first call starts from zero weights.  ``converged_`` says whether this
        pass made no mistake.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        self._check_params()
        if not hasattr(self, "_state"):
            X, y = check_X_y(X, y)
            self._rng = np.random.default_rng(self.random_state)
            self._state = self._state_class(X.shape[1], bool(self.fit_intercept))
            self.n_epochs_ = 0
        else:
            X = check_X(X, n_features=self._state.w.shape[0])
            y = check_labels(y, n_samples=X.shape[0])
        with single_threaded_blas():
            made = self._state.run_epoch(self._epoch_order(MistakeFinder(X, y, bool(self.fit_intercept))))
        self.n_epochs_ += 1
        self.converged_ = made == 0
        self._publish()
        return self

    def _publish(self):
        """Copy the training state into the public fitted attributes."""
        self.coef_ = self._state.w.copy()
        self.intercept_ = float(self._state.b)
        self.n_mistakes_ = self._state.mistakes
        self.n_features_in_ = self._state.w.shape[0]

    # -- prediction -------------------------------------------------------
    def _check_fitted(self):
        if not hasattr(self, "coef_"):
            raise AttributeError(
                f"This {type(self).__name__} instance is not fitted yet. Call 'fit' with training data first."
            )

    def decision_function(self, X):
        """Signed score of each sample; the predicted label is +1 where it is > 0.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        self._check_fitted()
        X = check_X(X, n_features=self.n_features_in_)
        return X @ self.coef_ + self.intercept_

    def predict(self, X):
        """Predicted labels: +1 where the score is > 0, else -1.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) with entries -1 or +1
        """
        return sign(self.decision_function(X))

    def score(self, X, y):
        """Fraction of samples whose predicted label equals ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,), labels -1 or +1

        Returns
        -------
        float
        """
        X = check_X(X)
        y = check_labels(y, n_samples=X.shape[0])
        return float(np.mean(self.predict(X) == y))
