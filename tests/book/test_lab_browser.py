"""The perceptron lab of the online-learning chapter, run in headless Chromium.

The lab (``book/_static/lab/perceptron_lab.js``) is plain JavaScript that trains the
perceptron in the page. These tests drive it through its own controls (the preset menu,
the Step button, the arrow keys on a point, mouse clicks on the plot) and check:

- every visit (example, label, score, prediction, mistake, weights after) equals the
  visit of ``perceptron_lib.trace_perceptron`` on the same data, on each preset and on
  data edited with the keyboard, both in the lab's state and in its visible log;
- the bound it shows is ``mistake_bound`` of the lifted data for the separator it names;
- every control is reachable with Tab and shows a focus indicator, points move and flip
  with the keyboard, and each visit is announced in a live region;
- axe-core finds no WCAG 2.1 A/AA violation inside the lab, in light and dark mode;
- on a phone-sized screen the lab fits the page.

Screenshots of the lab go to ``test-artifacts/``. Needs a built book (``make book``),
Chromium, ChromeDriver and the axe-core that the book build installs (``make book``).
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import numpy as np
import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait

from perceptron_lib import (
    AveragedPerceptron,
    absorb_offset,
    four_point_example,
    make_xor,
    mistake_bound,
    one_dimensional_example,
    trace_perceptron,
)
# The browser and the artifacts folder are the book's browser tests' fixtures.
from tests.support.browser import DESKTOP, PHONE, console_errors, open_page, run_axe

pytestmark = pytest.mark.slow

LAB_PAGE = "book/online_learning"
MINUS = "\u2212"

# preset name in the lab -> (X, y) from the library, whether it learns an offset, and the
# epoch limit the test sets through the lab's "Max epochs" field.
PRESETS = {
    "four-point": (*four_point_example(), False, 100),
    "one-dimensional": (*one_dimensional_example(), True, 100),
    "xor": (*make_xor(4, spread=0.0), True, 10),
}


# ------------------------------------------------------------------------- helpers

def lab_state(driver) -> dict:
    return driver.execute_script("return PerceptronLab.instances[0].snapshot();")


def control(driver, selector: str):
    return driver.find_element(By.CSS_SELECTOR, f".perceptron-lab {selector}")


def click(driver, element) -> None:
    """Click like a reader: the element is scrolled to the middle of the screen first, out
    from under the theme's sticky header."""
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", element)
    element.click()


LAB_INTO_VIEW_JS = "document.querySelector('.perceptron-lab').scrollIntoView({block: 'start'});"


def open_lab(driver, built_book: Path, viewport: dict = DESKTOP, page: str = LAB_PAGE):
    errors = open_page(driver, built_book / f"{page}.html", viewport)
    assert not errors, f"console errors on {page}: {errors}"
    count = driver.execute_script("return window.PerceptronLab ? PerceptronLab.instances.length : 0;")
    assert count == 1, f"{page} should hold exactly one perceptron lab, found {count}"
    driver.execute_script(LAB_INTO_VIEW_JS)


# The lab's element as the book build writes it, before the lab's script fills it in.
LAB_ELEMENT = re.compile(r'<div class="perceptron-lab"[^>]*>')

# Puts a new lab in place of the page's (the element as built, arguments[0]) and starts it with the lab's own
# init, as the page's load does; the old lab's run is paused first, so no timer of it is left.
REMOUNT_LAB_JS = """
const old = document.querySelector(".perceptron-lab");
if (!old || !old.perceptronLab) { return 0; }
old.perceptronLab.pause();
const built = document.createElement("template");
built.innerHTML = arguments[0] + "</div>";
old.replaceWith(built.content.firstChild);
PerceptronLab.instances.length = 0;
PerceptronLab.init();
document.activeElement.blur();
return PerceptronLab.instances.length;
"""


def fresh_lab(driver, built_book: Path):
    """The online-learning chapter's lab as a reader finds it on opening the page, at desktop size.

    Loading the chapter is most of a lab test's time (its hundreds of formulas are typeset each time), and the
    tests of the lab's behaviour need only a lab that nothing has touched: when the chapter is already open at
    desktop size, its lab is replaced by a new one from the element the book build wrote, started as the page
    starts it. Otherwise, and for every test of the page itself (axe, colours, a phone's screen), the chapter
    is loaded (:func:`open_lab`)."""
    path = built_book / f"{LAB_PAGE}.html"
    if (driver.current_url != path.as_uri()
            or driver.execute_script("return window.innerWidth") != DESKTOP["width"]):
        open_lab(driver, built_book)
        return
    built = LAB_ELEMENT.findall(path.read_text(encoding="utf-8"))
    assert len(built) == 1, f"{LAB_PAGE} should hold exactly one perceptron lab element, found {built}"
    driver.get_log("browser")  # drop what earlier tests logged
    assert driver.execute_script(REMOUNT_LAB_JS, built[0]) == 1, "the new lab did not start"
    errors = console_errors(driver)
    assert not errors, f"console errors starting a new lab on {LAB_PAGE}: {errors}"
    driver.execute_script(LAB_INTO_VIEW_JS)


def choose_preset(driver, name: str, max_epochs: int) -> None:
    """Pick a data set and an epoch limit with the lab's own controls."""
    Select(control(driver, "select[id$='-preset']")).select_by_value(name)
    epochs = control(driver, "input[id$='-epochs']")
    epochs.send_keys(Keys.CONTROL, "a")
    epochs.send_keys(str(max_epochs), Keys.TAB)
    state = lab_state(driver)
    assert state["preset"] == name and state["maxEpochs"] == max_epochs and not state["history"]


def fmt(value: float) -> str:
    """The lab's number format: integers plainly, others to 4 decimals, a real minus sign."""
    value = float(value) + 0.0
    text = str(int(value)) if value.is_integer() else f"{round(value, 4):g}"
    return text.replace("-", MINUS)


def vec(values) -> str:
    return "(" + ", ".join(fmt(v) for v in values) + ")"


def signed(value: float) -> str:
    return ("+" if value > 0 else "") + fmt(value)


def compare_with_trace(lab_steps: list[dict], X, y, *, fit_intercept: bool, max_epochs: int) -> None:
    """Every visit of the lab equals the library's visit, exactly."""
    reference = trace_perceptron(X, y, fit_intercept=fit_intercept, max_epochs=max_epochs)
    assert len(lab_steps) == len(reference), (
        f"the lab made {len(lab_steps)} visits, trace_perceptron {len(reference)}")
    for k, (ours, ref) in enumerate(zip(lab_steps, reference)):
        expected = {
            "epoch": ref.epoch, "index": ref.index, "x": ref.x.tolist(), "y": ref.y,
            "score": ref.score, "prediction": ref.prediction, "mistake": ref.mistake,
            "w": ref.w.tolist(), "b": ref.b,
        }
        got = {key: ours[key] for key in expected}
        assert got == expected, f"visit {k + 1} differs from trace_perceptron"


def check_bound(state: dict, shown: str, X, y, *, fit_intercept: bool) -> None:
    """The bound shown is mistake_bound on the lifted data for the separator the run ended with."""
    bound = state["bound"]
    assert f"Mistakes so far: {state['mistakes']}." in shown
    if not state["converged"]:
        assert bound is None and "No bound" in shown
        return
    Z = absorb_offset(X) if fit_intercept else np.asarray(X)
    theta = np.append(state["w"], state["b"]) if fit_intercept else np.asarray(state["w"])
    assert bound["w"] == state["w"] and bound["b"] == state["b"]
    assert bound["bound"] == pytest.approx(mistake_bound(Z, y, theta), rel=1e-12)
    assert state["mistakes"] <= bound["bound"] * (1 + 1e-12)
    assert f"Bound (R/\u03b3)\u00b2 = {fmt(bound['bound'])}" in shown


def log_rows(driver) -> list[list[str]]:
    return driver.execute_script(
        """return [...document.querySelectorAll('.perceptron-lab .lab-log tbody tr')]
               .map(row => [...row.cells].map(cell => cell.textContent));""")


def expected_log_rows(X, y, *, fit_intercept: bool, max_epochs: int) -> list[list[str]]:
    return [
        [str(s.epoch), str(s.index + 1), vec(s.x), signed(s.y), fmt(s.score), signed(s.prediction),
         "yes" if s.mistake else "no", vec(s.w), fmt(s.b)]
        for s in trace_perceptron(X, y, fit_intercept=fit_intercept, max_epochs=max_epochs)
    ]


def live_text(driver) -> str:
    """The live region's text once the lab has written it (it clears it first)."""
    region = control(driver, ".lab-live")
    assert region.get_attribute("role") == "status"
    WebDriverWait(driver, 5).until(lambda d: region.get_attribute("textContent").strip())
    return region.get_attribute("textContent")


# ------------------------------------------------------------------------- the algorithm

@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_step_matches_trace_perceptron(browser, built_book, preset):
    X, y, fit_intercept, max_epochs = PRESETS[preset]
    fresh_lab(browser, built_book)
    choose_preset(browser, preset, max_epochs)
    state = lab_state(browser)
    assert state["X"] == np.asarray(X).tolist() and state["y"] == np.asarray(y).tolist(), (
        f"the lab's {preset} data are not the library's")
    assert state["fitIntercept"] is fit_intercept

    step = control(browser, "button.lab-step")
    reference = trace_perceptron(X, y, fit_intercept=fit_intercept, max_epochs=max_epochs)
    announced = []
    for visit in range(1, len(reference) + 1):
        click(browser, step)
        state = lab_state(browser)
        assert len(state["history"]) == visit, "one press of Step should make exactly one visit"
        last = state["history"][-1]
        announced.append(state["announced"])
        assert state["announced"].startswith(
            f"Epoch {last['epoch']}, example {last['index'] + 1} of {len(y)}: x = {vec(last['x'])}")
        assert ("Mistake" in state["announced"]) == last["mistake"]
    state = lab_state(browser)
    assert state["finished"], "the lab should stop where trace_perceptron stops"
    click(browser, step)  # a press after the end makes no visit, and says why
    after_end = lab_state(browser)
    assert len(after_end["history"]) == len(reference)
    assert announced[-1].endswith(" " + after_end["announced"])

    compare_with_trace(state["history"], X, y, fit_intercept=fit_intercept, max_epochs=max_epochs)
    click(browser, control(browser, "details:nth-of-type(2) summary"))  # open the log
    assert log_rows(browser) == expected_log_rows(X, y, fit_intercept=fit_intercept, max_epochs=max_epochs)
    check_bound(state, control(browser, ".lab-bound").text, X, y, fit_intercept=fit_intercept)
    converged = not any(s.mistake for s in reference if s.epoch == reference[-1].epoch)
    assert state["converged"] == converged
    assert ("converged" if converged else "may not be linearly separable") in announced[-1]
    assert live_text(browser) == after_end["announced"]


def test_random_data_sets_match_trace_perceptron(browser, built_book):
    """Twenty random data sets on the lab's quarter grid, with and without an offset, some
    separable and some not, loaded through the lab's setPoints and run to the end."""
    fresh_lab(browser, built_book)
    rng = np.random.default_rng(12)
    for case in range(20):
        n = int(rng.integers(1, 13))
        X = rng.integers(-12, 13, size=(n, 2)) / 4
        y = rng.choice([-1, 1], size=n)
        fit_intercept = bool(case % 2)
        max_epochs = int(rng.integers(1, 30))
        state = browser.execute_script(
            """const lab = PerceptronLab.instances[0];
               lab.offsetBox.checked = arguments[2];
               lab.offsetBox.dispatchEvent(new Event('change'));
               lab.epochsInput.value = String(arguments[3]);
               lab.epochsInput.dispatchEvent(new Event('change'));
               lab.setPoints(arguments[0].map((x, i) => ({x: x, y: arguments[1][i]})));
               lab.skipToEnd();
               return lab.snapshot();""",
            X.tolist(), y.tolist(), fit_intercept, max_epochs)
        assert state["X"] == X.tolist(), f"case {case}: the lab changed the data"
        try:
            compare_with_trace(state["history"], X, y, fit_intercept=fit_intercept, max_epochs=max_epochs)
        except AssertionError as error:
            raise AssertionError(f"case {case} (n={n}, fit_intercept={fit_intercept}, "
                                 f"max_epochs={max_epochs}): {error}") from error


# Run makes one visit per tick of window.setInterval (700 ms). The page's intervals are made
# twenty times shorter, so the test does not sit through the animation; the visits, their
# order and the buttons' states are the lab's own.
FASTER_INTERVALS_JS = """
const setInterval = window.setInterval.bind(window);
window.setInterval = (callback, milliseconds, ...rest) => setInterval(callback, milliseconds / 20, ...rest);
"""


BUTTON_LABELS_JS = """
const button = document.querySelector("button.lab-run");
window.runLabels = [button.textContent.trim()];
new MutationObserver(() => window.runLabels.push(button.textContent.trim()))
    .observe(button, {childList: true, characterData: true, subtree: true});
"""


def test_run_and_reset_buttons(browser, built_book):
    X, y, fit_intercept, max_epochs = PRESETS["four-point"]
    fresh_lab(browser, built_book)
    browser.execute_script(FASTER_INTERVALS_JS)
    # Every label the Run button shows, kept as it changes: on a busy machine the sped-up run can end before the
    # test reads the button, so "Pause" is looked for among them, not read once after the click.
    browser.execute_script(BUTTON_LABELS_JS)
    click(browser, control(browser, "button.lab-run"))
    WebDriverWait(browser, 20).until(lambda d: lab_state(d)["finished"])
    assert "Pause" in browser.execute_script("return window.runLabels"), "the Run button never said Pause while running"
    assert control(browser, "button.lab-run").text == "Run"
    compare_with_trace(lab_state(browser)["history"], X, y, fit_intercept=False, max_epochs=100)
    click(browser, control(browser, "button.lab-reset"))
    state = lab_state(browser)
    assert state["history"] == [] and state["w"] == [0, 0] and state["b"] == 0 and not state["finished"]
    click(browser, control(browser, "button.lab-skip"))
    compare_with_trace(lab_state(browser)["history"], X, y, fit_intercept=False, max_epochs=100)


def test_lifted_lab_on_the_offset_chapter_is_the_offset_perceptron(browser, built_book):
    """The offset chapter's lab runs through the origin on (x, 1): theta equals (w, b) at every visit."""
    X, y = one_dimensional_example()
    open_lab(browser, built_book, page="book/offset")
    state = lab_state(browser)
    assert state["preset"] == "one-dimensional-lifted" and state["fitIntercept"] is False
    assert state["X"] == absorb_offset(X).tolist() and state["y"] == y.tolist()
    step = control(browser, "button.lab-step")
    while not lab_state(browser)["finished"]:
        click(browser, step)
    lifted = lab_state(browser)["history"]
    compare_with_trace(lifted, absorb_offset(X), y, fit_intercept=False, max_epochs=100)
    with_offset = trace_perceptron(X, y, fit_intercept=True)
    assert [s["w"] for s in lifted] == [[*t.w, t.b] for t in with_offset]
    # The points slide along x2 = 1 only.
    control(browser, ".lab-point").send_keys(Keys.ARROW_UP)
    browser.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    assert lab_state(browser)["X"][0] == [1.25, 1]


def test_averaged_boundary_is_the_averaged_perceptron(browser, built_book):
    """The voted-and-averaged chapter's lab draws the AveragedPerceptron's weights."""
    open_lab(browser, built_book, page="book/voted_averaged")
    assert control(browser, "input[id$='-average']").is_selected()
    for preset in ("four-point", "xor"):
        X, y, fit_intercept, max_epochs = PRESETS[preset]
        choose_preset(browser, preset, max_epochs)
        click(browser, control(browser, "button.lab-skip"))
        state = lab_state(browser)
        compare_with_trace(state["history"], X, y, fit_intercept=fit_intercept, max_epochs=max_epochs)
        model = AveragedPerceptron(fit_intercept=fit_intercept, max_epochs=max_epochs)
        with pytest.warns(UserWarning) if preset == "xor" else contextlib.nullcontext():
            model.fit(X, y)
        average = state["average"]
        assert average["visits"] == len(state["history"])
        assert average["w"] == pytest.approx(model.coef_.tolist(), rel=1e-12, abs=1e-12)
        assert average["b"] == pytest.approx(model.intercept_, rel=1e-12, abs=1e-12)
        assert control(browser, ".lab-average").text.startswith("Averaged boundary (dash-dot)")
        if np.any(model.coef_ != 0):
            assert browser.find_elements(By.CSS_SELECTOR, ".perceptron-lab .lab-boundary-average")


# ------------------------------------------------------------------------- the keyboard

def focus_on(driver, label: str, seconds: float = 5):
    """Wait until the element with the focus is the one named ``label``; fail naming what has the focus."""
    def focused(d):
        return d.execute_script("const el = document.activeElement; return el && el.getAttribute('aria-label');")
    try:
        WebDriverWait(driver, seconds).until(lambda d: focused(d) == label)
    except Exception:
        raise AssertionError(f"the focus should be on {label!r}; it is on {focused(driver)!r}") from None


def tab_until(driver, predicate_js: str, limit: int = 60):
    """Press Tab until the focused element satisfies a JS predicate on `el`; return it."""
    for _ in range(limit):
        driver.switch_to.active_element.send_keys(Keys.TAB)
        if driver.execute_script(f"const el = document.activeElement; return Boolean({predicate_js});"):
            return driver.switch_to.active_element
    raise AssertionError(f"Tab never reached an element with {predicate_js}")


def test_every_control_is_reachable_by_tab_with_a_visible_focus(browser, built_book):
    fresh_lab(browser, built_book)
    click(browser, control(browser, "details:nth-of-type(2) summary"))  # the log box is focusable too
    browser.execute_script("document.querySelector('.perceptron-lab .lab-step').click();")
    expected = browser.execute_script(
        """const lab = document.querySelector('.perceptron-lab');
           const all = [...lab.querySelectorAll('button, select, input, summary, [tabindex]')]
               .filter(el => !el.disabled && el.getAttribute('tabindex') !== '-1' && el.getClientRects().length);
           all.forEach((el, k) => el.setAttribute('data-tab-probe', k));
           return all.length;""")
    browser.execute_script("document.querySelector('.perceptron-lab select').focus();")
    reached, unfocused = {0}, []
    for _ in range(expected + 5):
        browser.switch_to.active_element.send_keys(Keys.TAB)
        probe = browser.execute_script(
            """const el = document.activeElement;
               if (!el.closest('.perceptron-lab')) return null;
               const style = getComputedStyle(el);
               const ring = el.querySelector('.lab-focus-ring');
               const visible = ring ? getComputedStyle(ring).visibility === 'visible'
                                    : style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
               return [Number(el.getAttribute('data-tab-probe')), visible,
                       el.getAttribute('aria-label') || el.textContent.trim().slice(0, 30)];""")
        if probe is None:
            break
        reached.add(probe[0])
        if not probe[1]:
            unfocused.append(probe[2])
    assert reached == set(range(expected)), f"Tab reached {sorted(reached)} of {expected} controls"
    assert not unfocused, f"no visible focus indicator on: {unfocused}"
    names = browser.execute_script(
        """return [...document.querySelectorAll('.perceptron-lab [data-tab-probe]')]
               .filter(el => !(el.labels && el.labels.length) && !el.getAttribute('aria-label')
                             && !el.textContent.trim()).map(el => el.outerHTML.slice(0, 80));""")
    assert not names, f"controls without a label: {names}"


def test_points_move_and_flip_with_the_keyboard(browser, built_book):
    fresh_lab(browser, built_book)
    browser.execute_script("document.querySelector('.perceptron-lab select').focus();")
    point = tab_until(browser, "el.getAttribute('aria-label') === 'Point 2 at (0, \u22121), label \u22121'")

    point.send_keys(Keys.ARROW_RIGHT)
    # The lab draws the moved point anew and gives it the focus: the next key must wait for that element.
    focus_on(browser, f"Point 2 at (0.25, {MINUS}1), label {MINUS}1")
    browser.switch_to.active_element.send_keys(Keys.ARROW_UP)
    focus_on(browser, f"Point 2 at (0.25, {MINUS}0.75), label {MINUS}1")
    state = lab_state(browser)
    assert state["X"][1] == [0.25, -0.75] and state["history"] == []
    assert live_text(browser) == state["announced"]
    assert state["announced"].startswith(f"Point 2 moved to (0.25, {MINUS}0.75).")
    focused = browser.switch_to.active_element
    assert focused.get_attribute("aria-label") == f"Point 2 at (0.25, {MINUS}0.75), label {MINUS}1", (
        "the moved point should keep the focus")
    inputs = browser.find_elements(By.CSS_SELECTOR, ".perceptron-lab .lab-points tbody tr:nth-child(2) input")
    assert [i.get_attribute("value") for i in inputs] == ["0.25", "-0.75"]

    ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.ARROW_LEFT).key_up(Keys.SHIFT).perform()
    browser.switch_to.active_element.send_keys(Keys.SPACE)
    state = lab_state(browser)
    assert state["X"][1] == [-0.75, -0.75] and state["y"][1] == 1
    assert "now has label +1" in state["announced"]

    # The Delete key removes the focused point; the table's controls edit exactly.
    browser.switch_to.active_element.send_keys(Keys.DELETE)
    assert len(lab_state(browser)["y"]) == 3
    control(browser, "button.lab-add").send_keys(Keys.ENTER)
    assert lab_state(browser)["X"][3] == [0, 0]
    new_x = browser.switch_to.active_element  # the new row's first coordinate has the focus
    new_x.send_keys(Keys.CONTROL, "a")
    new_x.send_keys("-2.5", Keys.TAB)
    Select(browser.find_element(By.CSS_SELECTOR, ".perceptron-lab .lab-points tbody tr:nth-child(4) select")
           ).select_by_value("-1")
    state = lab_state(browser)
    assert state["X"][3] == [-2.5, 0] and state["y"][3] == -1

    # Run the edited data with the keyboard and compare with the library.
    control(browser, "button.lab-skip").send_keys(Keys.ENTER)
    state = lab_state(browser)
    compare_with_trace(state["history"], np.array(state["X"]), np.array(state["y"]),
                       fit_intercept=False, max_epochs=100)
    for _ in range(2):
        control(browser, "button.lab-reset").send_keys(Keys.ENTER)
        control(browser, "button.lab-step").send_keys(Keys.ENTER)
        assert live_text(browser).startswith("Epoch 1, example 1 of 4")


def test_points_are_placed_moved_and_flipped_with_the_mouse(browser, built_book):
    fresh_lab(browser, built_book)
    plot = control(browser, "svg.lab-plot")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'});", plot)

    def offset(x, y):
        """Pixel offset of a data point from the plot's centre, as ActionChains wants it."""
        return browser.execute_script(
            """const lab = PerceptronLab.instances[0], G = lab.geometry();
               const box = lab.svg.getBoundingClientRect(), k = box.width / G.width;
               return [Math.round((G.sx(arguments[0]) - G.width / 2) * k),
                       Math.round((G.sy(arguments[1]) - G.height / 2) * k)];""",
            x, y)

    ActionChains(browser).move_to_element_with_offset(plot, *offset(2, 2)).click().perform()
    state = lab_state(browser)
    assert state["X"][-1] == [2, 2] and state["y"][-1] == 1, "a click on the plot adds a point"
    ActionChains(browser).move_to_element_with_offset(plot, *offset(2, 2)).click().perform()
    assert lab_state(browser)["y"][-1] == -1, "a click on a point flips its label"
    dx, dy = np.subtract(offset(-2, 1.5), offset(2, 2))
    (ActionChains(browser).move_to_element_with_offset(plot, *offset(2, 2)).click_and_hold()
     .move_by_offset(int(dx // 2), int(dy // 2)).move_by_offset(int(dx - dx // 2), int(dy - dy // 2))
     .release().perform())
    state = lab_state(browser)
    assert state["X"][-1] == [-2, 1.5] and state["y"][-1] == -1 and len(state["y"]) == 5
    click(browser, control(browser, "button.lab-skip"))
    state = lab_state(browser)
    compare_with_trace(state["history"], np.array(state["X"]), np.array(state["y"]),
                       fit_intercept=False, max_epochs=100)


# ------------------------------------------------------------------------- accessibility and layout

def lab_violations(driver, axe_source: str) -> list[str]:
    """axe-core's WCAG A and AA rules, run on the lab."""
    result = run_axe(driver, axe_source, ".perceptron-lab")
    return [f"{v['id']} ({v['help']}): {node['target']}: {node['summary']}"
            for v in result["violations"] for node in v["nodes"]]


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_axe_finds_no_violation_in_the_lab(browser, built_book, axe_source, artifacts, mode):
    open_lab(browser, built_book)
    browser.execute_script("document.documentElement.dataset.theme = arguments[0];", mode)
    for summary in browser.find_elements(By.CSS_SELECTOR, ".perceptron-lab details:not([open]) summary"):
        click(browser, summary)
    for _ in range(3):
        click(browser, control(browser, "button.lab-step"))
    control(browser, ".lab-point").send_keys(Keys.ARROW_UP)  # a focused point, its ring shown
    click(browser, control(browser, "button.lab-step"))
    click(browser, control(browser, "button.lab-step"))
    browser.execute_script("document.querySelector('.perceptron-lab').scrollIntoView({block: 'start'});")
    browser.find_element(By.CSS_SELECTOR, ".perceptron-lab").screenshot(str(artifacts / f"lab-{mode}.png"))
    violations = lab_violations(browser, axe_source)
    assert not violations, f"axe-core ({mode} mode) finds in the lab:\n" + "\n".join(violations)


def parse_colour(css: str) -> tuple[float, float, float, float]:
    numbers = [float(v) for v in css[css.index("(") + 1 : css.index(")")].replace("/", ",").split(",")]
    return (*numbers[:3], numbers[3] if len(numbers) > 3 else 1.0)


def over(top: tuple, bottom: tuple) -> tuple:
    """A translucent colour painted on an opaque one."""
    alpha = top[3]
    return tuple(alpha * t + (1 - alpha) * b for t, b in zip(top[:3], bottom[:3])) + (1.0,)


def contrast(a: tuple, b: tuple) -> float:
    """WCAG 2 contrast ratio of two opaque colours."""
    def luminance(colour):
        channels = [c / 255 for c in colour[:3]]
        linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_plot_colours_meet_wcag_contrast(browser, built_book, mode):
    """axe-core does not judge SVG drawings: text in the plot needs 4.5:1, marks and lines 3:1,
    against the background and against the shaded positive side."""
    open_lab(browser, built_book)
    browser.execute_script("document.documentElement.dataset.theme = arguments[0];", mode)
    for _ in range(2):  # two updates: the plot shows the boundary before and after, and y x
        click(browser, control(browser, "button.lab-step"))
    colours = browser.execute_script(
        """const lab = document.querySelector('.perceptron-lab');
           const get = (selector, property) => {
               const node = lab.querySelector(selector);
               return node ? getComputedStyle(node)[property] : null; };
           return {
               background: getComputedStyle(lab).backgroundColor,
               shaded: get('.lab-positive-side', 'fill'),
               text: {tick: get('.lab-tick', 'fill'), number: get('.lab-point-number', 'fill'),
                      normal_label: get('.lab-normal-label', 'fill'),
                      update_label: get('.lab-update-label', 'fill')},
               graphics: {positive: get('.lab-pos .lab-mark', 'fill'), negative: get('.lab-neg .lab-mark', 'fill'),
                          boundary: get('.lab-boundary', 'stroke'), normal: get('.lab-normal', 'stroke'),
                          update: get('.lab-update', 'stroke'), visited: get('.lab-visit-ring', 'stroke'),
                          axis: get('.lab-axis', 'stroke'), before: get('.lab-boundary-before', 'stroke'),
                          focus: get('.lab-focus-ring', 'stroke')},
               signs: {positive: [get('.lab-pos .lab-sign', 'stroke'), get('.lab-pos .lab-mark', 'fill')],
                       negative: [get('.lab-neg .lab-sign', 'stroke'), get('.lab-neg .lab-mark', 'fill')]},
           };""")
    missing = [name for group in ("text", "graphics") for name, v in colours[group].items() if v is None]
    assert not missing, f"the plot should show {missing} after two updates"
    background = parse_colour(colours["background"])
    shaded = over(parse_colour(colours["shaded"]), background)
    low = []
    for group, needed in (("text", 4.5), ("graphics", 3.0)):
        for name, css in colours[group].items():
            for behind, label in ((background, "background"), (shaded, "shaded side")):
                ratio = contrast(parse_colour(css), behind)
                if ratio < needed:
                    low.append(f"{group} {name} {css} on the {label}: {ratio:.2f} < {needed}")
    for name, (sign, mark) in colours["signs"].items():
        ratio = contrast(parse_colour(sign), parse_colour(mark))
        if ratio < 3.0:
            low.append(f"the {name} sign {sign} on its mark {mark}: {ratio:.2f} < 3")
    assert not low, f"low contrast in {mode} mode:\n" + "\n".join(low)


def test_lab_fits_a_phone_screen(browser, built_book, artifacts):
    X, y, fit_intercept, max_epochs = PRESETS["one-dimensional"]
    open_lab(browser, built_book, PHONE)
    choose_preset(browser, "one-dimensional", max_epochs)
    click(browser, control(browser, "button.lab-skip"))
    compare_with_trace(lab_state(browser)["history"], X, y, fit_intercept=True, max_epochs=max_epochs)
    layout = browser.execute_script(
        """const box = document.querySelector('.perceptron-lab').getBoundingClientRect();
           return {left: box.left, right: box.right, viewport: document.documentElement.clientWidth,
                   page: document.documentElement.scrollWidth};""")
    assert layout["left"] >= 0 and layout["right"] <= layout["viewport"] + 1, layout
    assert layout["page"] <= layout["viewport"], f"the page scrolls sideways: {layout}"
    browser.execute_script("document.querySelector('.perceptron-lab').scrollIntoView({block: 'start'});")
    browser.save_screenshot(str(artifacts / "lab-phone.png"))
