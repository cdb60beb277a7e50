"""The starting rubric of an assignment, loaded into the gradebook for the TAs, once per question.

The instructor writes each written question's starting rubric in the assignment's registry folder
(``autograder/course/assignments/<assignment>/rubric.py``, :mod:`autograder.course.rubric`).  When
``python -m autograder mark ASSIGNMENT`` starts the marking page, :func:`load_starting_rubric` adds
those items to the gradebook's rubric (:data:`autograder.outputs.gradebook.RUBRIC_TABLE`) of every
question whose rubric has never been anyone's: no item yet, and no record in :data:`STARTS_TABLE`.
It records each question it decides about there, loaded or found with items already, so that a
rubric the TAs have since emptied is never filled again behind their backs, and a later edit of the
file reaches only questions the TAs have not started on.  The check, the records and the items are one
transaction under the gradebook's write lock, so two servers started at once load a rubric once.
"""

import datetime
from dataclasses import dataclass, field

from autograder.outputs.gradebook import (STARTS_TABLE, assignment_info, begin_write, marking_tables, page_tables,
                                          rubric_items)

__all__ = ["STARTS_TABLE", "Loading", "load_starting_rubric", "starts_table"]



def starts_table():
    """The table of the questions whose starting rubric was decided, kept with the gradebook's other tables."""
    return marking_tables()[1]


@dataclass
class Loading:
    """What :func:`load_starting_rubric` did: ``loaded`` ``[(notebook, grade_id, items)]``; ``kept``
    ``[(notebook, grade_id, why)]``, the questions whose rubric was left as it is; ``unknown``, the grade ids
    the file names that are no written question of the assignment; ``refused`` ``[(grade_id, problems)]``,
    the rubrics that cannot mark their question."""

    loaded: list = field(default_factory=list)
    kept: list = field(default_factory=list)
    unknown: list = field(default_factory=list)
    refused: list = field(default_factory=list)


def load_starting_rubric(gb, assignment, rubric, *, source):
    """Add each starting rubric of ``rubric`` (grade id -> :class:`~autograder.course.rubric.StartingRubric`)
    to the gradebook, for the questions whose rubric was never anyone's; return a :class:`Loading`.

    ``source`` names the file in the records.  Nothing is changed for a grade id that is no written
    question of ``assignment``, or whose rubric cannot mark it (:func:`autograder.course.rubric.problems`).
    """
    from autograder.course.rubric import problems

    outcome = Loading()
    written = {gid: (notebook, max_points) for notebook, cells in assignment_info(gb, assignment).items()
               for gid, (max_points, kind) in cells.items() if kind == "manual"}
    wanted = []
    for gid, starting in rubric.items():
        if gid not in written:
            outcome.unknown.append(gid)
            continue
        found = problems(starting, written[gid][1])
        if found:
            outcome.refused.append((gid, found))
        else:
            wanted.append((gid, starting))
    if not wanted:
        return outcome
    starts = starts_table()
    items_table, _, _ = page_tables()
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    begin_write(gb)
    try:
        decided = {(row.notebook, row.cell) for row in gb.db.execute(
            starts.select().where(starts.c.assignment == assignment))}
        for gid, starting in wanted:
            notebook = written[gid][0]
            if (notebook, gid) in decided:
                outcome.kept.append((notebook, gid, "loaded before, the TAs' since"))
                continue
            if rubric_items(gb, assignment, notebook, gid):
                outcome.kept.append((notebook, gid, "the TAs had a rubric already"))
                loaded = 0
            else:
                gb.db.execute(items_table.insert(), [
                    {"assignment": assignment, "notebook": notebook, "cell": gid, "position": position,
                     "points": float(item.points), "text": " ".join(item.text.split()),
                     "note": (item.note or "").strip() or None}
                    for position, item in enumerate(starting.items, start=1)])
                loaded = len(starting.items)
                outcome.loaded.append((notebook, gid, loaded))
            gb.db.execute(starts.insert().values(assignment=assignment, notebook=notebook, cell=gid, loaded=loaded,
                                                 source=source, decided_at=now))
        gb.db.commit()
    except BaseException:
        gb.db.rollback()
        raise
    return outcome
