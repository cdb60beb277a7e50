"""What a grading run writes, on the host only, and for whom.

:mod:`~autograder.outputs.record` writes each judged submission as it arrives (nbgrader's gradebook through
:mod:`~autograder.outputs.gradebook`, the autograded notebook, the feedback page) and, at the end,
``grades.csv`` and the report; :mod:`~autograder.outputs.report` makes the pages people read;
:mod:`~autograder.outputs.exports` the Canvas and Moodle grade imports; :mod:`~autograder.outputs.lms_feedback`
what each LMS takes back (feedback zips, worksheets, grade center files).
"""
