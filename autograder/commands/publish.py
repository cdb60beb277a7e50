"""``python -m autograder publish``: build the public course, ``_build/site/``, and audit it.

The site is a static folder for any web host (no server, no CDN, relative
links only).  It holds

* the book, built by the public edition's ``book/build.py`` (below), with a page for students
  (``book/students.md``) whose install command, assignment list and check
  command come from what this module publishes (:file:`manifest.json`, read
  by the book's ``course_site`` extension);
* ``packages/``: the student package's wheels (the pure-Python one, and the
  one with the compiled kernel for Linux on x86-64 where it could be built)
  and (added to the site after the book's build) an ``index.html`` listing
  them, so ``pip install --find-links <site>/packages/index.html <package>``
  works from any static host and takes the compiled wheel where it fits;
* ``assignments/``: each released notebook, and a zip to attach to an LMS
  assignment (the notebook, the pure-Python wheel, which installs everywhere,
  and a ``README.txt`` saying how to install it and check the notebook).

The site's address is ``html.baseurl`` in ``_config.yml``.  When it is set,
every downloadable notebook (each chapter's ``.ipynb`` and each assignment)
starts with a cell that installs the student package from the site
(:func:`install_cell`), so a notebook opened in Colab or on a JupyterHub
gets what it needs; the student page shows the same command.  Without an
address the page explains how to install the downloaded wheel instead.

It first writes the public edition of the repository, ``_build/public-repo/``
(:func:`write_public_edition`): what the book needs to build and run by
itself, and each chapter as a notebook (``notebooks/chapters/``), for a
public repository that the book's launch buttons (Binder) and its links to
the course's hub (nbgitpuller, ``book/_ext/course_hub.py``) point at. Before
anything is written, the repository and hub settings of ``_config.yml`` are
checked as the book's build checks them (:func:`check_launch_settings`): the
repository must not be this one, which holds the solutions. The site's book
is built from the edition (:func:`build_book`), so every publish proves that
the edition builds the book the site shows.
Both folders are read in full by the leak audit
(:mod:`autograder.commands.audit`); when it finds anything they are deleted and
the command fails, naming each file and secret.

With ``--out DIR`` everything it writes goes into ``DIR`` instead: ``site/`` and
``public-repo/``, and the book's build with the downloads it lists
(``DIR/_build/``), so the repository's ``_build/html`` and ``_build/published``
stay as they are.
"""

from __future__ import annotations

import argparse
import collections
import hashlib
import html
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "_build"
BOOK_HTML = BUILD / "html"
PUBLISHED = BUILD / "published"
PDF_FOLDER = BUILD / "pdf"
SITE = BUILD / "site"
PUBLIC_REPO = BUILD / "public-repo"
RELEASE = ROOT / "notebooks" / "release"
CONFIG = ROOT / "_config.yml"

# The tag of the first cell of a published notebook, which installs the student package. The
# grader and the student's check skip a cell with this tag: it needs the network, and what it
# installs is already there.
INSTALL_TAG = "course-install"
# What the Sphinx build leaves in _build/html that is not part of the site.
NOT_PUBLISHED = ("reports", ".buildinfo", ".build-inputs", ".build-layout", ".doctrees",
                 "_sources/.ipynb_checkpoints")


class PublishError(Exception):
    """The course cannot be published; the message says what is wrong and what to do."""


# --- the site's address and the install command -----------------------------------------------

def site_address(config: Path = CONFIG) -> str | None:
    """The site's address (``html.baseurl`` of ``_config.yml``) without a trailing slash, or None."""
    try:
        settings = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as error:
        raise PublishError(f"cannot read {config}: {error}") from None
    return checked_address((settings.get("html") or {}).get("baseurl") or "", f"html.baseurl in {config}")


def checked_address(address: str, where: str) -> str | None:
    """``address`` without a trailing slash, None if empty; a :class:`PublishError` if it is no web address."""
    address = address.strip()
    if not address:
        return None
    if not re.fullmatch(r"https?://[^\s\"'<>]+", address):
        raise PublishError(
            f"{where} is {address!r}; expected the address where the site is served, starting with "
            "https:// (for example https://perceptron-course.github.io/course/), or empty.")
    return address.rstrip("/")


# Installed next to the package by the student page's command: the package itself has no
# notebook interface (Colab and JupyterHubs have their own), but a student's own machine needs one.
NOTEBOOK_INTERFACE = "jupyterlab"


def install_command(address: str | None, package: str, wheel: str) -> str:
    """The one command that installs the student package and Jupyter: from the site, or from the downloaded wheel."""
    if address:
        return f"pip install --find-links {address}/packages/index.html {package} {NOTEBOOK_INTERFACE}"
    return f"pip install {wheel} {NOTEBOOK_INTERFACE}"


def install_cell(address: str, package: str) -> nbformat.NotebookNode:
    """The first cell of a published notebook: install the student package from the site."""
    cell = nbformat.v4.new_code_cell(
        "# Installs the course's package from the course's site, for Colab or a JupyterHub. Where it is\n"
        "# installed already this changes nothing, and when the notebook is checked or graded it installs nothing.\n"
        f"%pip install --quiet --find-links {address}/packages/index.html {package}")
    cell.metadata["tags"] = [INSTALL_TAG]
    cell.metadata["editable"] = False
    cell.metadata["deletable"] = False
    return cell


def with_install_cell(notebook: nbformat.NotebookNode, address: str | None, package: str) -> nbformat.NotebookNode:
    """``notebook`` with the install cell first (replacing any earlier one); unchanged without an address."""
    cells = [c for c in notebook.cells if INSTALL_TAG not in c.get("metadata", {}).get("tags", [])]
    if address:
        cells.insert(0, install_cell(address, package))
    notebook.cells = cells
    return notebook


# The chapters glue computed numbers into their text with myst-nb, which only the book's build
# needs; a downloaded chapter defines a stand-in when myst-nb is not installed.
GLUE_IMPORT = "from myst_nb import glue"
GLUE_STAND_IN = """try:
    from myst_nb import glue
except ImportError:  # outside the book's build, where glue() only hands a value to the page's text
    def glue(name, variable, display=True):
        if display:
            from IPython.display import display as show
            show(variable)"""


def standalone_chapter(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A chapter's notebook that runs without the book's build tools (myst-nb)."""
    for cell in notebook.cells:
        if cell.cell_type == "code" and GLUE_IMPORT in cell.source.splitlines():
            cell.source = "\n".join(GLUE_STAND_IN if line == GLUE_IMPORT else line
                                    for line in cell.source.splitlines())
    return notebook


def course_hub():
    """``book/_ext/course_hub.py``, which makes the book's links to the course's hub and checks their settings
    (``book/`` is not a package; the book's build loads it as a Sphinx extension)."""
    name = "perceptron_book_course_hub"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "book" / "_ext" / "course_hub.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def check_launch_settings(config: Path = CONFIG):
    """The hub's links that ``_config.yml`` makes (None without a hub); a :class:`PublishError` when its
    repository is this repository, or an address is malformed."""
    links = course_hub()
    try:
        settings = yaml.safe_load(config.read_text(encoding="utf-8")) or {}
        return links.check_book_config(settings, ROOT)
    except (OSError, yaml.YAMLError) as error:
        raise PublishError(f"cannot read {config}: {error}") from None
    except links.HubSettingError as error:
        raise PublishError(str(error)) from None


def notebook_chapters(toc: Path = ROOT / "_toc.yml") -> list[Path]:
    """The book's pages that are notebooks (a ``kernelspec`` in their front matter), in the table of contents'
    order: the pages that have a launch button."""
    files: list[str] = []

    def walk(entries):
        for entry in entries or ():
            if "file" in entry:
                files.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    contents = yaml.safe_load(toc.read_text(encoding="utf-8")) or {}
    files.append(contents.get("root", ""))
    walk(contents.get("chapters"))
    for part in contents.get("parts") or ():
        walk(part.get("chapters"))
    chapters = []
    for name in files:
        path = ROOT / f"{name}.md"
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        if text.startswith("---") and "kernelspec:" in text.split("\n---", 1)[0]:
            chapters.append(path)
    return chapters


def chapter_as_notebook(source: Path, address: str | None, package: str) -> nbformat.NotebookNode:
    """A chapter (MyST Markdown) as the notebook the course's hub opens: its cells without outputs (a student
    runs them, and a notebook without outputs merges cleanly when the course is published again), runnable
    without the book's build tools, with the install cell, and cell ids made from the cells' text, so that
    publishing the same chapter again writes the same file."""
    import jupytext

    notebook = jupytext.read(source)
    notebook.metadata.pop("jupytext", None)
    notebook = with_install_cell(standalone_chapter(notebook), address, package)
    seen: collections.Counter = collections.Counter()
    for cell in notebook.cells:
        digest = hashlib.sha256(cell.source.encode("utf-8")).hexdigest()[:12]
        seen[digest] += 1
        cell.id = digest if seen[digest] == 1 else f"{digest}-{seen[digest]}"
    return notebook


# --- the student package ----------------------------------------------------------------------

def build_student_wheels(out_dir: Path) -> tuple[Path, list[Path], str]:
    """Build the student package's wheels into ``out_dir`` (``tools/student_package.py``).

    Returns the pure-Python wheel (every platform), the compiled ones (the kernel, for this
    machine's platform; none where it cannot be built) and what the build said of them.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "tools.student_package", "--out", str(out_dir)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    labelled = [line.split(" ", 1) for line in result.stdout.splitlines() if " " in line]
    pure = [Path(path) for label, path in labelled if label == "pure:"]
    compiled = [Path(path) for label, path in labelled if label == "compiled:"]
    if result.returncode != 0 or len(pure) != 1 or not all(p.is_file() for p in pure + compiled):
        raise PublishError(
            f"building the student package failed (`{' '.join(command)}`, exit code {result.returncode}):\n"
            f"{result.stdout}{result.stderr}")
    return pure[0], compiled, result.stderr.strip()


def wheel_project(wheel: Path) -> str:
    """The project name of a wheel, from its file name (PEP 427), as pip spells it."""
    return wheel.name.split("-", 1)[0].replace("_", "-")


def wheel_commands(wheel: Path) -> list[str]:
    """The console commands a wheel installs (its ``entry_points.txt``), in order."""
    with zipfile.ZipFile(wheel) as archive:
        names = [n for n in archive.namelist() if n.endswith(".dist-info/entry_points.txt")]
        text = archive.read(names[0]).decode("utf-8") if names else ""
    commands, section = [], ""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            section = line
        elif section == "[console_scripts]" and "=" in line:
            commands.append(line.split("=", 1)[0].strip())
    return commands


def packages_index(wheels: list[Path]) -> str:
    """``packages/index.html``: a page listing the wheels, for pip's ``--find-links`` and for people."""
    items = "\n".join(f'      <li><a href="{html.escape(w.name)}">{html.escape(w.name)}</a></li>' for w in wheels)
    return f"""<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>The course's Python package</title>
  </head>
  <body>
    <main>
    <h1>The course's Python package</h1>
    <p>Install it with the command on the <a href="../book/students.html">page for students</a>.</p>
    <ul>
{items}
    </ul>
    </main>
  </body>
</html>
"""


# --- the assignments --------------------------------------------------------------------------

def assignment_names() -> list[str]:
    from autograder.course import assignments

    return assignments.names()


def notebook_title(notebook: nbformat.NotebookNode, fallback: str) -> str:
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            for line in cell.source.splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    return fallback


def readme_text(name: str, notebook_name: str, wheel: str, command: str, check: str) -> str:
    local = install_command(None, "", wheel)
    alternative = "" if command == local else (
        f"\n   or, where the course's site cannot be reached, in this folder:\n\n       {local}\n")
    return f"""{name}
{'=' * len(name)}

1. Install the course's package (Python 3.11 or later), once for the whole course:

       {command}
{alternative}
2. Open {notebook_name} in Jupyter and complete it. Keep its file name.

3. Check it before you submit: save it, then run its last cell, which checks
   the saved file, or, in a terminal in this folder:

       {check} {notebook_name}

   It ends with "Ready to submit", or lists what is still to fix.

4. Submit {notebook_name} to the assignment, as it is.
"""


def prepare(address: str | None, out: Path = PUBLISHED, release: Path = RELEASE) -> dict:
    """Write the downloads (``packages/``, ``assignments/``) and ``manifest.json`` into ``out``.

    Returns the manifest (the address, the package's wheels and its install command, and each
    assignment) with, under ``packaging_note``, what the package's build said, which is not published.
    """
    names = assignment_names()
    missing = [n for n in names if not (release / n / f"{n}.ipynb").is_file()]
    if missing:
        raise PublishError(f"these assignments have not been released: {', '.join(missing)} (no "
                           f"{release.relative_to(ROOT) if release.is_relative_to(ROOT) else release}/<assignment>/"
                           "<assignment>.ipynb). Run `python -m autograder release` (make assignments) first.")
    shutil.rmtree(out, ignore_errors=True)
    (out / "packages").mkdir(parents=True)
    (out / "assignments").mkdir()
    wheel, compiled, said = build_student_wheels(out / "packages")
    package = wheel_project(wheel)
    command = install_command(address, package, wheel.name)
    commands = wheel_commands(wheel)
    if not commands:
        raise PublishError(f"{wheel.name} installs no console command: students would have no check to run.")
    check = commands[0]

    assignments = []
    for name in names:
        folder = release / name
        notebook = with_install_cell(nbformat.read(folder / f"{name}.ipynb", as_version=4), address, package)
        text = nbformat.writes(notebook)
        (out / "assignments" / f"{name}.ipynb").write_text(text, encoding="utf-8")
        with zipfile.ZipFile(out / "assignments" / f"{name}.zip", "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(f"{name}.ipynb", text)
            # Anything else the release holds (data files the notebook opens).
            for path in sorted(p for p in folder.rglob("*") if p.is_file() and p.name != f"{name}.ipynb"):
                archive.write(path, path.relative_to(folder).as_posix())
            archive.write(wheel, wheel.name)
            archive.writestr("README.txt", readme_text(notebook_title(notebook, name), f"{name}.ipynb",
                                                       wheel.name, command, check))
        assignments.append({"name": name, "title": notebook_title(notebook, name),
                            "notebook": f"assignments/{name}.ipynb", "zip": f"assignments/{name}.zip"})
    manifest = {"address": address, "package": package, "wheel": f"packages/{wheel.name}",
                "compiled_wheels": [f"packages/{w.name}" for w in compiled],
                "install": command, "check": check, "assignments": assignments}
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    # What the build said stays with the instructor: the manifest is published.
    return {**manifest, "packaging_note": said}


# --- the site ---------------------------------------------------------------------------------

# The repository's build caches that the public edition's book build borrows: the executed
# chapters and the npm packages (MathJax, the accessibility checkers). Only to save time: without them it would
# execute the same chapters and install the same packages again.
LENT_CACHES = (".jupyter_cache", ".mathjax", ".axe-core", ".html-codesniffer")


def build_book(edition: Path, path_output: Path = ROOT) -> None:
    """Build the public edition's book, by itself, into ``path_output/_build/html``; fail if it fails.

    The site is the book that the public edition builds: the edition's own ``book/build.py`` runs
    in the edition's folder, without the repository on ``PYTHONPATH``, so a site that publishes
    proves that the edition builds. It reads the downloads prepared in ``path_output/_build/published``
    and links the PDF in ``path_output/_build/pdf``. The repository's caches are lent to the
    edition (``edition/_build``) for the build; that folder and the byte-code the build leaves are
    removed after it, so the edition holds only what :func:`write_public_edition` wrote.
    """
    lent = edition / "_build"
    lent.mkdir()
    for name in LENT_CACHES:
        if (BUILD / name).is_dir():
            (lent / name).symlink_to(BUILD / name, target_is_directory=True)
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    try:
        result = subprocess.run([sys.executable, str(Path("book") / "build.py"), "--path-output", str(path_output)],
                                cwd=edition, env=env)
    finally:
        shutil.rmtree(lent)  # the links, not what they point to
        for byte_code in list(edition.rglob("__pycache__")):
            shutil.rmtree(byte_code)
    if result.returncode != 0:
        raise PublishError("the public edition's book build failed (its output is above); nothing was published.")


def assemble(manifest: dict, html_dir: Path = BOOK_HTML, site: Path = SITE, published: Path = PUBLISHED) -> None:
    """Copy the built book into ``site`` and put the install cell into every notebook it offers."""
    if not (html_dir / "book" / "students.html").is_file():
        raise PublishError(f"{html_dir} holds no built book with a page for students: build the book first.")
    for name in ("packages", "assignments"):
        if not (html_dir / name).is_dir():
            raise PublishError(f"the built book has no {name}/ folder: the book's course_site extension "
                               "copies it from _build/published; is it listed in _config.yml?")
    shutil.rmtree(site, ignore_errors=True)
    shutil.copytree(html_dir, site, ignore=shutil.ignore_patterns(".buildinfo", ".doctrees"))
    for name in NOT_PUBLISHED:
        path = site / name
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
    # Exactly the downloads prepared now, whatever an earlier build left in the book's folder.
    for name in ("packages", "assignments"):
        shutil.rmtree(site / name)
        shutil.copytree(published / name, site / name)
    # pip's --find-links reads this page; it is written here, not with the book, because it is
    # no page of the book (the book's browser tests expect the theme on every page).
    (site / "packages" / "index.html").write_text(packages_index(sorted((site / "packages").glob("*.whl"))),
                                                  encoding="utf-8")
    # GitHub Pages runs Jekyll unless told not to, and Jekyll drops every folder whose name starts
    # with "_" (_static, _sources, _downloads).
    (site / ".nojekyll").write_text("", encoding="utf-8")
    # Each chapter's .ipynb download, and the copies of the assignments the chapters link.
    assignment_copies = {a["name"]: site / a["notebook"] for a in manifest["assignments"]}
    for path in sorted((site / "_sources").rglob("*.ipynb")):
        notebook = standalone_chapter(nbformat.read(path, as_version=4))
        nbformat.write(with_install_cell(notebook, manifest["address"], manifest["package"]), path)
    for path in sorted((site / "_downloads").rglob("*.ipynb")):
        if path.stem in assignment_copies:
            shutil.copyfile(assignment_copies[path.stem], path)


# --- the public edition of the repository -----------------------------------------------------

PUBLIC_README = """# {title}

The public edition of the course: the book, the reference library `perceptron_lib` its
chapters import, and the assignments as students get them. It holds no solutions, hidden
checks or grades.

## Build the book

On a machine with Python 3.11 or later, Node.js and npm:

```
python -m venv .venv
.venv/bin/pip install -r requirements.txt
.venv/bin/python book/build.py        # the book, in _build/html
```

## Run a chapter online

The launch button (the rocket at the top of each chapter) opens the chapter on Binder,
which builds this repository's `requirements.txt`. It points at the repository and branch
set under `repository:` in `_config.yml`: set `url` to this repository's address on GitHub
and `branch` to its branch.

Where the course has a JupyterHub (`launch_buttons.jupyterhub_url` in `_config.yml`), the
launch button's JupyterHub item opens the chapter's notebook (`notebooks/chapters/`) and
each assignment's link opens its notebook (`notebooks/release/`) on the hub: nbgitpuller
pulls this repository into the student's home, and keeps what the student changed.
"""


def public_requirements(wheel: str) -> str:
    """The public edition's requirements: what the book build and the chapters need.

    ``wheel`` (relative to the edition's root) is the student package, so the chapters import
    ``perceptron_lib`` wherever a notebook runs (Binder starts a chapter's kernel in ``book/``).
    """
    keep = ("numpy", "matplotlib", "scikit-learn", "scipy", "jupyter-book", "jupyter-cache", "sphinx-proof",
            "sphinx-exercise", "sphinxcontrib-bibtex", "jupytext", "ipykernel", "nbclient", "nbformat",
            "PyYAML", "threadpoolctl")
    lines = []
    for line in (ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        name = re.split(r"[=<>\[ ]", line.strip(), maxsplit=1)[0]
        if name in keep:
            lines.append(line.strip())
    return ("# The book and its chapters, pinned as the course builds them, and the course's package.\n"
            + "\n".join(lines) + f"\n./{wheel}\n")


def write_public_edition(manifest: dict, out: Path = PUBLIC_REPO, published: Path = PUBLISHED) -> None:
    """Write the public edition of the repository into ``out``: it builds the book by itself."""
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.so", "*.pyd", ".ipynb_checkpoints")
    shutil.copytree(ROOT / "book", out / "book", ignore=ignore)
    shutil.copytree(ROOT / "perceptron_lib", out / "perceptron_lib", ignore=ignore)
    for name in ("_toc.yml", "_config.yml"):
        shutil.copyfile(ROOT / name, out / name)
    # The chapters link the release notebooks; the students' versions, with the install cell.
    for assignment in manifest["assignments"]:
        target = out / "notebooks" / "release" / assignment["name"] / f"{assignment['name']}.ipynb"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(published / assignment["notebook"], target)
    # The chapters as notebooks, which the course's hub opens (book/_ext/course_hub.py says where).
    for source in notebook_chapters():
        target = out / course_hub().chapter_notebook(source.relative_to(ROOT).with_suffix("").as_posix())
        target.parent.mkdir(parents=True, exist_ok=True)
        nbformat.write(chapter_as_notebook(source, manifest["address"], manifest["package"]), target)
    # The downloads the student page lists, where the course_site extension looks for them.
    shutil.copytree(published, out / "published")
    (out / "requirements.txt").write_text(public_requirements(f"published/{manifest['wheel']}"), encoding="utf-8")
    settings = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    (out / "README.md").write_text(PUBLIC_README.format(title=settings.get("title", "The course")), encoding="utf-8")
    (out / ".gitignore").write_text("_build/\n.venv/\n__pycache__/\n", encoding="utf-8")


# --- the command ------------------------------------------------------------------------------

def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def publish(*, book: bool = True, address: str | None = None, out: Path | None = None) -> dict:
    """Prepare the downloads, write the public edition, build its book into the site, audit both.

    ``address`` replaces ``html.baseurl`` of ``_config.yml``; ``out`` is the folder that gets
    ``site/`` and ``public-repo/`` (default: ``_build``) and, when given, the book's build too
    (``out/_build``: the downloads, the PDF's copy and the HTML), so that nothing in the
    repository's ``_build`` changes. Returns the manifest with timings and sizes. Raises
    :class:`PublishError` (after deleting both folders) when the audit finds anything.
    """
    from autograder.commands.audit import audit, collect_secrets

    if out:
        out = out.resolve()
        site, public_repo, path_output = out / "site", out / "public-repo", out
    else:
        site, public_repo, path_output = SITE, PUBLIC_REPO, ROOT
    build = path_output / "_build"
    timings = {}
    start = time.perf_counter()
    hub = check_launch_settings()
    manifest = prepare(checked_address(address, "--address") if address else site_address(), out=build / "published")
    write_public_edition(manifest, out=public_repo, published=build / "published")
    try:
        if book:
            if out and PDF_FOLDER.is_dir():
                # The pages link the PDF that `make pdf` built, which the book's build finds beside its output.
                shutil.rmtree(build / "pdf", ignore_errors=True)
                shutil.copytree(PDF_FOLDER, build / "pdf")
            build_book(public_repo, path_output)
        assemble(manifest, html_dir=build / "html", site=site, published=build / "published")
    except BaseException:
        # Nothing that the leak audit has not read is left for publishing.
        shutil.rmtree(site, ignore_errors=True)
        shutil.rmtree(public_repo, ignore_errors=True)
        raise
    timings["build_seconds"] = time.perf_counter() - start

    start = time.perf_counter()
    findings = audit([site, public_repo], collect_secrets())
    timings["audit_seconds"] = time.perf_counter() - start
    if findings:
        shutil.rmtree(site, ignore_errors=True)
        shutil.rmtree(public_repo, ignore_errors=True)
        listed = "\n".join(f"  {finding}" for finding in findings)
        raise PublishError(f"the leak audit found {len(findings)} secret(s), so {site} and {public_repo} were "
                           f"deleted:\n{listed}")
    timings["site_bytes"] = folder_size(site)
    timings["public_repo_bytes"] = folder_size(public_repo)
    return {**manifest, **timings, "site": str(site), "public_repo": str(public_repo),
            "hub": hub.hub if hub else None, "hub_repository": hub.repository if hub else None}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m autograder publish",
        description="Build the public course into _build/site/ (the book, the student package, the assignments) "
                    "and the public edition of the repository into _build/public-repo/, then audit both for "
                    "anything secret.")
    parser.add_argument("--no-book", action="store_true",
                        help="use the book already in _build/html (DIR/_build/html with --out) instead of building "
                             "it from the public edition (it must have been built after the downloads were prepared)")
    parser.add_argument("--address", metavar="URL",
                        help="the address the site will be served at, instead of html.baseurl in _config.yml")
    parser.add_argument("--out", metavar="DIR", type=Path,
                        help="write site/ and public-repo/ into DIR instead of _build/, and build the book in "
                             "DIR/_build/, leaving _build/ as it is")
    args = parser.parse_args(argv)
    try:
        result = publish(book=not args.no_book, address=args.address, out=args.out)
    except PublishError as error:
        print(f"autograder publish: {error}", file=sys.stderr)
        return 1
    where = f"served at {result['address']}" if result["address"] else "no address set (html.baseurl in _config.yml)"
    print(f"published {result['site']}/ ({result['site_bytes'] / 1e6:.1f} MB; {where}) and "
          f"{result['public_repo']}/ ({result['public_repo_bytes'] / 1e6:.1f} MB) in "
          f"{result['build_seconds']:.1f} s; the leak audit read both in {result['audit_seconds']:.1f} s "
          "and found nothing secret.")
    print(f"students install with: {result['install']}")
    if result["hub"]:
        print(f"the book's links open the chapters and assignments on {result['hub']}, pulled from "
              f"{result['hub_repository']}: push {result['public_repo']}/ there.")
    compiled = ", ".join(result["compiled_wheels"])
    if compiled and result["address"]:
        print(f"pip takes the compiled kernel's wheel ({compiled}) on its platform, and {result['wheel']} "
              "everywhere else.")
    elif compiled:
        print(f"The site also holds the compiled kernel's wheel ({compiled}): with an address set, the install "
              "command lets pip take it where it fits; without one, students install the pure wheel.")
    else:
        print(result["packaging_note"] or "there is no compiled wheel: students train with the numpy engine.")
    return 0
