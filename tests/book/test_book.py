"""Tests of the book: its table of contents and the built HTML in ``_build/html`` (no nbgrader
solutions, no broken internal links, nothing loaded from the network).

The tests of the built HTML need ``make book`` first (``make test`` runs it); without a
built book they fail with a message that says so. The book's build runs every chapter (a
failing chapter fails it); the test suite runs each chapter once more, as a student downloads
it from the published site (tests/grader/commands/test_publish.py), and compares what it
shows with what the book shows.
"""

from __future__ import annotations

from collections import defaultdict
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from autograder.commands import audit as leak_audit

# Link relations that make the browser fetch the target while the page loads.
LOADING_RELS = {"stylesheet", "preload", "modulepreload", "icon", "shortcut", "manifest",
                "prefetch", "preconnect", "dns-prefetch", "apple-touch-icon"}


class PageParser(HTMLParser):
    """Collects the ids of a page and the URLs its elements refer to."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, url)
        self.link_rels: list[tuple[str, str]] = []  # (rel, href) of <link>
        self.inline_scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if attributes.get("id"):
            self.ids.add(attributes["id"])
        if tag == "a" and attributes.get("name"):
            self.ids.add(attributes["name"])
        for name in ("href", "src"):
            if attributes.get(name) is not None:
                self.links.append((tag, name, attributes[name]))
        if tag == "link" and attributes.get("href"):
            self.link_rels.append((attributes.get("rel") or "", attributes["href"]))
        if tag == "script" and not attributes.get("src"):
            self._in_script = True
            self.inline_scripts.append("")

    def handle_endtag(self, tag):
        if tag == "script":
            self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.inline_scripts[-1] += data


def parse_page(path: Path) -> PageParser:
    parser = PageParser()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def html_pages(built_book: Path) -> list[Path]:
    """The book's pages: every .html file except the theme's and MathJax's static files."""
    return sorted(p for p in built_book.rglob("*.html") if "_static" not in p.relative_to(built_book).parts)


def is_external(url: str) -> bool:
    parts = urlsplit(url)
    return bool(parts.scheme) or url.startswith("//")


# --- the table of contents -------------------------------------------------------------

def test_every_book_page_is_in_the_toc(repo_root, book_docnames):
    pages = {f"book/{path.stem}" for path in (repo_root / "book").glob("*.md")}
    missing = sorted(pages - set(book_docnames))
    assert not missing, (
        f"These pages are in book/ but not in _toc.yml, so they are not built: {missing}. "
        "Add them to _toc.yml."
    )


def test_every_toc_entry_has_a_file(repo_root, book_docnames):
    missing = [name for name in book_docnames
               if not any((repo_root / f"{name}{suffix}").is_file() for suffix in (".md", ".ipynb"))]
    assert not missing, f"_toc.yml lists documents that have no .md or .ipynb file: {missing}"


def test_toc_has_no_duplicates(book_docnames):
    duplicates = sorted({name for name in book_docnames if book_docnames.count(name) > 1})
    assert not duplicates, f"_toc.yml lists these documents more than once: {duplicates}"


# --- the built book --------------------------------------------------------------------

def test_every_toc_page_is_built(built_book, book_docnames):
    missing = [name for name in book_docnames if not (built_book / f"{name}.html").is_file()]
    assert not missing, f"These pages are in _toc.yml but not in {built_book}: {missing}"


def test_built_book_has_no_nbgrader_markers(built_book):
    found = defaultdict(list)
    for path in sorted(built_book.rglob("*")):
        if not path.is_file():
            continue
        content = path.read_bytes()
        for marker in leak_audit.MARKERS:
            if marker.encode() in content:
                found[str(path.relative_to(built_book))].append(marker)
    assert not found, (
        "The built book contains instructor-only text (nbgrader's solution or hidden-test markers, "
        f"or the hidden checks' call), so it would give away solutions: {dict(found)}"
    )


def test_internal_links_resolve(built_book):
    pages = html_pages(built_book)
    assert pages, f"no HTML pages under {built_book}"
    parsed = {path.resolve(): parse_page(path) for path in pages}
    broken = []
    for path, page in parsed.items():
        for tag, attribute, url in page.links:
            if not url or is_external(url):
                continue
            parts = urlsplit(url)
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            where = f"{path.relative_to(built_book.resolve())}: <{tag} {attribute}={url!r}>"
            if not target.is_file():
                broken.append(f"{where} -> missing file")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else parse_page(target).ids
                if fragment not in ids:
                    broken.append(f"{where} -> no element with id {fragment!r}")
    assert not broken, "Broken internal links in the built book:\n" + "\n".join(broken)


def test_pages_load_nothing_from_the_network(built_book):
    """Scripts, stylesheets, fonts and images come from the build, not from a CDN.

    Links that the reader follows (launch buttons, the repository, citations) are fine:
    they act only on a click.
    """
    remote = []
    for path in html_pages(built_book):
        page = parse_page(path)
        name = path.relative_to(built_book)
        for tag, attribute, url in page.links:
            if tag in {"script", "img", "iframe", "source", "embed", "video", "audio"} and is_external(url):
                remote.append(f"{name}: <{tag} {attribute}={url!r}>")
        for rel, href in page.link_rels:
            if is_external(href) and LOADING_RELS & set(rel.lower().split()):
                remote.append(f"{name}: <link rel={rel!r} href={href!r}>")
        for script in page.inline_scripts:
            for scheme in ("http://", "https://"):
                if scheme in script:
                    snippet = script[max(0, script.index(scheme) - 60):script.index(scheme) + 80]
                    remote.append(f"{name}: inline script refers to {snippet.strip()!r}")
    assert not remote, "Pages fetch resources from the network at load time:\n" + "\n".join(remote)


def test_mathjax_is_served_locally(built_book, book_docnames):
    mathjax = built_book / "_static" / "mathjax" / "tex-chtml.js"
    assert mathjax.is_file(), f"{mathjax} is missing: book/build.py copies MathJax there"
    pages_with_math = []
    for name in book_docnames:
        text = (built_book / f"{name}.html").read_text(encoding="utf-8")
        if 'class="math' in text:
            pages_with_math.append(name)
            assert "_static/mathjax/tex-chtml.js" in text, f"{name}.html does not load the local MathJax"
    assert pages_with_math, "no page of the book contains mathematics: is MathJax configured?"


def test_chapters_offer_ipynb_download(built_book, book_docnames, repo_root):
    """Every page with code offers itself as a notebook in the download menu."""
    missing = []
    for name in book_docnames:
        source = repo_root / f"{name}.md"
        if not source.is_file() or "```{code-cell}" not in source.read_text(encoding="utf-8"):
            continue  # only chapters with code are notebooks
        ipynb = built_book / "_sources" / f"{name}.ipynb"
        html = (built_book / f"{name}.html").read_text(encoding="utf-8")
        if not ipynb.is_file() or f'_sources/{name}.ipynb"' not in html:
            missing.append(name)
    assert not missing, f"These chapters have no .ipynb download: {missing}"


def test_a_build_is_skipped_only_when_nothing_it_is_made_from_changed(tmp_path, monkeypatch):
    """The digest of the book's inputs follows their contents, not their times, and counts the
    published downloads and the PDF beside the output."""
    import os

    from tests.support.book import book_module

    build = book_module("build.py")
    root = tmp_path / "repository"
    for name in build.INPUTS:
        path = root / name
        if "." in name:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"{name}\n", encoding="utf-8")
        else:
            path.mkdir(parents=True)
            (path / "a.txt").write_text("a\n", encoding="utf-8")
    monkeypatch.setattr(build, "ROOT", root)

    def write(path, text):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    release = root / "notebooks" / "release" / "a.txt"
    first = build.inputs_digest(root)
    assert build.inputs_digest(root) == first

    os.utime(release, (1, 1))  # the release rewrites its notebooks with the same contents
    (root / "book" / "__pycache__").mkdir()
    (root / "book" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert build.inputs_digest(root) == first

    changes = [
        lambda: release.write_text("b\n", encoding="utf-8"),
        lambda: (root / "book" / "new.md").write_text("# New\n", encoding="utf-8"),
        lambda: write(root / "_build" / "pdf" / "course.pdf", "%PDF"),
        lambda: write(root / "_build" / "published" / "manifest.json", "{}"),
        lambda: monkeypatch.setenv("BOOK_MATHJAX_DIR", str(tmp_path)),
    ]
    seen = {first}
    for change in changes:
        change()
        digest = build.inputs_digest(root)
        assert digest not in seen, f"the digest did not change: {change}"
        seen.add(digest)
    assert build.inputs_digest(tmp_path / "elsewhere") not in seen


def test_pages_of_an_earlier_layout_are_removed_and_the_same_layout_keeps_them(tmp_path, monkeypatch, capsys):
    from tests.support.book import book_module

    build = book_module("build.py")
    html = tmp_path / "html"
    html.mkdir()
    (html / "genindex.html").write_text("<h1></h1>", encoding="utf-8")  # made by settings since changed
    (html / build.LAYOUT_FILE).write_text("the digest of other settings", encoding="utf-8")
    build.start_afresh_if_the_layout_changed(html)
    assert sorted(p.name for p in html.iterdir()) == [build.LAYOUT_FILE]
    assert "building it afresh" in capsys.readouterr().out
    (html / "index.html").write_text("<h1>Kept</h1>", encoding="utf-8")
    build.start_afresh_if_the_layout_changed(html)
    assert (html / "index.html").is_file() and capsys.readouterr().out == ""
    (html / build.LAYOUT_FILE).unlink()  # a folder from before layouts were recorded
    build.start_afresh_if_the_layout_changed(html)
    assert not (html / "index.html").exists()


def test_a_build_with_the_recorded_inputs_stops_before_jupyter_book_unless_forced(tmp_path, monkeypatch, capsys):
    from tests.support.book import book_module

    build = book_module("build.py")
    html = tmp_path / "_build" / "html"
    html.mkdir(parents=True)
    (html / build.INPUTS_FILE).write_text(build.inputs_digest(tmp_path), encoding="utf-8")

    class Built(Exception):
        pass

    def jupyter_book(*args, **kwargs):
        raise Built

    monkeypatch.setattr(build, "run_jupyter_book", jupyter_book)
    monkeypatch.setattr(build, "mathjax_es5", lambda: tmp_path)
    monkeypatch.setattr(build, "checker_script", lambda name: tmp_path)
    assert build.main(["--path-output", str(tmp_path)]) == 0
    assert "not built again" in capsys.readouterr().out
    with pytest.raises(Built):
        build.main(["--path-output", str(tmp_path), "--force"])
    # A build that is started forgets the last one's record, so that if it fails the next one builds.
    assert not (html / build.INPUTS_FILE).exists()
