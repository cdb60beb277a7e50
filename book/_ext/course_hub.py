"""Sphinx extension: open a chapter or an assignment on the course's JupyterHub, through nbgitpuller.

The instructor gives the hub's address as Jupyter Book's ``launch_buttons.jupyterhub_url``
in ``_config.yml`` (empty by default: no hub, and the pages are as they were). With an
address, every link to the hub is an nbgitpuller link: the hub logs the student in, starts
their server, and nbgitpuller clones (the first time) or merges (every later time) the
repository named by ``repository.url`` and ``repository.branch`` into a folder of the
student's home, keeping what the student changed, then opens one notebook of it:

* the JupyterHub item of each chapter's launch button (the rocket) opens the chapter as a
  notebook, ``notebooks/chapters/<chapter>.ipynb``, which ``python -m autograder publish``
  writes into the public edition (Jupyter Book's own link would open the chapter's MyST
  Markdown source, which needs jupytext and myst-nb on the hub);
* each link to an assignment's released notebook (the chapters' "Download the assignment
  notebook") gets a link beside it that opens ``notebooks/release/<name>/<name>.ipynb`` on the
  hub; the page for students does the same for every assignment it lists (``course_site``).

So the repository must be the public edition (``_build/public-repo/``, pushed to a
repository of its own): never the instructor's repository, which holds the solutions. This
module refuses it (:func:`check_repository`) when the build runs from that repository (one
with ``notebooks/source/``), by comparing the address with every remote of its git clone.
``book/build.py`` and ``python -m autograder publish`` run the same checks before they build.
"""

from __future__ import annotations

import posixpath
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import quote, urlencode, urlsplit

from docutils import nodes
from sphinx import addnodes
from sphinx.errors import ConfigError
from sphinx.transforms.post_transforms import SphinxPostTransform

# Where the public edition holds what the links open, relative to its root.
CHAPTERS = "notebooks/chapters"
RELEASE = "notebooks/release"
# What only the instructor's repository holds: the assignments with their solutions.
SOLUTIONS = "notebooks/source"
# With the apostrophe that Sphinx's smart quotes give the rest of the book's text (this link is added after them).
HUB_LINK_TEXT = "open it on the course\u2019s JupyterHub"
# The path of JupyterHub's redirect to the user's own server, where nbgitpuller listens at git-pull.
NBGITPULLER_ROUTE = "hub/user-redirect/git-pull"
# Jupyter Book's launch_buttons.notebook_interface, and the path of each interface that opens a file.
INTERFACES = {"jupyterlab": "lab/tree", "classic": "tree"}
_RELEASED_NOTEBOOK = re.compile(rf"{RELEASE}/(?P<name>[^/]+)/(?P=name)\.ipynb")
_WEB_ADDRESS = re.compile(r"https?://[^\s\"'<>]+")

__all__ = ["HubLinks", "HubSettingError", "hub_links", "hub_links_from_book_config", "check_repository",
           "check_book_config", "solutions_remotes", "repository_identity", "chapter_notebook",
           "assignment_notebook", "released_assignment"]


class HubSettingError(ValueError):
    """A setting of ``_config.yml`` that the hub's links cannot be made from; the message says what to set."""


def chapter_notebook(docname: str) -> str:
    """Where the public edition holds the chapter ``docname`` (``book/hyperplanes``) as a notebook."""
    return f"{CHAPTERS}/{PurePosixPath(docname).name}.ipynb"


def assignment_notebook(name: str) -> str:
    """Where the public edition holds the released notebook of the assignment ``name``."""
    return f"{RELEASE}/{name}/{name}.ipynb"


def released_assignment(path: str) -> str | None:
    """The assignment whose released notebook ``path`` is (relative to the book's root), or None."""
    match = _RELEASED_NOTEBOOK.fullmatch(posixpath.normpath(path))
    return match["name"] if match else None


@dataclass(frozen=True)
class HubLinks:
    """nbgitpuller links to notebooks of the public edition, on the course's hub."""

    hub: str  # the hub's address, without a trailing slash
    repository: str  # the public edition's git address
    branch: str | None  # None: the repository's default branch
    interface: str = "lab/tree"
    prefix: str = ""  # where the book's root is inside the repository ("" or "folder/")

    @property
    def folder(self) -> str:
        """The folder of the student's home that nbgitpuller clones the repository into: its name."""
        name = self.repository.rstrip("/").rsplit("/", 1)[-1]
        return name.removesuffix(".git") or "course"

    def link(self, path: str) -> str:
        """The link that pulls the repository into the student's home and opens ``path`` (from the book's root)."""
        inside = f"{self.folder}/{self.prefix}{path}"
        query = {"repo": self.repository, **({"branch": self.branch} if self.branch else {}),
                 # Named here, so that the folder is the same whatever nbgitpuller's default becomes.
                 "targetpath": self.folder, "urlpath": f"{self.interface}/{inside}"}
        return f"{self.hub}/{NBGITPULLER_ROUTE}?{urlencode(query, quote_via=quote)}"

    def chapter(self, docname: str) -> str:
        return self.link(chapter_notebook(docname))

    def assignment(self, name: str) -> str:
        return self.link(assignment_notebook(name))


def _web_address(value, setting: str, example: str) -> str | None:
    """``value`` as a web address without a trailing slash, None if empty; refused if it is none."""
    text = str(value or "").strip()
    if not text:
        return None
    parts = urlsplit(text)
    if not _WEB_ADDRESS.fullmatch(text) or not parts.hostname:
        raise HubSettingError(f"{setting} in _config.yml is {text!r}; expected a web address starting with "
                              f"https:// (for example {example}), or empty.")
    if parts.username or parts.password:
        raise HubSettingError(f"{setting} in _config.yml holds a user name or password, which every page of the "
                              "book would publish: give the address alone.")
    if parts.query or parts.fragment:
        raise HubSettingError(f"{setting} in _config.yml is {text!r}; give the address alone, without '?' or '#' "
                              f"(for example {example}).")
    return text.rstrip("/")


def hub_links(jupyterhub_url, repository_url, branch=None, path_to_book="",
              notebook_interface="jupyterlab") -> HubLinks | None:
    """The links to the hub that these settings of ``_config.yml`` make, or None when no hub is set.

    Raises :class:`HubSettingError` when an address is malformed, or a hub is set without the
    repository to pull.
    """
    hub = _web_address(jupyterhub_url, "launch_buttons.jupyterhub_url", "https://hub.example.edu")
    repository = _web_address(repository_url, "repository.url", "https://github.com/ACCOUNT/REPOSITORY")
    if hub is None:
        return None
    if repository is None:
        raise HubSettingError("launch_buttons.jupyterhub_url is set in _config.yml but repository.url is not: the "
                              "hub's links pull the public edition of the course, so set repository.url to the "
                              "public repository you pushed _build/public-repo/ to (make site writes it).")
    interface = INTERFACES.get(notebook_interface or "jupyterlab")
    if interface is None:
        raise HubSettingError(f"launch_buttons.notebook_interface in _config.yml is {notebook_interface!r}; "
                              f"expected one of {', '.join(INTERFACES)}.")
    prefix = str(path_to_book or "").strip("/")
    branch = str(branch or "").strip()
    return HubLinks(hub=hub, repository=repository, branch=branch or None, interface=interface,
                    prefix=f"{prefix}/" if prefix else "")


def hub_links_from_book_config(settings: dict) -> HubLinks | None:
    """:func:`hub_links` from ``_config.yml`` as read (``launch_buttons`` and ``repository``)."""
    launch = settings.get("launch_buttons") or {}
    repository = settings.get("repository") or {}
    return hub_links(launch.get("jupyterhub_url"), repository.get("url"), repository.get("branch"),
                     repository.get("path_to_book"), launch.get("notebook_interface"))


def hub_links_from_sphinx(config) -> HubLinks | None:
    """:func:`hub_links` from Sphinx's configuration, where Jupyter Book puts those settings."""
    options = getattr(config, "html_theme_options", None) or {}
    launch = options.get("launch_buttons") or {}
    return hub_links(launch.get("jupyterhub_url"), options.get("repository_url"), options.get("repository_branch"),
                     options.get("path_to_docs"), launch.get("notebook_interface"))


# --- this repository, the one with the solutions ------------------------------------------------

def repository_identity(url: str) -> str | None:
    """``host/owner/name`` of a git address in any of git's forms (``https://``, ``ssh://``, ``git@host:``),
    in lower case, without ``.git``; None for a local path or ``file://`` address."""
    text = str(url or "").strip()
    if "://" in text:
        parts = urlsplit(text)
        host, path = parts.hostname, parts.path
        if parts.scheme == "file" or not host:
            return None
    else:
        scp = re.fullmatch(r"(?:[^@/\s]+@)?(?P<host>[A-Za-z0-9.-]+):(?P<path>[^\s]+)", text)
        if not scp:
            return None
        host, path = scp["host"], scp["path"]
    host = host.lower().removeprefix("www.")
    path = path.strip("/").removesuffix(".git").strip("/").lower()
    return f"{host}/{path}" if path else None


def _git(folder: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def solutions_remotes(start: Path) -> list[tuple[str, str]]:
    """Every remote (name, address; fetch and push) of the git clone that holds ``start``, when that clone is
    this repository, the one with the solutions (``notebooks/source/``); none otherwise (the public edition in
    a clone of its own, or no git at all)."""
    top = _git(Path(start), "rev-parse", "--show-toplevel")
    if not top or not (Path(top.strip()) / SOLUTIONS).is_dir():
        return []
    listed = _git(Path(top.strip()), "config", "--get-regexp", r"^remote\..*\.(url|pushurl)$") or ""
    remotes = []
    for line in listed.splitlines():
        key, _, address = line.partition(" ")
        remotes.append((key.removeprefix("remote.").rsplit(".", 1)[0], address.strip()))
    return remotes


def check_repository(repository_url, remotes) -> None:
    """Refuse ``repository_url`` when it names this repository: one of its ``remotes`` (name, address)."""
    wanted = repository_identity(repository_url)
    if wanted is None:
        return
    for name, address in remotes:
        if repository_identity(address) == wanted:
            raise HubSettingError(
                f"repository.url in _config.yml is {repository_url}, which is this repository (its git remote "
                f"'{name}', {address}): the one that holds the solutions ({SOLUTIONS}/). The launch buttons and the "
                "hub's links make readers and students clone the repository it names, so it must be the public "
                "edition: run make site, push _build/public-repo/ to a public repository of its own, and set "
                "repository.url to that repository's address and repository.branch to its branch.")


def check_book_config(settings: dict, start: Path) -> HubLinks | None:
    """Every check of this module on ``_config.yml`` as read, for a build run from ``start``; the hub's links."""
    links = hub_links_from_book_config(settings)
    url = (settings.get("repository") or {}).get("url")
    # The address alone, whether a hub is set or not (the repository button and Binder publish it too).
    _web_address(url, "repository.url", "https://github.com/ACCOUNT/REPOSITORY")
    check_repository(url, solutions_remotes(start))
    return links


# --- the extension ------------------------------------------------------------------------------

def _check_settings(app, config) -> None:
    options = getattr(config, "html_theme_options", None) or {}
    try:
        hub_links_from_sphinx(config)
        _web_address(options.get("repository_url"), "repository.url", "https://github.com/ACCOUNT/REPOSITORY")
        check_repository(options.get("repository_url"), solutions_remotes(Path(app.srcdir)))
    except HubSettingError as error:
        raise ConfigError(str(error)) from None


def _point_launch_button_at_chapter_notebook(app, pagename, templatename, context, doctree) -> None:
    """The theme's JupyterHub launch item opens the chapter's MyST source; make it open the chapter's notebook."""
    links = hub_links_from_sphinx(app.config)
    if links is None:
        return
    for group in context.get("header_buttons") or ():
        if isinstance(group, dict) and group.get("label") == "launch-buttons":
            for button in group.get("buttons") or ():
                if button.get("text") == "JupyterHub":
                    button["url"] = links.chapter(pagename)


def hub_reference(url: str, text: str = HUB_LINK_TEXT) -> nodes.reference:
    """A link to the hub, as the pages show it."""
    return nodes.reference("", text, refuri=url, internal=False, classes=["course-hub-link"])


class HubLinkBesideDownloads(SphinxPostTransform):
    """", or open it on the course's JupyterHub" after each link that downloads an assignment's release."""

    default_priority = 900

    def run(self, **kwargs) -> None:
        links = hub_links_from_sphinx(self.config)
        if links is None:
            return
        folder = posixpath.dirname(self.env.docname)
        for node in list(self.document.findall(addnodes.download_reference)):
            name = released_assignment(posixpath.join(folder, node.get("reftarget", "")))
            if name is None or node.parent is None:
                continue
            node.parent.insert(node.parent.index(node) + 1,
                               [nodes.Text(", or "), hub_reference(links.assignment(name))])


def setup(app) -> dict:
    app.connect("config-inited", _check_settings)
    # After sphinx-book-theme has made its launch buttons (priority 501).
    app.connect("html-page-context", _point_launch_button_at_chapter_notebook, priority=600)
    app.add_post_transform(HubLinkBesideDownloads)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
