"""Markdown with mathematics as safe HTML, for the marking page: questions, model answers, students' answers.

A student's answer is the student's text, so it is rendered as untrusted:
markdown-it-py's CommonMark with raw HTML off (a ``<script>`` in an answer
is shown as text), no images (an image would be fetched from wherever the
student pointed it, telling that address who reads the answer and when;
its text and address are shown instead), and links that carry no
referrer.  Tables and strikethrough are on, as in Jupyter's Markdown.
Mathematics between ``$`` or ``$$`` (mdit-py-plugins' dollarmath, as the
book's MyST reads it) becomes ``\\(...\\)`` or ``\\[...\\]``, escaped, inside
an element of class ``math``, which the page's MathJax typesets; without
MathJax the TeX shows as written.
"""

import html

from markdown_it import MarkdownIt
from mdit_py_plugins.dollarmath import dollarmath_plugin

__all__ = ["markdown_html", "word_changes"]


def _math(content, options):
    if options.get("display_mode"):
        return f"\\[{html.escape(content)}\\]"
    return f"\\({html.escape(content)}\\)"


def _image_as_text(self, tokens, index, options, env):
    token = tokens[index]
    alt = self.renderInline(token.children or [], options, env)
    source = token.attrGet("src") or ""
    return (f"<span class=\"image-ref\">[image{': ' + alt if alt else ''}"
            f"{' (' + html.escape(source) + ')' if source else ''}]</span>")


def _link_open(self, tokens, index, options, env):
    tokens[index].attrSet("rel", "noopener noreferrer nofollow")
    return self.renderToken(tokens, index, options, env)


def _parser():
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(dollarmath_plugin, allow_space=True, allow_digits=True, double_inline=True, renderer=_math)
    md.add_render_rule("image", _image_as_text)
    md.add_render_rule("link_open", _link_open)
    return md


_MD = _parser()


def markdown_html(text):
    """``text`` (Markdown with ``$`` mathematics) as HTML that shows it and runs nothing."""
    return _MD.render(text or "")


def word_changes(before, after):
    """What changed from ``before`` to ``after``, word by word, as safe HTML: removed words in ``<del>``, added ones
    in ``<ins>``, each with words a screen reader says ("removed:", "added:"), the rest as it was."""
    import difflib

    old, new = before.split(), after.split()
    parts = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if op == "equal":
            parts.append(html.escape(" ".join(old[i1:i2])))
            continue
        if i2 > i1:
            parts.append(f'<del><span class="visually-hidden">removed: </span>{html.escape(" ".join(old[i1:i2]))}</del>')
        if j2 > j1:
            parts.append(f'<ins><span class="visually-hidden">added: </span>{html.escape(" ".join(new[j1:j2]))}</ins>')
    return " ".join(parts)
