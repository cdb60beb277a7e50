"""The averaged perceptron: predict with the average of every weight vector held.

Averaging is the linear version of the vote: where the voted perceptron adds
up ``c_k sign(w_k @ x + b_k)``, the averaged one adds up ``c_k (w_k @ x + b_k)``,
which is one dot product with ``sum_k c_k w_k``.  That sum is kept with one extra
vector (Daumé, *A Course in Machine Learning*): a mistake at visit ``s`` adds
``y x`` to every weight vector held from visit ``s`` on, so it contributes
``s y x`` less to the sum than if it had been there from the start.
The estimator :class:`perceptron_lib.AveragedPerceptron` trains with this state.
"""

from ._base import _OnlinePass


class _AveragedPass(_OnlinePass):
    """Training state with the cached sum ``u = sum_mistakes visit * y * x``.

    ``visit`` counts the visits made before this one (0 for the first), so it is
    the algorithm's ``t``, and ``u`` is the sum of ``(r - 1) y_r x_r`` over the
    rounds ``r`` (counted from 1) that made a mistake. ``y`` is the label times
    the example's ``sample_weight``: the label itself when unweighted.
    """

    keeps_history = True

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
