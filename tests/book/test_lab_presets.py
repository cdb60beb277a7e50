"""The perceptron lab's data sets are the library's: what the book build writes for the lab, read without a browser.

``book/_ext/perceptron_lab.py`` writes ``_static/lab/presets.js`` into the HTML build from
``perceptron_lib``; the lab (``book/_static/lab/perceptron_lab.js``) reads it and holds no data of
its own. The browser tests (``tests/book/test_lab_browser.py``) check that the lab trains on it as the
library does.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from perceptron_lib import absorb_offset, four_point_example, make_xor, one_dimensional_example
from tests.support import REPO_ROOT
from tests.support.book import book_module

LAB_SCRIPT = REPO_ROOT / "book" / "_static" / "lab" / "perceptron_lab.js"


perceptron_lab = book_module("_ext/perceptron_lab.py")


def written_global(name: str):
    """What the generated script sets ``window.<name>`` to, read back as the browser would."""
    script = perceptron_lab.presets_script()
    assignment = f"window.{name} = "
    start = script.index(assignment) + len(assignment)
    return json.loads(script[start:script.index(";\n", start)])


def written_presets() -> dict:
    return written_global(perceptron_lab.PRESETS_GLOBAL)


def test_the_written_presets_are_the_librarys_data():
    X_line, y_line = one_dimensional_example()
    expected = {
        "four-point": four_point_example(),
        "one-dimensional": (X_line, y_line),
        "one-dimensional-lifted": (absorb_offset(X_line), y_line),
        "xor": make_xor(4, spread=0.0, random_state=perceptron_lab.LAB_SEED),
    }
    presets = written_presets()
    assert list(presets) == list(expected)
    for name, (X, y) in expected.items():
        points = presets[name]["points"]
        assert np.array_equal([x for x, _ in points], X) and np.array_equal([label for _, label in points], y), name
        assert presets[name]["dim"] == X.shape[1], name


def test_the_written_presets_say_how_the_lab_shows_them():
    presets = written_presets()
    assert [name for name, preset in presets.items() if preset["menu"]] == ["four-point", "one-dimensional", "xor"]
    for name, preset in perceptron_lab.LAB_PRESETS.items():
        assert presets[name]["title"] == preset.title
        assert presets[name]["fitIntercept"] is preset.fit_intercept
        assert presets[name]["lift"] is preset.lifted
        assert tuple(presets[name]["view"]) == preset.view


def test_the_written_settings_are_the_grid_and_the_epoch_limit():
    assert written_global(perceptron_lab.SETTINGS_GLOBAL) == {"grid": perceptron_lab.LAB_GRID,
                                                             "maxEpochs": perceptron_lab.LAB_MAX_EPOCHS}


def test_the_lab_reads_the_written_presets_and_holds_no_data_of_its_own():
    script = LAB_SCRIPT.read_text(encoding="utf-8")
    assert f"window.{perceptron_lab.PRESETS_GLOBAL}" in script and f"window.{perceptron_lab.SETTINGS_GLOBAL}" in script
    # Nor a grid or an epoch limit of its own.
    assert not re.search(r"GRID = \d|\|\| 100\b|value: \"100\"", script)
    # A hand copy would be a literal of points, [[[x_1, x_2], y], ...], or an object literal of presets.
    assert not re.search(r"\[\[\[\s*-?\d", script) and "PRESETS = {" not in script


def test_a_preset_off_the_lab_grid_is_refused(monkeypatch):
    noisy = perceptron_lab.LabPreset("Noisy XOR", fit_intercept=True, view=(-3, 3, -3, 3),
                                     make=lambda: make_xor(4, spread=0.3, random_state=0))
    monkeypatch.setattr(perceptron_lab, "LAB_PRESETS", {"noisy-xor": noisy})
    with pytest.raises(ValueError, match="the lab's preset 'noisy-xor' has points off its grid of 0.25"):
        perceptron_lab.presets_script()
