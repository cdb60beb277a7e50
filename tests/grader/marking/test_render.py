"""A student's answer rendered for the marking page (:mod:`autograder.marking.render`): shown, never run.

The answer is the student's text: raw HTML in it shows as text, an image is named and never fetched (its
address would learn who reads the answer, and when), a ``javascript:`` link is no link, other links send no
referrer, and mathematics reaches MathJax escaped, between ``\\(`` and ``\\)`` or ``\\[`` and ``\\]``.
"""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from autograder.marking.render import markdown_html


def test_raw_html_images_and_script_links_are_shown_as_text():
    page = markdown_html('<script>alert("x")</script> <img src=x onerror=alert(1)> '
                         '![a cat](http://tracker.example/cat.png) [click](javascript:alert(1)) [notes](https://x.org)')
    assert "<script" not in page and "<img" not in page
    assert "&lt;script&gt;" in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert '<span class="image-ref">[image: a cat (http://tracker.example/cat.png)]</span>' in page
    assert 'href="javascript' not in page and "[click](javascript:alert(1))" in page
    assert '<a href="https://x.org" rel="noopener noreferrer nofollow">notes</a>' in page


def test_mathematics_is_escaped_between_mathjax_s_delimiters():
    page = markdown_html("If $a<b$ then\n\n$$\nw_{t+1} = w_t + y_t x_t \\quad (t < T)\n$$\n")
    assert '<span class="math inline">\\(a&lt;b\\)</span>' in page
    assert '<div class="math block">\n\\[w_{t+1} = w_t + y_t x_t \\quad (t &lt; T)\\]\n</div>' in page


def test_tables_and_emphasis_render_as_in_jupyter():
    page = markdown_html("**Online**, ~~batch~~\n\n| t | mistakes |\n|---|---|\n| 1 | 0 |\n")
    assert "<strong>Online</strong>" in page and "<s>batch</s>" in page
    assert "<th>mistakes</th>" in page and "<td>0</td>" in page


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("<>&\"'$`*_[]()!:/\\ \nabjsciptvromnerlg=.#-|")), max_size=80))
def test_no_text_makes_an_element_that_runs_or_fetches(text):
    page = markdown_html(text)
    tags = re.findall(r"<\s*([a-zA-Z0-9]+)([^>]*)>", page)
    assert {name.lower() for name, _ in tags} <= {"p", "em", "strong", "code", "pre", "a", "span", "div", "br",
                                                  "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "hr",
                                                  "blockquote", "table", "thead", "tbody", "tr", "th", "td", "s"}
    for _, attributes in tags:
        assert not re.search(r"\son\w+\s*=", attributes), attributes
        assert "javascript:" not in attributes.lower(), attributes
