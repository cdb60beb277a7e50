"""Marking the written answers: what there is to mark, and the CSV and booklet a TA marks offline.

The marks live in nbgrader's gradebook (:mod:`autograder.outputs.gradebook`):
this package reads and writes them there, and nowhere else.
:mod:`~autograder.marking.answers` gathers each written answer with its
question, the instructor's model answer, the student's text and its mark;
:mod:`~autograder.marking.sheet` writes them to a CSV and reads the marks
back, all of them or none; :mod:`~autograder.marking.booklet` prints the
answers question by question as one self-contained HTML page.
``python -m autograder mark`` (:mod:`autograder.commands.mark`) runs them.
"""
