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

  function start() {
    watchScrollableBoxes();
    nameColourModeButtons();
    announceSearchShortcut();
    keepFocusAfterKeyPress();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
