// MathJax 3 for the marking page: only what the server rendered as mathematics (elements of class "math",
// holding \( \) or \[ \]) is typeset; formulas stay out of the Tab order and carry MathML for screen readers,
// as in the course's book.
// A student's answer is typeset in the TA's page, so its TeX is untrusted: the macros that reach the page itself
// (\href, \class, \cssId, \style: MathJax's html extension, autoloaded) are left out, \require can load no
// extension, and MathJax's safe extension lets no formula set a link, a class, an id or a style by any other
// means either (\mmlToken's attributes), and keeps its sizes within bounds. An answer that uses the macros left
// out shows their names in red, as any unknown macro does.
window.MathJax = {
  loader: { load: ["ui/safe"] },
  tex: {
    inlineMath: [["\\(", "\\)"]], displayMath: [["\\[", "\\]"]], processEscapes: false,
    packages: { "[-]": ["require"] },
    autoload: { html: [] },
  },
  options: {
    safeOptions: { allow: { URLs: "none", classes: "none", cssIDs: "none", styles: "none" } },
    ignoreHtmlClass: "marking-page",
    processHtmlClass: "math",
    menuOptions: { settings: { assistiveMml: true, inTabOrder: false } },
  },
};
