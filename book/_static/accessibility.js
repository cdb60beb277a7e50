/* Keyboard and screen-reader fixes to the behaviour of pydata-sphinx-theme.
 *
 * 1. A code block or output that scrolls sideways must be reachable with the keyboard,
 *    or a reader without a mouse cannot see its end (WCAG 2.1.1). The theme gives such
 *    boxes tabindex="0" when the page loads and when the window is resized, but not
 *    when a hidden cell or a solution is opened later: a box inside it was measured
 *    while hidden, found not to scroll, and left out of the tab order. Here every such
 *    box is measured again whenever its size changes.
 * 2. The colour-mode button says which mode is on ("Color mode: dark"), so a screen
 *    reader user hears what each press did.
 * 3. The search field announces its shortcut, which the theme binds to Cmd+K on a Mac.
 * 4. sphinx-book-theme takes the focus away from the colour-mode, search and sidebar
 *    buttons whenever they are clicked, to hide their tooltips. A key press then leaves
 *    the focus on no control at all: a keyboard user cannot press the same button
 *    again, and a screen reader jumps to the top of the page (WCAG 2.4.3). The focus
 *    goes back to the button when it was pressed from the keyboard and nothing else
 *    (a dialog the button opened) took the focus.
 * 5. Formulas are not Tab stops (MathJax's inTabOrder setting is off in _config.yml):
 *    a chapter holds hundreds, and a keyboard user would press Tab through each one
 *    to cross a proof. Screen readers read a formula from its hidden MathML without
 *    focusing it. Each formula still takes the focus when it is clicked or when a
 *    screen reader's cursor moves the focus to it (tabindex="-1"), and then Space or
 *    the context-menu key opens MathJax's menu: its expression explorer, and its
 *    "Include in Tab Order" setting for a reader who wants every formula a Tab stop
 *    (MathJax saves that choice, and then sets tabindex="0" itself). A displayed
 *    formula wider than the text scrolls sideways, and is a Tab stop while it does,
 *    for the reason of point 1.
 */
(function () {
  "use strict";

  // The boxes the theme makes focusable when they scroll (pydata-sphinx-theme 0.17).
  const SCROLLABLE = [
    "pre",
    ".nboutput > .output_area",
    ".cell_output > .output",
    ".jp-RenderedHTMLCommon",
    ".pst-scrollable-table-container",
  ].join(", ");

  function updateTabStop(box) {
    const scrolls = box.scrollWidth > box.clientWidth || box.scrollHeight > box.clientHeight;
    box.tabIndex = scrolls ? 0 : -1;
  }

  function watchScrollableBoxes() {
    if (!("ResizeObserver" in window)) {
      return;
    }
    const observer = new ResizeObserver((entries) => {
      entries.forEach((entry) => updateTabStop(entry.target));
    });
    document.querySelectorAll(SCROLLABLE).forEach((box) => observer.observe(box));
  }

  const MODE_NAMES = { light: "light", dark: "dark", auto: "system setting" };

  function nameColourModeButtons() {
    const root = document.documentElement;
    const update = () => {
      const mode = MODE_NAMES[root.dataset.mode] || root.dataset.mode || MODE_NAMES.auto;
      document.querySelectorAll(".theme-switch-button").forEach((button) => {
        button.setAttribute("aria-label", `Color mode: ${mode}`);
      });
    };
    new MutationObserver(update).observe(root, { attributes: true, attributeFilter: ["data-mode"] });
    update();
  }

  const BLURRED_ON_CLICK = [".theme-switch-button", ".search-button", ".primary-toggle",
                            ".secondary-toggle"].join(", ");

  function keepFocusAfterKeyPress() {
    document.querySelectorAll(BLURRED_ON_CLICK).forEach((button) => {
      button.addEventListener("click", (event) => {
        // A click from Enter or Space has no pointer, hence detail 0.
        const nowhere = !document.activeElement || document.activeElement === document.body;
        if (event.detail === 0 && nowhere) {
          button.focus();
        }
      });
    });
  }

  function announceSearchShortcut() {
    // The same test as pydata-sphinx-theme's for the key that opens the search.
    const mac = navigator.platform.indexOf("Mac") === 0 || navigator.platform === "iPhone";
    if (mac) {
      document.querySelectorAll(".search-button-field[aria-keyshortcuts]").forEach((button) => {
        button.setAttribute("aria-keyshortcuts", "Meta+K");
      });
    }
  }

  // A displayed formula scrolls when it is wider than the text: pydata-sphinx-theme gives
  // the <mjx-container> in a div.math overflow: auto.
  const SCROLLABLE_FORMULA = "div.math > mjx-container";

  // Only a Tab stop made here is taken away again, not one the reader asked MathJax for.
  function updateFormulaTabStop(formula) {
    const scrolls = formula.scrollWidth > formula.clientWidth;
    if (scrolls && formula.tabIndex < 0) {
      formula.tabIndex = 0;
      formula.setAttribute("data-scroll-stop", "");
    } else if (!scrolls && formula.hasAttribute("data-scroll-stop")) {
      formula.tabIndex = -1;
      formula.removeAttribute("data-scroll-stop");
    }
  }

  // MathJax inserts each typeset formula as an <mjx-container>, when the page loads and
  // again whenever its menu makes it typeset the page anew.
  function keepFormulasFocusable() {
    const resized = "ResizeObserver" in window
      ? new ResizeObserver((entries) => entries.forEach((entry) => updateFormulaTabStop(entry.target)))
      : null;
    const makeFocusable = (formula) => {
      if (!formula.hasAttribute("tabindex")) {
        formula.setAttribute("tabindex", "-1");
      }
      if (resized && formula.matches(SCROLLABLE_FORMULA)) {
        resized.observe(formula);
      }
    };
    const visit = (node) => {
      if (node.nodeType !== Node.ELEMENT_NODE) {
        return;
      }
      if (node.matches("mjx-container")) {
        makeFocusable(node);
      } else if (node.firstElementChild) {
        node.querySelectorAll("mjx-container").forEach(makeFocusable);
      }
    };
    new MutationObserver((records) => {
      records.forEach((record) => record.addedNodes.forEach(visit));
    }).observe(document.body, { childList: true, subtree: true });
    document.querySelectorAll("mjx-container").forEach(makeFocusable);
  }

  function start() {
    watchScrollableBoxes();
    nameColourModeButtons();
    announceSearchShortcut();
    keepFocusAfterKeyPress();
    keepFormulasFocusable();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
