// MathJax 3 for the marking page: only what the server rendered as mathematics (elements of class "math",
// holding \( \) or \[ \]) is typeset; formulas stay out of the Tab order and carry MathML for screen readers,
// as in the course's book.
window.MathJax = {
  tex: { inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]], processEscapes: false },
  options: {
    ignoreHtmlClass: "marking-page",
    processHtmlClass: "math",
    menuOptions: { settings: { assistiveMml: true, inTabOrder: false } },
  },
};
