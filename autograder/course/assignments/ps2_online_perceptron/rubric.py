"""The starting rubric of ps2_online_perceptron's written questions (see :mod:`autograder.course.rubric`).

Written from the marking guides in ``notebooks/source/ps2_online_perceptron/ps2_online_perceptron.ipynb``.
Both questions are marked by **deductions**: the guides give one point for each of two halves, with half a
point off for what is missing and a common wrong answer that takes half a point off, so a TA ticks the full
mark and then what the answer lacks.  Of two deductions for one half, tick one.

* D1 (``written_online_batch``, 2 points): the parts A, B and C placed in the online or batch setting, then an
  application of online learning and what the mistake count means there.
* D2 (``written_order``, 2 points): whether the order of the examples changes the result, from an experiment,
  then why.  One item is a comment, worth 0.
"""

from autograder.course.rubric import Item, deductions

RUBRIC = {
    "written_online_batch": deductions(
        Item(2, "Complete: Parts A, B and C each placed with a reason, and an online application with the "
                "mistake count explained"),
        Item(-0.5, "The parts: the reason for one part is missing, or Part C is not placed or not explained",
             note="'C is online because it trains like B' and 'C is neither, it evaluates fixed weights' leave C "
                  "unexplained. For C accept 'both' (the mistake count is online, the training error judges "
                  "fixed weights on a whole set) or 'batch'. Also accept 'the perceptron is online and Part B "
                  "runs it in the batch setting' and 'Part A is the step both settings use'. C called online "
                  "with the mistake-count reason only is this case too."),
        Item(-0.5, "The parts: Part B is called online, though the answer says it passes again and again over a "
                   "fixed training set",
             note="The facts right, the name wrong: half of the first point."),
        Item(-1, "The parts: Part A is placed in the batch setting, or Part B is called online with nothing "
                 "about its fixed training set and its repeated passes",
             note="'B is online because it visits one example at a time' is this case: it applies Part A's "
                  "update, but to a fixed training set, pass after pass. Tick this instead of the halves above."),
        Item(-1, "The parts: two parts, or all three, are placed without a reason",
             note="Placing the parts right without saying why only copies the headings. Tick this instead of the "
                  "halves above."),
        Item(-0.5, "A batch learner is judged by its error on new data, not by its training error",
             note="For 'a batch learner is judged by its training error' or 'the training error says how well "
                  "the classifier will do on new data'. Not below 0 for the first point. When this claim is the "
                  "reason given for placing C, mark C as placed with a reason and tick this: A and B right with "
                  "reasons then give half of the first point, not 0."),
        Item(-0.5, "The application: the mistake count is missing or wrong; it is the number of wrong "
                   "predictions (or of updates) made while the learner is in use",
             note="'The mistake count is the training error of the final weights' or 'the examples still "
                  "misclassified at the end' is this case, and the application keeps its half. The rounds with "
                  "score 0 and label \u22121 need not be mentioned."),
        Item(-0.5, "The application: a fixed training set would serve it as well; online learning suits a stream "
                   "in which each prediction is needed before its label arrives",
             note="Such as a classifier trained once on an archive of X-ray images, or a one-off survey. Good "
                  "applications: spam filtering, news recommendations, advertising in a new market, next-day "
                  "price moves, next-word suggestions."),
        Item(-1, "The application is missing",
             note="Tick this instead of the two halves above."),
    ),
    "written_order": deductions(
        Item(2, "Complete: the order can change both the final (w, b) and the number of mistakes, shown by an "
                "experiment with its numbers and explained by the updates on mistakes"),
        Item(-0.5, "The experiment: reported without its numbers, or with numbers that are wrong",
             note="The numbers show that it was run. On the one-dimensional example: w = \u22123, b = 7 after 25 "
                  "mistakes in the given order, w = \u22122, b = 5 after 17 in the reverse one. Another "
                  "experiment reported correctly is right, and so is 'it can, but not always' with the "
                  "four-point example through the origin (fit_intercept=False: all 24 orders end at w = (1, 1) "
                  "after 2 mistakes). With an offset, 12 orders end at w = (2, 2), b = 0 after 4 mistakes and "
                  "12 (the given order and its reverse among them) at w = (1, 1), b = 0 after 2: the same line. "
                  "Reporting (1, 1) and (2, 2) as different weights and counts is right; 'no difference for "
                  "any order' with an offset is a wrong report, this item; calling them two different lines is "
                  "a slip to correct in the feedback, not deducted."),
        Item(-1, "The experiment is missing: the question asks for the answer from an experiment",
             note="The right claim with no experiment at all earns nothing on the first point. Tick this "
                  "instead of the halves of the first point."),
        Item(-0.5, "Only one of the final weights and the number of mistakes is said to change; the order can "
                   "change both",
             note="Whatever reason the answer gives for the one that does not change."),
        Item(-0.5, "The order does not always change the result: an experiment shows that it can, and on the "
                   "four-point example it does not",
             note="Only for an explicit generalisation ('always', 'for any data', 'every order gives a "
                  "different result'); a plain 'Yes' reads as 'it can'. Not below 0 for the first point."),
        Item(-0.5, "On data a plane separates, the perceptron stops whatever the order (here after 11 epochs "
                   "both ways)",
             note="For 'in the reverse order the perceptron does not converge'. Not below 0 for the first "
                  "point."),
        Item(-1, "The order is said to change neither the separator nor the number of mistakes",
             note="'The data are the same' explains nothing: mark the explanation on what else the answer "
                  "says. Tick this instead of the halves of the first point."),
        Item(-0.5, "The explanation does not say why another order makes other examples mistakes: whether an "
                   "example is a mistake depends on the current weights, the sum of the earlier updates",
             note="Half: only 'the weights depend on the order' or 'the updates happen at different times'. "
                  "Writing w as a sum of \u03b1_i y_i x_i is a correct way to say it."),
        Item(-1, "The explanation is missing, only repeats the question's premise, or rests on the bound "
                 "(R/\u03b3)\u00b2, which limits every order and does not count the mistakes",
             note="'The perceptron only updates on mistakes, and each update is made for the most recent mistake "
                  "alone', with nothing linking it to which examples become mistakes in another order, restates "
                  "the question. Tick this instead of the half above."),
        Item(0, "Good: you linked this to the perceptron's inductive bias, to shuffling or to averaging",
             note="Welcome, never needed for full marks."),
    ),
}
