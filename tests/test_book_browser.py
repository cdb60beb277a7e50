"""The built book in a real browser: headless Chromium, driven by selenium, with the
network switched off, opens every page from disk and checks what a reader would see.

- the mathematics is typeset by the local MathJax (no raw ``$...$`` or ``\\(...\\)`` left);
- every image has loaded and has alt text;
- the console shows no errors (a resource fetched from the network would be one);
- on a 390-pixel-wide phone screen the page does not scroll sideways and figures fit.

Screenshots of a few pages, at desktop and phone width, go to ``test-artifacts/``.
Needs Chromium and ChromeDriver (Debian: ``apt-get install chromium chromium-driver``)
and a built book (``make book``).
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}
DESKTOP = {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}
SCREENSHOT_PAGES = ("book/index", "book/introduction", "book/hyperplanes")
# LaTeX that MathJax should have replaced: \( \) \[ \] and $...$ holding TeX syntax.
RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\$[^$\n]*[\\^_{}][^$\n]*\$")

CHROMIUM_HELP = (
    "The browser tests need Chromium and ChromeDriver. Install them with "
    "`apt-get install chromium chromium-driver` (Debian/Ubuntu), or set CHROMIUM_BINARY "
    "and CHROMEDRIVER to their paths."
)


def find_executable(variable: str, candidates: tuple[str, ...]) -> str | None:
    if os.environ.get(variable):
        return os.environ[variable] if Path(os.environ[variable]).is_file() else None
    for candidate in candidates:
        found = shutil.which(candidate)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    chromium = find_executable("CHROMIUM_BINARY", ("/usr/bin/chromium", "chromium", "chromium-browser"))
    chromedriver = find_executable("CHROMEDRIVER", ("/usr/bin/chromedriver", "chromedriver"))
    if chromium is None or chromedriver is None:
        pytest.fail(f"{CHROMIUM_HELP} Found chromium={chromium}, chromedriver={chromedriver}.",
                    pytrace=False)

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--disable-default-apps", "--disable-extensions",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}",
        # Every request that leaves the machine, loopback included, goes to a closed port.
        "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
        "--window-size=1280,900",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    driver.set_network_conditions(offline=True, latency=0, download_throughput=0,
                                  upload_throughput=0)
    yield driver
    driver.quit()


@pytest.fixture(scope="module")
def artifacts(repo_root) -> Path:
    folder = repo_root / "test-artifacts"
    folder.mkdir(exist_ok=True)
    return folder


def open_page(driver, path: Path, viewport: dict) -> list[dict]:
    """Load a page at a viewport size, wait for MathJax and the images, return console errors."""
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", viewport)
    driver.get_log("browser")  # drop what earlier pages logged
    driver.get(path.as_uri())
    driver.execute_async_script(
        """
        const done = arguments[arguments.length - 1];
        const waitFor = (test, ms) => new Promise(resolve => {
            const start = Date.now();
            const poll = () => (test() || Date.now() - start > ms) ? resolve() : setTimeout(poll, 50);
            poll();
        });
        (async () => {
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
    return [entry for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def page_paths(built_book: Path, book_docnames: list[str]) -> list[tuple[str, Path]]:
    return [(name, built_book / f"{name}.html") for name in book_docnames]


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
