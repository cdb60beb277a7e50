"""The graded notebook's perceptron_lib: the release's data loaders import, the reference implementation does not.

Fast: the library is built in a temporary folder and imported by a fresh
interpreter that sees it first on its path, as the sandboxed kernel does.
"""

import json
import os
import shutil
import subprocess
import sys

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from autograder.course.library import LibraryError, build_library, library_parts, plan_library, release_imports
from autograder.judging.integrity import scan_code

from tests.support import ROOT
ASSIGNMENTS = sorted(d for d in os.listdir(os.path.join(ROOT, "notebooks", "source"))
                     if os.path.isfile(os.path.join(ROOT, "notebooks", "source", d, f"{d}.ipynb")))

TRY_IMPORTS = r"""
import json, sys
seen = {}
import perceptron_lib
seen["file"] = perceptron_lib.__file__
seen["loaders"] = {name: callable(getattr(perceptron_lib, name)) for name in sys.argv[1].split(",")}
for attempt in ("from perceptron_lib import Perceptron", "from perceptron_lib import signed_distance",
                "import perceptron_lib.perceptron", "from perceptron_lib.theory import margin",
                "perceptron_lib.train_perceptron"):
    try:
        exec(attempt, {"perceptron_lib": perceptron_lib})
        seen[attempt] = "allowed"
    except ImportError as exc:
        seen[attempt] = str(exc)
seen["private"] = hasattr(perceptron_lib, "_repr_html_")
print(json.dumps(seen))
"""


def run_with(library, names):
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(library), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", TRY_IMPORTS, ",".join(names)], env=env, capture_output=True,
                         text=True, cwd=str(library), check=True)
    return json.loads(out.stdout)


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_release_gets_its_data_loaders_and_nothing_else(assignment, tmp_path):
    release_nb = nbformat.read(os.path.join(ROOT, "notebooks", "source", assignment, f"{assignment}.ipynb"),
                               as_version=4)
    names = release_imports(release_nb)
    assert names, "every assignment imports its data from perceptron_lib"
    build_library(names, tmp_path)
    seen = run_with(tmp_path, names)
    assert seen["file"] == str(tmp_path / "perceptron_lib" / "__init__.py")
    assert all(seen["loaders"].values()), seen["loaders"]
    for attempt, outcome in seen.items():
        if attempt.startswith(("from", "import", "perceptron_lib.")):
            assert "reference implementation" in outcome and "not available while your notebook is graded" in outcome, \
                (attempt, outcome)
            assert ", ".join(names) in outcome
    assert seen["private"] is False
    copied = sorted(f for f in os.listdir(tmp_path / "perceptron_lib") if f.endswith(".py"))
    source = sorted(f for f in os.listdir(os.path.join(ROOT, "perceptron_lib")) if f.endswith(".py"))
    assert copied == source  # every module is there, as a copy or as a stub that explains


def test_release_imports_reads_every_form_of_import():
    nb = new_notebook(cells=[new_code_cell("import numpy as np\nfrom perceptron_lib import make_xor, flip_labels"),
                             new_code_cell("%matplotlib inline"),
                             new_code_cell("from perceptron_lib.datasets import make_separable")])
    assert release_imports(nb) == ("flip_labels", "make_separable", "make_xor")
    with pytest.raises(LibraryError, match="import the data loaders it needs by name"):
        release_imports(new_notebook(cells=[new_code_cell("import perceptron_lib as pl")]))


@pytest.mark.parametrize("names, message", [
    (("Perceptron",), "needs its reference implementation"),
    (("train_perceptron", "make_xor"), "needs its reference implementation"),
    (("no_such_loader",), "defines no such function"),
])
def test_a_release_that_needs_the_reference_is_refused(names, message):
    with pytest.raises(LibraryError, match=message):
        plan_library(names)


def test_the_library_splits_into_its_data_loaders_and_the_reference_implementation():
    parts = library_parts()
    assert parts.data_modules == {"datasets", "_validation"}
    assert {"perceptron", "theory", "estimators", "_kernel"} <= parts.reference_modules
    assert not parts.data_modules & parts.reference_modules
    assert {"Perceptron", "MulticlassPerceptron", "train_perceptron", "margin", "format_trace"} <= parts.reference_names
    assert not {"four_point_example", "make_xor", "OffsetUpdateExample"} & parts.reference_names


def test_the_scan_flags_every_reference_export_and_no_data_loader():
    parts = library_parts()
    for name, module in parts.exports.items():
        codes = {f.code for f in scan_code([("cell", f"from perceptron_lib import {name}")])}
        assert ("reference-solution" in codes) == (module in parts.reference_modules), (name, module, codes)


def test_a_function_or_module_added_to_the_library_is_classified_without_a_change(tmp_path):
    copy = tmp_path / "perceptron_lib"
    copy.mkdir()
    for entry in os.listdir(os.path.join(ROOT, "perceptron_lib")):
        if entry.endswith((".py", ".c")):
            shutil.copyfile(os.path.join(ROOT, "perceptron_lib", entry), copy / entry)
    with open(copy / "theory.py", "a", encoding="utf-8") as f:
        f.write("\n\ndef functional_margin(X, y, w, b=0.0):\n    return min(y * (X @ w + b))\n")
    with open(copy / "datasets.py", "a", encoding="utf-8") as f:
        f.write("\n\ndef make_circles(n_samples):\n    return n_samples\n")
    (copy / "kernel.py").write_text("from ._validation import check_X\n\n\nclass KernelPerceptron:\n    pass\n",
                                    encoding="utf-8")
    before, after = library_parts(os.path.join(ROOT, "perceptron_lib")), library_parts(str(copy))
    assert after.reference_names - before.reference_names == {"functional_margin", "KernelPerceptron"}
    assert after.reference_modules - before.reference_modules == {"kernel"}
    assert after.data_modules == before.data_modules and "make_circles" not in after.reference_names


def test_a_library_without_its_data_module_is_refused(tmp_path):
    (tmp_path / "__init__.py").write_text("", encoding="utf-8")
    with pytest.raises(LibraryError, match="has no module datasets.py: the course's data loaders are expected there"):
        library_parts(str(tmp_path))


TRY_HELPERS = r"""
import json
seen = {}
from perceptron_course.test_helpers import expect_array
try:
    expect_array("f", [1.0], [1.0], "the input x")
except AssertionError as exc:
    seen["message"] = str(exc)
for module in ("perceptron_course.check", "perceptron_course.runner", "perceptron_course.probe"):
    try:
        __import__(module)
        seen[module] = "imported"
    except ImportError:
        seen[module] = "absent"
print(json.dumps(seen))
"""


def test_the_visible_tests_helpers_are_there_and_nothing_else_of_the_student_package(tmp_path):
    build_library(("make_xor",), tmp_path)
    built = tmp_path / "perceptron_course"
    source = sorted(f for f in os.listdir(os.path.join(ROOT, "perceptron_course")) if f.endswith(".py"))
    assert sorted(os.listdir(built)) == source  # every module, as the helpers or as a stub that explains
    with open(os.path.join(ROOT, "perceptron_course", "test_helpers.py"), encoding="utf-8") as f:
        assert (built / "test_helpers.py").read_text(encoding="utf-8") == f.read()
    assert "raise ImportError" in (built / "check.py").read_text(encoding="utf-8")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(tmp_path), "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run([sys.executable, "-c", TRY_HELPERS], env=env, capture_output=True, text=True,
                         cwd=str(tmp_path), check=True)
    seen = json.loads(out.stdout)
    assert seen.pop("message") == "f returned a list on the input x; expected a numpy array of shape (1,)."
    assert seen == dict.fromkeys(("perceptron_course.check", "perceptron_course.runner", "perceptron_course.probe"),
                                 "absent")
