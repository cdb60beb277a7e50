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

__all__ = ["plot_data", "plot_hyperplane", "plot_margin", "plot_update", "animate_training", "animation_html",
           "AnimationPlayer", "plot_proof_geometry", "plot_update_angles", "plot_boundary_sketch"]

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

def plot_proof_geometry(steps, w_star, update, ax=None, *, show_data=True):
    """One update of the perceptron through the origin, as the convergence proof sees it.

    Draws the separating direction ``w_star`` (an arrow of length 1, with its
    line ``w_star @ x = 0``), the weights before the update (grey), the step
    ``y x`` from their tip (dashed, in the colour of the label), the weights
    after it (black), the example (ringed), and an arc for the angle between
    ``w_star`` and each of the two weight vectors, labelled in degrees. The view
    holds every weight vector and example of the trace, so the panels of one
    trace share a scale.

    Parameters
    ----------
    steps : list of TraceStep
        A trace of 2-D data through the origin: ``trace_perceptron(X, y, fit_intercept=False)``.
    w_star : array-like of shape (2,)
        A separating direction, of any non-zero length.
    update : int
        Which update to draw: 1 for the first, up to the number of updates of the trace.
    ax : matplotlib.axes.Axes, default=None
        The axes to draw on; the current axes when None.
    show_data : bool, default=True
        Also draw every example of the trace (circles for +1, squares for -1).

    Returns
    -------
    matplotlib.axes.Axes
    """
    from matplotlib.patches import Arc

    from .trace import update_angles

    steps = list(steps)
    angles = update_angles(steps, w_star)  # validates steps and w_star
    if steps[0].w.shape != (2,):
        raise ValueError(f"plot_proof_geometry draws 2-D data; the trace has {steps[0].w.shape[0]} features.")
    updates = [step for step in steps if step.mistake]
    if isinstance(update, bool) or not isinstance(update, (int, np.integer)) or not 1 <= update <= len(updates):
        raise ValueError(f"update must be an int from 1 to {len(updates)}, the number of updates of the trace. Got {update!r}.")
    ax = _axes(ax)
    weights = np.array([np.zeros(2)] + [step.w for step in updates])
    unit = np.asarray(w_star, dtype=np.float64) / np.linalg.norm(w_star)
    examples = np.unique(np.array([step.x for step in steps]), axis=0)
    # One view for every panel of the trace: the origin, all weights and examples, and w_star.
    points = np.vstack([weights, examples, unit])
    low, high = points.min(axis=0), points.max(axis=0)
    pad = 0.1 * max(high - low)
    ax.set_xlim(low[0] - pad, high[0] + pad)
    ax.set_ylim(low[1] - pad, high[1] + pad)
    ax.set_aspect("equal", adjustable="datalim")
    if show_data:
        labels = {tuple(step.x): step.y for step in steps}
        plot_data(examples, [labels[tuple(x)] for x in examples], ax, size=12)
        for points_drawn in ax.collections[-2:]:
            points_drawn.set_alpha(0.4)  # the data stay in the background of the vectors
    plot_hyperplane(unit, 0.0, ax, show_normal=False, shade=False, color="tab:green", linestyle=":", linewidth=1)
    ax.annotate("", xy=unit, xytext=(0, 0), arrowprops=dict(arrowstyle="-|>", color="tab:green", lw=2))
    ax.annotate("$w^\\ast$", xy=unit, xytext=(3, -10), textcoords="offset points", color="tab:green")

    step = updates[update - 1]
    before, after = weights[update - 1], weights[update]
    style = POSITIVE if step.y > 0 else NEGATIVE
    ax.scatter([step.x[0]], [step.x[1]], s=160, facecolors="none", edgecolors=style["color"], linewidths=1.5, zorder=4)
    ax.annotate("$x$", xy=step.x, xytext=(6, 6), textcoords="offset points", color=style["color"])
    ax.annotate("", xy=after, xytext=before, arrowprops=dict(arrowstyle="->", color=style["color"], lw=1.5, linestyle="--"))
    ax.annotate("$y\\,x$", xy=(before + after) / 2, xytext=(4, -12), textcoords="offset points", color=style["color"])
    arc_radius = 0.3 * max(high - low)  # the arc of the weights after; the one before sits well inside it
    star_degrees = np.degrees(np.arctan2(unit[1], unit[0]))
    drawn = [(update - 1, before, "gray")] if np.any(before) else []
    drawn.append((update, after, "black"))
    for k, w, colour in drawn:
        ax.annotate("", xy=w, xytext=(0, 0), arrowprops=dict(arrowstyle="-|>", color=colour, lw=1.8))
        ax.annotate(f"$w^{{({k})}}$", xy=w, xytext=(4, 4), textcoords="offset points", color=colour)
        w_degrees = np.degrees(np.arctan2(w[1], w[0]))
        turn = (w_degrees - star_degrees + 180.0) % 360.0 - 180.0  # signed, the short way round
        size = arc_radius * (0.55 if colour == "gray" else 1.0)
        ax.add_patch(Arc((0, 0), 2 * size, 2 * size, theta1=min(star_degrees, star_degrees + turn),
                         theta2=max(star_degrees, star_degrees + turn), color=colour, lw=1.2))
        middle = np.radians(star_degrees + turn / 2)
        ax.annotate(f"$\\omega_{{{k}}} = {np.degrees(angles[k - 1]):.0f}^\\circ$",
                    xy=size * np.array([np.cos(middle), np.sin(middle)]), xytext=(0, 0),
                    textcoords="offset points", fontsize=8, color=colour, ha="center", va="center",
                    bbox=dict(boxstyle="round,pad=0.1", facecolor="white", edgecolor="none", alpha=0.8))
    ax.set_title(f"update {update}: example {step.index + 1}, $y = {step.y:+d}$", fontsize=9)
    ax.set_xlabel("")
    ax.set_ylabel("")
    return ax


def plot_update_angles(steps, w_star, ax=None, *, radius=None, margin=None):
    """The angle between ``w^(k)`` and ``w_star`` after each update k, in degrees.

    With ``radius`` R and ``margin`` gamma (those of the data for the unit vector
    along ``w_star``), also draws the largest angle that Step 3 of the
    convergence proof allows after k updates, ``arccos(min(1, sqrt(k) gamma / R))``,
    which reaches 0 at k = (R / gamma)^2.

    Parameters
    ----------
    steps : list of TraceStep
        A trace of the perceptron through the origin.
    w_star : array-like of shape (n_features,)
        The reference direction, of any non-zero length.
    ax : matplotlib.axes.Axes, default=None
        The axes to draw on; the current axes when None.
    radius, margin : float, default=None
        Give both, positive, to draw the ceiling of the proof.

    Returns
    -------
    matplotlib.axes.Axes
    """
    from .trace import update_angles

    if (radius is None) != (margin is None):
        raise ValueError("Give both radius and margin to draw the proof's ceiling, or neither.")
    if radius is not None and not (np.isfinite(radius) and np.isfinite(margin) and 0 < margin <= radius):
        raise ValueError(
            f"radius and margin must be finite with 0 < margin <= radius. Got radius={radius!r}, margin={margin!r}."
        )
    degrees = np.degrees(update_angles(steps, w_star))
    ax = _axes(ax)
    k = np.arange(1, len(degrees) + 1)
    ax.plot(k, degrees, marker="o", color="black", label="angle $\\omega_k$ between $w^{(k)}$ and $w^\\ast$")
    if radius is not None:
        bound = (radius / margin) ** 2
        last = int(np.ceil(bound * (1 - 1e-12)))  # a bound of 2.0000000000000004 is 2, after rounding
        k_all = np.arange(1, max(last, len(degrees)) + 1)
        ceiling = np.degrees(np.arccos(np.minimum(1.0, np.sqrt(k_all) * margin / radius)))
        ax.plot(k_all, ceiling, color="tab:orange", linestyle="--",
                label="largest angle the proof allows, $\\arccos(\\sqrt{k}\\,\\gamma/R)$")
        ax.axvline(bound, color="gray", linestyle=":", label="$k = (R/\\gamma)^2$")
    ax.set_xlabel("update $k$")
    ax.set_ylabel("angle (degrees)")
    ax.set_ylim(0, 95)
    return ax




def _points_for_drawing(w, b):
    """Two distinct points of the line ``w @ x + b = 0`` with simple coordinates.

    These are the points a student finds by hand: where the line crosses the
    axes (set one coordinate to 0 and solve for the other), or, when the line
    passes through the origin or is parallel to an axis, the point where the
    free coordinate is 1.
    """
    points = []
    if w[1] != 0:
        points.append(np.array([0.0, -b / w[1]]))
    if w[0] != 0:
        points.append(np.array([-b / w[0], 0.0]))
    if len(points) == 2 and np.allclose(points[0], points[1]):
        points.pop()
    if len(points) < 2:
        if w[1] != 0:
            points.append(np.array([1.0, -(b + w[0]) / w[1]]))
        else:
            points.append(np.array([-(b + w[1]) / w[0], 1.0]))
    # Adding 0.0 turns -0.0 into 0.0, so that a label never reads "-0".
    return [point + 0.0 for point in points]


def plot_boundary_sketch(w, b=0.0, ax=None, *, color="black"):
    """Draw the decision boundary of ``sign(w @ x + b)`` the way one draws it by hand.

    The drawing follows the hyperplanes chapter: two points of the line
    ``w @ x + b = 0`` (its shortcut, the axis crossings, when the line has two
    distinct ones; otherwise a crossing and the point whose free coordinate is 1), marked and
    labelled with their coordinates; the line through them; the normal vector
    ``w`` at its true length, as an arrow from the first of the two points; and
    the positive side, where ``w`` points, lightly shaded. The view of ``ax`` is
    not changed, so set its limits first.

    Parameters
    ----------
    w : array-like of shape (2,)
        The normal vector; must not be zero.
    b : float, default=0.0
        The offset.
    ax : matplotlib.axes.Axes, default=None
        The axes to draw on; the current axes when None.
    color : str, default="black"
        Colour of the line, the points and the arrow.

    Returns
    -------
    matplotlib.axes.Axes
    """
    w = np.asarray(w, dtype=np.float64)
    if w.shape != (2,) or not np.all(np.isfinite(w)) or not np.any(w):
        raise ValueError(f"w must be a finite non-zero vector of shape (2,). Got {w!r}.")
    if not np.isfinite(b):
        raise ValueError(f"b must be a finite number. Got {b!r}.")
    b = float(b)
    ax = _axes(ax)
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    ax.axhline(0, color="gray", linewidth=0.6)
    ax.axvline(0, color="gray", linewidth=0.6)
    plot_hyperplane(w, b, ax, show_normal=False, color=color)
    points = _points_for_drawing(w, b)
    # The coordinates go on the negative side of the line, away from the arrow of w.
    back = -w / np.linalg.norm(w)
    for point in points:
        ax.scatter([point[0]], [point[1]], s=30, color=color, marker="D", zorder=5)
        ax.annotate(
            f"({point[0]:g}, {point[1]:g})", point, textcoords="offset points", xytext=10 * back,
            ha="left" if back[0] >= 0 else "right", va="top" if back[1] < 0 else "bottom", fontsize=9, color=color,
        )
    start = points[0]
    ax.annotate("", xy=start + w, xytext=start, arrowprops=dict(arrowstyle="-|>", color=color, linewidth=1.8))
    # Beside the middle of the arrow, off to one side of it: near its tip the label
    # would often leave the view, and along the arrow it would cover the arrow.
    across = np.array([-w[1], w[0]]) / np.linalg.norm(w)
    ax.annotate(
        f"$w = ({w[0]:g}, {w[1]:g})$", start + w / 2, textcoords="offset points", xytext=8 * across,
        ha="left" if across[0] >= 0 else "right", va="top" if across[1] < 0 else "bottom", fontsize=9, color=color,
    )
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return ax


