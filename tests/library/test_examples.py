"""The worked examples of the course notes, reproduced exactly."""

import numpy as np
import pytest

import perceptron_lib as pl


def test_four_point_example_two_updates_to_one_one():
    X, y = pl.four_point_example()
    model = pl.Perceptron(fit_intercept=False).fit(X, y)
    np.testing.assert_array_equal(model.coef_, [1.0, 1.0])
    assert model.n_mistakes_ == 2
    steps = pl.trace_perceptron(X, y, fit_intercept=False)
    mistakes = [s for s in steps if s.mistake]
    assert [(s.index, s.score) for s in mistakes] == [(0, 0.0), (1, 0.0)]  # both scores are exactly 0
    np.testing.assert_array_equal(mistakes[0].w, [1.0, 0.0])
    np.testing.assert_array_equal(mistakes[1].w, [1.0, 1.0])


def test_offset_update_example():
    ex = pl.offset_update_example()
    assert ex.w @ ex.x + ex.b == -1.0
    w, b, mistake = pl.perceptron_update(ex.w, ex.b, ex.x, ex.y)
    assert mistake
    np.testing.assert_array_equal(w, ex.w_after)
    assert b == ex.b_after
    assert ex.next_y * (w @ ex.next_x + b) <= 0  # the new weights get (-1.5, 1.5) wrong
    assert w @ ex.next_x + b == 2.0


def test_one_dimensional_example():
    X, y = pl.one_dimensional_example()
    np.testing.assert_array_equal(pl.sign(X @ np.array([-1.0]) + 2.5), y)
    assert pl.is_separated(pl.absorb_offset(X), y, np.array([-1.0, 2.5]))


def test_trace_agrees_with_the_model_on_every_step():
    X, y, _ = pl.make_separable(25, 2, margin=0.1, random_state=9)
    steps = pl.trace_perceptron(X, y)
    model = pl.Perceptron().fit(X, y)
    np.testing.assert_array_equal(steps[-1].w, model.coef_)
    assert steps[-1].b == model.intercept_
    assert sum(s.mistake for s in steps) == model.n_mistakes_
    assert steps[-1].epoch == model.n_epochs_
    assert all(s.prediction == (1 if s.score > 0 else -1) for s in steps)


def test_format_trace_renders_one_row_per_visit():
    X, y = pl.four_point_example()
    steps = pl.trace_perceptron(X, y, fit_intercept=False)
    table = pl.format_trace(steps, fit_intercept=False).splitlines()
    assert len(table) == 2 + len(steps) == 10
    assert table[3] == "| 1 | 2 | (0, -1) | -1 | 0 | -1 | yes | (1, 1) |"


def test_update_leaves_weights_alone_on_a_correct_example():
    w = np.array([1.0, 1.0])
    w_new, b_new, mistake = pl.perceptron_update(w, 0.0, np.array([1.0, 0.0]), 1)
    assert not mistake and b_new == 0.0
    np.testing.assert_array_equal(w_new, w)
    assert w_new is not w


def test_update_counts_a_point_on_the_plane_as_a_mistake():
    w_new, b_new, mistake = pl.perceptron_update(np.zeros(2), 0.0, np.array([1.0, 2.0]), -1)
    assert mistake
    np.testing.assert_array_equal(w_new, [-1.0, -2.0])
    assert b_new == -1.0


@pytest.mark.parametrize("constant", [1.0, 10.0])
def test_absorb_and_split_offset_round_trip(constant):
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    lifted = pl.absorb_offset(X, constant=constant)
    np.testing.assert_array_equal(lifted[:, -1], constant)
    w, b = pl.split_offset(np.array([0.5, -1.0, 2.0]), constant=constant)
    np.testing.assert_array_equal(lifted @ np.array([0.5, -1.0, 2.0]), X @ w + b)


def test_signed_distance_and_margin():
    X = np.array([[3.0, 4.0], [0.0, 0.0], [0.0, 2.0]])
    np.testing.assert_allclose(pl.signed_distance(X, [3.0, 4.0], -5.0), [4.0, -1.0, 0.6])
    assert pl.margin(X[:2], [1, -1], [3.0, 4.0], -5.0) == pytest.approx(1.0)
    assert pl.margin(X, [1, 1, 1], [3.0, 4.0], -5.0) == pytest.approx(-1.0)
    assert pl.radius(X) == 5.0
