"""Sphinx extension: HTML that assistive technology reads as it should.

The HTML writers of docutils and myst-nb, and matplotlib's animation player, emit a few
things that WCAG 2.1 (as checked by axe-core) rejects. This extension emits the same
content with correct semantics, so the pages need no script to repair them:

- a bibliography is a list of list items. docutils marks each entry with the DPUB-ARIA
  role ``doc-biblioentry``, deprecated since DPUB-ARIA 1.1, inside a ``role="list"``
  that therefore has no ``listitem`` children;
- the ``<summary>`` that shows a hidden code cell is named by its visible text ("Show
  code cell source"). myst-nb labels it "Toggle hidden content", which a reader who
  speaks the visible words to voice-control software cannot activate (WCAG 2.5.3);
- the frame slider of a matplotlib animation (``Animation.to_jshtml``) has a label;
- a table's header cells say what they head: ``scope="col"`` in the header rows and
  ``scope="row"`` in a stub column (a ``list-table``'s ``:stub-columns:``), so that a
  screen reader announces a row's name with each of its cells;
- no two elements of a page share an id (WCAG 2.1's 4.1.1): sphinx-proof and
  sphinx-exercise give every proof, exercise and solution the same fixed ids
  (``proof``, ``proof-content``, ``exercise-content``, ``solution-content``), which the
  first keeps and each later one gets with a number (``proof-content-2``).
"""

from __future__ import annotations

import re
from html import escape

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.writers.html5 import HTML5Translator
from sphinx.transforms.post_transforms import SphinxPostTransform

ANIMATION_SLIDER_LABEL = "Animation frame"
# The <input> of matplotlib's player: `<input id="_anim_slider..." type="range" ...>`.
_UNLABELLED_SLIDER = re.compile(
    r'<input(?![^>]*\baria-label=)(?=[^>]*\bclass="anim-slider")', re.IGNORECASE
)


def visit_citation(self, node: nodes.citation) -> None:
    if not isinstance(node.previous_sibling(), nodes.citation):
        self.body.append('<div role="list" class="citation-list">\n')
    self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))


def depart_citation(self, node: nodes.citation) -> None:
    self.body.append("</div>\n")
    if not isinstance(node.next_node(descend=False, siblings=True), nodes.citation):
        self.body.append("</div>\n")


def visit_hidden_cell(self, node: nodes.Element) -> None:
    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n')
    self.body.append("<summary>\n")
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def depart_hidden_cell(self, node: nodes.Element) -> None:
    self.body.append("</details>\n")


def visit_entry(self, node: nodes.entry) -> None:
    HTML5Translator.visit_entry(self, node)
    tag = self.body[-1]
    if tag.startswith("<th") and " scope=" not in tag:
        scope = "col" if isinstance(node.parent.parent, nodes.thead) else "row"
        self.body[-1] = f'<th scope="{scope}"' + tag[len("<th"):]


def label_animation_sliders(html: str) -> str:
    """Give every unlabelled frame slider of a matplotlib animation player a label."""
    return _UNLABELLED_SLIDER.sub(f'<input aria-label="{ANIMATION_SLIDER_LABEL}"', html)


class LabelAnimationSliders(SphinxPostTransform):
    """Label the frame sliders in the HTML outputs of executed cells."""

    default_priority = 400
    formats = ("html",)

    def run(self, **kwargs) -> None:
        for node in list(self.document.findall(nodes.raw)):
            if "html" not in node.get("format", "").split():
                continue
            text = node.astext()
            labelled = label_animation_sliders(text)
            if labelled != text:
                node.replace(node.children[0], nodes.Text(labelled))


def unique_ids(elements) -> None:
    """Rename, in place, every id of ``elements`` (docutils elements, in page order) that an earlier one has:
    the first keeps it, each later one gets the first free ``<id>-<n>``, n = 2, 3, ..."""
    taken = {name for element in elements for name in element["ids"]}
    seen = set()
    for element in elements:
        renamed = []
        for name in element["ids"]:
            if name in seen:
                number = 2
                while f"{name}-{number}" in taken:
                    number += 1
                name = f"{name}-{number}"
                taken.add(name)
            seen.add(name)
            renamed.append(name)
        element["ids"] = renamed


class UniqueIds(SphinxPostTransform):
    """Make every id of a page unique (see the module), after every other transform has set its ids."""

    default_priority = 990
    formats = ("html",)

    def run(self, **kwargs) -> None:
        unique_ids([element for element in self.document.findall(nodes.Element) if element.get("ids")])


def setup(app: Sphinx) -> dict:
    from myst_nb.sphinx_ import HideCodeCellNode

    app.setup_extension("myst_nb")
    app.add_node(nodes.citation, override=True, html=(visit_citation, depart_citation))
    app.add_node(HideCodeCellNode, override=True, html=(visit_hidden_cell, depart_hidden_cell))
    app.add_node(nodes.entry, override=True, html=(visit_entry, HTML5Translator.depart_entry))
    app.add_post_transform(LabelAnimationSliders)
    app.add_post_transform(UniqueIds)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
