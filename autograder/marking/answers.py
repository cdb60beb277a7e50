"""Every written answer of an assignment, with what a TA needs beside it to mark it.

A written answer is a cell a person marks: a graded answer cell that is
not a test (in this course, a Markdown answer), or a task
(:func:`autograder.outputs.gradebook.assignment_info` says which).
:func:`collect` gives, for each student with a submission in the
gradebook, one :class:`Answer` per question: the :class:`Question` (the
text that asks it, from the release; the instructor's model answer, from
``notebooks/source``; its points), the student's text as it was graded
(from the autograded notebook, read through the trust boundary: the text is
the student's), the student's name as the gradebook has it, and the
:class:`~autograder.outputs.gradebook.WrittenMark` it holds now.
"""

import os
from dataclasses import dataclass

__all__ = ["Question", "Answer", "collect", "short_checksum", "question_label", "question_labels", "read_questions"]

_CHECKSUM_LETTERS = "abcdefghijklmnop"


def question_label(text, grade_id):
    """A written question's name as its notebook gives it ("D1"), from the text that asks it; else ``grade_id``.

    The last "**Question X**" before the answer cell names it (the text before
    an answer cell may start with a part's heading and an earlier question's
    context): :func:`perceptron_course.cells.question_name`, which the
    student's check names an empty answer by too."""
    from perceptron_course.cells import question_name

    return question_name(text) or grade_id


@dataclass(frozen=True)
class Question:
    """A written question: where it is, its points, the Markdown that asks it and the model answer."""

    notebook: str
    grade_id: str
    max_points: float
    text: str = ""
    model_answer: str = ""
    name: str = ""  # the notebook's name for it, found above a cell for the student's experiments too

    @property
    def label(self):
        """The question's name as the notebook gives it ("D1"), from its text, else as
        :func:`perceptron_course.cells.question_names` found it; its cell id when neither names it."""
        return question_label(self.text, None) or self.name or self.grade_id


@dataclass(frozen=True)
class Answer:
    """One student's answer to one :class:`Question`, with its mark (``text`` is empty when blank)."""

    student_id: str
    student_name: str
    question: Question
    text: str
    mark: object  # autograder.outputs.gradebook.WrittenMark

    @property
    def checksum(self):
        """The checksum of the answer as graded, ``None`` for a blank answer."""
        from autograder.judging.integrity import answer_checksum

        if self.mark.blank:
            return None
        return self.mark.checksum or (answer_checksum(self.text) if self.text else None)


def question_labels(course_dir, assignment, info):
    """``{(notebook, grade_id): label}`` of every written question of ``assignment`` (``info`` being
    :func:`autograder.outputs.gradebook.assignment_info`'s), for the files students receive."""
    return {(q.notebook, q.grade_id): q.label for q in read_questions(course_dir, assignment, info)}


def short_checksum(checksum):
    """A checksum as 16 letters (``a`` to ``p``), or ``blank``.

    Letters only, so that no spreadsheet reads one as a number or a date and
    rewrites it when the CSV is saved again.
    """
    if checksum is None:
        return "blank"
    return "".join(_CHECKSUM_LETTERS[int(digit, 16)] for digit in checksum[:16])


def _without_markers(source):
    return "\n".join(line for line in source.splitlines()
                     if "BEGIN SOLUTION" not in line and "END SOLUTION" not in line).strip()


def read_questions(course_dir, assignment, info):
    """The written questions of each notebook in ``info``, in the release's order, with their text and model answer.

    A question's text is the release's Markdown right before its answer cell, from the cell that names the
    question, found above a cell for the student's experiments too; its name is the one the release's text gives
    it (:func:`perceptron_course.cells.question_names`)."""
    import nbformat

    from perceptron_course.cells import grade_id, nbgrader_metadata, question_name, question_names

    questions = []
    for notebook, cells in info.items():
        manual = {gid: points for gid, (points, kind) in cells.items() if kind == "manual"}
        texts, names, models, order = {}, {}, {}, []
        release = os.path.join(course_dir, "release", assignment, f"{notebook}.ipynb")
        if os.path.isfile(release):
            before = []
            release_nb = nbformat.read(release, as_version=4)
            names = question_names(release_nb)
            for cell in release_nb.cells:
                gid = grade_id(cell)
                if gid in manual:
                    # From the last Markdown cell that names a question ("**Question D1**"), over a plain code
                    # cell for the student's experiments; all of the Markdown when none names one.
                    named = [i for i, text in enumerate(before) if question_name(text)]
                    texts[gid] = "\n\n".join(before[named[-1]:] if named else before)
                    order.append(gid)
                if cell.cell_type == "markdown" and not nbgrader_metadata(cell):
                    before.append(cell.source.strip())
                elif nbgrader_metadata(cell) or not before or not any(question_name(text) for text in before):
                    before = []
        source = os.path.join(course_dir, "source", assignment, f"{notebook}.ipynb")
        if os.path.isfile(source):
            models = {grade_id(c): _without_markers(c.source) for c in nbformat.read(source, as_version=4).cells
                      if grade_id(c) in manual}
        order += [gid for gid in manual if gid not in order]
        questions += [Question(notebook, gid, manual[gid], texts.get(gid, ""), models.get(gid, ""),
                               names.get(gid, "")) for gid in order]
    return questions


def _answer_texts(course_dir, assignment, student_id, notebook, max_bytes):
    """``{grade_id: text}`` of a student's autograded notebook; ``{}`` when there is none or it cannot be read."""
    from autograder.boundary.notebook import parse_notebook, read_untrusted_file

    path = os.path.join(course_dir, "autograded", student_id, assignment, f"{notebook}.ipynb")
    if not os.path.isfile(path):
        return {}
    data, problem = read_untrusted_file(path, max_bytes)
    nb, problem = (None, problem) if problem else parse_notebook(data)
    if problem:
        return {}
    return {cell.grade_id: cell.source for cell in nb.cells if cell.grade_id}


def collect(gb, course_dir, assignment):
    """``(questions, answers)``: the written :class:`Question` records of ``assignment`` in order, and every
    submission's :class:`Answer` to each, question by question, students in id order."""
    from autograder.course.limits import load_limits
    from autograder.outputs.gradebook import assignment_info, written_marks
    from perceptron_course.limits import Limits, LimitsError

    try:
        max_bytes = load_limits(course_dir).executed_notebook_bytes
    except LimitsError:
        max_bytes = Limits().executed_notebook_bytes
    questions = read_questions(course_dir, assignment, assignment_info(gb, assignment))
    marks = written_marks(gb, assignment)
    names = {s.id: " ".join(part for part in (s.first_name, s.last_name) if part) for s in gb.students}
    texts = {}
    answers = []
    for question in questions:
        for student_id in sorted(marks):
            mark = next((m for m in marks[student_id]
                         if (m.notebook, m.grade_id) == (question.notebook, question.grade_id)), None)
            if mark is None:
                continue
            if (student_id, question.notebook) not in texts:
                texts[student_id, question.notebook] = _answer_texts(course_dir, assignment, student_id,
                                                                     question.notebook, max_bytes)
            text = "" if mark.blank else texts[student_id, question.notebook].get(question.grade_id, "").strip()
            answers.append(Answer(student_id, names.get(student_id, ""), question, text, mark))
    return questions, answers
