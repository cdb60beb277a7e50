"""Sphinx extension: the book as one PDF, from Sphinx's LaTeX builder (book/build_pdf.py).

In the HTML build it links every page to the PDF, when the PDF was built before the
pages: the sidebar's "The whole book as a PDF" (book/_templates/pdf-download.html), and a
copy of the PDF at the top of the site. Without a PDF the pages have no link, so they
never point at a missing file.

Some things of the web pages have no place on paper, and this extension gives each a
printed form when the builder writes LaTeX (the HTML build is left as it is):

- the perceptron lab (``book/_static/lab/``), a ``<div class="perceptron-lab">`` in a raw
  HTML block that needs a browser. In the PDF it becomes a figure of the run the lab
  starts with, stepped to its end and drawn by ``perceptron_lib``, with a link to the
  page where the lab runs;
- the document class. sphinx-jupyterbook-latex, which turns the jb-book table of contents
  into the PDF's chapters, also switches to its own class, ``jupyterBook.cls``; that class
  loads ``bbm.sty``, which Debian ships only in texlive-fonts-extra (about 1.4 GB), for
  nothing the book uses. The book keeps Sphinx's ``manual`` class instead, and
  ``book/_latex/perceptronbook.sty`` defines the two environments the other extension
  needs;
- proofs. sphinx-proof writes a proof as an admonition without a title, which LaTeX
  draws as a box with an empty title bar above "Proof."; the PDF sets it as a
  mathematics book does, "*Proof.*" run into the text and a square at the end
  (amsthm's ``proof``);
- references to an exercise of another chapter ({numref} from one chapter to an
  exercise of another). sphinx-exercise resolves only those within one chapter for
  LaTeX; the others would print "Exercise ??".

The web address of the lab's page is ``html_baseurl`` (``html: baseurl:`` in
``_config.yml``) when that is set, and otherwise relative to the PDF, which
book/build_pdf.py copies to the top of the HTML build (``PDF_NAME`` below).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from posixpath import relpath

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.transforms import SphinxTransform
from sphinx.transforms.post_transforms import SphinxPostTransform

# The lab's presets, defined once by the lab's extension beside this one (book/_ext is on the path
# of Sphinx, which loads both, and of the scripts that load this module by its path).
from perceptron_lab import LAB_MAX_EPOCHS, LAB_PRESETS

# The PDF's file name, in _build/pdf/ and at the top of the HTML build.
PDF_NAME = "perceptron-course.pdf"

_LAB_DIV = re.compile(r'<div\s+class="perceptron-lab"(?P<attributes>[^>]*)>')
_ATTRIBUTE = re.compile(r'(?P<name>data-[a-z-]+)="(?P<value>[^"]*)"')


def lab_attributes(html: str) -> dict[str, str] | None:
    """The ``data-*`` attributes of the lab's ``<div>`` in a raw HTML block, or None."""
    match = _LAB_DIV.search(html)
    if match is None:
        return None
    return {m["name"]: m["value"] for m in _ATTRIBUTE.finditer(match["attributes"])}


def draw_lab_run(preset_name: str, averaged: bool, path: Path) -> list[nodes.Node]:
    """Draw the lab's run on ``preset_name`` stepped to its end; save it; return its caption.

    The figure shows what the lab shows after "Skip to end": the points, the final
    boundary with its normal, and with ``averaged`` the boundary of the averaged weights
    (dash-dot).
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from perceptron_lib import absorb_offset, mistake_bound, trace_perceptron
    from perceptron_lib.plotting import plot_data, plot_hyperplane

    preset = LAB_PRESETS[preset_name]
    X, y = preset.data()
    steps = trace_perceptron(X, y, fit_intercept=preset.fit_intercept, max_epochs=LAB_MAX_EPOCHS)
    w, b = steps[-1].w, steps[-1].b
    mistakes = sum(step.mistake for step in steps)
    converged = not any(step.mistake for step in steps if step.epoch == steps[-1].epoch)

    if X.shape[1] != 2:
        raise ValueError(f"the lab's figure draws 2-D data; preset {preset_name!r} is "
                         f"{X.shape[1]}-D")
    figure, ax = plt.subplots(figsize=(5.6, 3.4))
    ax.set_xlim(*preset.view[:2])
    ax.set_ylim(*preset.view[2:])
    plot_data(X, y, ax)
    if preset.lifted:
        ax.axhline(1.0, color="gray", linestyle=":", linewidth=1)
    if np.any(w):
        plot_hyperplane(w, b, ax, label="final boundary")
    if averaged:
        w_bar = np.mean([step.w for step in steps], axis=0)
        b_bar = float(np.mean([step.b for step in steps]))
        if np.any(w_bar):
            plot_hyperplane(w_bar, b_bar, ax, color="#2ca02c", linestyle="-.", shade=False,
                            show_normal=False, label="averaged boundary")
    # Beside the plot, where it hides no point.
    ax.legend(loc="upper left", bbox_to_anchor=(1.03, 1.0), fontsize="small")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)

    weights = "(" + ", ".join(f"{v:g}" for v in w) + ")"
    caption: list[nodes.Node] = [nodes.Text(
        f"{preset.title}, as the lab shows it after “Skip to end”: {mistakes} mistakes in "
        f"{steps[-1].epoch} epochs, final ")]
    caption += [nodes.math(text=f"w = {weights}")]
    if preset.fit_intercept:
        caption += [nodes.Text(", "), nodes.math(text=f"b = {b:g}")]
    if converged:
        lifted = absorb_offset(X) if preset.fit_intercept else X
        theta = np.append(w, b) if preset.fit_intercept else w
        caption += [nodes.Text("; the bound "), nodes.math(text=r"(R/\gamma)^2"),
                    nodes.Text(f" for this separator is {mistake_bound(lifted, y, theta):.4g}")]
    if averaged:
        caption += [nodes.Text("; the dash-dot line is the boundary of the averaged weights")]
    return caption + [nodes.Text(".")]


class PrintedLab(SphinxTransform):
    """In a LaTeX build, replace each perceptron lab with a figure and a link to its page."""

    default_priority = 500

    def apply(self, **kwargs) -> None:
        if self.app.builder.format != "latex":
            return
        for raw in list(self.document.findall(nodes.raw)):
            if "html" not in raw.get("format", "").split():
                continue
            attributes = lab_attributes(raw.astext())
            if attributes is None:
                continue
            raw.replace_self(self.printed_lab(raw, attributes))

    def printed_lab(self, raw: nodes.raw, attributes: dict[str, str]) -> nodes.Node:
        docname = self.env.docname
        preset = attributes.get("data-preset", "four-point")
        if preset not in LAB_PRESETS:
            raise ValueError(f"{docname}: the perceptron lab has data-preset={preset!r}; "
                             f"expected one of {', '.join(LAB_PRESETS)}")
        averaged = attributes.get("data-averaged") == "on"
        srcdir = Path(self.app.srcdir)
        image = Path(self.app.outdir).parent / "lab_figures" / (
            f"{docname.replace('/', '-')}-{preset}{'-averaged' if averaged else ''}.pdf")
        caption_parts = draw_lab_run(preset, averaged, image)

        section = raw.parent
        while section is not None and not isinstance(section, nodes.section):
            section = section.parent
        anchor = f"#{section['ids'][0]}" if section is not None and section["ids"] else ""
        page = f"{docname}.html{anchor}"
        base = self.config.html_baseurl
        url = f"{base.rstrip('/')}/{page}" if base else page

        figure = nodes.figure(classes=["perceptron-lab-figure"])
        figure += nodes.image(uri="/" + relpath(str(image), str(srcdir)))
        caption = nodes.caption()
        caption += nodes.Text("The perceptron lab. ")
        caption.extend(caption_parts)
        caption += nodes.Text(" In the web version of this chapter the lab runs in the page: ")
        caption += nodes.reference(url, url, refuri=url)
        caption += nodes.Text(".")
        figure += caption
        return figure


class PrintedProofs(SphinxPostTransform):
    """Unwrap each proof from its untitled admonition and drop the "Proof. " it starts with.

    The LaTeX visitor of ``proof_node`` below wraps what is left in amsthm's ``proof``,
    which prints "Proof." itself.
    """

    default_priority = 900
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        from sphinx_proof.nodes import proof_node

        for proof in list(self.document.findall(proof_node)):
            if len(proof.children) != 1 or not isinstance(proof[0], nodes.admonition):
                continue
            admonition = proof[0]
            first = admonition.next_node(nodes.Text)
            if first is not None and first.astext().startswith("Proof. "):
                first.parent.replace(first, nodes.Text(first.astext()[len("Proof. "):]))
            proof.children = []
            proof.extend(admonition.children)


def visit_proof(translator, node: nodes.Element) -> None:
    translator.body.append("\n\\begin{proof}\n")


def depart_proof(translator, node: nodes.Element) -> None:
    translator.body.append("\n\\end{proof}\n")


def visit_proof_html(translator, node: nodes.Element) -> None:
    """sphinx-proof's own HTML visitor: nothing, the admonition inside is the proof."""


class CrossChapterExerciseReferences(SphinxPostTransform):
    """Turn a {numref} to an exercise of another chapter into sphinx-exercise's LaTeX reference.

    In the LaTeX build every chapter is one document, and Sphinx writes such a reference
    as ``\\ref`` to a label that sphinx-exercise never sets; sphinx-exercise converts only
    the references within a chapter into its own node, which links to the label it sets
    (``exercise:<label>``) and prints the number Sphinx computed.
    """

    default_priority = 25  # after sphinx-exercise's own reference post-transforms (20-22)
    formats = ("latex",)

    def run(self, **kwargs) -> None:
        from sphinx_exercise.nodes import exercise_enumerable_node, exercise_latex_number_reference

        registry = getattr(self.env, "sphinx_exercise_registry", {})
        for reference in list(self.document.findall(addnodes.number_reference)):
            if isinstance(reference, exercise_latex_number_reference):
                continue
            uri = reference.get("refuri", "")
            if not uri.startswith("%") or "#" not in uri:
                continue
            label = uri.split("#", 1)[1]
            target = registry.get(label, {}).get("node")
            if not isinstance(target, exercise_enumerable_node):
                continue
            replacement = exercise_latex_number_reference()
            replacement.attributes = dict(reference.attributes, refid=label)
            replacement.extend(reference.children)
            reference.replace_self(replacement)


def built_pdf(app: Sphinx) -> Path | None:
    """The PDF that book/build_pdf.py left in ``_build/pdf``, for an HTML build; or None."""
    if app.builder.format != "html":
        return None
    pdf = Path(app.outdir).parent / "pdf" / PDF_NAME
    return pdf if pdf.is_file() else None


def link_pages_to_pdf(app: Sphinx, pagename: str, templatename: str, context: dict,
                      doctree) -> None:
    """Give the page template the PDF's file name and size (``book_pdf``) when it exists."""
    pdf = built_pdf(app)
    if pdf is not None:
        context["book_pdf"] = {"name": PDF_NAME,
                               "size": f"{pdf.stat().st_size / 1e6:.1f} MB"}


def copy_pdf_into_site(app: Sphinx, exception: Exception | None) -> None:
    pdf = built_pdf(app)
    if exception is None and pdf is not None:
        shutil.copy2(pdf, Path(app.outdir) / PDF_NAME)


def keep_sphinx_manual_class(app: Sphinx, config: Config) -> None:
    """Undo sphinx-jupyterbook-latex's switch to jupyterBook.cls (see the module docstring)."""
    config.latex_theme = "manual"


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx_jupyterbook_latex")
    # After sphinx-jupyterbook-latex's own config-inited handler (priority 500).
    app.connect("config-inited", keep_sphinx_manual_class, priority=900)
    app.connect("html-page-context", link_pages_to_pdf)
    app.connect("build-finished", copy_pdf_into_site)
    app.add_transform(PrintedLab)
    app.add_post_transform(PrintedProofs)
    app.add_post_transform(CrossChapterExerciseReferences)
    from sphinx_proof.nodes import proof_node

    # Replaces sphinx-proof's visitors (listed before this extension in _config.yml); its
    # HTML visitor, which writes nothing, stays as it was.
    app.add_node(proof_node, override=True, html=(visit_proof_html, visit_proof_html),
                 latex=(visit_proof, depart_proof))
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
