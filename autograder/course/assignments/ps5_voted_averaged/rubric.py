"""The starting rubric of ps5_voted_averaged's written questions (see :mod:`autograder.course.rubric`).

Written from the marking guides in ``notebooks/source/ps5_voted_averaged/ps5_voted_averaged.ipynb``.  Both
questions are marked by **parts**: the guides add up their parts, so a TA ticks what the answer earns.

* E1 (``written_voted_vs_averaged``, 2 points, steps of 0.5): the average's side, why one vector is enough (0.5);
  the vote's side, why every vector must be kept (0.5); an example where the two disagree (0.5), checked by
  computing both rules, with both predictions computed right (0.5).
* E2 (``written_noisy``, 2 points, steps of 0.25): the comparison, why the last vector is poor, why the vote
  and the average do better, and the inductive bias (0.5 each, in two pieces of 0.25: a first piece, then
  what completes it).
"""

from autograder.course.rubric import Item, parts

RUBRIC = {
    "written_voted_vs_averaged": parts(
        Item(0.5, "The average: one summed vector and offset give every averaged score, because the score is "
                  "linear in (w, b)",
             note="Also right: the cached vector u with w - u/T, or a running sum, with the reason that one vector "
                  "gives every averaged score. Not for 'the average is linear' with no word on what linearity "
                  "allows, 'averaging is cheaper' with no reason, or 'the averaged perceptron keeps only the last "
                  "vector'."),
        Item(0.5, "The vote: the sign of each vector's score is taken before adding, and the sign is not linear, "
                  "so every vector must be kept and scored on the new point",
             note="Also right: the vote needs the side of each vector's hyperplane the new point lies on; two sets "
                  "of vectors with the same weighted sum that vote differently. Not for 'the vote needs the "
                  "counts'. Tick this part alone for the one sentence 'the average is linear and the vote is not' "
                  "with nothing more."),
        Item(0.5, "An example: vectors with their counts (or a training run) and a point on which the vote and the "
                  "average do disagree",
             note="Compute both rules yourself first. When they agree on the student's example, tick nothing in "
                  "this part, even if the student's computation makes them differ (a score of 0 voting 0 instead "
                  "of \u22121, an average of the vectors without their counts). When they disagree, this half "
                  "alone if a prediction is missing or computed wrong."),
        Item(0.5, "Both predictions of the example stated and computed right",
             note="Tick this only with the part above: when the two rules agree on the student's example, tick "
                  "nothing in this part either. Right examples: the vectors 1 and \u22123 with counts 2 and 1 at "
                  "the point 1; (0, 1) and (1, 0) with counts 3 and 2 at (1, 0); the chapter's (1, \u22121.1) with "
                  "the four-point example's vectors, with or without their offsets; (1, 0) and (0, 1) with counts "
                  "3 and 2 at (1, \u22122); or one's own, checked."),
    ),
    "written_noisy": parts(
        Item(0.25, "The comparison: the results of the last vector, the vote and the average reported, as numbers "
                   "or in words",
             note="This quarter alone for numbers with no reading, or with a reading the numbers do not show."),
        Item(0.25, "The comparison read: the last vector is much less accurate and changes more from seed to "
                   "seed; the vote and the average are close to each other and higher",
             note="Quoting the numbers is not required: a right reading in words earns both quarters. A student "
                  "who ran other seeds is marked on the reading of their own output."),
        Item(0.25, "Why the last vector is poor: one reason (the flipped labels make the data not separable, so "
                   "training never converges; or the last vector follows the last few updates)",
             note="This quarter alone for one of the two, or for 'it overfits the noise' with no mechanism. "
                  "Nothing in this part for 'the step size is too large' or 'more epochs would make it "
                  "converge'."),
        Item(0.25, "Why the last vector is poor: both reasons, training stops only at max_epochs and each of "
                   "the last updates is a whole step towards a possibly mislabelled example"),
        Item(0.25, "Why the vote and the average do better: an effect named (they use every vector of the run, or "
                   "smooth out the noise)",
             note="This quarter alone for 'they use all the vectors' with no word on the weights, or for 'they "
                  "smooth out the noise', 'they are more stable' or 'they reduce the variance' with no mechanism. "
                  "Nothing in this part for 'they are trained longer, or on cleaner data' or 'averaging removes "
                  "the flipped labels'."),
        Item(0.25, "Why the vote and the average do better: each vector counts as long as it survived, so the "
                   "short-lived vectors of noisy updates, soon undone, count little",
             note="'Averaging cancels the back and forth of the updates' earns this quarter only with the reason: "
                  "an update that is soon undone is present in few of the vectors averaged."),
        Item(0.25, "The inductive bias: the perceptron's bias named, such as its restriction to linear "
                   "classifiers",
             note="This quarter alone for one of the two pieces of the guide's part, or for 'the inductive bias "
                  "is that the boundary is flat' with no link to the last vector."),
        Item(0.25, "The inductive bias: stopping at the last vector is a preference of the plain perceptron that "
                   "suits separable data, not noisy data; voting and averaging prefer the vectors that survived "
                   "longest",
             note="Also right: the vote changes the hypothesis class (a weighted majority of linear "
                  "classifiers), the average does not."),
    ),
}
