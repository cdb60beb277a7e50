"""The notebook that runs: the student's answers inside the release's own locked cells.

:func:`prepare_notebook` builds the notebook that is actually executed, in
grading (:mod:`autograder.running.worker`) and in the student's check alike, from
the student's notebook and the release notebook.  Cells the release marks
as answers (nbgrader solution cells) carry the student's source; every
other cell with an nbgrader id (read-only cells, visible tests, tasks) is
taken from the release, whatever the student did to it, so an edited,
deleted or copied test cell can neither change what runs nor break
grading.  Cells the student added stay where they were, stripped of any
nbgrader metadata.  What was edited, deleted or duplicated becomes a
:class:`Flag`.

:func:`library_imports` reads what a cell imports from ``perceptron_lib``:
a graded notebook gets only the data loaders its release imports
(:mod:`autograder.course.library`), and the check warns about any other.

:func:`nbgrader_metadata` is the one reader of a cell's nbgrader metadata,
for the grader and the student's check alike, with the predicates built on
it (:func:`grade_id`, :func:`is_solution`, :func:`is_test_cell`, :func:`grade_cells`, :func:`grade_points`), and
:func:`calibration_key` names the cells whose time limit grading calibrates.
:func:`question_names` names each written question as the notebook's text
does ("D1"), for everything a student reads about one: the check, the
feedback.
"""

import ast
import copy
import hashlib
import re
from dataclasses import dataclass

__all__ = ["Flag", "nbgrader_metadata", "grade_id", "is_solution", "is_test_cell", "grade_cells", "grade_points",
           "calibration_key", "cell_seconds_by_index", "prepare_notebook", "locked_fingerprint", "library_imports",
           "question_name", "question_names", "QUESTION_NAME", "LIBRARY"]

LIBRARY = "perceptron_lib"
# How the course's notebooks name a written question, in bold at the start of the text that asks it:
# "**Question D1 (2 points).**".  The name is what comes after "Question".
QUESTION_NAME = re.compile(r"\*\*\s*Question\s+([A-Za-z]?\d+[a-z]?)\b")


@dataclass(frozen=True)
class Flag:
    """Something in a submission the instructor should look at (codes: :data:`autograder.results.FLAG_TEXT`)."""

    code: str
    detail: str = ""


def nbgrader_metadata(cell):
    """A notebook cell's nbgrader metadata (``metadata["nbgrader"]``), or ``{}`` when it has none.

    Total: a cell, metadata or nbgrader part that is not a dict (a hand-edited
    notebook, or plain JSON from anywhere) counts as none.  ``cell`` is an
    nbformat cell or the dict of one.

    Examples
    --------
    >>> nbgrader_metadata({"metadata": {"nbgrader": {"grade_id": "f", "solution": True}}})
    {'grade_id': 'f', 'solution': True}
    >>> nbgrader_metadata({"metadata": {"nbgrader": ["not", "a", "dict"]}}), nbgrader_metadata(None)
    ({}, {})
    """
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    data = meta.get("nbgrader") if isinstance(meta, dict) else None
    return data if isinstance(data, dict) else {}


def grade_id(cell):
    """A cell's nbgrader id, or ``None`` when it has none or it is not a non-empty string."""
    gid = nbgrader_metadata(cell).get("grade_id")
    return gid if isinstance(gid, str) and gid else None


def is_solution(cell):
    """Whether nbgrader marks the cell as an answer: a solution cell, whose source is the student's."""
    return bool(nbgrader_metadata(cell).get("solution"))


def is_test_cell(cell):
    """Whether the cell is an autograded test: a graded code cell that is not an answer."""
    meta = nbgrader_metadata(cell)
    return isinstance(cell, dict) and cell.get("cell_type") == "code" and bool(meta.get("grade")) \
        and not meta.get("solution")


def grade_cells(notebook):
    """``(autograded, manual)``: lists of ``(grade_id, points)`` of a notebook's graded cells, in order.

    As nbgrader counts them: a test cell's points are autograded; a graded answer's and a task's
    are given by hand."""
    autograded, manual = [], []
    for cell in notebook.get("cells", []) if isinstance(notebook, dict) else []:
        meta = nbgrader_metadata(cell)
        gid = grade_id(cell)
        if gid and (meta.get("grade") or meta.get("task")):
            points = float(meta.get("points", 0) or 0)
            (manual if meta.get("solution") or meta.get("task") else autograded).append((gid, points))
    return autograded, manual


def grade_points(notebook):
    """``(autograded, manual)``: the totals of :func:`grade_cells`."""
    autograded, manual = grade_cells(notebook)
    return sum(points for _, points in autograded), sum(points for _, points in manual)


def question_name(text):
    """The name of the written question ``text`` asks ("D1"): the last "**Question X**" in it; ``None`` when it
    names none (the text before an answer cell may start with a part's heading and an earlier question)."""
    found = QUESTION_NAME.findall(text or "")
    return found[-1] if found else None


def question_names(notebook):
    """``{grade_id: name}`` of the answer cells of ``notebook`` (a release) whose question its text names ("D1").

    The name is the last "**Question X**" in the Markdown between the graded
    or read-only cell before the answer cell and the answer cell; a plain
    code cell in between (where the student experiments) is passed over.
    """
    names, since = {}, []
    for cell in notebook.get("cells", []) if isinstance(notebook, dict) else []:
        if not isinstance(cell, dict):
            continue
        meta = nbgrader_metadata(cell)
        if meta.get("solution") or meta.get("task"):
            name = question_name("\n\n".join(since))
            if name is not None and grade_id(cell):
                names[grade_id(cell)] = name
        if cell.get("cell_type") == "markdown" and not meta:
            source = cell.get("source", "")
            since.append("".join(source) if isinstance(source, list) else str(source))
        elif meta:
            since = []
    return names


def calibration_key(cell):
    """The key under which a cell's own, calibrated time limit is stored, or ``None`` when it gets none.

    Calibration (:mod:`autograder.running.calibrate`) limits every code cell
    of the release except the answer cells (whose cost is the student's), and
    records each limit under the cell's nbgrader id, or its notebook cell id
    when it has none; grading then applies the limit to the cell of the
    prepared notebook with the same key (:func:`cell_seconds_by_index`).
    """
    if not isinstance(cell, dict) or cell.get("cell_type") != "code" or is_solution(cell):
        return None
    key = grade_id(cell) or cell.get("id")
    return key if isinstance(key, str) and key else None


def cell_seconds_by_index(cells, cell_seconds_by_cell):
    """``{index: seconds}`` of those ``cells`` whose :func:`calibration_key` has a limit in ``cell_seconds_by_cell``.

    ``cell_seconds_by_cell`` holds ``(key, seconds)`` pairs, as
    :attr:`autograder.results.Settings.cell_seconds_by_cell` does; the runner
    is given the limits by cell index and reads no metadata itself.
    """
    by_key = dict(cell_seconds_by_cell)
    return {index: by_key[key] for index, cell in enumerate(cells)
            if (key := calibration_key(cell)) is not None and key in by_key}


def locked_fingerprint(kind, source, nbgrader_meta):
    """What must not change in a locked cell, as one digest; ``None`` when its nbgrader metadata is broken.

    The same parts nbgrader's own cell checksum covers: the source, the cell
    type, whether it is a grade, solution or locked cell, its id, and its
    points when it is graded.  Two cells differ exactly when their digests do.
    """
    try:
        grade = bool(nbgrader_meta.get("grade", False))
        solution = bool(nbgrader_meta.get("solution", False))
        locked = not solution and (grade or bool(nbgrader_meta.get("locked", False)))
        parts = [source, kind, str(grade), str(solution), str(locked), str(nbgrader_meta["grade_id"])]
        if grade:
            parts.append(str(float(nbgrader_meta["points"])))
    except (AttributeError, KeyError, TypeError, ValueError):
        return None
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


def _clean_cell(kind, source, metadata, cell_id):
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_raw_cell

    make = {"code": new_code_cell, "markdown": new_markdown_cell, "raw": new_raw_cell}[kind]
    cell = make(source=source, metadata=copy.deepcopy(metadata))
    cell["id"] = cell_id
    return cell


def prepare_notebook(student_nb, release_nb):
    """Build the notebook to execute; return ``(notebook, flags, authored, answers)``.

    ``student_nb`` is the student's notebook as parsed at the trust boundary
    (a :class:`~perceptron_course.boundary.SubmittedNotebook`); ``release_nb`` the
    trusted release notebook.  ``authored`` lists ``(label, source)`` of the
    code the student wrote, for the grader's scan (:func:`autograder.judging.integrity.scan_code`), and ``answers`` maps each
    answer cell's grade_id to its source.
    """
    from nbformat.v4 import new_notebook

    release_cells = release_nb.cells
    release_by_id = {grade_id(c): c for c in release_cells if grade_id(c)}
    student_cells = list(student_nb.cells)

    first = {}
    duplicated = []
    extras = {None: []}
    anchor = None
    for cell in student_cells:
        gid = cell.grade_id
        if gid in release_by_id:
            if gid not in first:
                first[gid] = cell
                anchor = gid
                continue
            duplicated.append(gid)
            if not is_solution(release_by_id[gid]):
                continue  # a copy of a locked or test cell never runs
        extras.setdefault(anchor, []).append(cell)

    flags = []
    edited, deleted = [], []
    cells, authored, answers = [], [], {}
    used_ids = set()

    def add(kind, source, metadata, wanted_id):
        cell_id = wanted_id if isinstance(wanted_id, str) and re.fullmatch(r"[a-zA-Z0-9-_]{1,64}", wanted_id) \
            and wanted_id not in used_ids else f"cell-{len(cells)}"
        while cell_id in used_ids:
            cell_id = f"cell-{len(cells)}-{len(used_ids)}"
        used_ids.add(cell_id)
        cells.append(_clean_cell(kind, source, metadata, cell_id))

    def add_extras(key):
        for cell in extras.get(key, []):
            kind, source = cell.kind, cell.source
            add(kind, source, {}, cell.cell_id)
            if kind == "code":
                authored.append((f"cell {len(cells)} (added by the student)", source))

    add_extras(None)
    for rcell in release_cells:
        gid = grade_id(rcell)
        if gid is None:
            continue
        kind = rcell.cell_type
        meta = dict(rcell.metadata)
        student = first.get(gid)
        if is_solution(rcell):
            source = student.source if student is not None else rcell.source
            add(kind, source, meta, rcell.get("id"))
            answers[gid] = source
            if kind == "code":
                authored.append((f"answer cell {gid!r}", source))
        else:
            if student is None:
                deleted.append(gid)
            elif locked_fingerprint(student.kind, student.source, dict(student.nbgrader)) != \
                    locked_fingerprint(rcell.cell_type, rcell.source, nbgrader_metadata(rcell)):
                edited.append(gid)
            add(kind, rcell.source, meta, rcell.get("id"))
        add_extras(gid)

    if edited:
        flags.append(Flag("edited-locked-cell", "changed: " + ", ".join(edited)))
    if deleted:
        flags.append(Flag("deleted-locked-cell", "missing: " + ", ".join(deleted)))
    if duplicated:
        flags.append(Flag("duplicated-cell", "twice or more: " + ", ".join(sorted(set(duplicated)))))

    nb = new_notebook(cells=cells, metadata=copy.deepcopy(dict(release_nb.metadata)))
    return nb, flags, authored, answers


def library_imports(source):
    """``(names, modules)`` a cell's code imports from ``perceptron_lib``, each sorted.

    ``names`` are those of ``from perceptron_lib import ...`` (or from one of
    its modules); ``modules`` those of ``import perceptron_lib`` (or
    ``import perceptron_lib.theory``), which hand over the whole package.
    Code that does not parse (IPython syntax) imports nothing here.

    Examples
    --------
    >>> library_imports("import numpy as np\\nfrom perceptron_lib import make_xor, flip_labels")
    (('flip_labels', 'make_xor'), ())
    >>> library_imports("import perceptron_lib as pl")
    ((), ('perceptron_lib',))
    """
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return (), ()
    names, modules = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").split(".")[0] == LIBRARY:
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            modules.update(a.name for a in node.names if a.name.split(".")[0] == LIBRARY)
    return tuple(sorted(names)), tuple(sorted(modules))
