"""Every page of the built book in headless Chromium driven by selenium, with the network switched
off. Each page is opened once at desktop width, and what that visit finds is checked by two tests:

- it renders offline: the mathematics is typeset by the local MathJax (no raw ``$...$`` or
  ``\\(...\\)`` left), every image has loaded and has alt text, and the console shows no errors
  (a resource fetched from the network would be one);
- it is accessible (WCAG 2.1 AA): axe-core finds no violation and HTML_CodeSniffer no error but
  those reviewed (``HTMLCS_REVIEWED``), in light and in dark mode (switched with the theme's
  button), with every hidden cell and solution opened; every formula
  carries MathML that the browser exposes to screen readers, and is not a Tab stop but takes the
  focus when clicked; every figure has a caption, and every image alt text that describes it;
  the chapter of proofs is a few hundred Tab stops, not one per formula.

The home page passes axe at phone width too, and the keyboard alone reaches every control, each
with a visible focus indicator, and operates them (a formula's MathJax menu too, opened with
Space). (The phone layout of every page is checked by test_book_browser.py.)

The tests are collected for the pages of the book built when the tests are collected.
Screenshots of a few pages, as loaded and in dark mode, go to ``test-artifacts/``. Needs Chromium
and ChromeDriver and a built book (``make book``, which also installs the two checkers).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import REPO_ROOT
from tests.support.book import BUILT_BOOK, article_html, site_pages, toc_docnames
from tests.support.browser import (AXE_TAGS, DESKTOP, PHONE, SCREENSHOT_PAGES, open_page, run_axe, run_htmlcs,
                                   save_screenshots)

pytestmark = pytest.mark.slow

# The chapter chrome (header buttons, sidebars, search) is the same on every page; the
# keyboard walk covers it on the home page, plus every page with a form control.
KEYBOARD_HOME = "book/index"
FORM_CONTROL = re.compile(r"<(input|select|textarea)\b", re.IGNORECASE)


def keyboard_pages(pages: dict[str, Path]) -> list[str]:
    return [name for name, path in pages.items()
            if name == KEYBOARD_HOME or FORM_CONTROL.search(article_html(path))]


# The chapters of _toc.yml, whose rendering is checked.
CHAPTERS = toc_docnames(REPO_ROOT / "_toc.yml")
# The pages the tests are collected for: every page of the built book (those Sphinx adds too).
# Before the book is built the chapters stand in, and every test fails on the missing book
# (the built_book fixture).
SITE_PAGES = sorted(site_pages(BUILT_BOOK)) or CHAPTERS
KEYBOARD_PAGES = keyboard_pages(site_pages(BUILT_BOOK)) or [KEYBOARD_HOME]


def test_every_page_of_the_built_book_is_checked(built_book, book_docnames):
    """The pages the tests were collected for are those of the book as it is built now."""
    pages = site_pages(built_book)
    missing = sorted(set(book_docnames) - set(pages))
    assert not missing, f"the pages of these chapters were not built: {missing}"
    assert (sorted(pages), keyboard_pages(pages)) == (SITE_PAGES, KEYBOARD_PAGES), (
        f"the book was built again while the tests ran: they were collected for the pages {SITE_PAGES} "
        f"(keyboard walk on {KEYBOARD_PAGES}); {built_book} has {sorted(pages)}")


COLOUR_MODES = ("light", "dark")

# Brings the finite CSS transitions and animations running now to their end at once: the page
# is then in the state it would settle in, without waiting for it.
FINISH_ANIMATIONS_JS = """
document.getAnimations().filter(a => a.playState === "running" && a.effect
    && a.effect.getTiming().iterations !== Infinity).forEach(a => a.finish());
"""


def settle(driver) -> None:
    """Let the page react to what was just done (a frame), bring the transitions and animations that
    started to their end, and let layout catch up (another frame)."""
    driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        requestAnimationFrame(() => {
        """ + FINISH_ANIMATIONS_JS + """
            requestAnimationFrame(() => done());
        });
        """)


def reveal_hidden_content(driver) -> int:
    """Open every hidden code cell, dropdown and solution; return how many were opened."""
    opened = driver.execute_script(
        """
        let opened = 0;
        document.querySelectorAll("details:not([open])").forEach(details => {
            details.open = true;
            opened += 1;
        });
        document.querySelectorAll(".toggle-hidden > .admonition-title button.toggle-button, "
                                  + "button.toggle-button.toggle-button-hidden").forEach(button => {
            button.click();
            opened += 1;
        });
        return opened;
        """
    )
    settle(driver)
    return opened


def set_colour_mode(driver, mode: str) -> str:
    """Press the theme's colour-mode button until ``mode`` is on; return the page's
    background colour, so the caller can tell that the mode really changed."""
    for _ in range(4):
        if driver.execute_script("return document.documentElement.dataset.mode") == mode:
            break
        driver.execute_script(
            """const button = [...document.querySelectorAll(".theme-switch-button")]
                   .find(b => b.offsetParent !== null);
               button.click();"""
        )
    else:
        raise AssertionError(f"the colour-mode button never switched the page to {mode!r}")
    # The button keeps the focus, which shows its tooltip; the scan is of the page. The tooltip
    # is removed when its fading out ends, which finishing the animations brings forward.
    driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        document.activeElement.blur();
        const start = Date.now();
        const poll = () => {
        """ + FINISH_ANIMATIONS_JS + """
            (!document.querySelector(".tooltip") || Date.now() - start > 3000) ? done() : setTimeout(poll, 25);
        };
        poll();
        """
    )
    settle(driver)
    return driver.execute_script("return getComputedStyle(document.body).backgroundColor")


def luminance(css_colour: str) -> float:
    red, green, blue = (int(value) / 255 for value in re.findall(r"\d+", css_colour)[:3])
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in (red, green, blue)]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def describe_violations(where: str, result: dict) -> list[str]:
    lines = []
    for violation in result["violations"]:
        lines.append(f"{where}: {violation['id']} ({violation['help']}), "
                     f"{len(violation['nodes'])} element(s):")
        for node in violation["nodes"][:5]:
            summary = " ".join(node["summary"].split())[:240]
            lines.append(f"    {node['target']}: {summary}")
    return lines


FIGURES_JS = """
const describe = img => (img.getAttribute("alt") || "").trim();
return {
    figures: [...document.querySelectorAll("article figure")].map(figure => ({
        id: figure.id,
        shown: figure.checkVisibility({visibilityProperty: true}),
        images: figure.querySelectorAll("img, svg, canvas").length,
        caption: figure.querySelector("figcaption")
            ? figure.querySelector("figcaption").textContent.replace("#", "").trim() : "",
        captionShown: Boolean(figure.querySelector("figcaption"))
            && figure.querySelector("figcaption").checkVisibility({visibilityProperty: true}),
    })),
    images: [...document.querySelectorAll("article img")]
        .map(img => ({src: (img.getAttribute("src") || "").slice(0, 60), alt: describe(img)})),
};
"""

# What a screen reader gets of each formula shown on the page (hidden content opened).
# Every table of the article: how many header cells say neither whom they head (no scope) nor
# anything at all (no text), and, per table, whether each body row is named by a row header.
TABLES_JS = """
const tables = [...document.querySelectorAll('article table')];
return tables.map((table) => ({
  caption: (table.querySelector('caption') || {}).textContent || '',
  headers: table.querySelectorAll('th').length,
  withoutScope: [...table.querySelectorAll('th')].filter((th) => !th.hasAttribute('scope')).length,
  empty: [...table.querySelectorAll('th')].filter((th) => !th.textContent.trim()).length,
  bodyRows: table.querySelectorAll('tbody tr').length,
  namedRows: [...table.querySelectorAll('tbody tr')].filter(
    (tr) => tr.cells.length && tr.cells[0].tagName === 'TH' && tr.cells[0].scope === 'row'
             && tr.cells[0].textContent.trim()).length,
  corner: (() => { const row = table.querySelector('thead tr');
                   return row && row.cells.length ? row.cells[0].textContent.trim() : null; })(),
}));
"""

MATH_JS = """
const containers = [...document.querySelectorAll("article mjx-container")]
    .filter(c => c.checkVisibility({visibilityProperty: true}));
return {
    shown: containers.length,
    withoutMathml: containers.filter(c => {
        const mathml = c.querySelector("mjx-assistive-mml > math");
        return !mathml || !mathml.textContent.trim();
    }).length,
    visualNotHidden: containers.filter(c => {
        const visual = c.querySelector("mjx-math");
        return visual && visual.getAttribute("aria-hidden") !== "true";
    }).length,
    example: containers.length
        ? (containers[0].querySelector("mjx-assistive-mml") || containers[0]).textContent : null,
    // Formulas the Tab key stops at (MathJax's inTabOrder menu setting), but for a displayed
    // formula that scrolls sideways, which must be one; and formulas that cannot take the focus
    // at all: neither a click nor a screen reader's cursor then reaches their MathJax menu.
    all: document.querySelectorAll("mjx-container").length,
    tabStops: [...document.querySelectorAll("mjx-container")]
        .filter(c => c.tabIndex >= 0 || [...c.querySelectorAll("[tabindex]")].some(e => e.tabIndex >= 0))
        .filter(c => !(["auto", "scroll"].includes(getComputedStyle(c).overflowX)
                       && c.scrollWidth > c.clientWidth))
        .length,
    unfocusable: [...document.querySelectorAll("mjx-container")]
        .filter(c => !c.hasAttribute("tabindex")).length,
};
"""


def math_in_accessibility_tree(driver) -> int:
    """How many formulas the browser's accessibility tree holds as mathematics (and does not ignore)."""
    root = driver.execute_cdp_cmd("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
    exposed = 0
    for role in ("math", "MathMLMath"):  # role="math", and MathML's <math> (Chromium's own role name)
        nodes = driver.execute_cdp_cmd("Accessibility.queryAXTree", {"nodeId": root, "role": role})["nodes"]
        exposed += sum(1 for node in nodes if not node.get("ignored"))
    return exposed


def audit_page(driver, path: Path, axe_source: str, viewport: dict = DESKTOP,
               in_dark_mode: Callable[[], None] | None = None) -> dict:
    """One visit to a page for the accessibility checks (:func:`audit_loaded_page`)."""
    open_page(driver, path, viewport)
    return audit_loaded_page(driver, axe_source, in_dark_mode)


def audit_loaded_page(driver, axe_source: str, in_dark_mode: Callable[[], None] | None = None,
                      htmlcs_source: str | None = None) -> dict:
    """The accessibility checks' facts of the page just loaded: its figures as loaded; then, with
    every hidden cell and solution opened, its figures again, its formulas and the formulas in the
    browser's accessibility tree, its Tab stops, and axe-core's results (and HTML_CodeSniffer's errors,
    given its source) in light and in dark mode (switched with the theme's button), with the page's
    background luminance in each. ``in_dark_mode`` is called while the page is dark (for a screenshot)."""
    facts = {"figures": driver.execute_script(FIGURES_JS), "axe": {}, "htmlcs": {}, "background": {}}
    reveal_hidden_content(driver)
    # A figure in a closed solution is hidden with its caption until the solution
    # is opened; its caption is checked with the solution open.
    facts["figures_opened"] = driver.execute_script(FIGURES_JS)
    facts["math"] = driver.execute_script(MATH_JS)
    facts["math"]["exposed"] = math_in_accessibility_tree(driver)
    facts["tab_stops"] = driver.execute_script(TAB_STOPS_JS)
    facts["tables"] = driver.execute_script(TABLES_JS)
    try:
        for mode in COLOUR_MODES:
            facts["background"][mode] = luminance(set_colour_mode(driver, mode))
            facts["axe"][mode] = run_axe(driver, axe_source)
            if htmlcs_source is not None:
                facts["htmlcs"][mode] = run_htmlcs(driver, htmlcs_source)
            if mode == "dark" and in_dark_mode is not None:
                in_dark_mode()
    finally:
        # The theme keeps the mode for the pages opened next.
        set_colour_mode(driver, "light")
    return facts


def axe_problems(name: str, facts: dict) -> list[str]:
    """axe-core's violations in each mode, and whether dark mode really was dark."""
    problems: list[str] = []
    for mode, result in facts["axe"].items():
        assert result["rules"] > 20, f"{name} ({mode}): axe-core ran only {result['rules']} rules"
        problems += describe_violations(f"{name} ({mode} mode)", result)
    # The switch must really have changed the colours, or dark mode was never checked.
    light, dark = facts["background"]["light"], facts["background"]["dark"]
    if not dark < 0.1 < light:
        problems.append(f"{name}: background luminance {light:.3f} in light mode, {dark:.3f} in dark mode: "
                        "the colour-mode button did not switch the page's colours")
    return problems


# HTML_CodeSniffer's errors that were reviewed and found not to fail WCAG 2.1 AA: by code and the start of
# the element's HTML, each with the reason.
HTMLCS_REVIEWED = {
    ("WCAG2AA.Principle3.Guideline3_2.3_2_2.H32.2", '<form class="bd-search'):
        "the theme's search form has a single field and no button; Enter in the field submits it (HTML's "
        "implicit submission), as test_the_search_field_is_submitted_with_enter_and_finds_the_pages checks",
    ("WCAG2AA.Principle3.Guideline3_2.3_2_2.H32.2", '<form title="Repetition mode"'):
        "matplotlib's animation player groups its repetition-mode radio buttons (once, loop, reflect) in a form "
        "that is never submitted: choosing one sets how the animation repeats, which changes no context",
}


def htmlcs_problems(name: str, facts: dict) -> list[str]:
    """HTML_CodeSniffer's errors in each mode, but those reviewed (:data:`HTMLCS_REVIEWED`)."""
    problems = []
    for mode, result in facts["htmlcs"].items():
        assert result["messages"] > 10, f"{name} ({mode}): HTML_CodeSniffer gave only {result['messages']} messages"
        for error in result["errors"]:
            if not any(error["code"] == code and error["html"].startswith(start) for code, start in HTMLCS_REVIEWED):
                problems.append(f"{name} ({mode} mode): HTML_CodeSniffer {error['code']}: {error['message']}\n"
                                f"    {error['html']}")
    return problems


def math_problems(name: str, facts: dict, holds_math: bool) -> list[str]:
    """Each formula carries MathML (MathJax's assistive MathML), the browser's accessibility
    tree holds it as math, and the visual rendering is hidden so it is not read twice. No
    formula is a Tab stop (but one that scrolls sideways, which axe's scrollable-region-focusable
    requires to be one), and each takes the focus when clicked (tabindex="-1"), where Space
    opens its MathJax menu."""
    math = facts["math"]
    if not math["shown"]:
        return [f"{name}: the page's HTML holds formulas, but none is shown to check"] if holds_math else []
    problems = []
    if math["withoutMathml"]:
        problems.append(f"{name}: {math['withoutMathml']} of {math['shown']} formulas "
                        "have no assistive MathML")
    if math["visualNotHidden"]:
        problems.append(f"{name}: {math['visualNotHidden']} formulas do not hide their "
                        "visual rendering from screen readers (aria-hidden)")
    if math["exposed"] < math["shown"]:
        problems.append(f"{name}: the accessibility tree holds {math['exposed']} formulas, "
                        f"the page shows {math['shown']} (e.g. {math['example']!r})")
    if math["tabStops"]:
        problems.append(f"{name}: {math['tabStops']} of {math['all']} formulas are Tab stops without "
                        "scrolling sideways, so a keyboard reader presses Tab once per formula; expected "
                        "none (MathJax's menu setting inTabOrder: false in _config.yml's mathjax3_config)")
    if math["unfocusable"]:
        problems.append(f"{name}: {math['unfocusable']} of {math['all']} formulas cannot take the focus "
                        "(no tabindex), so neither a click nor a screen reader's cursor reaches their "
                        "MathJax menu; expected tabindex=\"-1\" (book/_static/accessibility.js)")
    return problems


def table_problems(name: str, facts: dict) -> list[str]:
    """Every header cell of a table has text and says what it heads (scope), so that a screen reader
    announces the right header with each cell."""
    problems = []
    for number, table in enumerate(facts["tables"], start=1):
        if table["withoutScope"]:
            problems.append(f"{name}: table {number} has {table['withoutScope']} of {table['headers']} header "
                            "cells without a scope (book/_ext/accessible_html.py gives col or row)")
        if table["empty"]:
            problems.append(f"{name}: table {number} has {table['empty']} header cells with no text")
    return problems


def figure_problems(name: str, facts: dict, holds_figures: bool) -> list[str]:
    """Every figure has an image and a visible caption; every image in the text has alt
    text that describes it (more than a word or a file name)."""
    found = facts["figures"]
    opened = facts["figures_opened"]["figures"]
    if holds_figures and not found["figures"]:
        return [f"{name}: the page's HTML holds figures, but the browser finds none to check"]
    problems = []
    for index, figure in enumerate(found["figures"]):
        where = f"{name}: figure {figure['id'] or '(no id)'}"
        if not figure["shown"]:
            # Hidden as the page loads (in a closed solution): judged once opened.
            figure = opened[index] if index < len(opened) else figure
            where += " (in hidden content, opened)"
        if not figure["images"]:
            problems.append(f"{where} has no image")
        if not figure["caption"] or not figure["captionShown"]:
            problems.append(f"{where} has no visible caption")
    for image in found["images"]:
        alt = image["alt"]
        if len(alt.split()) < 3 or re.fullmatch(r"[\w.-]+\.(png|jpe?g|svg|gif)", alt):
            problems.append(f"{name}: image {image['src']} has alt text {alt!r}, which "
                            "does not describe it")
    return problems


# LaTeX that MathJax should have replaced: \( \) \[ \] and $...$ holding TeX syntax.
RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\$[^$\n]*[\\^_{}][^$\n]*\$")

# What a reader sees of the page as it loads: its formulas typeset or not, the text around them,
# and its images.
RENDERED_JS = """
const article = document.querySelector("article") || document.body;
const clone = article.cloneNode(true);
clone.querySelectorAll("pre, code, script, style, mjx-container, mjx-assistive-mml")
     .forEach(node => node.remove());
return {
    sources: article.querySelectorAll(".math").length,
    untypeset: [...article.querySelectorAll(".math")]
        .filter(node => !node.querySelector("mjx-container")).length,
    errors: document.querySelectorAll("mjx-merror, [data-mjx-error]").length,
    text: clone.textContent,
    images: [...document.images].map(img => ({
        src: img.getAttribute("src"), width: img.naturalWidth,
        alt: (img.getAttribute("alt") || "").trim()})),
};
"""


@pytest.fixture(scope="module")
def visit(browser, built_book, axe_source, htmlcs_source, artifacts):
    """``visit(page)``: the facts of the one desktop visit to ``page``, made by the first test that asks.

    The page is loaded, what it shows as loaded is read (its console errors too) and screenshotted,
    and then the accessibility audit runs on it (:func:`audit_loaded_page`). Loading a page and
    typesetting its formulas is most of a visit's cost, so the tests of a page share one.
    """
    visits: dict[str, dict] = {}

    def facts_of(page: str) -> dict:
        if page not in visits:
            errors = open_page(browser, built_book / f"{page}.html", DESKTOP)
            rendered = browser.execute_script(RENDERED_JS)
            shot = page in SCREENSHOT_PAGES
            if shot:
                save_screenshots(browser, page, "desktop", artifacts)
            facts = audit_loaded_page(browser, axe_source, (lambda: save_screenshots(
                browser, page, "desktop-dark", artifacts)) if shot else None, htmlcs_source)
            visits[page] = {**facts, "console_errors": errors, "rendered": rendered}
        return visits[page]

    return facts_of


@pytest.mark.parametrize("page", CHAPTERS)
def test_pages_render_offline(visit, built_book, page):
    facts = visit(page)
    problems = [f"console error: {entry['message']}" for entry in facts["console_errors"]]
    shown = facts["rendered"]
    if 'class="math' in article_html(built_book / f"{page}.html") and not shown["sources"]:
        problems.append("the page's HTML holds formulas, but the browser finds none to check")
    if shown["untypeset"]:
        problems.append(f"{shown['untypeset']} of {shown['sources']} formulas were not typeset by MathJax")
    if shown["errors"]:
        problems.append(f"MathJax reports {shown['errors']} TeX errors")
    for raw in RAW_TEX.findall(shown["text"]):
        problems.append(f"untypeset TeX in the page text: {raw!r}")
    for image in shown["images"]:
        if len(image["src"] or "") > 80:  # an inline data: URL
            image["src"] = image["src"][:60] + "..."
        if image["width"] == 0:
            problems.append(f"image {image['src']} did not load")
        if not image["alt"]:
            problems.append(f"image {image['src']} has no alt text")
    assert not problems, f"Problems in the rendered page {page}:\n" + "\n".join(problems)


@pytest.mark.parametrize("page", SITE_PAGES)
def test_pages_are_accessible(visit, built_book, page):
    """axe-core's WCAG 2.0 and 2.1 A and AA rules and HTML_CodeSniffer's WCAG 2 AA standard find nothing on
    the page in either colour mode, with its hidden content opened; its formulas reach screen readers as
    MathML; its figures have captions and its images alt text that describes them."""
    facts = visit(page)
    article = article_html(built_book / f"{page}.html")
    assert set(facts["htmlcs"]) == set(facts["axe"]), f"{page}: HTML_CodeSniffer did not run in every mode"
    problems = (axe_problems(page, facts) + htmlcs_problems(page, facts)
                + math_problems(page, facts, 'class="math' in article)
                + figure_problems(page, facts, "<figure" in article) + table_problems(page, facts))
    assert not problems, (f"Accessibility problems of {page} (axe-core's rules are those tagged {AXE_TAGS}):\n"
                          + "\n".join(problems))


COMPARISON_CHAPTER = "book/online_learning"


def test_the_online_and_batch_comparison_names_each_row_and_its_corner(visit):
    """The table that compares batch and online learning is read row by row ("data: a fixed training
    set ..."): each body row is named by a row header, and the corner cell says what the rows are."""
    tables = visit(COMPARISON_CHAPTER)["tables"]
    compared = [t for t in tables if t["corner"] is not None and t["bodyRows"] >= 3 and t["namedRows"]]
    assert compared, f"{COMPARISON_CHAPTER}: no table with row headers among {tables}"
    table = compared[0]
    assert table["namedRows"] == table["bodyRows"], table
    assert table["corner"], f"the corner cell of the comparison table is empty: {table}"


# The chapter with the most formulas, most of them in its proofs, and the most Tab stops a chapter
# may have. Its links, buttons, summaries and scrolling boxes (code, and the few displayed formulas
# wider than the text) are about 220 stops; with every formula a stop as well (MathJax's default),
# it had over 1000.
PROOF_CHAPTER = "book/convergence"
MAX_TAB_STOPS = 300


def test_a_chapter_of_proofs_is_a_few_hundred_tab_stops(visit):
    """A keyboard reader crosses the convergence chapter, hidden content opened, in at most
    MAX_TAB_STOPS presses of Tab: its formulas are not on the way, but for the few that scroll."""
    assert PROOF_CHAPTER in CHAPTERS, f"{PROOF_CHAPTER} is not a chapter of _toc.yml: {CHAPTERS}"
    facts = visit(PROOF_CHAPTER)
    formulas = facts["math"]["all"]
    assert formulas > MAX_TAB_STOPS, (
        f"{PROOF_CHAPTER} holds {formulas} formulas, no more than the {MAX_TAB_STOPS} Tab stops allowed: "
        "the check needs a chapter whose formulas alone would be too many stops")
    stops = facts["tab_stops"]
    kinds: dict[str, int] = {}
    for stop in stops:
        kind = "formula" if stop["formula"] else stop["label"].split(" ")[0]
        kinds[kind] = kinds.get(kind, 0) + 1
    count = len(stops)
    assert count <= MAX_TAB_STOPS, (
        f"{PROOF_CHAPTER} has {count} Tab stops, {kinds.get('formula', 0)} of them in its {formulas} "
        f"formulas; expected at most {MAX_TAB_STOPS}. The stops by kind: {kinds}")


def test_home_page_at_phone_width_passes_axe_in_light_and_dark_mode(browser, built_book, book_docnames,
                                                                    axe_source):
    """A phone shows the same content in another frame (menu buttons, no sidebars)."""
    home = book_docnames[0]
    facts = audit_page(browser, built_book / f"{home}.html", axe_source, PHONE)
    problems = axe_problems(f"{home} (phone)", facts)
    assert not problems, (f"Accessibility problems at phone width (axe-core's rules are those tagged {AXE_TAGS}):\n"
                          + "\n".join(problems))


def test_the_search_field_is_submitted_with_enter_and_finds_the_pages(browser, built_book, book_docnames):
    """The theme's search form has no button (HTML_CodeSniffer's H32.2, reviewed in HTMLCS_REVIEWED): Enter in
    its field submits it, offline, and the search page lists the pages that hold the word."""
    chapter = book_docnames[1]
    open_page(browser, built_book / f"{chapter}.html", DESKTOP)
    focus(browser, "main a[href]")
    press(browser, "k", "KeyK", 75, modifiers=2)
    settle(browser)
    assert browser.execute_script("return Boolean(document.activeElement.closest('#pst-search-dialog[open]'))"
                                  " && document.activeElement.matches('input')"), "Ctrl+K opened no search field"
    browser.execute_cdp_cmd("Input.insertText", {"text": "margin"})
    press(browser, "Enter", "Enter", 13)
    deadline = time.monotonic() + 30
    found = []
    while time.monotonic() < deadline and not found:
        if "search.html?q=margin" in browser.current_url:
            found = browser.execute_script(
                "return [...document.querySelectorAll('#search-results li a')].map(a => a.textContent.trim())")
        time.sleep(0.2)
    assert "search.html?q=margin" in browser.current_url, f"Enter led to {browser.current_url}"
    assert any("Hyperplanes" in title for title in found), f"the search for 'margin' found {found}"


# The character that a key types, for the keys that activate controls.
KEY_TEXT = {"Enter": "\r", " ": " "}


def press(driver, key: str, code: str, key_code: int, modifiers: int = 0) -> None:
    """A real key press (down and up) sent to the page through the DevTools protocol.

    ``modifiers`` is the protocol's bit field: 2 is Ctrl.
    """
    down = {"type": "keyDown", "key": key, "code": code, "windowsVirtualKeyCode": key_code,
            "modifiers": modifiers}
    if key in KEY_TEXT and not modifiers:
        down["text"] = KEY_TEXT[key]
    else:
        down["type"] = "rawKeyDown"
    driver.execute_cdp_cmd("Input.dispatchKeyEvent", down)
    driver.execute_cdp_cmd("Input.dispatchKeyEvent", {
        "type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": key_code,
        "modifiers": modifiers,
    })


def press_tab(driver) -> None:
    press(driver, "Tab", "Tab", 9)


# Every element that can take focus, as the browser decides it for the Tab key.
TAB_STOPS_JS = """
const candidates = document.querySelectorAll(
    "a[href], button, input, select, textarea, summary, iframe, [tabindex], [contenteditable='true']");
const stops = [];
candidates.forEach((element, index) => {
    element.dataset.a11yStop = String(index);
    if (element.tabIndex < 0 || element.disabled || element.closest("[inert]")) return;
    if (!element.checkVisibility({visibilityProperty: true})) return;
    const box = element.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) return;
    // One radio button of a group is a tab stop; the arrow keys move within the group.
    const group = element.type === "radio" && element.name
        ? "radio:" + (element.form ? element.form.name || element.form.id : "") + ":" + element.name
        : null;
    stops.push({id: element.dataset.a11yStop, group: group,
                formula: Boolean(element.closest("mjx-container")),
                label: element.tagName.toLowerCase() + " " + (element.getAttribute("aria-label")
                       || element.textContent || element.getAttribute("title") || "").trim().slice(0, 50)});
});
document.activeElement && document.activeElement.blur();
window.scrollTo(0, 0);
return stops;
"""

# The focused element, and whether it shows a focus indicator: an outline or a box-shadow
# on the element, on its ::before or ::after, or on a child (the theme draws some there),
# or for a drawn SVG control a stroked ring that only its focused state shows. The page is
# judged as it settles: the transitions that focusing started are brought to their end first.
FOCUSED_JS = FINISH_ANIMATIONS_JS + """
const element = document.activeElement;
if (!element || element === document.body || element === document.documentElement) {
    return null;
}
const shows = style => {
    const outline = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 1
        && !/rgba\\([^)]*,\\s*0\\)|transparent/.test(style.outlineColor);
    return outline || (style.boxShadow && style.boxShadow !== "none");
};
const styles = [getComputedStyle(element), getComputedStyle(element, "::before"),
                getComputedStyle(element, "::after"),
                ...[...element.children].map(child => getComputedStyle(child))];
// A drawn control (an SVG point of the perceptron lab) may show focus with a ring of its
// own instead of an outline: it counts when the focused element shows a stroked part
// that the same element unfocused (a sibling of the same kind) does not.
const ringDrawn = () => {
    const twin = [...(element.parentElement ? element.parentElement.children : [])].find(
        other => other !== element && other.tagName === element.tagName
                 && other.getAttribute("class") === element.getAttribute("class"));
    if (!twin || !(element instanceof SVGElement)) return false;
    const mine = [...element.children], theirs = [...twin.children];
    if (mine.length !== theirs.length) return false;
    return mine.some((child, i) => {
        const on = getComputedStyle(child), off = getComputedStyle(theirs[i]);
        return on.visibility === "visible" && off.visibility !== "visible"
            && on.stroke !== "none" && parseFloat(on.strokeWidth) >= 1;
    });
};
const box = element.getBoundingClientRect();
return {
    id: element.dataset.a11yStop || null,
    label: element.tagName.toLowerCase() + " " + (element.getAttribute("aria-label")
           || element.textContent || element.getAttribute("title") || "").trim().slice(0, 50),
    indicator: styles.some(shows) || ringDrawn(),
    inView: box.width > 0 && box.height > 0 && box.bottom > 0 && box.top < innerHeight
            && box.right > 0 && box.left < innerWidth,
};
"""


@pytest.mark.parametrize("page", KEYBOARD_PAGES)
def test_keyboard_reaches_every_control_with_a_visible_focus(browser, built_book, page):
    """Tab walks through every control of the page, and each one shows where focus is."""
    problems: list[str] = []
    open_page(browser, built_book / f"{page}.html", DESKTOP)
    stops = browser.execute_script(TAB_STOPS_JS)
    assert len(stops) > 10, f"{page}: only {len(stops)} focusable elements found"
    reached: list[str] = []
    for _ in range(2 * len(stops) + 20):
        press_tab(browser)
        focused = browser.execute_script(FOCUSED_JS)
        if focused is None:
            if reached:
                break  # focus left the page after its last control
            continue
        if reached and focused["id"] == reached[0]:
            break  # round the page and back to the first control
        reached.append(focused["id"])
        if not focused["indicator"]:
            problems.append(f"{page}: {focused['label']!r} has no visible focus indicator")
        if not focused["inView"]:
            problems.append(f"{page}: {focused['label']!r} is focused but not on screen")
    reached_ids = set(reached)
    reached_groups = {stop["group"] for stop in stops if stop["id"] in reached_ids}
    for stop in stops:
        if stop["id"] not in reached_ids and (stop["group"] is None
                                              or stop["group"] not in reached_groups):
            problems.append(f"{page}: the Tab key never reaches {stop['label']!r}")
    assert not problems, "Keyboard problems:\n" + "\n".join(problems)


def focus(driver, selector: str) -> bool:
    """Focus the first visible element matching ``selector``; False if there is none."""
    return driver.execute_script(
        """const element = [...document.querySelectorAll(arguments[0])]
               .find(e => e.checkVisibility({visibilityProperty: true}));
           if (!element) return false;
           element.scrollIntoView({block: "center"});
           element.focus();
           return document.activeElement === element;""",
        selector,
    )


def test_controls_work_with_the_keyboard(browser, built_book, book_docnames, axe_source):
    """The page's controls do their job with keys alone, and what they reveal passes axe."""
    problems: list[str] = []
    exercised: list[str] = []
    state = browser.execute_script

    def check(condition: bool, message: str) -> None:
        if not condition:
            problems.append(message)

    pages = site_pages(built_book)
    chapter = next(name for name in book_docnames
                   if "<details" in pages[name].read_text(encoding="utf-8"))
    open_page(browser, pages[chapter], DESKTOP)

    # A hidden code cell opens and closes with Enter.
    assert focus(browser, "details.hide > summary"), f"{chapter}: no hidden code cell to open"
    press(browser, "Enter", "Enter", 13)
    check(state("return document.activeElement.parentElement.open"),
          f"{chapter}: Enter did not open the hidden code cell")
    press(browser, "Enter", "Enter", 13)
    check(not state("return document.activeElement.parentElement.open"),
          f"{chapter}: a second Enter did not close the hidden code cell")
    exercised.append("hidden cell")

    # The colour-mode button cycles through the modes with Enter, keeps the focus so that
    # it can be pressed again, and says which mode is on.
    assert focus(browser, ".bd-header-article .theme-switch-button")
    modes = [state("return document.documentElement.dataset.mode")]
    for _ in range(3):
        press(browser, "Enter", "Enter", 13)
        modes.append(state("return document.documentElement.dataset.mode"))
        check(state("return document.activeElement.matches('.theme-switch-button')"),
              f"{chapter}: the colour-mode button lost the focus when pressed with Enter")
        label = state("return document.activeElement.getAttribute('aria-label')") or ""
        check(modes[-1] in label or (modes[-1] == "auto" and "system" in label),
              f"{chapter}: the colour-mode button is named {label!r} in mode {modes[-1]!r}")
    check(set(modes) == {"light", "dark", "auto"}, f"{chapter}: Enter on the colour-mode "
          f"button went through the modes {modes}, not light, dark and auto")
    set_colour_mode(browser, "light")
    exercised.append("colour mode")

    # A formula is no Tab stop, but it takes the focus (a click, a screen reader's cursor), and
    # Space then opens MathJax's menu (the expression explorer, "Include in Tab Order"); Escape
    # closes the menu and gives the focus back to the formula.
    assert focus(browser, "article mjx-container"), f"{chapter}: no formula takes the focus"
    press(browser, " ", "Space", 32)
    settle(browser)
    check(state("const menu = document.querySelector('.CtxtMenu_Menu');"
                "return Boolean(menu) && menu.checkVisibility() && menu.contains(document.activeElement)"),
          f"{chapter}: Space on a focused formula did not open MathJax's menu with the focus in it")
    press(browser, "Escape", "Escape", 27)
    settle(browser)
    check(state("return !document.querySelector('.CtxtMenu_Menu')"
                " && document.activeElement.matches('mjx-container')"),
          f"{chapter}: Escape did not close MathJax's menu and give the focus back to the formula")
    exercised.append("formula menu")

    # The download menu opens with Enter, its items are reached with the arrow keys, and
    # Escape closes it.
    assert focus(browser, ".dropdown-download-buttons > button.dropdown-toggle")
    press(browser, "Enter", "Enter", 13)
    settle(browser)
    check(state("return document.querySelector('.dropdown-download-buttons .dropdown-menu')"
                ".classList.contains('show')"), f"{chapter}: Enter did not open the download menu")
    problems += describe_violations(f"{chapter}: the open download menu",
                                    run_axe(browser, axe_source, ".dropdown-download-buttons"))
    press(browser, "ArrowDown", "ArrowDown", 40)
    check(state("return document.activeElement.classList.contains('dropdown-item')"),
          f"{chapter}: ArrowDown did not move into the download menu")
    press(browser, "Escape", "Escape", 27)
    settle(browser)
    check(not state("return document.querySelector('.dropdown-download-buttons .dropdown-menu')"
                    ".classList.contains('show')"), f"{chapter}: Escape did not close the menu")
    exercised.append("download menu")

    # Ctrl+K, the shortcut the search field announces, opens the search dialog with the
    # focus in its field; Escape closes it.
    shortcut = state("return document.querySelector('.search-button-field')"
                     ".getAttribute('aria-keyshortcuts')")
    check("Control+K" in (shortcut or "").split(), f"{chapter}: the search field announces "
          f"the shortcut {shortcut!r}, not Control+K")
    focus(browser, "main a[href]")
    press(browser, "k", "KeyK", 75, modifiers=2)
    settle(browser)
    check(state("return Boolean(document.activeElement.closest('#pst-search-dialog[open]'))"
                " && document.activeElement.matches('input')"),
          f"{chapter}: Ctrl+K did not put the focus in the search field")
    problems += describe_violations(f"{chapter}: the open search dialog",
                                    run_axe(browser, axe_source, "#pst-search-dialog"))
    press(browser, "Escape", "Escape", 27)
    settle(browser)
    check(not state("return document.querySelector('#pst-search-dialog').open"),
          f"{chapter}: Escape did not close the search dialog")
    exercised.append("search")

    # A solution (sphinx-togglebutton) opens with Enter on its button.
    for name in book_docnames:
        if "toggle" not in pages[name].read_text(encoding="utf-8"):
            continue
        open_page(browser, pages[name], DESKTOP)
        if not focus(browser, "button.toggle-button.toggle-button-hidden"):
            continue
        press(browser, "Enter", "Enter", 13)
        settle(browser)
        check(not state("return document.activeElement.closest('.toggle').classList"
                        ".contains('toggle-hidden')"), f"{name}: Enter did not open a solution")
        exercised.append("solution")
        break

    # A slider (an animation's frame) moves with the arrow keys.
    for name in book_docnames:
        if 'type="range"' not in pages[name].read_text(encoding="utf-8"):
            continue
        open_page(browser, pages[name], DESKTOP)
        assert focus(browser, "input[type=range]")
        value = state("return document.activeElement.value")
        press(browser, "ArrowRight", "ArrowRight", 39)
        check(state("return document.activeElement.value") != value,
              f"{name}: ArrowRight did not move the slider from {value}")
        exercised.append("slider")
        break

    assert {"hidden cell", "colour mode", "formula menu", "download menu", "search"} <= set(exercised)
    assert not problems, (f"Keyboard operation ({', '.join(exercised)}):\n"
                          + "\n".join(problems))
