"""The intake: from what an instructor downloaded from their LMS to one submission per student.

:mod:`~autograder.intake.submissions` finds the submissions in a folder or a zip (extracted through
:mod:`autograder.boundary`), :mod:`~autograder.intake.lms` recognises the LMS's layout from the names, and
:mod:`~autograder.intake.roster` resolves ids, the roster, resubmissions and lateness.  Nothing here runs
a submission; everything here treats names and files as untrusted.
"""
