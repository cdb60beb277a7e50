"""Similar submissions: pairs whose own code is nearly the same, found on this machine.

The input is each submission's student-authored code (the code cells the
grader's integrity step kept as the student's: answers and added cells) and
the released notebook's stubs.  Every cell is read with Python's
:mod:`tokenize` and turned into *normalised lines*, one per logical line:
comments, blank lines, indentation and spacing are dropped, and every
identifier the student chose is renamed ``v1``, ``v2``, ... in order of first
use within its line, so renaming variables, reformatting, or adding a
variable that shifts every later one changes nothing, while the line keeps
its shape (``w = w + y * x`` becomes ``v1 = v1 + v2 * v3``).
Keywords, built-ins, attribute names (``np.hstack``, ``.shape``), keyword
arguments (``dtype=``) and the names the stubs define (the assignment's function and parameter names) keep
their spelling.

Not every shared line is evidence.  A line that also appears in a stub
(``def absorb_offset(X):``, ``raise NotImplementedError()``) was written by
the instructor; a line written by more than half of the batch, and by more
than two students, is what the exercise calls for.  Neither is counted.  The
similarity of two submissions is the share of their counted lines that they
have in common: ``2 * shared / (counted_first + counted_second)``, each line
counted as often as both wrote it.

Nothing here changes a score or leaves the machine: the result is a list of
pairs for an instructor to read, and :func:`similarity_html` renders it as a
fragment of the grading report.
"""

import builtins
import html
import io
import itertools
import keyword
import re
import tokenize
from collections import Counter, defaultdict
from dataclasses import dataclass

__all__ = ["SharedLine", "SimilarPair", "normalise", "find_similar", "release_stubs", "similarity_html"]

DEFAULT_THRESHOLD = 0.8
DEFAULT_MIN_SHARED_LINES = 5
DEFAULT_COMMON_FRACTION = 0.5

_KEEP = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) | frozenset(dir(builtins))
_SKIP_TOKENS = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT,
                          tokenize.ENCODING, tokenize.ENDMARKER})


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
    """The normalised spelling of a token that is not renamed: numbers lose case and underscores."""
    if token.type == tokenize.NUMBER:
        return token.string.lower().replace("_", "")
    return token.string


def _logical_lines(source):
    """``(tokens, first_line_number)`` for each logical line of ``source``; raises on code it cannot read."""
    lines, current = [], []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in _SKIP_TOKENS:
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


def release_stubs(release_nb):
    """The sources of a release notebook's code answer cells: the ``stubs`` :func:`find_similar` leaves out."""
    stubs = []
    for cell in release_nb.get("cells", []):
        meta = cell.get("metadata", {}).get("nbgrader", {})
        if cell.get("cell_type") == "code" and meta.get("solution"):
            source = cell.get("source", "")
            stubs.append("".join(source) if isinstance(source, list) else source)
    return stubs


def _where(line):
    return f"cell {line.cell + 1}, line {line.line}"


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
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be a number in (0, 1]; got {threshold!r}.")
    if not isinstance(min_shared_lines, int) or min_shared_lines < 1:
        raise ValueError(f"min_shared_lines must be an int of at least 1; got {min_shared_lines!r}.")
    if not 0 < common_fraction <= 1:
        raise ValueError(f"common_fraction must be a number in (0, 1]; got {common_fraction!r}.")
    if isinstance(stubs, str):
        raise TypeError("stubs must be a sequence of cell sources, not one string.")

    keep = _stub_names(stubs)
    stub_lines = {line.normalised for source in stubs for line in normalise(source, keep)}
    lines = {}
    for sid, sources in submissions.items():
        if isinstance(sources, str):
            raise TypeError(f"submission {sid!r}: expected a sequence of cell sources, got one string.")
        lines[sid] = [line for index, source in enumerate(sources)
                      for line in normalise(source, keep, cell=index) if line.normalised not in stub_lines]

    counts = {sid: Counter(line.normalised for line in found) for sid, found in lines.items()}
    writers = Counter(text for counter in counts.values() for text in counter)
    too_common = max(2, common_fraction * len(counts))
    common = {text for text, n in writers.items() if n > too_common}
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


def _shared_lines(first, second, counted_first, counted_second):
    """The counted lines both wrote, in ``first``'s order, each matched with an unused line of ``second``."""
    unused = defaultdict(list)
    for line in second:
        if line.normalised in counted_second:
            unused[line.normalised].append(line)
    found = []
    for line in first:
        if line.normalised in counted_first and unused.get(line.normalised):
            other = unused[line.normalised].pop(0)
            found.append(SharedLine(line.normalised, line.text, _where(line), other.text, _where(other)))
    return tuple(found)


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
        rows = "".join(
            f"<tr><td><pre><code>{_e(s.first_text)}</code></pre><span class=\"muted\">{_e(s.first_where)}</span></td>"
            f"<td><pre><code>{_e(s.second_text)}</code></pre><span class=\"muted\">{_e(s.second_where)}</span></td></tr>"
            for s in p.shared)
        parts.append(
            f"<{sub}><code>{_e(p.first)}</code> and <code>{_e(p.second)}</code>: {p.similarity:.0%}</{sub}>"
            f"<p class=\"muted\">{len(p.shared)} shared lines; {p.counted_first} and {p.counted_second} counted "
            "lines in all.</p>"
            f"<table><caption class=\"muted\">The lines both wrote, as each wrote them</caption>"
            f"<tr><th scope=\"col\"><code>{_e(p.first)}</code></th><th scope=\"col\"><code>{_e(p.second)}</code></th></tr>"
            f"{rows}</table>")
    parts.append("</section>")
    return "".join(parts)


def _e(value):
    return html.escape(str(value), quote=True)
