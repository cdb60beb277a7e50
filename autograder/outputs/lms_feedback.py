"""What each learning management system takes back after a grading run: feedback files and grade uploads.

Every graded entry that came from an LMS's download carries its
:class:`~autograder.intake.lms.FeedbackRoute` (read from the download's names by
:mod:`autograder.intake.lms`).  :func:`build` turns a run's results into the files
each LMS imports as they are:

* Canvas: ``canvas_feedback.zip`` for "Re-upload submissions": one feedback
  notebook per submission, named exactly as the download named it;
* Moodle: ``moodle_feedback.zip`` for "Upload multiple feedback files in a
  zip", one folder per participant as in the download, each holding the
  feedback page; and ``moodle_grading_worksheet.csv`` for "Upload grading
  worksheet", with the total and the plain-text summary as "Feedback comments";
* Blackboard: ``blackboard_grade_center.csv`` for the Grade Center's "Work
  Offline" > "Upload", with the total and the summary as "Feedback to Learner";
* the course's JupyterHub: no file; ``export`` gives each feedback page back to
  the submission it was made from in the course exchange
  (:func:`autograder.intake.hub.return_feedback`), where *Fetch Feedback* finds it.

Every score is the total over the whole assignment (autograded points plus
the written answers' marks, :mod:`autograder.outputs.totals`), out of the
whole assignment's points.

Students from plain folders, from a Gradescope export and group members
have no such route; :func:`build` says, per student, where their feedback
goes or why it goes nowhere but ``feedback/``, and the report lists them.
The summary is :func:`autograder.outputs.report.feedback_text`, the page
:func:`autograder.outputs.report.feedback_html`: what students see here is what the
feedback folder holds (each written answer's mark with the rubric items applied and
the TA's comment, the question named as its notebook names it), and never a hidden
check's inputs or a note for markers.
"""

import io
import re
import zipfile
from dataclasses import dataclass

import nbformat

from autograder.outputs.exports import csv_text
from autograder.outputs.report import feedback_html, feedback_text
from autograder.outputs.totals import scale_of, total
from autograder.results import MISSING

__all__ = ["Delivery", "build", "feedback_notebook", "moodle_page_name", "CANVAS_ZIP", "MOODLE_ZIP",
           "MOODLE_WORKSHEET", "BLACKBOARD_FILE", "FILES"]

CANVAS_ZIP = "canvas_feedback.zip"
MOODLE_ZIP = "moodle_feedback.zip"
MOODLE_WORKSHEET = "moodle_grading_worksheet.csv"
BLACKBOARD_FILE = "blackboard_grade_center.csv"
FILES = {"canvas": (CANVAS_ZIP,), "moodle": (MOODLE_ZIP, MOODLE_WORKSHEET), "blackboard": (BLACKBOARD_FILE,),
         "hub": ()}
LMS_NAMES = {"canvas": "Canvas", "moodle": "Moodle", "blackboard": "Blackboard", "hub": "JupyterHub"}
HUB_DELIVERY = "JupyterHub: export returns the feedback page into the course exchange, for Fetch Feedback"


@dataclass(frozen=True)
class Delivery:
    """Where one student's feedback goes: ``lms`` is the LMS it is uploaded to, or ``""``; ``note`` says how or why not.

    ``plain`` marks an entry of a download with no LMS entry at all, whose
    feedback folder is the way it was always meant to go back.
    """

    student_id: str
    source: str
    lms: str
    note: str
    plain: bool = False


@dataclass(frozen=True)
class _Item:
    route: object  # autograder.intake.lms.FeedbackRoute
    result: object  # autograder.results.Result
    person: object  # autograder.intake.submissions.Submission
    labels: dict = None  # {(notebook, grade_id): the written question's name}, autograder.marking.answers


def moodle_page_name(assignment):
    """The feedback page's name in a Moodle participant's folder (and so among their feedback files)."""
    return f"{assignment}-feedback.html"


def _full_page(lms, assignment, student_id):
    """Where the summary sends the student for the full page, in that LMS."""
    return {
        "canvas": "the output of the next cell of this notebook (open the notebook in Jupyter)",
        "moodle": f"the file {moodle_page_name(assignment)} among this assignment's feedback files "
                  "(open it in a web browser)",
        "blackboard": f"ask your instructor for the page {student_id}.html",
    }[lms]


def _summary(item):
    return feedback_text(item.result, full_page=_full_page(item.route.lms, item.result.assignment,
                                                           item.result.student_id), labels=item.labels)


def feedback_notebook(result, summary, page_html):
    """A notebook (nbformat 4 JSON text) holding the feedback: the summary, then the full page as an output.

    Canvas shows a re-uploaded file under the submitted file's own name
    (``ps1_hyperplanes.ipynb``), so what it holds must be a notebook.
    """
    longest = max((len(run) for run in re.findall("`+", summary)), default=0)
    fence = "`" * max(3, longest + 1)  # a fence no run of backticks in the text can close
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(f"# {result.assignment}: feedback for {result.student_id}\n\n"
                                      f"{fence}text\n{summary}\n{fence}"),
        nbformat.v4.new_code_cell("", outputs=[nbformat.v4.new_output(
            "display_data", data={"text/html": page_html, "text/plain": summary})]),
    ]
    return nbformat.writes(nb)


def _zip(members, when):
    """The bytes of a zip of ``members`` (name -> text), in name order, each dated ``when``."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(members):
            info = zipfile.ZipInfo(name, date_time=when.timetuple()[:6])
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, members[name].encode("utf-8"))
    return buffer.getvalue()


def canvas_zip(items, pages, when):
    # Canvas Instructor Guide, "How do I upload submissions in bulk for an assignment?" (Assignments >
    # "Re-Upload Submissions", community.canvaslms.com): the zip's files keep the names "Download Submissions"
    # gave them. Canvas (app/models/assignment.rb, infer_comment_context_from_filename, in
    # github.com/instructure/canvas-lms) takes the user id and the submitted file's id from the first two
    # all-digit parts between underscores, so the LATE marker and a "-1" resubmission suffix do not matter,
    # and attaches the file as a submission comment under the submitted file's own name.
    return _zip({item.route.name: feedback_notebook(item.result, _summary(item), pages[item.result.student_id])
                 for item in items}, when)


def moodle_zip(assignment, items, pages, when):
    # Moodle, Assignment > "Upload multiple feedback files in a zip"
    # (https://docs.moodle.org/en/Assignment_settings#Feedback_types, "Feedback files"; the importer is
    # mod/assign/feedback/file/importziplib.php): each file sits in the participant's folder of the download,
    # "Full Name_<participant id>_assignsubmission_file_/", which Moodle splits on "_" to find the participant;
    # a file whose name and content match the submission is skipped, any other becomes a feedback file.
    return _zip({f"{item.route.name}/{moodle_page_name(assignment)}": pages[item.result.student_id]
                 for item in items}, when)


def moodle_worksheet(items, max_score, when):
    # Moodle, Assignment > "Download grading worksheet" / "Upload grading worksheet" (feedback type "Offline
    # grading worksheet", https://docs.moodle.org/en/Assignment_settings#Feedback_types; the importer is
    # mod/assign/feedback/offline/importgradeslib.php). The importer needs the columns "Identifier"
    # ("Participant <id>", the participant id of the download's folder names), "Grade" and "Last modified
    # (grade)", and reads "Feedback comments" when that feedback type is on. It skips a row whose grade was
    # changed in Moodle after "Last modified (grade)", so a grade entered by hand later is not overwritten.
    header = ["Identifier", "Full name", "Email address", "Status", "Grade", "Maximum Grade",
              "Last modified (grade)", "Feedback comments"]
    stamp = when.isoformat(timespec="seconds")  # ISO 8601, which the importer's strtotime reads
    rows = [[f"Participant {item.route.key}", item.person.name, item.person.email, item.result.status,
             float(total(item.result)), float(max_score), stamp, _summary(item)]
            for item in sorted(items, key=lambda i: int(i.route.key))]
    return csv_text([header] + rows)


def blackboard_csv(items, max_score):
    # Blackboard Learn, Grade Center > Work Offline > Upload ("Uploading or Downloading Grade Center Items
    # for Working Offline", http://library.blackboard.com/ref/3ea64795-6ecc-4abd-b595-0a9a8dfdec94/Content/_instructor_grade_center/grade_center_upload_download.htm):
    # a header row, then one row per student identified by "Username"; in a comma-delimited file every
    # value is quoted. A column without a "|<column id>" in its header becomes a new column; the
    # "Feedback to Learner" and "Feedback Format" columns are the ones the Grade Center's own download of
    # a column "with comments" has.
    by_title = {}
    for item in items:
        by_title.setdefault(item.route.name, []).append(item)
    rows = []
    titles = sorted(by_title)
    header = ["Last Name", "First Name", "Username", "Student ID", "Last Access", "Availability"]
    for title in titles:
        header += [f"{title} [Total Pts: {max_score:g} Score]", "Feedback to Learner", "Feedback Format"]
    for item in sorted(items, key=lambda i: i.route.key):
        first, _, last = item.person.name.rpartition(" ")
        row = [last, first, item.route.key, "", "", ""]
        for title in titles:
            row += ([float(total(item.result)), _summary(item), "PLAIN_TEXT"] if item.route.name == title
                    else ["", "", ""])
        rows.append(row)
    return csv_text([header] + rows, quote_all=True)


def _no_route(result, person, any_route):
    """Why a student's feedback cannot be uploaded to an LMS, and where it is instead."""
    page = f"hand out feedback/{result.student_id}.html yourself"
    lms = getattr(person, "lms", None)
    if lms is None:
        return f"a member of the group submission {result.source}, graded once; no LMS file names them: {page}"
    if lms == "gradescope":
        return f"from a Gradescope export, which takes no feedback back: {page} (or grade on Gradescope itself)"
    if any_route:
        return (f"its name in the download follows no LMS's layout (renamed after downloading?), so it cannot "
                f"be matched to an LMS account: {page}")
    return f"a plain folder: {page}"


def build(assignment, results, people, *, sandbox_text, when, labels=None):
    """The LMS files of a run and where each student's feedback goes: ``(files, deliveries)``.

    ``people`` maps each student id to its submission (or group member);
    ``when`` is the run's time (aware); ``labels`` name the written questions
    (:func:`autograder.marking.answers.question_labels`).  ``files`` maps each file name of
    :data:`FILES` to its bytes, or to ``None`` when no student came from that
    LMS (so an older copy is removed, not left to be uploaded by mistake).
    """
    results = [r for r in results if r.status != MISSING]
    by_lms = {lms: [] for lms in FILES}
    deliveries = []
    for result in results:
        route = getattr(people[result.student_id], "route", None)
        if route is not None:
            by_lms[route.lms].append(_Item(route, result, people[result.student_id], labels))
    any_route = any(by_lms.values())
    pages = {r.student_id: feedback_html(r, sandbox_text=sandbox_text, labels=labels) for r in results}
    max_score = scale_of(results).total
    files = {name: None for names in FILES.values() for name in names}
    if by_lms["canvas"]:
        files[CANVAS_ZIP] = canvas_zip(by_lms["canvas"], pages, when)
    if by_lms["moodle"]:
        files[MOODLE_ZIP] = moodle_zip(assignment, by_lms["moodle"], pages, when)
        files[MOODLE_WORKSHEET] = moodle_worksheet(by_lms["moodle"], max_score, when).encode("utf-8")
    if by_lms["blackboard"]:
        files[BLACKBOARD_FILE] = blackboard_csv(by_lms["blackboard"], max_score).encode("utf-8")
    for result in results:
        person = people[result.student_id]
        route = getattr(person, "route", None)
        if route is None:
            deliveries.append(Delivery(result.student_id, result.source, "", _no_route(result, person, any_route),
                                       plain=not any_route and getattr(person, "lms", None) == "plain"))
        else:
            deliveries.append(Delivery(result.student_id, result.source, route.lms, HUB_DELIVERY if route.lms == "hub"
                                       else f"{LMS_NAMES[route.lms]}: {' and '.join(FILES[route.lms])}"))
    return files, deliveries
