"""The book as the tests read it: its table of contents, its build scripts as modules, and the pages of
the built book in ``_build/html``."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import yaml

from tests.support import REPO_ROOT

BOOK = REPO_ROOT / "book"
BUILT_BOOK = REPO_ROOT / "_build" / "html"


def toc_docnames(toc_file: Path) -> list[str]:
    """Every document of a jb-book ``_toc.yml`` in reading order, e.g. ``book/index``.

    Handles the root, ``chapters``, ``parts`` and nested ``sections``.
    """
    toc = yaml.safe_load(toc_file.read_text(encoding="utf-8"))
    names = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                names.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    walk(toc.get("chapters"))
    for part in toc.get("parts") or []:
        walk(part.get("chapters"))
    return [str(Path(name).with_suffix("")) for name in names]


def book_module(relative_path: str):
    """A module of ``book/`` by its path, loaded once (``book/`` is not a package, and "build" is a common name)."""
    name = "book_" + relative_path.removesuffix(".py").replace("/", "_").strip("_")
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, BOOK / relative_path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def site_pages(built_book: Path) -> dict[str, Path]:
    """Every page of a built book by name (``book/index``, ``search``): the chapters and the pages
    Sphinx adds, without the folders of assets and reports and the pages that only redirect elsewhere."""
    pages = {}
    for path in sorted(built_book.rglob("*.html")):
        parts = path.relative_to(built_book).parts
        if any(part.startswith("_") or part == "reports" for part in parts[:-1]):
            continue
        if 'http-equiv="Refresh"' in path.read_text(encoding="utf-8")[:500]:
            continue
        pages[path.relative_to(built_book).with_suffix("").as_posix()] = path
    return pages


def article_html(path: Path) -> str:
    """The ``<article>`` of a built page, the part that is the page's own (no navigation)."""
    html = path.read_text(encoding="utf-8")
    return html[html.find("<article"):html.rfind("</article>")]
