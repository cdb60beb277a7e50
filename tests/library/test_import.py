"""Importing the package for its functions and data stays cheap: no scikit-learn until an estimator is used."""

import subprocess
import sys

import pytest

PROBE = """
import sys
import perceptron_lib
from perceptron_lib import four_point_example, make_separable, train_perceptron
train_perceptron(*four_point_example())
before = sorted(m for m in ("sklearn", "scipy", "matplotlib") if m in sys.modules)
perceptron_lib.Perceptron
print(before, "sklearn" in sys.modules)
"""


def test_functions_and_data_do_not_import_scikit_learn_and_estimators_load_on_first_use():
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[] True"


def test_estimators_are_listed_and_unknown_names_still_fail():
    import perceptron_lib

    assert {"Perceptron", "MulticlassPerceptron"} <= set(dir(perceptron_lib)) & set(perceptron_lib.__all__)
    with pytest.raises(AttributeError, match="no attribute 'NoSuchModel'"):
        perceptron_lib.NoSuchModel
