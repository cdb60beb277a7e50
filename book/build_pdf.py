"""Build the whole book as one PDF, ``_build/pdf/perceptron-course.pdf`` (``make pdf``).

Sphinx's LaTeX builder (through ``jupyter-book build --builder latex``) writes
``_build/latex/perceptron-course.tex``, and latexmk runs XeLaTeX on it until every
cross-reference is resolved. The chapters are not executed a second time: their outputs
come from the jupyter-cache that the HTML build (book/build.py) fills, and the other way
round.

The build is strict, as the HTML build is: a Sphinx warning is an error, and so is any
LaTeX warning except those in ``TOLERATED_WARNINGS``, each with the reason it is harmless;
an undefined reference or citation and a character missing from the fonts fail the build.
Overfull lines are listed with their source lines but do not fail it.

The PDF is also copied to the top of the HTML build (when there is one), where the pages'
link to it points; book/_ext/pdf_book.py adds that link to the pages built after the PDF.
It is built again only when a file it is made from (``SOURCES``) is newer than it.

The TeX side needs XeLaTeX, latexmk and the LaTeX packages of Debian's TeX Live
(``tools/system-packages.sh pdf`` installs them). Usage, from anywhere::

    .venv/bin/python book/build_pdf.py
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

BOOK = Path(__file__).resolve().parent


def _load(name: str, path: Path):
    """A module of book/ by its path: book/ is not a package, and "build" is a common name."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


build = _load("book_build", BOOK / "build.py")  # the jupyter-book run and its reports
# The extensions of book/_ext import one another by name, as Sphinx (local_extensions in _config.yml) lets them.
sys.path.append(str(BOOK / "_ext"))
PDF_NAME = _load("book_pdf_extension", BOOK / "_ext" / "pdf_book.py").PDF_NAME

ROOT = build.ROOT
LATEX = build.BUILD / "latex"
PDF_DIR = build.BUILD / "pdf"
PDF = PDF_DIR / PDF_NAME
TEX_NAME = Path(PDF_NAME).with_suffix(".tex").name

# Each tolerated LaTeX warning, and why it is harmless.
TOLERATED_WARNINGS = {
    "Package hyperref Warning: Token not allowed in a PDF string":
        "a heading holds mathematics; its PDF bookmark keeps the symbols and drops the "
        "math-mode switches",
    # tabulary 0.11 (TeX Live 2023 and later) says this of a table that a {tabularcolumns}
    # gives fixed widths only (\X, as the chapter map's), where it has nothing to balance;
    # it sets the columns at the widths given, as earlier versions did without a word.
    "Package tabulary Warning: No suitable columns!":
        "a table whose column widths the book fixes; tabulary sets them as given",
}
# Debian packages of what the TeX side runs (tools/system-packages.sh pdf).
TEX_COMMANDS = {"xelatex": "texlive-xetex", "latexmk": "latexmk"}

_WARNING = re.compile(r"^(?:LaTeX|Package|Class) (?:\S+ )?Warning: .*|^Missing character: .*")
_OVERFULL = re.compile(r"^Overfull \\hbox \((?P<points>[\d.]+)pt too wide\) (?P<where>.*)$")
_ERROR = re.compile(r"^! ")


class PdfBuildError(RuntimeError):
    """A step of the PDF build failed; the message says what to do."""


@dataclass
class LatexLog:
    """What a LaTeX log says about the typeset book."""

    errors: list[str] = field(default_factory=list)       # "! ..." lines with their context
    warnings: list[str] = field(default_factory=list)     # warnings that fail the build
    tolerated: dict[str, int] = field(default_factory=dict)  # tolerated warning -> count
    overfull: list[tuple[float, str]] = field(default_factory=list)  # (points, where)


def read_latex_log(text: str) -> LatexLog:
    """Sort the lines of a LaTeX log (written with ``max_print_line`` large, unwrapped)."""
    log = LatexLog()
    lines = text.splitlines()
    for number, line in enumerate(lines):
        if _ERROR.match(line):
            log.errors.append("\n".join(lines[number:number + 3]))
            continue
        overfull = _OVERFULL.match(line)
        if overfull:
            log.overfull.append((float(overfull["points"]), overfull["where"]))
            continue
        if not _WARNING.match(line):
            continue
        # A package's warning goes on in lines that start with its name in parentheses.
        message = line
        for follow in lines[number + 1:number + 4]:
            if not follow.startswith("("):
                break
            message += " " + follow.split(")", 1)[-1].strip()
        tolerated = next((key for key in TOLERATED_WARNINGS if line.startswith(key)), None)
        if tolerated is not None:
            log.tolerated[tolerated] = log.tolerated.get(tolerated, 0) + 1
        else:
            log.warnings.append(message)
    return log


# What the PDF is made from: a file newer than the PDF makes it out of date.
SOURCES = ("_config.yml", "_toc.yml", "book", "perceptron_lib")


def pdf_is_current(pdf: Path = PDF) -> bool:
    """Whether ``pdf`` exists and is newer than every file it is built from.

    ``make pdf`` and the test of the PDF build it only when it is not.
    """
    if not pdf.is_file():
        return False
    built = pdf.stat().st_mtime
    return not any(file.stat().st_mtime > built for source in SOURCES for file in build.source_files(ROOT / source))


def check_tex_commands() -> None:
    """Stop with the Debian packages to install when XeLaTeX or latexmk is missing."""
    missing = sorted({package for command, package in TEX_COMMANDS.items()
                      if shutil.which(command) is None})
    if missing:
        raise PdfBuildError(
            f"The PDF needs XeLaTeX and latexmk; missing: {', '.join(missing)}. Install "
            "Debian's TeX Live with `tools/system-packages.sh pdf` (as root; `make pdf` "
            "runs it), or `apt-get install texlive-xetex texlive-latex-extra latexmk`."
        )


def run_latexmk() -> tuple[int, str]:
    """Run latexmk with XeLaTeX in ``_build/latex``; return its exit code and output."""
    env = dict(os.environ)
    # One log line per message, so that read_latex_log sees whole warnings.
    env["max_print_line"] = "100000"
    command = ["latexmk", "-pdfxe", "-interaction=nonstopmode", "-halt-on-error",
               "-file-line-error", TEX_NAME]
    result = subprocess.run(command, cwd=LATEX, env=env, capture_output=True, text=True)
    return result.returncode, result.stdout + result.stderr


def main() -> int:
    start = time.perf_counter()
    if pdf_is_current():
        print(f"[pdf] {PDF.relative_to(ROOT)} is newer than everything it is built from "
              f"({', '.join(SOURCES)}): not built again")
        return 0
    try:
        check_tex_commands()
    except PdfBuildError as error:
        print(f"[pdf] {error}", file=sys.stderr)
        return 1
    if not build.RELEASE.is_dir():
        print("[pdf] notebooks/release/ does not exist yet: each chapter's assignment link "
              "will fail the build until `make assignments` (python -m autograder release) "
              "has run.")
    # The .tex, its images and LaTeX's auxiliary files are all rewritten from scratch.
    shutil.rmtree(LATEX, ignore_errors=True)

    returncode, lines = build.run_jupyter_book("latex")
    summary = build.execution_summary(lines)
    print(f"[pdf] executed: {', '.join(summary['executed']) or 'none'}; "
          f"from the cache: {', '.join(summary['cached']) or 'none'}")
    if returncode != 0:
        build.print_failure(lines, LATEX / "reports")
        print(f"[pdf] the LaTeX sources failed after {time.perf_counter() - start:.1f} s")
        return returncode
    sphinx_seconds = time.perf_counter() - start

    returncode, output = run_latexmk()
    log_file = LATEX / Path(TEX_NAME).with_suffix(".log")
    log = read_latex_log(log_file.read_text(encoding="utf-8", errors="replace")
                         if log_file.is_file() else "")
    for what, count in log.tolerated.items():
        print(f"[pdf] tolerated, {count}x: {what} ({TOLERATED_WARNINGS[what]})")
    if log.overfull:
        worst = sorted(log.overfull, reverse=True)[:5]
        print(f"[pdf] {len(log.overfull)} overfull lines; the widest: " + "; ".join(
            f"{points:.1f}pt {where}" for points, where in worst))
    if returncode != 0 or log.errors or log.warnings:
        print(f"\n[pdf] XeLaTeX FAILED on {LATEX.relative_to(ROOT) / TEX_NAME}")
        for error in log.errors:
            print(f"  {error}")
        for warning in log.warnings:
            print(f"  {warning}  (a warning fails the PDF build)")
        if returncode != 0 and not log.errors:
            print(output[-3000:])
        print(f"[pdf] see {log_file.relative_to(ROOT)}")
        return returncode or 1

    PDF_DIR.mkdir(parents=True, exist_ok=True)
    shutil.copy2(LATEX / PDF_NAME, PDF)
    if build.HTML.is_dir():
        shutil.copy2(PDF, build.HTML / PDF_NAME)
    elapsed = time.perf_counter() - start
    print(f"[pdf] built {PDF.relative_to(ROOT)} in {elapsed:.1f} s "
          f"(Sphinx {sphinx_seconds:.1f} s, XeLaTeX {elapsed - sphinx_seconds:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
