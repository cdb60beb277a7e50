"""Bad input gets a clear error that names what arrived and what was expected."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import NotFittedError

import perceptron_lib as pl
from perceptron_lib import AveragedPerceptron, Perceptron, VotedPerceptron

MODELS = [Perceptron, VotedPerceptron, AveragedPerceptron]
GOOD_X = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
GOOD_Y = np.array([1, 1, -1])

BAD_INPUTS = {
    "X_is_1d": (np.array([1.0, 2.0, 3.0]), GOOD_Y, ValueError, r"2-D .* shape \(3,\).*reshape"),
    "X_is_3d": (np.zeros((3, 2, 1)), GOOD_Y, ValueError, r"2-D .* shape \(3, 2, 1\)"),
    "X_empty": (np.zeros((0, 2)), np.array([]), ValueError, r"at least one sample"),
    "X_no_features": (np.zeros((3, 0)), GOOD_Y, ValueError, r"at least one feature"),
    "X_has_nan": (np.array([[1.0, np.nan], [0.0, 1.0], [1.0, 1.0]]), GOOD_Y, ValueError, r"finite.*nan.*row 0, column 1"),
    "X_has_inf": (np.array([[1.0, 0.0], [np.inf, 1.0], [1.0, 1.0]]), GOOD_Y, ValueError, r"finite.*inf.*row 1, column 0"),
    "X_not_numbers": ([["a", "b"], ["c", "d"], ["e", "f"]], GOOD_Y, TypeError, r"converted to floats"),
    "X_is_none": (None, GOOD_Y, TypeError, r"Got None"),
    "y_wrong_length": (GOOD_X, np.array([1, -1]), ValueError, r"3 samples but y has 2 labels"),
    "y_is_2d": (GOOD_X, GOOD_Y.reshape(-1, 1), ValueError, r"1-D .* shape \(3, 1\)"),
    "y_zero_one": (GOOD_X, np.array([0, 1, 1]), ValueError, r"Found labels \[0, 1\].*np.where\(y == 1, 1, -1\)"),
    "y_strings": (GOOD_X, np.array(["cat", "dog", "cat"]), ValueError, r"Found labels \['cat', 'dog'\].*'dog'"),
    "y_three_classes": (GOOD_X, np.array([1, 2, 3]), ValueError, r"Found labels \[1, 2, 3\]"),
    "y_has_nan": (GOOD_X, np.array([1.0, np.nan, -1.0]), ValueError, r"-1 and \+1"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS), ids=str)
def test_train_perceptron_rejects_bad_input_with_a_clear_message(case):
    X, y, error, pattern = BAD_INPUTS[case]
    with pytest.raises(error, match=pattern):
        pl.train_perceptron(X, y)


# The estimators take any two labels, and flatten a column y with a warning as
# scikit-learn does; the rest is refused by scikit-learn's validation, whose
# messages its estimator checks hold to (test_estimator_checks.py).
LABEL_CASES = {"y_zero_one", "y_strings", "y_is_2d"}


@pytest.mark.parametrize("model_class", MODELS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("case", sorted(set(BAD_INPUTS) - LABEL_CASES), ids=str)
def test_estimators_reject_bad_input(model_class, case):
    X, y, error, _ = BAD_INPUTS[case]
    with pytest.raises((ValueError, TypeError)):
        model_class().fit(X, y)


@pytest.mark.parametrize("model_class", MODELS, ids=lambda c: c.__name__)
def test_binary_estimators_name_the_classes_they_cannot_use(model_class):
    with pytest.raises(ValueError, match=r"Only binary .* exactly two classes. Got 3 classes: \[1, 2, 3\]\. Use MulticlassPerceptron"):
        model_class().fit(GOOD_X, [1, 2, 3])
    with pytest.raises(ValueError, match=r"at least two classes in y; got only one class: \['a'\]"):
        model_class().fit(GOOD_X, ["a", "a", "a"])
    with pytest.raises(ValueError, match=r"non-zero sample_weight; got only one class: \['b'\]"):
        model_class().fit(GOOD_X, ["a", "b", "b"], sample_weight=[0.0, 1.0, 2.0])


@pytest.mark.parametrize(
    "weight, pattern",
    [([1.0, 2.0], r"shape \(n_samples,\) = \(3,\).*Got shape \(2,\)"),
     ([1.0, -2.0, 1.0], r"non-negative. Found -2.0 at index 1"),
     ([1.0, np.nan, 1.0], r"finite"),
     ([0.0, 0.0, 0.0], r"zero for every example")],
    ids=["wrong_length", "negative", "nan", "all_zero"],
)
def test_sample_weight_is_checked(weight, pattern):
    with pytest.raises(ValueError, match=pattern):
        Perceptron().fit(GOOD_X, GOOD_Y, sample_weight=weight)


@pytest.mark.parametrize("bad", [0, -1, 2.5, "10", True, None], ids=repr)
def test_max_epochs_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match=r"max_epochs must be an int in the range \[1, inf\). Got"):
        Perceptron(max_epochs=bad).fit(GOOD_X, GOOD_Y)


@pytest.mark.parametrize("model_class", MODELS, ids=lambda c: c.__name__)
def test_predict_before_fit_says_to_fit(model_class):
    with pytest.raises(NotFittedError, match="not fitted yet"):
        model_class().predict(GOOD_X)


@pytest.mark.parametrize("model_class", MODELS, ids=lambda c: c.__name__)
def test_predict_with_the_wrong_number_of_features(model_class):
    model = model_class().fit(GOOD_X, GOOD_Y)
    with pytest.raises(ValueError, match="X has 3 features, but .* is expecting 2 features"):
        model.predict(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="X has 3 features"):
        model.partial_fit(np.zeros((2, 3)), [1, -1])


@pytest.mark.parametrize("model_class", MODELS, ids=lambda c: c.__name__)
def test_running_out_of_epochs_warns_and_still_returns_a_model(model_class):
    X, y = pl.make_xor(20, random_state=0)
    with pytest.warns(pl.ConvergenceWarning, match="max_epochs=5"):
        model = model_class(max_epochs=5).fit(X, y)
    assert model.n_epochs_ == 5 and not model.converged_
    assert model.predict(X).shape == (20,)


def test_fit_does_not_modify_its_inputs_and_accepts_lists():
    X = GOOD_X.copy()
    y = GOOD_Y.copy()
    Perceptron().fit(X, y)
    np.testing.assert_array_equal(X, GOOD_X)
    np.testing.assert_array_equal(y, GOOD_Y)
    model = Perceptron().fit(X.tolist(), y.tolist())
    assert model.score(X, y) == 1.0


def test_fit_resets_state_and_partial_fit_continues():
    X, y = pl.four_point_example()
    model = Perceptron(fit_intercept=False).fit(X, y)
    first = model.coef_.copy()
    model.fit(X, y)
    np.testing.assert_array_equal(model.coef_, first)
    assert model.n_mistakes_ == 2
    online = Perceptron(fit_intercept=False).partial_fit(X[:2], y[:2]).partial_fit(X[2:], y[2:])
    np.testing.assert_array_equal(online.coef_, [1.0, 1.0])
    assert online.n_epochs_ == 2


def test_theory_helpers_reject_what_they_cannot_use():
    with pytest.raises(ValueError, match="zero vector defines no hyperplane"):
        pl.margin(GOOD_X, GOOD_Y, [0.0, 0.0])
    with pytest.raises(ValueError, match=r"w must have shape \(2,\)"):
        pl.signed_distance(GOOD_X, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="does not separate the data: its margin is"):
        pl.mistake_bound(GOOD_X, GOOD_Y, [-1.0, 0.0])
    with pytest.raises(ValueError, match=r"margin must be in the open range \(0, radius\)"):
        pl.make_separable(10, 2, margin=1.5)
    with pytest.raises(ValueError, match="y must be -1 or"):
        pl.perceptron_update(np.zeros(2), 0.0, np.ones(2), 0)
    with pytest.raises(ValueError, match="constant must be a finite non-zero"):
        pl.absorb_offset(GOOD_X, constant=0.0)
    with pytest.raises(ValueError, match="fraction must be in the range"):
        pl.flip_labels(GOOD_Y, 1.5)


def test_shuffle_depends_only_on_random_state():
    X, y, _ = pl.make_separable(100, 3, margin=0.05, random_state=0)
    a = Perceptron(shuffle=True, random_state=1).fit(X, y)
    b = Perceptron(shuffle=True, random_state=1).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Perceptron(shuffle=True, random_state=np.random.default_rng(3)).fit(X, y)
