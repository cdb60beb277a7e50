"""Known-wrong implementations of the assignments' functions, one module per assignment.

Each module here (``autograder/course/assignments/<assignment>/known_wrong.py``, next to its
hidden checks in ``autograder/course/assignments/<assignment>/checks.py``) has a list
``KNOWN_WRONG`` of :class:`KnownWrong`: the source of one or more functions
with a typical student mistake (defined in a namespace that already holds
the reference solution and ``np``), named for the mistake, and exactly the
grade cells that must reject it.  ``python -m autograder verify`` runs every
one against the hidden checks; like the checks, these modules are never
released to students.
"""

import textwrap
from dataclasses import dataclass

__all__ = ["KnownWrong"]


@dataclass(frozen=True)
class KnownWrong:
    """A wrong implementation and the grade cells (``grade_id``) that must reject it, and only those."""

    name: str
    source: str
    must_fail: tuple

    def code(self):
        """The implementation's source, dedented, ending in a newline."""
        return textwrap.dedent(self.source).strip() + "\n"
