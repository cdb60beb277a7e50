"""Tests of the book as one PDF (book/build_pdf.py, ``make pdf``).

The slow tests build the PDF once per session, unless ``_build/pdf/perceptron-course.pdf``
is already newer than every file it is made from (``make test`` builds it just before),
and read it back with poppler's ``pdftotext`` and ``pdftohtml``. What they expect is read
from the book's sources, never written here: the chapter titles from ``_toc.yml`` and the
chapters, the theorems, lemmas, propositions, corollaries, algorithms and exercises from
their directives.

The fast tests check the pieces the build relies on: how the LaTeX log is read, and how
the perceptron lab is found in a chapter.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path
from xml.etree import ElementTree

import pytest

from tests.support import REPO_ROOT
from tests.support.book import BOOK, book_module, toc_docnames


build_pdf = book_module("build_pdf.py")  # puts book/_ext, whose extensions import one another, on the path
pdf_book = book_module("_ext/pdf_book.py")

# {prf:theorem} Title, with a fence of backticks or colons (colon_fence).
_DIRECTIVE = re.compile(r"^(?:`{3,}|:{3,})\{(?P<kind>prf:[a-z]+|exercise)\}[ \t]*(?P<title>.*)$",
                        re.MULTILINE)
_SOLUTION = re.compile(r"^(?:`{3,}|:{3,})\{(?:solution|solution-start)\}", re.MULTILINE)
_MATH = re.compile(r"\$[^$]+\$")
# Raw TeX that reached the page instead of being typeset.
_RAW_TEX = re.compile(r"\$[^$\n]{1,80}\$|\\[()\[\]]|\\(?:frac|gamma|cdot|mathbb|sqrt|sum|le|ge|lVert|"
                      r"operatorname|mathrm|text)\b")


def normal(text: str) -> str:
    """Lower-case letters and digits only: what survives line breaks, hyphenation and fonts.

    NFKC turns the PDF's ligatures (ﬃ) and mathematical italic letters (𝑤) into plain ones.
    """
    return re.sub(r"[^0-9a-z]+", "", unicodedata.normalize("NFKC", text).lower())


def title_pattern(title: str) -> str:
    """A regular expression for a title in ``normal`` text: its words, its mathematics skipped.

    Mathematics comes out of the PDF as symbols (γ, ², ∥), not as its TeX source.
    """
    words = [normal(part) for part in _MATH.split(title)]
    return ".{0,30}".join(re.escape(part) for part in words if part)


def chapter_titles() -> list[tuple[str, str]]:
    """(docname, title) of every chapter of _toc.yml, in order, from its first heading."""
    chapters = []
    for name in toc_docnames(REPO_ROOT / "_toc.yml")[1:]:  # the root is the preface
        text = (REPO_ROOT / f"{name}.md").read_text(encoding="utf-8")
        heading = re.search(r"^# (.+)$", text, re.MULTILINE)
        assert heading, f"{name}.md has no '# ' title"
        chapters.append((name, heading[1].strip()))
    return chapters


def book_directives() -> list[tuple[str, str, str]]:
    """(docname, kind, title) of every titled theorem-like block and exercise of the book."""
    found = []
    for name in toc_docnames(REPO_ROOT / "_toc.yml"):
        text = (REPO_ROOT / f"{name}.md").read_text(encoding="utf-8")
        for match in _DIRECTIVE.finditer(text):
            kind = match["kind"].removeprefix("prf:")
            if kind == "proof" or not match["title"].strip():
                continue
            found.append((name, kind, match["title"].strip()))
    return found


# --- the slow tests: the PDF itself ---------------------------------------------------------

@pytest.fixture(scope="session")
def book_pdf() -> Path:
    """The built PDF, built now unless it is newer than every source."""
    for tool in ("pdftotext", "pdftohtml"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing: the PDF's test reads the PDF with poppler-utils "
                        "(`tools/system-packages.sh pdf` installs it).", pytrace=False)
    if not build_pdf.pdf_is_current():
        result = subprocess.run([sys.executable, str(BOOK / "build_pdf.py")],
                                capture_output=True, text=True)
        assert result.returncode == 0, (
            f"book/build_pdf.py failed (exit code {result.returncode}):\n"
            f"{result.stdout[-6000:]}\n{result.stderr[-3000:]}")
    return build_pdf.PDF


@pytest.fixture(scope="session")
def pdf_text(book_pdf) -> str:
    return subprocess.run(["pdftotext", "-enc", "UTF-8", str(book_pdf), "-"],
                          capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="session")
def pdf_outline(book_pdf) -> list[tuple[str, int]]:
    """The PDF's outline (bookmarks) as (title, page), as poppler's pdftohtml reads it."""
    xml = subprocess.run(["pdftohtml", "-xml", "-i", "-q", "-stdout", str(book_pdf)],
                         capture_output=True, text=True, check=True).stdout
    outline = xml[xml.find("<outline>"):xml.rfind("</outline>") + len("</outline>")]
    if not outline:
        return []
    return [("".join(item.itertext()), int(item.get("page", 0)))
            for item in ElementTree.fromstring(outline).iter("item")]


@pytest.fixture(scope="session")
def pdf_bookmarks(pdf_outline) -> list[str]:
    return [title for title, _ in pdf_outline]


@pytest.mark.slow
def test_every_chapter_is_in_the_pdf_with_its_number(pdf_text):
    text = normal(pdf_text)
    missing = []
    for number, (name, title) in enumerate(chapter_titles(), start=1):
        # The table of contents lists "<number> <title>".
        if not re.search(re.escape(str(number)) + title_pattern(title), text):
            missing.append(f"{number}. {title} ({name}.md)")
    assert not missing, f"chapters missing from the PDF or numbered otherwise: {missing}"


@pytest.mark.slow
def test_every_chapter_has_a_bookmark(pdf_bookmarks):
    assert pdf_bookmarks, "the PDF has no bookmarks (outline)"
    marks = [normal(mark) for mark in pdf_bookmarks]
    missing = [title for _, title in chapter_titles()
               if not any(re.fullmatch(title_pattern(title), mark) for mark in marks)]
    assert not missing, f"chapters without a bookmark: {missing}; bookmarks: {pdf_bookmarks[:20]}"


@pytest.mark.slow
def test_every_theorem_algorithm_and_exercise_is_numbered_with_its_title(pdf_text):
    directives = book_directives()
    kinds = {kind for _, kind, _ in directives}
    assert {"theorem", "lemma", "proposition", "exercise"} <= kinds, kinds
    text = normal(pdf_text)
    missing = [f"{kind} '{title}' ({name}.md)" for name, kind, title in directives
               if not re.search(normal(kind) + r"\d+" + title_pattern(title), text)]
    assert not missing, "not in the PDF as '<Kind> <number> (<title>)':\n" + "\n".join(missing)


@pytest.mark.slow
def test_every_solution_is_printed(pdf_text):
    solutions = sum(len(_SOLUTION.findall((REPO_ROOT / f"{name}.md").read_text(encoding="utf-8")))
                    for name, _ in chapter_titles())
    printed = len(re.findall(r"Solution to Exercise \d+", pdf_text))
    assert solutions and printed >= solutions, (
        f"the chapters have {solutions} solutions; the PDF prints {printed}")


@pytest.mark.slow
def test_the_text_has_no_raw_tex_or_web_placeholders(pdf_text):
    problems = []
    for line_number, line in enumerate(pdf_text.splitlines(), start=1):
        for match in _RAW_TEX.finditer(line):
            problems.append(f"line {line_number}: raw TeX {match[0]!r} in {line.strip()!r}")
        for placeholder in ("MathJax", "<IPython.core.display", "object at 0x"):
            if placeholder in line:
                problems.append(f"line {line_number}: {placeholder!r} in {line.strip()!r}")
    assert not problems, "\n".join(problems[:30])


@pytest.mark.slow
def test_each_perceptron_lab_is_printed_as_a_figure_linking_its_page(pdf_text):
    chapters = [name for name, _ in chapter_titles()
                if 'class="perceptron-lab"' in (REPO_ROOT / f"{name}.md").read_text(encoding="utf-8")]
    assert chapters, "no chapter has a perceptron lab"
    text = " ".join(pdf_text.split())
    captions = text.count("The perceptron lab. ")
    assert captions >= len(chapters), f"{len(chapters)} labs, {captions} printed"
    missing = [name for name in chapters if f"{name}.html#" not in text.replace(" ", "")]
    assert not missing, f"no link to the lab's page for {missing}"


@pytest.mark.slow
def test_every_cited_work_is_in_the_bibliography(book_pdf, pdf_outline):
    bib = (BOOK / "references.bib").read_text(encoding="utf-8")
    titles = {entry["key"].strip(): re.search(r"^\s*title\s*=\s*\{(.*)\},?\s*$", entry["body"], re.M)[1]
              for entry in re.finditer(r"@\w+\{(?P<key>[^,]+),(?P<body>.*?)\n\}", bib, re.S)}
    cited = set()
    for name, _ in chapter_titles():
        text = (REPO_ROOT / f"{name}.md").read_text(encoding="utf-8")
        for keys in re.findall(r"\{cite(?::[a-z]+)?\}`([^`]+)`", text):
            cited.update(key.strip() for key in keys.split(","))
    assert cited, "no chapter cites anything"
    unknown = cited - set(titles)
    assert not unknown, f"cited but not in references.bib: {unknown}"
    # The bibliography chapter: the pages from its bookmark on.
    chapter = next((name, title) for name, title in chapter_titles()
                   if "{bibliography}" in (REPO_ROOT / f"{name}.md").read_text(encoding="utf-8"))
    pages = [page for mark, page in pdf_outline if normal(mark) == normal(chapter[1])]
    assert pages, f"no bookmark for the chapter {chapter[1]!r}"
    listed = normal(subprocess.run(["pdftotext", "-enc", "UTF-8", "-f", str(pages[0]), str(book_pdf), "-"],
                                   capture_output=True, text=True, check=True).stdout)
    missing = [key for key in sorted(cited) if normal(titles[key])[:40] not in listed]
    assert not missing, f"cited works missing from the PDF's bibliography: {missing}"


@pytest.mark.slow
def test_web_pages_built_after_the_pdf_link_to_it(book_pdf, built_book):
    index = built_book / "book" / "index.html"
    assert index.stat().st_mtime >= book_pdf.stat().st_mtime, (
        "the HTML book is older than the PDF, so it cannot link to it: build the HTML after the PDF "
        "(`make test` does)")
    copy = built_book / pdf_book.PDF_NAME
    assert copy.is_file() and copy.read_bytes() == book_pdf.read_bytes(), (
        f"{copy} is not a copy of {book_pdf}")
    page = index.read_text(encoding="utf-8")
    assert f'href="../{pdf_book.PDF_NAME}"' in page and "The whole book as a PDF" in page


# --- the fast tests: reading LaTeX's log, finding the lab -----------------------------------

LOG = r"""This is XeTeX, Version 3.141592653-2.6-0.999994 (TeX Live 2022/Debian)
Overfull \hbox (22.51353pt too wide) in paragraph at lines 10191--10191
[]$[][][] [][]$|
Package hyperref Warning: Token not allowed in a PDF string (Unicode):
(hyperref)                removing `math shift' on input line 6196.
LaTeX Warning: Reference `book/convergence:ex-scaling' on page 91 undefined on input line 5809.
Missing character: There is no γ (U+03B3) in font Latin Modern Roman 10 Regular/OT:script=latn;language=dflt;!
Package fancyhdr Warning: \headheight is too small (12.0pt):
(fancyhdr)                Make it at least 13.59999pt.
Package tabulary Warning: No suitable columns! on input line 201.
Underfull \hbox (badness 10000) in paragraph at lines 20--21
"""


def test_the_latex_log_fails_on_undefined_references_and_missing_characters():
    log = build_pdf.read_latex_log(LOG)
    assert len(log.warnings) == 3, log.warnings
    assert "ex-scaling" in log.warnings[0]
    assert log.warnings[1].startswith("Missing character: There is no γ")
    assert "Make it at least 13.59999pt" in log.warnings[2], "a warning's second line is kept"
    assert not log.errors


def test_the_latex_log_tolerates_bookmark_mathematics_and_fixed_width_tables_and_lists_overfull_lines():
    log = build_pdf.read_latex_log(LOG)
    assert log.tolerated == {"Package hyperref Warning: Token not allowed in a PDF string": 1,
                             "Package tabulary Warning: No suitable columns!": 1}
    assert log.overfull == [(22.51353, "in paragraph at lines 10191--10191")]


def test_the_latex_log_reports_errors_with_their_context():
    log = build_pdf.read_latex_log("! Undefined control sequence.\nl.12 \\foo\n   bar\nmore\n")
    assert log.errors == ["! Undefined control sequence.\nl.12 \\foo\n   bar"]


def test_the_lab_is_found_with_its_settings():
    html = ('<div class="perceptron-lab" data-preset="four-point" data-averaged="on">\n'
            '  <p class="lab-noscript">needs JavaScript</p>\n</div>')
    assert pdf_book.lab_attributes(html) == {"data-preset": "four-point", "data-averaged": "on"}
    assert pdf_book.lab_attributes("<div class='other'></div>") is None


def test_every_lab_preset_of_the_chapters_can_be_printed(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    for name, _ in chapter_titles():
        text = (REPO_ROOT / f"{name}.md").read_text(encoding="utf-8")
        for match in re.finditer(r'<div class="perceptron-lab"[^>]*>', text):
            attributes = pdf_book.lab_attributes(match[0])
            preset = attributes.get("data-preset", "four-point")
            assert preset in pdf_book.LAB_PRESETS, f"{name}.md: unknown preset {preset!r}"
            figure = tmp_path / f"{preset}.pdf"
            caption = pdf_book.draw_lab_run(preset, attributes.get("data-averaged") == "on", figure)
            assert figure.stat().st_size > 1000 and "mistakes" in caption[0].astext()
