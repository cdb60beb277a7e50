"""Fixtures of the marking page's tests: a browser that reaches a server on this machine.  The classes they
mark, graded once for the whole run, are ``tests/grader/conftest.py``'s ``graded_class`` and ``study_class``."""

import pytest

from tests.support.browser import chromium_driver


@pytest.fixture(scope="module")
def marking_browser(tmp_path_factory):
    """Headless Chromium for one test module, reaching the marking server on loopback
    (:func:`tests.support.browser.chromium_driver`)."""
    driver = chromium_driver(tmp_path_factory.mktemp("chromium-marking"))
    yield driver
    driver.quit()
