"""The trust boundary under fire: generated hostile inputs by the thousand, no sandbox.

Every reader of :mod:`autograder.boundary` (and the probe schema's
:func:`~perceptron_course.probe.decode`, which the host uses through it) must be
total: malformed, truncated, oversized, deeply nested, wrongly typed and
lying inputs give an empty or explicit record of the documented types,
never an exception, and never text that cannot be written back out.
Property tests generate the inputs (hypothesis); named cases pin the
attacks worth naming.
"""

import io
import json
import os
import re
import string
import zipfile

import nbformat
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from autograder.boundary.archive import (LINK_PLACEHOLDER, MAX_MEMBER_DEPTH, ArchiveError, extract_zip,
                                         safe_member_path)
from autograder.boundary.from_sandbox import (ExecutedCell, ProbeRecord, ProbeResults, read_executed_cells,
                                              read_probe_results, read_runner_report)
from autograder.boundary.notebook import SubmittedCell, SubmittedNotebook, parse_notebook, read_untrusted_file
from autograder.judging.integrity import prepare_notebook
from perceptron_course import boundary as notebook_boundary  # the readers the student's check shares
from perceptron_course import probe
from perceptron_course.cells import grade_id, nbgrader_metadata
from perceptron_course.protocol import REPORT_FILE, REPORT_KINDS, RunnerReport

# 150 and 400 examples under hypothesis's default profile (100); in proportion under another
# (make test-fast loads a profile with fewer).
FAST = settings(max_examples=settings.default.max_examples * 3 // 2, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
MANY = settings(FAST, max_examples=settings.default.max_examples * 4)

# -- strategies ------------------------------------------------------------------------------

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=30))
json_values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=6),
                                                             st.dictionaries(st.text(max_size=12), inner, max_size=6)),
                           max_leaves=8)
# Text as JSON can carry it, lone surrogates included.
any_text = st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x10FFFF), max_size=60)
NBGRADER_KEYS = ("grade_id", "grade", "solution", "locked", "points", "task", "schema_version")


@st.composite
def lying_cells(draw):
    """A cell as a student's editor (or a student) could write it: every field of any type."""
    cell = {}
    if draw(st.booleans()):
        cell["cell_type"] = draw(st.sampled_from(["code", "markdown", "raw", "heading", ""]) | json_values)
    if draw(st.booleans()):
        cell["source"] = draw(any_text | st.lists(any_text | json_values, max_size=4) | json_values)
    if draw(st.booleans()):
        cell["id"] = draw(any_text | json_values)
    if draw(st.booleans()):
        meta = draw(st.dictionaries(st.sampled_from(NBGRADER_KEYS) | st.text(max_size=8),
                                    st.sampled_from(["f", "test_f", "imports", "why"]) | json_values, max_size=6))
        cell["metadata"] = draw(st.just({"nbgrader": meta}) | json_values)
    if draw(st.booleans()):
        cell["outputs"] = draw(json_values)
    return cell


@st.composite
def lying_notebooks(draw):
    nb = {"cells": draw(st.lists(lying_cells() | json_values, max_size=6))}
    if draw(st.booleans()):
        nb["nbformat"] = draw(st.sampled_from([4, 3, None]) | json_values)
    if draw(st.booleans()):
        nb["metadata"] = draw(json_values)
    return nb


def _release():
    def cell(source, **meta):
        made = new_code_cell(source) if meta.pop("code", True) else new_markdown_cell(source)
        if meta:
            made.metadata["nbgrader"] = dict(meta, schema_version=3)
        return made

    return new_notebook(cells=[
        cell("import numpy as np", grade_id="imports", locked=True, grade=False, solution=False),
        cell("def f(x):\n    raise NotImplementedError()", grade_id="f", solution=True, grade=False, locked=False),
        cell("assert f(1) == 2", grade_id="test_f", grade=True, solution=False, locked=True, points=2),
        cell("Explain.", code=False, grade_id="why", grade=True, solution=True, locked=False, points=1),
    ])


RELEASE = _release()


def assert_submitted(nb):
    assert isinstance(nb, SubmittedNotebook) and isinstance(nb.cells, tuple)
    for cell in nb.cells:
        assert isinstance(cell, SubmittedCell)
        assert cell.kind in ("code", "markdown", "raw")
        assert isinstance(cell.source, str)
        cell.source.encode("utf-8")
        assert cell.cell_id is None or notebook_boundary.CELL_ID.fullmatch(cell.cell_id)
        for key, value in cell.nbgrader:
            assert isinstance(key, str)
            key.encode("utf-8")
            assert value is None or isinstance(value, (str, bool, int, float))
            if isinstance(value, str):
                value.encode("utf-8")
        assert cell.grade_id is None or (isinstance(cell.grade_id, str) and cell.grade_id)


def assert_parsed(data):
    nb, problem = parse_notebook(data)
    assert (nb is None) != (problem is None)
    if problem is not None:
        assert isinstance(problem, str) and problem
        return None
    assert_submitted(nb)
    return nb


# -- the submitted notebook -----------------------------------------------------------------------

@MANY
@given(st.binary(max_size=300))
def test_any_bytes_parse_to_a_notebook_or_a_reason(data):
    assert_parsed(data)


@MANY
@given(lying_notebooks())
def test_lying_notebooks_parse_to_well_typed_cells_and_always_rebuild(nb):
    text = json.dumps(nb)
    parsed = assert_parsed(text.encode("utf-8", "surrogatepass"))
    if parsed is None:
        return
    prepared, flags, authored, answers = prepare_notebook(parsed, RELEASE)
    nbformat.validate(prepared)
    nbformat.writes(prepared).encode("utf-8")  # what the sandbox is given can always be written
    # Locked and test cells are the release's, whatever the submission said.
    release_sources = {grade_id(c): c.source for c in RELEASE.cells}
    for cell in prepared.cells:
        gid = grade_id(cell)
        if gid in ("imports", "test_f"):
            assert cell.source == release_sources[gid]
    assert [grade_id(c) for c in prepared.cells if nbgrader_metadata(c)] == ["imports", "f", "test_f", "why"]
    assert all(isinstance(label, str) and isinstance(source, str) for label, source in authored)
    assert set(answers) == {"f", "why"}


@FAST
@given(st.integers(min_value=0, max_value=2000), st.data())
def test_truncated_notebooks_never_raise(cut, data):
    nb = json.loads(nbformat.writes(RELEASE))
    nb["cells"][1]["source"] = data.draw(any_text)
    text = json.dumps(nb).encode("utf-8", "surrogatepass")
    assert_parsed(text[:cut])


@pytest.mark.parametrize("data, reason", [
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b'{"cells": [' + b"1, " * 50_000, "not valid JSON"),
    (b"\xff\xfe\x00notebook", "not text"),
    (b"[]", "not a Jupyter notebook"),
    (b'{"cells": {}}', "no list of cells"),
    (b'{"cells": [1, "two", null]}', "no cells"),
    (b'{"cells": [], "nbformat": 5}', "no list of cells"),
    (b'{"worksheets": [{"cells": 7}], "nbformat": 3}', "old-format"),
])
def test_named_malformed_notebooks_get_their_reason(data, reason):
    nb, problem = parse_notebook(data)
    assert nb is None and reason in problem


def test_lone_surrogates_and_huge_ids_are_made_safe():
    text = ('{"cells": [{"cell_type": "code", "source": ["x = \'\\ud800\'"], "id": "' + "a" * 500 + '",'
            ' "metadata": {"nbgrader": {"grade_id": "\\udfff", "points": [1], "solution": true}}}]}')
    nb, problem = parse_notebook(text.encode())
    assert problem is None
    (cell,) = nb.cells
    cell.source.encode("utf-8")
    assert cell.cell_id is None
    assert dict(cell.nbgrader) == {"grade_id": "?", "solution": True}  # the list-valued points is dropped


def test_untrusted_files_are_read_without_links_and_with_a_cap(tmp_path):
    (tmp_path / "big").write_bytes(b"x" * 101)
    (tmp_path / "ok").write_bytes(b"x" * 100)
    (tmp_path / "empty").write_bytes(b"")
    os.symlink(tmp_path / "ok", tmp_path / "link")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    assert read_untrusted_file(str(tmp_path / "ok"), 100) == (b"x" * 100, None)
    assert "too large" in read_untrusted_file(str(tmp_path / "big"), 100)[1]
    assert "empty" in read_untrusted_file(str(tmp_path / "empty"), 100)[1]
    assert "symbolic link" in read_untrusted_file(str(tmp_path / "link"), 100)[1]
    assert "not a regular file" in read_untrusted_file(str(tmp_path / "fifo"), 100)[1]
    assert "not a regular file" in read_untrusted_file(str(tmp_path / "dir"), 100)[1]
    assert "cannot be read" in read_untrusted_file(str(tmp_path / "missing"), 100)[1]


# -- the runner's report --------------------------------------------------------------------------

report_values = st.fixed_dictionaries({}, optional={
    "stopped_at_cell": json_values | st.integers(-5, 20),
    "interrupted_cells": st.lists(st.integers(-5, 20) | json_values, max_size=30) | json_values,
    "truncated_cells": st.lists(st.integers(-5, 20) | json_values, max_size=30) | json_values,
    "processes_left": st.lists(any_text | json_values, max_size=30) | json_values,
    "probes_ran": json_values,
    "probe_error": any_text | json_values,
    "cell_seconds": st.dictionaries(st.text(string.digits, max_size=8) | any_text,
                                    st.floats() | json_values, max_size=12) | json_values,
    "probe_seconds": st.floats() | json_values,
    "finished": json_values,
}) | json_values


@MANY
@given(report_values, st.integers(min_value=0, max_value=12))
def test_runner_reports_become_checked_records(tmp_path_factory, report, n_cells):
    path = tmp_path_factory.getbasetemp() / "runner.json"
    path.write_text(json.dumps(report, allow_nan=True), encoding="utf-8", errors="surrogatepass")
    read = read_runner_report(str(path), n_cells, 1 << 20)
    assert isinstance(read, RunnerReport)
    assert read.stopped_at_cell is None or (type(read.stopped_at_cell) is int and 0 <= read.stopped_at_cell < n_cells)
    for cells in (read.interrupted_cells, read.truncated_cells):
        assert list(cells) == sorted(set(cells)) and all(type(i) is int and 0 <= i < n_cells for i in cells)
        assert len(cells) <= notebook_boundary.MAX_CELLS_LISTED
    assert all(isinstance(n, str) and len(n) <= notebook_boundary.MAX_PROCESS_NAME for n in read.processes_left)
    "".join(read.processes_left).encode("utf-8")
    assert type(read.probes_ran) is bool and type(read.finished) is bool
    assert read.finished == (isinstance(report, dict) and report.get("finished") is True)
    assert read.probe_error is None or (isinstance(read.probe_error, str) and len(read.probe_error) <= 100)
    assert all(type(i) is int and 0 <= i < n_cells and 0 <= s < 1e7 for i, s in read.cell_seconds)
    assert 0 <= read.probe_seconds < 1e7


def test_the_report_the_runner_writes_is_read_back_as_written(tmp_path):
    written = RunnerReport(stopped_at_cell=2, interrupted_cells=(1, 3), truncated_cells=(0,),
                           processes_left=("sleep", "python3"), probes_ran=True, probe_error="NameError",
                           cell_seconds=((0, 0.5), (3, 2.25)), probe_seconds=1.5, finished=True)
    assert all(getattr(written, key) != getattr(RunnerReport(), key) for key, _ in REPORT_KINDS)
    (tmp_path / REPORT_FILE).write_text(json.dumps(written.to_json()))
    assert read_runner_report(str(tmp_path / REPORT_FILE), 4, 1 << 20) == written


def test_cell_timings_keyed_by_digits_that_are_not_ascii_are_dropped(tmp_path):
    # "²" and "١" are digits to str.isdigit; int() refuses the first and reads the second as 1.
    (tmp_path / REPORT_FILE).write_text(json.dumps({"cell_seconds": {"²": 1.0, "١": 2.0, "0": 3.0}}))
    assert read_runner_report(str(tmp_path / REPORT_FILE), 4, 1 << 20).cell_seconds == ((0, 3.0),)


def test_oversized_or_linked_reports_are_ignored(tmp_path):
    (tmp_path / "big.json").write_text(json.dumps({"probes_ran": True, "pad": "x" * 2000}))
    assert read_runner_report(str(tmp_path / "big.json"), 3, 1000) == RunnerReport()
    (tmp_path / "real.json").write_text(json.dumps({"probes_ran": True}))
    os.symlink(tmp_path / "real.json", tmp_path / "link.json")
    assert read_runner_report(str(tmp_path / "link.json"), 3, 1000) == RunnerReport()
    assert read_runner_report(str(tmp_path / "real.json"), 3, 1000).probes_ran is True


# -- the executed notebook ------------------------------------------------------------------------

output_values = st.fixed_dictionaries({"output_type": st.sampled_from(
    ["stream", "error", "display_data", "execute_result", "update_display_data", "x"]) | json_values}, optional={
    "name": st.sampled_from(["stdout", "stderr", "evil"]) | json_values,
    "text": any_text | st.lists(any_text, max_size=3) | json_values,
    "ename": any_text | json_values, "evalue": any_text | json_values,
    "traceback": st.lists(any_text | json_values, max_size=5) | json_values,
    "data": st.dictionaries(st.sampled_from(["text/plain", "image/png", "image/jpeg", "text/html",
                                             "application/javascript"]),
                            any_text | st.just("iVBORw0KGgo=") | st.lists(any_text, max_size=2) | json_values,
                            max_size=4) | json_values,
    "execution_count": json_values,
}) | json_values


@MANY
@given(st.lists(st.fixed_dictionaries({"cell_type": st.sampled_from(["code", "markdown"]) | json_values},
                                      optional={"outputs": st.lists(output_values, max_size=6) | json_values,
                                                "execution_count": json_values}) | json_values, max_size=5),
       st.integers(min_value=0, max_value=5))
def test_executed_notebooks_give_only_plain_capped_outputs(tmp_path_factory, cells, n_prepared):
    kinds = ["code"] * len(cells) if n_prepared == 5 else ["code", "markdown", "code", "code", "raw"][:n_prepared]
    path = tmp_path_factory.getbasetemp() / "executed.ipynb"
    path.write_text(json.dumps({"cells": cells}), encoding="utf-8", errors="surrogatepass")
    read = read_executed_cells(str(path), kinds, max_bytes=1 << 20, cell_output_chars=50, total_output_chars=400)
    assert len(read) == len(kinds)
    total = 0
    notebook = new_notebook(cells=[new_code_cell("") if k == "code" else new_markdown_cell("") for k in kinds])
    for kind, ran, cell in zip(kinds, read, notebook.cells):
        assert ran is None or (kind == "code" and isinstance(ran, ExecutedCell))
        if ran is None:
            continue
        assert ran.execution_count is None or type(ran.execution_count) is int
        for output in ran.outputs:
            assert output.output_type in ("stream", "error", "display_data", "execute_result")
            assert all(mime in notebook_boundary.ALLOWED_MIME for mime, _ in output.data)
            total += output.size()
        cell.outputs = [nbformat.from_dict(o.as_dict()) for o in ran.outputs]
        cell.execution_count = ran.execution_count
    assert total <= 400
    nbformat.validate(notebook)
    nbformat.writes(notebook).encode("utf-8")


def test_execution_counts_nbformat_refuses_are_dropped(tmp_path):
    # nbformat's schema wants a count of at least 0 or none; a notebook written back with -1 fails to validate.
    result = {"output_type": "execute_result", "data": {"text/plain": "1"}, "execution_count": -1}
    path = tmp_path / "executed.ipynb"
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "execution_count": -1, "outputs": [result]},
                                          {"cell_type": "code", "execution_count": 3, "outputs": []}]}))
    first, second = read_executed_cells(str(path), ["code", "code"], max_bytes=1 << 20,
                                        cell_output_chars=50, total_output_chars=400)
    assert first.execution_count is None and first.outputs[0].execution_count is None
    assert second.execution_count == 3


# -- the probe schema -----------------------------------------------------------------------------

finite = st.floats(allow_nan=False, allow_infinity=False)
arrays = hnp.arrays(dtype=st.sampled_from([np.float64, np.float32, np.int64, np.int32, np.uint8, np.bool_]),
                    shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=4))
# numpy's narrower float scalars come back as themselves, not as the floats they widen to.
narrow_floats = (st.floats(width=32, allow_nan=False).map(np.float32)
                 | st.floats(width=16, allow_nan=False).map(np.float16))
plain = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), finite, narrow_floats,
                               st.sampled_from([float("inf"), float("-inf")]), st.text(max_size=20), arrays),
                     lambda inner: st.one_of(st.lists(inner, max_size=4), st.lists(inner, max_size=4).map(tuple),
                                             st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                     max_leaves=12)


def same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape \
            and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return type(b) is dict and list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def through_files(value, tmp):
    """Encode ``value`` as the probe does, write and read it back as the host does; return the decoded value."""
    stored = {}
    spec = probe.encode(value, stored)
    os.makedirs(tmp, exist_ok=True)
    np.savez(os.path.join(tmp, "results.npz"), **stored)
    with open(os.path.join(tmp, "results.json"), "w") as f:
        json.dump({"c0_0": {"status": "returned", "value": spec, "mutated": False, "seconds": 0.01}}, f)
    record = read_probe_results(tmp, 1 << 24).get("c0_0")
    assert isinstance(record, ProbeRecord) and record.status == "returned"
    return record.value


@FAST
@given(plain)
def test_plain_values_survive_the_round_trip_exactly(tmp_path_factory, value):
    depth = lambda v: 1 + max(map(depth, v.values() if isinstance(v, dict) else v), default=0) \
        if isinstance(v, (list, tuple, dict)) else 0
    got = through_files(value, str(tmp_path_factory.getbasetemp() / "round"))
    if depth(value) <= probe.MAX_DEPTH + 1:
        assert same(value, got), (value, got)


NUMBER_TYPES = (int, float, bool, np.bool_, np.int64, np.int32, np.uint8, np.float64, np.float32, np.float16)
numbers = st.tuples(st.sampled_from(NUMBER_TYPES), st.integers(0, 3)).map(lambda pair: pair[0](pair[1]))
returned = st.one_of(numbers, st.lists(numbers, max_size=3), st.lists(numbers, max_size=3).map(tuple),
                     st.tuples(st.lists(numbers, min_size=2, max_size=2), numbers))


@FAST
@given(returned)
@example([np.float64(1.0), np.float64(2.0)])  # list(w) of a float64 array
@example((np.int64(1), 2.0))
@example([np.float32(1.0), 2.0])
def test_a_check_judges_a_value_alike_in_process_and_through_the_probe(tmp_path_factory, value):
    from autograder.judging.checks import compare_float64, compare_values

    got = through_files(value, str(tmp_path_factory.getbasetemp() / "alike"))
    for compare in (compare_values, compare_float64):
        for expected in (np.array([1.0, 2.0]), 1.0, 1, (np.array([1.0, 2.0]), 0.0)):
            in_process, probed = compare(value, expected), compare(got, expected)
            assert (in_process is None) == (probed is None), (compare.__name__, value, got, expected, in_process,
                                                              probed)


def test_values_that_are_not_plain_data_become_opaque(tmp_path):
    class Sneaky(float):
        def __eq__(self, other):
            return True

    deep = [[[[[[1]]]]]]
    for value, text in [(Sneaky(1.0), "an object of type Sneaky"), (np.array(["a"]), "not numeric"),
                        (np.zeros(probe.MAX_ARRAY_ELEMENTS + 1, dtype=np.uint8), "too large"),
                        (object(), "an object of type object")]:
        got = through_files(value, str(tmp_path / "opaque"))
        assert isinstance(got, probe.Opaque) and text in repr(got), (value, got)
    got = through_files(deep, str(tmp_path / "deep"))
    inner = got
    while isinstance(inner, list):
        inner = inner[0]
    assert isinstance(inner, probe.Opaque) and "too deeply" in repr(inner)


def decoded_ok(value):
    if isinstance(value, (list, tuple)):
        return all(decoded_ok(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and decoded_ok(v) for k, v in value.items())
    if isinstance(value, np.ndarray):
        return value.dtype.kind in probe.NUMERIC_DTYPE_KINDS
    return value is None or type(value) in (bool, int, float, np.float32, np.float16, str, probe.Opaque)


spec_values = st.recursive(
    st.fixed_dictionaries({"type": st.sampled_from(probe.KINDS) | json_values}, optional={
        "value": json_values | st.sampled_from(["nan", "inf", "-inf"]), "key": json_values | st.just("a0"),
        "dtype": json_values, "class": json_values}) | json_values,
    lambda inner: st.fixed_dictionaries({"type": st.sampled_from(["list", "tuple", "dict", "too-deep"]),
                                         "items": st.lists(inner, max_size=4)
                                         | st.dictionaries(st.text(max_size=5), inner, max_size=4) | json_values}),
    max_leaves=20)


@MANY
@given(spec_values)
def test_decode_is_total_and_gives_only_schema_types(spec):
    arrays = {"a0": np.arange(3.0), "a1": np.array(["x"])}
    assert decoded_ok(probe.decode(spec, arrays))


@pytest.mark.parametrize("spec", [
    {"type": "int", "value": True}, {"type": "bool", "value": 1}, {"type": "int", "value": 1.5},
    {"type": "float", "value": "1e5"}, {"type": "float", "value": 10 ** 400},
    {"type": "float", "value": -10 ** 400, "dtype": "float32"}, {"type": "float", "value": 1.0, "dtype": "float64"},
    {"type": "float", "value": 0.1, "dtype": "float32"}, {"type": "float", "value": 1.0, "dtype": ["float32"]},
    {"type": "str", "value": "x" * (probe.MAX_STRING + 1)},
    {"type": "ndarray", "key": "missing"}, {"type": "ndarray", "key": "a1"}, {"type": "ndarray", "key": ["a0"]},
    {"type": "list", "items": [None] * (probe.MAX_ITEMS + 1)}, {"type": "list", "items": "abc"},
    {"type": "dict", "items": [["k", {"type": "None"}]]}, {"type": "set", "items": []}, {"type": "object"},
    {"type": "too-deep"}, [], "int", None,
])
def test_lying_specs_are_opaque(spec):
    assert isinstance(probe.decode(spec, {"a0": np.arange(3.0), "a1": np.array(["x"])}), probe.Opaque)


def test_nesting_far_beyond_the_limit_is_cut_without_recursion_errors():
    spec = {"type": "None"}
    for _ in range(50_000):
        spec = {"type": "list", "items": [spec]}
    value = probe.decode(spec, {})
    for _ in range(probe.MAX_DEPTH + 1):
        value = value[0]
    assert isinstance(value, probe.Opaque)


record_values = st.fixed_dictionaries({"status": st.sampled_from(probe.STATUSES + ("exploded",)) | json_values},
                                      optional={"value": spec_values, "exception": any_text | json_values,
                                                "detail": any_text | json_values, "mutated": json_values,
                                                "seconds": st.floats() | json_values}) | json_values


@MANY
@given(st.dictionaries(st.sampled_from(["c0_0", "c0_1", "c1_0", "stranger"]) | st.text(max_size=6), record_values,
                       max_size=5) | json_values)
def test_probe_results_become_records_of_the_known_probes(tmp_path_factory, records):
    folder = tmp_path_factory.getbasetemp() / "results"
    folder.mkdir(exist_ok=True)
    (folder / "results.json").write_text(json.dumps(records), encoding="utf-8", errors="surrogatepass")
    np.savez(folder / "results.npz", a0=np.arange(2))
    read = read_probe_results(str(folder), 1 << 20, frozenset({"c0_0", "c0_1", "c1_0"}))
    assert isinstance(read, ProbeResults)
    for pid, record in read.records:
        assert pid in {"c0_0", "c0_1", "c1_0"}
        assert record.status in probe.STATUSES + ("malformed",)
        assert type(record.mutated) is bool and isinstance(record.exception, str) and isinstance(record.detail, str)
        (record.exception + record.detail).encode("utf-8")
        assert decoded_ok(record.value)
    assert read.get("stranger") is None


def _npz_bytes(**arrays):
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def test_result_archives_that_lie_are_refused(tmp_path):
    good = {"c0_0": {"status": "returned", "value": {"type": "ndarray", "key": "a0"}}}

    def read(npz_bytes, max_bytes=1 << 20):
        (tmp_path / "results.json").write_text(json.dumps(good))
        (tmp_path / "results.npz").write_bytes(npz_bytes)
        return read_probe_results(str(tmp_path), max_bytes)

    assert isinstance(read(_npz_bytes(a0=np.arange(3))).get("c0_0").value, np.ndarray)
    # A pickled object array: never unpickled, the whole file is refused.
    assert len(read(_npz_bytes(a0=np.array([{"x": 1}], dtype=object)))) == 0
    # A zip bomb: the declared size is checked before anything is inflated.
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("a0.npy", b"\x00" * 5_000_000)
    assert len(read(bomb.getvalue())) == 0
    # Truncated, empty and not-a-zip archives.
    data = _npz_bytes(a0=np.arange(100))
    for cut in (0, 10, len(data) // 2, len(data) - 1):
        assert len(read(data[:cut])) == 0
    assert len(read(b"PK\x05\x06" + b"\x00" * 18)) == 1  # an empty archive: the record decodes to an opaque value
    assert isinstance(read(b"PK\x05\x06" + b"\x00" * 18).get("c0_0").value, probe.Opaque)


# -- zip members ----------------------------------------------------------------------------------

member_names = st.lists(st.sampled_from(["..", ".", "", "a", "b.ipynb", "C:", "\\", "/", "__MACOSX", "x\x00y"])
                        | st.text(max_size=6), min_size=1, max_size=10).map("/".join)


@MANY
@given(member_names)
def test_member_paths_never_escape(name):
    parts = safe_member_path(name)
    if parts is not None:
        assert parts and all(p not in ("", ".", "..") and "/" not in p and "\\" not in p for p in parts)
        assert not re.match(r"[A-Za-z]:", name) and not name.replace("\\", "/").startswith("/")
        assert len(parts) <= MAX_MEMBER_DEPTH and "\x00" not in name


@FAST
@given(st.lists(st.tuples(member_names, st.binary(max_size=40), st.booleans()), min_size=1, max_size=8))
def test_extracted_archives_stay_inside_their_folder(tmp_path_factory, members):
    base = tmp_path_factory.mktemp("zip")
    archive = base / "in.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for name, data, is_link in members:
            info = zipfile.ZipInfo(name or "x")
            if is_link:
                info.external_attr = 0o120777 << 16
            zf.writestr(info, data)
    target = base / "out"
    target.mkdir()
    try:
        extract_zip(str(archive), str(target), max_member_bytes=20, max_members=100, max_total_bytes=10_000)
    except ArchiveError:
        pass
    for path in base.rglob("*"):
        assert path == archive or path == target or str(path).startswith(str(target) + os.sep), path
        if path.is_symlink():
            assert os.readlink(path) == LINK_PLACEHOLDER
        elif path.is_file() and path != archive:
            assert path.stat().st_size <= 21


def test_archives_over_their_limits_are_refused(tmp_path):
    archive = tmp_path / "many.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for i in range(30):
            zf.writestr(f"s{i}.ipynb", "{}")
    with pytest.raises(ArchiveError, match="30 members"):
        extract_zip(str(archive), str(tmp_path / "a"), max_member_bytes=100, max_members=20, max_total_bytes=10**6)
    (tmp_path / "b").mkdir()
    with pytest.raises(ArchiveError, match="expands to more than"):
        extract_zip(str(archive), str(tmp_path / "b"), max_member_bytes=100, max_members=100, max_total_bytes=40)
    (tmp_path / "not.zip").write_bytes(b"PK\x03\x04 truncated")
    with pytest.raises(ArchiveError, match="not a readable zip"):
        extract_zip(str(tmp_path / "not.zip"), str(tmp_path / "c"), max_member_bytes=1, max_members=1,
                    max_total_bytes=1)


def test_a_member_name_the_file_system_refuses_is_reported_and_the_rest_extracted(tmp_path):
    # Linux allows 255 bytes per path component: longer names raise OSError (ENAMETOOLONG).
    long_file = "a" * 300 + ".ipynb"
    long_folder = "b" * 300 + "/s.ipynb"
    long_link = "c" * 300
    archive = tmp_path / "lms.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr(long_file, "{}")
        zf.writestr(long_folder, "{}")
        link = zipfile.ZipInfo(long_link)
        link.external_attr = 0o120777 << 16
        zf.writestr(link, "elsewhere")
        zf.writestr("ada.ipynb", "{}")
    target = tmp_path / "out"
    target.mkdir()
    problems = extract_zip(str(archive), str(target), max_member_bytes=100, max_members=10, max_total_bytes=10_000)
    assert (target / "ada.ipynb").read_text() == "{}"
    assert sorted(os.path.relpath(p, target) for p in problems) == sorted(
        [long_file, os.path.join("b" * 300, "s.ipynb"), long_link])
    assert all("could not be extracted" in reason and "too long" in reason for reason in problems.values())
