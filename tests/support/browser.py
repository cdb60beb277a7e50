"""The browser the tests drive: headless Chromium through selenium, offline, and the accessibility checkers in it.

The fixtures that start the browser are in ``tests/conftest.py`` and beside the tests that use one; every
one is started by :func:`chromium_driver`.  This module has what they and the tests share: viewport sizes,
opening a page and waiting
for MathJax and the images, screenshots, running axe-core's WCAG 2.1 A and AA
rules and HTML_CodeSniffer's WCAG 2 AA standard, and the check that a page
fits a phone's screen.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}

DESKTOP = {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}

# The pages whose screenshots the book's browser tests save in test-artifacts/.
SCREENSHOT_PAGES = ("book/index", "book/introduction", "book/hyperplanes")

AXE_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")

CHROMIUM_HELP = (
    "The browser tests need Chromium and ChromeDriver. Install them with "
    "`apt-get install chromium chromium-driver` (Debian/Ubuntu), or set CHROMIUM_BINARY "
    "and CHROMEDRIVER to their paths."
)


def chromium_driver(profile, *, loopback: bool = True, page_load_seconds: float = 60):
    """Headless Chromium with its own profile folder (its own cookies and storage), driven through selenium.

    Nothing it loads can come from the network: every request goes to a closed port, except, with
    ``loopback``, those to this machine's servers (a marking page, a hub), which Chromium never sends through a
    proxy.  Without it, loopback goes to the closed port too (the built book is opened from files).  Fails, with
    how to install them, when Chromium or ChromeDriver is missing."""
    import pytest

    chromium = find_executable("CHROMIUM_BINARY", ("/usr/bin/chromium", "chromium", "chromium-browser"))
    chromedriver = find_executable("CHROMEDRIVER", ("/usr/bin/chromedriver", "chromedriver"))
    if chromium is None or chromedriver is None:
        pytest.fail(f"{CHROMIUM_HELP} Found chromium={chromium}, chromedriver={chromedriver}.", pytrace=False)

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
                 "--disable-extensions", f"--user-data-dir={profile}", "--proxy-server=127.0.0.1:9",
                 "--window-size=1280,900"]
    if not loopback:
        arguments.append("--proxy-bypass-list=<-loopback>")
    for argument in arguments:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    driver.set_page_load_timeout(page_load_seconds)
    driver.set_script_timeout(60)
    return driver


def find_executable(variable: str, candidates: tuple[str, ...]) -> str | None:
    if os.environ.get(variable):
        return os.environ[variable] if Path(os.environ[variable]).is_file() else None
    for candidate in candidates:
        found = shutil.which(candidate)
        if found:
            return found
    return None


def open_page(driver, path: Path, viewport: dict) -> list[dict]:
    """Load a page at a viewport size, wait for MathJax and the images, return console errors."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", viewport)
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get(path.as_uri())
    wait_until_rendered(driver)
    return console_errors(driver)


def console_errors(driver) -> list[dict]:
    """The errors the browser's console logged since its log was last read (reading it empties it)."""
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def wait_until_rendered(driver) -> None:
    """Wait for the page in the browser to have loaded, MathJax (where the page has it) to have typeset it,
    and its images and fonts to have arrived: after :func:`open_page`'s load, or a navigation the page made."""
    driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const waitFor = (test, ms) => new Promise(resolve => {
            const start = Date.now();
            const poll = () => (test() || Date.now() - start > ms) ? resolve() : setTimeout(poll, 50);
            poll();
        });
        (async () => {
            await waitFor(() => document.readyState === "complete", 30000);
            if (document.querySelector('script[src*="mathjax"]')) {
                await waitFor(() => window.MathJax && MathJax.startup && MathJax.startup.promise, 30000);
                if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
                    await MathJax.startup.promise;
                }
            }
            await Promise.all([...document.images].map(img => {
                img.loading = "eager";
                return img.complete ? null : new Promise(resolve => {
                    img.addEventListener("load", resolve);
                    img.addEventListener("error", resolve);
                    setTimeout(resolve, 10000);
                });
            }));
            await document.fonts.ready;
            done();
        })().catch(error => done(String(error)));
        """
    )


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


def run_axe(driver, axe_source: str, context: str = "document") -> dict:
    """Run axe-core's WCAG 2.0/2.1 A and AA rules on the page (or a CSS selector's part).

    label-content-name-mismatch (WCAG 2.5.3, level A) is one of axe's experimental rules,
    off unless named, so it is named."""
    if not driver.execute_script("return Boolean(window.axe)"):
        driver.execute_script(axe_source)
    result = driver.execute_async_script(
        """
        const [tags, context, done] = arguments;
        axe.run(context === "document" ? document : context,
                {runOnly: {type: "tag", values: tags}, resultTypes: ["violations"],
                 rules: {"label-content-name-mismatch": {enabled: true}}})
            .then(result => done({
                version: axe.version,
                rules: result.passes.length + result.violations.length + result.incomplete.length,
                violations: result.violations.map(v => ({
                    id: v.id, help: v.help,
                    nodes: v.nodes.map(n => ({target: n.target.join(" "),
                                              summary: n.failureSummary}))})),
            }))
            .catch(error => done({error: String(error)}));
        """,
        list(AXE_TAGS), context,
    )
    if "error" in result:
        raise AssertionError(f"axe-core failed: {result['error']}")
    return result


def run_htmlcs(driver, htmlcs_source: str) -> dict:
    """HTML_CodeSniffer's run on the page under its WCAG2AA standard (which holds WCAG 2.1's AA success
    criteria): ``errors``, each with its code (the criterion and technique), its message, and the start of
    the element's HTML, and ``messages``, how many it gave of every type. Its warnings and notices ask a
    person to look; they are not failures, and are left out."""
    if not driver.execute_script("return Boolean(window.HTMLCS)"):
        driver.execute_script(htmlcs_source)
    result = driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        HTMLCS.process("WCAG2AA", document, () => done({messages: HTMLCS.getMessages().length,
            errors: HTMLCS.getMessages()
                .filter(message => message.type === HTMLCS.ERROR)
                .map(message => ({code: message.code, message: message.msg,
                                  html: (message.element && message.element.outerHTML
                                         ? message.element.outerHTML : String(message.element)).slice(0, 160)}))}),
            error => done({error: String(error)}), "en");
        """
    )
    if "error" in result:
        raise AssertionError(f"HTML_CodeSniffer failed: {result['error']}")
    return result


def checker_findings(driver, axe_source: str, htmlcs_source: str) -> list[str]:
    """What the two checkers find on the open page, one line each: axe-core's violations
    (:func:`run_axe`) and HTML_CodeSniffer's errors (:func:`run_htmlcs`)."""
    result = run_axe(driver, axe_source)
    assert result["rules"] > 0, result
    sniffed = run_htmlcs(driver, htmlcs_source)
    assert sniffed["messages"] > 0, sniffed
    return ([f"{v['id']}: {v['help']} ({', '.join(n['target'] for n in v['nodes'][:3])})"
             for v in result["violations"]]
            + [f"HTML_CodeSniffer {e['code']}: {e['message']} ({e['html'][:100]})" for e in sniffed["errors"]])


PHONE_LAYOUT_JS = """
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


def phone_layout_problems(driver) -> list[str]:
    """What is wrong with the layout of the page open at phone width (``PHONE``): a layout viewport
    wider than the phone, a page that scrolls sideways (with the elements that stick out), and
    images or figures that do not fit the screen."""
    layout = driver.execute_script(PHONE_LAYOUT_JS)
    problems = []
    if layout["viewport"] > PHONE["width"]:
        problems.append(f"the layout viewport is {layout['viewport']} px wide, not {PHONE['width']}: "
                        "the page ignores the phone's width")
    widest = max(layout["page"], layout["body"])
    if widest > layout["viewport"]:
        problems.append(f"the page is {widest} px wide on a {layout['viewport']} px screen, so it scrolls "
                        f"sideways; too wide: {layout['culprits']}")
    problems += [f"{item} on a {layout['viewport']} px screen" for item in layout["wide"]]
    return problems
