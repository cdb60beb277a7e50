"""Plot helpers draw on the axes they are given, return them, and never show."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

import perceptron_lib as pl
from perceptron_lib import plotting


@pytest.fixture
def ax():
    fig, ax = plt.subplots()
    ax.set_xlim(-2, 2)
    ax.set_ylim(-2, 2)
    yield ax
    plt.close(fig)


def test_plot_data_marks_each_class(ax):
    X, y = pl.four_point_example()
    assert plotting.plot_data(X, y, ax) is ax
    assert len(ax.collections) == 2
    assert sorted(len(c.get_offsets()) for c in ax.collections) == [2, 2]


def test_plot_hyperplane_draws_the_line_where_the_score_is_zero(ax):
    w, b = np.array([1.0, 1.0]), -0.5
    assert plotting.plot_hyperplane(w, b, ax) is ax
    line = ax.lines[0].get_xydata()
    np.testing.assert_allclose(line @ w + b, 0.0, atol=1e-9)
    assert ax.get_xlim() == (-2, 2)


def test_plot_margin_draws_two_parallel_lines_at_distance_gamma(ax):
    w = np.array([0.0, 2.0])
    plotting.plot_margin(w, 0.0, 0.5, ax)
    distances = sorted(float(pl.signed_distance(l.get_xydata()[:1], w)[0]) for l in ax.lines)
    np.testing.assert_allclose(distances, [-0.5, 0.5])


def test_plot_update_shows_the_plane_before_and_after(ax):
    ex = pl.offset_update_example()
    plotting.plot_update(ex.w, ex.b, ex.x, ex.y, ax)
    labels = [l.get_label() for l in ax.lines]
    assert "before" in labels and "after" in labels


def test_animate_training_has_one_frame_per_update():
    X, y = pl.four_point_example()
    anim = plotting.animate_training(X, y, fit_intercept=False)
    html = anim.to_jshtml()
    assert html.count("frames[0]") == 1 and html.count("frames[1]") == 1 and "frames[2]" not in html


def test_animation_html_is_self_contained_and_described():
    X, y = pl.four_point_example()
    page = plotting.animation_html(plotting.animate_training(X, y, fit_intercept=False, figsize=(2, 2)), alt="Two updates")
    assert 'alt="Two updates"' in page
    assert "http://" not in page and "https://" not in page
    assert 'class="fa' not in page
    with pytest.raises(ValueError, match="alt must describe"):
        plotting.animation_html(object(), alt=" ")



def _frame_pixels(png: bytes) -> np.ndarray:
    import io

    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def test_animation_player_shows_the_last_frame_where_html_cannot_run():
    import base64
    import re

    X, y = pl.four_point_example()
    player = plotting.AnimationPlayer(
        plotting.animate_training(X, y, fit_intercept=False, figsize=(2, 2)), alt="Two updates")
    assert player._repr_html_() == player.html and 'alt="Two updates"' in player.html
    frames = {int(n): base64.b64decode(data) for n, data in
              re.findall(r'frames\[(\d+)\] = "data:image/png;base64,([^"]+)"', player.html)}
    assert sorted(frames) == [0, 1], "the four-point example makes two updates, one frame each"
    still = _frame_pixels(player._repr_png_())
    assert np.array_equal(still, _frame_pixels(frames[1])), "the PNG is not the player's last frame"
    assert not np.array_equal(still, _frame_pixels(frames[0]))


def test_plot_hyperplane_can_leave_the_sides_unshaded(ax):
    plotting.plot_hyperplane([1.0, 0.0], 0.0, ax, shade=False)
    assert len(ax.patches) == 0
    plotting.plot_hyperplane([1.0, 0.0], 0.0, ax)
    assert len(ax.patches) == 1


def test_plot_data_rejects_data_that_is_not_2d(ax):
    with pytest.raises(ValueError, match="draws 2-D data; X has 3 features"):
        plotting.plot_data(np.zeros((2, 3)), [1, -1], ax)


def _arrows(ax):
    from matplotlib.text import Annotation

    return [t for t in ax.texts if isinstance(t, Annotation) and t.arrow_patch is not None]


@pytest.mark.parametrize(
    "w, b",
    [((2.0, 1.0), -4.0), ((1.0, -1.0), 1.0), ((1.0, 1.0), 0.0), ((0.0, 2.0), -1.0), ((3.0, 0.0), 1.5)],
    ids=["crosses-both-axes", "notes-example", "through-origin", "parallel-to-x1", "parallel-to-x2"],
)
def test_plot_boundary_sketch_marks_two_points_of_the_line_and_the_normal_from_one(ax, w, b):
    assert plotting.plot_boundary_sketch(w, b, ax) is ax
    marked = np.array([c.get_offsets()[0] for c in ax.collections if len(c.get_offsets()) == 1])
    assert len(marked) == 2
    assert not np.allclose(marked[0], marked[1])
    np.testing.assert_allclose(marked @ np.array(w) + b, 0.0, atol=1e-12)
    (arrow,) = _arrows(ax)
    np.testing.assert_allclose(arrow.xyann, marked[0])
    np.testing.assert_allclose(np.array(arrow.xy) - marked[0], w)
    assert ax.get_xlim() == (-2, 2) and ax.get_ylim() == (-2, 2)


def test_plot_boundary_sketch_marks_where_the_line_crosses_the_axes(ax):
    plotting.plot_boundary_sketch([2.0, 1.0], -4.0, ax)
    labels = {t.get_text() for t in ax.texts}
    assert {"(0, 4)", "(2, 0)", "$w = (2, 1)$"} <= labels


def test_plot_boundary_sketch_through_the_origin_labels_it_without_a_minus_sign(ax):
    plotting.plot_boundary_sketch([1.0, 1.0], 0.0, ax)
    labels = {t.get_text() for t in ax.texts}
    assert {"(0, 0)", "(1, -1)"} <= labels


@pytest.mark.parametrize("w, b", [((0.0, 0.0), 1.0), ((1.0, 2.0, 3.0), 0.0), ((np.nan, 1.0), 0.0), ((1.0, 1.0), np.inf)])
def test_plot_boundary_sketch_rejects_a_line_it_cannot_draw(ax, w, b):
    with pytest.raises(ValueError, match="must be a finite"):
        plotting.plot_boundary_sketch(w, b, ax)
