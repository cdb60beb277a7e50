"""The perceptrons as scikit-learn estimators: any labels, pipelines, cross-validation.

Each class is a thin layer over a training state that speaks the notes'
notation (:mod:`perceptron_lib.perceptron`, :mod:`~perceptron_lib.averaged`,
:mod:`~perceptron_lib.voted`, :mod:`~perceptron_lib.multiclass`).  The layer
validates its input with scikit-learn, maps the labels to what the training
state expects (the binary models: ``classes_[0]`` to -1 and ``classes_[1]``
to +1), turns ``sample_weight`` into the size of each example's update, and
publishes the fitted attributes.  This module imports scikit-learn, so
``import perceptron_lib`` loads it only when one of its classes is first used.
"""

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from ._base import ConvergenceWarning, _OnlinePass, run_epochs
from ._engine import MistakeFinder, MulticlassMistakeFinder, max_squared_norm, single_threaded_blas
from ._validation import check_positive_int, check_sample_weight
from .averaged import _AveragedPass
from .multiclass import _MulticlassPass
from .voted import _VotedPass

__all__ = ["Perceptron", "AveragedPerceptron", "VotedPerceptron", "MulticlassPerceptron"]


def _distinct_labels(y):
    """``np.unique(y)`` and the index of each label in it, after checking that ``y`` holds classes.

    Labels that are at most two numbers, the common case, take two passes over
    ``y`` instead of a sort.
    """
    if y.dtype.kind in "biuf" and y.shape[0] > 0:
        low, high = y.min(), y.max()
        integral = y.dtype.kind != "f" or (low == np.floor(low) and high == np.floor(high))
        positive = y == high
        if integral and (low == high or np.count_nonzero(positive) + np.count_nonzero(y == low) == y.shape[0]):
            if low == high:
                return np.array([low], dtype=y.dtype), np.zeros(y.shape[0], dtype=np.intp)
            return np.array([low, high], dtype=y.dtype), positive.view(np.int8)
    check_classification_targets(y)
    return np.unique(y, return_inverse=True)


def _describe_classes(classes):
    shown = ", ".join(repr(c.item() if hasattr(c, "item") else c) for c in classes[:10])
    return "[" + shown + (", ..." if len(classes) > 10 else "") + "]"


class _OnlineClassifier(ClassifierMixin, BaseEstimator):
    """What the estimators share: parameters, input handling, the fit and partial_fit loops.

    Subclasses say how labels are encoded for their training state
    (``_encode``), which state and finder they train with, and what they
    publish after training.
    """

    _state_class = _OnlinePass
    _min_classes, _max_classes = 2, 2

    def __init__(self, *, fit_intercept=True, max_epochs=1000, shuffle=False, random_state=None):
        self.fit_intercept = fit_intercept
        self.max_epochs = max_epochs
        self.shuffle = shuffle
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = self._max_classes > 2
        return tags

    # -- input --------------------------------------------------------------
    def _check_params(self):
        check_positive_int(self.max_epochs, "max_epochs")
        for flag in ("fit_intercept", "shuffle"):
            if not isinstance(getattr(self, flag), (bool, np.bool_)):
                raise TypeError(f"{flag} must be True or False. Got {getattr(self, flag)!r} instead.")

    def _check_classes(self, classes, where="y"):
        name = type(self).__name__
        if len(classes) < self._min_classes:
            raise ValueError(
                f"{name} needs examples of at least two classes in {where}; got only one class: "
                f"{_describe_classes(classes)}."
            )
        if len(classes) > self._max_classes:
            raise ValueError(
                f"Only binary classification is supported by {name}: {where} must hold exactly two classes. "
                f"Got {len(classes)} classes: {_describe_classes(classes)}. Use MulticlassPerceptron for more than two."
            )

    def _training_set(self, X, y, sample_weight, *, reset, classes=None):
        """Validate a batch; return ``X``, each example's class index, its weight, and ``max ||x||^2``.

        Examples of weight zero are left out, exactly as if they had been removed.
        """
        X, y = validate_data(self, X, y, dtype=np.float64, order="C", reset=reset, ensure_all_finite=False)
        # One pass gives the largest norm, which the mistake finder needs, and
        # whether X is finite; scikit-learn names the problem when it is not.
        sq_norm = max_squared_norm(X)
        if not np.isfinite(sq_norm):
            check_array(X, ensure_all_finite=True, input_name="X", estimator=self)
        found, index = _distinct_labels(y)
        if reset:
            if classes is not None:
                classes = np.unique(np.asarray(classes))
            elif self._max_classes == 2 and y.dtype.kind in "iuf" and np.isin(found, (-1, 1)).all():
                # The notes' labels: an online stream may start with examples of one class.
                classes = np.array([-1, 1], dtype=y.dtype)
            else:
                classes = found
            self._check_classes(classes, "y" if classes is found else "classes")
            self.classes_ = classes
        elif classes is not None and not np.array_equal(np.unique(np.asarray(classes)), self.classes_):
            raise ValueError(
                f"classes={_describe_classes(np.unique(np.asarray(classes)))} differs from the classes of the "
                f"first call to partial_fit, {_describe_classes(self.classes_)}."
            )
        if not np.array_equal(self.classes_, found):
            index = np.searchsorted(self.classes_, y)
            index[index == len(self.classes_)] = 0
            unknown = self.classes_[index] != y
            if unknown.any():
                raise ValueError(
                    f"y contains labels that are not among the classes {_describe_classes(self.classes_)}: "
                    f"{_describe_classes(np.unique(y[unknown]))}."
                )
        weight = check_sample_weight(sample_weight, X.shape[0])
        if weight is not None:
            keep = weight > 0
            if not keep.all():
                X, index, weight = X[keep], index[keep], weight[keep]
                if X.shape[0] == 0:
                    raise ValueError("sample_weight is zero for every example: there is nothing to learn from.")
                if reset:
                    self._check_classes(np.unique(self.classes_[index]), "the examples of non-zero sample_weight")
        return X, index, weight, sq_norm

    # -- training -----------------------------------------------------------
    def _encode(self, index, weight):
        """The binary state's labels (-1, +1) and update steps (label times weight)."""
        y = np.where(index != 0, 1.0, -1.0)
        return y, (None if weight is None else y * weight)

    def _new_state(self, n_features):
        return self._state_class(n_features, bool(self.fit_intercept))

    def _finder(self, X, index, weight, sq_norm):
        y, step = self._encode(index, weight)
        return MistakeFinder(X, y, bool(self.fit_intercept), step, sq_norm)

    def _epoch_order(self, finder):
        return finder.reorder(self._rng.permutation(finder.n))

    def fit(self, X, y, sample_weight=None):
        """Train from zero weights, one epoch after another, until an epoch makes no mistake.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training inputs.
        y : array-like of shape (n_samples,)
            Labels: any two distinct values (numbers, strings, booleans).
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weight of each example: a mistake on it moves the
            weights by ``sample_weight[i] * y_i * x_i``. Examples of weight
            zero are left out. ``None`` gives every example weight 1.

        Returns
        -------
        self
            The fitted model.
        """
        self._check_params()
        X, index, weight, sq_norm = self._training_set(X, y, sample_weight, reset=True)
        self._rng = np.random.default_rng(self.random_state)
        self._state = self._new_state(X.shape[1])
        self.n_epochs_, self.converged_ = run_epochs(
            self._state, self._finder(X, index, weight, sq_norm), self.max_epochs,
            self._epoch_order if self.shuffle else None,
        )
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

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Make one online pass over ``(X, y)``, continuing from the current weights.

        The first call starts from zero weights.  ``converged_`` says whether this
        pass made no mistake.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like, default=None
            Every class the stream will contain. Needed on the first call unless
            its ``y`` already holds them all, or holds only the notes' labels -1
            and +1 (then the classes are -1 and +1); later calls may omit it.
        sample_weight : array-like of shape (n_samples,), default=None
            As in :meth:`fit`.

        Returns
        -------
        self
        """
        first = not hasattr(self, "_state")
        if first:
            self._check_params()
        X, index, weight, sq_norm = self._training_set(X, y, sample_weight, reset=first, classes=classes)
        if first:
            self._rng = np.random.default_rng(self.random_state)
            self._state = self._new_state(X.shape[1])
            self.n_epochs_ = 0
        finder = self._finder(X, index, weight, sq_norm)
        finder.start_epoch()
        with single_threaded_blas():
            made = self._state.run_epoch(self._epoch_order(finder) if self.shuffle else finder)
        self.n_epochs_ += 1
        self.converged_ = made == 0
        self._publish()
        return self

    def _publish(self):
        """Copy the training state into the public fitted attributes."""
        self.coef_ = self._state.w.copy()
        self.intercept_ = float(self._state.b)
        self.n_mistakes_ = self._state.mistakes

    # -- prediction -----------------------------------------------------------
    def _scores(self, X):
        return X @ self.coef_ + self.intercept_

    def decision_function(self, X):
        """Signed score of each sample; the predicted class is ``classes_[1]`` where it is > 0.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return self._scores(X)

    def predict(self, X):
        """Predicted class of each sample: ``classes_[1]`` where the score is > 0, else ``classes_[0]``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,), with entries from ``classes_``
        """
        positive = self.decision_function(X) > 0
        return self.classes_[positive.astype(np.intp)]


class Perceptron(_OnlineClassifier):
    """Rosenblatt's perceptron, trained by cyclic passes until a pass makes no mistake.

    A scikit-learn classifier for two classes: it clones, fits in a
    ``Pipeline``, and is cross-validated and grid-searched like any other.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an offset ``intercept_``; when False the plane passes through the origin.
    max_epochs : int, default=1000
        Upper limit on the number of passes over the data. Stopping there without
        an error-free pass raises a :class:`ConvergenceWarning`.
    shuffle : bool, default=False
        Visit the examples in a fresh random order in every epoch.
    random_state : int, numpy.random.Generator or None, default=None
        Seed of the shuffling; used only when ``shuffle=True``.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        The two labels, sorted. ``classes_[1]`` is the positive class (+1 in the
        notes' notation) and ``classes_[0]`` the negative one (-1).
    coef_ : ndarray of shape (n_features,)
        The weight vector ``w``. scikit-learn's binary linear models store the
        same vector as a row, with shape (1, n_features): ``coef_`` here is
        their ``coef_[0]``.
    intercept_ : float
        The offset ``b`` (0.0 when ``fit_intercept=False``); scikit-learn's
        ``intercept_[0]``.
    n_features_in_ : int
        Number of features seen in ``fit``.
    n_mistakes_ : int
        Number of updates made, over all epochs.
    n_epochs_ : int
        Number of passes made, including the final error-free one.
    converged_ : bool
        Whether the last pass made no mistake.

    Notes
    -----
    With the labels mapped to ``y = -1`` (``classes_[0]``) and ``y = +1``
    (``classes_[1]``), on each example ``(x, y)`` the model predicts with the
    sign of ``w @ x + b``. When ``y (w @ x + b) <= 0`` (a point on the plane
    counts as a mistake) it updates ``w <- w + s y x`` and ``b <- b + s y``, where
    ``s`` is the example's ``sample_weight`` (1 by default).

    Unweighted, with ``fit_intercept=False``, on data that a hyperplane through
    the origin separates with margin ``gamma``, inside a ball of radius ``R``,
    it makes at most ``(R / gamma)^2`` mistakes (Novikoff, 1962). With the
    offset the same holds with ``R`` and ``gamma`` those of ``absorb_offset(X)``:
    for a separator ``(w, b)`` of margin ``gamma`` at distance
    ``D = |b| / ||w||`` from the origin, at most
    ``(R^2 + 1) (1 + D^2) / gamma^2`` mistakes, the value of
    ``mistake_bound(absorb_offset(X), y, np.append(w, b))``.

    The examples are not visited one by one in Python: each block of examples
    is scored with one matrix product, and training jumps to the first mistake
    in the block.  The updates are exactly those of the one-example loop.

    References
    ----------
    F. Rosenblatt (1958). The perceptron: a probabilistic model for information
    storage and organization in the brain. Psychological Review 65(6).

    Examples
    --------
    >>> from perceptron_lib import Perceptron
    >>> X = [[1, 0], [0, -1], [0, 1], [-1, 0]]
    >>> y = [1, -1, 1, -1]
    >>> model = Perceptron(fit_intercept=False).fit(X, y)
    >>> model.coef_, model.n_mistakes_, model.n_epochs_
    (array([1., 1.]), 2, 2)
    >>> model.predict([[2, 1], [-1, -3]])
    array([ 1, -1])

    Any two labels work; the second in sorted order is the positive class.

    >>> Perceptron(fit_intercept=False).fit(X, ["yes", "no", "yes", "no"]).predict([[2, 1]])
    array(['yes'], dtype='<U3')
    """


class AveragedPerceptron(_OnlineClassifier):
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
    classes_ : ndarray of shape (2,)
        As in :class:`Perceptron`.
    coef_ : ndarray of shape (n_features,)
        The average of the weight vectors held after each example visit
        (scikit-learn's binary models would store it with shape (1, n_features)).
    intercept_ : float
        The average of the offsets, likewise.
    last_coef_, last_intercept_ : ndarray of shape (n_features,), float
        The final weights, what the plain perceptron would return.
    n_features_in_, n_mistakes_, n_epochs_, converged_
        As in :class:`Perceptron`.

    Notes
    -----
    With ``T`` visits and a mistake on ``(x_s, y_s)`` at visit ``s = 0, 1, ...``,
    the weights held after visit ``t`` are ``w_t = sum_{s < t} y_s x_s`` over the
    mistakes, so ``(1/T) sum_{t=1..T} w_t = w_T - u / T`` with
    ``u = sum_s s y_s x_s``. Daumé's algorithm starts its counter at 1 instead
    of 0 and divides by ``T + 1``; that averages in the starting zero vector
    too, scales the result by ``T / (T + 1)``, and never changes a prediction.
    With ``sample_weight``, each update is scaled by its example's weight and
    the average still runs over visits.

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


class VotedPerceptron(_OnlineClassifier):
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
    classes_ : ndarray of shape (2,)
        As in :class:`Perceptron`; a positive vote predicts ``classes_[1]``.
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
        The last weight vector and offset (what the plain perceptron returns;
        scikit-learn's shapes would be (1, n_features) and (1,)).
    n_features_in_, n_mistakes_, n_epochs_, converged_
        As in :class:`Perceptron`.

    Notes
    -----
    The prediction is ``sign(sum_k c_k sign(w_k @ x + b_k))`` with ``sign(s) = +1``
    for ``s > 0`` and ``-1`` otherwise. Training is the perceptron's; only the
    bookkeeping differs. It stores one vector per mistake, so memory grows with
    the number of mistakes. ``sample_weight`` scales each update; the counts
    still count visits.

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

    def _scores(self, X):
        """The weighted vote ``sum_k c_k sign(w_k @ x + b_k)`` for each sample."""
        keep = self.counts_ > 0
        votes = np.where(X @ self.weights_[keep].T + self.intercepts_[keep] > 0, 1, -1)
        return (votes * self.counts_[keep]).sum(axis=1).astype(np.float64)


class MulticlassPerceptron(_OnlineClassifier):
    """The multiclass perceptron: one weight vector per class, the highest score wins.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Learn an offset for each class.
    max_epochs : int, default=1000
    shuffle : bool, default=False
    random_state : int, numpy.random.Generator or None, default=None
        As in :class:`Perceptron`.
    average : bool, default=False
        Predict with the average of the weights held after every example visit
        (the averaged perceptron, one class at a time) instead of the last ones.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The labels, sorted; row ``c`` of ``coef_`` belongs to ``classes_[c]``.
    coef_ : ndarray of shape (n_classes, n_features)
        The weight vector of each class (their average when ``average=True``).
        Unlike scikit-learn's linear models, which keep one row for two classes,
        there is always one row per class; with two classes the rows are
        ``-w`` and ``w``, where ``w`` is the binary perceptron's weights.
    intercept_ : ndarray of shape (n_classes,)
        The offset of each class (likewise averaged).
    last_coef_, last_intercept_ : ndarray
        With ``average=True``: the final weights and offsets.
    n_features_in_, n_mistakes_, n_epochs_, converged_
        As in :class:`Perceptron`.

    Notes
    -----
    On an example ``(x, y)`` with weight ``s`` (1 by default), let ``r`` be the
    other class of highest score ``w_r @ x + b_r``, the lowest index on a tie.
    When ``r`` scores at least as high as ``y`` (a tie is a mistake), the update
    is ``w_y += s x``, ``b_y += s``, ``w_r -= s x``, ``b_r -= s``.  Prediction is
    the class of highest score, the lowest index on a tie. On data that some
    weights separate with margin ``gamma`` (``||W|| = 1`` over all classes and
    offsets, every example's own score beating every other by ``gamma``), with
    every ``(x, 1)`` (``x`` alone without offsets) inside a ball of radius ``R``,
    it makes at most ``2 (R / gamma)^2`` mistakes when unweighted: Collins's
    (2002) bound, with the factor 2 because an update moves two rows by ``x``. For two classes, ``decision_function`` returns the
    score of ``classes_[1]`` minus that of ``classes_[0]``, as scikit-learn's
    binary classifiers do.

    References
    ----------
    M. Collins (2002). Discriminative training methods for hidden Markov
    models: theory and experiments with perceptron algorithms. EMNLP.

    K. Crammer and Y. Singer (2003). Ultraconservative online algorithms for
    multiclass problems. Journal of Machine Learning Research 3.

    Examples
    --------
    >>> from perceptron_lib import MulticlassPerceptron
    >>> X = [[2, 0], [0, 2], [-2, -2], [3, 1], [1, 3], [-1, -3]]
    >>> y = ["east", "north", "south-west", "east", "north", "south-west"]
    >>> model = MulticlassPerceptron(fit_intercept=False).fit(X, y)
    >>> model.predict([[5, 0], [0, 5], [-4, -4]])
    array(['east', 'north', 'south-west'], dtype='<U10')
    >>> model.n_mistakes_, model.n_epochs_
    (4, 2)
    """

    _min_classes, _max_classes = 2, np.inf

    def __init__(self, *, fit_intercept=True, max_epochs=1000, shuffle=False, random_state=None, average=False):
        super().__init__(fit_intercept=fit_intercept, max_epochs=max_epochs, shuffle=shuffle, random_state=random_state)
        self.average = average

    def _check_params(self):
        super()._check_params()
        if not isinstance(self.average, (bool, np.bool_)):
            raise TypeError(f"average must be True or False. Got {self.average!r} instead.")

    def _new_state(self, n_features):
        return _MulticlassPass(len(self.classes_), n_features, bool(self.fit_intercept), bool(self.average))

    def _finder(self, X, index, weight, sq_norm):
        step = np.ones(X.shape[0]) if weight is None else weight
        return MulticlassMistakeFinder(X, index, bool(self.fit_intercept), step, sq_norm)

    def _publish(self):
        state = self._state
        self.coef_, self.intercept_ = state.W.copy(), state.b.copy()
        if self.average:
            self.last_coef_, self.last_intercept_ = self.coef_, self.intercept_
            self.coef_, self.intercept_ = state.averaged()
        self.n_mistakes_ = state.mistakes

    def decision_function(self, X):
        """The score of each class for each sample; two classes give one column, as in scikit-learn.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples, n_classes), or (n_samples,) for two classes
            With two classes, the score of ``classes_[1]`` minus that of ``classes_[0]``.
        """
        check_is_fitted(self)
        scores = self._class_scores(validate_data(self, X, dtype=np.float64, reset=False))
        return scores[:, 1] - scores[:, 0] if len(self.classes_) == 2 else scores

    def _class_scores(self, X):
        return X @ self.coef_.T + self.intercept_

    def predict(self, X):
        """The class of highest score for each sample (the first in ``classes_`` on a tie).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,), with entries from ``classes_``
        """
        check_is_fitted(self)
        scores = self._class_scores(validate_data(self, X, dtype=np.float64, reset=False))
        return self.classes_[scores.argmax(axis=1)]
