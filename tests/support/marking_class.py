"""The classes the marking page's tests mark: ps2's two written questions and five students, each with their
name and written answers, and a class of ten with a study group (the fixtures in
``tests/grader/conftest.py`` grade them with :func:`graded_once`); how the tests read the marks given, and how they start the
marking server as a TA does."""

import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import nbformat

from autograder.outputs.gradebook import open_gradebook, written_marks
from tests.support import ROOT
from tests.support.grading import correct_submission, notebooks_of
from tests.support.released import copy_course, run_once

A = "ps2_online_perceptron"
D1, D2 = "written_online_batch", "written_order"
STUDENTS = {
    # student id: (name, answer to D1, answer to D2); None keeps the model answer, "" leaves the release's text.
    "lovelace": ("Ada Lovelace", None, None),
    "noether": ("Emmy Noether", "Online: predict $\\hat y_t = \\operatorname{sign}(w_t \\cdot x_t)$, then see "
                "$y_t$ and update.\n\n$$\nw_{t+1} = w_t + y_t x_t\n$$", "Yes: the order changes $w$."),
    "turing": ("Alan Turing", "Batch: it sees **all** of the data at once.", "No."),
    "hopper": ("Grace Hopper", "", ""),
}
UNTOUCHED = ("babbage", "Charles Babbage")


def marks_of(course, question=D1):
    """``{student: (points, comment, marker, rubric items' texts)}`` of one question, as the gradebook holds them."""
    gb = open_gradebook(str(course))
    try:
        return {student: next((m.points, m.comment, m.marker, tuple(text for text, _ in m.rubric))
                              for m in marks if m.grade_id == question)
                for student, marks in written_marks(gb, A).items()}
    finally:
        gb.close()


def _study_class():
    """A class of ten whose written answers group: a study group of four near-copies, two answers that differ
    in formatting only, three written apart, one blank (answers from :mod:`tests.support.answer_corpus`)."""
    from tests.support import answer_corpus as corpus

    d1 = corpus.D1_STUDY_GROUP + [corpus.D1_APART[0], "*" + corpus.D1_APART[0].upper() + "*"] + corpus.D1_APART[1:4]
    d2 = corpus.D2_STUDY_GROUP + [corpus.D2_APART[0], "  " + corpus.D2_APART[0].replace(" ", "\n")] + corpus.D2_APART[1:4]
    names = ["Ada Byron", "Ben Carter", "Cleo Diaz", "Dev Engel", "Eli Fox", "Fay Gold", "Gus Hale", "Ivy Jones",
             "Kim Lee", "Max Moss"]
    students = {}
    for number, name in enumerate(names):
        student = name.split()[0].lower()
        answers = (d1[number], d2[number]) if number < len(d1) else ("", "")
        students[student] = (name, *answers)
    return students


STUDY_CLASS = _study_class()
STUDY_GROUP = list(STUDY_CLASS)[:4]  # their D1 and D2 answers are near-copies of one another
SAME_PAIR = list(STUDY_CLASS)[4:6]  # their answers differ in formatting and case only


def save_as_another_ta(address, path, name, points, comment):
    """Another TA, in a browser of their own (an HTTP client with its own session), opens the marking page's
    ``address`` with its token, gives ``name``, and saves ``points`` and ``comment`` for the answer at ``path``."""
    import httpx

    base = address.split("/?")[0]
    with httpx.Client(base_url=base, follow_redirects=True, timeout=30) as other:
        other.get(address.replace(base, ""))
        page = other.get("/name?next=/").text
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        other.post("/name", data={"csrf": csrf, "name": name, "next": "/"})
        page = other.get(path).text
        fields = dict(re.findall(r'<input type="hidden" name="(csrf|version|answer)" value="([^"]*)">', page))
        saved = other.post(path, data={**fields, "points": points, "comment": comment, "go": "stay"})
        assert saved.status_code == 200 and "Saved answer" in saved.text, saved.text[-2000:]


def serve_marking(course):
    """Run ``python -m autograder mark`` on ``course`` as a TA starts it; yield ``(course, address with the token,
    printed lines)`` while it serves, then stop it with Ctrl+C and check it stopped cleanly.  Its rubrics start
    empty (``--no-starting-rubric``): the tests write their own, from the keyboard."""
    process = subprocess.Popen([sys.executable, "-m", "autograder", "mark", A, "--course-dir", str(course),
                                "--port", "0", "--no-starting-rubric"], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    lines = queue.Queue()
    reader = threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True)
    reader.start()
    printed, address, deadline = [], None, time.monotonic() + 60
    while address is None and time.monotonic() < deadline:
        try:
            line = lines.get(timeout=1)
        except queue.Empty:
            if process.poll() is not None:
                break
            continue
        printed.append(line)
        found = re.search(r"http://127\.0\.0\.1:\d+/\?token=\S+", line)
        address = found and found.group(0)
    if address is None:
        process.kill()
        raise AssertionError(f"python -m autograder mark printed no address:\n{''.join(printed)}{process.stderr.read()}")
    yield course, address, printed
    process.send_signal(signal.SIGINT)
    process.wait(timeout=30)
    reader.join(timeout=10)
    out = "".join(printed) + "".join(lines.get() for _ in range(lines.qsize()))
    assert process.returncode == 0 and "every saved mark is in the gradebook" in out, (process.returncode, out,
                                                                                        process.stderr.read())


def with_answers(release_nb, source_nb, d1, d2):
    """The model solution of ps2 with ``d1`` and ``d2`` as its written answers (None keeps the model's, "" the
    release's text)."""
    nb = correct_submission(release_nb, source_nb)
    released = {c.get("metadata", {}).get("nbgrader", {}).get("grade_id"): c.source for c in release_nb.cells}
    for cell in nb.cells:
        gid = cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")
        for question, text in ((D1, d1), (D2, d2)):
            if gid == question and text is not None:
                cell.source = text or released[gid]
    return nb


def graded_once(released_course, folder, students, untouched=None):
    """``folder`` with ps2 graded once per run for ``students`` (``{id: (name, D1, D2)}``) and, if given, one
    student who handed in the release untouched."""
    course, download, roster = folder / "course", folder / "download", folder / "roster.csv"

    def prepare():
        shutil.rmtree(course, ignore_errors=True)
        shutil.rmtree(download, ignore_errors=True)
        copy_course(released_course, course)
        release_nb, source_nb = notebooks_of(course, A)
        download.mkdir(parents=True)
        for student, (_, d1, d2) in students.items():
            nbformat.write(with_answers(release_nb, source_nb, d1, d2), str(download / f"{student}.ipynb"))
        people = [(s, name) for s, (name, _, _) in students.items()]
        if untouched:
            nbformat.write(release_nb, str(download / f"{untouched[0]}.ipynb"))
            people.append(untouched)
        roster.write_text("student_id,name,email\n" + "".join(f"{s},{name},{s}@example.edu\n" for s, name in people),
                          encoding="utf-8")

    run = run_once(folder, "grade", ["grade", A, download, "--course-dir", course, "--out", folder / "out",
                                     "--roster", roster, "--workers", 2], prepare=prepare)
    if run.returncode != 0:
        raise AssertionError(f"grading the marking tests' class failed (exit status {run.returncode}):\n{run.stdout}\n"
                             f"{run.stderr}")
    return folder
