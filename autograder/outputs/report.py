"""The pages people read after a grading run: one feedback page per student, one report for the instructor.

Both are single self-contained HTML files (inline CSS, plots as inline SVG
drawn with matplotlib's Agg-based SVG backend, nothing fetched from the
network), so they can be mailed, uploaded to a learning management system
or opened from a USB stick.  Everything that came from a submission (student
ids, messages quoting a student's exception, flag details) is escaped.
Feedback shows each graded cell's points and the verdict message, which
names a failed hidden case by its description only: never the hidden
checks' code or expected values; and each written answer's mark, the rubric
items a TA applied to it (their text with their points, an item worth 0 as
a comment) and the TA's comment as the gradebook holds them (never who
marked it, nor a note for markers), with the total over the whole
assignment (:mod:`autograder.outputs.totals`).  A written question is
named as its notebook names it ("D1"), from ``labels``
(:func:`autograder.marking.answers.question_labels`), or by its cell id
where the notebook gives it no name.  The report, which only the
instructor reads, adds for the written questions the marks given, the
rubric items used on the marking page and how often, and, where several TAs
marked one question, each TA's mean for it.
"""

import datetime
import html
import statistics
from collections import Counter

from autograder.outputs.totals import rubric_steps, scale_of, to_remark, total, unmarked, written_max, written_score
from autograder.results import FLAG_TEXT, GRADED, MISSING, REFERENCE_COPY, STATUS_TEXT, STATUSES, Flag

__all__ = ["feedback_html", "feedback_text", "report_html", "question_name", "rubric_lines", "rubric_sum_lines",
           "signed_points"]

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 60em;
       padding: 0 1em; color: #1d1d1f; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.25em; margin-top: 1.8em; }
table { border-collapse: collapse; margin: 0.8em 0; width: 100%; }
th, td { border-bottom: 1px solid #ddd; padding: 0.35em 0.6em; text-align: left; vertical-align: top; }
td code, td a, td .muted { overflow-wrap: anywhere; }  /* long ids, names and paths may break, words do not */
th { background: #f3f4f6; } td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.pass { color: #116329; font-weight: 600; } .fail { color: #a40e26; font-weight: 600; }
.status { display: inline-block; padding: 0.1em 0.6em; border-radius: 0.8em; font-weight: 600; }
.status-graded { background: #dafbe1; } .status-ungradable { background: #fff1c2; }
.status-timeout { background: #ffe2cc; } .status-crashed { background: #ffd8d3; }
.status-missing { background: #e4e4ec; }
.box { border-left: 4px solid #888; background: #f6f8fa; padding: 0.6em 1em; margin: 1em 0; }
.warning { border-left-color: #d1242f; background: #fff0f0; }
.muted { color: #57606a; font-size: 0.92em; } code { font-size: 0.95em; }
.plots { display: flex; flex-wrap: wrap; gap: 1em; } .plots figure { margin: 0; flex: 1 1 18em; min-width: 0; }
figcaption { font-size: 0.9em; color: #57606a; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; }
/* What people wrote wraps between words; a word longer than the line breaks only where it must. In a table,
   "anywhere" lets a column shrink below its longest word, which is then cut: the tables with comments scroll. */
td.comment, .comment { white-space: pre-wrap; overflow-wrap: break-word; }
ul.rubric { margin: 0 0 0.3em; padding-left: 1.2em; } ul.rubric li { margin: 0.1em 0; }
.rubric-sum { margin: 0 0 0.3em; }
.item-points { font-weight: 600; font-variant-numeric: tabular-nums; white-space: nowrap; }
.scroll { overflow-x: auto; } .scroll:focus-visible { outline: 2px solid #0969da; outline-offset: 2px; }
@media (max-width: 40em) {
  body { margin: 1em auto; padding: 0 0.6em; } th, td { padding: 0.3em 0.35em; }
}
"""


def _e(value):
    return html.escape(str(value), quote=True)


def _page(title, body):
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{_e(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


def _points(value):
    return f"{value:g}"


def _status_badge(status):
    return f'<span class="status status-{_e(status)}">{_e(status)}</span>'


# -- feedback for one student -------------------------------------------------------

def feedback_html(result, *, sandbox_text="", labels=None):
    """The feedback page of one :class:`~autograder.results.Result`; ``labels`` name the written questions
    (``{(notebook, grade_id): label}``, :func:`autograder.marking.answers.question_labels`)."""
    parts = [f"<h1>{_e(result.assignment)}: feedback for {_e(result.student_id)}</h1>"]
    parts.append(f"<p>Status: {_status_badge(result.status)} {_e(STATUS_TEXT[result.status])}</p>")
    if result.source:
        parts.append(f"<p class=\"muted\">Graded from <code>{_e(result.source)}</code>"
                     + (f", submitted {_e(result.submitted_at)}" if result.submitted_at else "") + ".</p>")
    if result.reason:
        parts.append(f'<div class="box">Why: {_e(result.reason)}.</div>')
    parts.append(_score_summary(result))
    if result.cells:
        rows = []
        for cell in result.cells:
            mark = '<span class="pass">passed</span>' if cell.passed else (
                '<span class="fail">failed</span>' if cell.judged else "graded by hand")
            rows.append(f"<tr><td><code>{_e(cell.grade_id)}</code></td><td>{mark}</td>"
                        f"<td class=\"num\">{_points(cell.points)} / {_points(cell.max_points)}</td>"
                        f"<td>{_e(cell.message)}</td></tr>")
        parts.append("<h2>Tests</h2><table><tr><th>test cell</th><th>result</th><th class=\"num\">points</th>"
                     "<th>message</th></tr>" + "".join(rows) + "</table>")
    parts.append(_written_section(result, labels))
    if result.notes:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{_e(n)}</li>" for n in result.notes) + "</ul>")
    if result.flags:
        items = "".join(f"<li><strong>{_e(f.code)}</strong>: {_e(FLAG_TEXT.get(f.code, ''))}"
                        + (f"<br><span class=\"muted\">{_e(f.detail)}</span>" if f.detail else "") + "</li>"
                        for f in result.flags)
        parts.append("<h2>Flagged for the instructor</h2><p>These do not change the score by themselves; "
                     f"the instructor will look at them.</p><ul>{items}</ul>")
    parts.append("<p class=\"muted\">Your notebook ran in an isolated sandbox; the hidden tests called your "
                 "functions there and judged what they returned outside it. Read-only and test cells were run as "
                 "released, whatever the notebook contained.</p>" if result.sandboxed else "")
    return _page(f"{result.assignment}: feedback for {result.student_id}", "\n".join(p for p in parts if p))


def _score_summary(result):
    """The feedback's score: the total over the whole assignment once marks were read, else the autograded."""
    autograded = f"{_points(result.score)} / {_points(result.max_score)}"
    if not result.written:
        manual_points = written_max(result)
        return (f"<p><strong>Autograded score: {autograded}</strong>"
                + (f"<br><span class=\"muted\">The written answers ({_points(manual_points)} points) are graded "
                   f"by hand; those points come later.</span>" if result.manual_cells else "") + "</p>")
    waiting = unmarked(result)
    return (f"<p><strong>Total: {_points(total(result))} / {_points(result.max_score + written_max(result))}"
            f"</strong><br>Autograded score: {autograded}; written answers: {_points(written_score(result))} / "
            f"{_points(written_max(result))}"
            + (f"<br><span class=\"muted\">{len(waiting)} written {_plural(len(waiting), 'answer is', 'answers are')} "
               "still to be marked; the total counts them when they are.</span>" if waiting else "") + "</p>")


def _plural(n, one, many):
    return one if n == 1 else many


def _mark_text(mark):
    """A written answer's points, as its student reads them."""
    if not mark.marked:
        return "still to be marked"
    text = f"{_points(mark.points)} / {_points(mark.max_points)}"
    if mark.extra_credit:
        text += f" (+{_points(mark.extra_credit)} extra credit)"
    return text + (" (no answer was written)" if mark.blank and not mark.points else "")


MINUS = "\u2212"  # the minus sign, as the marking page writes a deduction


def question_name(labels, notebook, grade_id):
    """A written question's name as its notebook gives it ("D1"), or its cell id where it gives none."""
    return (labels or {}).get((notebook, grade_id)) or grade_id


def _question_html(labels, notebook, grade_id):
    """A written question's name for a student: the notebook's name for it, or its cell id as code."""
    name = question_name(labels, notebook, grade_id)
    return _e(name) if name != grade_id else f"<code>{_e(grade_id)}</code>"


def _question_for_instructor(labels, notebook, grade_id):
    """A written question's name in the report: the notebook's name for it and its cell id."""
    name = question_name(labels, notebook, grade_id)
    return (f"{_e(name)} " if name != grade_id else "") + f"<code>{_e(grade_id)}</code>"


def signed_points(points):
    """An item's points with their sign: ``+1``, ``\u22120.5``."""
    return f"{'+' if points > 0 else MINUS}{_points(abs(points))}"


def _is_comment(points):
    return abs(points) < 1e-12


def rubric_lines(mark):
    """The rubric items applied to a written mark, as its student reads them: each one's signed points and text,
    or its text alone when it is worth 0 (a comment)."""
    return [text if _is_comment(points) else f"{signed_points(points)} {text}" for text, points in mark.rubric]


def _number(value):
    """A sum of points as a student reads it (``2.5``, ``\u22120.5``), to the precision marks are written in: a sum
    that differs from another only by floating-point noise reads the same."""
    value = round(value, 6) + 0.0
    return f"{MINUS}{_points(-value)}" if value < 0 else _points(value)


def rubric_sum_lines(mark):
    """Why a written answer's mark is not simply its rubric items' points added up, in its student's words: the
    sum kept at most the question's points or at least 0, and the marker's adjustment
    (:func:`~autograder.outputs.totals.rubric_steps`, the rule the marking page scores by).  No line when the
    mark is the items' sum, and none when it is not what the items make (a mark the rubric no longer explains)."""
    if not mark.rubric or mark.points is None:
        return []
    steps = rubric_steps([points for _, points in mark.rubric], mark.adjustment, mark.max_points)
    if _number(steps.mark) != _number(mark.points):
        return []
    bound = lambda value, kept: f"a mark is at most {_points(mark.max_points)}" if value > kept else \
        "a mark is at least 0"
    lines = []
    if _number(steps.added) != _number(steps.counted):
        lines.append(f"The items add up to {_number(steps.added)}; {bound(steps.added, steps.counted)}, "
                     f"so they count as {_number(steps.counted)}.")
    if _number(steps.adjustment) != "0":
        adjusted = steps.counted + steps.adjustment
        lines.append(f"The marker adjusted the mark by {signed_points(steps.adjustment)}"
                     + (f"; {bound(adjusted, steps.mark)}, so it is {_number(steps.mark)}."
                        if _number(adjusted) != _number(steps.mark) else "."))
    return lines


def _feedback_cell(mark):
    """The rubric items applied to a written answer, as a list, and how they make the mark, then the TA's
    comment."""
    parts = []
    if mark.rubric:
        items = "".join(f"<li>{_e(text)}</li>" if _is_comment(points) else
                        f"<li><span class=\"item-points\">{_e(signed_points(points))}</span> {_e(text)}</li>"
                        for text, points in mark.rubric)
        parts.append(f'<ul class="rubric">{items}</ul>')
        parts += [f'<div class="rubric-sum">{_e(line)}</div>' for line in rubric_sum_lines(mark)]
    if mark.comment:
        parts.append(f'<div class="comment">{_e(mark.comment)}</div>')
    return "".join(parts)


def _written_section(result, labels=None):
    """The written answers: each one's mark, the rubric items applied and the TA's comment beside it, or that it
    is still to be marked."""
    if result.written:
        rows = "".join(f"<tr><td>{_question_html(labels, m.notebook, m.grade_id)}</td>"
                       f"<td class=\"num\">{_e(_mark_text(m))}</td><td>{_feedback_cell(m)}</td></tr>"
                       for m in result.written)
        waiting = unmarked(result)
        names = ", ".join(question_name(labels, m.notebook, m.grade_id) for m in waiting)
        note = (f'<div class="box">Still to be marked: {_e(names)}. '
                "Their points are not in the total yet.</div>" if waiting else "")
        # A word too long for a phone's line (an address in a comment) scrolls this table, never the page.
        return ("<h2 id=\"written-answers\">Written answers</h2>" + note
                + "<div class=\"scroll\" role=\"region\" tabindex=\"0\" aria-labelledby=\"written-answers\">"
                "<table><tr><th>question</th><th class=\"num\">points</th><th>feedback</th></tr>"
                f"{rows}</table></div>")
    if result.manual_cells:
        rows = "".join(f"<tr><td>{_question_html(labels, result.assignment, gid)}</td>"
                       f"<td class=\"num\">{_points(points)}</td>"
                       f"<td>{'no answer was written' if checksum is None else 'waiting for manual grading'}</td></tr>"
                       for gid, points, checksum in result.manual_cells)
        return ("<h2>Written answers</h2><table><tr><th>question</th><th class=\"num\">points</th>"
                f"<th>state</th></tr>{rows}</table>")
    return ""


def feedback_text(result, *, full_page, labels=None):
    """The plain-text summary of one result's feedback, for an LMS's comment field.

    It says the autograded score, each failed test's name and message, each
    written answer's mark with the rubric items applied and the TA's comment
    (once marks were read) and the total, and, in the sentence ``full_page``
    completes, where the full page is.  The messages are the ones
    :func:`feedback_html` shows, so a hidden case appears, as there, by its
    description only; ``labels`` name the written questions as there.
    """
    lines = [f"{result.assignment}: {_points(result.score)} / {_points(result.max_score)} autograded points."]
    if result.status != GRADED:
        lines.append(f"Status {result.status}: {STATUS_TEXT[result.status]}"
                     + (f" Why: {result.reason}." if result.reason else ""))
    failed = [cell for cell in result.cells if cell.judged and not cell.passed]
    if failed and result.status == GRADED:
        lines.append("Failed tests:")
        lines += [f"- {cell.grade_id} (0 / {_points(cell.max_points)}): {cell.message}" for cell in failed]
    elif result.status == GRADED:
        lines.append("Every autograded test passed.")
    if result.written:
        lines.append(f"Written answers: {_points(written_score(result))} / {_points(written_max(result))} points.")
        for mark in result.written:
            name = question_name(labels, mark.notebook, mark.grade_id)
            if not mark.rubric:
                lines.append(f"- {name}: {_mark_text(mark)}." + (f" Comment: {mark.comment}" if mark.comment else ""))
                continue
            lines.append(f"- {name}: {_mark_text(mark)}.")
            lines += [f"  {line}" for line in rubric_lines(mark) + rubric_sum_lines(mark)]
            if mark.comment:
                lines.append(f"  Comment: {mark.comment}")
        lines.append(f"Total: {_points(total(result))} / {_points(result.max_score + written_max(result))} points"
                     + (" (the answers still to be marked are not counted yet)." if unmarked(result) else "."))
    elif result.manual_cells:
        lines.append(f"The written answers ({_points(written_max(result))} points) are graded "
                     "by hand; those points come later.")
    lines.append(f"The full feedback page, with every test, its points and its message: {full_page}.")
    return "\n".join(lines)


# -- plots ------------------------------------------------------------------------------
# Drawn as SVG by hand: two simple bar charts do not need a plotting library, and each has a title
# that reads out its numbers for a screen reader.  Colours have at least 3:1 contrast on white.

CHART_TEXT = "#24292f"
CHART_COLOURS = {"scores": "#3b5b92", "mean": "#2e7d32", "failed": "#b3261e"}


def _ticks(top, most=6):
    """Round tick values from 0 to at least ``top``, at most about ``most`` of them."""
    step = 1
    for candidate in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        step = candidate
        if top / candidate <= most - 1:
            break
    count = int(-(-top // step))
    return [i * step for i in range(count + 1)]


def _text(x, y, text, anchor="middle", size=14, **attrs):
    extra = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in attrs.items())
    return (f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" font-size="{size}" fill="{CHART_TEXT}"{extra}>'
            f'{_e(text)}</text>')


def _svg_open(width, height, title):
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" role="img" '
            f'style="max-width: 100%; height: auto" font-family="system-ui, sans-serif"><title>{_e(title)}</title>')


def _score_histogram(scores, max_score):
    """Counts of scores in bins from 0 to the maximum (whole points when the maximum is a whole number)."""
    top = max(max_score, max(scores, default=0), 1)
    n_bins = int(min(top, 20)) if float(top).is_integer() else 10
    width_of_bin = top / n_bins
    counts = [0] * n_bins
    for score in scores:
        counts[min(int(score / width_of_bin), n_bins - 1)] += 1
    left, right, upper, lower, width, height = 48, 14, 12, 46, 520, 300
    plot_w, plot_h = width - left - right, height - upper - lower
    y_ticks = _ticks(max(max(counts), 1))
    y_top = y_ticks[-1]
    x = lambda value: left + plot_w * value / top
    y = lambda count: upper + plot_h * (1 - count / y_top)
    bins = ", ".join(f"{i * width_of_bin:g} to {(i + 1) * width_of_bin:g}: {c}" for i, c in enumerate(counts) if c)
    parts = [_svg_open(width, height, f"Histogram of autograded scores out of {max_score:g}; submissions per score "
                                      f"range: {bins or 'none'}.")]
    for tick in y_ticks:
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
                     f'stroke="#d0d7de" stroke-width="1"/>')
        parts.append(_text(left - 6, y(tick) + 4, f"{tick:g}", anchor="end"))
    for i, count in enumerate(counts):
        if count:
            parts.append(f'<rect x="{x(i * width_of_bin) + 1:.1f}" y="{y(count):.1f}" '
                         f'width="{max(plot_w / n_bins - 2, 1):.1f}" height="{y(0) - y(count):.1f}" '
                         f'fill="{CHART_COLOURS["scores"]}"/>')
    every = 1 if n_bins <= 10 else 2
    for i in range(0, n_bins + 1, every):
        parts.append(_text(x(i * width_of_bin), y(0) + 18, f"{i * width_of_bin:g}"))
    parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(0):.1f}" y2="{y(0):.1f}" stroke="{CHART_TEXT}"/>')
    parts.append(_text(left + plot_w / 2, height - 6, f"autograded score (out of {max_score:g})"))
    parts.append(_text(14, upper + plot_h / 2, "submissions", transform=f"rotate(-90 14 {upper + plot_h / 2:.1f})"))
    return "".join(parts) + "</svg>"


def _question_chart(names, means, failure_rates):
    """Per test cell, two bars: the mean score as a fraction of its points, and the fraction that failed it."""
    label_w = 8.5 * min(max(len(n) for n in names), 32) + 12
    plot_w = max(260, 560 - label_w)
    left, right, upper, lower = label_w, 16, 52, 40
    width = left + plot_w + right
    row = 30
    plot_h = row * len(names)
    height = upper + plot_h + lower
    x = lambda fraction: left + plot_w * fraction
    summary = "; ".join(f"{n}: mean {m:.0%}, failed by {f:.0%}" for n, m, f in zip(names, means, failure_rates))
    parts = [_svg_open(width, height, f"Per test cell, the mean score as a fraction of its points and the fraction "
                                      f"of graded submissions that failed it: {summary}.")]
    for tick in (0, 0.25, 0.5, 0.75, 1):
        parts.append(f'<line x1="{x(tick):.1f}" x2="{x(tick):.1f}" y1="{upper}" y2="{upper + plot_h}" '
                     f'stroke="#d0d7de" stroke-width="1"/>')
        parts.append(_text(x(tick), upper + plot_h + 18, f"{tick:g}"))
    for i, (name, mean, failed) in enumerate(zip(names, means, failure_rates)):
        top = upper + i * row
        shown = name if len(name) <= 32 else name[:31] + "\u2026"
        parts.append(_text(left - 8, top + row / 2 + 5, shown, anchor="end", size=13, font_family="monospace"))
        parts.append(f'<rect x="{left}" y="{top + 4}" width="{plot_w * mean:.1f}" height="10" '
                     f'fill="{CHART_COLOURS["mean"]}"/>')
        parts.append(f'<rect x="{left}" y="{top + 15}" width="{plot_w * failed:.1f}" height="10" '
                     f'fill="{CHART_COLOURS["failed"]}"/>')
    parts.append(f'<line x1="{left}" x2="{left}" y1="{upper}" y2="{upper + plot_h}" stroke="{CHART_TEXT}"/>')
    parts.append(_text(left + plot_w / 2, height - 6, "fraction of graded submissions"))
    for j, (key, label) in enumerate((("mean", "mean score (fraction of points)"), ("failed", "failure rate"))):
        parts.append(f'<rect x="{left}" y="{6 + 20 * j}" width="12" height="12" fill="{CHART_COLOURS[key]}"/>')
        parts.append(_text(left + 18, 17 + 20 * j, label, anchor="start"))
    return "".join(parts) + "</svg>"


# -- the instructor's report -----------------------------------------------------------

def _limits_section(settings):
    """Every limit the submissions were held to, and the time limits actually applied."""
    applied = (f"Applied to this run: {settings.cell_seconds:g} s per cell"
               + (f" ({len(settings.cell_seconds_by_cell)} cells of the release with limits of their own, from "
                  f"{min(s for _, s in settings.cell_seconds_by_cell):g} to "
                  f"{max(s for _, s in settings.cell_seconds_by_cell):g} s)"
                  if settings.cell_seconds_by_cell else "")
               + f", {settings.call_seconds:g} s per call of a student's function by a hidden test. "
               + (settings.budget_text or "These are the configured ceilings (not calibrated)."))
    rows = "".join(f"<tr><td><code>{_e(name)}</code></td><td class=\"num\">{_e(value)}</td><td>{_e(text)}</td></tr>"
                   for name, value, text in settings.limits.describe())
    return ("<h2>Limits</h2><p>Set in the course's <code>nbgrader_config.py</code> as "
            "<code>c.Autograder.&lt;name&gt; = value</code>; <code>--timeout</code> and <code>--cell-timeout</code> "
            f"override the first two. {_e(applied)}</p>"
            f"<table><tr><th>limit</th><th class=\"num\">value</th><th>what it limits</th></tr>{rows}</table>")


def _feedback_link(student_id):
    return f'<a href="feedback/{_e(student_id)}.html">{_e(student_id)}</a>'


def _student_cell(result):
    """The student's id (linked to the feedback page, which a missing student has none of) and the entry's name."""
    cell = _e(result.student_id) if result.status == MISSING else _feedback_link(result.student_id)
    if result.source and result.source != result.student_id:
        cell += f'<br><span class="muted">{_e(result.source)}</span>'
    return cell


SKIPPED_KINDS = {"superseded": "earlier attempt", "read": "read, not graded", "skipped": "not a submission"}


def _deliveries_section(deliveries):
    """How the feedback reaches the students: per LMS, the files to upload; each student it cannot reach that way."""
    counts = Counter(d.lms for d in deliveries)
    routed = [(lms, n) for lms, n in sorted(counts.items()) if lms]
    items = "".join(f"<li>{n} through {_e(next(d.note for d in deliveries if d.lms == lms))}</li>"
                    for lms, n in routed)
    elsewhere = [d for d in deliveries if not d.lms]
    parts = ["<h2>Feedback through the LMS</h2>"]
    if items:
        parts.append(f"<p>Upload these files as the README says; each student then sees their feedback.</p><ul>{items}</ul>")
    if elsewhere and all(d.plain for d in elsewhere):
        parts.append("<p>Every entry of the download is a plain file or folder: hand out each student's page "
                     "from <code>feedback/</code>.</p>")
    elif elsewhere:
        rows = "".join(f"<tr><td>{_feedback_link(d.student_id)}</td><td><code>{_e(d.source)}</code></td>"
                       f"<td>{_e(d.note)}</td></tr>" for d in elsewhere)
        parts.append(f"<p>{len(elsewhere)} student(s) cannot get their feedback through an LMS file; each has a "
                     "page in <code>feedback/</code>.</p><table><tr><th>student</th><th>entry in the download</th>"
                     f"<th>why, and what to do</th></tr>{rows}</table>")
    return "".join(parts)


def _report_flags(results, copies):
    """Each student's flags as the report shows them: the result's own, and ``reference-copy`` for each copy found.

    The copies' flag lives only here: it is a similarity finding for the
    instructor, so it never reaches a student's feedback.
    """
    from autograder.judging.similarity import reference_copy_text

    extra = {}
    for copy in copies or ():
        extra.setdefault(copy.submission, []).append(Flag(REFERENCE_COPY, reference_copy_text(copy)))
    return {r.student_id: list(r.flags) + extra.get(r.student_id, []) for r in results}


def _scores_paragraph(results, scale, marks_read):
    """What the scores cover: the autograded points alone, or the whole assignment once marks were read."""
    if not marks_read:
        return (f"<p>Scores cover the <strong>{_points(scale.autograded)} autograded points</strong> only. "
                + (f"The {_points(scale.written)} points of written answers are graded by hand; those points "
                   "come later." if scale.written else "") + "</p>")
    waiting = sum(len(unmarked(r)) for r in results)
    return (f"<p>Totals cover the whole assignment, <strong>{_points(scale.total)} points</strong>: "
            f"{_points(scale.autograded)} autograded and {_points(scale.written)} for the written answers, which "
            "are graded by hand; their marks are the ones the gradebook held when this report was written. "
            + (f"<strong>{waiting} written {_plural(waiting, 'answer is', 'answers are')} still to be marked"
               "</strong> and count 0 until they are (see Written answers): mark them with <code>python -m "
               "autograder mark</code>, then <code>python -m autograder export</code> writes every file again."
               if waiting else "Every written answer is marked.") + "</p>")


def _marks_given(marks):
    """``2 × 5, 1.5 × 2``: how often each mark was given, highest first."""
    counts = Counter(m.points for m in marks)
    return ", ".join(f"{_points(points)} \u00d7 {n}" for points, n in sorted(counts.items(), reverse=True))


def _markers_and_rubrics(questions, labels=None):
    """Where several TAs marked one question on the marking page, each TA's mean for it; and, per question, each
    rubric item used, with how many answers it was applied to out of those marked with the rubric.
    ``questions`` maps (notebook, grade id) to (student, mark) pairs."""
    markers, items = [], []
    for (notebook, gid), answers in questions.items():
        name = _question_for_instructor(labels, notebook, gid)
        by_marker = {}
        for _, mark in answers:
            if mark.marker and mark.marked:
                by_marker.setdefault(mark.marker, []).append(mark.points)
        if len(by_marker) > 1:
            markers += [f"<tr><td>{name}</td><td>{_e(marker)}</td><td class=\"num\">{len(points)}</td>"
                        f"<td class=\"num\">{statistics.mean(points):.2f}</td></tr>"
                        for marker, points in sorted(by_marker.items())]
        with_rubric = sum(bool(mark.rubric) for _, mark in answers)
        used = Counter(item for _, mark in answers for item in mark.rubric)  # in the order first applied
        order = {item: place for place, item in enumerate(used)}
        items += [f"<tr><td>{name}</td><td class=\"num\">{'0' if _is_comment(points) else _e(signed_points(points))}"
                  f"</td><td class=\"comment\">{_e(text)}</td><td class=\"num\">{n} of {with_rubric}</td></tr>"
                  for (text, points), n in sorted(used.items(), key=lambda pair: (-pair[1], order[pair[0]]))]
    parts = []
    if markers:
        parts.append("<h3>Each TA's marks</h3><p>Questions that several TAs marked on the marking page: each TA's "
                     "mean over the answers they marked, to see whether they mark alike.</p><table><tr>"
                     "<th>question</th><th>TA</th><th class=\"num\">answers</th><th class=\"num\">mean</th></tr>"
                     + "".join(markers) + "</table>")
    if items:
        parts.append("<h3 id=\"rubric-items-used\">Rubric items used</h3><p>Per question, each rubric item applied "
                     "on the marking page, most used first, and to how many of the answers marked there with the "
                     "rubric (a mark given since through the CSV or the formgrader is no longer the rubric's). An "
                     "item no answer uses is not listed.</p><div class=\"scroll\" role=\"region\" tabindex=\"0\" "
                     "aria-labelledby=\"rubric-items-used\"><table><tr><th>question</th><th class=\"num\">points</th>"
                     "<th>rubric item</th><th class=\"num\">answers</th></tr>" + "".join(items) + "</table></div>")
    return "".join(parts)


def _written_report(results, labels=None):
    """The written questions: per question, how many answers are marked and the marks given; then every answer
    still to be marked, and every answer whose earlier mark was set aside because the student changed it."""
    questions = {}
    for r in results:
        for mark in r.written:
            questions.setdefault((mark.notebook, mark.grade_id), []).append((r.student_id, mark))
    rows = []
    for (notebook, gid), answers in questions.items():
        marks = [m for _, m in answers]
        written = [m for m in marks if not m.blank]
        marked = [m for m in written if m.marked]
        mean = f"{statistics.mean(m.points for m in marked):.2f}" if marked else "\u2013"
        rows.append(f"<tr><td>{_question_for_instructor(labels, notebook, gid)}</td>"
                    f"<td class=\"num\">{_points(marks[0].max_points)}</td>"
                    f"<td class=\"num\">{len(marked)} of {len(written)}</td>"
                    f"<td class=\"num\">{sum(m.blank for m in marks)}</td><td class=\"num\">{mean}</td>"
                    f"<td>{_e(_marks_given(marked))}</td></tr>")
    parts = ["<h2 id=\"written-answers\">Written answers</h2><p>Marked by hand, in the gradebook (the marking "
             "page, the marking CSV or nbgrader's formgrader). A blank answer counts as marked 0; the mean is over "
             "the marked answers that were written.</p><div class=\"scroll\" role=\"region\" tabindex=\"0\" "
             "aria-labelledby=\"written-answers\"><table><tr><th>question</th><th class=\"num\">points</th>"
             "<th class=\"num\">marked</th><th class=\"num\">blank</th><th class=\"num\">mean</th>"
             "<th>marks given</th></tr>" + "".join(rows) + "</table></div>"]
    parts.append(_markers_and_rubrics(questions, labels))
    again = [(r, m) for r in results for m in to_remark(r)]
    if again:
        items = "".join(
            f"<tr><td>{_feedback_link(r.student_id)}</td><td>{_question_for_instructor(labels, m.notebook, m.grade_id)}"
            f"</td><td class=\"num\">{_e('none' if m.earlier.points is None else _points(m.earlier.points))}</td>"
            f"<td class=\"comment\">{_e(m.earlier.comment)}</td></tr>" for r, m in again)
        were = _plural(len(again), "answer was", "answers were")
        parts.append(f"<h3 id=\"to-mark-again\">To be marked again</h3><p>{len(again)} marked {were} changed by a "
                     "later submission. The earlier mark is not carried over: it is shown here and in the marking "
                     "CSV for whoever marks the new answer.</p><div class=\"scroll\" role=\"region\" "
                     "tabindex=\"0\" aria-labelledby=\"to-mark-again\"><table><tr><th>student</th><th>question</th>"
                     f"<th class=\"num\">earlier mark</th><th>earlier comment</th></tr>{items}</table></div>")
    waiting = [(r, m) for r in results for m in unmarked(r) if not m.to_remark]
    if waiting:
        by_question = {}
        for r, m in waiting:
            by_question.setdefault((m.notebook, m.grade_id), []).append(r.student_id)
        items = "".join(f"<li>{_question_for_instructor(labels, notebook, gid)}: {len(ids)} ({_e(', '.join(ids))})</li>"
                        for (notebook, gid), ids in by_question.items())
        parts.append(f"<h3>Still to be marked</h3><ul>{items}</ul>")
    return "".join(parts)


def report_html(assignment, results, *, skipped=(), sandbox_text="", sandboxed=True, started=None, seconds=0.0,
                settings=None, notes=(), similar=None, copies=None, deliveries=None, labels=None):
    """The batch report: distribution, per-question results, failures, statuses, flags, sandbox, time.

    ``labels`` name the written questions as their notebook does (see :func:`feedback_html`).

    ``similar`` and ``copies`` are what :mod:`autograder.judging.similarity` found
    (``None`` when it was not asked); ``deliveries``
    (:class:`autograder.outputs.lms_feedback.Delivery`) say where each student's feedback goes.
    """
    flags_of = _report_flags(results, copies)
    counts = Counter(r.status for r in results)
    graded = [r for r in results if r.status == GRADED]
    scale = scale_of(results)
    marks_read = any(r.written for r in results)
    when = datetime.datetime.fromtimestamp(started).strftime("%Y-%m-%d %H:%M:%S") if started else "?"
    parts = [f"<h1>Grading report: {_e(assignment)}</h1>",
             f"<p class=\"muted\">Run started {_e(when)}, took {seconds:.1f} s for {len(results)} submissions.</p>"]
    if sandboxed:
        parts.append(f'<div class="box">Sandbox: {_e(sandbox_text)}. Each submission ran in its own sandbox.</div>')
    else:
        parts.append('<div class="box warning"><strong>No sandbox.</strong> These submissions were graded with '
                     '--unsafe-no-sandbox: student code ran with the grader\'s permissions, could read the hidden '
                     f'checks and change files. {_e(sandbox_text)}</div>')
    if notes:
        parts.append('<div class="box"><strong>The download.</strong><ul>'
                     + "".join(f"<li>{_e(n)}</li>" for n in notes) + "</ul></div>")
    parts.append(_scores_paragraph(results, scale, marks_read))

    summary = "".join(f"<tr><td>{_status_badge(s)}</td><td class=\"num\">{counts.get(s, 0)}</td>"
                      f"<td>{_e(STATUS_TEXT[s])}</td></tr>" for s in STATUSES)
    flagged = sum(bool(flags_of[r.student_id]) for r in results)
    summary += f"<tr><td><strong>flagged</strong></td><td class=\"num\">{flagged}</td><td>submissions with at least one flag (listed below)</td></tr>"
    parts.append(f"<h2>Summary</h2><table><tr><th>status</th><th class=\"num\">submissions</th><th>meaning</th></tr>{summary}</table>")

    if graded:
        scores = [r.score for r in graded]
        stats = (f"mean {statistics.mean(scores):.2f}, median {statistics.median(scores):g}, "
                 f"min {min(scores):g}, max {max(scores):g} (over the {len(graded)} graded submissions)")
        cell_ids = [c.grade_id for c in graded[0].cells]
        per_cell = {gid: [] for gid in cell_ids}
        for r in graded:
            for c in r.cells:
                if c.grade_id in per_cell and c.judged:
                    per_cell[c.grade_id].append(c)
        names, means, fails, rows = [], [], [], []
        for gid in cell_ids:
            cells = per_cell[gid]
            if not cells:
                continue
            possible = cells[0].max_points or 1
            mean = statistics.mean(c.points for c in cells) / possible
            fail = sum(not c.passed for c in cells) / len(cells)
            names.append(gid)
            means.append(mean)
            fails.append(fail)
            rows.append(f"<tr><td><code>{_e(gid)}</code></td><td class=\"num\">{_points(cells[0].max_points)}</td>"
                        f"<td class=\"num\">{mean * cells[0].max_points:.2f}</td><td class=\"num\">{fail:.0%}</td></tr>")
        plots = [f"<figure>{_score_histogram(scores, scale.autograded)}<figcaption>Autograded scores of the graded "
                 f"submissions: {_e(stats)}.</figcaption></figure>"]
        if names:
            plots.append(f"<figure>{_question_chart(names, means, fails)}<figcaption>Per test cell: mean score as a "
                         "fraction of its points, and the fraction of graded submissions that failed it."
                         "</figcaption></figure>")
        parts.append("<h2>Scores</h2><div class=\"plots\">" + "".join(plots) + "</div>")
        parts.append("<table><tr><th>test cell</th><th class=\"num\">points</th><th class=\"num\">mean</th>"
                     "<th class=\"num\">failed</th></tr>" + "".join(rows) + "</table>")

        messages = Counter((c.grade_id, c.message) for r in graded for c in r.cells if c.judged and not c.passed)
        if messages:
            rows = "".join(f"<tr><td class=\"num\">{n}</td><td><code>{_e(gid)}</code></td><td>{_e(msg)}</td></tr>"
                           for (gid, msg), n in messages.most_common(15))
            parts.append("<h2>Most common failures</h2><table><tr><th class=\"num\">count</th><th>test cell</th>"
                         f"<th>message</th></tr>{rows}</table>")
        times = [r.run_seconds for r in results if r.run_seconds]
        if times:
            parts.append(f"<p class=\"muted\">Time to run one notebook: mean {statistics.mean(times):.1f} s, "
                         f"longest {max(times):.1f} s.</p>")
    else:
        parts.append("<h2>Scores</h2><p>No submission could be graded, so there is no score distribution.</p>")

    if marks_read:
        parts.append(_written_report(results, labels))

    problems = [r for r in results if r.status != GRADED]
    if problems:
        rows = "".join(f"<tr><td>{_student_cell(r)}</td><td>{_status_badge(r.status)}</td>"
                       f"<td>{_e(r.reason)}</td></tr>" for r in problems)
        parts.append("<h2>Not graded normally</h2><p>Each of these scores 0 on every test cell.</p>"
                     f"<table><tr><th>student</th><th>status</th><th>reason</th></tr>{rows}</table>")
    flagged_results = [r for r in results if flags_of[r.student_id]]
    if flagged_results:
        rows = "".join(f"<tr><td>{_student_cell(r)}</td><td><strong>{_e(f.code)}</strong></td>"
                       f"<td>{_e(FLAG_TEXT.get(f.code, ''))}<br><span class=\"muted\">{_e(f.detail)}</span></td></tr>"
                       for r in flagged_results for f in flags_of[r.student_id])
        parts.append("<h2>Flags</h2><p>Signs of tampering or trouble worth a look; flags do not change scores."
                     f"</p><table><tr><th>student</th><th>flag</th><th>what it means, and where</th></tr>{rows}</table>")
    if similar is not None:
        from autograder.judging.similarity import similarity_html

        parts.append(similarity_html(similar))
    if copies is not None:
        from autograder.judging.similarity import reference_copies_html

        parts.append(reference_copies_html(copies))
    if deliveries:
        parts.append(_deliveries_section(deliveries))
    if skipped:
        rows = "".join(f"<tr><td><code>{_e(s.name)}</code></td>"
                       f"<td>{_e(SKIPPED_KINDS.get(getattr(s, 'kind', 'skipped'), ''))}</td><td>{_e(s.reason)}</td></tr>"
                       for s in skipped)
        parts.append("<h2>In the download, not graded</h2><p>Everything in the download that is not the graded "
                     "submission of a student: receipts and metadata (read for names and times), earlier attempts "
                     "of students whose latest attempt was graded, and anything else. None of these has a row in "
                     f"grades.csv.</p><table><tr><th>entry</th><th>what it is</th><th>why it was not graded</th></tr>"
                     f"{rows}</table>")

    flag_text = {r.student_id: _e(", ".join(sorted({f.code for f in flags_of[r.student_id]}))) for r in results}
    if marks_read:
        head = ("<th class=\"num\">autograded</th><th class=\"num\">written</th><th class=\"num\">total</th>")
        points = {r.student_id: f"<td class=\"num\">{_points(r.score)} / {_points(scale.autograded)}</td>"
                                f"<td class=\"num\">{_points(written_score(r))} / {_points(scale.written)}"
                                + (f" ({len(unmarked(r))} to mark)" if unmarked(r) else "") + "</td>"
                                f"<td class=\"num\">{_points(total(r))} / {_points(scale.total)}</td>"
                  for r in results}
    else:
        head = "<th class=\"num\">score</th>"
        points = {r.student_id: f"<td class=\"num\">{_points(r.score)} / {_points(r.max_score)}</td>" for r in results}
    rows = "".join(f"<tr><td>{_student_cell(r)}</td>{points[r.student_id]}<td>{_status_badge(r.status)}</td>"
                   f"<td>{flag_text[r.student_id]}</td><td>{_e(r.submitted_at)}</td></tr>" for r in results)
    # These columns do not fit a phone: the table scrolls in a region of its own, which the keyboard can reach.
    parts.append("<h2 id=\"all-submissions\">All submissions</h2><div class=\"scroll\" role=\"region\" tabindex=\"0\" "
                 "aria-labelledby=\"all-submissions\"><table><tr><th>student (and the entry in the download)</th>"
                 f"{head}<th>status</th><th>flags</th><th>submitted</th></tr>{rows}</table></div>")
    if settings is not None:
        parts.append(_limits_section(settings))
    return _page(f"Grading report: {assignment}", "\n".join(parts))
