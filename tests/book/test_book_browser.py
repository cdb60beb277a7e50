"""The built book on a phone, in headless Chromium driven by selenium with the network switched
off: at 390 pixels wide, every chapter opens without console errors, does not scroll sideways,
and its figures fit.

What every page shows at desktop width (typeset formulas, loaded images, no console errors) and
its accessibility are checked on one visit per page, in test_book_pages.py.

Screenshots of a few pages at phone width go to ``test-artifacts/``. Needs Chromium and
ChromeDriver (Debian: ``apt-get install chromium chromium-driver``) and a built book
(``make book``).
"""

from __future__ import annotations

import pytest

from tests.support import REPO_ROOT
from tests.support.book import toc_docnames
from tests.support.browser import PHONE, SCREENSHOT_PAGES, open_page, phone_layout_problems, save_screenshots

pytestmark = pytest.mark.slow

CHAPTERS = toc_docnames(REPO_ROOT / "_toc.yml")


@pytest.mark.parametrize("page", CHAPTERS)
def test_pages_fit_a_phone_screen(browser, built_book, page, artifacts):
    errors = open_page(browser, built_book / f"{page}.html", PHONE)
    problems = [f"console error at phone width: {entry['message']}" for entry in errors]
    problems += phone_layout_problems(browser)
    if page in SCREENSHOT_PAGES:
        save_screenshots(browser, page, "phone", artifacts)
    assert not problems, f"Problems of {page} at phone width:\n" + "\n".join(problems)
