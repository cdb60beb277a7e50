// MathJax 3 for the marking page: only what the server rendered as mathematics (elements of class "math",
// holding \( \) or \[ \]) is typeset; formulas stay out of the Tab order and carry MathML for screen readers,
// as in the course's book.
// A student's answer is typeset in the TA's page, so its TeX is untrusted: the macros that reach the page itself
// (\href, \class, \cssId, \style: MathJax's html extension, autoloaded) are left out, \require can load no
// extension, and MathJax's safe extension filters what else a formula may set (links, classes, ids, styles,
// sizes). An answer that uses them shows the macro's name in red, as any unknown macro does.
window.MathJax = {
  loader: { load: ["ui/safe"] },
  tex: {
    inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]], processEscapes: false,
    packages: { "[-]": ["require"] },
    autoload: { html: [] },
  },
  options: {
    ignoreHtmlClass: "marking-page",
    processHtmlClass: "math",
    menuOptions: { settings: { assistiveMml: true, inTabOrder: false } },
  },
};
