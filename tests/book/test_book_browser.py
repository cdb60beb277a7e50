"""The built book in a real browser: headless Chromium, driven by selenium, with the
network switched off, opens every chapter from disk and checks what a reader would see.

- the mathematics is typeset by the local MathJax (no raw ``$...$`` or ``\\(...\\)`` left);
- every image has loaded and has alt text;
- the console shows no errors (a resource fetched from the network would be one);
- on a 390-pixel-wide phone screen the page does not scroll sideways and figures fit.

Accessibility has its own module, test_book_accessibility.py. Each check is a test of one
page, so that pytest-xdist's workers share the pages, each with a browser of its own.

Screenshots of a few pages, at desktop and phone width, go to ``test-artifacts/``. Needs
Chromium and ChromeDriver (Debian: ``apt-get install chromium chromium-driver``) and a built
book (``make book``).
"""

from __future__ import annotations

import re

import pytest

from tests.support import REPO_ROOT
from tests.support.book import article_html, toc_docnames
from tests.support.browser import DESKTOP, PHONE, SCREENSHOT_PAGES, open_page, phone_layout_problems, save_screenshots

pytestmark = pytest.mark.slow

# LaTeX that MathJax should have replaced: \( \) \[ \] and $...$ holding TeX syntax.
RAW_TEX = re.compile(r"\\\(|\\\)|\\\[|\\\]|\$\$|\$[^$\n]*[\\^_{}][^$\n]*\$")

CHAPTERS = toc_docnames(REPO_ROOT / "_toc.yml")


@pytest.mark.parametrize("page", CHAPTERS)
def test_pages_render_offline(browser, built_book, page, artifacts):
    path = built_book / f"{page}.html"
    problems = [f"console error: {entry['message']}" for entry in open_page(browser, path, DESKTOP)]

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
    if 'class="math' in article_html(path) and not math["sources"]:
        problems.append("the page's HTML holds formulas, but the browser finds none to check")
    if math["untypeset"]:
        problems.append(f"{math['untypeset']} of {math['sources']} formulas were not typeset by MathJax")
    if math["errors"]:
        problems.append(f"MathJax reports {math['errors']} TeX errors")
    for raw in RAW_TEX.findall(math["text"]):
        problems.append(f"untypeset TeX in the page text: {raw!r}")

    images = browser.execute_script(
        """return [...document.images].map(img => ({
               src: img.getAttribute("src"), width: img.naturalWidth,
               alt: (img.getAttribute("alt") || "").trim()}));"""
    )
    if page in SCREENSHOT_PAGES:
        save_screenshots(browser, page, "desktop", artifacts)
    for image in images:
        if len(image["src"] or "") > 80:  # an inline data: URL
            image["src"] = image["src"][:60] + "..."
        if image["width"] == 0:
            problems.append(f"image {image['src']} did not load")
        if not image["alt"]:
            problems.append(f"image {image['src']} has no alt text")
    assert not problems, f"Problems in the rendered page {page}:\n" + "\n".join(problems)


@pytest.mark.parametrize("page", CHAPTERS)
def test_pages_fit_a_phone_screen(browser, built_book, page, artifacts):
    errors = open_page(browser, built_book / f"{page}.html", PHONE)
    problems = [f"console error at phone width: {entry['message']}" for entry in errors]
    problems += phone_layout_problems(browser)
    if page in SCREENSHOT_PAGES:
        save_screenshots(browser, page, "phone", artifacts)
    assert not problems, f"Problems of {page} at phone width:\n" + "\n".join(problems)
