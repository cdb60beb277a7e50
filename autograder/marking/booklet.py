"""The marking booklet: every written answer of an assignment, question by question, on one HTML page.

It goes with the marking CSV (:mod:`autograder.marking.sheet`): the same
answers in the same order, each headed by its row in the CSV, so a TA
reads here and types the marks there.  Each question opens with the text
that asks it, its points and the instructor's model answer (the booklet is
for markers, never for students).  Answers are shown as their students wrote
them, Markdown and mathematics as source text, escaped: the page is
self-contained (no script, nothing fetched) and prints.
"""

import html

from autograder.marking.sheet import status_of

__all__ = ["booklet_html"]

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 50em;
       padding: 0 1em; color: #1d1d1f; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { font-size: 1.3em; margin-top: 2.5em; border-top: 2px solid #3b5b92; padding-top: 0.6em; }
h3 { font-size: 1.05em; margin: 1.6em 0 0.3em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; font-family: ui-monospace, "DejaVu Sans Mono", monospace;
      font-size: 0.95em; background: #f6f8fa; border: 1px solid #d0d7de; padding: 0.6em 0.8em; margin: 0.3em 0; }
.model pre { background: #eef6ee; border-color: #2e7d32; }
.muted { color: #57606a; } a { color: #0b57d0; }
a:focus-visible { outline: 2px solid #0969da; outline-offset: 2px; }
@media print { h2 { break-before: page; } article { break-inside: avoid; } }
"""


def _e(value):
    return html.escape(str(value), quote=True)


def _anchor(question):
    return f"q-{question.notebook}-{question.grade_id}"


def booklet_html(assignment, questions, answers, *, first_row=2):
    """The booklet of ``answers`` (in the CSV's order, whose first answer is on row ``first_row``)."""
    rows = {id(a): first_row + i for i, a in enumerate(answers)}
    parts = [f"<h1>{_e(assignment)}: the written answers</h1>",
             f"<p>{len(answers)} answers to {len(questions)} questions, in the order of the marking CSV; "
             "each is headed by its row there. Enter the marks in the CSV's <code>points</code> and "
             "<code>comment</code> columns.</p>",
             "<nav aria-label=\"Questions\"><ul>"
             + "".join(f"<li><a href=\"#{_e(_anchor(q))}\"><code>{_e(q.grade_id)}</code> ({q.max_points:g} points)"
                       "</a></li>" for q in questions) + "</ul></nav>"]
    for question in questions:
        mine = [a for a in answers if a.question == question]
        parts.append(f"<section><h2 id=\"{_e(_anchor(question))}\">{_e(question.grade_id)} "
                     f"({question.max_points:g} points)</h2>"
                     + (f"<p class=\"muted\">In the notebook {_e(question.notebook)}.</p>"
                        if question.notebook != assignment else "")
                     + (f"<pre>{_e(question.text)}</pre>" if question.text else "")
                     + (f"<div class=\"model\"><h3>The model answer</h3><pre>{_e(question.model_answer)}</pre></div>"
                        if question.model_answer else ""))
        for a in mine:
            body = f"<pre>{_e(a.text)}</pre>" if a.text.strip() else "<p class=\"muted\">No answer was written.</p>"
            state = status_of(a.mark).split(":")[0]
            parts.append(f"<article><h3>Row {rows[id(a)]}: {_e(a.student_id)}</h3>"
                         f"<p class=\"muted\">{_e(state)}</p>{body}</article>")
        parts.append("</section>")
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{_e(assignment)}: the written answers</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(parts) + "\n</body>\n</html>\n")
