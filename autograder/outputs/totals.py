"""A result's points over the whole assignment: the autograded points plus the written answers' marks.

Every file with a grade in it (``grades.csv``, the LMS imports, the
feedback, the report) adds the two the same way, here: a written answer
adds its mark (a blank one 0), an answer still to be marked adds nothing
yet, and the maximum is always the whole assignment's.  The marks are the
ones the gradebook held when the files were written
(:attr:`autograder.results.Result.written`).
"""

import os
from dataclasses import dataclass

__all__ = ["Scale", "RubricSteps", "rubric_steps", "scale_of", "written_score", "written_max", "total", "unmarked",
           "to_remark", "unmarked_refusal", "mark_command"]


@dataclass(frozen=True)
class Scale:
    """The assignment's points: ``autograded`` (the test cells') and ``written`` (the answers people mark)."""

    autograded: float
    written: float

    @property
    def total(self):
        return self.autograded + self.written


@dataclass(frozen=True)
class RubricSteps:
    """How rubric items make a written answer's mark: their points ``added`` up; that sum ``counted``, kept between
    0 and the question's points; the marker's ``adjustment`` (0 when none); and the ``mark``, the counted sum plus
    the adjustment, kept between 0 and the question's points again."""

    added: float
    counted: float
    adjustment: float
    mark: float


def rubric_steps(points, adjustment, max_points):
    """The :class:`RubricSteps` of rubric items worth ``points`` (a list), ``adjustment`` (``None``: none) and a
    question worth ``max_points``: the one rule the marking page scores by and the feedback explains."""
    keep = lambda value: min(max(value, 0.0), max_points) + 0.0  # + 0.0: never a mark of -0
    added, adjustment = sum(points), adjustment or 0.0
    counted = keep(added)
    return RubricSteps(added, counted, adjustment, keep(counted + adjustment))


def written_max(result):
    """The points of ``result``'s written answers (the release's, when no marks were read)."""
    if result.written:
        return sum(mark.max_points for mark in result.written)
    return float(sum(points for _, points, _ in result.manual_cells))


def written_score(result):
    """The written answers' marks: each marked answer's points, 0 for one still to be marked."""
    return sum(mark.score for mark in result.written)


def total(result):
    return result.score + written_score(result)


def unmarked(result):
    """The written answers of ``result`` that a student answered and nobody has marked yet, in order."""
    return [mark for mark in result.written if not mark.marked]


def waiting_answers(results):
    """Every written answer of ``results`` still to be marked, as ``(student_id, mark)`` in the run's order."""
    return tuple((r.student_id, mark) for r in results for mark in unmarked(r))


def unmarked_refusal(command, waiting, labels=None):
    """What ``export`` and ``send-grades`` print when they refuse to go on while answers are unmarked: a line
    per answer (``autograder COMMAND: unmarked: ...``, each question by its cell id and, from ``labels``
    (:func:`~autograder.outputs.record.question_names`), the name the marking page gives it) and the sentence that
    begins their reason, which each command ends with what it did not do and how to go on."""
    labels = labels or {}

    def named(mark):
        label = labels.get((mark.notebook, mark.grade_id))
        return mark.grade_id + (f" ({label} on the marking page)" if label else "")

    lines = [f"autograder {command}: unmarked: student {student_id}, question {named(mark)}"
             + (" (changed since its earlier mark)" if mark.to_remark else "") for student_id, mark in waiting]
    count = len(waiting)
    return lines, f"{count} written {'answer is' if count == 1 else 'answers are'} still to be marked (listed above)"


def mark_command(assignment, course_dir):
    """The command that opens the marking page of ``assignment`` in ``course_dir``, as the refusals suggest it: with
    ``--course-dir`` when that is not the folder ``mark`` opens by default."""
    import shlex

    from autograder.course import COURSE_DIR

    same = os.path.realpath(course_dir) == os.path.realpath(COURSE_DIR)
    return (f"python -m autograder mark {shlex.quote(assignment)}"
            + ("" if same else f" --course-dir {shlex.quote(course_dir)}"))


def to_remark(result):
    """The written answers whose earlier mark was set aside because the student changed them, still unmarked."""
    return [mark for mark in result.written if mark.to_remark]


def scale_of(results):
    """The assignment's :class:`Scale`, from the results of a run (a missing student's row has no cells)."""
    return Scale(max((r.max_score for r in results), default=0.0), max((written_max(r) for r in results), default=0.0))
