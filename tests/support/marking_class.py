"""The class the marking page's tests mark: ps2's two written questions and five students, each with their
name and written answers (the fixtures in ``tests/grader/marking/conftest.py`` grade them), and how the tests
read the marks given."""

from autograder.outputs.gradebook import open_gradebook, written_marks

A = "ps2_online_perceptron"
D1, D2 = "written_online_batch", "written_order"
STUDENTS = {
    # student id: (name, answer to D1, answer to D2); None keeps the model answer, "" leaves the release's text.
    "lovelace": ("Ada Lovelace", None, None),
    "noether": ("Emmy Noether", "Online: predict $\\hat y_t = \\operatorname{sign}(w_t \\cdot x_t)$, then see "
                "$y_t$ and update.\n\n$$\nw_{t+1} = w_t + y_t x_t\n$$", "Yes: the order changes $w$."),
    "turing": ("Alan Turing", "Batch: it sees **all** of the data at once.", "No."),
    "hopper": ("Grace Hopper", "", ""),
}
UNTOUCHED = ("babbage", "Charles Babbage")


def marks_of(course, question=D1):
    """``{student: (points, comment, marker, rubric items' texts)}`` of one question, as the gradebook holds them."""
    gb = open_gradebook(str(course))
    try:
        return {student: next((m.points, m.comment, m.marker, tuple(text for text, _ in m.rubric))
                              for m in marks if m.grade_id == question)
                for student, marks in written_marks(gb, A).items()}
    finally:
        gb.close()


def _study_class():
    """A class of ten whose written answers group: a study group of four near-copies, two answers that differ
    in formatting only, three written apart, one blank (answers from :mod:`tests.support.answer_corpus`)."""
    from tests.support import answer_corpus as corpus

    d1 = corpus.D1_STUDY_GROUP + [corpus.D1_APART[0], "*" + corpus.D1_APART[0].upper() + "*"] + corpus.D1_APART[1:4]
    d2 = corpus.D2_STUDY_GROUP + [corpus.D2_APART[0], "  " + corpus.D2_APART[0].replace(" ", "\n")] + corpus.D2_APART[1:4]
    names = ["Ada Byron", "Ben Carter", "Cleo Diaz", "Dev Engel", "Eli Fox", "Fay Gold", "Gus Hale", "Ivy Jones",
             "Kim Lee", "Max Moss"]
    students = {}
    for number, name in enumerate(names):
        student = name.split()[0].lower()
        answers = (d1[number], d2[number]) if number < len(d1) else ("", "")
        students[student] = (name, *answers)
    return students


STUDY_CLASS = _study_class()
STUDY_GROUP = list(STUDY_CLASS)[:4]  # their D1 and D2 answers are near-copies of one another
SAME_PAIR = list(STUDY_CLASS)[4:6]  # their answers differ in formatting and case only
