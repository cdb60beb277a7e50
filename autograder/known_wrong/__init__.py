"""Known-wrong implementations of the assignments' functions, one module per assignment.

Each module here (``autograder/known_wrong/<assignment>.py``, next to its
hidden checks in ``autograder/checks/<assignment>.py``) has a list
``KNOWN_WRONG`` of :class:`KnownWrong`: the source of one or more functions
with a typical student mistake (defined in a namespace that already holds
the reference solution and ``np``), named for the mistake, and exactly the
grade cells that must reject it.  ``python -m autograder verify`` runs every
one against the hidden checks; like the checks, these modules are never
released to students.
"""

import importlib
import os
import textwrap
from dataclasses import dataclass

__all__ = ["KnownWrong", "load"]


@dataclass(frozen=True)
class KnownWrong:
    """A wrong implementation and the grade cells (``grade_id``) that must reject it, and only those."""

    name: str
    source: str
    must_fail: tuple

    def code(self):
        """The implementation's source, dedented, ending in a newline."""
        return textwrap.dedent(self.source).strip() + "\n"


def load(assignment):
    """The ``KNOWN_WRONG`` list of an assignment, or ``[]`` when it has none yet."""
    if not os.path.isfile(os.path.join(os.path.dirname(__file__), f"{assignment}.py")):
        return []
    return list(importlib.import_module(f"{__name__}.{assignment}").KNOWN_WRONG)
