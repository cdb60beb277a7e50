"""A submitted notebook file: read without following links or trusting its size, then parsed into plain records.

:func:`read_untrusted_file` reads a file a student (or a sandbox) could have
written: never through a symbolic link, only a regular file, at most so many
bytes whatever ``stat`` says.  :func:`parse_notebook` turns the bytes into a
:class:`SubmittedNotebook` of :class:`SubmittedCell` (kind, source, cell id,
nbgrader metadata of plain values), or a sentence for the student saying why
it is not a notebook.

Both are defined in :mod:`perceptron_course.boundary`, because the student's
check reads a notebook exactly as grading does; they are imported here.
"""

from perceptron_course.boundary import SubmittedCell, SubmittedNotebook, parse_notebook, read_untrusted_file

__all__ = ["SubmittedCell", "SubmittedNotebook", "read_untrusted_file", "parse_notebook"]
