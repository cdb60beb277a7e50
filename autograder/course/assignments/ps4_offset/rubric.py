"""The starting rubric of ps4_offset's written questions (see :mod:`autograder.course.rubric`).

Written from the marking guides in ``notebooks/source/ps4_offset/ps4_offset.ipynb``.  Both questions are
marked by **deductions**: a TA ticks the full mark and then what the answer lacks.

* D1 (``written_bias_term``, 2 points): the guide counts three items (item 2's behaviour, what both
  perceptrons do, or its reason alone counts as half an item; one sentence can give two items) and gives 2 points for all three in full, 1 for more than one, 0 for at
  most one: not a sum of the items.  So the points are two deductions, one per level (tick one of them),
  and each missing item and each false statement the guide asks a comment on is a comment, worth 0, that
  tells the student what was missing.
* D2 (``written_lifting_proof``, 2 points): one point for the same updates (half a point off for each of the
  scores, the updates and the common start that is missing, and for limiting it to separable data) and one
  for the radius (half a point for the value without its reason, or for "larger").  One item is a comment.
"""

from autograder.course.rubric import Item, deductions

RUBRIC = {
    "written_bias_term": deductions(
        Item(2, "All three: what a model without a bias term allows, what the two perceptrons do on the "
                "one-dimensional example and why, and a general argument for the bias term"),
        Item(-1, "More than one of the three, but not all three in full",
             note="Any two in full; all three with half of item 2; item 1 and half of item 2; item 3 and half "
                  "of item 2. Half of item 2 is its behaviour (what both perceptrons do) without its reason, or "
                  "its reason without its behaviour; it counts as half an item. One sentence can give two items: "
                  "'only hyperplanes through the origin without a bias, any hyperplane with one, so it is more "
                  "expressive' gives items 1 and 3. Then tick the comments below for what is missing."),
        Item(-2, "At most one of the three",
             note="One of the three alone, half of item 2 alone, or none. Tick this instead of the item above."),
        Item(0, "Missing: what a model without a bias term allows. Every boundary then passes through the "
                "origin; on the line, the only threshold is 0",
             note="Item 1. 'It can only turn the boundary, not move it', 'it classifies by direction alone' and "
                  "'the boundaries are the subspaces of dimension d \u2212 1' are accepted."),
        Item(0, "Missing: why the data are not separable through the origin. All four inputs are positive and "
                "both labels occur, so w \u00b7 x has the same sign at all four points, and no w through the "
                "origin separates them",
             note="Half of item 2 missing: its reason. 'The data are not separable through the origin' on its own "
                  "is the conclusion: neither half of item 2, so it adds nothing to the half it comes with."),
        Item(0, "Missing: what the two perceptrons do. Through the origin it never converges on these data and "
                "stops at max_epochs; with an offset it converges, to a threshold between 2 and 3",
             note="Half of item 2 missing (its behaviour) when the answer gives the reason, a proof that no w "
                  "separates the data through the origin; all of item 2 when it gives neither (tick the comment "
                  "above too). The behaviour is what both perceptrons do: an answer that says what only one of "
                  "them does, or only 'the data are not separable through the origin' (the conclusion), has not "
                  "given it. 'The data are not linearly separable' (they are, with an offset), 'it converges "
                  "slowly' and 'it makes more mistakes' are not the behaviour. The notebook's numbers and the "
                  "place of the threshold are welcome, never required."),
        Item(0, "Missing: a general argument for the bias term, such as that it is strictly more expressive "
                "(a boundary through the origin is the case b = 0), that what can be learned should not depend "
                "on where the origin is, or that it costs one weight",
             note="Item 3 missing. Not accepted: only showing that a data set is gained (that is item 2 again), "
                  "'more expressive', 'more flexible' or 'more powerful' on its own, the contrast 'only "
                  "hyperplanes through the origin without it, any hyperplane with it' on its own (that is item "
                  "1), or one of the counter-arguments below. With 'more expressive', the contrast is item 3, "
                  "and item 1 too."),
        Item(0, "Centring the data does not remove the need for a bias term: the numbers 1 to 9 of the "
                "chapter's exercise are a counterexample",
             note="A false statement: it costs nothing unless it is the answer's only argument (then item 3 is "
                  "missing)."),
        Item(0, "A constant feature can stand in for the bias term only when the constant is not 0: a feature "
                "that is always 0 adds nothing to any score",
             note="For a constant feature without 'nonzero'. Either way a counter-argument: it does not count "
                  "for item 3."),
        Item(0, "Data symmetric about the origin need no bias term only when they are separable: on data that "
                "are not, an offset can still do better",
             note="For the symmetry claim without 'when the data are separable'. It does not count for item 3."),
    ),
    "written_lifting_proof": deductions(
        Item(2, "Complete: the same scores, the same updates and the same start, so the same run step by step; "
                "and the radius \u221a(R\u00b2 + 1), with its reason"),
        Item(-0.5, "The scores are not compared: \u03b8 \u00b7 (x, 1) = w \u00b7 x + b, so the mistake test is "
                   "the same at every step",
             note="The halves off the first point add up, down to 0 for it: tick at most two of the four."),
        Item(-0.5, "The updates are not compared: the last coordinate gets y, which is b \u2190 b + y"),
        Item(-0.5, "The common start is missing: both start from zero, so the weights stay equal after every "
                   "step",
             note="'Both start at zero and each step keeps them equal' is the induction; a formal one is not "
                  "required."),
        Item(-0.5, "The two runs make the same updates on any data, not only on separable data"),
        Item(-1, "The results are compared (both converge, both find a separator), not the updates step by step",
             note="Also for citing the chapter's proposition without the comparison the question asks for. "
                  "Tick none of the halves above with it."),
        Item(-0.5, "The radius: \u221a(R\u00b2 + 1), because each lifted point's squared norm grows by exactly "
                   "1; not R + 1, and not only 'larger'",
             note="Half of the second point for the value without the reason, or for only saying the radius "
                  "grows ('larger', R + 1): the halves do not add up. With a constant \u03bb, "
                  "\u221a(R\u00b2 + \u03bb\u00b2) is right."),
        Item(-1, "The radius is missing, or said not to change",
             note="Tick this instead of the half above."),
        Item(0, "With an offset the perceptron does not always make more mistakes: it is the same run as "
                "through the origin on the lifted data, and a separator away from the origin can have a much "
                "larger margin",
             note="The margin and the bound are not asked for: a false statement about them costs nothing unless "
                  "the radius answer relies on it; comment on it. For one separator with b = 0, 'its lifted "
                  "bound (R\u00b2 + 1)/\u03b3\u00b2 is larger than R\u00b2/\u03b3\u00b2' is right."),
    ),
}
