"""The marking CSV and booklet (:mod:`autograder.marking`), read back as a TA's spreadsheet would save them.

The answers are records built here, so no gradebook is needed: a sheet is
written, edited as a TA edits it (points, comments, a saved copy from a
spreadsheet with its byte-order mark and CRLF line ends), and read back.
Every row a TA can get wrong must be named in a problem, and a file with
any problem must ask for no change at all; a file read back unedited asks
for none either.  The booklet is one self-contained, escaped page.
"""

import csv
import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.judging.integrity import answer_checksum
from autograder.marking.answers import Answer, Question, short_checksum
from autograder.marking.booklet import booklet_html
from autograder.marking.sheet import COLUMNS, read_sheet, sheet_text
from autograder.outputs.gradebook import EarlierMark, MarkChange, WrittenMark

A = "ps2_online_perceptron"
D1 = Question(A, "written_online_batch", 2.0, "**Question D1 (2 points).** Online or batch?", "Online: ...")
D2 = Question(A, "written_order", 2.0, "**Question D2 (2 points).** Does the order matter?", "Yes: ...")


def answer(student, question, text, *, points=None, comment="", earlier=None, name=""):
    blank = text is None
    mark = WrittenMark(A, question.grade_id, question.max_points, points=0.0 if blank and points is None else points,
                       comment=comment, blank=blank, checksum=None if blank else answer_checksum(text),
                       earlier=earlier)
    return Answer(student, name, question, text or "", mark)


@pytest.fixture
def answers():
    return [answer("ada", D1, "Online: the learner predicts, then sees the label.", name="Ada Lovelace"),
            answer("bob", D1, None, name="Bob"),
            answer("cy", D1, "=SUM(A1) is not an answer", points=0.5, comment="-1.5: see the notes"),
            answer("ada", D2, "Yes: $w$ changes.", earlier=EarlierMark(1.5, None, "Old comment.",
                                                                       answer_checksum("No."), "2025-02-01")),
            answer("bob", D2, None, name="Bob"),
            answer("cy", D2, "It depends on $\\eta$.")]


def rows_of(text):
    return list(csv.DictReader(io.StringIO(text.lstrip("\ufeff"), newline="")))


def edited(text, changes, *, crlf=True):
    """``text`` after a TA filled in ``changes`` ({(student, question): {column: value}}) and saved it."""
    rows = rows_of(text)
    for row in rows:
        row.update(changes.get((row["student_id"], row["question"]), {}))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(COLUMNS), lineterminator="\r\n" if crlf else "\n")
    writer.writeheader()
    writer.writerows(rows)
    return ("\ufeff" + out.getvalue()).encode("utf-8")


def test_the_sheet_has_every_answer_with_its_state(answers):
    rows = rows_of(sheet_text(answers))
    assert list(rows[0]) == list(COLUMNS)
    assert [(r["student_id"], r["question"]) for r in rows] == [(a.student_id, a.question.grade_id) for a in answers]
    ada, bob, cy, ada2 = rows[0], rows[1], rows[2], rows[3]
    assert (ada["student_name"], ada["points"], ada["status"], ada["max_points"]) == \
        ("Ada Lovelace", "", "to mark", "2")
    assert (bob["answer"], bob["points"], bob["answer_checksum"]) == ("", "0", "blank")
    assert bob["status"].startswith("blank")
    assert cy["answer"] == "'=SUM(A1) is not an answer", "a cell a spreadsheet would run is quoted"
    assert (cy["points"], cy["comment"], cy["status"]) == ("0.5", "'-1.5: see the notes", "marked")
    assert (ada2["earlier_points"], ada2["earlier_comment"]) == ("1.5", "Old comment.")
    assert ada2["status"].startswith("to mark again")
    assert re.fullmatch("[a-p]{16}", ada["answer_checksum"]) and re.fullmatch("[a-p]{16}", ada["mark_checksum"])


def test_a_sheet_read_back_unedited_changes_nothing(answers):
    found = read_sheet(edited(sheet_text(answers), {}), answers, assignment=A)
    assert (found.problems, found.changes, found.unchanged) == ([], [], len(answers))


def test_the_marks_a_ta_filled_in_are_the_changes(answers):
    data = edited(sheet_text(answers), {
        ("ada", D1.grade_id): {"points": "2", "comment": "Clear."},
        ("bob", D1.grade_id): {"comment": "No answer: read section 2."},  # a blank answer keeps its 0
        ("cy", D1.grade_id): {"points": ""},  # the mark taken back
        ("ada", D2.grade_id): {"points": " 1.5 "},
        ("bob", D2.grade_id): {"points": "0.5"},
    })
    found = read_sheet(data, answers, assignment=A)
    assert found.problems == []
    assert found.changes == [
        MarkChange("ada", A, D1.grade_id, 2.0, "Clear."),
        MarkChange("bob", A, D1.grade_id, None, "No answer: read section 2."),
        MarkChange("cy", A, D1.grade_id, None, "-1.5: see the notes"),
        MarkChange("ada", A, D2.grade_id, 1.5, ""),
        MarkChange("bob", A, D2.grade_id, 0.5, ""),
    ]
    assert found.unchanged == 1


@pytest.mark.parametrize("changes, expected", [
    ({("zed", D1.grade_id): {}}, r"row \d \(student 'zed', question 'written_online_batch'\): the gradebook has no "
                                 r"submission of ps2_online_perceptron from student 'zed'"),
    ({("ada", D1.grade_id): {"question": "written_nothing"}},
     r"row 2 \(student 'ada', question 'written_nothing'\): ps2_online_perceptron has no written question "
     r"'written_nothing'; its written questions are written_online_batch, written_order"),
    ({("ada", D1.grade_id): {"points": "2.5"}}, r"row 2 .*: points 2.5 are more than the question's maximum of 2"),
    ({("ada", D1.grade_id): {"points": "-1"}}, r"row 2 .*: points -1 are negative; give a number from 0 to 2"),
    ({("ada", D1.grade_id): {"points": "1,5"}},
     r"row 2 .*: points '1,5' are not a number \(write the decimal mark as a point: 1.5\)"),
    ({("ada", D1.grade_id): {"points": "nan"}}, r"row 2 .*: points 'nan' are not a number"),
    ({("ada", D1.grade_id): {"points": "two"}}, r"row 2 .*: points 'two' are not a number; give a number from 0 to 2"),
    ({("ada", D1.grade_id): {"points": "2", "answer_checksum": "abcdefabcdefabcd"}},
     r"row 2 .*: the answer changed since the CSV was written"),
    ({("bob", D1.grade_id): {"answer_checksum": "abcdefabcdefabcd"}}, r"row 3 .*: the answer changed"),
])
def test_each_row_a_ta_got_wrong_is_named_and_nothing_changes(answers, changes, expected):
    text = sheet_text(answers)
    if ("zed", D1.grade_id) in changes:
        text += "zed,Zed,written_online_batch,An answer,2,1,,to mark,,,ps2_online_perceptron,blank,blank\r\n"
        changes = {}
    data = edited(text, {**changes, ("cy", D2.grade_id): {"points": "1"}})  # and one good row
    found = read_sheet(data, answers, assignment=A)
    assert len(found.problems) == 1 and re.fullmatch(expected + ".*", found.problems[0]), found.problems
    assert found.changes == [MarkChange("cy", A, D2.grade_id, 1.0, "")], "the good row is still read"


def test_a_row_twice_is_named(answers):
    text = sheet_text(answers)
    first = text.splitlines()[1]  # ada's first answer, whose text is one line
    assert first.startswith("ada,written_online_batch,") or first.startswith("ada,Ada Lovelace,written_online_batch,")
    data = edited(text + first + "\r\n", {})
    found = read_sheet(data, answers, assignment=A)
    assert found.problems == ["row 8 (student 'ada', question 'written_online_batch'): row 2 has this answer already; "
                              "keep one of the two rows"]


def test_a_mark_someone_changed_meanwhile_is_not_overwritten(answers):
    data = edited(sheet_text(answers), {("ada", D1.grade_id): {"points": "1"}, ("cy", D2.grade_id): {"comment": ""}})
    meanwhile = [answer("ada", D1, answers[0].text, points=2.0, comment="Marked in the formgrader.")] + answers[1:]
    found = read_sheet(data, meanwhile, assignment=A)
    assert len(found.problems) == 1
    assert found.problems[0].startswith("row 2 (student 'ada', question 'written_online_batch'): someone changed this "
                                        "mark in the gradebook since the CSV was written (it is now 2 points, "
                                        "comment 'Marked in the formgrader.')")
    # The same mark entered by both is no conflict.
    same = edited(sheet_text(answers), {("ada", D1.grade_id): {"points": "2", "comment": "Marked in the formgrader."}})
    assert read_sheet(same, meanwhile, assignment=A).problems == []


@pytest.mark.parametrize("data, expected", [
    (b"student_id,question,points\r\nada,written_order,1\r\n", "the header (row 1) has no column comment, "
                                                               "answer_checksum, mark_checksum"),
    (b"", "the file is empty"),
    ("student_id,question\n\u00e9".encode("latin-1"), "the file is not UTF-8 text"),
])
def test_a_file_that_is_not_a_marking_sheet_says_what_is_missing(answers, data, expected):
    found = read_sheet(data, answers, assignment=A)
    assert found.changes == [] and len(found.problems) == 1 and found.problems[0].startswith(expected)


def test_a_sheet_without_the_notebook_column_is_read(answers):
    rows = rows_of(sheet_text(answers))
    out = io.StringIO()
    columns = [c for c in COLUMNS if c != "notebook"]
    writer = csv.DictWriter(out, fieldnames=columns, extrasaction="ignore")
    writer.writeheader()
    writer.writerows(dict(r, points="2") if r["student_id"] == "ada" else r for r in rows)
    found = read_sheet(out.getvalue(), answers, assignment=A)
    assert found.problems == [] and [c.student_id for c in found.changes] == ["ada", "ada"]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400) | st.text(max_size=400).map(lambda t: ("student_id,question,points,comment,"
                                                                    "answer_checksum,mark_checksum\n" + t).encode()))
def test_any_file_gives_problems_or_changes_and_never_raises(data):
    items = [answer("ada", D1, "Text.")]
    found = read_sheet(data, items, assignment=A)
    assert all(isinstance(p, str) and p for p in found.problems)
    assert all(isinstance(c, MarkChange) and c.student_id == "ada" for c in found.changes)


def test_short_checksums_are_letters_a_spreadsheet_leaves_alone():
    assert short_checksum(None) == "blank"
    assert short_checksum("0123456789abcdef0123") == "abcdefghijklmnop"


def test_the_booklet_is_one_escaped_page_in_the_sheet_s_order(answers):
    hostile = answer("dan", D2, "<script>alert(1)</script> and $x^2$")
    page = booklet_html(A, [D1, D2], answers + [hostile])
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt; and $x^2$" in page
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "nothing is fetched"
    headings = re.findall(r"<h3>Row (\d+): (\w+)</h3>", page)
    assert headings == [("2", "ada"), ("3", "bob"), ("4", "cy"), ("5", "ada"), ("6", "bob"), ("7", "cy"),
                        ("8", "dan")], "each answer is headed by its row in the CSV"
    assert page.index("Online or batch?") < page.index("Online: ...") < page.index("Row 2: ada")
    assert page.count("No answer was written.") == 2
