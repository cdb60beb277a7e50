"""Marking the written answers: what there is to mark, the marking page, and the CSV and booklet a TA marks offline.

The marks live in nbgrader's gradebook (:mod:`autograder.outputs.gradebook`):
this package reads and writes them there, and nowhere else.
:mod:`~autograder.marking.answers` gathers each written answer with its
question, the instructor's model answer, the student's text and its mark;
:mod:`~autograder.marking.sheet` writes them to a CSV and reads the marks
back, all of them or none; :mod:`~autograder.marking.booklet` prints the
answers question by question as one self-contained HTML page.
:mod:`~autograder.marking.web` is the marking page TAs use in a browser,
one question at a time across every submission;
:mod:`~autograder.marking.rubrics` holds its rules for a mark (rubric items,
the refusal of a save over someone else's change),
:mod:`~autograder.marking.starting_rubric` gives each question the
assignment's starting rubric once, before the TAs own it, and
:mod:`~autograder.marking.render` shows an answer's Markdown and mathematics.
``python -m autograder mark`` (:mod:`autograder.commands.mark`) runs them.
"""
