"""Students' answers to ps2's two written questions, for choosing and testing how answers are grouped.

For each question: ``STUDY_GROUP``, one answer and the copies its study group handed in (a clause
reworded, a typo, a sentence added or moved, formatting changed), and ``APART``, answers written
independently, several in the course's own words.  :mod:`autograder.marking.groups` proposes the
copies as one group and keeps the others apart.
"""

D1_STUDY_GROUP = [
    "An online learner updates its weights after every single example, as the examples arrive, and is judged by "
    "the mistakes it makes while it learns. A batch learner gets the whole training set at once and is judged "
    "by its error on new data after training.",
    "An online learner updates its weights after each single example, as the examples arrive, and it is judged by "
    "the mistakes it makes while learning. A batch learner gets the whole training set at once and is judged by "
    "its error on new data after training.",
    "An online learner updates its weights after every single example as they arrive and is judged by the "
    "mistakes it makes while it learns. A batch learner is given the whole training set at once, and is judged "
    "by its error on new data after training is over.",
    "**Online:** an online learner updates its weights after every single exmaple, as the examples arrive, and is "
    "judged by the mistakes it makes while it learns.\n\n**Batch:** a batch learner gets the whole training set "
    "at once and is judged by its error on new data after training. The perceptron is online.",
]

D1_APART = [
    "Online means the perceptron sees one point, predicts, and fixes w right away if it was wrong. Batch methods "
    "look at all the points before changing anything, and we care about how well they do on a test set.",
    "In online learning the data come in a stream and we count mistakes along the way. In batch learning we have "
    "a fixed dataset, fit a model to it, then measure the error on data it has not seen.",
    "The online learner predicts each example before seeing its label, so its score is the number of mistakes "
    "it made. The batch learner is trained on a sample and evaluated by generalisation error.",
    "online = update per example, judged by mistake count. batch = train on everything, judged by test error.",
    "A batch learner optimises over the full training set, for example minimising the training error, and then "
    "is judged on new examples. An online learner must answer each example immediately, so what matters is how "
    "many mistakes it makes in total.",
    "The difference is when the weights change: after every example online, after a pass over all the data in "
    "batch. Online learners are judged by their mistakes while learning, batch learners by their error on new "
    "data.",
    "Online learning: examples one at a time, predict then update, the measure is the total number of mistakes. "
    "Batch learning: all examples at once, the measure is the error on fresh data drawn from the same "
    "distribution.",
    "It is about what the learner has when it decides. Online it has only the examples so far and is charged "
    "for each wrong prediction; in batch it has the whole set and is charged for errors on future data.",
]

D2_STUDY_GROUP = [
    "Yes. The perceptron updates on the first example it gets wrong, so a different order makes different "
    "updates and can end with different weights, and a different number of mistakes, even on the same "
    "separable data.",
    "Yes. The perceptron updates on the first example that it gets wrong, so another order makes different "
    "updates and can end with different weights and a different number of mistakes, even on the same "
    "separable data.",
    "Yes, it does. Because the perceptron updates on the first example it gets wrong, a different order makes "
    "different updates and can end with different weights, and a different number of mistakes, even on the "
    "same separable data.",
    "yes - the perceptron updates on the first example it gets wrong, so a diferent order makes different "
    "updates and can end with different weights and a different number of mistakes even on the same separable "
    "data. In my experiment the two orders gave different w.",
]

D2_APART = [
    "Yes, in my experiment the shuffled order gave w = (2, 1) and the original order w = (1, 1). Both separate "
    "the data, but they are different lines.",
    "The order matters for the final weights because each update depends on the current weights, which depend "
    "on what came before. The theorem's bound on mistakes does not depend on the order though.",
    "No, the perceptron always finds the separating line if there is one, so the order does not matter for the "
    "result.",
    "It changes the path but not whether it converges: on separable data every order converges, within the same "
    "bound (R/gamma)^2, but the weights it stops at can differ.",
    "Yes. Swapping the first two examples changed the first update and so every later one; the final weights "
    "and the number of epochs were both different.",
    "The order changes the answer. With the points sorted by label the perceptron made many more mistakes than "
    "with them shuffled, and ended at another separator.",
    "Different orders give different sequences of mistakes, hence different w; all of them separate the "
    "training data once it has converged.",
    "Yes because an update only happens on a mistake and which examples are mistakes depends on w at that "
    "moment, which depends on the order seen so far.",
]
