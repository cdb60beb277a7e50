"""The classes the marking page's tests mark: ps2's two written questions and five students, each with their
name and written answers, and a class of ten with a study group (the fixtures in
``tests/grader/marking/conftest.py`` grade them); how the tests read the marks given, and how they start the
marking server as a TA does."""

import queue
import re
import signal
import subprocess
import sys
import threading
import time

from autograder.outputs.gradebook import open_gradebook, written_marks
from tests.support import ROOT

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
