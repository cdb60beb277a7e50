"""The grader's commands, one module each: ``python -m autograder <command>`` runs its ``main``.

* :mod:`~autograder.commands.release`: the student versions of the assignments, and their time limits;
* :mod:`~autograder.commands.grade`: a batch of submissions, in sandboxes, into grades and feedback;
* :mod:`~autograder.commands.mark`: the written answers to a CSV and a booklet for TAs, and their marks back;
* :mod:`~autograder.commands.export`: a grading run's files again, with the written answers' marks;
* :mod:`~autograder.commands.gradescope`: the autograder zip for Gradescope, and what runs inside it;
* :mod:`~autograder.commands.verify`: does an assignment still grade what it should;
* :mod:`~autograder.commands.check`: the student's check, run against this course directory;
* :mod:`~autograder.commands.audit`: the leak audit of anything about to be published;
* :mod:`~autograder.commands.publish`: the public site and the public edition of the repository.

A command reads its arguments, checks them, and calls the folders that do the work; what it prints and
its exit codes are its interface, and stay as they are.
"""
