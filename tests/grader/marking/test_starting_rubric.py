"""The starting rubric going into the gradebook when ``python -m autograder mark`` starts the marking page.

On a copy of the released course (no submissions needed): the first start loads ps2's starting rubric for
both written questions, items, points and notes as the file has them, and says so naming the questions as
the notebook does; a later start loads nothing; a question whose rubric the TAs began themselves is never
filled, not even once they have emptied it; a file that names a question the assignment does not have, or
whose items cannot mark their question, changes nothing and is named; ``--no-starting-rubric`` leaves every
rubric as it is.
"""

import socket

import pytest

from autograder.commands.mark import main as mark
from autograder.commands.mark import starting_rubric
from autograder.course import assignments
from autograder.course.rubric import Item, parts
from autograder.marking.rubrics import add_item, delete_item
from autograder.marking.starting_rubric import load_starting_rubric
from autograder.outputs.gradebook import open_gradebook, rubric_items
from tests.support.released import copy_course

A = "ps2_online_perceptron"
D1, D2 = "written_online_batch", "written_order"
SOURCE = f"autograder/course/assignments/{A}/rubric.py"


@pytest.fixture
def course(released_course, tmp_path):
    return str(copy_course(released_course, tmp_path / "course"))


def rubric_of(course, grade_id):
    gb = open_gradebook(course)
    try:
        return [(item.position, item.points, item.text, item.note) for item in rubric_items(gb, A, A, grade_id)]
    finally:
        gb.close()


def as_in_the_file(grade_id):
    return [(position, float(item.points), item.text, item.note)
            for position, item in enumerate(assignments.load_rubric(A)[grade_id].items, start=1)]


def test_the_first_start_loads_every_question_s_starting_rubric_and_a_later_one_nothing(course):
    said, warnings = starting_rubric(course, A)
    assert warnings == []
    d1, d2 = (len(assignments.load_rubric(A)[gid].items) for gid in (D1, D2))
    assert said == [f"Loaded the starting rubric of {SOURCE} into the gradebook: D1 ({d1} items), D2 ({d2} items). "
                    "From now on each is the TAs' rubric, to change on the page; this file is not read again for "
                    "those questions."]
    assert rubric_of(course, D1) == as_in_the_file(D1) and rubric_of(course, D2) == as_in_the_file(D2)
    assert any(note for _, _, _, note in rubric_of(course, D1)), "the notes for markers come along"

    said, warnings = starting_rubric(course, A)
    assert warnings == [] and said == [
        f"Rubrics left as they are ({SOURCE} fills only one that was never the TAs'): D1 (loaded before, the TAs' "
        "since), D2 (loaded before, the TAs' since)."]
    assert rubric_of(course, D1) == as_in_the_file(D1), "nothing loaded twice"


def test_a_rubric_the_tas_began_is_never_filled_not_even_once_emptied(course):
    gb = open_gradebook(course)
    try:
        own = add_item(gb, A, notebook=A, grade_id=D1, max_points=2.0, points=2.0, text="Our own rubric")
    finally:
        gb.close()
    said, _ = starting_rubric(course, A)
    assert said[0].startswith(f"Loaded the starting rubric of {SOURCE} into the gradebook: D2 (")
    assert said[1] == (f"Rubrics left as they are ({SOURCE} fills only one that was never the TAs'): D1 (the TAs "
                       "had a rubric already).")
    assert rubric_of(course, D1) == [(1, 2.0, "Our own rubric", "")]

    gb = open_gradebook(course)
    try:
        delete_item(gb, A, own.id)
    finally:
        gb.close()
    starting_rubric(course, A)
    assert rubric_of(course, D1) == [], "an emptied rubric is the TAs' too"
    assert rubric_of(course, D2) == as_in_the_file(D2)


def test_a_rubric_for_another_question_or_that_cannot_mark_its_own_changes_nothing(course):
    gb = open_gradebook(course)
    try:
        outcome = load_starting_rubric(gb, A, {"written_elsewhere": parts(Item(2, "All")),
                                               D1: parts(Item(1, "Half of it"))}, source="rubric.py")
    finally:
        gb.close()
    assert outcome.unknown == ["written_elsewhere"] and outcome.loaded == [] and outcome.kept == []
    assert outcome.refused == [(D1, ["its parts add up to 1, not to the question's 2 points"])]
    assert rubric_of(course, D1) == [] and rubric_of(course, D2) == []


def test_the_command_loads_it_before_it_serves_unless_told_not_to(course, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = str(taken.getsockname()[1])
        # The port is taken, so the page never starts; the rubric is loaded before that.
        assert mark([A, "--course-dir", course, "--port", port, "--no-starting-rubric"]) == 2
        assert "Loaded the starting rubric" not in capsys.readouterr().out
        assert rubric_of(course, D1) == []
        assert mark([A, "--course-dir", course, "--port", port]) == 2
    out = capsys.readouterr().out
    assert f"Loaded the starting rubric of {SOURCE} into the gradebook: D1 (" in out
    assert rubric_of(course, D1) == as_in_the_file(D1)
