"""The starting rubric of ps1_hyperplanes's written questions (see :mod:`autograder.course.rubric`).

Written from the marking guides in ``notebooks/source/ps1_hyperplanes/ps1_hyperplanes.ipynb``:

* E1 (``written_one_dimensional``, 2 points): by **parts**.  The guide adds up three parts (0.5, 1, 0.5)
  in steps of 0.25; each part's levels are pieces that add up (the idea, then every case covered), so a
  TA ticks what the answer earns.  One item is a comment, worth 0.
* E2 (``written_scaling``, 2 points): by **deductions**.  The guide takes a quarter or a half off each
  part for each thing missing or wrong, so a TA ticks the full mark and what the answer lacks; of two
  deductions for one part, tick one.
"""

from autograder.course.rubric import Item, deductions, parts

RUBRIC = {
    "written_one_dimensional": parts(
        Item(0.25, "The check stated in the answer: separates is True for w = \u22121, b = 2.5",
             note="Only what the answer cell states counts, not what the experiment cell printed."),
        Item(0.25, "The margin of that separator, 0.5, stated in the answer",
             note="A margin of 2.5 (how far the threshold is from the origin) or of 1 (the gap between 2 and 3, "
                  "twice the margin) is wrong: leave this item off."),
        Item(0.5, "The idea of why no hyperplane through the origin separates the points, in any framing: the "
                  "signs of the scores, the picture, scaling, margins, or a multiple",
             note="For instance: with b = 0 every input is positive, so every score has the sign of w; all four "
                  "points lie on the same side of the point 0; every w \u2260 0 is a positive multiple of 1 or "
                  "of \u22121, and separates rejects both; 3, labelled \u22121, is 1.5 \u00d7 the point 2, "
                  "labelled +1. Tick this alone for the right idea with a gap: an argument for w > 0 only, 'all "
                  "the points are on the same side' naming neither the point 0 (or the origin) nor that every "
                  "input is positive, or w = 1 and w = \u22121 both rejected "
                  "without the scaling step. Leave it off for values of w of one sign only, 'I tried several w "
                  "and none works', 'the perceptron never converges', or 'the data are not centred'."),
        Item(0.5, "An argument that covers every w \u2260 0 (by the signs of the scores, by scaling, by margins, "
                  "by the picture, or by a multiple such as 3 = 1.5 \u00d7 2)",
             note="With the item above, the full point for this part: an argument complete in any framing, or in "
                  "several (the signs for w > 0, the picture for w < 0), earns both items. The picture is "
                  "complete once it names the point 0 or the origin, or says every input is positive: 'all four "
                  "points are on the same side of the origin, so no hyperplane through the origin separates "
                  "them' earns both. Saying nothing about w = 0 loses nothing."),
        Item(0.25, "Linearly separable: yes, with a separator named anywhere in the answer cell",
             note="The check of the first part counts: 'Yes, it is linearly separable' after stating that "
                  "separates is True for w = \u22121, b = 2.5 earns this item. So does any other separator: "
                  "w < 0 with the threshold \u2212b/w strictly between 2 and 3 (such as w = \u22122, b = 5), or "
                  "'a threshold between 2 and 3, the points below it +1'. Leave it off for a 'Yes' in an answer "
                  "that names no separator anywhere, and for 'no, because no hyperplane through the origin "
                  "separates it': that confuses the two questions, even when the argument above is right."),
        Item(0.25, "The reason it is separable: the definition allows an offset (b \u2260 0), so the argument "
                   "through the origin does not apply",
             note="Only with 'yes'. Any sentence that gives the offset as what makes separation possible earns "
                  "it: 'with an offset, w = \u22121, b = 2.5 separates it' earns this item and the one above, and "
                  "'the threshold needs b \u2260 0' earns this one. 'Yes, because the definition allows an offset' with no "
                  "separator anywhere in the answer earns this item alone: 0.25; 'Yes' with a separator whose b "
                  "happens to be non-zero and no remark on the offset earns the item above alone: 0.25."),
        Item(0, "Only the answer cell is marked: a result the experiment cell printed counts once the answer "
                "states it"),
    ),
    "written_scaling": deductions(
        Item(2, "Complete: \u03c1 > 0 and \u03c1 < 0 explained with reasons, the exception for points on the plane, and "
                "why the margin divides by \u2016w\u2016"),
        Item(-0.25, "\u03c1 > 0: one of the plane, side_of_plane, signed_distance and margin is missing or wrong, or "
                    "no reason is given",
             note="The reason: the scores keep their signs, and the score and \u2016w\u2016 are both multiplied "
                  "by \u03c1."),
        Item(-0.5, "\u03c1 > 0: two or more of the plane, side_of_plane, signed_distance and margin are missing or "
                   "wrong, or one is and no reason is given",
             note="Tick this instead of the quarter above, never both."),
        Item(-0.25, "\u03c1 < 0: one of the sign changes is missing or wrong (the normal reversed, the opposite label "
                    "off the plane, the sign of every distance and point's margin, the margin of the data set)",
             note="'The margin becomes \u2212\u03b3' or 'the margin of the data set changes sign' is this error: "
                  "the new minimum is minus the old largest margin of a point, and on a plane that did not "
                  "separate the data the margin stays negative. 'Every point's margin changes sign' is right: "
                  "it is one of the sign changes."),
        Item(-0.5, "\u03c1 < 0: two or more of the sign changes are missing or wrong, or the plane is said to "
                   "move",
             note="Tick this instead of the quarter above, never both."),
        Item(-0.5, "\u03c1 < 0: no exception for a point on the plane, which scores 0 and is labelled \u22121 both "
                   "times",
             note="'Every label flips' with no exception for the points on the plane is this case (the "
                  "chapter's exercise on rescaling and flipping)."),
        Item(-0.25, "Why divide by \u2016w\u2016: 'to normalise w' without why that matters"),
        Item(-0.5, "Why divide by \u2016w\u2016: missing or wrong. Without the division the value grows with \u03c1; "
                   "with it, each term is the point's signed distance to the plane",
             note="'To keep the margin between \u22121 and 1' (a distance can be any size) or 'so that the "
                  "perceptron converges' is this case."),
    ),
}
