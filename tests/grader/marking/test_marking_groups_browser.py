"""Marking a class with a study group in headless Chromium, by keyboard: by groups, and one by one; two TAs at
once; a draft that outlives a rubric edit, a reload and leaving the page.

The class (``study_class``) has ten students: four who handed in near-copies of one answer, two whose
answers differ only in formatting, three who wrote their own, one blank.  A TA marks D1 by groups (the next
group with g, confirming a proposed group with y, ticking an item, a comment after c, saving with s) and D2
answer by answer (ticking an item, the same comment for each copy, s), giving each student the same mark
in both; every key pressed is counted, and the test states the ratio.  Then two TAs, each in a browser of
their own, press "Mark the next answer" in turn and never land on one answer.  axe-core and
HTML_CodeSniffer check the question's page with its groups, a group's page and an answer's page with the
student's notebook open, in light and dark.
"""

import re
import time

import httpx
import pytest

from autograder.marking.web import answer_key
from tests.support.browser import checker_findings, wait_until_rendered
from tests.support.marking_class import (A, D1, D2, SAME_PAIR, STUDY_CLASS, STUDY_GROUP, marks_of,
                                         save_as_another_ta, serve_marking)
from tests.support.released import copy_course

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

KEY_OF = {answer_key(A, student): student for student in STUDY_CLASS}
COMMENT = "Right: online learners are judged by their mistakes, batch learners by their error on new data."
COMMENT_D2 = "Right: each update depends on the weights so far, so the order changes them."


@pytest.fixture(scope="module")
def server(study_class, tmp_path_factory):
    course = copy_course(study_class / "course", tmp_path_factory.mktemp("marking-groups") / "course")
    yield from serve_marking(course)


class Keyboard:
    """A TA's keyboard: presses keys in the focused element and counts them (a string counts one per letter)."""

    def __init__(self, driver):
        self.driver = driver
        self.count = 0

    def press(self, *keys, navigates=False):
        from selenium.webdriver.common.action_chains import ActionChains

        self.count += sum(len(key) for key in keys)  # Selenium's special keys are one character each
        if navigates:
            self.driver.execute_script("window.__markingOld = true")
        ActionChains(self.driver).send_keys(*keys).perform()
        if navigates:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    if not self.driver.execute_script("return window.__markingOld === true"):
                        break
                except Exception:  # noqa: BLE001 - the page is between two documents
                    pass
                time.sleep(0.03)
            wait_until_rendered(self.driver)


def record_leaving(driver):
    """Record, in the browser's storage, whether the page asks before it is left (ChromeDriver answers such a
    question itself, so the test reads what the page's ``beforeunload`` said instead)."""
    driver.execute_script("localStorage.removeItem('test-asked'); window.addEventListener('beforeunload', (event) => "
                          "{ localStorage.setItem('test-asked', String(event.defaultPrevented)); });")


def asked_before_leaving(driver):
    return driver.execute_script("return localStorage.getItem('test-asked')") == "true"


def status(driver):
    return driver.execute_script("return document.getElementById('status').textContent.trim()")


def login(driver, address, name, base):
    """Open the page's address and give a name (through the page's own form, as a TA's first visit does)."""
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(address)
    driver.get(base + "/name?next=/")
    wait_until_rendered(driver)
    field = driver.find_element("id", "name")
    field.send_keys(name, Keys.ENTER)
    # Until the form's page has gone: a script started on it before the navigation would never answer.
    WebDriverWait(driver, 60).until(expected_conditions.staleness_of(field))
    wait_until_rendered(driver)


def rubric(base, address, question, items):
    """Add rubric items through the page's forms, outside the counted keys (the rubric is written once)."""
    with httpx.Client(base_url=base, follow_redirects=True, timeout=30) as client:
        client.get(address.replace(base, ""))
        for points, text in items:
            page = client.get(f"/q/{A}/{question}").text
            csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
            assert client.post(f"/q/{A}/{question}/rubric",
                               data={"csrf": csrf, "points": points, "text": text}).status_code == 200


def test_marking_by_groups_takes_a_fraction_of_the_keys_of_marking_one_by_one(marking_browser, server, axe_source,
                                                                              htmlcs_source, artifacts):
    driver, (course, address, _) = marking_browser, server
    base = address.split("/?")[0]
    for question in (D1, D2):
        rubric(base, address, question, [("2", "Complete and right"), ("1", "Half of it: one side only")])
    login(driver, address, "Tess", base)
    found = {}

    # D1 by groups.
    driver.get(base + f"/q/{A}/{D1}")
    wait_until_rendered(driver)
    keys = Keyboard(driver)
    for scheme in ("light", "dark"):
        _check(driver, axe_source, htmlcs_source, f"question-with-groups ({scheme})", found, artifacts, scheme)
    keys.press("g", navigates=True)
    assert "group 1, 4 answers" in driver.find_element("tag name", "h1").text
    keys.press("y", navigates=True)
    assert status(driver) == "Confirmed group 1: its 4 answers are one group."
    for scheme in ("light", "dark"):
        _check(driver, axe_source, htmlcs_source, f"group ({scheme})", found, artifacts, scheme)
    keys.press("1", "c", COMMENT, "\ue00c", "s", navigates=True)  # \ue00c: Escape
    assert status(driver) == "Marked group 1 (4 answers): 2 / 2; 4 marks changed. Group 2 is the next to mark.", \
        status(driver)
    assert "group 2, 2 answers" in driver.find_element("tag name", "h1").text, "on to the next group"
    keys.press("2", "s", navigates=True)
    assert status(driver).startswith("Marked group 2 (2 answers): 1 / 2"), status(driver)
    assert status(driver).endswith("No group of D1 is left to mark."), status(driver)
    keys.press("n", navigates=True)
    while "/a/" in driver.current_url:
        keys.press("2", "s", navigates=True)
    assert "Every answer in D1 is marked." in status(driver), status(driver)
    by_groups = keys.count

    # D2 one by one, the same marks: item 1 and the comment for each copy, item 2 for the others.
    driver.get(base + f"/q/{A}/{D2}")
    wait_until_rendered(driver)
    keys = Keyboard(driver)
    keys.press("n", navigates=True)
    while "/a/" in driver.current_url:
        student = KEY_OF[driver.current_url.rsplit("/", 1)[1]]
        if student in STUDY_GROUP:
            keys.press("1", "c", COMMENT, "\ue00c", "s", navigates=True)
        else:
            keys.press("2", "s", navigates=True)
    assert "Every answer in D2 is marked." in status(driver), status(driver)
    one_by_one = keys.count

    d1, d2 = marks_of(course, D1), marks_of(course, D2)
    assert {s: d1[s][:2] for s in STUDY_CLASS} == {s: d2[s][:2] for s in STUDY_CLASS}, "the same marks both ways"
    assert {s: d1[s][:2] for s in STUDY_GROUP} == {s: (2.0, COMMENT) for s in STUDY_GROUP}
    assert {d1[s][3] for s in SAME_PAIR} == {("Half of it: one side only",)}
    ratio = one_by_one / by_groups
    print(f"keys pressed to mark ten answers: {by_groups} by groups, {one_by_one} one by one (ratio {ratio:.1f})")
    # By groups the comment is typed once instead of four times; the other answers cost the same either way.
    assert ratio >= 2.5, (by_groups, one_by_one)
    assert not any(found.values()), found


def test_two_tas_pressing_the_next_to_mark_in_their_browsers_never_meet(marking_browser, server, tmp_path_factory):
    from tests.support.browser import chromium_driver

    driver, (course, address, _) = marking_browser, server
    base = address.split("/?")[0]
    grace = chromium_driver(tmp_path_factory.mktemp("chromium-grace"))
    try:
        login(driver, address, "Tess", base)
        login(grace, address, "Grace", base)
        # Two answers of D2 back to "to mark", so that both TAs have something to open.
        opened = []
        for _ in range(3):
            for browser in (driver, grace):
                browser.get(base + f"/q/{A}/{D1}/next")
                wait_until_rendered(browser)
                opened.append(browser.current_url)
            tess_at, grace_at = opened[-2], opened[-1]
            if "/a/" in tess_at and "/a/" in grace_at:
                assert tess_at != grace_at, "two TAs were sent to one answer"
                others = grace.find_element("css selector", ".progress-line").text
                tess_answer = re.search(r"answer (\d+) of", driver.find_element("tag name", "h1").text).group(1)
                assert f"Also marking D1: Tess (answer {tess_answer})" in others, others
    finally:
        grace.quit()


@pytest.fixture
def fresh_server(study_class, tmp_path):
    yield from serve_marking(copy_course(study_class / "course", tmp_path / "course"))


def test_a_draft_outlives_a_rubric_edit_a_reload_and_leaving_the_page(marking_browser, fresh_server):
    from selenium.webdriver.common.keys import Keys

    driver, (course, address, _) = marking_browser, fresh_server
    base = address.split("/?")[0]
    login(driver, address, "Tess", base)
    student = STUDY_GROUP[2]
    path = base + f"/q/{A}/{D2}/a/{answer_key(A, student)}"
    driver.get(path)
    wait_until_rendered(driver)
    keys = Keyboard(driver)
    keys.press("m", "1.5", Keys.ESCAPE, "c", "A draft, not saved yet.", Keys.ESCAPE)

    def shown():
        return (driver.find_element("id", "points").get_attribute("value"),
                driver.find_element("id", "comment").get_attribute("value"))

    assert shown() == ("1.5", "A draft, not saved yet.")
    # A rubric item added from the open editor: the page reloads, and the draft comes back.
    driver.execute_script("document.getElementById('rubric-editor').open = true")
    driver.find_element("id", "new-points").send_keys("0")
    driver.find_element("id", "new-text").send_keys("A comment only", Keys.ENTER)
    wait_until_rendered(driver)
    assert "Added rubric item" in status(driver), status(driver)
    assert shown() == ("1.5", "A draft, not saved yet.")
    assert "unsaved changes" in driver.find_element("id", "draft-status").text
    # A reload asks first, then the draft comes back.
    record_leaving(driver)
    driver.refresh()
    wait_until_rendered(driver)
    assert asked_before_leaving(driver) and shown() == ("1.5", "A draft, not saved yet.")
    # Leaving with j asks first; coming back with k finds the draft.
    record_leaving(driver)
    keys.press("j", navigates=True)
    assert driver.current_url != path and asked_before_leaving(driver)
    keys.press("k", navigates=True)
    assert driver.current_url == path and shown() == ("1.5", "A draft, not saved yet.")
    assert marks_of(course, D2)[student][0] != 1.5, "nothing was saved"
    record_leaving(driver)
    keys.press("s", navigates=True)
    assert status(driver).startswith("Saved answer"), status(driver)
    assert not asked_before_leaving(driver), "saving is not leaving"
    assert marks_of(course, D2)[student][:2] == (1.5, "A draft, not saved yet.")
    driver.get(path)
    wait_until_rendered(driver)
    assert driver.find_element("id", "draft-status").text == "", "a saved draft is gone"

    # A draft typed over a mark of rubric items, then the item re-weighted: that re-scores the answer, so its mark
    # has a new version, but the form shows what the draft was typed over, and the draft comes back as typed.
    other = STUDY_GROUP[3]
    other_path = f"/q/{A}/{D2}/a/{answer_key(A, other)}"
    driver.get(base + other_path)
    wait_until_rendered(driver)
    keys.press("1")
    driver.find_element("id", "save-stay").click()
    wait_until_rendered(driver)
    assert status(driver).startswith("Saved answer"), status(driver)
    keys.press("c", "Typed before the re-weighting.", Keys.ESCAPE)
    item_points = driver.find_element("css selector", "#rubric-editor input[id^=edit-points-]")
    driver.execute_script("document.getElementById('rubric-editor').open = true")
    item_points.clear()
    item_points.send_keys("1", Keys.ENTER)
    wait_until_rendered(driver)
    assert "Re-scored the 1 answer it is part of; 1 mark changed." in status(driver), status(driver)
    assert driver.find_element("id", "comment").get_attribute("value") == "Typed before the re-weighting."
    assert "are back" in driver.find_element("id", "draft-status").text

    # Grace saves another mark of that answer meanwhile. Tess's draft is offered, not put over Grace's mark, and
    # saving before she puts it back or discards it saves nothing and says why.
    save_as_another_ta(address, other_path, "Grace", "2", "Grace's mark.")
    record_leaving(driver)
    driver.refresh()
    wait_until_rendered(driver)
    assert driver.find_element("id", "comment").get_attribute("value") == "Grace's mark."
    assert "typed for an earlier version" in driver.find_element("id", "draft-status").text
    keys.press("s")
    time.sleep(0.5)
    assert "Not saved: your unsaved changes" in driver.find_element("id", "draft-status").text
    assert driver.switch_to.active_element.get_attribute("id") == "restore-draft"
    assert marks_of(course, D2)[other][:2] == (2.0, "Grace's mark.")
    keys.press(Keys.ENTER)
    assert driver.find_element("id", "comment").get_attribute("value") == "Typed before the re-weighting."

    # A draft typed for the student's earlier answer (a later grading run replaced it: another checksum) is offered,
    # not put back, though the form shows what it was typed over. While it is offered, what the TA types is not
    # kept over it; discarding it keeps what she typed instead.
    key = f"autograder-marking-draft:{other_path}"
    driver.execute_script("""
        const [key] = arguments;
        const draft = JSON.parse(localStorage.getItem(key));
        draft.version = "earlier";
        draft.answers = ["an-earlier-answer"];
        draft.values.comment = "For the earlier answer.";
        localStorage.setItem(key, JSON.stringify(draft));""", key)
    record_leaving(driver)
    driver.refresh()
    wait_until_rendered(driver)
    assert "typed for an earlier version" in driver.find_element("id", "draft-status").text
    assert driver.find_element("id", "comment").get_attribute("value") != "For the earlier answer."
    keys.press("c", " And more.", Keys.ESCAPE)
    stored = lambda: driver.execute_script("return JSON.parse(localStorage.getItem(arguments[0])).values.comment", key)
    assert stored() == "For the earlier answer.", "the offered draft is kept while it is offered"
    typed = driver.find_element("id", "comment").get_attribute("value")
    driver.find_element("xpath", "//button[normalize-space()='Discard them']").click()
    assert stored() == typed, "what was typed meanwhile is kept once the offer is discarded"


def _check(driver, axe_source, htmlcs_source, page, found, artifacts, scheme):
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme",
                                                                          "value": scheme}]})
    found[page] = checker_findings(driver, axe_source, htmlcs_source)
    driver.save_screenshot(str(artifacts / f"marking-{re.sub(r'[^a-z]+', '-', page).strip('-')}.png"))
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
