"""The starting rubric of ps5_voted_averaged's written questions (see :mod:`autograder.course.rubric`).

Written from the marking guides in ``notebooks/source/ps5_voted_averaged/ps5_voted_averaged.ipynb``.  Both
questions are marked by **parts**: the guides add up their parts, and each part's levels are two pieces that
add up (a first piece, then what completes it), so a TA ticks what the answer earns.

* E1 (``written_voted_vs_averaged``, 2 points, steps of 0.5): why one vector is enough for the average and
  not for the vote (1), an example where the two disagree (1).
* E2 (``written_noisy``, 2 points, steps of 0.25): the comparison, why the last vector is poor, why the vote
  and the average do better, and the inductive bias (0.5 each).
"""

from autograder.course.rubric import Item, parts

RUBRIC = {
    "written_voted_vs_averaged": parts(
        Item(0.5, "Why one vector: one side explained (the averaged score is the score of one summed vector, or "
                  "the sign inside the vote keeps every vector apart)",
             note="This half alone for one side only, or for 'the average is linear and the vote is not' with no "
                  "word on what linearity allows. Nothing for 'the averaged perceptron keeps only the last "
                  "vector', 'averaging is cheaper' with no reason, or 'the vote needs the counts'."),
        Item(0.5, "Why one vector: both sides. The score is linear, so the weighted average is one vector; the "
                  "sign is not, so the vote needs every vector",
             note="Also right: the vote needs the side of each vector's hyperplane the new point lies on; two "
                  "sets of vectors with the same weighted sum that vote differently; the cached vector u for the "
                  "average, with the sign argument for the vote."),
        Item(0.5, "An example: vectors with their counts and a point on which the vote and the average disagree",
             note="This half alone when one of the two predictions is missing or wrong: a score of 0 voting 0 "
                  "instead of \u22121, or an average of the vectors without their counts. Nothing when the two "
                  "rules agree on the example given."),
        Item(0.5, "Both predictions of the example computed right",
             note="The notebook's test case, the chapter's point (1, \u22121.1) with the four-point example's "
                  "vectors, the point (1, \u22122) of the chapter's exercise, or one's own example: the vectors "
                  "need not come from a training run."),
    ),
    "written_noisy": parts(
        Item(0.25, "The comparison: the test accuracies of the last vector, the vote and the average reported",
             note="This quarter alone for numbers with no reading, or with a reading the numbers do not show."),
        Item(0.25, "The comparison read: the last vector is much less accurate and changes more from seed to "
                   "seed; the vote and the average are close to each other and higher",
             note="A student who ran other seeds is marked on the reading of their own output."),
        Item(0.25, "Why the last vector is poor: one reason (the flipped labels make the data not separable, so "
                   "training never converges; or the last vector follows the last few updates)",
             note="This quarter alone for one of the two, or for 'it overfits the noise' with no mechanism. "
                  "Nothing in this part for 'the step size is too large' or 'more epochs would make it "
                  "converge'."),
        Item(0.25, "Why the last vector is poor: both reasons, training stops only at max_epochs and each of "
                   "the last updates is a whole step towards a possibly mislabelled example"),
        Item(0.25, "Why the vote and the average do better: they use every vector of the run",
             note="This quarter alone for 'they use all the vectors' with no word on the weights. Nothing in "
                  "this part for 'they are trained longer, or on cleaner data' or 'averaging removes the "
                  "flipped labels'."),
        Item(0.25, "Why the vote and the average do better: each vector counts as long as it survived, so the "
                   "short-lived vectors of noisy updates count little (or: averaging cancels the back and forth)"),
        Item(0.25, "The inductive bias: the perceptron's bias named, such as its restriction to linear "
                   "classifiers",
             note="This quarter alone for 'the inductive bias is that the boundary is flat' with no link to the "
                  "last vector."),
        Item(0.25, "The inductive bias: stopping at the last vector is a preference of the plain perceptron that "
                   "suits separable data, not noisy data; voting and averaging prefer the vectors that survived "
                   "longest",
             note="Also right: the vote changes the hypothesis class (a weighted majority of linear "
                  "classifiers), the average does not."),
    ),
}
