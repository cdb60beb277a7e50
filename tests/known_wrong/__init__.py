"""Known-wrong implementations of the assignments' functions, one module per assignment.

Each module has a list ``KNOWN_WRONG`` of :class:`KnownWrong`: the source of
one or more functions with a typical student mistake (defined in a namespace
that already holds the reference solution and ``np``), named for the mistake,
and the grade cells that must fail because of it.
"""

import importlib
import textwrap
from dataclasses import dataclass


@dataclass(frozen=True)
class KnownWrong:
    """A wrong implementation and the grade cells (``grade_id``) that must reject it."""

    name: str
    source: str
    must_fail: tuple

    def code(self):
        return textwrap.dedent(self.source).strip() + "\n"


def load(assignment):
    """The ``KNOWN_WRONG`` list of an assignment."""
    return list(importlib.import_module(f"{__name__}.{assignment}").KNOWN_WRONG)
