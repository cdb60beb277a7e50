"""A class of hundreds for the marking page's benchmark, graded without running a notebook.

The assignment, :data:`A`, is one notebook with a code part (3 autograded points) and four written
questions of 2 points each, taken from the course's own notebooks: ps2's D1 and D2 and ps3's D1 and D2,
renamed B1, B2, C1 and C2, their model answers and marking notes included.  :func:`make_class` makes a
course folder for it as the instructor's side has it after ``grade``, with none of the students'
notebooks run: nbgrader's own preprocessors (the ones ``nbgrader generate_assignment`` chains) write the
release and record the cells in a new gradebook; each student's notebook is the release with their
answers in its cells, and the host's :func:`autograder.outputs.record.record` records each judged result
as ``grade`` does (the gradebook through ``record_result``, the autograded and submitted notebooks, the
feedback page), then :func:`autograder.outputs.record.finish_batch` writes the run's files and
``grading_run.json``, which ``export`` reads.

The answers (:func:`class_answers`) are written from pools of phrasings of what students say to each
question, with their own numbers, so most differ; a few in a hundred are blank; about one student in
twelve is in a study group whose members hand in near-copies of one answer (a typo, a word changed, a
sentence added, formatting); and, in the first question, a group of students (a hundred in a class of a
thousand) hand in one answer that differs between them only in formatting, case and spacing.
"""

import dataclasses
import datetime
import os
import random
import re
import shutil

import nbformat

from tests.support import COURSE

__all__ = ["A", "QUESTIONS", "TEXT_STUB", "ScaleClass", "make_class", "class_answers", "mark_everything"]

A = "bench_written_answers"
TEXT_STUB = "YOUR ANSWER HERE"
# (grade id, the label in this notebook, the course's notebook it comes from, its label there).
QUESTIONS = [("written_online_batch", "B1", "ps2_online_perceptron", "D1"),
             ("written_order", "B2", "ps2_online_perceptron", "D2"),
             ("written_bound_holds", "C1", "ps3_convergence", "D1"),
             ("written_limits", "C2", "ps3_convergence", "D2")]
POINTS = 2.0
TEST_POINTS = 3.0


# -- the assignment ----------------------------------------------------------------------------------

def _nbgrader(cell, grade_id, *, grade=False, solution=False, locked=False, points=None):
    meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3, "solution": solution,
            "task": False}
    if points is not None:
        meta["points"] = points
    cell.metadata["nbgrader"] = meta
    return cell


def source_notebook():
    """The instructor's notebook: a code part with its test, and the four written questions of :data:`QUESTIONS`
    with the course's own text and model answers."""
    new_md, new_code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        new_md("# Problem set: the perceptron in words\n\nA short code part, then four questions to answer in "
               "prose, from the chapters *The online learning protocol* and *The convergence proof*."),
        _nbgrader(new_code("import numpy as np\n\nfrom perceptron_lib import one_dimensional_example"),
                  "imports", locked=True),
        new_md("## Part A: one step of the online protocol (3 points)\n\nWrite `perceptron_update(w, b, x, y)`: "
               "predict $\\hat y = \\operatorname{sign}(w \\cdot x + b)$ and, on a mistake "
               "($y\\,(w \\cdot x + b) \\le 0$), return $(w + y x, b + y)$; else return $(w, b)$ unchanged."),
        _nbgrader(new_code("def perceptron_update(w, b, x, y):\n    \"\"\"One step of the online perceptron.\"\"\"\n"
                           "    ### BEGIN SOLUTION\n    if y * (np.dot(w, x) + b) <= 0:\n"
                           "        return w + y * x, b + y\n    return w, b\n    ### END SOLUTION"),
                  "perceptron_update", solution=True),
        _nbgrader(new_code("# Check that perceptron_update updates on a mistake and only then.\n"
                           "w, b = perceptron_update(np.zeros(2), 0.0, np.array([1.0, 2.0]), 1)\n"
                           "assert np.allclose(w, [1.0, 2.0]) and b == 1.0"),
                  "update_rules", grade=True, locked=True, points=TEST_POINTS),
    ]
    parts = {}
    for grade_id, label, notebook, label_there in QUESTIONS:
        course_nb = parts.get(notebook)
        if course_nb is None:
            course_nb = parts[notebook] = nbformat.read(os.path.join(COURSE, "source", notebook, f"{notebook}.ipynb"),
                                                        as_version=4)
        index = next(i for i, c in enumerate(course_nb.cells)
                     if c.metadata.get("nbgrader", {}).get("grade_id") == grade_id)
        asked = next(c.source for c in reversed(course_nb.cells[:index])
                     if c.cell_type == "markdown" and f"**Question {label_there}" in c.source)
        asked = asked[asked.index(f"**Question {label_there}"):].replace(f"**Question {label_there}",
                                                                          f"**Question {label}", 1)
        if label.endswith("1"):
            cells.append(new_md(f"## Part {label[0]}: in words (4 points)\n\nUse the cell below for your "
                                "experiments; they are not graded."))
            cells.append(new_code("X1, y1 = one_dimensional_example()\n# Your experiments here (not graded)."))
        cells.append(new_md(asked))
        model = course_nb.cells[index].source
        cells.append(_nbgrader(new_md(model), grade_id, grade=True, solution=True, points=POINTS))
    nb = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb


def generate_release(source, db_url):
    """The release of ``source``, made by the preprocessors ``nbgrader generate_assignment`` chains, which also
    record the notebook's cells in the gradebook at ``db_url`` (the assignment must be there already)."""
    from traitlets.config import Config

    from nbgrader.preprocessors import (CheckCellMetadata, ClearHiddenTests, ClearMarkScheme, ClearOutput,
                                        ClearSolutions, ComputeChecksums, LockCells, SaveCells)

    config = Config()
    config.ClearSolutions.code_stub = {"python": "# YOUR CODE HERE\nraise NotImplementedError()"}
    config.ClearSolutions.text_stub = TEXT_STUB
    resources = {"nbgrader": {"notebook": A, "assignment": A, "db_url": db_url}}
    nb = nbformat.from_dict(source)
    for step in (LockCells, ClearSolutions, ClearOutput, CheckCellMetadata, ComputeChecksums, SaveCells,
                 ClearHiddenTests, ClearMarkScheme, ComputeChecksums, CheckCellMetadata):
        nb, resources = step(config=config).preprocess(nb, resources)
    return nb


# -- the students' answers -------------------------------------------------------------------------------

# Words students use for one another; an answer takes one of each at random, occurrence by occurrence.
_SYNONYMS = {
    "example": ["example", "point", "data point", "sample"],
    "examples": ["examples", "points", "data points", "samples"],
    "mistake": ["mistake", "error", "misclassification", "wrong prediction"],
    "mistakes": ["mistakes", "errors", "misclassifications", "wrong predictions"],
    "weights": ["weights", "weight vector", "w", "parameters"],
    "updates": ["updates", "changes", "corrects", "adjusts"],
    "because": ["because", "since", "as", "given that"],
    "data": ["data", "dataset", "training set", "training data"],
    "shows": ["shows", "suggests", "tells us", "means"],
    "different": ["different", "other", "new"],
    "corrections": ["updates", "corrections", "changes"],
}

# What students say to each question: a list of sentences; a sentence is built from three pieces, each chosen
# apart from the others, so that two students seldom write the same sentence; the last entry of each list is
# whole sentences said in passing (an answer says one of them, or none).
# What students say to each question: a list of sentences; a sentence is built from three pieces, each chosen
# apart from the others, so that two students seldom write the same sentence; the last entry of each list is
# whole sentences said in passing (an answer says one of them, or none).
_POOLS = {
    "written_online_batch": [
        (["Part A is online", "A is the online part", "In part A the setting is online",
          "Part A, perceptron_update, is online learning", "A = online", "The update of part A is online",
          "I'd say A is online", "Part A belongs to the online setting"],
         [": it takes one {example} and predicts it", ", since it only handles the current {example}",
          " because it sees a single {example} at a time", ": predict first, then see the label",
          ", one {example} in and one prediction out", " as it gets no more than one {example} per call",
          ": the label comes after the prediction", ", nothing is stored but $(w, b)$"],
         [", and then {updates} w if it was wrong.", " before it {updates}.", ", then it {updates} on a {mistake}.",
          "; the {weights} change right after.", ", which is one round of the protocol.",
          " and learns from it immediately.", ", exactly like the protocol in the notes.",
          "; no other {examples} are involved."]),
        (["Part B is batch", "B is the batch setting", "train_perceptron in B is batch learning", "B = batch",
          "For B I would say batch", "Part B counts as batch", "The loop in part B is batch", "B is batch learning"],
         [", {because} the whole {data} is there from the start", ": it gets all of X and y at once",
          " since it passes over a fixed {data} again and again", ", it is handed {n} {examples} before it begins",
          ": the {data} does not arrive over time", ", even though it visits the {examples} one by one",
          " as it can go over the same {examples} for {k} epochs", ", it loops until an epoch has no {mistakes}"],
         [" and returns one final classifier.", "; only the last $(w, b)$ is kept.",
          ", and the result is used on new {data}.", ", then stops with a single w.",
          " and what counts is the final {weights}.", "; it is judged by its error on new {data}.",
          ", so it is offline.", "; the output is one separator."]),
        (["Part C is both", "C is a mix", "C I would call batch", "For C, it is in between", "Part C is batch",
          "C mixes the two", "Part C is somewhere in the middle", "C is mostly batch"],
         [": the mistake count is online", ", n_mistakes is an online measure", " since it trains exactly like B",
          ": training_errors looks at the whole {data} with fixed w", ", it reports the errors after each pass",
          " because it judges fixed {weights} on every {example}", ": in my run the errors were {m}, {k}, then 0",
          ", the counter during training is online"],
         [" but the training error is a batch-style measure.", ", while the error per epoch is batch.",
          ", and only the evaluation is batch-like.", " (on the training set though, not new {data}).",
          ", like a batch learner is judged.", "; that part is batch.",
          ", which is how batch classifiers are evaluated.", " but it is still the {data}."]),
        (["An application where only online makes sense is", "Online only:", "An example of a purely online problem is",
          "For a real application take", "One application:", "A good online application is",
          "Something only online works for:", "Example:"],
         [" a spam filter", " card fraud detection", " news recommendations", " next-word suggestions on a phone",
          " ad clicks in a new market", " a machine sensor alarm", " tomorrow's weather",
          " stock prices going up or down"],
         [", where each prediction is needed before the label arrives.",
          ", the labels come later and new cases never stop.", ": you must decide now and learn the truth afterwards.",
          ", there is never a finished {data}.", " since the {data} arrives as a stream.",
          ", where what you predict changes over time.", "; waiting for a full training set makes no sense.",
          ", with the answer known only a day later."]),
        (["There the mistake count is", "The number of {mistakes} measures", "Its mistake count means",
          "The mistake count there counts", "The count of {mistakes} is", "What the {mistakes} measure is",
          "The perceptron's mistake count is", "The {mistakes} counted are"],
         [" the wrong predictions made", " how often it was wrong", " the number of {corrections} it made",
          " the total cost", " the rounds with $y_t (w_t \\cdot x_t) \\le 0$", " every wrong filing",
          " what learning costs the user", " the {mistakes} over the stream"],
         [" while it is in use.", " along the way.", ", about {m} in my first {n} rounds.",
          ", not the error of a final model.", " (a score of exactly 0 counts too).", " while it learns on the job.",
          ", which is an upper bound on wrong predictions.", " before it has seen everything."]),
        ["A batch learner is judged by its error on new {data} after training.",
         "The perceptron itself is an online algorithm used here in a batch setting.",
         "Both use the same update rule $w \\leftarrow w + y x$.",
         "I think the difference is when the {data} becomes available, not how the update looks.",
         "Online learners never see the future {examples}; batch learners see everything before deciding.",
         "In batch learning the training error is not the real target, the test error is."],
    ],
    "written_order": [
        (["Yes", "It can", "Yes, though not always", "The order matters", "Sometimes", "It does", "In general yes",
          "Not always, but yes"],
         [", the order changes the result", ": both the {weights} and the {mistakes} can change",
          ", it changed in my experiment", ", at least on the 1-d example",
          ": the final separator and the count differ", ", the number of {mistakes} changes",
          ": it depends on the {data}", ", and not only the number of {mistakes}"],
         [".", " as well.", ", as I found.", " here.", ", see below.", " for this {data}.", " in my runs.", "!"]),
        (["In my experiment", "When I tried it", "With X1 and y1", "On the one-dimensional example",
          "Running it both ways", "In the notebook", "I tested it:", "From my runs,"],
         [" the given order ended at $w = {w1}$, $b = {b1}$", " the original order gave w={w1}, b={b1}",
          " the usual order made {m} {mistakes}", " the order as given took {n} epochs",
          " sorted by label it made {m} {mistakes}", " the first run stopped at ({w1}, {b1})",
          " the given order needed {m} {corrections}", " order 1 gave {m} {mistakes}"],
         [" and the reverse order $w = {w2}$, $b = {b2}$ after {k}.", ", reversed it was w={w2}, b={b2}.",
          " while the reversed one made {k}.", ", shuffled only {k}.",
          " but reversing gave ({w2}, {b2}) and {k} {mistakes}.", " versus {k} in the reverse order.",
          ", with seed 1 it was {k}.", ", the other order {k}."]),
        (["This is {because} the perceptron only {updates} on a {mistake}",
          "The reason is that each update depends on w at that moment", "Since $w = \\sum_i \\alpha_i y_i x_i$",
          "An update fixes only the most recent {mistake}", "The first {example} seen decides the first update",
          "The algorithm is greedy", "Whether $y_i (w \\cdot x_i) \\le 0$ depends on w",
          "Each update is made for one {example} alone"],
         [", and which {examples} are {mistakes} depends on the current {weights}",
          ", which is the sum of all earlier {corrections}",
          ", and the counts depend on when each {example} was a {mistake}", " and can break others",
          ", so everything after follows from it", ": it reacts to whatever comes next",
          ", and w depends on the {examples} before", ", so in another order other {examples} are {mistakes}"],
         [".", ", so the order matters.", ", so the path differs.", "; hence {different} final {weights}.",
          ", and so the count changes too.", " at {different} times.", ", which changes the whole sequence.",
          " (see the notes)."]),
        ["Every order still converges on separable {data}, within $(R/\\gamma)^2$.",
         "This is part of its inductive bias, which is why people shuffle or average.",
         "The bound on {mistakes} does not depend on the order though.",
         "So the separator it returns is the first one its {corrections} reach.",
         "All of them separate the {data} once converged.",
         "Averaging the {weights} would make the result depend less on the order."],
    ],
    "written_bound_holds": [
        (["No", "Never", "Not once", "No, never", "In every row, no", "It never did", "No it does not",
          "Never in my table"],
         [", the {mistakes} stay below the bound", ": the largest count was {m} against a bound of {big}",
          ", every row is under $(R/\\gamma)^2$", ": {k} {mistakes} vs a bound of {small} at the largest margin",
          ", all {n} runs were below it", ": the counts are far under it", ", not even close to it",
          ": at most {m} {mistakes}"],
         [", as the theorem says.", ".", ", which it must be since the theorem holds for every run.", " in my run.",
          " (it cannot exceed it).", ", as expected.", " in all the rows.", "; the theorem guarantees that."]),
        (["The bound grows like $1/\\gamma^2$", "As the margin shrinks the bound blows up",
          "The bound goes up quadratically", "With a smaller margin the bound gets much bigger",
          "Since R stays near 1, the bound", "The bound increases a lot", "When $\\gamma$ halves the bound",
          "The bound grew"],
         [": halving the margin multiplies it by about 4", ", from {small} to {big} in my run",
          ", inversely with the margin squared", " (roughly x4 per halving)", " roughly quadruples",
          " as one over $\\gamma^2$", " from {small} at margin 0.4", " very fast"],
         [".", " to {big} at 0.05.", ", as expected from the formula.", " down to the smallest margin.",
          " in the table.", ", like the theory says.", ", from {small} to {big}.", "!"]),
        (["The {mistakes} grow much more slowly", "The actual {mistakes} also go up", "The real count grows too",
          "{mistakes} went up", "The perceptron's count increases", "The {mistakes} increase",
          "Meanwhile the {mistakes} rise", "The number of {mistakes} grows"],
         [", from {k} to {m}", " but nowhere near as fast", ", roughly linearly", " only a little",
          ": {k}, {n}, {m}", ", less than the bound", " slowly", " by a factor of about {k}"],
         [".", ", so the bound is not tight.", ", far below the bound.", " while the bound explodes.",
          "; the gap widens as the margin shrinks.", ", so the bound is loose.", " across the margins.",
          " in my table."]),
        (["The bound is a worst case", "It has to hold for the worst possible sequence",
          "The proof only uses R and $\\gamma$", "The theorem covers adversarial orders",
          "A bound that holds for all cases", "The proof bounds $\\lVert w \\rVert^2$ and $w \\cdot w^*$ step by step",
          "The bound is for every {data} with that radius and margin", "It is a guarantee for any order"],
         [" over every order and every {data}", ", and random {data} is not the worst case",
          ", nothing else about this {data}", ", much harder than a random sample",
          " has to be loose for typical ones", " in the worst case", ", most of which are far from it",
          ", including the adversarial ones"],
         [", so one run can be far below it.", ".", ", so it is about {n} times too big here.",
          "; real runs are much easier.", ", so it cannot be tight on easy {data}.",
          ", and most steps do far better.", "; only {data} built on purpose gets close.", " (my guess)."]),
        ["It is not close to the actual count.", "So the bound is true but not useful as a prediction.",
         "The ratio between the bound and the {mistakes} grows as the margin shrinks.",
         "A tighter bound would need more assumptions about the {data}."],
    ],
    "written_limits": [
        (["The theorem says nothing", "It gives no guarantee", "Nothing", "The theorem does not apply",
          "For XOR the theorem is silent", "It says nothing at all", "The theorem gives no bound", "No conclusion"],
         [" about {data} no hyperplane through the origin separates",
          ", the assumption of a margin $\\gamma > 0$ fails",
          ": it needs a separator with positive margin", " when the {data} is not separable",
          " for make_xor or the one-dimensional {example}", ", since $\\gamma \\le 0$ there",
          ": the hypothesis is false", " without a separating $w^*$"],
         [".", "; in practice the perceptron never stops.", ", so it does not tell us anything.",
          "; the run just ends at max_epochs.", ", and the bound is undefined.", " here.",
          " (it keeps making {mistakes}).", "; it only covers separable {data}."]),
        (["Running it for a while", "By running it", "After {n} epochs", "You can't tell by running",
          "Not by running it", "Running the perceptron", "Watching the {mistakes}", "A long run"],
         [" cannot tell you it will never converge", " only shows it if it stops",
          " with {mistakes} it might still converge at epoch {big}", ", {because} the margin might just be tiny",
          " settles it in one direction only", " proves nothing if it keeps going", ", slow and never look the same",
          " of {mistakes} is not a proof"],
         [".", "; an epoch without {mistakes} proves separability.", ", while stopping proves it is separable.",
          ", you can't distinguish slow from never.", "; if it converges the {data} is separable.", " either.",
          " (I ran XOR for {n} epochs).", "; only stopping is informative."]),
        (["Instead", "Another way is to", "You could", "Better", "To decide it", "Alternatively", "One can",
          "A sure way is to"],
         [" solve a linear program for a separating w", " check whether the convex hulls of the classes intersect",
          " train a hard-margin SVM", " test feasibility of $y_i (w \\cdot x_i) \\ge 1$", " use an LP solver",
          " plot the points, in 2D", " look at the convex hulls", " run linear programming"],
         [", which decides it exactly.", ".", " and see if it is feasible.",
          ": it finds a separator or says none exists.", ", which settles it.", " instead.", " to be sure.",
          " in finite time."]),
        (["A tiny margin", "Points far from the origin", "If the classes almost touch",
          "A large R compared to $\\gamma$", "A small margin relative to the radius", "Outliers far away",
          "Two points of opposite labels very close together", "Data not centred"],
         [" makes the bound large", " make $(R/\\gamma)^2$ large", ", the bound is huge", " blows up the bound",
          " gives a large bound", " increase R and so the bound", " give a small $\\gamma$",
          " mean the separator through the origin has a small margin"],
         [" even on separable {data}.", ".", ", although the {data} is separable.",
          ", e.g. {data} shifted far from the origin.", " too.", " while it is still separable.",
          ", so the bound is large.", " in my opinion."]),
        ["For XOR the perceptron cycles forever.",
         "The one-dimensional {example} through the origin is not separable either.",
         "I would add an offset feature to make it separable if possible.",
         "In practice people just stop after max_epochs and use the last or averaged {weights}."],
    ],
}

_FIRST = ["Ada", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivy", "Jon", "Kim", "Lea", "Max", "Nia", "Omar",
          "Pia", "Quinn", "Rosa", "Sam", "Tara", "Uma", "Vik", "Wen", "Xin", "Yara", "Zoe", "Aiko", "Bruno", "Chen",
          "Dara", "Emil", "Farah", "Goran", "Hugo", "Ines", "Jamal", "Kofi", "Lina", "Mateo", "Noor"]
_LAST = ["Abbott", "Bauer", "Costa", "Dubois", "Evans", "Fischer", "Garcia", "Haddad", "Ito", "Jensen", "Kowalski",
         "Larsen", "Mensah", "Novak", "Okafor", "Patel", "Quist", "Rossi", "Silva", "Tanaka", "Ueda", "Varga",
         "Weber", "Xu", "Yilmaz", "Zhang", "Amini", "Brandt", "Cruz", "Diallo"]


def _fill(template, rng):
    numbers = {"n": rng.randint(3, 60), "m": rng.randint(5, 40), "k": rng.randint(2, 30),
               "small": f"{rng.uniform(4, 9):.1f}", "big": f"{rng.uniform(150, 600):.1f}",
               "w1": rng.randint(-6, 6), "b1": rng.randint(-9, 9), "w2": rng.randint(-6, 6), "b2": rng.randint(-9, 9)}

    def word(match):
        name = match.group(1)
        if name in numbers:
            return str(numbers[name])
        return rng.choice(_SYNONYMS[name])

    return re.sub(r"\{(\w+)\}", word, template)


def _style(sentences, rng):
    """The sentences as one student lays them out: a paragraph, two, a list, or all in lower case."""
    sentences = [s for s in sentences if s]
    kind = rng.random()
    if kind < 0.15 and len(sentences) > 2:
        return "\n".join(f"- {s}" for s in sentences)
    if kind < 0.35 and len(sentences) > 2:
        cut = rng.randint(1, len(sentences) - 1)
        return " ".join(sentences[:cut]) + "\n\n" + " ".join(sentences[cut:])
    if kind < 0.42:
        return " ".join(sentences).lower()
    if kind < 0.55:
        first, *rest = sentences
        return " ".join([f"**{first}**", *rest])
    return " ".join(sentences)


def written_answer(grade_id, rng):
    """One student's answer to a question, in their own choice of phrasings, numbers and layout."""
    *sentences, in_passing = _POOLS[grade_id]
    chosen = []
    for position, pieces in enumerate(sentences):
        if position > 0 and rng.random() < 0.2:
            continue  # not every student says everything
        chosen.append(_fill("".join(rng.choice(piece) for piece in pieces), rng))
    if rng.random() < 0.5:
        chosen.insert(rng.randint(1, len(chosen)), _fill(rng.choice(in_passing), rng))
    return _style(chosen, rng)


def _near_copy(text, grade_id, rng):
    """A copy of ``text`` from a study group: one or two small changes, still close to it."""
    from autograder.marking.groups import PROPOSE_AT, similarity

    for _ in range(20):
        copy = text
        for _ in range(rng.randint(1, 2)):
            change = rng.choice(("typo", "word", "sentence", "format"))
            words = copy.split(" ")
            if change == "typo":
                long = [i for i, w in enumerate(words) if len(w) > 5 and w.isalpha()]
                if long:
                    i = rng.choice(long)
                    j = rng.randint(1, len(words[i]) - 2)
                    words[i] = words[i][:j] + words[i][j + 1] + words[i][j] + words[i][j + 2:]
                copy = " ".join(words)
            elif change == "word":
                for plain, options in rng.sample(sorted(_SYNONYMS.items()), len(_SYNONYMS)):
                    if f" {plain} " in copy:
                        copy = copy.replace(f" {plain} ", f" {rng.choice(options)} ", 1)
                        break
            elif change == "sentence":
                copy = copy + " " + _fill(rng.choice(_POOLS[grade_id][-1]), rng)
            else:
                copy = copy[0].upper() + copy[1:] if copy[:1].islower() else "**" + copy.split(". ")[0] + ".**" + \
                    copy[len(copy.split(". ")[0]) + 1:]
        if copy != text and similarity(copy, text) >= PROPOSE_AT + 0.1:
            return copy
    return text + " " + _fill(rng.choice(_POOLS[grade_id][-1]), rng)


def _formatted_copy(text, rng):
    """``text`` as another student typed it: other case, emphasis, spacing and line breaks; the same words."""
    words = text.split()
    out = []
    for word in words:
        roll = rng.random()
        if roll < 0.08 and word.isalpha():
            word = f"**{word}**"
        elif roll < 0.12 and word.isalpha():
            word = f"*{word}*"
        elif roll < 0.2:
            word = word.upper()
        elif roll < 0.3:
            word = word.lower()
        out.append(word)
    spaced = ""
    for word in out:
        spaced += word + rng.choice([" ", " ", " ", "  ", "\n"])
    return rng.choice(["", "- ", "  "]) + spaced.strip() + rng.choice(["", "\n", "\n\n"])


def class_answers(students, *, seed=0, same_group=100):
    """``{student: {grade_id: text}}``: each student's four answers ("" or the release's text when blank).

    About one student in twelve is in a study group of 2 to 6 whose answers to a question are near-copies of
    one; in the first question ``same_group`` students hand in one answer that differs between them only in
    formatting; of the others, about 4 in 100 leave the answer blank (the release's text, or nothing)."""
    rng = random.Random(seed)
    answers = {student: {} for student in students}
    for number, (grade_id, *_) in enumerate(QUESTIONS):
        order = list(students)
        rng.shuffle(order)
        taken = 0
        if number == 0 and same_group:
            base = written_answer(grade_id, rng)
            for student in order[:same_group]:
                answers[student][grade_id] = _formatted_copy(base, rng)
            taken = same_group
        in_groups = taken + len(order) // 12
        while taken < in_groups:
            size = rng.randint(2, 6)
            seed_text = written_answer(grade_id, rng)
            for student in order[taken:taken + size]:
                answers[student][grade_id] = seed_text if student == order[taken] else _near_copy(seed_text, grade_id,
                                                                                                    rng)
            taken += size
        for student in order[taken:]:
            roll = rng.random()
            if roll < 0.02:
                answers[student][grade_id] = TEXT_STUB  # the release's text left as it was
            elif roll < 0.04:
                answers[student][grade_id] = rng.choice(["", "\n", "  "])
            else:
                answers[student][grade_id] = written_answer(grade_id, rng)
    return answers


# -- the class, graded -----------------------------------------------------------------------------------

@dataclasses.dataclass(frozen=True)
class ScaleClass:
    """A course folder with :data:`A` graded for ``students``, and the folder that grade run wrote."""

    course: str
    out: str
    students: list
    answers: dict
    same_group: list  # the students whose answers to the first question differ only in formatting


def _student_notebook(release, answers, rng):
    """The release with a student's answers, and outputs where a run would have left them."""
    nb = nbformat.from_dict(release)
    for cell in nb.cells:
        grade_id = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        if grade_id in answers:
            cell.source = answers[grade_id]
        elif grade_id == "perceptron_update":
            cell.source = ("def perceptron_update(w, b, x, y):\n    \"\"\"One step of the online perceptron.\"\"\"\n"
                           f"    if y * (np.dot(w, x) + b) <= {rng.choice(['0', '0.0'])}:\n"
                           "        return w + y * x, b + y\n    return w, b")
        elif cell.cell_type == "code" and "Your experiments here" in cell.source:
            cell.source += "\nprint(X1.shape, y1[:5])"
            cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text="(8, 1) [ 1  1  1 -1 -1]\n")]
            cell.execution_count = 2
    return nb


def make_class(folder, size, *, same_group=None, seed=0):
    """Make ``folder/course`` and ``folder/out`` for a class of ``size`` (see the module docstring); return the
    :class:`ScaleClass`."""
    import nbgrader.api
    from nbgrader.api import Gradebook

    from autograder.commands.release import gradebook_schema_head
    from autograder.course.limits import load_limits
    from autograder.intake.lms import FeedbackRoute
    from autograder.judging.integrity import written_answer_checksum
    from autograder.outputs.gradebook import open_gradebook
    from autograder.outputs.graded_run import GradedRun, Person
    from autograder.outputs.record import finish_batch, question_names, record
    from autograder.results import GRADED, CellResult, Result, Settings

    folder = os.path.abspath(folder)
    course, out = os.path.join(folder, "course"), os.path.join(folder, "out")
    os.makedirs(os.path.join(course, "source", A))
    os.makedirs(os.path.join(course, "release", A))
    os.makedirs(os.path.join(out, "feedback"))
    shutil.copy(os.path.join(COURSE, "nbgrader_config.py"), os.path.join(course, "nbgrader_config.py"))
    source = source_notebook()
    nbformat.write(source, os.path.join(course, "source", A, f"{A}.ipynb"))
    db_url = f"sqlite:///{os.path.join(course, 'gradebook.db')}"
    # A new gradebook records its schema's revision, which nbgrader asks the alembic command for (not on PATH
    # for .venv/bin/python); the release command reads it in-process, and so does this.
    saved, nbgrader.api.get_alembic_version = nbgrader.api.get_alembic_version, gradebook_schema_head
    try:
        with Gradebook(db_url, course_id="perceptron") as gb:
            gb.update_or_create_assignment(A)
        release = generate_release(source, db_url)
    finally:
        nbgrader.api.get_alembic_version = saved
    nbformat.write(release, os.path.join(course, "release", A, f"{A}.ipynb"))

    rng = random.Random(seed)
    names = [(first, last) for last in _LAST for first in _FIRST]
    rng.shuffle(names)
    students = [f"s{number:04d}" for number in range(1, size + 1)]
    same_group = size // 10 if same_group is None else same_group
    answers = class_answers(students, seed=seed, same_group=same_group)
    first_question = QUESTIONS[0][0]
    grouped = _same_group_of(answers, students, first_question) if same_group else []
    settings = Settings(limits=load_limits(course))
    submitted = datetime.datetime(2025, 3, 3, 17, 0, tzinfo=datetime.timezone.utc)
    people, results = {}, []
    for number, student in enumerate(students):
        first, last = names[number % len(names)]
        user_id = 200000 + number
        route = FeedbackRoute("canvas", f"{(last + first).lower()}_{user_id}_{7000000 + number}_{A}.ipynb")
        people[student] = Person(student, f"{first} {last}", f"{student}@example.edu", str(user_id), "canvas", route)
        points = rng.choice([0.0, 1.0, 3.0, 3.0, 3.0])
        cells = [CellResult("update_rules", points, TEST_POINTS, points == TEST_POINTS,
                            "Passed." if points == TEST_POINTS else "perceptron_update did not update on a mistake.")]
        notebook = _student_notebook(release, answers[student], rng)
        when = submitted - datetime.timedelta(minutes=rng.randint(0, 60 * 24 * 5))
        results.append(Result(student, A, GRADED, score=points, max_score=TEST_POINTS, cells=cells,
                              manual_cells=[(gid, POINTS, written_answer_checksum(answers[student][gid], TEXT_STUB))
                                            for gid, *_ in QUESTIONS],
                              autograded_notebook=nbformat.writes(notebook), run_seconds=rng.uniform(2, 6),
                              source=route.name, submitted_at=when.isoformat()))
    gb = open_gradebook(course)
    try:
        labels = question_names(gb, course, A)
        for result in results:
            record(result, gb=gb, course_dir=course, out_dir=out, notebook_name=f"{A}.ipynb", settings=settings,
                   sandbox_text="bubblewrap", labels=labels)
    finally:
        gb.close()
    finish_batch(out, GradedRun(A, course, results, people, sandbox_text="bubblewrap", settings=settings,
                                started=submitted.timestamp(), seconds=size * 4.0 / 2))
    return ScaleClass(course, out, students, answers, grouped)


def _same_group_of(answers, students, grade_id):
    """The students of the largest group of answers to ``grade_id`` the same but for formatting."""
    from autograder.marking.groups import same_key

    keys = {student: same_key(answers[student][grade_id]) for student in students}
    counts = {}
    for key in keys.values():
        counts[key] = counts.get(key, 0) + 1
    biggest = max((key for key in counts if key != "blank"), key=counts.get)
    return [student for student in students if keys[student] == biggest]


# -- marking what is left ----------------------------------------------------------------------------------

_RUBRIC = [(1.0, "The first part right, with a reason", ""),
           (1.0, "The second part right, with a reason", ""),
           (-0.5, "A claim the chapter contradicts", "For markers: see the model answer's common wrong answers"),
           (0.0, "Good: you backed it with your own experiment", "")]
_BINS = [((0, 1), "Complete."), ((0,), "Say why for the second part."), ((0, 1, 3), "Well argued, with numbers.")]


def mark_everything(course, *, marker="Bench TA"):
    """Mark every answered written answer still unmarked, question by question, as a group save does: a rubric
    per question (added if it has none), and the answers in three bins of rubric items and comments (each bin in
    one save, since every save of several answers reads every mark of the assignment)."""
    from autograder.marking.answers import short_checksum
    from autograder.marking.rubrics import Target, add_item, save_marks, version_of
    from autograder.outputs.gradebook import open_gradebook, page_records, rubric_items, written_marks

    gb = open_gradebook(course)
    try:
        marks = written_marks(gb, A)
        records = page_records(gb, A)
        for grade_id, *_ in QUESTIONS:
            items = rubric_items(gb, A, A, grade_id)
            if not items:
                items = [add_item(gb, A, notebook=A, grade_id=grade_id, max_points=POINTS, points=points, text=text,
                                  note=note) for points, text, note in _RUBRIC]
            bins = {}
            for student, student_marks in sorted(marks.items()):
                mark = next(m for m in student_marks if m.grade_id == grade_id)
                if mark.marked:
                    continue
                target = Target(student, version_of(mark, records.get((student, A, grade_id))),
                                short_checksum(mark.checksum))
                bins.setdefault(int(student[1:]) % len(_BINS), []).append(target)
            for number, targets in sorted(bins.items()):
                chosen, comment = _BINS[number]
                save_marks(gb, A, notebook=A, grade_id=grade_id, targets=targets,
                           item_ids=[items[i].id for i in chosen], adjustment=None, points=None, comment=comment,
                           marker=marker)
    finally:
        gb.close()
