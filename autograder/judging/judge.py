"""The judge, on the host: turn what a submission's functions returned into points.

The worker brings back the hidden tests' results as plain records
(:class:`~autograder.boundary.from_sandbox.ProbeResults`); :func:`judge` compares them with
the answers :mod:`perceptron_lib` gives, through the assignment's hidden
checks (:mod:`autograder.judging.checks`), and scores each autograded cell.  It runs
only in the process that writes the grades, so no verdict depends on a
worker or on anything the student's code could reach.
"""

from autograder.results import GRADED, CellResult

__all__ = ["judge"]


def _score(checks, autograded, results, status, reason):
    """One :class:`CellResult` per autograded cell, in notebook order."""
    from autograder.judging.checks import verdicts_from_results

    verdicts = {v.grade_id: v for v in verdicts_from_results(checks, results)} if status == GRADED else {}
    cells = []
    for grade_id, points in autograded:
        verdict = verdicts.get(grade_id)
        if status != GRADED:
            cells.append(CellResult(grade_id, 0.0, points, False, f"Not run: {reason}."))
        elif verdict is None:
            cells.append(CellResult(grade_id, 0.0, points, False,
                                    "No hidden test covers this cell; the instructor grades it by hand.", judged=False))
        else:
            cells.append(CellResult(grade_id, points if verdict.passed else 0.0, points, verdict.passed,
                                    "Passed." if verdict.passed else verdict.message))
    return cells


def judge(result):
    """Score the autograded cells of a worker's ``result`` from its probe results; return it, judged.

    A result that never ran (ungradable) already carries its cells; its
    score is summed all the same.
    """
    from autograder.boundary.from_sandbox import ProbeResults
    from autograder.course.assignments import load_checks

    if result.autograded_cells is not None:
        result.cells = _score(load_checks(result.assignment), result.autograded_cells,
                              result.probe_results or ProbeResults(), result.status, result.reason)
        result.autograded_cells = result.probe_results = None
    result.score = sum(c.points for c in result.cells)
    return result
