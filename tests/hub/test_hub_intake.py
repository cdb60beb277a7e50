"""The instructor's side of the exchange, in process: the hub's submissions as a download, and the feedback back.

The exchange runs in this process (conftest.py); grading itself is tested on
a real hub in test_hub_real.py.
"""

import os

import nbformat

from autograder.commands.audit import Recipients, collect_secrets
from autograder.commands.export import feedback_to_return
from autograder.intake import hub
from autograder.intake.submissions import collect_batch
from perceptron_course.hub.transfer import File
from tests.support import COURSE

NOTEBOOK = nbformat.writes(nbformat.v4.new_notebook()).encode()


def test_every_submission_comes_down_with_the_exchanges_time_and_the_latest_is_graded(exchange, tmp_path):
    ian = exchange.client("ian")
    ian.release("perceptron", "ps1_hyperplanes", [File("ps1_hyperplanes.ipynb", NOTEBOOK)])
    first = exchange.client("ann").submit("perceptron", "ps1_hyperplanes", [File("ps1_hyperplanes.ipynb", NOTEBOOK)])
    latest = exchange.client("ann").submit("perceptron", "ps1_hyperplanes", [File("ps1_hyperplanes.ipynb", NOTEBOOK)])
    exchange.client("bob").submit("perceptron", "ps1_hyperplanes", [File("ps1_hyperplanes.ipynb", NOTEBOOK),
                                                                    File("data/extra.csv", b"1\n")])
    folder = tmp_path / "download"
    folder.mkdir()
    assert hub.download("perceptron", "ps1_hyperplanes", str(folder), client=ian) == 3
    roster = hub.roster("perceptron", client=ian)
    assert [s.student_id for s in roster] == ["ann", "bob"]
    batch = collect_batch(str(folder), "ps1_hyperplanes", str(tmp_path / "work"), roster=roster)
    by_id = {s.student_id: s for s in batch.submissions}
    assert sorted(by_id) == ["ann", "bob"]
    assert by_id["ann"].lms == "hub" and by_id["ann"].submitted_at == latest["timestamp"]
    assert by_id["ann"].route.name == "perceptron" and by_id["ann"].route.key == f"ann/{latest['stamp']}"
    assert [s.kind for s in batch.skipped if first["stamp"] in s.name] == ["superseded"]
    assert any("JupyterHub" in note for note in batch.notes)


def test_feedback_goes_back_to_the_submission_it_was_made_from(exchange):
    ian = exchange.client("ian")
    ian.release("perceptron", "ps1_hyperplanes", [File("ps1_hyperplanes.ipynb", NOTEBOOK)])
    record = exchange.client("ann").submit("perceptron", "ps1_hyperplanes", [File("ps1_hyperplanes.ipynb", NOTEBOOK)])
    from autograder.intake.lms import FeedbackRoute

    route = FeedbackRoute("hub", "perceptron", f"ann/{record['stamp']}")
    assert hub.return_feedback("ps1_hyperplanes", [(route, "<p>Total: 9 / 14</p>")], client=ian) == 1
    assert hub.return_feedback("ps1_hyperplanes", [(route, "<p>Total: 9 / 14</p>")], client=ian) == 1
    (page,) = exchange.client("ann").feedback_files("perceptron", "ps1_hyperplanes", "ann", record["stamp"])
    assert page.path == "ps1_hyperplanes.html" and page.data == b"<p>Total: 9 / 14</p>"


def test_a_feedback_page_the_leak_audit_finds_a_secret_in_is_held_back_and_the_others_go():
    secrets = collect_secrets(course_dir=COURSE)
    source = nbformat.read(os.path.join(COURSE, "source", "ps1_hyperplanes", "ps1_hyperplanes.ipynb"), as_version=4)
    # A sentence of a written question's model answer, which no student may read.
    model_answer = next(cell.source for cell in source.cells if cell.cell_type == "markdown"
                        and cell.metadata.get("nbgrader", {}).get("solution"))
    secret_line = max(model_answer.splitlines(), key=len)
    pages = [("ann", "route-a", "<p>Total: 9 / 14</p>"),
             ("bob", "route-b", f"<p>Total: 3 / 14</p>\n<pre>\n{secret_line}\n</pre>\n")]
    ready, held = feedback_to_return(pages, secrets, Recipients({"ann": "ann", "bob": "bob"}, {}, {}, ()))
    assert ready == [("route-a", "<p>Total: 9 / 14</p>")]
    assert [student for student, _ in held] == ["bob"] and held[0][1]
