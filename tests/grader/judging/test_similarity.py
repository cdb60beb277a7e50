"""Similar submissions (:mod:`autograder.judging.similarity`): normalising code, finding pairs, the report fragment.

Every test is pure and fast: the input is code as text, no notebook is run.
"""

import copy
import inspect
import os

import pytest

import nbformat

from tests.support import ROOT
from autograder.judging.similarity import (find_reference_copies, find_similar, normalise, reference_functions, release_stubs,
                                   similarity_html)

STUB = '''def train(X, y, *, max_epochs=100):
    """Train the perceptron."""
    # YOUR CODE HERE
    raise NotImplementedError()
'''

# One student's perceptron ...
ORIGINAL = '''def train(X, y, *, max_epochs=100):
    """Train the perceptron."""
    X = np.asarray(X, dtype=float)
    weights = np.zeros(X.shape[1])
    offset = 0.0
    mistakes = 0
    for epoch in range(1, max_epochs + 1):
        made = 0
        for point, label in zip(X, y):
            if label * (weights @ point + offset) <= 0:
                weights = weights + label * point
                offset += label
                made += 1
        mistakes += made
        if made == 0:
            break
    return weights, offset, mistakes, epoch
'''

# ... copied with new names, new spacing and comments: the same normalised lines.
DISGUISED = '''def train(X, y, *, max_epochs=100):
    """Train the perceptron."""
    X = np.asarray(X, dtype = float)   # make floats
    w = np.zeros( X.shape[1] )
    b = 0.0

    n_wrong = 0
    for e in range(1, max_epochs+1):
        # count the mistakes of this epoch
        k = 0
        for xi, yi in zip(X, y):
            if yi*(w @ xi + b) <= 0:
                w = w + yi*xi
                b += yi
                k += 1
        n_wrong += k
        if k == 0:
            break
    return w, b, n_wrong, e
'''

# An independent solution of the same exercise.
INDEPENDENT = '''def train(X, y, *, max_epochs=100):
    theta = np.zeros(np.shape(X)[1] + 1)
    lifted = np.column_stack([X, np.ones(len(X))])
    total = 0
    epochs_run = 0
    while epochs_run < max_epochs:
        epochs_run += 1
        changed = False
        for i in range(len(y)):
            if y[i] * np.dot(theta, lifted[i]) <= 0:
                theta += y[i] * lifted[i]
                total += 1
                changed = True
        if not changed:
            break
    return theta[:-1], float(theta[-1]), total, epochs_run
'''


def test_renaming_spacing_and_comments_do_not_change_the_normalised_lines():
    keep = {"train", "X", "y", "max_epochs"}
    first = [line.normalised for line in normalise(ORIGINAL, keep)]
    second = [line.normalised for line in normalise(DISGUISED, keep)]
    assert first == second
    assert "v1 = v2 . zeros ( X . shape [ 1 ] )" in first  # weights -> v1, np -> v2; attributes keep their names
    assert "X = v1 . asarray ( X , dtype = float )" in first  # so do keyword arguments


def test_names_are_numbered_afresh_on_each_line():
    code = "def f(a, b):\n    c = b + a * b\n    return c\n"
    assert [line.normalised for line in normalise(code)] == ["def v1 ( v2 , v3 ) :", "v1 = v2 + v3 * v2", "return v1"]


def test_a_disguised_copy_is_reported_with_its_shared_lines_side_by_side():
    pairs = find_similar({"ada": [ORIGINAL], "bob": [DISGUISED], "cyd": [INDEPENDENT]}, [STUB])
    assert [(p.first, p.second) for p in pairs] == [("ada", "bob")]
    pair = pairs[0]
    assert pair.similarity == pytest.approx(1.0)
    # Of the 15 lines below the stub's signature and docstring, the four all three students wrote
    # (v1 = 0 twice, v1 += 1, break) are not counted.
    assert pair.counted_first == pair.counted_second == len(pair.shared) == 11
    by_text = {s.first_text: s for s in pair.shared}
    shared = by_text["weights = weights + label * point"]
    assert shared.second_text == "w = w + yi*xi"
    assert shared.first_where == "cell 1, line 11" and shared.second_where == "cell 1, line 13"


def test_an_independent_solution_is_not_reported():
    assert find_similar({"ada": [ORIGINAL], "cyd": [INDEPENDENT]}, [STUB], threshold=0.3) == []


def test_the_figure_is_the_share_of_counted_lines_in_common():
    # The copy drops 3 of the original's 15 counted lines and adds 4 of its own: 12 shared lines.
    lines = DISGUISED.splitlines()
    partial = "\n".join(lines[:3] + ["    print('starting')", "    w = list(range(3))", "    extra = 1",
                                       "    other = 2"] + lines[7:]) + "\n"
    pairs = find_similar({"ada": [ORIGINAL], "bob": [partial]}, [STUB], threshold=0.5)
    assert len(pairs) == 1
    pair = pairs[0]
    assert (pair.counted_first, pair.counted_second, len(pair.shared)) == (15, 16, 12)
    assert pair.similarity == pytest.approx(2 * 12 / 31)
    assert find_similar({"ada": [ORIGINAL], "bob": [partial]}, [STUB], threshold=0.8) == []


def test_functions_in_another_order_or_cell_still_match():
    helper = "def scale(v):\n    out = []\n    for item in v:\n        out.append(2 * item)\n    return out\n"
    pairs = find_similar({"ada": [ORIGINAL, helper], "bob": [helper + "\n" + DISGUISED]}, [STUB])
    assert len(pairs) == 1 and pairs[0].similarity == pytest.approx(1.0) and len(pairs[0].shared) == 20


def test_untouched_stubs_are_never_similar():
    blank = {f"student{i}": [STUB] for i in range(4)}
    assert find_similar(blank, [STUB]) == []


def test_lines_most_of_the_class_wrote_are_not_counted():
    # Five students write the same short function; two of them also share a long one.
    common = "def lift(X):\n    X = np.asarray(X, dtype=float)\n    return np.hstack([X, np.ones((X.shape[0], 1))])\n"
    batch = {f"s{i}": [common] for i in range(5)}
    batch["s0"].append(ORIGINAL)
    batch["s1"].append(DISGUISED)
    pairs = find_similar(batch, [STUB])
    assert [(p.first, p.second) for p in pairs] == [("s0", "s1")]
    assert all("hstack" not in s.first_text for s in pairs[0].shared)
    # With only the common function, nothing is reported, however alike.
    assert find_similar({f"s{i}": [common] for i in range(5)}, [STUB], min_shared_lines=1) == []


def test_two_students_sharing_a_line_is_not_yet_common():
    # With two or three submissions, a line both wrote still counts.
    code = "def f(a):\n    b = a + 1\n    c = b * 2\n    d = c - 3\n    e = d / 4\n    return e\n"
    assert len(find_similar({"a": [code], "b": [code]})) == 1
    assert len(find_similar({"a": [code], "b": [code], "c": ["x = 1\n"]})) == 1


def test_nearly_empty_pairs_are_not_reported():
    tiny = "def f(a):\n    return a + 1\n"
    assert find_similar({"a": [tiny], "b": [tiny]}) == []
    assert len(find_similar({"a": [tiny], "b": [tiny]}, min_shared_lines=2)) == 1


def test_code_that_does_not_tokenize_is_compared_line_by_line():
    broken = ORIGINAL + '    s = """never closed\n'
    reindented = DISGUISED.replace("    return w, b", "  return w, b") + '    s = """never closed\n'
    pairs = find_similar({"ada": [broken], "bob": [broken], "cyd": [reindented]}, [STUB], threshold=0.99)
    assert [(p.first, p.second) for p in pairs] == [("ada", "bob")]
    assert [line.text for line in normalise("x  =  1   # set x\n\n  y=2\n'''open")] == ["x  =  1   # set x", "y=2", "'''open"]


@pytest.mark.parametrize("kwargs, message", [
    ({"threshold": 0}, "threshold must be a number in (0, 1]"),
    ({"threshold": 1.5}, "threshold must be a number in (0, 1]"),
    ({"min_shared_lines": 0}, "min_shared_lines must be an int of at least 1"),
    ({"common_fraction": 0}, "common_fraction must be a number in (0, 1]"),
])
def test_bad_settings_are_errors_that_name_the_setting(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("]", r"\]")):
        find_similar({}, **kwargs)


def test_one_string_instead_of_a_list_of_cells_is_an_error():
    with pytest.raises(TypeError, match="submission 'ada': expected a sequence of cell sources"):
        find_similar({"ada": ORIGINAL})
    with pytest.raises(TypeError, match="stubs must be a sequence"):
        find_similar({}, STUB)


def test_the_report_fragment_escapes_everything_and_shows_both_sides():
    evil = ORIGINAL.replace('"""Train the perceptron."""', 'note = "</code><script>alert(1)</script>"')
    pairs = find_similar({"<b>ada</b>": [evil], "bob": [evil]}, [STUB])
    page = similarity_html(pairs)
    assert "<script>" not in page and "<b>ada</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "&lt;b&gt;ada&lt;/b&gt;" in page
    assert "100%" in page and "weights = weights + label * point" in page
    assert page.count("<tr>") == 1 + 1 + 1 + len(pairs[0].shared)  # summary head, its row, pair head, lines
    assert page.startswith("<section><h2>Similar submissions</h2>") and page.endswith("</section>")


def test_the_report_fragment_says_when_no_pair_was_found():
    page = similarity_html([], threshold=0.9)
    assert "at least 90% the same" in page and "No pair reached that figure." in page and "<table>" not in page


def test_the_stubs_are_the_release_notebooks_code_answer_cells():
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import numpy as np", metadata={"nbgrader": {"grade_id": "imports", "locked": True}}),
        nbformat.v4.new_code_cell(STUB, metadata={"nbgrader": {"grade_id": "train", "solution": True}}),
        nbformat.v4.new_markdown_cell("YOUR ANSWER HERE", metadata={"nbgrader": {"grade_id": "why", "solution": True}}),
        nbformat.v4.new_code_cell("train(X, y)"),
    ]
    assert release_stubs(nb) == [STUB]
    assert release_stubs(nbformat.reads(nbformat.writes(nb), as_version=4)) == [STUB]


# -- copies of the reference library ---------------------------------------------------------

def test_string_literals_are_folded_into_one_token():
    def lines(code):
        return [line.normalised for line in normalise(code)]

    assert lines('raise ValueError("w must be 1-D")\n') == lines("raise ValueError('bad' f'{shape}')\n")
    assert lines('raise ValueError("w must be 1-D")\n') == ['raise ValueError ( "..." )']
    assert lines("x = 0\n") != lines("x = 1\n")  # numbers keep their value


PS2_STUBS = ['''def perceptron_update(w, b, x, y):
    """One step of the online perceptron."""
    # YOUR CODE HERE
    raise NotImplementedError()
''', '''def train_perceptron(X, y, *, fit_intercept=True, max_epochs=100):
    """Train the perceptron."""
    # YOUR CODE HERE
    raise NotImplementedError()
''']

# perceptron_lib.perceptron.perceptron_update, pasted with its two conversions and its two checks
# swapped, new error messages and comments.
UPDATE_COPY = '''def perceptron_update(w, b, x, y):
    """My update."""
    x = np.asarray(x, dtype=np.float64)   # the example
    w = np.asarray(w, dtype=np.float64)
    if y not in (-1, 1):
        raise ValueError("the label must be +1 or -1")
    if w.shape != x.shape or w.ndim != 1:
        raise ValueError("w and x do not fit")
    if y * (w @ x + b) <= 0:
        return w + y * x, float(b + y), True
    return w.copy(), float(b), False
'''

# perceptron_lib._validation.check_X, renamed and reworded, as the helper of an answer of one's own.
CHECK_X_COPY = '''def validate(points, *, what="X", n_features=None):
    if points is None:
        raise TypeError("no points given")
    try:
        arr2 = np.asarray(points, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise TypeError(f"cannot convert {what}: {error}") from None
    if arr2.shape[0] == 0:
        raise ValueError("empty")
    if arr2.ndim != 2:
        raise ValueError(f"{what} needs two dimensions")
    if arr2.shape[1] == 0:
        raise ValueError("no features")
    if not np.isfinite(arr2).all():
        where = np.argwhere(~np.isfinite(arr2))[0]
        raise ValueError(f"bad value {arr2[tuple(where)]} at {where}")
    return np.ascontiguousarray(arr2)


def signed_distance(X, w, b=0.0):
    X = validate(X)
    return (X @ np.asarray(w, dtype=float) + b) / np.linalg.norm(w)
'''


@pytest.fixture(scope="module")
def library():
    import perceptron_lib

    return reference_functions(os.path.dirname(perceptron_lib.__file__))


def test_every_function_and_method_of_the_library_is_a_comparison_point(library):
    import perceptron_lib

    names = {r.name for r in library}
    package_dir = os.path.dirname(perceptron_lib.__file__)
    # Everything the package exports that is a function, and every method a class of it defines there.
    for export in perceptron_lib.__all__:
        value = getattr(perceptron_lib, export)
        if inspect.isfunction(value):
            assert f"{value.__module__}.{value.__qualname__}" in names
        elif inspect.isclass(value):
            for method, member in vars(value).items():
                # (A named tuple's methods are written by the collections module, not in the library.)
                if inspect.isfunction(member) and member.__code__.co_filename.startswith(package_dir):
                    assert f"{value.__module__}.{member.__qualname__}" in names, method
    # Helpers and the methods of private classes too: a pasted function brings its helpers along.
    assert {"perceptron_lib._validation.check_X", "perceptron_lib.averaged._AveragedPass.on_mistake",
            "perceptron_lib.estimators._OnlineClassifier.fit"} <= names
    root = os.path.dirname(os.path.dirname(perceptron_lib.__file__))
    for reference in library:  # each source is the function's own lines of its file, dedented
        with open(os.path.join(root, reference.path), encoding="utf-8") as f:
            first = f.read().splitlines()[reference.first_line - 1]
        assert first.strip() == reference.source.splitlines()[0].strip()
        assert reference.source.startswith(("def ", "async def "))


def test_data_loaders_handed_to_students_can_be_left_out():
    import perceptron_lib

    kept = reference_functions(os.path.dirname(perceptron_lib.__file__),
                               leave_out=("four_point_example", "OffsetUpdateExample"))
    names = {r.name for r in kept}
    assert "perceptron_lib.datasets.four_point_example" not in names
    assert "perceptron_lib.datasets.make_separable" in names


def test_a_renamed_and_reordered_copy_names_the_library_function(library):
    copies = find_reference_copies({"ada": [UPDATE_COPY]}, library, PS2_STUBS)
    assert [(c.submission, c.function, c.reference) for c in copies] == [
        ("ada", "perceptron_update", "perceptron_lib.perceptron.perceptron_update")]
    copy = copies[0]
    # Seven counted lines: the signature, the docstring and the two short raise lines are not counted.
    assert copy.similarity == 1.0 and copy.counted_reference == copy.counted_function == len(copy.shared) == 7
    by_text = {s.first_text: s for s in copy.shared}
    shared = by_text["x = np.asarray(x, dtype=np.float64)   # the example"]
    # w's conversion normalises the same way; each line is shown next to the one written like it.
    assert shared.second_text == "x = np.asarray(x, dtype=np.float64)"
    assert shared.first_where == "cell 1, line 3"
    path, line = shared.second_where.rsplit(", line ", 1)
    assert path == "perceptron_lib/perceptron.py"
    import perceptron_lib

    with open(os.path.join(os.path.dirname(perceptron_lib.__file__), "perceptron.py"), encoding="utf-8") as f:
        assert f.read().splitlines()[int(line) - 1].strip() == shared.second_text


def test_a_renamed_library_helper_inside_a_submission_is_found(library):
    independent = "def margin(X, y, w, b=0.0):\n    return float(np.min(y * (X @ w + b)) / np.linalg.norm(w))\n"
    copies = find_reference_copies({"bob": [CHECK_X_COPY, independent], "cyd": [independent]}, library)
    assert [(c.submission, c.function, c.reference) for c in copies] == [
        ("bob", "validate", "perceptron_lib._validation.check_X")]
    assert copies[0].similarity >= 0.8 and len(copies[0].shared) >= 8


def test_sharing_the_short_lines_any_solution_writes_is_not_a_copy(library):
    # The update every correct answer writes: three of the library's seven counted lines.
    own = '''def perceptron_update(w, b, x, y):
    w = np.asarray(w, dtype=float)
    x = np.asarray(x, dtype=float)
    if y * (w @ x + b) <= 0:
        return w + y * x, float(b + y), True
    return w.copy(), float(b), False
'''
    assert find_reference_copies({"ann": [own]}, library, PS2_STUBS) == []
    assert find_reference_copies({"ann": [own]}, library, PS2_STUBS, threshold=0.4, min_shared_lines=3)
    # A loop of one's own shares only short lines with the library's loops, and those are not counted.
    loop = '''def train_perceptron(X, y, *, fit_intercept=True, max_epochs=100):
    w = np.zeros(np.shape(X)[1])
    b = 0.0
    mistakes = 0
    for epoch in range(max_epochs):
        made = 0
        for xi, yi in zip(X, y):
            if yi * (xi @ w + b) <= 0:
                w += yi * xi
                b += yi
                made += 1
        mistakes += made
        if made == 0:
            break
    return w, b, mistakes, epoch + 1
'''
    counting_short_lines = find_reference_copies({"ann": [loop]}, library, PS2_STUBS, threshold=0.2,
                                                 min_shared_lines=2, min_tokens=1)
    trace = next(c for c in counting_short_lines if c.reference == "perceptron_lib.trace.trace_perceptron")
    assert [s.second_text for s in trace.shared] == ["b = 0.0", "mistakes = 0", "mistakes += 1", "if mistakes == 0:",
                                                     "break"]
    assert find_reference_copies({"ann": [loop]}, library, PS2_STUBS, threshold=0.2, min_shared_lines=2) == []


def test_a_library_function_too_short_to_tell_apart_is_never_reported(library):
    # margin is three lines over a helper: even pasted whole, too few lines to tell from an answer.
    margin_source = next(r.source for r in library if r.name == "perceptron_lib.theory.margin")
    assert find_reference_copies({"ann": [margin_source]}, library) == []
    found = find_reference_copies({"ann": [margin_source]}, library, min_shared_lines=1, threshold=1.0)
    assert [(c.reference, len(c.shared)) for c in found] == [("perceptron_lib.theory.margin", 3)]


def test_lines_most_of_the_class_wrote_do_not_count_towards_a_copy(library):
    # Everyone converts and checks like the library; only ada also has the rest of perceptron_update.
    everyone = '''def perceptron_update(w, b, x, y):
    w = np.asarray(w, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    if w.shape != x.shape or w.ndim != 1:
        raise ValueError("shapes")
    if y not in (-1, 1):
        raise ValueError("label")
    return w + y * x, float(b + y), y * (w @ x + b) <= 0
'''
    batch = {f"s{i}": [everyone] for i in range(4)}
    assert find_reference_copies(batch, library, PS2_STUBS) == []
    batch["ada"] = [UPDATE_COPY]
    # Four of the seven lines are the class's own: ada's three others are too few to report.
    assert find_reference_copies(batch, library, PS2_STUBS) == []
    assert [c.submission for c in find_reference_copies(batch, library, PS2_STUBS, min_shared_lines=3)] == ["ada"]


@pytest.fixture(scope="module")
def instructor_code():
    """Per assignment: the stubs of its release, the instructor's solution and every known-wrong implementation."""
    from nbgrader.preprocessors import ClearSolutions

    from autograder.course.assignments import load_known_wrong
    from autograder.course.assignments import names

    root = ROOT
    found = {}
    for assignment in names():
        source_nb = nbformat.read(os.path.join(root, "notebooks", "source", assignment, f"{assignment}.ipynb"),
                                  as_version=4)
        answers = release_stubs(source_nb)  # the answer cells, with the solutions in them
        release_nb, _ = ClearSolutions().preprocess(copy.deepcopy(source_nb), {})  # as the release makes them
        code = {"solution": answers}
        code.update({wrong.name: [wrong.code()] for wrong in load_known_wrong(assignment)})
        found[assignment] = (release_stubs(release_nb), code)
    return found


def test_the_instructors_solutions_and_the_known_wrong_code_are_not_copies(library, instructor_code):
    assert len(instructor_code) == 5
    for assignment, (stubs, code) in instructor_code.items():
        assert stubs and len(code) > 10, assignment
        # Each alone (no class to tell common lines from) and all together.
        for name, cells in code.items():
            assert find_reference_copies({name: cells}, library, stubs) == [], (assignment, name)
        assert find_reference_copies(code, library, stubs) == [], assignment


def test_a_copy_in_a_real_assignment_is_found_among_the_instructors_code(library, instructor_code):
    stubs, code = instructor_code["ps2_online_perceptron"]
    batch = dict(code, ada=[c.replace("raise NotImplementedError()", "pass") for c in stubs[1:]] + [UPDATE_COPY])
    copies = find_reference_copies(batch, library, stubs)
    assert [(c.submission, c.reference) for c in copies] == [("ada", "perceptron_lib.perceptron.perceptron_update")]


@pytest.mark.parametrize("kwargs, message", [
    ({"threshold": 0}, "threshold must be a number in (0, 1]"),
    ({"min_shared_lines": 0}, "min_shared_lines must be an int of at least 1"),
    ({"min_tokens": 2.5}, "min_tokens must be an int of at least 1"),
    ({"common_fraction": 2}, "common_fraction must be a number in (0, 1]"),
])
def test_bad_reference_settings_are_errors_that_name_the_setting(library, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("]", r"\]")):
        find_reference_copies({}, library, **kwargs)


def test_bad_reference_inputs_are_errors_that_say_what_was_expected(tmp_path):
    with pytest.raises(TypeError, match="references must be ReferenceFunction records; got str"):
        find_reference_copies({}, ["def f(): pass"])
    with pytest.raises(ValueError, match="is not a folder"):
        reference_functions(str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match="holds no Python file"):
        reference_functions(str(tmp_path))


def test_the_report_names_the_copy_flags_its_row_and_keeps_it_from_the_student(library):
    from autograder.outputs.report import feedback_html, report_html
    from autograder.results import Result

    copies = find_reference_copies({"<i>ada</i>": [UPDATE_COPY], "bob": [STUB]}, library, PS2_STUBS)
    results = [Result("<i>ada</i>", "ps2", "graded", score=3, max_score=3),
               Result("bob", "ps2", "graded", score=3, max_score=3)]
    page = report_html("ps2", results, copies=copies)
    section = page[page.index("<h2>Copies of the reference implementation</h2>"):]
    section = section[:section.index("</section>")]
    assert "matches the reference implementation <code>perceptron_lib.perceptron.perceptron_update</code>" in section
    assert "w = np.asarray(w, dtype=np.float64)" in section and "perceptron_lib/perceptron.py, line" in section
    assert "<i>ada</i>" not in page and "&lt;i&gt;ada&lt;/i&gt;" in section
    rows = page[page.index('id="all-submissions"'):]
    ada_row = next(row for row in rows.split("<tr>") if "&lt;i&gt;ada&lt;/i&gt;" in row)
    bob_row = next(row for row in rows.split("<tr>") if ">bob<" in row)
    assert "reference-copy" in ada_row and "reference-copy" not in bob_row
    assert "perceptron_update matches the reference implementation perceptron_lib.perceptron.perceptron_update" \
        in page[page.index("<h2>Flags</h2>"):]
    assert results[0].flags == [] and "reference-copy" not in feedback_html(results[0])
    empty = report_html("ps2", results, copies=[])
    assert "No function of a submission matches one of the library." in empty and "reference-copy" not in empty
    assert "Copies of the reference implementation" not in report_html("ps2", results)
