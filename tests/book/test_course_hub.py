"""The book's links to the course's hub (``book/_ext/course_hub.py``), and the refusal of this repository.

Each rule is tested where it is made: the settings and the link's form on the module's functions; the
refusal on real git clones (this repository's layout with a remote, and the public edition's); the pages
on a small Sphinx project with the book's theme, where the theme's launch button and a chapter's download
link are what the extension changes; the notebooks the links open on the public edition that ``publish``
writes. tests/hub/test_nbgitpuller.py follows the links on a real hub.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import nbformat
import pytest

from autograder.commands import publish
from tests.support import REPO_ROOT
from tests.support.book import book_module

course_hub = book_module("_ext/course_hub.py")
HUB = "https://hub.example.edu"
PUBLIC = "https://github.com/perceptron-course/perceptron-course-public"


def query(link: str) -> tuple[str, dict[str, str]]:
    parts = urlsplit(link)
    values = parse_qs(parts.query, strict_parsing=True)
    assert all(len(v) == 1 for v in values.values()), values
    return f"{parts.scheme}://{parts.netloc}{parts.path}", {k: v[0] for k, v in values.items()}


# --- the settings and the links -------------------------------------------------------------------

def test_without_a_hub_address_there_are_no_hub_links():
    assert course_hub.hub_links("", PUBLIC, "main") is None
    assert course_hub.hub_links(None, PUBLIC, "main") is None
    assert course_hub.hub_links_from_book_config({"repository": {"url": PUBLIC}}) is None


def test_an_assignment_link_pulls_the_public_edition_and_opens_the_released_notebook():
    links = course_hub.hub_links(HUB + "/", PUBLIC, "main")
    where, values = query(links.assignment("ps1_hyperplanes"))
    # JupyterHub sends /hub/user-redirect/... to the student's own server (starting it), where nbgitpuller listens.
    assert where == f"{HUB}/hub/user-redirect/git-pull"
    assert values == {"repo": PUBLIC, "branch": "main", "targetpath": "perceptron-course-public",
                      "urlpath": "lab/tree/perceptron-course-public/notebooks/release/ps1_hyperplanes/"
                                 "ps1_hyperplanes.ipynb"}


def test_a_chapter_link_opens_the_chapters_notebook_in_the_chosen_interface_and_folder():
    links = course_hub.hub_links("https://example.edu/jupyter", PUBLIC + ".git", "", path_to_book="course/",
                                 notebook_interface="classic")
    where, values = query(links.chapter("book/hyperplanes"))
    assert where == "https://example.edu/jupyter/hub/user-redirect/git-pull"
    # No branch: nbgitpuller takes the repository's default; the folder is the repository's name without .git.
    assert values == {"repo": PUBLIC + ".git", "targetpath": "perceptron-course-public",
                      "urlpath": "tree/perceptron-course-public/course/notebooks/chapters/hyperplanes.ipynb"}


@pytest.mark.parametrize("settings, message", [
    ({"launch_buttons": {"jupyterhub_url": "hub.example.edu"}, "repository": {"url": PUBLIC}},
     r"launch_buttons.jupyterhub_url in _config.yml is 'hub.example.edu'; expected a web address starting with "
     r"https://"),
    ({"launch_buttons": {"jupyterhub_url": "https://ta:secret@hub.example.edu"}, "repository": {"url": PUBLIC}},
     r"launch_buttons.jupyterhub_url .* holds a user name or password"),
    ({"launch_buttons": {"jupyterhub_url": "https://hub.example.edu/?next=x"}, "repository": {"url": PUBLIC}},
     r"without '\?' or '#'"),
    ({"launch_buttons": {"jupyterhub_url": HUB}, "repository": {"url": ""}},
     r"launch_buttons.jupyterhub_url is set .* but repository.url is not: .* _build/public-repo/"),
    ({"launch_buttons": {"jupyterhub_url": HUB}, "repository": {"url": "https://ghp_token@github.com/a/b"}},
     r"repository.url .* holds a user name or password"),
    ({"launch_buttons": {"jupyterhub_url": HUB, "notebook_interface": "vscode"}, "repository": {"url": PUBLIC}},
     r"notebook_interface .* 'vscode'; expected one of jupyterlab, classic"),
])
def test_settings_links_cannot_be_made_from_are_refused_saying_what_to_set(settings, message):
    with pytest.raises(course_hub.HubSettingError, match=message):
        course_hub.hub_links_from_book_config(settings)


@pytest.mark.parametrize("address", [
    "https://github.com/Course/Private", "https://github.com/course/private.git", "http://github.com/course/private/",
    "git@github.com:course/private.git", "ssh://git@github.com:22/course/private", "https://www.github.com/course/private",
    "https://user@github.com/course/private.git"])
def test_every_form_of_a_git_address_names_the_same_repository(address):
    assert course_hub.repository_identity(address) == "github.com/course/private"


@pytest.mark.parametrize("address", ["/home/ian/perceptron-course", "file:///home/ian/perceptron-course", "", "../x"])
def test_a_local_path_names_no_hosted_repository(address):
    assert course_hub.repository_identity(address) is None


# --- this repository, the one with the solutions ---------------------------------------------------

def git(folder: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(folder), *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture
def instructors_clone(tmp_path):
    """A clone laid out as this repository (the solutions in notebooks/source/), with two remotes."""
    clone = tmp_path / "perceptron-course"
    (clone / "notebooks" / "source" / "ps1_hyperplanes").mkdir(parents=True)
    git(clone, "init", "-q")
    git(clone, "remote", "add", "origin", "git@github.com:Perceptron-Course/perceptron-course-private.git")
    git(clone, "remote", "add", "mirror", "https://gitlab.example.edu/teaching/perceptron.git")
    git(clone, "remote", "set-url", "--push", "mirror", "ssh://git@gitlab.example.edu/teaching/perceptron-push.git")
    return clone


@pytest.mark.parametrize("url, remote", [
    ("https://github.com/perceptron-course/perceptron-course-private", "origin"),
    ("https://gitlab.example.edu/teaching/perceptron", "mirror"),
    ("https://gitlab.example.edu/teaching/perceptron-push.git", "mirror"),
])
def test_the_build_refuses_this_repository_and_says_what_to_set_instead(instructors_clone, url, remote):
    settings = {"repository": {"url": url, "branch": "main"}, "launch_buttons": {"jupyterhub_url": ""}}
    # From the clone's root (make book) and from the public edition written inside it (make site's build).
    for start in (instructors_clone, instructors_clone / "_build" / "public-repo"):
        start.mkdir(parents=True, exist_ok=True)
        with pytest.raises(course_hub.HubSettingError) as refused:
            course_hub.check_book_config(settings, start)
        said = str(refused.value)
        assert f"repository.url in _config.yml is {url}, which is this repository (its git remote '{remote}'" in said
        assert "holds the solutions (notebooks/source/)" in said
        assert "push _build/public-repo/ to a public repository of its own, and set repository.url" in said


def test_the_public_edition_and_a_clone_without_the_solutions_are_not_refused(instructors_clone, tmp_path):
    public = "https://github.com/perceptron-course/perceptron-course-public"
    settings = {"repository": {"url": public, "branch": "main"}, "launch_buttons": {"jupyterhub_url": HUB}}
    assert course_hub.check_book_config(settings, instructors_clone).repository == public
    # The public edition in a clone of its own, whose remote is that very repository: that is the point.
    edition = tmp_path / "edition"
    edition.mkdir()
    git(edition, "init", "-q")
    git(edition, "remote", "add", "origin", public)
    assert course_hub.solutions_remotes(edition) == []
    assert course_hub.check_book_config(settings, edition).repository == public
    # No git at all.
    assert course_hub.solutions_remotes(tmp_path / "no-git-here") == []


def test_book_build_and_publish_refuse_before_building(tmp_path):
    config = tmp_path / "_config.yml"
    config.write_text("repository:\n  url: https://github.com/a/b\nlaunch_buttons:\n  jupyterhub_url: hub.edu\n",
                      encoding="utf-8")
    build = book_module("build.py")
    assert "expected a web address starting with https://" in build.check_launch_settings(config)
    with pytest.raises(publish.PublishError, match="expected a web address starting with https://"):
        publish.check_launch_settings(config)
    config.write_text("repository:\n  url: https://github.com/a/b\n", encoding="utf-8")
    assert build.check_launch_settings(config) is None and publish.check_launch_settings(config) is None
    # This checkout's own settings pass (the default builds with no hub).
    assert build.check_launch_settings() is None


# --- the pages --------------------------------------------------------------------------------------

CONF = """
extensions = ["myst_nb", "course_site", "course_hub"]
html_theme = "sphinx_book_theme"
nb_execution_mode = "off"
exclude_patterns = ["_build", "notebooks", "published"]
html_theme_options = {{
    "repository_url": "{repository}", "repository_branch": "main", "path_to_docs": "",
    "launch_buttons": {{"jupyterhub_url": "{hub}", "notebook_interface": "jupyterlab"}},
}}
"""
CHAPTER = """---
jupytext:
  text_representation:
    extension: .md
    format_name: myst
kernelspec:
  display_name: Python 3
  language: python
  name: python3
---

# Hyperplanes

```{code-cell} ipython3
1 + 1
```

## Assignment

{download}`Download the assignment notebook <../notebooks/release/ps1_hyperplanes/ps1_hyperplanes.ipynb>`

{download}`A data file <../notebooks/release/ps1_hyperplanes/points.csv>`
"""


def write_small_book(folder: Path, hub: str) -> Path:
    """A one-chapter book with the book's theme and this extension, in ``folder``."""
    (folder / "book").mkdir(parents=True)
    (folder / "book" / "hyperplanes.md").write_text(CHAPTER, encoding="utf-8")
    (folder / "book" / "students.md").write_text("# For students\n\n```{course-assignments}\n```\n",
                                                  encoding="utf-8")
    (folder / "index.md").write_text("# A book\n\n```{toctree}\nbook/hyperplanes\nbook/students\n```\n",
                                     encoding="utf-8")
    # What publish prepares for the page for students (course_site reads it).
    (folder / "published").mkdir()
    (folder / "published" / "manifest.json").write_text(json.dumps({"assignments": [
        {"name": "ps1_hyperplanes", "title": "Problem set 1", "notebook": "assignments/ps1_hyperplanes.ipynb",
         "zip": "assignments/ps1_hyperplanes.zip"}]}), encoding="utf-8")
    release = folder / "notebooks" / "release" / "ps1_hyperplanes"
    release.mkdir(parents=True)
    nbformat.write(nbformat.v4.new_notebook(), release / "ps1_hyperplanes.ipynb")
    (release / "points.csv").write_text("x,y\n", encoding="utf-8")
    (folder / "conf.py").write_text(CONF.format(repository=PUBLIC, hub=hub), encoding="utf-8")
    return folder


def sphinx_build(folder: Path) -> int:
    from sphinx.cmd.build import build_main

    extensions = str(REPO_ROOT / "book" / "_ext")
    sys.path.insert(0, extensions)
    try:
        return build_main(["-q", "-b", "html", str(folder), str(folder / "_build" / "html")])
    finally:
        sys.path.remove(extensions)


def build_small_book(folder: Path, hub: str) -> str:
    """The small book's chapter page, as built."""
    assert sphinx_build(write_small_book(folder, hub)) == 0
    return (folder / "_build" / "html" / "book" / "hyperplanes.html").read_text(encoding="utf-8")


def test_the_pages_launch_button_and_assignment_link_open_the_public_editions_notebooks(tmp_path):
    page = build_small_book(tmp_path / "with-hub", HUB)
    links = course_hub.hub_links(HUB, PUBLIC, "main")
    hrefs = [html.unescape(h) for h in re.findall(r'href="([^"]*git-pull[^"]*)"', page)]
    # The rocket's JupyterHub item: the chapter's notebook, not its MyST source.
    assert links.chapter("book/hyperplanes") in hrefs
    assert not any("hyperplanes.md" in h for h in hrefs)
    # Beside the assignment's download, and only there (not beside the data file's).
    beside = re.findall(r'</a>, or <a ([^>]*course-hub-link[^>]*)>([^<]*)</a>', page)
    assert len(beside) == 1, beside
    attributes, text = beside[0]
    assert html.unescape(text) == course_hub.HUB_LINK_TEXT == "open it on the course\u2019s JupyterHub"
    assert html.unescape(re.search(r'href="([^"]*)"', attributes)[1]) == links.assignment("ps1_hyperplanes")
    assert page.index("Download") < page.index("course-hub-link") < page.index("points.csv")
    assert sorted(set(hrefs)) == sorted([links.chapter("book/hyperplanes"), links.assignment("ps1_hyperplanes")])

    # The page for students: beside each assignment it lists.
    students = (tmp_path / "with-hub" / "_build" / "html" / "book" / "students.html").read_text(encoding="utf-8")
    listed = re.findall(r'\(the notebook, the package and how to use them\); or <a ([^>]*course-hub-link[^>]*)>'
                        r'([^<]*)</a>\.', students)
    assert [(html.unescape(re.search(r'href="([^"]*)"', a)[1]), html.unescape(text)) for a, text in listed] == [
        (links.assignment("ps1_hyperplanes"), course_hub.HUB_LINK_TEXT)]

    without = build_small_book(tmp_path / "without-hub", "")
    assert "git-pull" not in without and "JupyterHub" not in without
    students = (tmp_path / "without-hub" / "_build" / "html" / "book" / "students.html").read_text(encoding="utf-8")
    assert "(the notebook, the package and how to use them)." in students and "git-pull" not in students


def test_the_books_own_build_refuses_this_repository(tmp_path, capsys):
    """The Sphinx extension refuses it too, for a build that is not started by book/build.py."""
    book = write_small_book(tmp_path / "clone", HUB)
    (book / "notebooks" / "source").mkdir()
    git(book, "init", "-q")
    git(book, "remote", "add", "origin", PUBLIC + ".git")
    assert sphinx_build(book) != 0
    assert f"repository.url in _config.yml is {PUBLIC}, which is this repository" in capsys.readouterr().err
    assert not (book / "_build" / "html" / "book" / "hyperplanes.html").exists()


# --- what the links open: the public edition --------------------------------------------------------

def test_the_public_edition_holds_every_notebook_the_links_open(tmp_path):
    published = tmp_path / "published"
    (published / "assignments").mkdir(parents=True)
    names = ["ps1_hyperplanes", "ps2_online_perceptron"]
    for name in names:
        nbformat.write(nbformat.v4.new_notebook(), published / "assignments" / f"{name}.ipynb")
    manifest = {"address": "https://example.edu/course", "package": "perceptron-course-student",
                "wheel": "packages/perceptron_course_student-1.0.0-py3-none-any.whl",
                "assignments": [{"name": n, "notebook": f"assignments/{n}.ipynb"} for n in names]}
    edition = tmp_path / "public-repo"
    publish.write_public_edition(manifest, out=edition, published=published)
    for name in names:
        assert (edition / course_hub.assignment_notebook(name)).is_file()
    chapters = publish.notebook_chapters()
    assert [c.stem for c in chapters][:2] == ["introduction", "hyperplanes"]
    for source in chapters:
        path = edition / course_hub.chapter_notebook(f"book/{source.stem}")
        notebook = nbformat.read(path, as_version=4)
        nbformat.validate(notebook)
        # It runs on the hub without the book's tools, installs nothing the hub has not, and has no outputs.
        assert publish.INSTALL_TAG in notebook.cells[0].metadata["tags"]
        code = "\n".join(c.source for c in notebook.cells if c.cell_type == "code")
        assert "except ImportError" in code or "myst_nb" not in code
        assert all(not c.get("outputs") for c in notebook.cells if c.cell_type == "code")
        assert "jupytext" not in notebook.metadata
    # Published again, the same bytes: a student's pull merges only what changed.
    again = tmp_path / "again"
    publish.write_public_edition(manifest, out=again, published=published)
    for source in chapters:
        relative = course_hub.chapter_notebook(f"book/{source.stem}")
        assert (again / relative).read_bytes() == (edition / relative).read_bytes()
