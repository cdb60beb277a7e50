"""Fixtures of the marking page's tests: a browser that reaches a server on this machine.  The classes they
mark, graded once for the whole run, are ``tests/grader/conftest.py``'s ``graded_class`` and ``study_class``."""

import pytest

from tests.support.browser import CHROMIUM_HELP, find_executable


def chromium_driver(profile):
    """Headless Chromium with its own profile folder that reaches this machine's loopback (the marking server)
    and nothing beyond it."""
    chromium = find_executable("CHROMIUM_BINARY", ("/usr/bin/chromium", "chromium", "chromium-browser"))
    chromedriver = find_executable("CHROMEDRIVER", ("/usr/bin/chromedriver", "chromedriver"))
    if chromium is None or chromedriver is None:
        pytest.fail(f"{CHROMIUM_HELP} Found chromium={chromium}, chromedriver={chromedriver}.", pytrace=False)

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in (
        "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
        "--disable-extensions", f"--user-data-dir={profile}",
        # Loopback goes straight to the marking server (Chromium never sends it through a proxy); every other
        # request goes to a closed port, so nothing the page loads can come from the network.
        "--proxy-server=127.0.0.1:9", "--window-size=1280,900",
    ):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(chromedriver), options=options)
    driver.set_page_load_timeout(60)
    driver.set_script_timeout(60)
    return driver


@pytest.fixture(scope="module")
def marking_browser(tmp_path_factory):
    """Headless Chromium for one test module (see :func:`chromium_driver`)."""
    driver = chromium_driver(tmp_path_factory.mktemp("chromium-marking"))
    yield driver
    driver.quit()
