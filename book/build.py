"""Build the course book into ``_build/html``, the way CI and ``make book`` do.

The build is the book's first test: Sphinx warnings are errors (``--warningiserror``),
``--keep-going`` reports every problem of a build instead of the first one, and a chapter
whose code raises fails the build. Executed chapters are cached by jupyter-cache in
``_build/.jupyter_cache``, so a chapter whose code did not change is not executed again.

The pages work with no network: MathJax 3 is installed from the npm registry into
``_build/.mathjax`` (once) and copied into ``_build/html/_static/mathjax``, where the
``mathjax_path`` setting of ``_config.yml`` points. On a machine without npm, set
``BOOK_MATHJAX_DIR`` to the ``es5`` folder of a MathJax 3 package. The TAs' marking page
(``python -m autograder mark``) serves the same copy of ``_build/.mathjax``;
``--install-mathjax`` installs only that and stops, which is how ``make install`` gets it
without building the book.

The two accessibility checkers that the browser tests run on every page, axe-core and
HTML_CodeSniffer (:data:`CHECKERS`), are installed the same way into ``_build/.axe-core``
and ``_build/.html-codesniffer``. The pages do not load them, so they are not copied into
the site, and a build that cannot install them still succeeds (the accessibility test then
says what is missing). ``BOOK_AXE_JS`` and ``BOOK_HTMLCS_JS`` name the scripts to use
instead.

When the build fails, the execution reports that myst-nb writes to
``_build/html/reports/`` (the traceback of each failing chapter) are printed, so the
cause is visible in a CI log.

A build that succeeds records a digest of everything the HTML is made from
(:data:`INPUTS`, the published downloads and the PDF it links, the MathJax and
checkers it is given) in ``_build/html/.build-inputs``; the next build whose
inputs have the same digest has nothing to do and stops there (``--force``
builds anyway). The release rewrites its notebooks each time it runs, so
their contents are compared, not their times.

Before anything is built, the repository and hub settings of ``_config.yml`` are checked
(:func:`check_launch_settings`, with ``book/_ext/course_hub.py``): a ``repository.url`` that
is this repository, the one with the solutions, is refused, and so is a hub address that
links could not be made from.

``--path-output DIR`` builds into ``DIR/_build/html`` instead, leaving ``_build/html``
as it is (``python -m autograder publish --out`` builds the site's book so). What the
book's extensions read beside the HTML, the published downloads (``published/``) and
the PDF (``pdf/``), is then read from ``DIR/_build``; executed chapters still come from
the repository's jupyter-cache.

Usage, from anywhere::

    .venv/bin/python book/build.py [--path-output DIR] [--force]
    .venv/bin/python book/build.py --install-mathjax
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
HTML = BUILD / "html"
REPORTS = HTML / "reports"
RELEASE = ROOT / "notebooks" / "release"
BOOK_EXTENSIONS = ROOT / "book" / "_ext"

MATHJAX_VERSION = "3.2.2"
MATHJAX_PREFIX = BUILD / ".mathjax"
MATHJAX_TARGET = HTML / "_static" / "mathjax"
# What tex-chtml.js loads at run time: the TeX input extensions, the CHTML fonts, the
# menu and the accessibility components. The other bundles (SVG output, MathML input,
# the combined "full" files) are not needed.
MATHJAX_PARTS = (
    "tex-chtml.js",
    "input",
    "output/chtml.js",
    "output/chtml",
    "ui",
    "a11y",
    "sre",
    "adaptors",
)
@dataclass(frozen=True)
class Checker:
    """An accessibility checker that the browser tests inject into pages (the pages never load it)."""

    package: str  # on the npm registry
    version: str
    prefix: Path  # where npm installs it
    script: str  # the script to inject, in the package
    variable: str  # the environment variable that names a script to use instead
    expected: str  # what that script must be, for the messages


# The accessibility tests' two engines, which find different things: axe-core (the book's, the lab's
# and the grading pages' tests), and HTML_CodeSniffer's WCAG 2.1 AA standard (the book's), which also
# checks what axe-core has retired, such as ids that two elements share.
CHECKERS = {
    "axe": Checker("axe-core", "4.14.1", BUILD / ".axe-core", "axe.min.js", "BOOK_AXE_JS",
                   "the axe.min.js of an axe-core 4 package"),
    "htmlcs": Checker("html_codesniffer", "2.5.1", BUILD / ".html-codesniffer", "build/HTMLCS.js",
                      "BOOK_HTMLCS_JS", "the build/HTMLCS.js of an HTML_CodeSniffer 2 package"),
}

# What the HTML is made from, besides the published downloads and the PDF beside the output
# (DIR/_build/published, DIR/_build/pdf): the chapters and the book's extensions, the library
# they import and quote, the release notebooks they link, and the pinned build tools.
INPUTS = ("_config.yml", "_toc.yml", "book", "perceptron_lib", "notebooks/release", "requirements.txt",
          "constraints.txt")
# In the HTML folder: the digest of the inputs of the build that made it (see inputs_digest).
INPUTS_FILE = ".build-inputs"
# In the HTML folder: the digest of the settings and table of contents its pages were made with
# (see layout_digest). Sphinx writes pages into the folder and never removes one, so a page the
# new settings no longer make (a chapter taken out, an index turned off) would stay, and be published.
LAYOUT_FILE = ".build-layout"

_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_EXEC_LINE = re.compile(
    r"^(?P<path>\S+?\.(?:md|ipynb)): "
    r"(?P<what>Executing notebook|Using cached notebook|Executed notebook)"
)


class BuildError(RuntimeError):
    """A step of the book build failed; the message says what to do."""


def shown(path: Path) -> Path:
    """``path`` as a message shows it: relative to the repository when it is inside it."""
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def mathjax_es5() -> Path:
    """Return the ``es5`` folder of MathJax 3, installing it with npm if needed."""
    override = os.environ.get("BOOK_MATHJAX_DIR")
    if override:
        es5 = Path(override)
        if not (es5 / "tex-chtml.js").is_file():
            raise BuildError(
                f"BOOK_MATHJAX_DIR={override} has no tex-chtml.js: it must be the es5 "
                "folder of a MathJax 3 package."
            )
        return es5
    package = npm_install(
        "mathjax", MATHJAX_VERSION, MATHJAX_PREFIX, Path("es5/tex-chtml.js"),
        why="The book serves MathJax from its own files",
        alternative="set BOOK_MATHJAX_DIR to the es5 folder of a MathJax 3 package",
    )
    return package / "es5"


def installed_checker_script(name: str) -> Path | None:
    """The script of the checker ``name`` of :data:`CHECKERS` as the build left it (or as its
    variable names it), or None.

    The accessibility tests call this; it never installs anything.
    """
    checker = CHECKERS[name]
    override = os.environ.get(checker.variable)
    if override:
        return Path(override) if Path(override).is_file() else None
    package = checker.prefix / "node_modules" / checker.package
    script = package / checker.script
    return script if _installed_version(package) == checker.version and script.is_file() else None


def checker_script(name: str) -> Path:
    """Return the script of the checker ``name`` of :data:`CHECKERS`, installing it if needed."""
    checker = CHECKERS[name]
    override = os.environ.get(checker.variable)
    if override:
        if not Path(override).is_file():
            raise BuildError(f"{checker.variable}={override} is not a file: it must name {checker.expected}.")
        return Path(override)
    package = npm_install(
        checker.package, checker.version, checker.prefix, Path(checker.script),
        why=f"The browser tests check every page with {checker.package}",
        alternative=f"set {checker.variable} to {checker.expected}",
    )
    return package / checker.script


def npm_install(name: str, version: str, prefix: Path, marker: Path, *, why: str,
                alternative: str) -> Path:
    """Install ``name@version`` with npm into ``prefix`` unless it is there; return its folder.

    ``marker`` is a file, relative to the package, whose presence shows the install is
    complete; ``why`` and ``alternative`` make the error message when npm is missing.
    """
    package = prefix / "node_modules" / name
    if _installed_version(package) == version and (package / marker).is_file():
        return package

    npm = shutil.which("npm")
    if npm is None:
        raise BuildError(
            f"{why}. The build installs {name} {version} with npm, which is not installed. "
            "Install Node.js and npm (Debian and Ubuntu: apt-get install nodejs npm), or "
            f"{alternative}."
        )
    prefix.mkdir(parents=True, exist_ok=True)
    command = [
        npm, "install", "--prefix", str(prefix), "--no-save",
        "--no-package-lock", "--no-audit", "--no-fund", "--loglevel=error",
        f"{name}@{version}",
    ]
    print(f"[book] installing {name} {version} with npm into {prefix}")
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0 or not (package / marker).is_file():
        raise BuildError(
            f"`{' '.join(command)}` failed (exit code {result.returncode}):\n"
            f"{result.stdout}{result.stderr}"
        )
    return package


def _installed_version(package: Path) -> str | None:
    try:
        return json.loads((package / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None


def copy_mathjax(es5: Path, target: Path = MATHJAX_TARGET) -> None:
    """Copy the parts of MathJax that ``tex-chtml.js`` loads into the built site."""
    target.mkdir(parents=True, exist_ok=True)
    for part in MATHJAX_PARTS:
        source = es5 / part
        destination = target / part
        destination.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, destination, dirs_exist_ok=True)
        else:
            shutil.copy2(source, destination)
    licence = es5.parent / "LICENSE"
    if licence.is_file():
        shutil.copy2(licence, target / "LICENSE")


def run_jupyter_book(builder: str = "html", path_output: Path = ROOT) -> tuple[int, list[str]]:
    """Run ``jupyter-book build``, echoing its output, and return (exit code, lines).

    ``builder`` is ``html`` (into ``_build/html``) or ``latex`` (into ``_build/latex``, for
    book/build_pdf.py); both read executed chapters from the same jupyter-cache.
    ``path_output`` is the folder whose ``_build`` gets the build.
    """
    command = [
        sys.executable, "-c", "from jupyter_book.cli.main import main; main()",
        "build", str(ROOT), "--builder", builder, "--path-output", str(path_output),
        "--warningiserror", "--keep-going",
        # A fresh Sphinx environment, so the warnings of an unchanged page are reported
        # again; execution results still come from the jupyter-cache.
        "--all",
    ]
    env = dict(os.environ)
    # Chapters import perceptron_lib from the repository, installed or not.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    lines: list[str] = []
    with subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, bufsize=1,
    ) as process:
        for line in process.stdout or ():
            sys.stdout.write(line)
            lines.append(_ANSI.sub("", line.rstrip("\n")))
    return process.returncode, lines


def execution_summary(lines: list[str]) -> dict[str, list[str]]:
    """Which chapters were executed and which came from the cache, from the build log."""
    summary: dict[str, list[str]] = {"executed": [], "cached": []}
    for line in lines:
        match = _EXEC_LINE.match(line)
        if not match:
            continue
        name = Path(match["path"]).stem
        key = "cached" if match["what"] == "Using cached notebook" else "executed"
        if name not in summary[key]:
            summary[key].append(name)
    return summary


def notebook_pages() -> list[str]:
    """Pages (as ``book/name``) whose source is a notebook, i.e. has a kernelspec."""
    pages = []
    for path in sorted((ROOT / "book").glob("*.md")):
        text = path.read_text(encoding="utf-8")
        front_matter = text.split("\n---", 1)[0] if text.startswith("---") else ""
        if "kernelspec:" in front_matter:
            pages.append(f"book/{path.stem}")
    return pages


def check_notebook_downloads(html: Path = HTML) -> list[str]:
    """Every notebook page offers itself as an .ipynb download; return the problems."""
    problems = []
    for page in notebook_pages():
        html_file = html / f"{page}.html"
        if not html_file.is_file():
            continue  # not in the table of contents
        ipynb = html / "_sources" / f"{page}.ipynb"
        link = f'href="../_sources/{page}.ipynb"'
        if not ipynb.is_file() or link not in html_file.read_text(encoding="utf-8"):
            problems.append(
                f"{shown(html_file)} does not offer {shown(ipynb)} "
                "for download. sphinx-book-theme adds the .ipynb download only while a "
                "launch button is configured: keep binderhub_url (or another launch "
                "button) set in _config.yml."
            )
    return problems


def add_outputs_to_downloads(html: Path = HTML) -> list[str]:
    """Put the executed outputs into the chapters' .ipynb downloads.

    sphinx-book-theme offers the notebook that myst-nb wrote, which has outputs only
    when the chapter was executed in this build, not when its outputs came from the
    cache. The cache holds the executed notebook either way, so the downloads always
    get the outputs from there. Returns the pages for which that was not possible.
    """
    import nbformat
    from jupyter_cache import get_cache

    cache = get_cache(str(BUILD / ".jupyter_cache"))
    skipped = []
    for page in notebook_pages():
        download = html / "_sources" / f"{page}.ipynb"
        if not download.is_file():
            continue
        notebook = nbformat.read(download, as_version=4)
        try:
            _, executed = cache.merge_match_into_notebook(notebook)
        except KeyError:
            skipped.append(page)
            continue
        nbformat.write(executed, download)
    return skipped


def source_files(path: Path) -> list[Path]:
    """The files a build reads from ``path`` (a file, or every file below a folder but byte-code), sorted;
    none when it does not exist."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return [path] if path.is_file() else []


def inputs_digest(path_output: Path = ROOT) -> str:
    """A digest of everything a build into ``path_output/_build/html`` is made from.

    Every file of :data:`INPUTS`, of the published downloads and of the PDF, by name and
    contents (a missing one counts too), with where the build reads and writes, the
    interpreter that runs it and the MathJax and checkers it is told to use.
    """
    digest = hashlib.sha256()
    for name in ("BOOK_MATHJAX_DIR", *(checker.variable for checker in CHECKERS.values())):
        digest.update(f"{name}={os.environ.get(name, '')}\n".encode())
    digest.update(f"{ROOT}\n{path_output}\n{sys.executable}\n".encode())
    build = path_output / "_build"
    for path in [ROOT / name for name in INPUTS] + [build / "published", build / "pdf"]:
        files = source_files(path)
        digest.update(f"{path}: {len(files)} files\n".encode())
        for file in files:
            digest.update(f"{file.relative_to(path) if file != path else ''}\n".encode())
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()


def print_failure(lines: list[str], reports_folder: Path = REPORTS) -> None:
    """Print the warnings and the execution reports (in ``reports_folder``) of a failed build."""
    bar = "=" * 78
    print(f"\n{bar}\n[book] THE BOOK BUILD FAILED\n{bar}")
    warnings = [line for line in lines if "WARNING" in line or "ERROR" in line]
    warnings = [line for line in warnings if "[IPKernelApp]" not in line]
    if warnings:
        print("[book] warnings (each one fails the build):")
        for line in warnings:
            print(f"  {line}")
    reports = sorted(reports_folder.rglob("*.err.log")) if reports_folder.is_dir() else []
    for report in reports:
        print(f"\n{bar}\n[book] execution report {shown(report)}\n{bar}")
        print(report.read_text(encoding="utf-8", errors="replace"))
    if not reports:
        print(f"[book] no chapter failed to execute (no reports in {shown(reports_folder)}).")
    missing_release = [
        line.split("download file not readable:", 1)[1].strip()
        for line in lines
        if "download file not readable:" in line and str(RELEASE) in line
    ]
    if missing_release:
        print(
            "\n[book] These assignment notebooks, linked from the chapters, have not been "
            "released:\n  " + "\n  ".join(missing_release) + "\n"
            "Run `make assignments` (python -m autograder release) before building the "
            "book; `make test` does both."
        )


def layout_digest() -> str:
    """A digest of ``_config.yml`` and ``_toc.yml``, which decide which pages the build makes."""
    digest = hashlib.sha256()
    for name in ("_config.yml", "_toc.yml"):
        path = ROOT / name
        digest.update(f"{name}\n".encode())
        digest.update(path.read_bytes() if path.is_file() else b"(missing)")
    return digest.hexdigest()


def start_afresh_if_the_layout_changed(html: Path) -> None:
    """Remove the HTML folder when its pages were made with other settings or another table of contents
    (or when that is not recorded), then record the current ones: Sphinx reads every chapter again when
    its settings change anyway, and this way no page it no longer makes is left behind."""
    layout = layout_digest()
    record = html / LAYOUT_FILE
    if html.is_dir() and not (record.is_file() and record.read_text(encoding="utf-8") == layout):
        print(f"[book] the settings or the table of contents changed since {shown(html)} was built: "
              "building it afresh, so that no page they no longer make is left in it")
        shutil.rmtree(html)
    html.mkdir(parents=True, exist_ok=True)
    record.write_text(layout, encoding="utf-8")


def check_launch_settings(config: Path = ROOT / "_config.yml") -> str | None:
    """What is wrong with the repository and hub settings of ``_config.yml``, or None.

    ``book/_ext/course_hub.py`` makes the links to the course's hub and refuses a repository
    address that is the instructor's own repository (the one with the solutions); the book's
    Sphinx build runs the same check, this says it before anything is built.
    """
    import yaml

    if str(BOOK_EXTENSIONS) not in sys.path:
        sys.path.append(str(BOOK_EXTENSIONS))  # the extensions import one another by name, as Sphinx lets them
    import course_hub

    try:
        course_hub.check_book_config(yaml.safe_load(config.read_text(encoding="utf-8")) or {}, ROOT)
    except course_hub.HubSettingError as error:
        return str(error)
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build the course book into _build/html.")
    parser.add_argument(
        "--path-output", metavar="DIR", type=Path, default=ROOT,
        help="build into DIR/_build/html, reading the published downloads and the PDF from "
             "DIR/_build, instead of the repository's _build")
    parser.add_argument(
        "--force", action="store_true",
        help="build even when nothing the book is made from changed since its last successful build")
    parser.add_argument(
        "--install-mathjax", action="store_true",
        help="only install MathJax as the build does, into _build/.mathjax, where the TAs' marking page "
             "serves it from, and stop (make install runs this)")
    args = parser.parse_args(argv)
    if args.install_mathjax:
        try:
            es5 = mathjax_es5()
        except BuildError as error:
            print(f"[book] {error}", file=sys.stderr)
            return 1
        print(f"[book] MathJax {MATHJAX_VERSION}: {shown(es5)}")
        return 0
    path_output = args.path_output.resolve()
    html = path_output / "_build" / "html"
    reports = html / "reports"
    mathjax = html / "_static" / "mathjax"

    start = time.perf_counter()
    refused = check_launch_settings()
    if refused:
        print(f"[book] not built: {refused}", file=sys.stderr)
        return 1
    inputs = inputs_digest(path_output)
    recorded = html / INPUTS_FILE
    if not args.force and recorded.is_file() and recorded.read_text(encoding="utf-8") == inputs:
        print(f"[book] nothing {shown(html)} is made from changed since its last successful build: "
              "not built again (--force builds it anyway)")
        return 0
    # Removed first, so that a build that fails leaves no record of success.
    recorded.unlink(missing_ok=True)
    if not RELEASE.is_dir():
        print(
            "[book] notebooks/release/ does not exist yet: each chapter's assignment link "
            "will fail the build as 'download file not readable' until "
            "`make assignments` (python -m autograder release) has run."
        )
    try:
        es5 = mathjax_es5()
    except BuildError as error:
        print(f"[book] {error}", file=sys.stderr)
        return 1
    for name in CHECKERS:
        try:
            checker_script(name)
        except BuildError as error:
            # The pages do not need the checkers; only the accessibility tests do.
            print(f"[book] note: the accessibility test will not run: {error}")
    # Old reports would blame chapters that have been fixed since.
    shutil.rmtree(reports, ignore_errors=True)
    start_afresh_if_the_layout_changed(html)

    returncode, lines = run_jupyter_book(path_output=path_output)
    if html.is_dir():
        copy_mathjax(es5, mathjax)
        for page in add_outputs_to_downloads(html):
            print(f"[book] note: no cached execution matches {page}; its .ipynb download "
                  "has no outputs.")
    summary = execution_summary(lines)
    elapsed = time.perf_counter() - start
    print(
        f"[book] executed: {', '.join(summary['executed']) or 'none'}; "
        f"from the cache: {', '.join(summary['cached']) or 'none'}"
    )
    if returncode != 0:
        print_failure(lines, reports)
        print(f"[book] failed after {elapsed:.1f} s")
        return returncode

    problems = check_notebook_downloads(html)
    if not (mathjax / "tex-chtml.js").is_file():
        problems.append(f"{shown(mathjax / 'tex-chtml.js')} is missing after the copy.")
    if problems:
        print("\n[book] the build finished, but:")
        for problem in problems:
            print(f"  {problem}")
        return 1
    recorded.write_text(inputs, encoding="utf-8")
    print(f"[book] built {shown(html)}/index.html in {elapsed:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
