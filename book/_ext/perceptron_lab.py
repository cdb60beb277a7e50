"""Sphinx extension: the perceptron lab's data sets, made by ``perceptron_lib`` when the book is built.

The lab (``book/_static/lab/perceptron_lab.js``) trains the perceptron in the page, with no
server, so it cannot ask the library for its data. This extension asks for it at build time
and writes it into the HTML build as ``_static/lab/presets.js`` (:data:`PRESETS_FILE`), a
script that sets ``window.PerceptronLabPresets`` (and ``window.PerceptronLabSettings``: the
grid and the epoch limit) and that every page loads before the lab's own script. It is a
script rather than JSON for the lab to fetch, because a browser does not fetch files for a
page opened from ``file://``, and the book works offline.

:data:`LAB_PRESETS` is the one definition of the presets: their titles, views and whether
they learn an offset, and the library call that makes each one's points. The PDF's figure
of a lab (``book/_ext/pdf_book.py``) draws the same presets. A preset whose data is random
is made with :data:`LAB_SEED`, so the lab shows exactly what the library returns for it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sphinx.application import Sphinx

# Where the presets go in the HTML build, relative to its _static folder.
PRESETS_FILE = "lab/presets.js"
# The global the lab reads them from.
PRESETS_GLOBAL = "PerceptronLabPresets"
# The global the lab reads its settings from (:func:`lab_settings`).
SETTINGS_GLOBAL = "PerceptronLabSettings"
# The seed of every preset whose data is random.
LAB_SEED = 0
# The lab snaps coordinates to this step, so that every score and weight it computes is an exact
# binary fraction and equals numpy's to the bit; a preset's points must lie on the same grid.
LAB_GRID = 0.25
# The lab stops after this many epochs unless the reader changes it; so do the PDF's figures of it.
LAB_MAX_EPOCHS = 100


def _four_point():
    from perceptron_lib import four_point_example

    return four_point_example()


def _one_dimensional():
    from perceptron_lib import one_dimensional_example

    return one_dimensional_example()


def _one_dimensional_lifted():
    from perceptron_lib import absorb_offset, one_dimensional_example

    X, y = one_dimensional_example()
    return absorb_offset(X), y


def _xor():
    from perceptron_lib import make_xor

    # Without spread the four points are the corners themselves, on the lab's grid.
    return make_xor(4, spread=0.0, random_state=LAB_SEED)


@dataclass(frozen=True)
class LabPreset:
    """One data set of the lab: how the lab shows it, and the library call that makes it."""

    title: str
    fit_intercept: bool
    view: tuple[float, float, float, float]  # x_min, x_max, y_min, y_max of the lab's plot
    make: Callable[[], tuple]
    # The lab draws the line x_2 = 1 on which every lifted point (x, 1) lies.
    lifted: bool = False
    # Offered in the lab's data-set menu unless a page names its own (data-presets).
    in_menu: bool = True

    def data(self):
        """``(X, y)`` as the library makes them, as float arrays."""
        import numpy as np

        X, y = self.make()
        return np.asarray(X, dtype=float), np.asarray(y, dtype=float)


# In the order of the lab's menu.
LAB_PRESETS = {
    "four-point": LabPreset("Four points of the notes", fit_intercept=False,
                            view=(-3, 3, -3, 3), make=_four_point),
    "one-dimensional": LabPreset("1-D example (needs an offset)", fit_intercept=True,
                                 view=(-1, 6, -1, 1), make=_one_dimensional),
    "one-dimensional-lifted": LabPreset("1-D example lifted to (x, 1)", fit_intercept=False,
                                        view=(-1, 6, -2, 2), make=_one_dimensional_lifted,
                                        lifted=True, in_menu=False),
    "xor": LabPreset("XOR (not separable)", fit_intercept=True, view=(-3, 3, -3, 3), make=_xor),
}


def lab_presets() -> dict:
    """The presets as the lab reads them: name -> title, dim, fitIntercept, lift, menu, view, points.

    ``points`` are ``[[x_1, ...], y]`` in the library's order. Raises ``ValueError`` when a
    preset's points are off the lab's grid (:data:`LAB_GRID`), where its numbers would no
    longer be numpy's.
    """
    presets = {}
    for name, preset in LAB_PRESETS.items():
        X, y = preset.data()
        off_grid = [row.tolist() for row in X if any(v / LAB_GRID != round(v / LAB_GRID) for v in row)]
        if off_grid:
            raise ValueError(f"the lab's preset {name!r} has points off its grid of {LAB_GRID}: "
                             f"{off_grid[:3]}; make its data with coordinates that are multiples of {LAB_GRID}")
        presets[name] = {
            "title": preset.title,
            "dim": int(X.shape[1]),
            "fitIntercept": preset.fit_intercept,
            "lift": preset.lifted,
            "menu": preset.in_menu,
            "view": [float(v) for v in preset.view],
            "points": [[[float(v) for v in row], float(label)] for row, label in zip(X, y)],
        }
    return presets


def lab_settings() -> dict:
    """What the lab takes from here besides its data: the grid it snaps points to and its epoch limit."""
    return {"grid": LAB_GRID, "maxEpochs": LAB_MAX_EPOCHS}


def presets_script() -> str:
    """The text of :data:`PRESETS_FILE`: one preset a line, then the lab's settings."""
    entries = ",\n".join(f"  {json.dumps(name)}: {json.dumps(preset)}" for name, preset in lab_presets().items())
    return ("/* The perceptron lab's data sets and settings, written by book/_ext/perceptron_lab.py from\n"
            "   perceptron_lib when the book was built: do not edit. */\n"
            f"window.{PRESETS_GLOBAL} = {{\n{entries}\n}};\n"
            f"window.{SETTINGS_GLOBAL} = {json.dumps(lab_settings())};\n")


def write_presets(app: Sphinx) -> None:
    """Write :data:`PRESETS_FILE` into the HTML build's _static folder.

    It is written before any page, so that Sphinx adds its checksum to the pages' link to it,
    and a browser that cached an older build's presets loads the new ones.
    """
    if app.builder.format != "html":
        return
    path = Path(app.outdir) / "_static" / PRESETS_FILE
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(presets_script(), encoding="utf-8")


def setup(app: Sphinx) -> dict:
    # Before the lab's own script, which html_js_files in _config.yml adds (priority 800).
    app.add_js_file(PRESETS_FILE, priority=500)
    app.connect("builder-inited", write_presets)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
