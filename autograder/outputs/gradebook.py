"""Recording grades in nbgrader's gradebook, one transaction per submission.

The gradebook (``notebooks/gradebook.db``) is nbgrader's own SQLite
database, written through :mod:`nbgrader.api`, so ``nbgrader export`` and
the formgrader keep working: the formgrader is where written answers get
their manual points.  Only the host process writes it.  Each submission is
recorded in a single transaction that deletes the student's previous
submission of the assignment (grades and comments included) and adds the
new one, so a regrade never keeps a stale score and a crash half-way
leaves the previous record intact.  Manual scores and comments that an
instructor gave a written answer are carried over when that answer's text
is unchanged, so regrading does not throw away manual grading.

Everything is read through nbgrader's :class:`nbgrader.api.Gradebook` and its
records.  Replacing a submission is the one exception: nbgrader's
``remove_submission`` and ``add_submission`` (and ``add_student``) each
commit on their own, so a crash between them would lose the previous record
or leave an empty one.  :func:`record_result` therefore does what they do,
with nbgrader's own record classes, in a single transaction of the
gradebook's session.
"""

import os

__all__ = ["GradebookError", "open_gradebook", "assignment_info", "record_result", "dump"]


class GradebookError(Exception):
    """The gradebook is missing, unreadable, or does not know the assignment."""


def open_gradebook(course_dir):
    """Open ``course_dir/gradebook.db`` with nbgrader; raise :class:`GradebookError` if it does not exist or
    cannot be read."""
    from nbgrader.api import Gradebook
    from sqlalchemy.exc import SQLAlchemyError

    path = os.path.join(course_dir, "gradebook.db")
    if not os.path.isfile(path):
        raise GradebookError(f"there is no gradebook at {path}; release the assignment first with "
                             "'python -m autograder release' (it creates the gradebook)")
    try:
        # nbgrader needs a course id only to add an assignment, which the grader never does.  With the empty id
        # it records no course; any other id would add a second course beside the one the release recorded.
        return Gradebook(f"sqlite:///{os.path.abspath(path)}", course_id="")
    except SQLAlchemyError as exc:
        # The database's own words ("file is not a database"), without the SQL statement that met them.
        raise GradebookError(f"cannot read the gradebook {path}: {getattr(exc, 'orig', None) or exc}") from None


def assignment_info(gb, assignment):
    """``{notebook name: {grade_id: (max_points, kind)}}`` of a released assignment; kind is 'auto' or 'manual'."""
    from nbgrader.api import MissingEntry

    try:
        record = gb.find_assignment(assignment)
    except MissingEntry:
        raise GradebookError(f"the gradebook does not know the assignment {assignment!r}; release it first with "
                             f"'python -m autograder release {assignment}'") from None
    info = {}
    for notebook in record.notebooks:
        cells = {}
        for cell in notebook.grade_cells:
            cells[cell.name] = (float(cell.max_score), "manual" if cell.cell_type == "markdown" or _is_solution_cell(notebook, cell.name) else "auto")
        for cell in notebook.task_cells:
            cells[cell.name] = (float(cell.max_score), "manual")
        info[notebook.name] = cells
    return info


def _is_solution_cell(notebook, name):
    return any(cell.name == name for cell in notebook.solution_cells)


def _carry_over(submission, notebook_name, unchanged):
    """Manual scores and comments of the old submission for answers in ``unchanged``."""
    kept = {}
    for nb in submission.notebooks:
        if nb.name != notebook_name:
            continue
        for grade in nb.grades:
            if grade.cell.name in unchanged and (grade.manual_score is not None or grade.extra_credit is not None):
                kept[("grade", grade.cell.name)] = (grade.manual_score, grade.extra_credit)
        for comment in nb.comments:
            if comment.cell.name in unchanged and comment.manual_comment:
                kept[("comment", comment.cell.name)] = comment.manual_comment
    return kept


def record_result(gb, result, notebook_name, *, unchanged_answers=()):
    """Replace the student's submission of ``result.assignment`` by ``result``, in one transaction.

    ``unchanged_answers`` names the manually graded cells whose answer text
    is the same as in the submission being replaced; their manual grades and
    comments are kept.
    """
    from nbgrader.api import MissingEntry, Student

    session = gb.db
    passed = {c.grade_id: c for c in result.cells}
    manual = {gid for gid, _, _ in result.manual_cells}
    blank = {gid for gid, _, checksum in result.manual_cells if checksum is None}
    try:
        assignment = gb.find_assignment(result.assignment)
        try:
            student = gb.find_student(result.student_id)
        except MissingEntry:
            student = Student(id=result.student_id)
            session.add(student)
        kept = {}
        try:
            old = gb.find_submission(result.assignment, result.student_id)
        except MissingEntry:
            old = None
        if old is not None:
            kept = _carry_over(old, notebook_name, set(unchanged_answers))
            # What nbgrader's remove_submission deletes, without its commits.
            for nb in old.notebooks:
                for grade in nb.grades:
                    session.delete(grade)
                for comment in nb.comments:
                    session.delete(comment)
                session.delete(nb)
            session.delete(old)
            session.flush()

        with session.no_autoflush:
            _add_submission(session, assignment, student, result, passed, manual, blank, kept)
        session.commit()
    except BaseException:
        session.rollback()
        raise


def _add_submission(session, assignment, student, result, passed, manual, blank, kept):
    """What nbgrader's ``add_submission`` adds, without its commit, with the scores filled in."""
    from nbgrader.api import Comment, Grade, SubmittedAssignment, SubmittedNotebook

    submission = SubmittedAssignment(assignment=assignment, student=student)
    session.add(submission)
    for notebook in assignment.notebooks:
        nb = SubmittedNotebook(notebook=notebook, assignment=submission)
        session.add(nb)
        for cell in list(notebook.grade_cells) + list(notebook.task_cells):
            grade = Grade(cell_id=cell.id, notebook=nb)
            session.add(grade)
            if cell.name in manual or cell in notebook.task_cells:
                answered = result.status != "ungradable" and cell.name not in blank
                grade.auto_score = None if answered else 0.0
                grade.needs_manual_grade = answered
                if ("grade", cell.name) in kept:
                    grade.manual_score, grade.extra_credit = kept[("grade", cell.name)]
                    grade.needs_manual_grade = False
            else:
                verdict = passed.get(cell.name)
                if verdict is not None and not verdict.judged and result.status == "graded":
                    grade.auto_score, grade.needs_manual_grade = None, True
                else:
                    grade.auto_score = float(verdict.points) if verdict is not None else 0.0
                    grade.needs_manual_grade = False
        for cell in list(notebook.solution_cells) + list(notebook.task_cells):
            comment = Comment(cell_id=cell.id, notebook=nb)
            session.add(comment)
            if cell.name in blank:
                comment.auto_comment = "No response."
            if ("comment", cell.name) in kept:
                comment.manual_comment = kept[("comment", cell.name)]


def dump(gb, assignment):
    """Every grade and comment of ``assignment`` as sorted plain tuples (to compare two gradebooks)."""
    rows = []
    for submission in gb.assignment_submissions(assignment):
        for nb in submission.notebooks:
            for grade in nb.grades:
                rows.append(("grade", submission.student.id, nb.name, grade.cell.name, grade.auto_score,
                             grade.manual_score, grade.extra_credit, bool(grade.needs_manual_grade)))
            for comment in nb.comments:
                rows.append(("comment", submission.student.id, nb.name, comment.cell.name, comment.auto_comment or "",
                             comment.manual_comment or ""))
    return sorted(rows, key=repr)
