"""Answer groups: the answers to one question that are the same, or nearly, so that a TA marks each group once.

**Which answers are one group.**  Two answers are *the same* when their
:func:`normal_form` is: Markdown's formatting, letter case, Unicode's
compatibility forms and runs of white space are set aside.  Such answers
are one group without anyone confirming it.  Blank answers are one group of
their own (marked 0 already).

**Which answers are proposed as one group.**  Answers that are *nearly*
the same are proposed, and a TA confirms, splits or merges.  The measure is
the Jaccard similarity of the sets of character 5-grams of the two normal
forms (:func:`similarity`): the share of the 5-letter pieces the two texts
have in common.  It forgives a typo, a reworded clause or a sentence moved
(each touches only the few 5-grams around it), and is low between answers
written apart, even on the same topic in the same words of the course,
because two people rarely put the same words in the same order for long.
On the texts of ``tests/support/answer_corpus.py`` (a study group's copies
of one answer to each of ps2's questions, with reworded clauses, typos and
a sentence added, beside answers written independently to the same
questions) the copies score at least 0.55 against their original and the
independent answers at most 0.35: :data:`PROPOSE_AT` is 0.5, between the
two, and ``tests/grader/marking/test_groups.py`` keeps that margin true.
The score is shown beside each proposed member, as a percentage.

A proposal is found greedily: groups of the same answers, largest first,
each either joining the first earlier *seed* it scores :data:`PROPOSE_AT`
or more with, or becoming a seed.  Scoring against the seed (never through
a chain of members) keeps a proposal from drifting from one answer to a
different one.  Candidates are found with MinHash signatures (numpy), and
every proposed pair is then scored exactly, so a class of a thousand
answers is grouped in well under a second.

**What a TA decides** is kept in the gradebook (:data:`autograder.outputs.gradebook.GROUPS_TABLE`): for
each answer a TA confirmed, split off, merged or kept apart, the group it
belongs to, with the checksum of the answer it was decided for.  A
decision holds while the answer is the one it was made for: a student who
resubmits a different answer leaves the group and is proposed afresh.
Answers nobody decided about are in their group of the same answers, and
may be proposed for another.

Groups are never marks: marking a group writes each member's mark as
marking it alone would (:func:`autograder.marking.rubrics.save_marks`), and
a member can still be marked alone afterwards.  Regrading or re-weighting a
rubric item treats each member's mark as its own, as before.
"""

import hashlib
import re
import unicodedata
import zlib
from dataclasses import dataclass, field

__all__ = ["PROPOSE_AT", "BLANK", "Group", "normal_form", "similarity", "same_key",
           "groups_table", "decisions", "find_groups", "decide", "GroupError"]

PROPOSE_AT = 0.5
BLANK = "blank"
_GRAM = 5
_HASHES = 64

# Markdown's formatting marks and list bullets; LaTeX is left as it is (\frac{1}{2} and \frac12 differ).
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|~~|`+)")
_LINE_MARKS = re.compile(r"^\s{0,3}(?:#{1,6}\s+|>\s?|[-+*]\s+|\d+[.)]\s+)", re.MULTILINE)
_SPACE = re.compile(r"\s+")


class GroupError(ValueError):
    """A group decision the gradebook cannot take; the message says what was wrong and what is expected."""


def normal_form(text):
    """``text`` with formatting, case and white space set aside: what two answers must share to be the same."""
    text = unicodedata.normalize("NFKC", text or "")
    text = _LINE_MARKS.sub("", text)
    text = _EMPHASIS.sub("", text)
    return _SPACE.sub(" ", text).strip().casefold()


def same_key(text):
    """The key of the group of answers the same as ``text`` (``blank`` for an empty one)."""
    normal = normal_form(text)
    if not normal:
        return BLANK
    return "same-" + hashlib.sha256(normal.encode("utf-8")).hexdigest()[:16]


def _grams(normal):
    if len(normal) <= _GRAM:
        return {normal}
    return {normal[i:i + _GRAM] for i in range(len(normal) - _GRAM + 1)}


def similarity(a, b):
    """The Jaccard similarity of two texts' character 5-grams, after :func:`normal_form` (from 0 to 1)."""
    first, second = _grams(normal_form(a)), _grams(normal_form(b))
    if not first or not second:
        return 0.0
    return len(first & second) / len(first | second)


@dataclass
class Group:
    """A group of answers to one question: its key, its members (the page's rows), and how it came to be.

    ``kind`` is ``blank``, ``same`` (identical once formatting is set aside),
    ``decided`` (a TA confirmed or merged it) or ``proposed``; ``scores``
    gives, for a proposed group, each member's similarity with the seed."""

    key: str
    kind: str
    rows: list = field(default_factory=list)
    scores: dict = field(default_factory=dict)  # student_id -> similarity with the seed, for proposed members
    number: int = 0

    @property
    def size(self):
        return len(self.rows)

    @property
    def marked(self):
        return sum(row.done for row in self.rows)


def groups_table():
    """The table of TAs' group decisions (see the module docstring), kept with the gradebook's other tables."""
    from autograder.outputs.gradebook import marking_tables

    return marking_tables()[0]


def decisions(gb, assignment, notebook, grade_id):
    """``{student_id: (group key, checksum)}``: the TAs' decisions about one question's answers."""
    table = groups_table()
    rows = gb.db.execute(table.select().where((table.c.assignment == assignment) & (table.c.notebook == notebook)
                                              & (table.c.cell == grade_id)))
    return {row.student: (row.grouping, row.checksum) for row in rows}


def decide(gb, assignment, notebook, grade_id, placements, *, by, now):
    """Record that each ``(student_id, checksum)`` of ``placements`` (a dict of them to a group key) is in
    that group, in the caller's open transaction."""
    table = groups_table()
    for (student_id, checksum), key in placements.items():
        if not key or len(key) > 64:
            raise GroupError(f"a group key must have 1 to 64 characters, not {key!r}")
        where = ((table.c.assignment == assignment) & (table.c.student == student_id)
                 & (table.c.notebook == notebook) & (table.c.cell == grade_id))
        gb.db.execute(table.delete().where(where))
        gb.db.execute(table.insert().values(assignment=assignment, student=student_id, notebook=notebook,
                                            cell=grade_id, grouping=key, checksum=checksum, decided_by=by,
                                            decided_at=now))


# -- finding the groups ----------------------------------------------------------------------

def _signatures(texts):
    """MinHash signatures (one row of :data:`_HASHES` values per text) of the texts' 5-gram sets.

    Each hash is multiply-shift hashing of a 5-gram's CRC-32: ``(a * g + b) mod 2**64``, its top 32 bits,
    with odd ``a``, a universal family for 32-bit keys."""
    import numpy as np

    rng = np.random.default_rng(20240229)  # fixed, so that the same answers always give the same proposals
    a = rng.integers(0, 1 << 63, size=_HASHES, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    b = rng.integers(0, 1 << 63, size=_HASHES, dtype=np.uint64)
    signatures = np.empty((len(texts), _HASHES), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for i, text in enumerate(texts):
            grams = np.fromiter((zlib.crc32(gram.encode("utf-8")) for gram in _grams(text)), dtype=np.uint64)
            signatures[i] = ((a[:, None] * grams[None, :] + b[:, None]) >> np.uint64(32)).min(axis=1)
    return signatures


def _candidates(normals):
    """For each text, the texts whose estimated similarity could reach :data:`PROPOSE_AT` (a superset)."""
    import numpy as np

    count = len(normals)
    if count < 2:
        return [set() for _ in normals]
    signatures = _signatures(normals)
    found = [set() for _ in normals]
    # An estimate from 64 hashes has a standard error of at most 1/16; a margin of 0.2 misses a true pair
    # with a probability far below one in a million.
    enough = int((PROPOSE_AT - 0.2) * _HASHES)
    block = max(1, 4_000_000 // (count * _HASHES))
    for start in range(0, count, block):
        agree = (signatures[start:start + block, None, :] == signatures[None, :, :]).sum(axis=2)
        for offset, row in enumerate(agree):
            i = start + offset
            found[i] = {int(j) for j in np.nonzero(row >= enough)[0] if j != i}
    return found


def find_groups(rows, texts, decided):
    """The groups of one question's answers, largest first (numbered from 1).

    ``rows`` are the page's rows (with ``student_id``, ``mark`` and
    ``done``), ``texts`` maps a student to the answer's text, and
    ``decided`` is :func:`decisions`' map.  A decision counts only for the
    answer it was made for (its checksum)."""
    by_key = {}
    kinds = {}
    undecided = {}
    for row in rows:
        checksum = row.mark.checksum
        decision = decided.get(row.student_id)
        if row.mark.blank:
            key, kind = BLANK, "blank"
        elif decision is not None and decision[1] == checksum:
            key, kind = decision[0], "decided"
        else:
            key, kind = same_key(texts.get(row.student_id, "")), "same"
            undecided.setdefault(key, []).append(row)
        by_key.setdefault(key, []).append(row)
        if kinds.get(key) != "decided":
            kinds[key] = kind
    groups = {key: Group(key, kinds[key], members) for key, members in by_key.items()}
    _propose(groups, undecided, texts)
    ordered = sorted(groups.values(), key=lambda g: (g.kind == "blank", -g.size, g.rows[0].position))
    for number, group in enumerate(ordered, start=1):
        group.number = number
    return ordered


def _propose(groups, undecided, texts):
    """Join, as proposals, the groups of the same answers nobody decided about that are nearly the same."""
    keys = [key for key in sorted(undecided, key=lambda k: (-len(undecided[k]), undecided[k][0].position))
            if groups[key].kind == "same"]
    normals = [normal_form(texts.get(undecided[key][0].student_id, "")) for key in keys]
    grams = [_grams(normal) for normal in normals]
    candidates = _candidates(normals)
    seed_of = {}
    for i, key in enumerate(keys):
        if i in seed_of:
            continue
        for j in sorted(candidates[i]):
            if j <= i or j in seed_of:
                continue
            score = len(grams[i] & grams[j]) / len(grams[i] | grams[j])
            if score >= PROPOSE_AT:
                seed_of[j] = (i, score)
    for j, (i, score) in seed_of.items():
        seed, member = groups[keys[i]], groups.pop(keys[j])
        seed.kind = "proposed"
        seed.scores.update({row.student_id: score for row in member.rows})
        seed.rows.extend(member.rows)
    for group in groups.values():
        group.rows.sort(key=lambda row: row.position)
