"""Fixtures shared by the test modules: the repository, the book's table of contents and
the built book in ``_build/html``."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

REPO_ROOT = Path(__file__).resolve().parent.parent
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


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return REPO_ROOT


@pytest.fixture(scope="session")
def book_docnames() -> list[str]:
    """The documents listed in ``_toc.yml``, e.g. ``['book/index', 'book/introduction', ...]``."""
    return toc_docnames(REPO_ROOT / "_toc.yml")


@pytest.fixture(scope="session")
def built_book() -> Path:
    """The built HTML book; fails (never skips) when it has not been built."""
    if not (BUILT_BOOK / "index.html").is_file():
        pytest.fail(
            f"The built book is missing: {BUILT_BOOK / 'index.html'} does not exist. "
            "Run `make book` (or `.venv/bin/python book/build.py`) first; "
            "`make test` builds the book before running the tests.",
            pytrace=False,
        )
    return BUILT_BOOK
