"""The angle of the convergence proof: ``update_angles`` and the two figures drawn from it."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

import perceptron_lib as pl
from perceptron_lib import plotting
from perceptron_lib.trace import update_angles


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    yield ax
    plt.close(fig)


@pytest.fixture
def four_point_trace():
    X, y = pl.four_point_example()
    return pl.trace_perceptron(X, y, fit_intercept=False)


def test_four_point_angles_are_45_then_0_degrees(four_point_trace):
    # The updates give (1, 0) and then (1, 1); w* = (1, 1) / sqrt(2).
    angles = update_angles(four_point_trace, [1.0, 1.0])
    np.testing.assert_allclose(np.degrees(angles), [45.0, 0.0], atol=1e-12)


def test_the_length_of_w_star_does_not_matter(four_point_trace):
    np.testing.assert_allclose(update_angles(four_point_trace, [3.0, 3.0]),
                               update_angles(four_point_trace, [0.5, 0.5]), atol=1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_every_angle_respects_step_3_of_the_proof(seed):
    # cos(omega_k) >= sqrt(k) gamma / R for every update k, whatever the data.
    X, y, w_star = pl.make_separable(200, 5, margin=0.05, random_state=seed)
    steps = pl.trace_perceptron(X, y, fit_intercept=False, max_epochs=1000)
    angles = update_angles(steps, w_star)
    k = np.arange(1, len(angles) + 1)
    assert len(angles) == sum(step.mistake for step in steps) > 1
    assert np.all(np.cos(angles) >= np.sqrt(k) * pl.margin(X, y, w_star) / pl.radius(X) - 1e-12)


def test_weights_back_at_zero_have_no_angle():
    # Through the origin, XOR's weights cycle (1, 1), (0, 2), (1, 1), (0, 0).
    X, y = pl.make_xor(4, spread=0.0)
    steps = pl.trace_perceptron(X, y, fit_intercept=False, max_epochs=1)
    angles = update_angles(steps, [0.0, 1.0])
    assert len(angles) == 4
    np.testing.assert_allclose(np.degrees(angles[:3]), [45.0, 0.0, 45.0], atol=1e-12)
    assert np.isnan(angles[3])


def test_a_trace_with_an_offset_is_refused():
    X, y = pl.one_dimensional_example()
    with pytest.raises(ValueError, match="through the origin, but this trace has an offset"):
        update_angles(pl.trace_perceptron(X, y), [1.0])


@pytest.mark.parametrize(
    "w_star, message",
    [([0.0, 0.0], "non-zero"), ([1.0, 2.0, 3.0], r"shape \(2,\)"), ([np.inf, 1.0], "finite")],
)
def test_a_bad_w_star_is_refused(four_point_trace, w_star, message):
    with pytest.raises(ValueError, match=message):
        update_angles(four_point_trace, w_star)


def test_steps_must_be_a_trace():
    with pytest.raises(ValueError, match="list of TraceStep"):
        update_angles([np.zeros(2)], [1.0, 0.0])
    with pytest.raises(ValueError, match="empty"):
        update_angles([], [1.0, 0.0])


def test_plot_proof_geometry_draws_one_update_and_returns_the_axes(four_point_trace, ax, monkeypatch):
    monkeypatch.setattr(plt, "show", lambda *a, **k: pytest.fail("plot functions never call plt.show()"))
    assert plotting.plot_proof_geometry(four_point_trace, [1.0, 1.0], 2, ax) is ax
    texts = [t.get_text() for t in ax.texts]
    assert "$w^{(1)}$" in texts and "$w^{(2)}$" in texts
    assert "$\\omega_{1} = 45^\\circ$" in texts and "$\\omega_{2} = 0^\\circ$" in texts
    assert len([p for p in ax.patches if isinstance(p, matplotlib.patches.Arc)]) == 2
    # The view holds every weight vector of the trace.
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 < 0 < 1 < x1 and y0 < -1 and 1 < y1


def test_plot_proof_geometry_of_the_first_update_has_no_weights_before_it(four_point_trace, ax):
    plotting.plot_proof_geometry(four_point_trace, [1.0, 1.0], 1, ax, show_data=False)
    texts = [t.get_text() for t in ax.texts]
    assert "$w^{(0)}$" not in texts and "$w^{(1)}$" in texts
    assert ax.collections[0].get_offsets().shape == (1, 2)  # only the ringed example


def test_plot_proof_geometry_refuses_an_update_the_trace_does_not_have(four_point_trace, ax):
    with pytest.raises(ValueError, match="update must be an int from 1 to 2"):
        plotting.plot_proof_geometry(four_point_trace, [1.0, 1.0], 3, ax)
    X, y, w_star = pl.make_separable(20, 3, margin=0.1, random_state=0)
    with pytest.raises(ValueError, match="draws 2-D data; the trace has 3 features"):
        plotting.plot_proof_geometry(pl.trace_perceptron(X, y, fit_intercept=False), w_star, 1, ax)


def test_plot_update_angles_draws_the_angles_and_the_proof_ceiling(four_point_trace, ax):
    assert plotting.plot_update_angles(four_point_trace, [1.0, 1.0], ax) is ax
    np.testing.assert_allclose(ax.lines[0].get_ydata(), [45.0, 0.0], atol=1e-12)
    ax.clear()
    # R = 1 and gamma = 1 / sqrt(2): the ceiling arccos(sqrt(k / 2)) is 45 degrees at k = 1, 0 at k = 2.
    plotting.plot_update_angles(four_point_trace, [1.0, 1.0], ax, radius=1.0, margin=1 / np.sqrt(2))
    ceiling = ax.lines[1]
    np.testing.assert_allclose(ceiling.get_xdata(), [1, 2])
    np.testing.assert_allclose(ceiling.get_ydata(), [45.0, 0.0], atol=1e-6)


@pytest.mark.parametrize("kwargs", [dict(radius=1.0), dict(margin=0.5), dict(radius=1.0, margin=2.0),
                                    dict(radius=1.0, margin=0.0)])
def test_plot_update_angles_needs_both_radius_and_a_margin_below_it(four_point_trace, ax, kwargs):
    with pytest.raises(ValueError, match="radius and margin"):
        plotting.plot_update_angles(four_point_trace, [1.0, 1.0], ax, **kwargs)
