"""Figures of the course: data, a hyperplane with its normal, the margin band, an update.

Every function draws on the axes it is given (or on the current axes when
``ax`` is None), returns them, and never calls ``plt.show()``, so figures can
be composed, tested with the Agg backend, and embedded in the book.
"""

import html
import logging
import re

import numpy as np

from ._validation import check_labels, check_X

__all__ = [
    "plot_data", "plot_hyperplane", "plot_margin", "plot_update", "animate_training", "animation_html",
    "AnimationPlayer",
]

POSITIVE = dict(marker="o", color="#1f77b4", label="$y=+1$")
NEGATIVE = dict(marker="s", color="#d62728", label="$y=-1$")


def _axes(ax):
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.gca()
    return ax


def plot_data(X, y, ax=None, *, size=40):
    """Scatter 2-D points, circles for +1 and squares for -1 (shape and colour both carry the label).

    Returns
    -------
    matplotlib.axes.Axes
    """
    X = check_X(X)
    y = check_labels(y, n_samples=X.shape[0])
    if X.shape[1] != 2:
        raise ValueError(f"plot_data draws 2-D data; X has {X.shape[1]} features.")
    ax = _axes(ax)
    for label, style in ((1, POSITIVE), (-1, NEGATIVE)):
        pts = X[y == label]
        ax.scatter(pts[:, 0], pts[:, 1], s=size, edgecolors="black", linewidths=0.5, zorder=3, **style)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    return ax


def _line_points(w, b, ax):
    """Two far-apart points on the line ``w @ x + b = 0`` inside the current view."""
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (2,) or not np.any(w):
        raise ValueError(f"w must be a non-zero vector of shape (2,). Got {w!r}.")
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    span = 4 * max(x1 - x0, y1 - y0, 1.0)
    foot = -b * w / (w @ w)  # the point of the line closest to the origin
    direction = np.array([-w[1], w[0]]) / np.linalg.norm(w)
    return foot, direction, span


def plot_hyperplane(w, b=0.0, ax=None, *, show_normal=True, shade=True, color="black", label=None, **line_kw):
    """Draw the line ``w @ x + b = 0`` in 2-D, with its normal vector ``w`` as an arrow.

    With ``shade=True`` the positive side (where ``w`` points) is lightly shaded.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax)
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    foot, direction, span = _line_points(w, b, ax)
    ends = np.array([foot - span * direction, foot + span * direction])
    ax.plot(ends[:, 0], ends[:, 1], color=color, label=label, **line_kw)
    w = np.asarray(w, dtype=np.float64)
    unit = w / np.linalg.norm(w)
    if shade:
        side = np.array([ends[0], ends[1], ends[1] + span * unit, ends[0] + span * unit])
        ax.fill(side[:, 0], side[:, 1], color=color, alpha=0.05, zorder=0)
    if show_normal:
        ax.annotate("", xy=foot + unit, xytext=foot, arrowprops=dict(arrowstyle="->", color=color, lw=1.5))
        ax.text(*(foot + 1.1 * unit), "$w$", color=color)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return ax


def plot_margin(w, b, gamma, ax=None, *, color="gray"):
    """Dashed lines at distance ``gamma`` on both sides of ``w @ x + b = 0``.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax)
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    foot, direction, span = _line_points(w, b, ax)
    unit = np.asarray(w, dtype=np.float64) / np.linalg.norm(w)
    for side in (-1, 1):
        centre = foot + side * gamma * unit
        ends = np.array([centre - span * direction, centre + span * direction])
        ax.plot(ends[:, 0], ends[:, 1], linestyle="--", color=color, linewidth=1)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return ax


def plot_update(w, b, x, y, ax=None):
    """One perceptron update: the plane before (dotted) and after (solid), and the example.

    Returns
    -------
    matplotlib.axes.Axes
    """
    ax = _axes(ax)
    w = np.asarray(w, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    w_new, b_new = w + y * x, b + y
    style = POSITIVE if y > 0 else NEGATIVE
    ax.scatter([x[0]], [x[1]], s=120, edgecolors="black", zorder=4, **style)
    ax.annotate("", xy=x, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=style["color"], lw=1))
    if np.any(w):
        plot_hyperplane(w, b, ax, color="gray", linestyle=":", label="before", show_normal=True)
    plot_hyperplane(w_new, b_new, ax, color="black", label="after", show_normal=True)
    return ax


def animate_training(X, y, *, fit_intercept=True, max_epochs=20, interval=700, limits=None, figsize=(5, 5)):
    """An animation of the cyclic perceptron on 2-D data, one frame per mistake.

    Returns
    -------
    matplotlib.animation.FuncAnimation
        Show it in a notebook with ``IPython.display.HTML(animation_html(anim, alt=...))``.
    """
    import matplotlib.pyplot as plt
    from matplotlib.animation import FuncAnimation

    from .trace import trace_perceptron

    X = check_X(X)
    y = check_labels(y, n_samples=X.shape[0])
    updates = [s for s in trace_perceptron(X, y, fit_intercept=fit_intercept, max_epochs=max_epochs) if s.mistake]
    fig, ax = plt.subplots(figsize=figsize)
    pad = 0.5
    lo, hi = (X.min(axis=0) - pad, X.max(axis=0) + pad) if limits is None else limits

    def draw(k):
        ax.clear()
        ax.set_xlim(lo[0], hi[0])
        ax.set_ylim(lo[1], hi[1])
        plot_data(X, y, ax)
        step = updates[k]
        ax.scatter([step.x[0]], [step.x[1]], s=250, facecolors="none", edgecolors="orange", linewidths=2, zorder=5)
        plot_hyperplane(step.w, step.b, ax)
        ax.set_title(f"update {k + 1} of {len(updates)} (epoch {step.epoch}, example {step.index + 1})")
        return []

    anim = FuncAnimation(fig, draw, frames=len(updates), interval=interval, blit=False)
    plt.close(fig)
    return anim


# The player matplotlib writes styles its buttons with Font Awesome from a
# CDN; these plain characters stand in for the icons so it works offline.
_PLAYER_ICONS = {
    "fa-minus": "&minus;",
    "fa-plus": "+",
    "fa-fast-backward": "&#8676;",
    "fa-fast-forward": "&#8677;",
    "fa-step-backward": "&lsaquo;",
    "fa-step-forward": "&rsaquo;",
    "fa-pause": "&#10074;&#10074;",
    "fa-play fa-flip-horizontal": "&#9664;",
    "fa-play": "&#9654;",
}


def animation_html(anim, *, alt):
    """A self-contained HTML player for an animation: frames inline, nothing loaded from the network.

    Parameters
    ----------
    anim : matplotlib.animation.Animation
    alt : str
        Text alternative for the frames, for readers who cannot see them.

    Returns
    -------
    str
        HTML to show with ``IPython.display.HTML``.
    """
    if not alt or not alt.strip():
        raise ValueError("alt must describe the animation for readers who cannot see it.")
    drawing_log = logging.getLogger("matplotlib.axes._base")
    level = drawing_log.level
    drawing_log.setLevel(logging.ERROR)  # a fixed view with equal aspect is reported at every frame
    try:
        page = anim.to_jshtml()
    finally:
        drawing_log.setLevel(level)
    page = re.sub(r'<link rel="stylesheet"\s+href="https?://[^"]*"\s*/?>', "", page)
    for icon, text in _PLAYER_ICONS.items():
        page = page.replace(f'<i class="fa {icon}"></i>', text)
    page = page.replace("<img id=", f'<img alt="{html.escape(alt)}" id=', 1)
    if re.search(r"(src|href)=[\"']https?://", page):
        raise RuntimeError("The animation player still loads a resource from the network.")
    return page


class AnimationPlayer:
    """An animation as a notebook shows it: the player in a browser, the last frame elsewhere.

    A browser (Jupyter, the book's web pages) shows the self-contained HTML player of
    :func:`animation_html`. An output that cannot run a player, such as the book's PDF,
    shows the PNG of the last frame instead: the state the animation ends in. Both are
    made when the player is created.

    Parameters
    ----------
    anim : matplotlib.animation.Animation
    alt : str
        Text alternative for the frames, for readers who cannot see them.

    Examples
    --------
    >>> from perceptron_lib import four_point_example
    >>> X, y = four_point_example()
    >>> player = AnimationPlayer(animate_training(X, y, fit_intercept=False, figsize=(2, 2)),
    ...                          alt="Two updates on four points")
    >>> player._repr_png_()[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
    True
    """

    def __init__(self, anim, *, alt):
        import io

        self.html = animation_html(anim, alt=alt)
        # to_jshtml draws every frame in order, so the figure now holds the last one.
        # Animation keeps its figure in ``_fig``; matplotlib offers no public accessor.
        buffer = io.BytesIO()
        anim._fig.savefig(buffer, format="png")
        self.png = buffer.getvalue()

    def _repr_html_(self):
        return self.html

    def _repr_png_(self):
        return self.png
