"""Marking at scale: the TAs' marking page and ``export``, on a class of 1 000 with four written questions each.

The class is made without the sandbox (:mod:`tests.support.marking_scale`): nbgrader's own preprocessors
release a notebook with a code part and four written questions into a new gradebook, and each of the 1 000
results is recorded by the host's own ``record`` and ``finish_batch``, as ``grade`` records a judged result.
Most answers are written apart, a few are blank, about one student in twelve is in a study group of
near-copies, and 100 students hand in one answer to the first question that differs only in formatting.

The page is the application ``mark`` serves (``create_app(Marking(course, assignment, token=...))``), reached
through Starlette's test client as test_web.py reaches it: a TA opens the address with the token, gives a
name, and posts each form with the session's CSRF token.  Each step is timed from the request to the last
byte of the page that ends it, redirects followed, and the best of a few repetitions is kept:

* the overview, the first time after the server started and again;
* question B1's page (its answers and groups), the first time after the server started (once the overview,
  where the token's address lands, has been opened) and again;
* an answer's page, each repetition a different answer opened for the first time;
* a save with the next answer loaded: the answer's form posted with ``go=next``, and the next answer's page;
* the page of the group of 100, and its mark applied to its 100 answers (the group's form posted, and the
  question's page the save returns to).

The budget of every page and save is 200 ms on this machine; the baseline column holds it, so the ratio is
the share of the budget a step takes.  A page that reads nothing (the form that asks the TA's name) is
timed beside them as the floor of the framework and the test client.

Then every answer still unmarked is marked (rubric items and comments, as group saves write them) and
``python -m autograder export OUT`` is run on the folder the class's grade run wrote, in turn with the same
command on a class of 250 made the same way: the ratio is how export grows with the class (4 for linear).
Export's own work, its ``main`` called in this process, is timed the same way, without Python's start and
imports, which weigh on the smaller class.

``python -m tests.benchmarks.bench_marking [--quick] --profile`` makes the class, runs each step once more
under cProfile (every thread: the page's work runs in the server's threads) and prints where the time of
each step over the budget went.
"""

import contextlib
import cProfile
import io
import os
import pstats
import re
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from html.parser import HTMLParser
from pathlib import Path

from tests.support.marking_scale import A, QUESTIONS, make_class, mark_everything

with warnings.catch_warnings():
    # Starlette would rather its test client used the httpx2 fork; the project pins httpx, which it still takes.
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parents[2]
BUDGET = 0.200
TOKEN = "a-benchmark-token-that-nobody-else-knows"
SIZES = {False: (1000, 250), True: (100, 25)}  # the class, and the smaller class export is compared with
REPEATS = {False: 3, True: 2}
QUESTION = QUESTIONS[0][0]  # the question with the group of answers the same but for formatting
BENCH = "marking page"


# -- a TA's browser ------------------------------------------------------------------------------------------

class Forms(HTMLParser):
    """The fields of each form of a page, by its ``action``: ``(name, value)`` pairs, a checkbox only when ticked."""

    def __init__(self, page):
        super().__init__()
        self.forms, self._form, self._textarea = {}, None, None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "form":
            self._form = self.forms.setdefault(attrs.get("action"), [])
        elif tag == "input" and self._form is not None and attrs.get("name"):
            if attrs.get("type") != "checkbox" or "checked" in attrs:
                self._form.append((attrs["name"], attrs.get("value", "")))
        elif tag == "textarea" and self._form is not None:
            self._textarea = [attrs["name"], ""]

    def handle_data(self, data):
        if self._textarea is not None:
            self._textarea[1] += data

    def handle_endtag(self, tag):
        if tag == "form":
            self._form = None
        elif tag == "textarea" and self._textarea is not None:
            self._form.append(tuple(self._textarea))
            self._textarea = None


def form_data(page, action, **values):
    """The fields of the form posting to ``action`` as the test client posts them, with ``values`` typed in."""
    fields = Forms(page).forms.get(action)
    if fields is None:
        raise AssertionError(f"the page has no form posting to {action}")
    data = {}
    for name, value in fields:
        data.setdefault(name, []).append(value)
    data = {name: found[0] if len(found) == 1 else found for name, found in data.items()}
    data.update(values)
    return data


def flash(page):
    found = re.search(r'id="status"[^>]*>([^<]*)<', page)
    return found.group(1) if found else ""


class Marker:
    """A TA's browser on one marking server: logged in with the token, named, with its own cookies."""

    def __init__(self, app, name="Bench TA", cookies=None):
        self._context = TestClient(app, cookies=cookies)
        self.client = self._context.__enter__()
        if cookies is None:
            landed = self.client.get(f"/?token={TOKEN}", follow_redirects=False)  # the cookie, not the overview
            assert landed.status_code == 303, landed.text[:500]
            page = self.client.get("/name?next=/")
            named = self.client.post("/name", data=form_data(page.text, "/name", name=name), follow_redirects=False)
            assert named.status_code == 303, named.text[:500]

    def close(self):
        self._context.__exit__(None, None, None)

    def get(self, path):
        response = self.client.get(path)
        assert response.status_code == 200, (path, response.status_code, response.text[:2000])
        return response.text

    def post(self, path, data):
        response = self.client.post(path, data=data)
        assert response.status_code == 200, (path, response.status_code, response.text[:2000])
        return response.text


# -- the steps ---------------------------------------------------------------------------------------------

class Server:
    """A marking server on the course, started afresh by :meth:`restart`, with one TA's browser on it."""

    def __init__(self, course):
        self.course = course
        self.marking = self.marker = None
        self.restart()

    def restart(self):
        """Start as ``mark`` does: every answer read and grouped before the first page (``Marking.warm``); its
        time is kept in :attr:`started`."""
        from autograder.marking.web import Marking, create_app, find_mathjax

        self.close()
        self.marking = Marking(self.course, A, token=TOKEN, mathjax=find_mathjax())
        begun = time.perf_counter()
        self.marking.warm()
        self.started = time.perf_counter() - begun
        self.app = create_app(self.marking)
        self.marker = Marker(self.app)

    def close(self):
        if self.marker is not None:
            self.marker.close()
        if self.marking is not None:
            self.marking.close()

    def question_state(self):
        states = self.marking.with_gradebook(self.marking.state)
        return next(state for state in states if state.key == (A, QUESTION))


def q_path(*rest):
    return "/".join(["", "q", A, QUESTION, *rest])


def steps(server, same_group):
    """``[(case, prepare, act)]``: each step of a TA's work; ``prepare()`` (not timed) sets it up and ``act()``
    (timed) does it and checks the page it ends on."""
    marker = lambda: server.marker
    answers = []  # the answers opened alone, in the list's order, none of the group of 100
    chain = {}  # the page of the answer the last save loaded, whose form the next save posts

    def to_open():
        if not answers:
            grouped = set(same_group)
            answers.extend(row.key for row in server.question_state().rows
                           if not row.done and not row.mark.blank and row.student_id not in grouped)
        return answers.pop(0)

    def fresh_start(then_overview):
        def prepare():
            server.restart()
            if then_overview:
                marker().get("/")
        return prepare

    def open_answer():
        key = to_open()
        page = marker().get(q_path("a", key))
        assert "mark-form" in page, "the answer's page has no mark form"

    def saved_form():
        if "page" not in chain:
            key = to_open()
            chain["page"], chain["key"] = marker().get(q_path("a", key)), key

    def save_next():
        page, key = chain.pop("page"), chain.pop("key")
        after = marker().post(q_path("a", key), form_data(page, q_path("a", key), points="1.5", go="next",
                                                          comment="Right on A and B; C needs a reason."))
        said = flash(after)
        assert said.startswith("Saved answer") and "is the next to mark" in said, said
        following = re.search(r'<form method="post" id="mark-form" action="([^"]+)"', after).group(1)
        chain["page"], chain["key"] = after, following.rsplit("/", 1)[1]
        if chain["key"] in answers:
            answers.remove(chain["key"])

    group = {}

    def find_group():
        if "path" not in group:
            page = marker().get(q_path())
            first = re.search(r'href="(/q/[^"]+/g/[^"#]+)">Group 1</a>', page).group(1)
            group["path"] = first
        return group["path"]

    def open_group():
        page = marker().get(find_group())
        members = len(re.findall(r'name="member"', page))
        assert members == len(same_group), f"group 1 has {members} answers, not the {len(same_group)} expected"

    marks = iter([("2", "Complete: both parts placed, with reasons."), ("1", "Only the first part has a reason.")] * 10)

    def group_form():
        group["page"] = marker().get(find_group())

    def save_group():
        points, comment = next(marks)
        path = find_group()
        after = marker().post(path, form_data(group.pop("page"), path, points=points, comment=comment))
        said = flash(after)
        assert said.startswith(f"Marked group 1 ({len(same_group)} answers)") and \
            f"{len(same_group)} marks changed" in said, said

    size = len(same_group)
    nothing = lambda: None
    return [
        ("a page that reads nothing (the name form)", nothing, lambda: marker().get("/name")),
        ("the overview, first open after the server started", fresh_start(False), lambda: marker().get("/")),
        ("the overview, again", nothing, lambda: marker().get("/")),
        ("question B1's answers and groups, first open after start", fresh_start(True),
         lambda: marker().get(q_path())),
        ("question B1's answers and groups, again", nothing, lambda: marker().get(q_path())),
        ("an answer, first open", nothing, open_answer),
        ("save, with the next answer loaded", saved_form, save_next),
        (f"the group of {size}, its page", nothing, open_group),
        (f"the group of {size}, its mark applied to all {size}", group_form, save_group),
    ]


def time_steps(server, same_group, repeats):
    """``{case: best seconds}`` of each step, each repeated ``repeats`` times in a row."""
    best = {}
    for case, prepare, act in steps(server, same_group):
        act_times = []
        for _ in range(repeats):
            prepare()
            start = time.perf_counter()
            act()
            act_times.append(time.perf_counter() - start)
        best[case] = min(act_times)
    return best


# -- export --------------------------------------------------------------------------------------------------

def export(out):
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "autograder", "export", out], cwd=ROOT, capture_output=True,
                          text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"python -m autograder export {out} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return elapsed


def export_in_process(out):
    """``export``'s own work, without starting Python and importing: its ``main`` called in this process."""
    from autograder.commands import export as export_command

    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()) as said:
        status = export_command.main([out])
    elapsed = time.perf_counter() - start
    if status != 0:
        raise RuntimeError(f"export of {out} ended with {status}:\n{said.getvalue()[-3000:]}")
    return elapsed


def race(first, second, repeats):
    """The best time of each of two jobs, run in turn ``repeats`` times (so a busy spell of a shared machine
    falls on both)."""
    times = [(first(), second()) for _ in range(repeats)]
    return min(t for t, _ in times), min(t for _, t in times)


# -- the benchmark -------------------------------------------------------------------------------------------

def _note(seconds):
    return f"{seconds * 1000:.0f} ms of the 200 ms budget: {'met' if seconds <= BUDGET else 'MISSED'}"


def run(quick=False):
    size, small = SIZES[quick]
    repeats = REPEATS[quick]
    with tempfile.TemporaryDirectory(prefix="bench-marking-") as tmp:
        print(f"marking: making a class of {size} ...", file=sys.stderr, flush=True)
        made = make_class(os.path.join(tmp, "class"), size)
        server = Server(made.course)
        try:
            started = server.started
            times = time_steps(server, made.same_group, repeats)
        finally:
            server.close()
        rows = [(BENCH, f"{case} ({size} submissions x 4 questions)", seconds, "budget", BUDGET, _note(seconds))
                for case, seconds in times.items()]
        rows.append((BENCH, f"start-up: every answer read and grouped before the address is printed ({size} "
                            "submissions x 4 questions)", started, "-", None, "once per start; no page waits for it"))

        print("marking: marking every answer left, then export ...", file=sys.stderr, flush=True)
        mark_everything(made.course)
        smaller = make_class(os.path.join(tmp, "smaller"), small, seed=1)
        mark_everything(smaller.course)
        large, little = race(lambda: export(made.out), lambda: export(smaller.out), repeats)
        large_work, little_work = race(lambda: export_in_process(made.out), lambda: export_in_process(smaller.out),
                                       repeats)
    for case, ours, theirs in (
            (f"python -m autograder export, {size} submissions, every written answer marked", large, little),
            (f"export's work alone (its main in process), {size} submissions", large_work, little_work)):
        rows.append(("export", case, ours, f"the same, {small} submissions", theirs,
                     f"x{ours / theirs:.2f} for x{size / small:g} the class (linear: x{size / small:g})"))
    return rows


def summarize(rows):
    """Which pages and saves met the budget, and how export grows."""
    pages = [row for row in rows if row[0] == BENCH and not row[1].startswith(("a page that reads nothing", "start-up"))]
    met = [row[1].rsplit(" (", 1)[0] for row in pages if row[2] <= BUDGET]
    missed = [f"{row[1].rsplit(' (', 1)[0]} ({row[2] * 1000:.0f} ms)" for row in pages if row[2] > BUDGET]
    lines = [f"marking page, budget 200 ms per page and save: {len(met)} of {len(pages)} met it"
             + (f": {'; '.join(met)}" if met else "") + "."]
    if missed:
        lines.append(f"marking page, over the budget: {'; '.join(missed)}.")
    for bench, case, ours, _, theirs, *_ in rows:
        if bench == "export":
            growth = ours / theirs
            verdict = ("faster than the class" if growth > 4.4 else "in proportion to the class" if growth >= 3.6
                       else "slower than the class (a fixed cost weighs on the smaller one)")
            lines.append(f"{case.split(',')[0]}: x{growth:.2f} from the smaller class to the one 4 times its size "
                         f"(linear: x4), it grows {verdict}.")
    return lines


# -- where the time goes -----------------------------------------------------------------------------------

@contextlib.contextmanager
def profiled_threads():
    """cProfile in this thread and in every thread started inside the block (the test client's event loop and
    its worker threads, where the page's work runs); yields a list that holds the merged ``pstats.Stats`` after."""
    profiles, lock = [], threading.Lock()

    def start_in_thread(frame, event, arg):
        profile = cProfile.Profile()
        with lock:
            profiles.append(profile)
        profile.enable()  # replaces this hook in the thread

    here = cProfile.Profile()
    result = []
    threading.setprofile(start_in_thread)
    here.enable()
    try:
        yield result
    finally:
        here.disable()
        threading.setprofile(None)
        stats = pstats.Stats(here)
        for profile in profiles:
            with contextlib.suppress(TypeError, ValueError):
                stats.add(profile)
        result.append(stats)


def profile(quick=False, top=25):
    """Each step over the budget, run once more under cProfile: its top functions by cumulative time."""
    size, _ = SIZES[quick]
    with tempfile.TemporaryDirectory(prefix="bench-marking-profile-") as tmp:
        made = make_class(os.path.join(tmp, "class"), size)
        server = Server(made.course)
        try:
            for case, prepare, act in steps(server, made.same_group):
                prepare()
                start = time.perf_counter()
                act()
                seconds = time.perf_counter() - start
                if seconds <= BUDGET:
                    print(f"{case}: {seconds * 1000:.0f} ms, within the budget")
                    continue
                prepare()
                cookies = server.marker.client.cookies
                server.marker.close()  # a new client, so its server threads start under the profiler
                with profiled_threads() as found:
                    server.marker = Marker(server.app, cookies=cookies)
                    start = time.perf_counter()
                    act()
                    seconds = time.perf_counter() - start
                    server.marker.close()  # its threads end, and with them their profiles
                server.marker = Marker(server.app, cookies=cookies)
                text = io.StringIO()
                stats = found[0]
                stats.stream = text
                # The project's own functions by cumulative time (the server's threads spend the rest waiting),
                # then every function by its own time, waiting left out.
                stats.sort_stats("cumulative").print_stats(r"/autograder/", top)
                stats.sort_stats("tottime").print_stats(r"^(?!.*(acquire|poll|select|wait)\b)", top // 2)
                print(f"\n=== {case}: {seconds * 1000:.0f} ms under the profiler ===\n{text.getvalue()}")
        finally:
            server.close()


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.bench_marking",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--profile", action="store_true", help="profile each step over the budget instead")
    args = parser.parse_args()
    if args.profile:
        profile(quick=args.quick)
    else:
        from tests.benchmarks.__main__ import format_table

        found = run(quick=args.quick)
        print(format_table(found))
        print("\n".join(summarize(found)))
