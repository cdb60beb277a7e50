"""Sphinx extension: the published course's downloads, and the page for students that lists them.

``python -m autograder publish`` (``make site``) prepares the downloads in
``_build/published/`` before it builds the book: the student package's wheel
(``packages/``), each assignment's notebook and LMS zip (``assignments/``),
and ``manifest.json``, which says what they are and the command that installs
the package from the site. The folder sits beside the build's output
(``_build/html``), so a book built elsewhere (``book/build.py --path-output``)
reads the downloads prepared for it there. (In the public edition of the
repository the same folder is ``published/``, at its root.) This extension

* copies that folder into the root of the built site (``html_extra_path``),
  so ``packages/`` and ``assignments/`` sit next to ``book/``;
* gives the page for students (``book/students.md``) three directives,
  ``course-install`` (the install command, or, with no site address, how to
  install the downloaded wheel), ``course-assignments`` (each assignment,
  with its notebook and zip, and the link that opens it on the course's hub when
  ``_config.yml`` names one: ``course_hub.py``) and ``course-check`` (the check command), so
  the page always shows what was published.

Before the course is first published (a plain ``make book``) there is no
manifest, and the directives say so instead of linking files that do not
exist.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.util.docutils import SphinxDirective

from course_hub import hub_links_from_sphinx, hub_reference

# The folder of downloads: beside the build's output in the instructor's repository, and at
# the root of the public edition.
PUBLISHED_FOLDER = "published"


def find_published(app: Sphinx) -> tuple[Path, dict] | None:
    """The folder of downloads for this build and its manifest, or None before the first publish."""
    for folder in (Path(app.outdir).parent / PUBLISHED_FOLDER, Path(app.confdir) / PUBLISHED_FOLDER):
        manifest = folder / "manifest.json"
        if manifest.is_file():
            return folder, json.loads(manifest.read_text(encoding="utf-8"))
    return None


def add_published_folder(app: Sphinx, config: Config) -> None:
    found = find_published(app)
    config.course_manifest = found[1] if found else None
    if found:
        config.html_extra_path = [*config.html_extra_path, str(found[0])]


def remove_old_downloads(app: Sphinx) -> None:
    """Delete what an earlier build copied from the downloads: Sphinx copies, it never removes."""
    found = find_published(app)
    if not found:
        return
    for entry in found[0].iterdir():
        old = Path(app.outdir) / entry.name
        if old.is_dir() and not old.is_symlink():
            shutil.rmtree(old)
        elif old.exists() or old.is_symlink():
            old.unlink()


class CourseDirective(SphinxDirective):
    has_content = False

    @property
    def manifest(self) -> dict | None:
        return self.config.course_manifest

    def link(self, target: str, text: str) -> nodes.reference:
        """A link from this page to a file at the site's root (``packages/...``), kept relative."""
        prefix = "../" * self.env.docname.count("/")
        return nodes.reference("", "", nodes.literal(text, text), refuri=prefix + target, internal=False)

    def not_published(self) -> list[nodes.Node]:
        return [nodes.paragraph("", "The course has not been published yet: the downloads appear here once "
                                    "the instructor runs make site.")]


# Where a compiled wheel installs, said for students, by the architecture of its platform tag.
COMPILED_PLATFORMS = {"x86_64": "Linux on a 64-bit Intel or AMD PC (Colab and most JupyterHubs too)",
                      "aarch64": "Linux on a 64-bit ARM computer"}


def compiled_platform(path: str) -> str:
    """Where the compiled wheel ``path`` (its PEP 427 name: ``...-manylinux_2_5_x86_64.whl``) installs."""
    architecture = next((name for name in COMPILED_PLATFORMS if path.endswith(f"_{name}.whl")), None)
    return COMPILED_PLATFORMS[architecture] if architecture else path.rsplit("-", 1)[-1][:-len(".whl")]


class CourseInstall(CourseDirective):
    """The command that installs the student package (from the site, or from the downloaded wheel)."""

    def run(self) -> list[nodes.Node]:
        manifest = self.manifest
        if manifest is None:
            return self.not_published()
        command = nodes.literal_block(manifest["install"], manifest["install"], language="console")
        wheel = manifest["wheel"].rsplit("/", 1)[-1]
        if manifest["address"]:
            local = f"pip install {wheel} jupyterlab"
            said = [command]
            compiled = [compiled_platform(path) for path in manifest.get("compiled_wheels", [])]
            if compiled:
                said.append(nodes.paragraph("", f"On {' and on '.join(compiled)}, pip takes the package's version with "
                                                "compiled code, which trains faster; elsewhere (Windows, macOS) the "
                                                "pure-Python version, which gives the same results."))
            said.append(nodes.paragraph(
                "", "", nodes.Text("If the course's site cannot be reached from where you work, download "),
                self.link(manifest["wheel"], wheel), nodes.Text(" and run "), nodes.literal(local, local),
                nodes.Text(" in the folder where you saved it.")))
            return said
        return [nodes.paragraph("", "", nodes.Text("Download the package, "), self.link(manifest["wheel"], wheel),
                                nodes.Text(", and in the folder where you saved it run:")), command]


class CourseAssignments(CourseDirective):
    """Each published assignment: its title, its notebook and its zip for the LMS."""

    def run(self) -> list[nodes.Node]:
        manifest = self.manifest
        if manifest is None:
            return self.not_published()
        hub = hub_links_from_sphinx(self.config)
        items = nodes.bullet_list()
        for assignment in manifest["assignments"]:
            paragraph = nodes.paragraph("", "", nodes.strong(assignment["title"], assignment["title"]),
                                        nodes.Text(": the notebook "),
                                        self.link(assignment["notebook"], f"{assignment['name']}.ipynb"),
                                        nodes.Text(", or everything in one zip "),
                                        self.link(assignment["zip"], f"{assignment['name']}.zip"),
                                        nodes.Text(" (the notebook, the package and how to use them)"))
            if hub is not None:
                paragraph += [nodes.Text("; or "), hub_reference(hub.assignment(assignment["name"]))]
            paragraph += nodes.Text(".")
            items += nodes.list_item("", paragraph)
        return [items]


class CourseCheck(CourseDirective):
    """The command that checks a notebook before it is submitted, on the first assignment."""

    def run(self) -> list[nodes.Node]:
        manifest = self.manifest
        if manifest is None:
            return self.not_published()
        command = f"{manifest['check']} {manifest['assignments'][0]['name']}.ipynb"
        return [nodes.literal_block(command, command, language="console")]


def setup(app: Sphinx) -> dict:
    app.add_config_value("course_manifest", None, "env")
    app.connect("config-inited", add_published_folder)
    app.connect("builder-inited", remove_old_downloads)
    app.add_directive("course-install", CourseInstall)
    app.add_directive("course-assignments", CourseAssignments)
    app.add_directive("course-check", CourseCheck)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
