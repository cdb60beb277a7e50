"""The built book in a real browser: headless Chromium, driven by selenium, with the
network switched off, opens every page from disk and checks what a reader would see.

- the mathematics is typeset by the local MathJax (no raw ``$...$`` or ``\\(...\\)`` left);
- every image has loaded and has alt text;
- the console shows no errors (a resource fetched from the network would be one);
- on a 390-pixel-wide phone screen the page does not scroll sideways and figures fit;
- accessibility (WCAG 2.1 AA): axe-core finds no violation on any page, in light and in
  dark mode, with every hidden cell and solution opened; the keyboard alone reaches every
  control, each with a visible focus indicator, and operates them; every formula carries
  MathML that the browser exposes to screen readers; every figure has alt text and a
  caption.

Screenshots of a few pages, at desktop and phone width and in dark mode, go to
``test-artifacts/``. Needs Chromium and ChromeDriver (Debian: ``apt-get install chromium
chromium-driver``) and a built book (``make book``, which also installs axe-core).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.browser import AXE_TAGS, DESKTOP, PHONE, open_page, run_axe

pytestmark = pytest.mark.slow

SCREENSHOT_PAGES = ("book/index", "book/introduction", "book/hyperplanes")
# LaTeX that MathJax should have replaced: \( \) \[ \] and $...$ holding TeX syntax.
RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\$[^$\n]*[\\^_{}][^$\n]*\$")

def page_paths(built_book: Path, book_docnames: list[str]) -> list[tuple[str, Path]]:
    return [(name, built_book / f"{name}.html") for name in book_docnames]


def site_pages(built_book: Path, book_docnames: list[str]) -> list[tuple[str, Path]]:
    """Every page of the site: the chapters and the pages Sphinx adds (search, indices).

    Skips the folders of assets and reports, and pages that only redirect elsewhere.
    """
    pages = []
    for path in sorted(built_book.rglob("*.html")):
        parts = path.relative_to(built_book).parts
        if any(part.startswith("_") or part == "reports" for part in parts[:-1]):
            continue
        if 'http-equiv="Refresh"' in path.read_text(encoding="utf-8")[:500]:
            continue
        pages.append((path.relative_to(built_book).with_suffix("").as_posix(), path))
    missing = set(book_docnames) - {name for name, _ in pages}
    assert not missing, f"the pages of these chapters were not built: {sorted(missing)}"
    return pages


def test_pages_render_offline(browser, built_book, book_docnames, artifacts):
    problems: list[str] = []
    pages_with_math = 0
    for name, path in page_paths(built_book, book_docnames):
        errors = open_page(browser, path, DESKTOP)
        problems += [f"{name}: console error: {entry['message']}" for entry in errors]

        math = browser.execute_script(
            """
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
            };
            """
        )
        if math["sources"]:
            pages_with_math += 1
            if math["untypeset"]:
                problems.append(f"{name}: {math['untypeset']} of {math['sources']} formulas "
                                "were not typeset by MathJax")
        if math["errors"]:
            problems.append(f"{name}: MathJax reports {math['errors']} TeX errors")
        for raw in RAW_TEX.findall(math["text"]):
            problems.append(f"{name}: untypeset TeX in the page text: {raw!r}")

        images = browser.execute_script(
            """return [...document.images].map(img => ({
                   src: img.getAttribute("src"), width: img.naturalWidth,
                   alt: (img.getAttribute("alt") || "").trim()}));"""
        )
        if name in SCREENSHOT_PAGES:
            save_screenshots(browser, name, "desktop", artifacts)
        for image in images:
            if len(image["src"] or "") > 80:  # an inline data: URL
                image["src"] = image["src"][:60] + "..."
            if image["width"] == 0:
                problems.append(f"{name}: image {image['src']} did not load")
            if not image["alt"]:
                problems.append(f"{name}: image {image['src']} has no alt text")
    assert pages_with_math, "no page has mathematics, so the MathJax check checked nothing"
    assert not problems, "Problems in the rendered book:\n" + "\n".join(problems)


def test_pages_fit_a_phone_screen(browser, built_book, book_docnames, artifacts):
    problems: list[str] = []
    for name, path in page_paths(built_book, book_docnames):
        errors = open_page(browser, path, PHONE)
        problems += [f"{name}: console error at phone width: {entry['message']}" for entry in errors]
        layout = browser.execute_script(
            """
            const viewport = document.documentElement.clientWidth;
            const wide = [...document.querySelectorAll("article img, article figure")]
                .map(node => [node.tagName.toLowerCase() + " " + (node.getAttribute("src") || node.id || ""),
                              node.getBoundingClientRect()])
                .filter(([, box]) => box.width > 0 && (box.left < -1 || box.right > viewport + 1))
                .map(([label, box]) => label + " spans " + Math.round(box.left) + ".." + Math.round(box.right));
            // Elements that stick out of the screen and are not inside a box that
            // scrolls or clips on its own: these make the page scroll sideways.
            const clipped = node => {
                for (let up = node.parentElement; up && up !== document.body; up = up.parentElement) {
                    if (["auto", "scroll", "hidden", "clip"].includes(getComputedStyle(up).overflowX)) {
                        return true;
                    }
                }
                return false;
            };
            const culprits = [...document.querySelectorAll("body *")]
                .filter(node => {
                    const box = node.getBoundingClientRect();
                    return box.width > 0 && box.right > viewport + 1 && !clipped(node);
                })
                .slice(0, 8)
                .map(node => node.tagName.toLowerCase() + "." + [...node.classList].join(".")
                     + " (" + (node.textContent || "").trim().slice(0, 40) + ")");
            return {viewport: viewport, page: document.documentElement.scrollWidth,
                    body: document.body.scrollWidth, wide: wide, culprits: culprits};
            """
        )
        if layout["viewport"] > PHONE["width"]:
            problems.append(f"{name}: the layout viewport is {layout['viewport']} px wide, "
                            f"not {PHONE['width']}: the page ignores the phone's width")
        widest = max(layout["page"], layout["body"])
        if widest > layout["viewport"]:
            problems.append(f"{name}: the page is {widest} px wide on a {layout['viewport']} px "
                            f"screen, so it scrolls sideways; too wide: {layout['culprits']}")
        problems += [f"{name}: {item} on a {layout['viewport']} px screen" for item in layout["wide"]]
        if name in SCREENSHOT_PAGES:
            save_screenshots(browser, name, "phone", artifacts)
    assert not problems, "Problems at phone width:\n" + "\n".join(problems)


def save_screenshots(driver, name: str, label: str, artifacts: Path) -> None:
    """Screenshots of the loaded page: its top, and its first figure if it has one."""
    stem = f"{name.replace('/', '-')}-{label}"
    driver.execute_script("window.scrollTo(0, 0)")
    driver.save_screenshot(str(artifacts / f"{stem}.png"))
    has_figure = driver.execute_script(
        """const figure = document.querySelector("article figure img");
           if (figure) { figure.scrollIntoView({block: "center"}); }
           return Boolean(figure);"""
    )
    if has_figure:
        driver.save_screenshot(str(artifacts / f"{stem}-figure.png"))


# --- accessibility ----------------------------------------------------------------------

COLOUR_MODES = ("light", "dark")
# The chapter chrome (header buttons, sidebars, search) is the same on every page; the
# keyboard walk covers it on the home page, plus every page with a form control.
KEYBOARD_PAGES = ("book/index",)
FORM_CONTROL = re.compile(r"<(input|select|textarea)\b", re.IGNORECASE)


# A script prefix: ``frame()`` waits for the next frame, and ``animationsDone(ms)`` for the
# finite CSS transitions and animations running now to end (at most ``ms``).
ANIMATION_WAIT_JS = """
const done = arguments[arguments.length - 1];
const frame = () => new Promise(resolve => requestAnimationFrame(() => resolve()));
const animationsDone = ms => {
    const running = document.getAnimations().filter(a => a.playState === "running"
        && a.effect && a.effect.getTiming().iterations !== Infinity);
    return Promise.race([Promise.all(running.map(a => a.finished.catch(() => null))),
                         new Promise(resolve => setTimeout(resolve, ms))]);
};
"""


def settle(driver) -> None:
    """Wait until CSS transitions and animations have finished and layout has caught up."""
    driver.execute_async_script(ANIMATION_WAIT_JS + """
        (async () => {
            await frame();
            await animationsDone(2000);
            await frame();
            await frame();
            done();
        })();
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
    # The button keeps the focus, which shows its tooltip; the scan is of the page.
    driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        document.activeElement.blur();
        const start = Date.now();
        const poll = () => (!document.querySelector(".tooltip") || Date.now() - start > 3000)
            ? done() : setTimeout(poll, 25);
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
};
"""


@pytest.fixture(scope="module")
def audit(browser, built_book, book_docnames, axe_source, artifacts) -> dict[str, dict]:
    """One visit to every page of the site for the accessibility tests.

    On each page: its figures as loaded; then, with every hidden cell and solution
    opened, its figures again, its formulas and the formulas in the browser's accessibility tree, and
    axe-core's results in light and in dark mode (switched with the theme's button).
    The home page is also checked at phone width, in both modes, as "<name> (phone)".
    """
    pages: dict[str, dict] = {}
    try:
        for name, path in site_pages(built_book, book_docnames):
            open_page(browser, path, DESKTOP)
            facts = {"figures": browser.execute_script(FIGURES_JS), "axe": {}, "background": {}}
            reveal_hidden_content(browser)
            # A figure in a closed solution is hidden with its caption until the solution
            # is opened; its caption is checked with the solution open.
            facts["figures_opened"] = browser.execute_script(FIGURES_JS)
            facts["math"] = browser.execute_script(MATH_JS)
            tree = browser.execute_cdp_cmd("Accessibility.getFullAXTree", {})["nodes"]
            facts["math"]["exposed"] = sum(
                1 for node in tree if not node.get("ignored")
                and node.get("role", {}).get("value") in ("math", "MathMLMath"))
            for mode in COLOUR_MODES:
                facts["background"][mode] = luminance(set_colour_mode(browser, mode))
                facts["axe"][mode] = run_axe(browser, axe_source)
                if mode == "dark" and name in SCREENSHOT_PAGES:
                    save_screenshots(browser, name, "desktop-dark", artifacts)
            pages[name] = facts
        # A phone shows the same content in another frame (menu buttons, no sidebars).
        home = book_docnames[0]
        open_page(browser, built_book / f"{home}.html", PHONE)
        phone = {"axe": {}, "background": {}}
        for mode in COLOUR_MODES:
            phone["background"][mode] = luminance(set_colour_mode(browser, mode))
            phone["axe"][mode] = run_axe(browser, axe_source)
        pages[f"{home} (phone)"] = phone
    finally:
        set_colour_mode(browser, "light")
    return pages


def test_pages_pass_axe_in_light_and_dark_mode(audit):
    """axe-core's WCAG 2.0 and 2.1 A and AA rules find nothing on any page, in either mode."""
    problems: list[str] = []
    counts: dict[str, int] = {}
    for name, facts in audit.items():
        for mode, result in facts["axe"].items():
            assert result["rules"] > 20, f"{name} ({mode}): axe-core ran only {result['rules']} rules"
            problems += describe_violations(f"{name} ({mode} mode)", result)
            for violation in result["violations"]:
                counts[violation["id"]] = counts.get(violation["id"], 0) + len(violation["nodes"])
    # The switch must really have changed the colours, or dark mode was never checked.
    light = [facts["background"]["light"] for facts in audit.values()]
    dark = [facts["background"]["dark"] for facts in audit.values()]
    assert max(dark) < 0.1 < min(light), (
        f"background luminance light {light}, dark {dark}: the colour-mode button did not "
        "switch the page's colours"
    )
    assert not problems, (
        f"axe-core {AXE_TAGS} violations, {sum(counts.values())} in all ({counts}):\n"
        + "\n".join(problems)
    )


def test_math_is_exposed_to_screen_readers(audit):
    """Each formula carries MathML (MathJax's assistive MathML), the browser's accessibility
    tree holds it as math, and the visual rendering is hidden so it is not read twice."""
    problems: list[str] = []
    formulas = 0
    for name, facts in audit.items():
        math = facts.get("math")
        if not math or not math["shown"]:
            continue
        formulas += math["shown"]
        if math["withoutMathml"]:
            problems.append(f"{name}: {math['withoutMathml']} of {math['shown']} formulas "
                            "have no assistive MathML")
        if math["visualNotHidden"]:
            problems.append(f"{name}: {math['visualNotHidden']} formulas do not hide their "
                            "visual rendering from screen readers (aria-hidden)")
        if math["exposed"] < math["shown"]:
            problems.append(f"{name}: the accessibility tree holds {math['exposed']} formulas, "
                            f"the page shows {math['shown']} (e.g. {math['example']!r})")
    assert formulas, "no page shows a formula, so nothing was checked"
    assert not problems, "Mathematics hidden from screen readers:\n" + "\n".join(problems)


def test_figures_have_alt_text_and_captions(audit):
    """Every figure has an image and a visible caption; every image in the text has alt
    text that describes it (more than a word or a file name)."""
    problems: list[str] = []
    figures = 0
    for name, facts in audit.items():
        found = facts.get("figures") or {"figures": [], "images": []}
        opened = (facts.get("figures_opened") or {"figures": []})["figures"]
        for index, figure in enumerate(found["figures"]):
            figures += 1
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
    assert figures, "no page has a figure, so nothing was checked"
    assert not problems, "Figures without a description or caption:\n" + "\n".join(problems)


def keyboard_pages(built_book: Path, book_docnames: list[str]) -> list[tuple[str, Path]]:
    pages = []
    for name, path in site_pages(built_book, book_docnames):
        html = path.read_text(encoding="utf-8")
        article = html[html.find("<article"):html.rfind("</article>")]
        if name in KEYBOARD_PAGES or FORM_CONTROL.search(article):
            pages.append((name, path))
    return pages


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
                label: element.tagName.toLowerCase() + " " + (element.getAttribute("aria-label")
                       || element.textContent || element.getAttribute("title") || "").trim().slice(0, 50)});
});
document.activeElement && document.activeElement.blur();
window.scrollTo(0, 0);
return stops;
"""

# The focused element, and whether it shows a focus indicator: an outline or a box-shadow
# on the element, on its ::before or ::after, or on a child (the theme draws some there),
# or for a drawn SVG control a stroked ring that only its focused state shows.
FOCUSED_JS = ANIMATION_WAIT_JS + """
(async () => {
    await frame();
    await animationsDone(1000);
    const element = document.activeElement;
    if (!element || element === document.body || element === document.documentElement) {
        return done(null);
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
    done({
        id: element.dataset.a11yStop || null,
        label: element.tagName.toLowerCase() + " " + (element.getAttribute("aria-label")
               || element.textContent || element.getAttribute("title") || "").trim().slice(0, 50),
        indicator: styles.some(shows) || ringDrawn(),
        inView: box.width > 0 && box.height > 0 && box.bottom > 0 && box.top < innerHeight
                && box.right > 0 && box.left < innerWidth,
    });
})();
"""


def test_keyboard_reaches_every_control_with_a_visible_focus(browser, built_book, book_docnames):
    """Tab walks through every control of the page, and each one shows where focus is."""
    problems: list[str] = []
    pages = keyboard_pages(built_book, book_docnames)
    for name, path in pages:
        open_page(browser, path, DESKTOP)
        stops = browser.execute_script(TAB_STOPS_JS)
        assert len(stops) > 10, f"{name}: only {len(stops)} focusable elements found"
        reached: list[str] = []
        for _ in range(2 * len(stops) + 20):
            press_tab(browser)
            focused = browser.execute_async_script(FOCUSED_JS)
            if focused is None:
                if reached:
                    break  # focus left the page after its last control
                continue
            if reached and focused["id"] == reached[0]:
                break  # round the page and back to the first control
            reached.append(focused["id"])
            if not focused["indicator"]:
                problems.append(f"{name}: {focused['label']!r} has no visible focus indicator")
            if not focused["inView"]:
                problems.append(f"{name}: {focused['label']!r} is focused but not on screen")
        reached_ids = set(reached)
        reached_groups = {stop["group"] for stop in stops if stop["id"] in reached_ids}
        for stop in stops:
            if stop["id"] not in reached_ids and (stop["group"] is None
                                                  or stop["group"] not in reached_groups):
                problems.append(f"{name}: the Tab key never reaches {stop['label']!r}")
    assert pages and not problems, "Keyboard problems:\n" + "\n".join(problems)


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

    pages = dict(site_pages(built_book, book_docnames))
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

    assert {"hidden cell", "colour mode", "download menu", "search"} <= set(exercised)
    assert not problems, (f"Keyboard operation ({', '.join(exercised)}):\n"
                          + "\n".join(problems))
