"""The one reader of nbgrader's cell metadata (``perceptron_course.cells``), on notebooks written by hand."""

from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from perceptron_course.cells import grade_cells, grade_id, grade_points, is_solution, is_test_cell


def graded(cell, **nbgrader):
    cell.metadata["nbgrader"] = {"schema_version": 3, "solution": False, "grade": False, "locked": False,
                                 "task": False, **nbgrader}
    return cell


def test_grade_cells_count_points_as_nbgrader_does():
    notebook = new_notebook(cells=[
        new_markdown_cell("# Problem set"),
        graded(new_code_cell("def f(x): ..."), grade_id="f", solution=True),
        graded(new_code_cell("assert f(1) == 2"), grade_id="test_f", grade=True, locked=True, points=3),
        graded(new_markdown_cell("Explain."), grade_id="why", solution=True, grade=True, points=2),
        graded(new_markdown_cell("Draw it."), grade_id="drawing", task=True, locked=True, points=1.5),
        graded(new_code_cell("assert True"), grade_id="test_free", grade=True, locked=True),
        new_code_cell("print('not graded')"),
    ])
    assert grade_cells(notebook) == ([("test_f", 3.0), ("test_free", 0.0)], [("why", 2.0), ("drawing", 1.5)])
    assert grade_points(notebook) == (3.0, 3.5)
    assert [grade_id(c) for c in notebook.cells if is_test_cell(c)] == ["test_f", "test_free"]
    assert [grade_id(c) for c in notebook.cells if is_solution(c)] == ["f", "why"]


def test_grade_cells_of_what_is_not_a_notebook_are_empty():
    assert grade_cells({}) == grade_cells([]) == grade_cells({"cells": [None, 3, {"metadata": []}]}) == ([], [])
    assert grade_points({}) == (0, 0)


def test_a_written_question_is_named_as_the_notebook_names_it():
    from perceptron_course.cells import question_names

    notebook = new_notebook(cells=[
        new_markdown_cell("## Part D (4 points)\n\n**Question D1 (2 points).** Online or batch?"),
        new_code_cell("# Your experiments here (not graded)."),  # passed over
        graded(new_markdown_cell("YOUR ANSWER HERE"), grade_id="written_online_batch", solution=True, grade=True,
               points=2),
        new_markdown_cell("**Question D2 (2 points).** Does the order matter?"),
        graded(new_markdown_cell("YOUR ANSWER HERE"), grade_id="written_order", solution=True, grade=True, points=2),
        graded(new_code_cell("x = 1"), grade_id="read_only", locked=True),  # a locked cell ends what asks
        new_markdown_cell("No question is named here."),
        graded(new_markdown_cell("YOUR ANSWER HERE"), grade_id="written_unnamed", solution=True, grade=True),
    ])
    assert question_names(notebook) == {"written_online_batch": "D1", "written_order": "D2"}
    assert question_names({}) == question_names({"cells": [None, 3]}) == {}
