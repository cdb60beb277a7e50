"""The marking page in headless Chromium, served by ``python -m autograder mark`` as a TA starts it.

The command serves a copy of a class's ps2 graded once for the run (``conftest.py``) on a free port of
127.0.0.1 and prints the address with its token.  In the browser a TA, with the keyboard alone, gives their
name, writes a rubric of two items, marks every answer of one question (ticking items with 1 and 2, a comment
after c, saving with s), moves between answers with j, k, n and p, turns the single-letter keys off and on,
and re-weights an item, which re-scores the answers it is part of.  Then a second TA saves a mark of an answer
the first has open (through another HTTP client, with its own session): the first TA's save is refused with
both marks shown, and the first then saves theirs over it.  A rubric item's note for markers is its box's
description as Chromium gives it to a screen reader; an adjustment out of range is named by the live total;
``o`` puts the focus on the answer's own cell; emptying the points asks before unmarking, with the focus on
the question's button; ``0`` ticks the tenth rubric item.  Every page passes axe-core's WCAG 2.1 A and AA
rules in light and dark.  Screenshots go to ``test-artifacts/``.  Needs Chromium, ChromeDriver, bubblewrap,
and the MathJax and axe-core the book build installs.
"""

import time

import pytest

from autograder.marking.web import answer_key
from autograder.outputs.gradebook import open_gradebook, rubric_items
from tests.support.marking_class import (A, D1, D2, STUDENTS, UNTOUCHED, marks_of, save_as_another_ta,
                                         serve_marking)
from tests.support.browser import (PHONE, checker_findings, console_errors, phone_layout_problems,
                                   wait_until_rendered)
from tests.support.released import copy_course

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

KEY_OF = {answer_key(A, student): student for student in list(STUDENTS) + [UNTOUCHED[0]]}
# What the TA gives each written answer to D1: rubric items by key, and a comment.
PLAN = {"lovelace": ("1", ""), "noether": ("12", "Say why the online setting matters here."), "turing": ("2", "")}


@pytest.fixture(scope="module")
def server(graded_class, tmp_path_factory):
    """``python -m autograder mark`` serving a copy of the graded class: ``(course, address with the token)``."""
    course = copy_course(graded_class / "course", tmp_path_factory.mktemp("marking-browser") / "course")
    yield from serve_marking(course)


# -- driving the browser ----------------------------------------------------------------------------------

def settle(driver):
    """Wait for the page to load, MathJax to typeset it and its fonts to arrive."""
    wait_until_rendered(driver)


def press(driver, *keys, navigates=False):
    """Press ``keys`` in the focused element, as a TA types; with ``navigates``, wait for the next page."""
    from selenium.webdriver.common.action_chains import ActionChains

    if navigates:
        driver.execute_script("window.__markingOld = true")
    ActionChains(driver).send_keys(*keys).perform()
    if navigates:
        deadline = time.monotonic() + 30
        while driver.execute_script("return window.__markingOld === true") and time.monotonic() < deadline:
            time.sleep(0.03)
        settle(driver)


def tab_to(driver, test, what, limit=120):
    """Press Tab until the focused element passes ``test`` (JavaScript on ``el``), as a TA without a mouse does."""
    from selenium.webdriver.common.keys import Keys

    seen = []
    for _ in range(limit):
        if driver.execute_script(f"const el = document.activeElement; return Boolean({test});"):
            return
        press(driver, Keys.TAB)
        seen.append(driver.execute_script(
            "const el = document.activeElement;"
            "return el.tagName + '#' + el.id + ' ' + (el.textContent || '').trim().slice(0, 30)"))
    raise AssertionError(f"Tab never reached {what}; it went through {seen}")


def status(driver):
    return driver.execute_script("return document.getElementById('status').textContent.trim()")


def student_here(driver):
    return KEY_OF[driver.current_url.rsplit("/", 1)[1]]


def select_all(driver):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    ActionChains(driver).key_down(Keys.CONTROL).send_keys("a").key_up(Keys.CONTROL).perform()


def open_as_tess(driver, address, path):
    """Open the answer at ``path`` in the browser, signed in with the page's address and, in a browser of its own
    (a test run alone), named Tess through the name form."""
    from selenium.webdriver.common.keys import Keys

    driver.get(address)
    driver.get(address.split("/?")[0] + path)
    settle(driver)
    if "/name" in driver.current_url:
        tab_to(driver, "el.id === 'name'", "the name field")
        press(driver, "Tess", Keys.ENTER, navigates=True)


def axe_both_schemes(driver, axe_source, htmlcs_source, page, found, artifacts):
    """axe-core and HTML_CodeSniffer on the open page in light and in dark; what they find goes to ``found[page]``."""
    for scheme in ("light", "dark"):
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia",
                               {"features": [{"name": "prefers-color-scheme", "value": scheme}]})
        found[f"{page} ({scheme})"] = checker_findings(driver, axe_source, htmlcs_source)
        driver.save_screenshot(str(artifacts / f"marking-{page}-{scheme}.png"))
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


# -- the tests ---------------------------------------------------------------------------------------------

def test_a_ta_marks_a_question_for_the_class_by_keyboard_alone(marking_browser, server, axe_source, htmlcs_source,
                                                                artifacts):
    from selenium.webdriver.common.keys import Keys

    driver, (course, address, printed) = marking_browser, server
    assert "D1: 2 of 5 answers marked" in "".join(printed)
    driver.get(address)
    settle(driver)
    assert "?token" not in driver.current_url, "the token leaves the address bar"
    found = {}
    axe_both_schemes(driver, axe_source, htmlcs_source, "overview", found, artifacts)

    tab_to(driver, f"el.tagName === 'A' && el.textContent.includes('Mark the next answer to D1')",
           "the link to mark D1")
    press(driver, Keys.ENTER, navigates=True)
    assert "/name" in driver.current_url
    axe_both_schemes(driver, axe_source, htmlcs_source, "name", found, artifacts)
    tab_to(driver, "el.id === 'name'", "the name field")
    press(driver, "Tess", Keys.ENTER, navigates=True)
    assert status(driver) == "Marking as Tess." and "/a/" in driver.current_url

    # The rubric, written from the keyboard: its editor is open while the rubric is empty.
    tab_to(driver, "el.id === 'new-points'", "the new item's points")
    press(driver, "2", Keys.TAB, "Correct and complete", Keys.ENTER, navigates=True)
    assert status(driver) == "Added rubric item 1: +2, Correct and complete."
    assert driver.execute_script("return document.getElementById('rubric-editor').open"), \
        "the rubric editor stays open after its own save"
    tab_to(driver, "el.id === 'new-points'", "the new item's points")
    press(driver, "-0.5", Keys.TAB, "No reason given", Keys.ENTER, navigates=True)
    assert status(driver) == "Added rubric item 2: \u22120.5, No reason given."

    # Every answer still to be marked, one after the other: the keys tick items, c writes the comment, s saves.
    marked = []
    for _ in range(len(PLAN)):
        student = student_here(driver)
        keys, comment = PLAN[student]
        for key in keys:
            press(driver, key)
        total = driver.find_element("id", "total").text
        expected = {"1": "Mark: 2 / 2, from 1 rubric item", "12": "Mark: 1.5 / 2, from 2 rubric items",
                    "2": "Mark: 0 / 2, from 1 rubric item"}[keys]
        assert total == expected, (student, total)
        if comment:
            press(driver, "c", comment, Keys.ESCAPE)
        if not marked:
            axe_both_schemes(driver, axe_source, htmlcs_source, "answer", found, artifacts)
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
            assert phone_layout_problems(driver) == []
            driver.save_screenshot(str(artifacts / "marking-answer-phone.png"))
            driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        press(driver, "s", navigates=True)
        assert status(driver).startswith(f"Saved answer "), status(driver)
        marked.append(student)
    assert status(driver).endswith("Every answer in D1 is marked. D2 has answers to mark."), status(driver)
    assert driver.current_url.endswith(f"/q/{A}/{D1}")
    axe_both_schemes(driver, axe_source, htmlcs_source, "question", found, artifacts)
    got = marks_of(course)
    assert {s: got[s][:4] for s in PLAN} == {
        "lovelace": (2.0, "", "Tess", ("Correct and complete",)),
        "noether": (1.5, "Say why the online setting matters here.", "Tess",
                    ("Correct and complete", "No reason given")),
        "turing": (0.0, "", "Tess", ("No reason given",))}

    # Moving between answers: j and n forward, k and p back; with the single-letter keys off, j does nothing.
    tab_to(driver, "el.tagName === 'A' && el.textContent.trim() === 'Answer 1'", "the first answer")
    press(driver, Keys.ENTER, navigates=True)
    first = driver.current_url
    press(driver, "j", navigates=True)
    assert "answer 2 of 5" in driver.find_element("tag name", "h1").text
    press(driver, "n", navigates=True)
    press(driver, "k", navigates=True)
    press(driver, "p", navigates=True)
    assert driver.current_url == first
    tab_to(driver, "el.id === 'keys-toggle'", "the keys' switch")
    press(driver, Keys.ENTER)
    assert driver.find_element("id", "keys-toggle").get_attribute("aria-pressed") == "false"
    press(driver, "j")
    time.sleep(0.3)
    assert driver.current_url == first, "single-letter keys are off"
    press(driver, Keys.ENTER)  # the switch still has the focus: on again
    press(driver, "j", navigates=True)
    assert driver.current_url != first

    # Re-weighting "No reason given" re-scores the two answers it is part of.
    tab_to(driver, "el.tagName === 'SUMMARY' && el.textContent.includes('Edit the rubric')", "the rubric editor")
    press(driver, Keys.ENTER)
    gb = open_gradebook(str(course))
    try:
        item = next(i for i in rubric_items(gb, A, A, D1) if i.text == "No reason given")
    finally:
        gb.close()
    tab_to(driver, f"el.id === 'edit-points-{item.id}'", "item 2's points")
    select_all(driver)
    press(driver, "-1", Keys.ENTER, navigates=True)
    assert status(driver) == "Saved the rubric item: \u22121. Re-scored the 2 answers it is part of; 1 mark changed."
    got = marks_of(course)
    assert (got["noether"][0], got["turing"][0], got["lovelace"][0]) == (1.0, 0.0, 2.0)
    assert not console_errors(driver)
    assert not any(found.values()), found


def test_two_tas_marking_one_answer_never_overwrite_each_other(marking_browser, server, axe_source, htmlcs_source,
                                                               artifacts):
    from selenium.webdriver.common.keys import Keys

    driver, (course, address, _) = marking_browser, server
    path = f"/q/{A}/{D2}/a/{answer_key(A, 'noether')}"
    open_as_tess(driver, address, path)
    assert driver.execute_script("return document.querySelectorAll('.student mjx-container').length") == 1, \
        "the course's MathJax typesets the answer's $w$"
    tab_to(driver, "el.id === 'points'", "the points")
    press(driver, "1", Keys.ESCAPE, "c", "Tess's view.", Keys.ESCAPE)

    # Meanwhile Grace, in a browser of her own, marks the same answer.
    save_as_another_ta(address, path, "Grace", "2", "Grace's mark.")

    press(driver, "s", navigates=True)
    page = driver.find_element("tag name", "main").text
    assert "Not saved" in page and "Someone else saved a mark for this answer" in page
    assert "2 / 2" in page and "Grace's mark." in page and "Grace" in page, page
    assert "1 / 2" in page and "Tess's view." in page, page
    assert marks_of(course, D2)["noether"][:3] == (2.0, "Grace's mark.", "Grace"), "Grace's mark is kept"
    found = {}
    axe_both_schemes(driver, axe_source, htmlcs_source, "conflict", found, artifacts)
    assert not any(found.values()), found

    tab_to(driver, "el.tagName === 'BUTTON' && el.textContent.trim() === 'Save mine over theirs'",
           "the button that saves Tess's mark")
    press(driver, Keys.ENTER, navigates=True)
    assert status(driver).startswith("Saved answer"), status(driver)
    assert marks_of(course, D2)["noether"][:3] == (1.0, "Tess's view.", "Tess")


# TeX a student might write to reach the TA's page through MathJax: a link and a style covering the whole page
# (one click anywhere would follow the link), a class and an id, an extension loaded on demand, a glyph 500 em
# high, and a link, a style, an id and a class set as a token's attributes. The page's MathJax leaves out the
# macros that set these and filters the rest.
HOSTILE_TEX = ("$\\href{http://127.0.0.1:9/phish}{\\style{position:fixed;top:0;left:0;width:100%;height:100%;"
               "z-index:99999;background:red}{\\text{x}}}$ and $\\class{taken}{y} \\cssId{taken2}{z}$ and "
               "$\\require{html} \\mmlToken{mi}[mathsize=\"500em\"]{w} + a^2 + \\mmlToken{mtext}"
               "[href=\"/logout\",style=\"opacity:0;padding:3em;background:red\",id=\"taken3\",class=\"taken\"]{MMMM}$")


def test_an_answers_tex_cannot_link_style_or_cover_the_markers_page(marking_browser, server):
    from autograder.marking.render import markdown_html

    driver, (_, address, _) = marking_browser, server
    open_as_tess(driver, address, f"/q/{A}/{D1}/a/{answer_key(A, 'turing')}")
    # The answer as the server renders it, typeset by the page's own MathJax with the page's configuration.
    found = driver.execute_async_script("""
        const [html, done] = arguments;
        const answer = document.querySelector('.student .rendered');
        answer.innerHTML = html;
        MathJax.typesetPromise([answer]).then(() => done({
            formulas: answer.querySelectorAll('mjx-container').length,
            links: answer.querySelectorAll('a').length,
            styled: [...answer.querySelectorAll('mjx-container [style]')].map((e) => e.getAttribute('style'))
                .filter((style) => /position|z-index|background|opacity/.test(style)),
            taken: document.querySelectorAll('.taken, #taken2, #taken3').length,
            tall: [...answer.querySelectorAll('mjx-container *')]
                .filter((e) => e.getBoundingClientRect().height > 200).length,
            shown: answer.textContent,
        }));""", markdown_html(HOSTILE_TEX))
    assert found["formulas"] == 3, found
    assert (found["links"], found["styled"], found["taken"], found["tall"]) == (0, [], 0, 0), found
    assert "\\class" in found["shown"] and "\\cssId" in found["shown"], "an unknown macro shows its name"
    assert "Save" in driver.find_element("id", "save").text and driver.find_element("id", "save").is_displayed()


def test_the_keys_put_the_caret_after_a_comment_an_error_focuses_its_field_and_a_save_is_announced(marking_browser,
                                                                                                     server):
    from selenium.webdriver.common.keys import Keys

    driver, (course, address, _) = marking_browser, server
    path = f"/q/{A}/{D2}/a/{answer_key(A, 'turing')}"
    open_as_tess(driver, address, path)
    # c adds to a comment already there, never in front of it.
    driver.execute_script("document.getElementById('comment').value = 'First.'; document.activeElement.blur();")
    press(driver, "c", " More.", Keys.ESCAPE)
    assert driver.find_element("id", "comment").get_attribute("value") == "First. More."
    # Points that are no number: not saved, and the focus is on the points, marked invalid.
    press(driver, "m", "two", Keys.ESCAPE, "s", navigates=True)
    focused = driver.switch_to.active_element
    assert focused.get_attribute("id") == "points" and focused.get_attribute("aria-invalid") == "true"
    assert "Not saved" in driver.find_element("id", "form-error").text
    assert driver.find_element("id", "comment").get_attribute("value") == "First. More.", "what was typed stays"
    # A save's message is also put, a moment after the page loads, where a screen reader announces it.
    press(driver, "1")  # the field's text is selected with the focus, so typing replaces it
    tab_to(driver, "el.id === 'save-stay'", "Save, stay")
    press(driver, Keys.ENTER, navigates=True)
    assert status(driver).startswith("Saved answer"), status(driver)
    time.sleep(1.0)
    announced = driver.execute_script("return [...document.querySelectorAll('main .visually-hidden[role=status]')]"
                                      ".map((el) => el.textContent)")
    assert announced == [status(driver)], announced
    assert marks_of(course, D2)["turing"][:2] == (1.0, "First. More.")


def test_a_notes_item_is_described_o_unmarking_and_a_wrong_adjustment_put_focus_and_words_where_a_ta_needs_them(
        marking_browser, server):
    from selenium.webdriver.common.keys import Keys

    from autograder.marking.rubrics import add_item

    driver, (course, address, _) = marking_browser, server
    gb = open_gradebook(str(course))
    try:
        item = add_item(gb, A, notebook=A, grade_id=D2, max_points=2.0, points=1.0, text="Ran an experiment",
                        note="Only if the numbers are there.")
        for n in range(2, 11):  # items 2 to 10, the tenth worth half a point; its key is 0
            add_item(gb, A, notebook=A, grade_id=D2, max_points=2.0, points=0.5 if n == 10 else 0.0,
                     text=f"Item {n}")
        add_item(gb, A, notebook=A, grade_id=D2, max_points=2.0, points=0.0, text="Item 11")
    finally:
        gb.close()
    open_as_tess(driver, address, f"/q/{A}/{D2}/a/{answer_key(A, 'lovelace')}")

    # What Chromium gives a screen reader for the item's box: its key, points and text as the name, the note for
    # markers as the description read after it.
    document = driver.execute_cdp_cmd("DOM.getDocument", {})
    box = driver.execute_cdp_cmd("DOM.querySelector", {"nodeId": document["root"]["nodeId"],
                                                       "selector": f"#item-{item.id}"})
    node = driver.execute_cdp_cmd("Accessibility.getPartialAXTree", {"nodeId": box["nodeId"],
                                                                      "fetchRelatives": False})["nodes"][0]
    assert node["name"]["value"] == "1 +1 Ran an experiment", node["name"]
    assert node["description"]["value"] == "(for markers: Only if the numbers are there.)", node.get("description")

    # An adjustment the server would refuse: the live total says so instead of showing a mark.
    tab_to(driver, "el.id === 'adjustment'", "the adjustment")
    press(driver, "5")
    assert driver.find_element("id", "total").text == "The adjustment must be from -2 to 2"
    press(driver, Keys.BACKSPACE, Keys.ESCAPE)
    assert driver.find_element("id", "total").text == "Not marked yet"

    # 0 ticks the tenth item, as the key on the keyboard's row after 9; the eleventh has no key.
    press(driver, "0")
    assert driver.find_element("id", "total").text == "Mark: 0.5 / 2, from 1 rubric item"
    assert [box.get_attribute("data-key") for box in driver.find_elements("css selector", "input[name=item]")] \
        == ["1", "2", "3", "4", "5", "6", "7", "8", "9", "0", None]
    press(driver, "0")
    assert driver.find_element("id", "total").text == "Not marked yet"

    # o opens the notebook with the focus on this answer's own cell, where the view is.
    press(driver, "o")
    assert driver.execute_script("return document.activeElement.classList.contains('this-answer')")
    assert driver.execute_script("return document.getElementById('notebook').open")

    # Marked, then the points emptied: the question before unmarking has the focus, and Enter unmarks.
    press(driver, "m", "1", Keys.ESCAPE)
    tab_to(driver, "el.id === 'save-stay'", "Save, stay")
    press(driver, Keys.ENTER, navigates=True)
    assert marks_of(course, D2)["lovelace"][0] == 1.0
    press(driver, "m", Keys.BACKSPACE, Keys.ESCAPE, "s", navigates=True)
    assert driver.switch_to.active_element.get_attribute("id") == "unmark-yes"
    assert marks_of(course, D2)["lovelace"][0] == 1.0, "nothing is unmarked before the TA says so"
    press(driver, Keys.ENTER, navigates=True)
    assert marks_of(course, D2)["lovelace"][0] is None, status(driver)


def test_a_refused_rubric_item_and_a_refused_comment_come_back_as_typed_with_the_focus_on_what_to_mend(
        marking_browser, server, axe_source, htmlcs_source, artifacts):
    from selenium.webdriver.common.keys import Keys

    from autograder.marking.rubrics import MAX_COMMENT

    driver, (course, address, _) = marking_browser, server
    open_as_tess(driver, address, f"/q/{A}/{D2}/a/{answer_key(A, 'lovelace')}")
    before = marks_of(course, D2)["lovelace"]
    # A new rubric item with points that are no number, typed as a TA types it and sent with Enter.
    tab_to(driver, "el.tagName === 'SUMMARY' && el.textContent.startsWith('Edit the rubric')", "the rubric editor")
    if not driver.execute_script("return document.getElementById('rubric-editor').open"):  # open with no items
        press(driver, Keys.ENTER)
    tab_to(driver, "el.id === 'new-points'", "the new item's points")
    press(driver, "1/2", Keys.TAB, "Clear <b>reasoning</b>", Keys.ENTER, navigates=True)
    assert "The item was not added" in status(driver), status(driver)
    focused = driver.switch_to.active_element
    assert (focused.get_attribute("id"), focused.get_attribute("value")) == ("new-points", "1/2")
    assert focused.get_attribute("aria-invalid") == "true"
    assert driver.find_element("id", "new-text").get_attribute("value") == "Clear <b>reasoning</b>"
    assert driver.execute_script("return document.getElementById('rubric-editor').open")
    found = {}
    axe_both_schemes(driver, axe_source, htmlcs_source, "refused-item", found, artifacts)
    assert not any(found.values()), found

    # A comment over the limit: not saved, the focus on the comment, its text kept and not selected (one key
    # must not replace it).
    driver.execute_script("document.getElementById('points').value = '1';"
                          "document.getElementById('comment').value = 'x'.repeat(arguments[0]);"
                          "document.activeElement.blur();", MAX_COMMENT + 1)
    press(driver, "s", navigates=True)
    focused = driver.switch_to.active_element
    assert (focused.get_attribute("id"), focused.get_attribute("aria-invalid")) == ("comment", "true")
    assert driver.execute_script("const el = document.activeElement;"
                                 "return [el.value.length, el.selectionEnd - el.selectionStart]") \
        == [MAX_COMMENT + 1, 0]
    assert marks_of(course, D2)["lovelace"] == before, "nothing was saved"
