"""The starting rubric of ps3_convergence's written questions (see :mod:`autograder.course.rubric`).

Written from the marking guides in ``notebooks/source/ps3_convergence/ps3_convergence.ipynb``.  Both questions
are marked by **parts**: the guides add up three parts in steps of 0.5, and a part worth a whole point has
two halves that add up (a first step, then what completes it), so a TA ticks what the answer earns.  A
false statement that the guide marks 0 leaves its whole part unticked, whatever else the answer says in it;
a true one that earns nothing ("it is only an upper bound") takes nothing away.

* D1 (``written_bound_holds``, 2 points): never above the bound (0.5), how each grows (0.5), why a worst-case
  bound is far above one run (1).
* D2 (``written_limits``, 2 points): what the theorem says (0.5), whether running can tell (1), what makes the
  smallest bound over all separators large (0.5).
"""

from autograder.course.rubric import Item, parts

RUBRIC = {
    "written_bound_holds": parts(
        Item(0.5, "Never above the bound: no, shown with the run's numbers or with the reason that the theorem "
                  "holds for every run",
             note="A bare 'No' leaves this off. Mark the answer on the numbers it reports. If they exceed the "
                  "bound, tick this only when the answer says that contradicts the theorem, so the code must be "
                  "wrong."),
        Item(0.5, "How each grows: the bound like 1/\u03b3\u00b2 (about four times for each halving of the "
                  "margin) and the mistakes far more slowly, so the bound is not close",
             note="Any description of the mistakes that agrees with the student's numbers is right. Leave this "
                  "off for 'the mistakes grow like 1/\u03b3\u00b2 too', 'as fast as the bound' or 'the bound is "
                  "close', even next to a right statement."),
        Item(0.5, "Why a bound can be far above one run: it is a worst case over every order and every data set "
                  "with that radius and margin, while this is one of them (or a true remark on where the proof "
                  "gives away room)",
             note="Tick this alone for the worst case only as the question puts it, with nothing of the answer's "
                  "own; for Step 2 alone (R\u00b2 per mistake while the dropped term is at most 0); or for the "
                  "bound computed for w_star rather than the best separator, each with its reason (these "
                  "together, or next to the worst case as the question puts it, still earn only this half). "
                  "Nothing in this part, though nothing is taken away, for 'it is only an upper bound', 'a worst "
                  "case' without over what, or 'this order was lucky' (other orders of these data come no closer "
                  "to the bound). Nothing, and nothing taken away, for a bare 'it grows with the number of "
                  "examples or the dimension' (it can, through R and \u03b3, but that does not explain the gap). "
                  "Leave the whole part off for 'the bound is an average' or 'it grows with the number of examples "
                  "or the dimension whatever the radius and the margin' (with R and \u03b3 fixed it depends on "
                  "neither)."),
        Item(0.5, "What the question does not say: some data sets meet the bound exactly (the chapter's tight "
                  "family), so one random data set is far from the worst; or why these data are easier: Step 1 "
                  "counts only \u03b3 per mistake, while most points are much farther from the plane",
             note="With the half above, the full point: either of the chapter's two framings, with something "
                  "the question does not give."),
    ),
    "written_limits": parts(
        Item(0.5, "What the theorem says: nothing, since its assumption of a separator with a positive margin "
                  "fails",
             note="The reason may be short ('it assumes separable data'); leave this off for a bare 'Nothing' or "
                  "'it does not apply'. 'The theorem says the perceptron never converges' earns this only with "
                  "the right reason: an epoch without a mistake would end with separating weights. Quoting the "
                  "chapter's bound for a finite run, ((R + \u0394)/\u03b3)\u00b2, as a separate result is right."),
        Item(0.5, "Whether running can tell: a first step (no, with a reason: separable data can need many more "
                  "updates; or a linear program decides it; or an epoch without a mistake proves separability)",
             note="The half credit of the guide: 'no' with a reason that says nothing of the margin, (R/\u03b3)\u00b2 "
                  "or the Fibonacci example ('it might just need more time', 'separable data can need very many "
                  "updates'), a linear program with no word on running, or only 'an epoch without a mistake "
                  "proves separability'. Nothing in this part for a bare 'no' or 'yes'. Leave the whole part off "
                  "for 'yes: if it has not converged after max_epochs the data are not separable', a hint and not "
                  "a proof, even next to a right statement (a linear program, say)."),
        Item(0.5, "Why a long run of mistakes proves nothing, tied to the margin: separable data with a small "
                  "margin can need very many updates ((R/\u03b3)\u00b2 grows without limit as \u03b3 shrinks, and a "
                  "run does not know \u03b3; in the Fibonacci example, exponentially many in the dimension)",
             note="With the half above, the full point. Also the full point: the complete test on integer data "
                  "(run until an epoch has no mistake, or the weights at the start of an epoch repeat), or "
                  "another route that says why a long run is not enough, tied to the margin: repeated weights "
                  "prove a cycle, or more than (R/\u03b3)\u00b2 mistakes rule out a known margin."),
        Item(0.5, "What makes the smallest bound over all separators large: a small margin compared with the "
                  "radius, for every separator",
             note="Read every answer on data scaled so that R = 1, which changes nothing: 'a small margin' of "
                  "the data is then enough, and 'a large R' or 'points far from the origin' with no word on the "
                  "margin earns nothing (nothing taken away). Also right: a point very close to the origin "
                  "compared with the farthest one, or two points of opposite labels very close together compared "
                  "with R (each makes every separator's margin small). Also right: many examples or many "
                  "dimensions tied to the margin ('in high dimension every separator's margin can be exponentially "
                  "small, as in the Fibonacci example'). Nothing, and nothing taken away (the part keeps the mark "
                  "of any right statement next to it): a small margin of one chosen w* (the question asks for the "
                  "smallest bound over all separators), or a bare 'many examples' or 'many dimensions' (they make "
                  "the bound large only through the margin or R). Leave the whole part off for 'the bound grows "
                  "with the number of examples or the dimension whatever the radius and the margin', even next to "
                  "a right statement. With an offset, a "
                  "separator far from the origin is right too."),
    ),
}
