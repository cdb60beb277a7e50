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
