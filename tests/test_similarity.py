"""Similar submissions (:mod:`autograder.similarity`): normalising code, finding pairs, the report fragment.

Every test is pure and fast: the input is code as text, no notebook is run.
"""

import pytest

import nbformat

from autograder.similarity import find_similar, normalise, release_stubs, similarity_html

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
