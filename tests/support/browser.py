"""The browser the tests drive: headless Chromium through selenium, offline, and axe-core in it.

The fixtures that start the browser are in ``tests/conftest.py``; this module
has what they and the tests share: viewport sizes, opening a page and waiting
for MathJax and the images, and running axe-core's WCAG 2.1 A and AA rules.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": True}

DESKTOP = {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False}

AXE_TAGS = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")

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


def run_axe(driver, axe_source: str, context: str = "document") -> dict:
    """Run axe-core's WCAG 2.0/2.1 A and AA rules on the page (or a CSS selector's part)."""
    if not driver.execute_script("return Boolean(window.axe)"):
        driver.execute_script(axe_source)
    result = driver.execute_async_script(
        """
        const [tags, context, done] = arguments;
        axe.run(context === "document" ? document : context,
                {runOnly: {type: "tag", values: tags}, resultTypes: ["violations"]})
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
