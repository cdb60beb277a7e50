"""nbgrader's gradebook: the one record of every grade, and of every mark a person gave a written answer.

The gradebook (``notebooks/gradebook.db``) is nbgrader's own SQLite
database, written through :mod:`nbgrader.api`, so ``nbgrader export`` and
the formgrader keep working.  Only the host process writes it.

**Autograded points.**  Each submission is recorded in a single
transaction (:func:`record_result`) that deletes the student's previous
submission of the assignment (grades and comments included) and adds the
new one, so a regrade never keeps a stale score and a crash half-way
leaves the previous record intact.  nbgrader's ``remove_submission`` and
``add_submission`` (and ``add_student``) each commit on their own, so a
crash between them would lose the previous record or leave an empty one;
:func:`record_result` therefore does what they do, with nbgrader's own
record classes, in one transaction of the gradebook's session.

**Written answers' marks.**  A TA's points for a written answer are the
``manual_score`` of the answer cell's grade, the TA's comment the
``manual_comment`` of its comment: the project's CSV route
(:mod:`autograder.marking`) and nbgrader's formgrader both write them
there, and every file that leaves for the students reads them
(:func:`written_marks`).  A blank answer (nothing written, or the release's
text left as it was) is recorded with ``auto_score`` 0: it counts as marked
0 unless a TA gives it points.

Nothing a person entered is lost by a regrade.  Beside nbgrader's tables
the gradebook holds one table of the grader's own (nbgrader leaves tables
it does not know alone), :data:`ANSWERS_TABLE`: for each written answer,
the checksum of the answer as it was graded (none when blank), and, when a
resubmission changed an answer that had a mark, that earlier mark (points,
comment, and the checksum of the answer it was given to), waiting for
re-marking.  A regrade keeps the mark and comment of every answer whose
checksum did not change, a blank answer that stayed blank included; an
answer changed back to the one that was marked gets its mark back.

**The marking page's records.**  Three more tables of the grader's own
hold what the marking page (:mod:`autograder.marking.rubrics`) adds to a
mark: :data:`RUBRIC_TABLE`, each question's rubric items (points and text,
in order); :data:`APPLIED_TABLE`, which items were applied to which
answer; and :data:`MARKERS_TABLE`, who marked each answer on the page,
when, with which adjustment, and the answer's checksum and the points as
the page left them.  Those records describe a mark only while it is the one
the page gave: once the answer changes (a resubmission) or its points are
changed elsewhere (the CSV route, the formgrader), :func:`written_marks`
no longer reports them, and a rubric item's new weight no longer re-scores
it.  A mark's rubric items (their texts and points) reach its student; the
rest (who marked, the notes for markers) is the instructor's alone.  Two
more tables (:func:`marking_tables`) hold the TAs' decisions about answer
groups (:data:`GROUPS_TABLE`) and which questions got their starting
rubric (:data:`STARTS_TABLE`).
"""

import datetime
import json
import os
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["GradebookError", "WrittenMark", "EarlierMark", "MarkChange", "ANSWERS_TABLE", "RUBRIC_TABLE",
           "APPLIED_TABLE", "MARKERS_TABLE", "GROUPS_TABLE", "STARTS_TABLE", "open_gradebook", "assignment_info", "record_result", "record_students",
           "written_marks", "autograded_scores", "set_marks", "stage_mark", "stage_marks", "begin_write", "RubricItem", "PageRecord",
           "page_tables", "marking_tables", "answer_key_columns", "rubric_items", "page_records", "dump"]

ANSWERS_TABLE = "autograder_written_answers"
RUBRIC_TABLE = "autograder_rubric_items"
APPLIED_TABLE = "autograder_rubric_applied"
MARKERS_TABLE = "autograder_markers"
GROUPS_TABLE = "autograder_answer_groups"
STARTS_TABLE = "autograder_rubric_starts"


class GradebookError(Exception):
    """The gradebook is missing, unreadable, or does not know the assignment."""


@dataclass(frozen=True)
class EarlierMark:
    """The mark a written answer had before the student changed it, kept for whoever marks the new answer.

    ``checksum`` is that of the answer the mark was given to (``None`` when
    it was blank or is not known); ``since`` when the regrade found the
    change (ISO 8601, UTC).
    """

    points: float = None
    extra_credit: float = None
    comment: str = ""
    checksum: str = None
    since: str = ""

    def as_json(self):
        return json.dumps({"points": self.points, "extra_credit": self.extra_credit, "comment": self.comment,
                           "checksum": self.checksum, "since": self.since}, sort_keys=True)

    @classmethod
    def from_json(cls, text):
        if not text:
            return None
        data = json.loads(text)
        return cls(data.get("points"), data.get("extra_credit"), data.get("comment") or "", data.get("checksum"),
                   data.get("since") or "")


@dataclass(frozen=True)
class WrittenMark:
    """One student's written answer to one question, as the gradebook holds its mark.

    ``points`` are the TA's (the grade's ``manual_score``); a blank answer's
    are 0 unless a TA gave others; ``None`` while an answer is unmarked.
    ``comment`` is the TA's comment; ``checksum`` that of the answer as
    graded (``None`` when blank or not recorded); ``earlier`` the mark of an
    answer the student has since changed, waiting for re-marking.
    ``marker`` and ``rubric`` say who gave the mark on the marking page and
    with which rubric items, while the mark is still the one given there.
    """

    notebook: str
    grade_id: str
    max_points: float
    points: float = None
    extra_credit: float = None
    comment: str = ""
    blank: bool = False
    checksum: str = None
    earlier: EarlierMark = None
    marker: str = ""  # the TA who gave the mark on the marking page ("" when not known): for the report only
    rubric: tuple = ()  # the rubric items applied, as (text, points) pairs, in the rubric's order
    adjustment: float = None  # the marker's adjustment of the rubric items' points (None: none), with ``rubric``

    @property
    def marked(self):
        return self.points is not None

    @property
    def score(self):
        """The points this answer adds to the total: the mark (0 while unmarked) and any extra credit."""
        return (self.points or 0.0) + (self.extra_credit or 0.0)

    @property
    def to_remark(self):
        """The student changed an answer that had a mark, and nobody has marked the new one yet."""
        return self.earlier is not None and not self.marked


@dataclass(frozen=True)
class MarkChange:
    """A new mark for one written answer: ``points`` (``None`` to take a mark back) and ``comment``."""

    student_id: str
    notebook: str
    grade_id: str
    points: float = None
    comment: str = ""


def answer_key_columns():
    """The columns that name one written answer, the primary key of the grader's tables about answers (new
    columns each call: a column belongs to one table)."""
    from sqlalchemy import Column, String

    return [Column(name, String(128), primary_key=True) for name in ("assignment", "student", "notebook", "cell")]


@lru_cache(maxsize=1)
def _answers_table():
    from sqlalchemy import Column, MetaData, String, Table, Text

    return Table(ANSWERS_TABLE, MetaData(), *answer_key_columns(),
                 Column("checksum", String(64), nullable=True),
                 Column("earlier", Text, nullable=True))


@lru_cache(maxsize=1)
def page_tables():
    """The marking page's tables: ``(rubric items, applied items, markers)`` (see the module docstring)."""
    from sqlalchemy import Column, Float, Integer, MetaData, String, Table, Text

    metadata = MetaData()
    rubric = Table(RUBRIC_TABLE, metadata,
                   Column("id", Integer, primary_key=True, autoincrement=True),
                   Column("assignment", String(128), nullable=False, index=True),
                   Column("notebook", String(128), nullable=False),
                   Column("cell", String(128), nullable=False),
                   Column("position", Integer, nullable=False),
                   Column("points", Float, nullable=False),
                   Column("text", Text, nullable=False),
                   Column("note", Text, nullable=True))
    applied = Table(APPLIED_TABLE, metadata, *answer_key_columns(),
                    Column("item", Integer, primary_key=True))
    markers = Table(MARKERS_TABLE, metadata, *answer_key_columns(),
                    Column("marker", String(128), nullable=False),
                    Column("marked_at", String(32), nullable=False),
                    Column("checksum", String(64), nullable=True),
                    Column("points", Float, nullable=True),
                    Column("adjustment", Float, nullable=True),
                    Column("note", Text, nullable=True))
    return rubric, applied, markers


@lru_cache(maxsize=1)
def marking_tables():
    """The tables of markers working together: ``(groups, starts)``.

    ``groups`` holds the TAs' decisions about answer groups (which group an
    answer is in, for the answer of that checksum; see
    :mod:`autograder.marking.groups`); ``starts`` the questions whose
    starting rubric was decided (how many items were loaded, 0 when the
    TAs' rubric was there first, from which file, when; see
    :mod:`autograder.marking.starting_rubric`)."""
    from sqlalchemy import Column, Integer, MetaData, String, Table, Text

    metadata = MetaData()
    groups = Table(GROUPS_TABLE, metadata, *answer_key_columns(),
                   Column("grouping", String(64), nullable=False),
                   Column("checksum", String(64), nullable=True),
                   Column("decided_by", String(128), nullable=False),
                   Column("decided_at", String(32), nullable=False))
    starts = Table(STARTS_TABLE, metadata,
                   *[Column(name, String(128), primary_key=True) for name in ("assignment", "notebook", "cell")],
                   Column("loaded", Integer, nullable=False),
                   Column("source", Text, nullable=False),
                   Column("decided_at", String(32), nullable=False))
    return groups, starts


def _add_missing_columns(engine, table):
    """Columns a later version added to one of the grader's tables, added to a gradebook made before them
    (SQLite adds a nullable column in place; the rows keep their values and get NULL in it)."""
    from sqlalchemy import inspect, text

    present = {column["name"] for column in inspect(engine).get_columns(table.name)}
    missing = [column for column in table.columns if column.name not in present]
    if missing:
        with engine.begin() as connection:
            for column in missing:
                kind = column.type.compile(dialect=engine.dialect)
                connection.execute(text(f'ALTER TABLE "{table.name}" ADD COLUMN "{column.name}" {kind}'))


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
        gb = Gradebook(f"sqlite:///{os.path.abspath(path)}", course_id="")
        _answers_table().create(gb.engine, checkfirst=True)
        for table in page_tables() + marking_tables():
            table.create(gb.engine, checkfirst=True)
            _add_missing_columns(gb.engine, table)
        return gb
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


def _manual_names(notebook):
    """The grade ids of a notebook's cells that a person marks: graded answers and tasks."""
    solutions = {cell.name for cell in notebook.solution_cells}
    return [cell.name for cell in notebook.grade_cells if cell.cell_type == "markdown" or cell.name in solutions] \
        + [cell.name for cell in notebook.task_cells]


def _stored_answers(session, assignment, student_id, notebook=None):
    """``{(student_id, notebook, grade_id): (checksum, EarlierMark or None)}`` from :data:`ANSWERS_TABLE`."""
    table = _answers_table()
    query = table.select().where(table.c.assignment == assignment)
    if student_id is not None:
        query = query.where(_of_students(table.c.student, student_id))
    if notebook is not None:
        query = query.where(table.c.notebook == notebook)
    return {(row.student, row.notebook, row.cell): (row.checksum, EarlierMark.from_json(row.earlier))
            for row in session.execute(query)}


def _carry_over(submission, notebook_name, stored, previous_answers, new_answers, now):
    """What the new submission keeps of the old one's written answers: ``(kept, earlier)``.

    ``kept`` maps a grade id to the ``(manual_score, extra_credit, comment)``
    that carries over; ``earlier`` to the :class:`EarlierMark` waiting for
    re-marking.  An answer is unchanged when its checksum is the one
    recorded for the old answer (``stored``, else ``previous_answers``), a
    blank that stays blank included; when it is not known, it counts as
    changed, so its mark is set aside for re-marking, never kept unseen.
    """
    kept, earlier = {}, {}
    for nb in submission.notebooks:
        if nb.name != notebook_name:
            continue
        comments = {comment.cell.name: comment.manual_comment or "" for comment in nb.comments}
        for grade in nb.grades:
            gid = grade.cell.name
            if gid not in new_answers:
                continue
            mark = (grade.manual_score, grade.extra_credit, comments.get(gid, ""))
            has_mark = mark[0] is not None or mark[1] is not None or bool(mark[2])
            old_checksum, pending = stored.get(gid, (None, None))
            known = gid in stored or gid in previous_answers
            if gid not in stored:
                old_checksum = previous_answers.get(gid)
            new_checksum = new_answers[gid]
            if known and old_checksum == new_checksum:
                if has_mark:
                    kept[gid] = mark
                if pending is not None and mark[0] is None:
                    earlier[gid] = pending
            elif pending is not None and not has_mark and pending.checksum == new_checksum \
                    and pending.checksum is not None:
                kept[gid] = (pending.points, pending.extra_credit, pending.comment)
            elif has_mark:
                earlier[gid] = EarlierMark(mark[0], mark[1], mark[2], old_checksum if known else None, now)
            elif pending is not None:
                earlier[gid] = pending
    return kept, earlier


def record_result(gb, result, notebook_name, *, previous_answers=None):
    """Replace the student's submission of ``result.assignment`` by ``result``, in one transaction.

    The written answers' marks and comments carry over where the answer did
    not change (see the module docstring); the others are kept aside for
    re-marking.  ``previous_answers`` (``{grade_id: checksum}``, or a
    function that returns them, called only when needed) are the answers of
    the submission being replaced as read from its autograded notebook, for
    a gradebook that recorded no checksums for it.
    """
    from nbgrader.api import MissingEntry, Student
    from nbgrader.utils import parse_utc

    session = gb.db
    table = _answers_table()
    passed = {c.grade_id: c for c in result.cells}
    now = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    try:
        assignment = gb.find_assignment(result.assignment)
        # Every written answer of the notebook gets a row; one the result does not hold (a submission the grader
        # itself failed on) has no answer, as an ungradable one.
        new_answers = {gid: None for notebook in assignment.notebooks if notebook.name == notebook_name
                       for gid in _manual_names(notebook)}
        new_answers.update({gid: checksum for gid, _, checksum in result.manual_cells})
        blank = {gid for gid, checksum in new_answers.items() if checksum is None}
        try:
            student = gb.find_student(result.student_id)
        except MissingEntry:
            student = Student(id=result.student_id)
            session.add(student)
        kept, earlier = {}, {}
        try:
            old = gb.find_submission(result.assignment, result.student_id)
        except MissingEntry:
            old = None
        where = ((table.c.assignment == result.assignment) & (table.c.student == result.student_id)
                 & (table.c.notebook == notebook_name))
        if old is not None:
            stored = {cell: value for (_, _, cell), value in
                      _stored_answers(session, result.assignment, result.student_id, notebook_name).items()}
            fallback = {}
            if previous_answers is not None and any(gid not in stored for gid in new_answers):
                fallback = previous_answers() if callable(previous_answers) else previous_answers
            kept, earlier = _carry_over(old, notebook_name, stored, fallback, new_answers, now)
            # What nbgrader's remove_submission deletes, without its commits.
            for nb in old.notebooks:
                for grade in nb.grades:
                    session.delete(grade)
                for comment in nb.comments:
                    session.delete(comment)
                session.delete(nb)
            session.delete(old)
            session.flush()
        session.execute(table.delete().where(where))

        with session.no_autoflush:
            submission = _add_submission(session, assignment, student, result, passed, set(new_answers), blank, kept)
        # The LMS's time, as nbgrader reads submitted/<student>/<assignment>/timestamp.txt (record.py writes it).
        submission.timestamp = parse_utc(result.submitted_at) if result.submitted_at else None
        if new_answers:
            session.execute(table.insert(), [
                {"assignment": result.assignment, "student": result.student_id, "notebook": notebook_name,
                 "cell": gid, "checksum": checksum,
                 "earlier": earlier[gid].as_json() if gid in earlier else None}
                for gid, checksum in new_answers.items()])
        session.commit()
    except BaseException:
        session.rollback()
        raise


def _add_submission(session, assignment, student, result, passed, manual, blank, kept):
    """What nbgrader's ``add_submission`` adds, without its commit, with the scores filled in; the submission."""
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
                manual_score, extra_credit, _ = kept.get(cell.name, (None, None, ""))
                grade.manual_score, grade.extra_credit = manual_score, extra_credit
                grade.needs_manual_grade = answered and manual_score is None
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
            if kept.get(cell.name, (None, None, ""))[2]:
                comment.manual_comment = kept[cell.name][2]
    return submission


def record_students(gb, people):
    """Record each student's name, email and LMS user id, as the download or the roster gave them, in one
    transaction, for the formgrader's lists and nbgrader's export.

    ``people`` maps student ids to records with ``name``, ``email`` and
    (optionally) ``canvas_user_id``; a student the gradebook does not hold
    (no submission) is left out, and a field the download left empty never
    erases one recorded before.
    """
    from nbgrader.api import MissingEntry

    session = gb.db
    try:
        for student_id, person in sorted(people.items()):
            if person is None:
                continue
            try:
                student = gb.find_student(student_id)
            except MissingEntry:
                continue
            name = " ".join((getattr(person, "name", "") or "").split())
            if name:
                first, _, last = name.rpartition(" ")
                student.first_name, student.last_name = first or None, last
            if getattr(person, "email", ""):
                student.email = person.email
            if getattr(person, "canvas_user_id", ""):
                student.lms_user_id = person.canvas_user_id
        session.commit()
    except BaseException:
        session.rollback()
        raise


_MARKS_SQL = """
SELECT sa.student_id AS student, nb.name AS notebook, bc.name AS cell, g.auto_score, g.manual_score,
       g.extra_credit, c.manual_comment
FROM submitted_assignment sa
JOIN assignment a ON a.id = sa.assignment_id
LEFT JOIN submitted_notebook sn ON sn.assignment_id = sa.id
LEFT JOIN notebook nb ON nb.id = sn.notebook_id
LEFT JOIN grade g ON g.notebook_id = sn.id
LEFT JOIN base_cell bc ON bc.id = g.cell_id
LEFT JOIN (SELECT comment.notebook_id, cell.name AS cell_name, comment.manual_comment
           FROM comment JOIN base_cell cell ON cell.id = comment.cell_id) c
       ON c.notebook_id = sn.id AND c.cell_name = bc.name
WHERE a.name = :assignment {students}
ORDER BY sa.id, sn.id
"""


def _of_students(column, student_id):
    """The condition that ``column`` is ``student_id`` (one id), or one of them (a list, a set: a group's)."""
    if isinstance(student_id, str):
        return column == student_id
    return column.in_(sorted(student_id))


def written_marks(gb, assignment, student_id=None):
    """``{student_id: (WrittenMark, ...)}``: every written answer of every submission of ``assignment`` (or of
    one student, or of several: a list or set of ids), in the notebooks' order, with its mark as the gradebook
    holds it now.

    nbgrader's records would be read one query per submission, notebook, grade and comment, each scanning its
    table (SQLite has no index on those links): the marks of a class of a thousand took seconds so.  One
    joined query reads them all instead, from nbgrader's own tables, in the same order (a grade belongs to the
    answer's grade cell and its comment to its solution cell: two cells of one name)."""
    from sqlalchemy import bindparam, text

    info = assignment_info(gb, assignment)
    stored = _stored_answers(gb.db, assignment, student_id)
    records = page_records(gb, assignment, student_id)
    found = {}
    if student_id is None:
        query, values = text(_MARKS_SQL.format(students="")), {"assignment": assignment}
    elif isinstance(student_id, str):
        query = text(_MARKS_SQL.format(students="AND sa.student_id = :student"))
        values = {"assignment": assignment, "student": student_id}
    else:
        query = text(_MARKS_SQL.format(students="AND sa.student_id IN :students")).bindparams(
            bindparam("students", expanding=True))
        values = {"assignment": assignment, "students": sorted(student_id)}
    for row in gb.db.execute(query, values):
        cells = found.setdefault(row.student, {})
        if row.notebook is not None and row.cell is not None:
            cells.setdefault(row.notebook, {})[row.cell] = row
    marks = {}
    for sid, notebooks in found.items():
        listed = []
        for notebook, grades in notebooks.items():
            for gid, (max_points, kind) in info.get(notebook, {}).items():
                grade = grades.get(gid)
                if kind != "manual" or grade is None:
                    continue
                checksum, earlier = stored.get((sid, notebook, gid), (None, None))
                points = grade.manual_score if grade.manual_score is not None else grade.auto_score
                marker, rubric, adjustment = "", (), None
                record = records.get((sid, notebook, gid))
                if record is not None and record.describes(checksum, points):
                    marker, rubric = record.marker, tuple((item.text, item.points) for item in record.items)
                    adjustment = record.adjustment if rubric else None
                listed.append(WrittenMark(notebook, gid, max_points, points=points, extra_credit=grade.extra_credit,
                                          comment=grade.manual_comment or "", blank=grade.auto_score is not None,
                                          checksum=checksum, earlier=earlier, marker=marker, rubric=rubric,
                                          adjustment=adjustment))
        marks[sid] = tuple(listed)
    return marks


def autograded_scores(gb, assignment):
    """``{student_id: points}``: the autograded points each submission of ``assignment`` holds."""
    info = assignment_info(gb, assignment)
    scores = {}
    for submission in gb.assignment_submissions(assignment):
        scores[submission.student.id] = sum(grade.auto_score or 0.0 for nb in submission.notebooks
                                            for grade in nb.grades
                                            if info.get(nb.name, {}).get(grade.cell.name, (0, "manual"))[1] == "auto")
    return scores


def stage_mark(gb, assignment, change):
    """Write one :class:`MarkChange` into the gradebook's open transaction, without committing it.

    A mark on an answer that had an earlier mark waiting settles it.  A
    change that names what the gradebook does not hold raises
    :class:`GradebookError`.
    """
    from nbgrader.api import MissingEntry

    table = _answers_table()
    try:
        grade = gb.find_grade(change.grade_id, change.notebook, assignment, change.student_id)
        comment = gb.find_comment(change.grade_id, change.notebook, assignment, change.student_id)
    except MissingEntry:
        raise GradebookError(f"the gradebook holds no written answer {change.grade_id!r} of "
                             f"{change.student_id!r} in {assignment}/{change.notebook}") from None
    grade.manual_score = None if change.points is None else float(change.points)
    grade.needs_manual_grade = grade.manual_score is None and grade.auto_score is None
    comment.manual_comment = change.comment or None
    if grade.manual_score is not None:
        gb.db.execute(table.update().where(
            (table.c.assignment == assignment) & (table.c.student == change.student_id)
            & (table.c.notebook == change.notebook) & (table.c.cell == change.grade_id)).values(earlier=None))


def stage_marks(gb, assignment, notebook, grade_id, changes):
    """:func:`stage_mark` for many answers to one question (a group's), finding their grades and comments in two
    queries rather than two per answer; a change that names what the gradebook does not hold raises
    :class:`GradebookError`."""
    from nbgrader.api import (Assignment, Comment, Grade, GradeCell, Notebook, SolutionCell, SubmittedAssignment,
                              SubmittedNotebook)

    students = [change.student_id for change in changes]

    def records(model, cell):
        return dict(gb.db.query(SubmittedAssignment.student_id, model)
                    .join(cell, cell.id == model.cell_id)
                    .join(SubmittedNotebook, SubmittedNotebook.id == model.notebook_id)
                    .join(Notebook, Notebook.id == SubmittedNotebook.notebook_id)
                    .join(SubmittedAssignment, SubmittedAssignment.id == SubmittedNotebook.assignment_id)
                    .join(Assignment, Assignment.id == SubmittedAssignment.assignment_id)
                    .filter(cell.name == grade_id, Notebook.name == notebook, Assignment.name == assignment,
                            SubmittedAssignment.student_id.in_(students)).all())

    grades, comments = records(Grade, GradeCell), records(Comment, SolutionCell)
    settled = []
    for change in changes:
        grade, comment = grades.get(change.student_id), comments.get(change.student_id)
        if grade is None or comment is None:
            raise GradebookError(f"the gradebook holds no written answer {grade_id!r} of {change.student_id!r} in "
                                 f"{assignment}/{notebook}")
        grade.manual_score = None if change.points is None else float(change.points)
        grade.needs_manual_grade = grade.manual_score is None and grade.auto_score is None
        comment.manual_comment = change.comment or None
        if grade.manual_score is not None:
            settled.append(change.student_id)
    if settled:
        table = _answers_table()
        gb.db.execute(table.update().where(
            (table.c.assignment == assignment) & (table.c.notebook == notebook) & (table.c.cell == grade_id)
            & table.c.student.in_(settled)).values(earlier=None))


def set_marks(gb, assignment, changes):
    """Write each :class:`MarkChange` of ``assignment`` to the gradebook, all in one transaction or none.

    The caller has checked each change (the student and question exist, the
    points are within the maximum); a change that names what the gradebook
    does not hold raises :class:`GradebookError` and nothing is written
    (:func:`stage_mark` says what a change does).
    """
    session = gb.db
    try:
        for change in changes:
            stage_mark(gb, assignment, change)
        session.commit()
    except BaseException:
        session.rollback()
        raise


def begin_write(gb):
    """Start a transaction that holds the gradebook's write lock from its first statement.

    SQLite starts a transaction only at its first write, so what it read
    before could change under it; a check-then-write (the marking page's
    refusal of a mark someone else changed) begins here instead, and
    whatever it reads stays as read until it commits or rolls back.  Another
    process (a second marking server) waits for the lock, up to SQLite's
    timeout.
    """
    session = gb.db
    session.rollback()
    session.connection().exec_driver_sql("BEGIN IMMEDIATE")


@dataclass(frozen=True)
class RubricItem:
    """One item of a question's rubric: its id, its place in the rubric (from 1), its points and its text (both
    reach the students it is applied to), and a note for the markers only (never sent to a student)."""

    id: int
    notebook: str
    grade_id: str
    position: int
    points: float
    text: str
    note: str = ""


@dataclass(frozen=True)
class PageRecord:
    """What the marking page recorded of one answer's mark: who, when, the rubric items applied and the
    adjustment, and the answer's checksum and the points as the page left them."""

    marker: str
    marked_at: str
    checksum: str
    points: float
    adjustment: float = None
    items: tuple = ()  # RubricItem, in the rubric's order
    note: str = ""  # the marker's note for the other markers, never sent to the student

    def describes(self, checksum, points):
        """Whether this record is of the mark the answer has now: the same answer, the same points."""
        import math

        if checksum != self.checksum or (points is None) != (self.points is None):
            return False
        return points is None or math.isclose(points, self.points, rel_tol=1e-9, abs_tol=1e-9)


def rubric_items(gb, assignment, notebook=None, grade_id=None):
    """The rubric items of ``assignment`` (or of one question), in each question's order."""
    rubric, _, _ = page_tables()
    query = rubric.select().where(rubric.c.assignment == assignment)
    if notebook is not None:
        query = query.where((rubric.c.notebook == notebook) & (rubric.c.cell == grade_id))
    rows = gb.db.execute(query.order_by(rubric.c.notebook, rubric.c.cell, rubric.c.position, rubric.c.id))
    return [RubricItem(row.id, row.notebook, row.cell, row.position, row.points, row.text, row.note or "")
            for row in rows]


def page_records(gb, assignment, student_id=None):
    """``{(student_id, notebook, grade_id): PageRecord}``: what the marking page recorded of each mark."""
    rubric, applied, markers = page_tables()
    items = {item.id: item for item in rubric_items(gb, assignment)}
    query = markers.select().where(markers.c.assignment == assignment)
    uses = applied.select().where(applied.c.assignment == assignment)
    if student_id is not None:
        query = query.where(_of_students(markers.c.student, student_id))
        uses = uses.where(_of_students(applied.c.student, student_id))
    chosen = {}
    for row in gb.db.execute(uses):
        if row.item in items:
            chosen.setdefault((row.student, row.notebook, row.cell), []).append(items[row.item])
    order = lambda item: (item.position, item.id)
    return {(row.student, row.notebook, row.cell):
            PageRecord(row.marker, row.marked_at, row.checksum, row.points, row.adjustment,
                       tuple(sorted(chosen.get((row.student, row.notebook, row.cell), ()), key=order)), row.note or "")
            for row in gb.db.execute(query)}


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
