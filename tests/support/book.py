"""The book's sources as the tests read them: its table of contents, and its build scripts as modules."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import yaml

from tests.support import REPO_ROOT

BOOK = REPO_ROOT / "book"


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
