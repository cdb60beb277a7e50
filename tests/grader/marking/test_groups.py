"""Answer groups and claims: which answers are one group, which are proposed as one, and what marking a group,
confirming, splitting and merging do; and how claims keep two TAs off one answer.

The first tests are fast and need no gradebook: the similarity's margin on students' texts
(:mod:`tests.support.answer_corpus`), the normal form, the grouping of rows, the claims file and the next
answer to mark.  The others mark a class with a study group (``study_class``) through the page's forms.
"""

import itertools
import re
from dataclasses import dataclass

import pytest

from autograder.marking import groups as grouping
from autograder.marking.claims import Claims
from autograder.marking.state import QuestionState
from tests.support import answer_corpus as corpus

# -- the measure, on students' texts --------------------------------------------------------------------


@pytest.mark.parametrize("copies, apart", [(corpus.D1_STUDY_GROUP, corpus.D1_APART),
                                           (corpus.D2_STUDY_GROUP, corpus.D2_APART)], ids=["D1", "D2"])
def test_the_threshold_sits_between_a_study_group_s_copies_and_answers_written_apart(copies, apart):
    together = [grouping.similarity(a, b) for a, b in itertools.combinations(copies, 2)]
    separate = [grouping.similarity(a, b) for a, b in itertools.combinations(apart + copies[:1], 2)]
    # The margins the module's docstring states: copies at 0.6 or more, answers apart at 0.3 or less.
    assert min(together) >= 0.6 > grouping.PROPOSE_AT > 0.3 >= max(separate), (min(together), max(separate))


def test_formatting_case_and_spacing_are_set_aside_and_nothing_else():
    text = "The perceptron **updates** on a _mistake_,\n\n- and only then."
    assert grouping.normal_form(text) == "the perceptron updates on a mistake, and only then."
    assert grouping.same_key(text) == grouping.same_key("THE PERCEPTRON UPDATES   on a mistake, and only then.")
    assert grouping.same_key(text) != grouping.same_key("The perceptron updates on a mistake and only then.")
    assert grouping.same_key("  \n ") == grouping.BLANK
    assert grouping.same_key("$\\frac{1}{2}$") != grouping.same_key("$\\frac12$"), "LaTeX is kept as written"


@dataclass
class FakeMark:
    checksum: str = None
    blank: bool = False
    points: float = None

    @property
    def marked(self):
        return self.points is not None


@dataclass
class FakeRow:
    student_id: str
    position: int
    mark: FakeMark

    @property
    def done(self):
        return self.mark.marked


def rows_of(texts):
    return [FakeRow(student, position, FakeMark(checksum=None if not text else f"c-{student}", blank=not text))
            for position, (student, text) in enumerate(texts.items(), start=1)]


TEXTS = {"ada": corpus.D1_STUDY_GROUP[0], "ben": corpus.D1_STUDY_GROUP[1], "cleo": corpus.D1_APART[0],
         "dev": corpus.D1_STUDY_GROUP[3], "eli": corpus.D1_APART[1], "fay": "**" + corpus.D1_APART[1].upper() + "**",
         "gus": "", "hal": "", "ivy": corpus.D1_STUDY_GROUP[2]}


def test_groups_come_largest_first_with_the_same_answers_proposals_and_blanks_apart():
    rows = rows_of(TEXTS)
    found = grouping.find_groups(rows, TEXTS, {})
    members = [(group.kind, [row.student_id for row in group.rows]) for group in found]
    assert members == [("proposed", ["ada", "ben", "dev", "ivy"]), ("same", ["eli", "fay"]), ("same", ["cleo"]),
                       ("blank", ["gus", "hal"])]
    proposed = found[0]
    assert set(proposed.scores) == {"ben", "dev", "ivy"} and min(proposed.scores.values()) >= grouping.PROPOSE_AT
    assert [group.number for group in found] == [1, 2, 3, 4]


def test_a_decision_holds_for_the_answer_it_was_made_for_only():
    rows = rows_of(TEXTS)
    keep_apart = {"ben": (grouping.same_key(TEXTS["ben"]), "c-ben"), "ada": (grouping.same_key(TEXTS["ada"]), "c-ada"),
                  "dev": (grouping.same_key(TEXTS["dev"]), "c-dev"), "ivy": (grouping.same_key(TEXTS["ivy"]), "c-ivy")}
    found = grouping.find_groups(rows, TEXTS, keep_apart)
    assert not any(group.kind == "proposed" for group in found), "answers kept apart are not proposed again"
    # Ben resubmits: the decision was for his earlier answer, so he is proposed afresh.
    rows[1].mark.checksum = "c-ben-2"
    found = grouping.find_groups(rows, TEXTS, keep_apart)
    assert [g.kind for g in found if "ben" in [r.student_id for r in g.rows]] == ["same"]
    merged = {"cleo": ("own-x", "c-cleo"), "eli": ("own-x", "c-eli")}
    found = grouping.find_groups(rows_of(TEXTS), TEXTS, merged)
    assert [sorted(r.student_id for r in g.rows) for g in found if g.key == "own-x"] == [["cleo", "eli"]]


def test_a_thousand_answers_are_grouped_and_every_proposed_pair_is_scored_exactly():
    texts = {f"s{i:04d}": f"answer number {i} says {'yes' if i % 2 else 'no'} because of reason {i * 7919 % 1000}"
             for i in range(1000)}
    texts.update({f"g{i}": corpus.D2_STUDY_GROUP[i % 4] for i in range(12)})
    found = grouping.find_groups(rows_of(texts), texts, {})
    group = next(g for g in found if any(r.student_id == "g0" for r in g.rows))
    assert {r.student_id for r in group.rows} >= {f"g{i}" for i in range(12)}
    for g in found:
        seed = texts[g.rows[0].student_id]
        for student, score in g.scores.items():
            assert score == pytest.approx(grouping.similarity(seed, texts[student])) and score >= grouping.PROPOSE_AT


# -- claims and the next answer ----------------------------------------------------------------------------

class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_claims_keep_a_second_marker_off_an_open_answer_until_it_expires(tmp_path):
    clock = Clock()
    claims = Claims(str(tmp_path), clock=clock)
    try:
        assert claims.hold("a", "nb", "q", ["ada"], session="s1", marker="Tess") == ["ada"]
        assert claims.hold("a", "nb", "q", ["ada", "ben"], session="s2", marker="Grace") == ["ben"]
        live = claims.live("a", "nb", "q")
        assert {s: c.marker for s, c in live.items()} == {"ada": "Tess", "ben": "Grace"}
        assert claims.hold("a", "nb", "q", ["cleo"], session="s1", marker="Tess") == ["cleo"]
        assert "ada" not in claims.live("a", "nb", "q"), "opening another answer gives up the first"
        clock.now += 200
        assert claims.renew("a", session="s2") == 1
        clock.now += 200
        assert set(claims.live("a", "nb", "q")) == {"ben"}, "an unrenewed claim expires, a renewed one lives on"
        claims.give_up("a", session="s2")
        assert claims.live("a", "nb", "q") == {}
        assert (tmp_path / ".autograder" / "marking-claims.sqlite").stat().st_mode & 0o777 == 0o600
    finally:
        claims.close()


def test_leaving_a_page_gives_up_only_what_that_page_holds_so_a_reload_keeps_its_claim(tmp_path):
    """A reload claims the answer again for the new page, and the old page's leaving may reach the server after:
    it gives up the old page's claims, not the new one's."""
    claims = Claims(str(tmp_path), clock=Clock())
    try:
        claims.hold("a", "nb", "q", ["ada"], session="s1", marker="Tess", page="first")
        claims.hold("a", "nb", "q", ["ada"], session="s1", marker="Tess", page="reloaded")
        claims.give_up("a", session="s1", page="first")
        assert {s: c.page for s, c in claims.live("a", "nb", "q").items()} == {"ada": "reloaded"}
        claims.give_up("a", session="s1", page="reloaded")
        assert claims.live("a", "nb", "q") == {}
    finally:
        claims.close()


def test_claims_are_a_sessions_so_two_markers_of_one_name_are_still_kept_apart(tmp_path):
    """Names are typed (or one --ta for everyone on a server): two sessions of one name hold their answers apart,
    and one opening another answer gives up only its own."""
    claims = Claims(str(tmp_path), clock=Clock())
    try:
        assert claims.hold("a", "nb", "q", ["ada"], session="s1", marker="Staff") == ["ada"]
        assert claims.hold("a", "nb", "q", ["ben"], session="s2", marker="Staff") == ["ben"]
        assert claims.hold("a", "nb", "q", ["ada"], session="s2", marker="Staff") == [], "s1 still has ada open"
        assert {s: c.session for s, c in claims.live("a", "nb", "q").items()} == {"ada": "s1"}
        assert claims.renew("a", session="s1") == 1
    finally:
        claims.close()


def test_an_earlier_versions_claims_table_is_left_to_it(tmp_path):
    """A course's servers are upgraded one by one: a server of the version before (whose table has no pages) keeps
    its table and its claims, and this version keeps its own beside it."""
    import sqlite3

    folder = tmp_path / ".autograder"
    folder.mkdir()
    old = sqlite3.connect(folder / "marking-claims.sqlite")
    old.execute("CREATE TABLE claims (assignment TEXT NOT NULL, notebook TEXT NOT NULL, cell TEXT NOT NULL, "
                "student TEXT NOT NULL, session TEXT NOT NULL, marker TEXT NOT NULL, until REAL NOT NULL, "
                "PRIMARY KEY (assignment, notebook, cell, student))")
    old.execute("INSERT INTO claims VALUES ('a', 'nb', 'q', 'ada', 's0', 'Grace', 5000.0)")
    old.commit()
    claims = Claims(str(tmp_path), clock=Clock())
    try:
        assert claims.hold("a", "nb", "q", ["ada"], session="s1", marker="Tess", page="p") == ["ada"]
        old.execute("INSERT OR REPLACE INTO claims VALUES ('a', 'nb', 'q', 'ben', 's0', 'Grace', 5000.0)")
        old.commit()
        assert old.execute("SELECT student FROM claims ORDER BY student").fetchall() == [("ada",), ("ben",)]
    finally:
        claims.close()
        old.close()


def test_the_next_to_mark_passes_over_answers_others_have_open_and_stays_in_a_share():
    question = QuestionState(question=None, rows=rows_of({f"s{i}": f"text {i}" for i in range(1, 11)}))
    first = question.next_to_mark(taken={"s1", "s2"})
    assert first.student_id == "s3"
    assert [row.student_id for row in question.share(2, 3)] == ["s4", "s5", "s6"]
    assert question.next_to_mark(share=(2, 3)).student_id == "s4"
    assert question.next_to_mark(question.rows[5], share=(2, 3)).student_id == "s4", "goes round within the share"
    for row in question.rows:
        row.mark.points = 1.0
    assert question.next_to_mark() is None


# -- through the page --------------------------------------------------------------------------------------


@pytest.fixture
def study(study_class, tmp_path):
    from tests.support.released import copy_course

    return copy_course(study_class / "course", tmp_path / "course")


@pytest.fixture
def study_app(study):
    from autograder.marking.web import Marking, create_app, find_mathjax

    from tests.grader.marking.test_web import TOKEN

    marking = Marking(study, "ps2_online_perceptron", token=TOKEN, mathjax=find_mathjax())
    yield create_app(marking)
    marking.close()


def _group_paths(page):
    return re.findall(r'href="(/q/[^"]+/g/[^"#]+)">Group (\d+)</a>', page)


@pytest.mark.slow
def test_a_ta_confirms_a_study_group_marks_it_once_and_each_member_gets_the_mark(study_app, study):
    from tests.grader.marking.test_web import TA, Forms, as_data
    from tests.support.marking_class import A, D1, STUDY_GROUP, marks_of

    tess = TA(study_app, "Tess")
    assert tess.add_item("2", "Online judged by mistakes, batch by error on new data", D1).status_code == 200
    assert tess.add_item("0", "Good: you named both ways of judging", D1).status_code == 200
    page = tess.open(f"/q/{A}/{D1}")
    groups = _group_paths(page)
    assert [number for _, number in groups][:2] == ["1", "2"]
    first = tess.open(groups[0][0])
    assert "Proposed:" in first
    assert len(re.findall(r'name="member"', first)) == 4
    scores = [int(s) for s in re.findall(r'<td class="num">(\d+)%</td>', first)]
    assert len(scores) == 3 and min(scores) >= 50, "each proposed member shows its similarity"

    forms = Forms(first)
    decide = forms.form(groups[0][0] + "/decide")
    confirmed = tess.client.post(groups[0][0] + "/decide", data={**as_data(decide["fields"]), "action": "confirm"})
    assert "Confirmed group 1: its 4 answers are one group." in confirmed.text

    page = tess.open(groups[0][0])
    form = Forms(page).form(groups[0][0])
    fields = as_data(form["fields"])
    item_ids = re.findall(r'name="item" value="(\d+)"', page)
    saved = tess.client.post(groups[0][0], data={**fields, "item": item_ids, "comment": "Well argued."})
    assert "Marked group 1 (4 answers): 2 / 2; 4 marks changed." in saved.text
    got = marks_of(study, D1)
    assert {student: got[student][:2] for student in STUDY_GROUP} == {s: (2.0, "Well argued.") for s in STUDY_GROUP}
    assert all(got[s][3] == ("Online judged by mistakes, batch by error on new data",
                             "Good: you named both ways of judging") for s in STUDY_GROUP)
    assert all(got[s][0] is None for s in got if s not in STUDY_GROUP and got[s][0] != 0.0), \
        "nobody outside the group was marked"

    # A member can still be marked alone afterwards, and the group's page then says which answers have marks of
    # their own (here all four, since they no longer agree).
    tess.mark(STUDY_GROUP[1], D1, points="1", comment="Half.")
    assert marks_of(study, D1)[STUDY_GROUP[1]][:2] == (1.0, "Half.")
    assert "4 of its answers have marks of their own already" in tess.open(groups[0][0])


@pytest.mark.slow
def test_a_group_save_keeps_a_mark_given_alone_unless_the_ta_asks_to_replace_it(study_app, study):
    """Omar marks one answer of a group alone; Tess marks the group. The form did not show Omar's mark, so the
    group's page names it, and her save marks the others and leaves his, unless she ticks to replace it."""
    from tests.grader.marking.test_web import TA, Forms, as_data
    from tests.support.marking_class import A, D1, SAME_PAIR, marks_of

    tess, omar = TA(study_app, "Tess"), TA(study_app, "Omar")
    path = next(p for p, _ in _group_paths(tess.open(f"/q/{A}/{D1}")) if "the same once formatting" in tess.open(p))
    omar.mark(SAME_PAIR[0], D1, points="1", comment="See me about the bonus question.")
    page = tess.open(path)
    assert "1 of its answers has a mark of its own already" in page
    assert re.search(r"Answer \d+: 1 / 2, by Omar, with the comment: See me about the bonus question\.", page)
    form = as_data(Forms(page).form(path)["fields"])
    assert "replace" not in form, "replacing a mark given alone is never the default"
    saved = tess.client.post(path, data={**form, "points": "2", "comment": "Both settings, clearly."})
    assert re.search(r"Marked group \d+ \(1 of its 2 answers\): 2 / 2; 1 mark changed\. "
                     r"Answer \d+ kept its own mark \(1 / 2 by Omar\)\.", saved.text), saved.text
    got = marks_of(study, D1)
    assert got[SAME_PAIR[0]][:2] == (1.0, "See me about the bonus question.")
    assert got[SAME_PAIR[1]][:2] == (2.0, "Both settings, clearly.")

    # Every answer has a mark of its own now: a save without the tick saves nothing and says why.
    form = as_data(Forms(tess.open(path)).form(path)["fields"])
    refused = tess.client.post(path, data={**form, "points": "2", "comment": "Both settings, clearly."})
    assert refused.status_code == 400 and "nothing was saved" in refused.text
    assert marks_of(study, D1) == got
    replaced = tess.client.post(path, data={**form, "points": "2", "comment": "Both settings, clearly.",
                                            "replace": "yes"})
    assert re.search(r"Marked group \d+ \(2 answers\): 2 / 2; 1 mark changed\.", replaced.text), replaced.text
    assert marks_of(study, D1)[SAME_PAIR[0]][:2] == (2.0, "Both settings, clearly.")


@pytest.mark.slow
def test_a_group_save_over_a_member_someone_changed_saves_nothing(study_app, study):
    from tests.grader.marking.test_web import TA, Forms, as_data
    from tests.support.marking_class import A, D1, SAME_PAIR, marks_of

    tess, grace = TA(study_app, "Tess"), TA(study_app, "Grace")
    path = next(p for p, _ in _group_paths(tess.open(f"/q/{A}/{D1}")) if "the same once formatting" in tess.open(p))
    form = as_data(Forms(tess.open(path)).form(path)["fields"])
    grace.mark(SAME_PAIR[0], D1, points="1", comment="Grace's mark.")
    refused = tess.client.post(path, data={**form, "points": "2", "comment": "Tess's mark."})
    assert refused.status_code == 409 and "nothing was saved" in refused.text
    got = marks_of(study, D1)
    assert got[SAME_PAIR[0]][:2] == (1.0, "Grace's mark.") and got[SAME_PAIR[1]][0] is None


@pytest.mark.slow
def test_two_tas_pressing_the_next_to_mark_never_land_on_the_same_answer(study_app):
    from tests.grader.marking.test_web import TA
    from tests.support.marking_class import A, D1

    tess, grace = TA(study_app, "Tess"), TA(study_app, "Grace")
    seen = []
    for _ in range(4):
        for ta in (tess, grace):
            ta.last = ta.client.get(f"/q/{A}/{D1}/next")
            seen.append((ta, ta.last.url.path))
    for (ta_a, path_a), (ta_b, path_b) in zip(seen[::2], seen[1::2]):
        assert path_a != path_b, "two TAs were sent to one answer"
    tess_answer = re.search(r"answer (\d+) of", tess.open(seen[-2][1])).group(1)
    assert f"Also marking D1: Tess (answer {tess_answer})" in grace.open(seen[-1][1])


@pytest.mark.slow
def test_an_empty_points_field_on_a_marked_answer_asks_before_unmarking(study_app, study):
    from tests.grader.marking.test_web import TA
    from tests.support.marking_class import D1, marks_of

    tess = TA(study_app, "Tess")
    tess.mark("gus", D1, points="1.5", comment="Fine.")
    opened = tess.opened("gus", D1)
    asked = tess.save(opened, points="", comment="Fine.")
    assert asked.status_code == 409 and "takes this answer's mark of 1.5 away" in asked.text
    assert marks_of(study, D1)["gus"][0] == 1.5
    fields = opened["fields"]
    unmarked = tess.client.post(asked.url.path, data={"csrf": fields["csrf"], "version": fields["version"],
                                                      "answer": fields["answer"], "points": "", "comment": "",
                                                      "unmark": "yes", "go": "stay"})
    assert unmarked.status_code == 200 and "is unmarked now" in unmarked.text
    assert marks_of(study, D1)["gus"][0] is None


@pytest.mark.slow
def test_a_group_one_ta_has_open_is_not_the_next_group_of_another(study_app):
    from tests.grader.marking.test_web import TA
    from tests.support.marking_class import A, D1

    tess, grace = TA(study_app, "Tess"), TA(study_app, "Grace")
    first = re.search(r'href="([^"]+)" id="group-link"', tess.open(f"/q/{A}/{D1}")).group(1)
    tess.open(first)
    second = re.search(r'href="([^"]+)" id="group-link"', grace.open(f"/q/{A}/{D1}")).group(1)
    assert second != first, "Grace is sent to the group Tess is not marking"
    assert "Also marking D1: Tess" in grace.last.text
