"""The starting rubric of ps2_online_perceptron's written questions (see :mod:`autograder.course.rubric`).

Written from the marking guides in ``notebooks/source/ps2_online_perceptron/ps2_online_perceptron.ipynb``.
Both questions are marked by **parts**: the guides give one point for each of two halves of the question, and
each point is two items of 0.5 that add up, so a TA ticks what the answer earns, and no combination of items
takes a point below 0 or above 1.  The comments, worth 0, tell the student what was missing or wrong.

* D1 (``written_online_batch``, 2 points): the parts A, B and C placed in the online or batch setting (half of
  the point with one flaw at most, the other half with none, as the second item's own text says), then an
  application of online learning and what the mistake count means there.
* D2 (``written_order``, 2 points): whether the order of the examples changes the result, from an experiment
  (the experiment, and the answer drawn from it), then why (the idea, and why other examples become mistakes).

``tests/grader/course/test_ps2_claims.py`` marks the guides' cases with these items.
"""

from autograder.course.rubric import Item, parts

RUBRIC = {
    "written_online_batch": parts(
        Item(0.5, "The parts, half: Part A placed in the online setting and Part B in the batch one (or described "
                  "by its fixed training set and its repeated passes), with one flaw at most",
             note="The flaws: a part placed without its reason; Part C missing or unexplained; Part B called online "
                  "by an answer that says it passes again and again over a fixed training set; a batch learner "
                  "said to be judged by its training error. Leave this off for two flaws or more (two parts placed "
                  "without a reason, say), for Part A placed in the batch setting, and for Part B called online "
                  "with nothing about its fixed training set and its repeated passes ('B is online because it "
                  "visits one example at a time': it applies Part A's update, but to a fixed training set, pass "
                  "after pass). Tick the comments below for the flaws."),
        Item(0.5, "The parts, in full, with none of the flaws listed under the item above: Part A online and Part B "
                  "batch, each with its reason, Part C placed with a reason, and nothing false about how a batch "
                  "learner is judged",
             note="Only with the item above: the two make the point. Leave this off for any one of the flaws, Part "
                  "B called online by an answer that describes its fixed training set and its repeated passes "
                  "included: that answer earns the item above alone. For C accept 'both' (the mistake count is "
                  "online, the training error judges fixed weights on a whole set) or 'batch' (it trains on a "
                  "fixed set and measures the weights after each pass). Also accept 'the perceptron is online and "
                  "Part B runs it in the batch setting' and 'Part A is the step both settings use'."),
        Item(0, "Part A is the online setting: it predicts one example, is told its label, then updates",
             note="A comment for Part A placed in the batch setting, or placed without its reason."),
        Item(0, "Part B is the batch setting: it has the whole training set from the start, passes over it again "
                "and again, and returns one final (w, b)",
             note="A comment for Part B called online, or placed without its reason. Called online by an answer "
                  "that describes its fixed training set and its repeated passes, it is one flaw: the first item "
                  "stays on and the second off. 'B is online because it visits one example at a time' is the "
                  "serious case: the first item stays off too."),
        Item(0, "Part C is missing or unexplained: it trains as Part B does, and its training error judges fixed "
                "weights on a whole set of examples",
             note="'C is online because it trains like B' and 'C is neither, it evaluates fixed weights' leave C "
                  "unexplained, and so does C called online with the mistake-count reason only."),
        Item(0, "A batch learner is judged by its error on new data, not by its training error",
             note="For 'a batch learner is judged by its training error' or 'the training error says how well the "
                  "classifier will do on new data': one flaw. When this claim is the reason given for placing C, "
                  "count C as placed with a reason, so that A and B right with reasons still earn the first item."),
        Item(0.5, "The application: one in which each prediction is needed before its label arrives, and new "
                  "examples keep coming",
             note="Good applications: spam filtering, news recommendations, advertising in a new market, next-day "
                  "price moves, next-word suggestions. Leave this off for one that a fixed training set would "
                  "serve as well, such as a classifier trained once on an archive of X-ray images, or a one-off "
                  "survey, and when there is no application at all."),
        Item(0.5, "The mistake count there: the number of wrong predictions (or of updates) made while the learner "
                  "is in use",
             note="The rounds with score 0 and label \u22121 need not be mentioned. Leave this off for 'the training "
                  "error of the final weights' or 'the examples still misclassified at the end' (the application "
                  "keeps its item), and when the answer gives no application: the question asks what the count "
                  "measures there."),
        Item(0, "A fixed training set would serve this application as well: online learning suits a stream in "
                "which each prediction is needed before its label arrives",
             note="A comment for an application such as the X-ray archive or the one-off survey."),
        Item(0, "The mistake count is not the error of the final weights: it counts the wrong predictions (or the "
                "updates) made along the way",
             note="A comment for a mistake count described as the training error of the final weights."),
    ),
    "written_order": parts(
        Item(0.5, "The experiment: a run in which the order changes the result, reported with its numbers (the "
                  "final weights and the number of mistakes)",
             note="On the one-dimensional example: w = \u22123, b = 7 after 25 mistakes in the given order, "
                  "w = \u22122, b = 5 after 17 in the reverse one. Another experiment reported correctly is right. "
                  "With an offset, 12 orders of the four-point example end at w = (2, 2), b = 0 after 4 mistakes "
                  "and 12 (the given order and its reverse among them) at w = (1, 1), b = 0 after 2: reporting "
                  "(1, 1) and (2, 2) as different weights and counts is such a run, also when the answer adds "
                  "that they are the same line (calling them two different lines is a slip to correct, not "
                  "deducted). Leave this off for numbers missing or wrong, for 'no difference for any order' on "
                  "that example, when the only experiment is one where the order changes nothing (the four-point "
                  "example through the origin: all 24 orders end at w = (1, 1) after 2 mistakes), and when the "
                  "answer concludes that the order changes nothing."),
        Item(0.5, "The answer drawn from an experiment reported, even one in which the order changes nothing: the "
                  "order can change both the final (w, b) and the number of mistakes, though it need not",
             note="'It can, but not always', with the four-point example through the origin as the case where it "
                  "does not, is right, "
                  "also when the only experiment reported is the four-point example through the origin, where the "
                  "order changes nothing: that answer loses the experiment item, not this one. A plain 'Yes' "
                  "reads as 'it can'. A correct report of a particular run in which one of them "
                  "stays the same (the same line after 2 and after 4 mistakes) is right when the answer says the "
                  "order can change both. Leave this off with no experiment at all (the right claim alone earns "
                  "nothing on this point); for a general claim that one of them never changes ('the mistakes "
                  "change but the separator does not', 'the data are the same, so the separator is the same'), "
                  "whatever the reason; for 'always', 'for any data' or 'every order gives a different result'; "
                  "for 'in the reverse order the perceptron does not converge'; and for 'the order changes "
                  "neither'."),
        Item(0, "The experiment's numbers are missing or wrong: the final weights and the number of mistakes of "
                "each order show that it was run",
             note="A comment for an experiment reported without its numbers, or with wrong ones."),
        Item(0, "An experiment in which the order changes nothing shows that it need not matter, not that it can: "
                "report one in which it does",
             note="A comment for an answer whose only experiment is the four-point example through the origin. "
                  "Its answer keeps the answer item when it is right."),
        Item(0, "The question asks for the answer from an experiment: report one, with its numbers",
             note="A comment for the right claim with no experiment at all: neither item of the first point."),
        Item(0, "The order can change both the final weights and the number of mistakes: a run in which one of "
                "them stays the same shows only that it need not",
             note="A comment for the general claim that the order never changes one of the two."),
        Item(0, "The order does not always change the result: an experiment shows that it can, and on the "
                "four-point example through the origin it does not",
             note="A comment for an explicit generalisation only ('always', 'for any data', 'every order gives a "
                  "different result')."),
        Item(0, "On data a plane separates, the perceptron stops whatever the order (here after 11 epochs both "
                "ways)",
             note="A comment for 'in the reverse order the perceptron does not converge'."),
        Item(0.5, "The explanation: another order makes other updates, at other times, and so other weights",
             note="Alone, the half of the guide: only 'the weights depend on the order' or 'the updates happen at "
                  "different times'. Leave both explanation items off for the question's premise repeated ('the "
                  "perceptron only updates on mistakes, and each update is made for the most recent mistake "
                  "alone') with nothing linking it to which examples become mistakes in another order, for 'the "
                  "data are the same' alone, and for the bound (R/\u03b3)\u00b2, which limits every order and does "
                  "not count the mistakes."),
        Item(0.5, "Why: whether an example is a mistake depends on the current weights, the sum of the earlier "
                  "updates, so in another order other examples are mistakes",
             note="Only with the item above: the two make the point. Writing w as a sum of \u03b1_i y_i x_i is a "
                  "correct way to say it."),
        Item(0, "The explanation does not say why another order makes other examples mistakes",
             note="A comment for the half case, the premise repeated, 'the data are the same', or the bound."),
        Item(0, "Good: you linked this to the perceptron's inductive bias, to shuffling or to averaging",
             note="Welcome, never needed for full marks."),
    ),
}
