"""The averaged perceptron: predict with the average of every weight vector held.

Averaging is the linear version of the vote: where the voted perceptron adds
up ``c_k sign(w_k @ x + b_k)``, the averaged one adds up ``c_k (w_k @ x + b_k)``,
which is one dot product with ``sum_k c_k w_k``.  That sum is kept with one extra
vector (Daumé, *A Course in Machine Learning*): a mistake at visit ``s`` adds
``y x`` to every weight vector held from visit ``s`` on, so it contributes
``s y x`` less to the sum than if it had been there from the start.
"""

from ._base import OnlineLinearClassifier, _OnlinePass

__all__ = ["AveragedPerceptron"]


class _AveragedPass(_OnlinePass):
    """Training state with the cached sum ``u = sum_mistakes visit * y * x``."""

    def __init__(self, n_features, fit_intercept):
        super().__init__(n_features, fit_intercept)
        self.u = self.w.copy()
        self.beta = 0.0

    def on_mistake(self, x, y, visit):
        self.u += (visit * y) * x
        if self.fit_intercept:
            self.beta += visit * y

    def average(self):
        """The mean of the weights held after each of the ``visits`` visits: ``w - u / T``."""
        return self.w - self.u / self.visits, self.b - self.beta / self.visits


class AveragedPerceptron(OnlineLinearClassifier):
    """The averaged perceptron: the perceptron's training, predicting with the mean weights.

    Parameters
    ----------
    fit_intercept : bool, default=True
    max_epochs : int, default=1000
    shuffle : bool, default=False
    random_state : int, numpy.random.Generator or None, default=None
        As in :class:`Perceptron`.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The average of the weight vectors held after each example visit.
    intercept_ : float
        The average of the offsets, likewise.
    last_coef_, last_intercept_ : ndarray of shape (n_features,), float
        The final weights, what the plain perceptron would return.
    n_mistakes_, n_epochs_, converged_
        As in :class:`Perceptron`.

    Notes
    -----
    With ``T`` visits and a mistake on ``(x_s, y_s)`` at visit ``s = 0, 1, ...``,
    the weights held after visit ``t`` are ``w_t = sum_{s < t} y_s x_s`` over the
    mistakes, so ``(1/T) sum_{t=1..T} w_t = w_T - u / T`` with
    ``u = sum_s s y_s x_s``. Daumé's algorithm starts its counter at 1 instead
    of 0 and divides by ``T + 1``; that averages in the starting zero vector
    too, scales the result by ``T / (T + 1)``, and never changes a prediction.

    References
    ----------
    H. Daumé III (2017). A Course in Machine Learning, chapter 4.

    Examples
    --------
    >>> from perceptron_lib import AveragedPerceptron
    >>> X = [[1, 0], [0, -1], [0, 1], [-1, 0]]
    >>> y = [1, -1, 1, -1]
    >>> model = AveragedPerceptron(fit_intercept=False).fit(X, y)
    >>> model.coef_          # (0 * (0,0) + 1 * (1,0) + 7 * (1,1)) / 8 visits
    array([1.   , 0.875])
    >>> model.last_coef_
    array([1., 1.])
    """

    _state_class = _AveragedPass

    def _publish(self):
        super()._publish()
        w_avg, b_avg = self._state.average()
        self.last_coef_ = self.coef_
        self.last_intercept_ = self.intercept_
        self.coef_ = w_avg
        self.intercept_ = float(b_avg)
