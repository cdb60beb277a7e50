"""Similar submissions, and copies of the reference library: found on this machine, for the instructor.

The input is each submission's student-authored code (the code cells the
grader's integrity step kept as the student's: answers and added cells) and
the released notebook's stubs.  Every cell is read with Python's
:mod:`tokenize` and turned into *normalised lines*, one per logical line:
comments, blank lines, indentation and spacing are dropped, every string
literal becomes ``"..."``, and every
identifier the student chose is renamed ``v1``, ``v2``, ... in order of first
use within its line, so renaming variables, reformatting, rewording a message, or adding a
variable that shifts every later one changes nothing, while the line keeps
its shape (``w = w + y * x`` becomes ``v1 = v1 + v2 * v3``).
Keywords, built-ins, attribute names (``np.hstack``, ``.shape``), keyword
arguments (``dtype=``) and the names the stubs define (the assignment's function and parameter names) keep
their spelling.  Numbers keep their value.  Lines are compared as a multiset,
so reordering them changes nothing either.

Not every shared line is evidence.  A line that also appears in a stub
(``def absorb_offset(X):``, ``raise NotImplementedError()``) was written by
the instructor; a line written by more than half of the batch, and by more
than two students, is what the exercise calls for.  Neither is counted.  The
similarity of two submissions is the share of their counted lines that they
have in common: ``2 * shared / (counted_first + counted_second)``, each line
counted as often as both wrote it (:func:`find_similar`).

The same lines find copies of the reference library (:func:`find_reference_copies`):
every function and method of ``perceptron_lib``, read from its source
(:func:`reference_functions`), is compared with every function of every
submission.  A single fixed text is easier to resemble by chance than another
student's code, so more is set aside: signatures and docstrings (the stubs fix
them), short lines (``b = 0.0``, ``count += 1``, ``raise ValueError("...")``) and,
since a library function's local names are often another stub's parameters,
the spelling of every name but the functions the stubs define.  A function is
reported when it holds most of a library function's counted lines, and at least
a handful: a library function too short to have that many lines of its own
cannot be told apart from an independent answer and is never reported.

Nothing here changes a score or leaves the machine: the results are lists
for an instructor to read, which :func:`similarity_html` and
:func:`reference_copies_html` render as fragments of the grading report.
"""

import ast
import builtins
import functools
import html
import io
import itertools
import keyword
import os
import re
import textwrap
import tokenize
from collections import Counter, defaultdict
from dataclasses import dataclass

from perceptron_course.cells import is_solution

__all__ = ["SharedLine", "SimilarPair", "ReferenceFunction", "ReferenceCopy", "normalise", "find_similar",
           "reference_functions", "find_reference_copies", "release_stubs", "similarity_html",
           "reference_copies_html", "reference_copy_text"]

DEFAULT_THRESHOLD = 0.8
DEFAULT_MIN_SHARED_LINES = 5
DEFAULT_COMMON_FRACTION = 0.5
DEFAULT_REFERENCE_THRESHOLD = 0.7
DEFAULT_REFERENCE_MIN_SHARED_LINES = 5
DEFAULT_MIN_TOKENS = 6

_KEEP = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))
_SKIP_TOKENS = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT,
                          tokenize.ENCODING, tokenize.ENDMARKER})
# Python 3.12 splits an f-string into tokens of its own; 3.11 has one STRING token for it.
_FSTRING_START = getattr(tokenize, "FSTRING_START", -1)
_FSTRING_END = getattr(tokenize, "FSTRING_END", -1)
LITERAL = '"..."'  # what every string literal becomes


@dataclass(frozen=True)
class Line:
    """One logical line of a submission: its normalised form, its text as written, and where it is."""

    normalised: str
    text: str
    cell: int
    line: int


@dataclass(frozen=True)
class SharedLine:
    """A counted line two submissions both wrote: each one's text and position (cell and line, from 1)."""

    normalised: str
    first_text: str
    first_where: str
    second_text: str
    second_where: str


@dataclass(frozen=True)
class SimilarPair:
    """Two submissions whose counted lines are mostly the same.

    ``similarity`` is ``2 * len(shared) / (counted_first + counted_second)``,
    between 0 and 1; ``shared`` lists the shared lines in the first
    submission's order.
    """

    first: str
    second: str
    similarity: float
    counted_first: int
    counted_second: int
    shared: tuple


def _token_text(token):
    """The normalised spelling of a token that is not renamed: numbers lose case and underscores.

    Numbers keep their value: ``count = 0`` and ``count = 1`` are different lines.
    """
    if token.type == tokenize.NUMBER:
        return token.string.lower().replace("_", "")
    return token.string


def _logical_lines(source):
    """``(tokens, first_line_number)`` for each logical line of ``source``; raises on code it cannot read.

    A run of string literals (``"a" "b"``, an f-string with its fields) is one
    token whose text is :data:`LITERAL`.
    """
    lines, current = [], []
    fstring_depth = 0
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in _SKIP_TOKENS:
            continue
        if token.type == _FSTRING_START:
            fstring_depth += 1
        if fstring_depth or token.type == tokenize.STRING:
            if current and current[-1].string == LITERAL:
                current[-1] = current[-1]._replace(end=token.end)
            else:
                current.append(token._replace(type=tokenize.STRING, string=LITERAL))
            if token.type == _FSTRING_END:
                fstring_depth -= 1
            continue
        if token.type == tokenize.NEWLINE:
            if current:
                lines.append((current, current[0].start[0]))
            current = []
            continue
        current.append(token)
    if current:
        lines.append((current, current[0].start[0]))
    return lines


def _fallback_lines(source):
    """For code :mod:`tokenize` rejects: each physical line, its comment and spacing removed."""
    found = []
    for number, raw in enumerate(source.splitlines(), start=1):
        text = re.sub(r"\s+", " ", raw.split("#", 1)[0]).strip()
        if text:
            found.append((text, number))
    return found


def normalise(source, keep_names=frozenset(), *, cell=0):
    """The :class:`Line` records of one cell's code, in order.

    ``keep_names`` are identifiers left as they are (the stubs' names); every
    other identifier the code binds or uses, except keywords, built-ins,
    attribute names and keyword arguments, becomes ``v1``, ``v2``, ... numbered afresh on each line.  Code that does not tokenize is compared line by line
    with spacing and comments removed.
    """
    physical = source.splitlines()

    def text_of(first, last):
        return "\n".join(physical[first - 1:last]).strip() if physical else ""

    try:
        logical = _logical_lines(source)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return [Line(text, physical[number - 1].strip(), cell, number) for text, number in _fallback_lines(source)]

    result = []
    for tokens, first in logical:
        names = {}
        parts = []
        depth = 0
        for index, token in enumerate(tokens):
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
            elif token.type == tokenize.OP and token.string in ")]}":
                depth -= 1
            attribute = index > 0 and tokens[index - 1].string == "."
            keyword_argument = depth > 0 and index + 1 < len(tokens) and tokens[index + 1].string == "="
            if token.type == tokenize.NAME and token.string not in _KEEP and token.string not in keep_names \
                    and not attribute and not keyword_argument:
                parts.append(names.setdefault(token.string, f"v{len(names) + 1}"))
            else:
                parts.append(_token_text(token))
        last = tokens[-1].end[0]
        result.append(Line(" ".join(parts), text_of(first, last), cell, first))
    return result


def _stub_names(stubs):
    """Every identifier in the stubs: the function and parameter names the assignment fixes."""
    found = set()
    for source in stubs:
        try:
            for token in tokenize.generate_tokens(io.StringIO(source).readline):
                if token.type == tokenize.NAME:
                    found.add(token.string)
        except (tokenize.TokenError, IndentationError, SyntaxError):
            found.update(re.findall(r"[A-Za-z_]\w*", source))
    return frozenset(found)


def _stub_definitions(stubs):
    """The names of the functions and classes the stubs define: what the assignment asks for by name."""
    found = set()
    for source in stubs:
        try:
            found.update(node.name for node in ast.walk(ast.parse(source))
                         if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
        except (SyntaxError, ValueError, RecursionError):
            found.update(re.findall(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)", source, re.MULTILINE))
    return frozenset(found)


def release_stubs(release_nb):
    """The sources of a release notebook's code answer cells: the ``stubs`` :func:`find_similar` leaves out."""
    stubs = []
    for cell in release_nb.get("cells", []):
        if cell.get("cell_type") == "code" and is_solution(cell):
            source = cell.get("source", "")
            stubs.append("".join(source) if isinstance(source, list) else source)
    return stubs


def _where(line):
    return f"cell {line.cell + 1}, line {line.line}"


def _check_settings(stubs, *, threshold, common_fraction, **counts):
    """Refuse settings that would make a comparison meaningless, naming the setting; ``counts`` are whole numbers >= 1."""
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be a number in (0, 1]; got {threshold!r}.")
    for name, value in counts.items():
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} must be an int of at least 1; got {value!r}.")
    if not 0 < common_fraction <= 1:
        raise ValueError(f"common_fraction must be a number in (0, 1]; got {common_fraction!r}.")
    if isinstance(stubs, str):
        raise TypeError("stubs must be a sequence of cell sources, not one string.")


def find_similar(submissions, stubs=(), *, threshold=DEFAULT_THRESHOLD, min_shared_lines=DEFAULT_MIN_SHARED_LINES,
                 common_fraction=DEFAULT_COMMON_FRACTION):
    """Pairs of submissions whose counted lines are at least ``threshold`` the same, most similar first.

    Parameters
    ----------
    submissions : mapping of str to sequence of str
        Each submission's id and the sources of its student-authored code cells.
    stubs : sequence of str
        The released notebook's answer-cell sources; their lines are never counted.
    threshold : float, default=0.8
        The smallest similarity reported, in (0, 1].
    min_shared_lines : int, default=5
        The fewest shared counted lines a reported pair must have, so two
        nearly empty submissions are not reported.
    common_fraction : float, default=0.5
        A line written by more than this share of the submissions (and by more
        than two) is not counted.

    Returns
    -------
    list of SimilarPair
    """
    _check_settings(stubs, threshold=threshold, common_fraction=common_fraction, min_shared_lines=min_shared_lines)

    keep = _stub_names(stubs)
    stub_lines = {line.normalised for source in stubs for line in normalise(source, keep)}
    lines = {}
    for sid, sources in submissions.items():
        if isinstance(sources, str):
            raise TypeError(f"submission {sid!r}: expected a sequence of cell sources, got one string.")
        lines[sid] = [line for index, source in enumerate(sources)
                      for line in normalise(source, keep, cell=index) if line.normalised not in stub_lines]

    counts = {sid: Counter(line.normalised for line in found) for sid, found in lines.items()}
    common = _common_lines(counts, common_fraction)
    counted = {sid: Counter({t: n for t, n in counter.items() if t not in common}) for sid, counter in counts.items()}

    # Only pairs that share a counted line can be similar: find them through the lines.
    who_wrote = defaultdict(list)
    for sid, counter in counted.items():
        for text in counter:
            who_wrote[text].append(sid)
    shared_counts = Counter()
    for text, sids in who_wrote.items():
        for a, b in itertools.combinations(sorted(sids), 2):
            shared_counts[a, b] += min(counted[a][text], counted[b][text])

    pairs = []
    for (a, b), shared in shared_counts.items():
        total_a, total_b = sum(counted[a].values()), sum(counted[b].values())
        similarity = 2 * shared / (total_a + total_b)
        if shared < min_shared_lines or similarity < threshold:
            continue
        pairs.append(SimilarPair(a, b, similarity, total_a, total_b, _shared_lines(lines[a], lines[b], counted[a], counted[b])))
    pairs.sort(key=lambda p: (-p.similarity, p.first, p.second))
    return pairs


def _spelling(text):
    """A line's text without its comment and spacing, to tell which of two alike lines is written the same way."""
    return re.sub(r"\s+", "", text.split("#", 1)[0])


def _common_lines(counts, common_fraction):
    """The normalised lines written by more than ``common_fraction`` of the submissions, and by more than two."""
    writers = Counter(text for counter in counts.values() for text in counter)
    too_common = max(2, common_fraction * len(counts))
    return {text for text, n in writers.items() if n > too_common}


def _shared_lines(first, second, counted_first, counted_second, *, second_where=None):
    """The counted lines both wrote, in ``first``'s order, each matched with an unused line of ``second``."""
    unused = defaultdict(list)
    for line in second:
        if line.normalised in counted_second:
            unused[line.normalised].append(line)
    found = []
    for line in first:
        if line.normalised in counted_first and unused.get(line.normalised):
            candidates = unused[line.normalised]
            # Of lines that normalise alike, the one written the same way is its match (x with x, w with w).
            same = [i for i, other in enumerate(candidates) if _spelling(other.text) == _spelling(line.text)]
            other = candidates.pop(same[0] if same else 0)
            found.append(SharedLine(line.normalised, line.text, _where(line), other.text,
                                    (second_where or _where)(other)))
    return tuple(found)


# -- copies of the reference library -------------------------------------------------------

@dataclass(frozen=True)
class ReferenceFunction:
    """A function or method of the reference library: its dotted name, file, first line and source."""

    name: str
    path: str
    first_line: int
    source: str


@dataclass(frozen=True)
class ReferenceCopy:
    """A function of a submission that holds most of a reference function's counted lines.

    ``similarity`` is ``len(shared) / counted_reference``: the share of the
    reference function's counted lines the submission's function also has.
    ``shared`` lists them in the submission's order, the submission's text
    first and the library's second.
    """

    submission: str
    function: str
    reference: str
    similarity: float
    counted_reference: int
    counted_function: int
    shared: tuple


@dataclass(frozen=True)
class _Unit:
    """The logical lines of one function or method, without its signature and docstring."""

    name: str
    lines: tuple


def _function_nodes(tree):
    """``(qualified name, node)`` of every function and method not nested in a function, in source order."""
    found = []

    def visit(body, prefix):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + node.name, node))
            elif isinstance(node, ast.ClassDef):
                visit(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)):
                visit([child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)], prefix)

    visit(tree.body, "")
    return found


def _units(source, keep_names, *, cell=0):
    """The :class:`_Unit` of each function and method in ``source``, and one more for the code outside them.

    Each logical line belongs to the function or method whose body holds it;
    signatures and docstrings belong to none, since the assignment's stubs fix
    them.  The rest of the code (imports, top-level statements, class
    attributes) is the last unit, named ``cell N``; code :mod:`ast` cannot read
    (a cell magic, a syntax error) is all one unit.
    """
    lines = normalise(source, keep_names, cell=cell)
    rest = f"cell {cell + 1}"
    # IPython's line magics and shell escapes (``%matplotlib inline``) are not Python: blanked, the rest parses.
    python = "\n".join("" if text.lstrip().startswith(("%", "!")) else text for text in source.splitlines())
    try:
        tree = ast.parse(python)
    except (SyntaxError, ValueError, RecursionError):
        return [_Unit(rest, tuple(lines))] if lines else []
    owner, left_out = {}, set()
    for name, node in _function_nodes(tree):
        left_out.add(node.lineno)
        first = node.body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            left_out.add(first.lineno)
        for number in range(node.lineno, node.end_lineno + 1):
            owner.setdefault(number, name)  # a method's lines were claimed by the method, not its class
    grouped = defaultdict(list)
    for line in lines:
        if line.line not in left_out:
            grouped[owner.get(line.line, rest)].append(line)
    return [_Unit(name, tuple(found)) for name, found in grouped.items()]


def reference_functions(package_dir, *, package=None, leave_out=()):
    """Every function and method the reference library defines, read from its source files.

    Parameters
    ----------
    package_dir : str
        The library's folder; every ``.py`` file in it and its subfolders is read.
    package : str, optional
        The package's import name, the first part of each function's dotted
        name; by default the folder's name.
    leave_out : iterable of str
        Names (as the package exports them) of functions and classes that are
        not comparison points, such as the data loaders an assignment hands to
        students.

    Returns
    -------
    list of ReferenceFunction
        Functions nested in other functions are part of the outer one.

    Raises
    ------
    ValueError
        If ``package_dir`` is not a folder, or holds no Python file.
    """
    if not os.path.isdir(package_dir):
        raise ValueError(f"package_dir must be the reference library's folder; {package_dir!r} is not a folder.")
    package = package or os.path.basename(os.path.normpath(package_dir))
    leave_out = frozenset(leave_out)
    found, files = [], 0
    for folder, subfolders, names in os.walk(package_dir):
        subfolders[:] = sorted(d for d in subfolders if d.isidentifier())
        for file_name in sorted(n for n in names if n.endswith(".py")):
            files += 1
            path = os.path.join(folder, file_name)
            relative = os.path.relpath(path, os.path.dirname(os.path.normpath(package_dir)))
            parts = os.path.relpath(path, package_dir)[:-3].split(os.sep)
            module = ".".join([package] + [p for p in parts if p != "__init__"])
            with open(path, encoding="utf-8") as f:
                source = f.read()
            physical = source.splitlines()
            for name, node in _function_nodes(ast.parse(source, filename=path)):
                if name.split(".")[0] in leave_out:
                    continue
                text = textwrap.dedent("\n".join(physical[node.lineno - 1:node.end_lineno])) + "\n"
                found.append(ReferenceFunction(f"{module}.{name}", relative.replace(os.sep, "/"), node.lineno, text))
    if not files:
        raise ValueError(f"package_dir {package_dir!r} holds no Python file: is it the reference library's folder?")
    return found


def _token_count(line):
    return len(line.normalised.split())


def find_reference_copies(submissions, references, stubs=(), *, threshold=DEFAULT_REFERENCE_THRESHOLD,
                          min_shared_lines=DEFAULT_REFERENCE_MIN_SHARED_LINES, min_tokens=DEFAULT_MIN_TOKENS,
                          common_fraction=DEFAULT_COMMON_FRACTION):
    """Functions of submissions that are, line for line, a function of the reference library.

    Every function and method of each submission is compared with every
    :class:`ReferenceFunction`, after the normalisation of :func:`normalise`
    (names, spacing, comments, string literals and the order of lines set
    aside).  Only *counted* lines are compared: not a signature or a
    docstring, not a line of the stubs, not a line most of the batch wrote, and
    not a short line (fewer than ``min_tokens`` tokens once normalised, such as
    ``b = 0.0``, ``count += 1`` or ``break``), which any solution may share
    with the library.

    Parameters
    ----------
    submissions : mapping of str to sequence of str
        Each submission's id and the sources of its student-authored code cells.
    references : sequence of ReferenceFunction
        The comparison points, from :func:`reference_functions`.
    stubs : sequence of str
        The released notebook's answer-cell sources.
    threshold : float, default=0.7
        The smallest share of a reference function's counted lines a
        submission's function must also have, in (0, 1].
    min_shared_lines : int, default=5
        The fewest counted lines the two must share, so that a short function
        of a few generic lines is never reported.
    min_tokens : int, default=6
        A line with fewer tokens than this is not counted.
    common_fraction : float, default=0.5
        As for :func:`find_similar`.

    Returns
    -------
    list of ReferenceCopy
        For each submission and reference function, the submission's function
        that shares the most lines with it; by submission, then most similar first.
    """
    _check_settings(stubs, threshold=threshold, common_fraction=common_fraction, min_shared_lines=min_shared_lines,
                    min_tokens=min_tokens)
    for reference in references:
        if not isinstance(reference, ReferenceFunction):
            raise TypeError(f"references must be ReferenceFunction records; got {type(reference).__name__}.")

    keep = _stub_definitions(stubs)
    stub_lines = {line.normalised for source in stubs for line in normalise(source, keep)}
    units = {}
    for sid, sources in submissions.items():
        if isinstance(sources, str):
            raise TypeError(f"submission {sid!r}: expected a sequence of cell sources, got one string.")
        units[sid] = [unit for index, source in enumerate(sources) for unit in _units(source, keep, cell=index)]
    common = _common_lines({sid: Counter(line.normalised for unit in found for line in unit.lines)
                            for sid, found in units.items()}, common_fraction)

    def counted(lines):
        return Counter(line.normalised for line in lines if line.normalised not in stub_lines
                       and line.normalised not in common and _token_count(line) >= min_tokens)

    reference_units = []  # (reference, its lines, their counts)
    for reference in references:
        lines = _reference_lines(reference, keep)
        counts = counted(lines)
        if sum(counts.values()) >= min_shared_lines:
            reference_units.append((reference, lines, counts))
    holders = defaultdict(list)  # counted line -> the reference functions that hold it
    for index, (_, _, counts) in enumerate(reference_units):
        for text in counts:
            holders[text].append(index)

    copies = []
    for sid in submissions:
        best = {}
        for unit in units[sid]:
            counts = counted(unit.lines)
            shared = Counter()
            for text, n in counts.items():
                for index in holders.get(text, ()):
                    shared[index] += min(n, reference_units[index][2][text])
            for index, n_shared in shared.items():
                reference, lines, reference_counts = reference_units[index]
                similarity = n_shared / sum(reference_counts.values())
                if n_shared < min_shared_lines or similarity < threshold:
                    continue
                if index not in best or similarity > best[index].similarity:
                    best[index] = ReferenceCopy(
                        sid, unit.name, reference.name, similarity, sum(reference_counts.values()),
                        sum(counts.values()),
                        _shared_lines(unit.lines, lines, counts, reference_counts,
                                      second_where=lambda line, r=reference: _reference_where(r, line)))
        copies += sorted(best.values(), key=lambda c: (-c.similarity, c.reference))
    return copies


@functools.lru_cache(maxsize=4096)
def _reference_lines(reference, keep_names):
    """The normalised lines of a reference function's body (the library is read once per assignment)."""
    own_name = reference.name.rsplit(".", 1)[-1]
    return tuple(line for unit in _units(reference.source, keep_names) if unit.name == own_name
                 for line in unit.lines)


def _reference_where(reference, line):
    return f"{reference.path}, line {reference.first_line + line.line - 1}"


def similarity_html(pairs, *, threshold=DEFAULT_THRESHOLD, heading_level=2):
    """An HTML fragment for the grading report: every pair, with its shared lines side by side.

    Everything that came from a submission is escaped.  The fragment uses the
    report's table styles and needs no script.
    """
    h = f"h{heading_level}"
    intro = ("<p>Pairs of submissions whose own code is at least "
             f"{threshold:.0%} the same, after comments, formatting and variable names are set aside and "
             "the released stubs and lines most of the class wrote are left out. This is computed on this "
             "machine, changes no score, and is not a verdict: read the code before you draw a "
             "conclusion.</p>")
    if not pairs:
        return f"<section><{h}>Similar submissions</{h}>{intro}<p>No pair reached that figure.</p></section>"
    parts = [f"<section><{h}>Similar submissions</{h}>", intro]
    summary = "".join(
        f"<tr><td><code>{_e(p.first)}</code></td><td><code>{_e(p.second)}</code></td>"
        f"<td class=\"num\">{p.similarity:.0%}</td><td class=\"num\">{len(p.shared)}</td></tr>" for p in pairs)
    parts.append("<table><tr><th scope=\"col\">submission</th><th scope=\"col\">submission</th>"
                 "<th scope=\"col\" class=\"num\">similarity</th><th scope=\"col\" class=\"num\">shared lines</th>"
                 f"</tr>{summary}</table>")
    sub = f"h{min(heading_level + 1, 6)}"
    for p in pairs:
        parts.append(
            f"<{sub}><code>{_e(p.first)}</code> and <code>{_e(p.second)}</code>: {p.similarity:.0%}</{sub}>"
            f"<p class=\"muted\">{len(p.shared)} shared lines; {p.counted_first} and {p.counted_second} counted "
            "lines in all.</p>"
            + _shared_table(p.shared, "The lines both wrote, as each wrote them", f"<code>{_e(p.first)}</code>",
                            f"<code>{_e(p.second)}</code>"))
    parts.append("</section>")
    return "".join(parts)


def _shared_table(shared, caption, first_heading, second_heading):
    """The shared lines side by side, each with where it is; the headings are HTML already."""
    rows = "".join(
        f"<tr><td><pre><code>{_e(s.first_text)}</code></pre><span class=\"muted\">{_e(s.first_where)}</span></td>"
        f"<td><pre><code>{_e(s.second_text)}</code></pre><span class=\"muted\">{_e(s.second_where)}</span></td></tr>"
        for s in shared)
    return (f"<table><caption class=\"muted\">{_e(caption)}</caption>"
            f"<tr><th scope=\"col\">{first_heading}</th><th scope=\"col\">{second_heading}</th></tr>{rows}</table>")


def reference_copy_text(copy):
    """The sentence that names what a :class:`ReferenceCopy` matches, as the report and its flag say it."""
    return (f"{copy.function} matches the reference implementation {copy.reference} "
            f"({len(copy.shared)} of its {copy.counted_reference} counted lines)")


def reference_copies_html(copies, *, threshold=DEFAULT_REFERENCE_THRESHOLD,
                          min_shared_lines=DEFAULT_REFERENCE_MIN_SHARED_LINES, heading_level=2):
    """An HTML fragment for the grading report: every :class:`ReferenceCopy`, with the lines it shares.

    Everything that came from a submission is escaped.
    """
    h = f"h{heading_level}"
    intro = ("<p>Functions of a submission that hold at least "
             f"{threshold:.0%} of the counted lines of a function of the course's reference library, and at "
             f"least {min_shared_lines} of them, after comments, formatting, variable names, string literals and "
             "the order of lines are set aside. Signatures, docstrings, the released stubs, short lines any "
             "solution writes and lines most of the class wrote are not counted. This is computed on this "
             "machine, changes no score, and is not a verdict: read the code before you draw a "
             "conclusion.</p>")
    title = f"<section><{h}>Copies of the reference implementation</{h}>{intro}"
    if not copies:
        return f"{title}<p>No function of a submission matches one of the library.</p></section>"
    parts = [title]
    # Three columns, so that the table fits a phone's screen.
    summary = "".join(
        f"<tr><td><code>{_e(c.submission)}</code>: <code>{_e(c.function)}</code></td>"
        f"<td><code>{_e(c.reference)}</code></td>"
        f"<td class=\"num\">{len(c.shared)} of {c.counted_reference} ({c.similarity:.0%})</td></tr>" for c in copies)
    parts.append("<table><tr><th scope=\"col\">submission: its function</th>"
                 "<th scope=\"col\">matches the reference implementation</th>"
                 f"<th scope=\"col\" class=\"num\">counted lines shared</th></tr>{summary}</table>")
    sub = f"h{min(heading_level + 1, 6)}"
    for c in copies:
        parts.append(
            f"<{sub}><code>{_e(c.submission)}</code>: <code>{_e(c.function)}</code> matches the reference "
            f"implementation <code>{_e(c.reference)}</code></{sub}>"
            f"<p class=\"muted\">{len(c.shared)} of the library function's {c.counted_reference} counted lines "
            f"({c.similarity:.0%}); the submission's function has {c.counted_function} counted lines.</p>"
            + _shared_table(c.shared, "The lines both hold, as each has them", f"<code>{_e(c.submission)}</code>",
                            f"<code>{_e(c.reference)}</code>"))
    parts.append("</section>")
    return "".join(parts)


def _e(value):
    return html.escape(str(value), quote=True)
