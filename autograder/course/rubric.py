"""Starting rubrics: the rubric each written question's markers begin with, one module per assignment.

Each module here (``autograder/course/assignments/<assignment>/rubric.py``, beside its hidden checks)
has a dict ``RUBRIC`` from a written question's grade id to its :class:`StartingRubric`: a list of
:class:`Item` (points, the text a student sees when a TA ticks it, and an optional note for the
markers only), written from the marking guide in the source notebook.  ``python -m autograder mark``
loads it into the gradebook for every question whose rubric has never had an item
(:mod:`autograder.marking.starting_rubric`); from then on the TAs own the rubric, and the file is not
read again for that question.

A mark is the sum of the ticked items, kept between 0 and the question's points
(:func:`autograder.marking.rubrics.rubric_score`), so a starting rubric takes one of two shapes, and
says which:

* :func:`parts`: every item is worth 0 or more, and the items add up to the question's points.  A TA
  ticks each part the answer earns (a part with levels is cut into pieces that add up, such as
  "the idea" and "every case covered").
* :func:`deductions`: one item is worth the question's points ("complete and correct"), every other
  is worth 0 or less.  A TA ticks the full mark and then what the answer lacks.

Either way an item worth 0 is a comment: it reaches the student as words, with no points.  The
texts reach every student a TA ticks them for; a note never leaves the instructor (the leak audit
looks for the notes of these files in everything it reads, :mod:`autograder.commands.audit`).
"""

import math
from dataclasses import dataclass

__all__ = ["Item", "StartingRubric", "PARTS", "DEDUCTIONS", "parts", "deductions", "problems", "MAX_TEXT"]

PARTS = "parts"
DEDUCTIONS = "deductions"
# What the marking page takes for an item's text (autograder.marking.rubrics.MAX_TEXT), repeated here so
# that the registry does not import the marking page.
MAX_TEXT = 500


@dataclass(frozen=True)
class Item:
    """One rubric item: its points (negative for a deduction, 0 for a comment), the text a student sees,
    and a note for the markers only."""

    points: float
    text: str
    note: str = ""


@dataclass(frozen=True)
class StartingRubric:
    """A question's starting rubric: its shape (:data:`PARTS` or :data:`DEDUCTIONS`) and its items, in order."""

    style: str
    items: tuple

    @property
    def best(self):
        """The points of every item worth more than 0, added up: the mark of an answer that earns them all."""
        return sum(item.points for item in self.items if item.points > 0)


def parts(*items):
    """A rubric whose items (each 0 or more) add up to the question's points."""
    return StartingRubric(PARTS, tuple(items))


def deductions(*items):
    """A rubric of one item worth the question's points and deductions (each 0 or less)."""
    return StartingRubric(DEDUCTIONS, tuple(items))


def problems(rubric, max_points):
    """What keeps ``rubric`` (a :class:`StartingRubric`) from marking a question of ``max_points``: a list of
    sentences, empty when it can."""
    found = []
    if rubric.style not in (PARTS, DEDUCTIONS):
        found.append(f"its shape {rubric.style!r} is neither {PARTS!r} nor {DEDUCTIONS!r}")
    if not rubric.items:
        found.append("it has no items")
    texts = set()
    for item in rubric.items:
        text = " ".join((item.text or "").split())
        if not text:
            found.append("an item has no text")
        elif len(text) > MAX_TEXT:
            found.append(f"the item {text[:40]!r}... has {len(text)} characters; the marking page takes {MAX_TEXT}")
        if text in texts:
            found.append(f"the item {text!r} is there twice")
        texts.add(text)
        if not isinstance(item.points, (int, float)) or not math.isfinite(item.points) \
                or abs(item.points) > max_points:
            found.append(f"the item {text[:40]!r} is worth {item.points!r}; give a number from "
                         f"{-max_points:g} to {max_points:g}")
    if found:
        return found
    positive = [item.points for item in rubric.items if item.points > 0]
    if rubric.style == PARTS:
        if any(item.points < 0 for item in rubric.items):
            found.append("a rubric of parts has a deduction; make it a rubric of deductions, or leave it out")
        if not math.isclose(sum(positive), max_points):
            found.append(f"its parts add up to {sum(positive):g}, not to the question's {max_points:g} points")
    elif len(positive) != 1 or not math.isclose(positive[0], max_points):
        found.append(f"a rubric of deductions needs exactly one item worth the question's {max_points:g} points "
                     f"(the full mark) and none other above 0; it has {', '.join(f'{p:g}' for p in positive) or 'none'}")
    return found
