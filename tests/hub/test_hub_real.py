"""The course on a real JupyterHub: real Linux users, the hub's proxy and PAM, nbgrader's own commands and panel.

One hub (tests/hub/real_hub.py) serves the module.  Students act as
themselves: their commands run as their Linux user with the token the hub
gives their server, through nbgrader's unchanged command line and the
Assignments panel's own server API.  Then a student who tries tries to reach
another's work, and the instructor's ``grade --from-hub`` and ``export``
still find every honest submission.  Runs as root (CI does); the hub's
environment is built by ``make hub-env`` (``make test`` builds it).
"""

import base64
import concurrent.futures
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import time
import urllib.error
import urllib.request

import nbformat
import pytest

from perceptron_course.hub.client import ExchangeClient, ExchangeClientError
from perceptron_course.hub.transfer import File
from tests.hub.real_hub import SERVER_SCOPES, Hub, environment_ready
from tests.support import ROOT
from tests.support.grading import read_grades, solved_release
from tests.support.released import copy_course

pytestmark = pytest.mark.slow
PS1 = "ps1_hyperplanes"
PS1_FILE = f"{PS1}.ipynb"


@pytest.fixture(scope="module")
def hub():
    if os.geteuid() != 0:
        pytest.skip("the hub's tests make Linux users and run the hub as root, as a hub's administrator does")
    if not environment_ready():
        pytest.fail("the hub's environment is not built: run make hub-env (make test builds it)", pytrace=False)
    running = Hub()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def course(released_course, tmp_path_factory):
    """The instructor's course directory (a copy of the released course), with ps1 released into the hub."""
    from autograder.commands.release import release_to_hub

    return copy_course(released_course, tmp_path_factory.mktemp("course"))


@pytest.fixture(scope="module")
def ps1_released(hub, course):
    from autograder.commands.release import release_to_hub

    client = ExchangeClient(hub.exchange_url, hub.token("pcx-ian"))
    line = release_to_hub(PS1, str(course / "release" / PS1), str(course), client=client)
    assert "released into the hub's exchange as perceptron/ps1_hyperplanes" in line
    client.release("perceptron-b", "week1", [File("week1.ipynb", nbformat.writes(nbformat.v4.new_notebook()).encode())])
    return course


def home(user):
    return pwd.getpwnam(user).pw_dir


def solve_as(hub, user, course):
    """``user`` fills in their fetched notebook (as themselves), with the model solution."""
    path = os.path.join(home(user), "perceptron", PS1, PS1_FILE)
    nb = solved_release(course, PS1)
    nb.cells[0].source += f"\n\n(Submitted by {user}.)"
    subprocess.run(["runuser", "-u", user, "--", "tee", path], input=nbformat.writes(nb), text=True,
                   capture_output=True, check=True)
    return path


def test_homes_the_store_and_the_hubs_state_are_private(hub):
    for user in hub.passwords:
        assert stat.S_IMODE(os.stat(home(user)).st_mode) == 0o700, user
    assert stat.S_IMODE(os.stat(hub.state).st_mode) == 0o700
    store = hub.site["exchange_store"]
    assert stat.S_IMODE(os.stat(store).st_mode) == 0o700
    assert os.stat(store).st_uid == pwd.getpwnam("course-exchange").pw_uid
    # The exchange runs as its own user, not as root or the hub.
    found = subprocess.run(["pgrep", "-u", "course-exchange", "-f", "perceptron_course.hub.service"],
                           capture_output=True, text=True)
    assert found.stdout.strip(), "the exchange does not run as the user course-exchange"
    as_root = subprocess.run(["pgrep", "-u", "root", "-f", "perceptron_course.hub.service --store "
                              + hub.site["exchange_store"]], capture_output=True, text=True)
    assert not as_root.stdout.strip()


def test_a_student_fetches_checks_validates_and_submits_with_nbgraders_own_commands(hub, ps1_released):
    listed = hub.nbgrader("pcx-ann", "list")
    assert "perceptron ps1_hyperplanes" in listed.stdout + listed.stderr
    hub.nbgrader("pcx-ann", "fetch_assignment", "--course", "perceptron", PS1)
    fetched = os.path.join(home("pcx-ann"), "perceptron", PS1, PS1_FILE)
    assert os.stat(fetched).st_uid == pwd.getpwnam("pcx-ann").pw_uid
    again = hub.nbgrader("pcx-ann", "fetch_assignment", "--course", "perceptron", PS1, check=False)
    assert again.returncode != 0 and "already have a copy" in again.stdout + again.stderr
    solve_as(hub, "pcx-ann", ps1_released)
    validated = hub.nbgrader("pcx-ann", "validate", fetched)
    assert "Success! Your notebook passes all the tests." in validated.stdout, validated.stdout
    checked = hub.run_as("pcx-ann", [f"{hub.prefix}/venv/bin/perceptron-check", fetched], timeout=300)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    first = hub.nbgrader("pcx-ann", "submit", "--course", "perceptron", PS1)
    second = hub.nbgrader("pcx-ann", "submit", "--course", "perceptron", PS1)
    assert "Submitted as: perceptron ps1_hyperplanes" in first.stdout + first.stderr
    cached = hub.nbgrader("pcx-ann", "list", "--cached")
    times = [line for line in (cached.stdout + cached.stderr).splitlines() if "perceptron pcx-ann ps1_hyperplanes" in line]
    assert len(times) == 2, cached.stdout + cached.stderr


def test_the_assignments_panel_lists_fetches_and_submits_each_course_apart(hub, ps1_released):
    server = hub.start_server("pcx-bob")
    token = hub.token("pcx-bob")

    def panel(method, path, body=None):
        request = urllib.request.Request(f"{server}{path}", method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Authorization": f"token {token}",
                                                  "Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.loads(response.read())

    courses = panel("GET", "courses")
    assert courses == {"success": True, "value": ["perceptron", "perceptron-b"]}
    listing = panel("GET", "assignments?course_id=perceptron")
    assert listing["success"], listing
    assert [(a["assignment_id"], a["status"]) for a in listing["value"]] == [(PS1, "released")]
    fetched = panel("POST", "assignments/fetch", {"course_id": "perceptron", "assignment_id": PS1})
    assert [(a["assignment_id"], a["status"]) for a in fetched["value"]] == [(PS1, "fetched")]
    panel("POST", "assignments/fetch", {"course_id": "perceptron-b", "assignment_id": "week1"})
    # Each course's work in a folder of its own.
    assert os.path.isfile(os.path.join(home("pcx-bob"), "perceptron", PS1, PS1_FILE))
    assert os.path.isfile(os.path.join(home("pcx-bob"), "perceptron-b", "week1", "week1.ipynb"))
    solve_as(hub, "pcx-bob", ps1_released)
    submitted = panel("POST", "assignments/submit", {"course_id": "perceptron", "assignment_id": PS1})
    assert submitted["success"], submitted
    kinds = [(a["assignment_id"], a["status"]) for a in submitted["value"]]
    assert (PS1, "submitted") in kinds and (PS1, "fetched") in kinds
    other = panel("GET", "assignments?course_id=perceptron-b")
    assert [(a["course_id"], a["assignment_id"]) for a in other["value"]] == [("perceptron-b", "week1")]


def test_a_student_who_tries_reaches_nothing_of_another(hub, ps1_released):
    ann = os.path.join(home("pcx-ann"), "perceptron", PS1, PS1_FILE)
    assert os.path.exists(ann), "runs after the student's journey, which left ann's submitted notebook"
    stamps = [r["stamp"] for r in ExchangeClient(hub.exchange_url, hub.token("pcx-ian")).submissions("perceptron", PS1,
                                                                                                      "pcx-ann")]
    assert stamps
    eve = ExchangeClient(hub.exchange_url, hub.token("pcx-eve"))

    # The file system: another's home, the exchange's store, the hub's state.
    for path in (ann, home("pcx-ann"), hub.site["exchange_store"], os.path.join(hub.state, "hub.json"),
                 os.path.join(hub.state, "jupyterhub.sqlite"),
                 os.path.join(hub.site["exchange_store"], "perceptron", "submissions", PS1, "pcx-ann")):
        tried = hub.run_as("pcx-eve", ["ls", "-la", path])
        assert tried.returncode != 0 and "Permission denied" in tried.stderr, (path, tried.stdout)
    # The exchange, with her own token: another's submissions, feedback, a course she is not in, staff's verbs.
    def refused(call, status):
        with pytest.raises(ExchangeClientError) as info:
            call()
        assert info.value.status == status, str(info.value)

    assert eve.submissions("perceptron", PS1) == []
    refused(lambda: eve.submissions("perceptron", PS1, "pcx-ann"), 403)
    for stamp in stamps + ["20260101T000000.000000Z"]:
        refused(lambda: eve.submission_files("perceptron", PS1, "pcx-ann", stamp), 403)
        refused(lambda: eve.feedback_files("perceptron", PS1, "pcx-ann", stamp), 403)
        refused(lambda: eve.give_feedback("perceptron", PS1, "pcx-ann", stamp, [File("x.html", b"0/10")]), 403)
    refused(lambda: eve.submit("perceptron-b", "week1", [File("week1.ipynb", b"{}")]), 403)
    refused(lambda: eve.release("perceptron", PS1, [File(PS1_FILE, b"{}")]), 403)
    refused(lambda: eve.unrelease("perceptron", PS1), 403)
    refused(lambda: eve.roster("perceptron"), 403)
    # The hub itself: make herself an instructor, read another's server or user.
    for method, path, body in (("POST", "groups/course-perceptron-instructors/users", {"users": ["pcx-eve"]}),
                               ("GET", "users/pcx-ann", None), ("POST", "users/pcx-eve/tokens", {"scopes": ["admin:users"]})):
        with pytest.raises(urllib.error.HTTPError) as info:
            hub.api(method, path, body, token=hub.token("pcx-eve"))
        assert info.value.code in (403, 404), (path, info.value.code)
    # Submitting a link to another's notebook, or to a secret: refused on her side, nothing sent.
    hub.nbgrader("pcx-eve", "fetch_assignment", "--course", "perceptron", PS1)
    mine = os.path.join(home("pcx-eve"), "perceptron", PS1)
    for target in (ann, "/etc/shadow"):
        link = os.path.join(mine, "extra.txt")
        if os.path.lexists(link):
            os.unlink(link)
        subprocess.run(["runuser", "-u", "pcx-eve", "--", "ln", "-s", target, link], check=True)
        tried = hub.nbgrader("pcx-eve", "submit", "--course", "perceptron", PS1, check=False)
        assert tried.returncode != 0 and "extra.txt is a symbolic link" in tried.stdout + tried.stderr
    os.unlink(os.path.join(mine, "extra.txt"))
    # A hand-made request naming a path outside the folder, and one over the size limit.
    for body, status in (({"files": [{"path": "../../pcx-ann/x", "content": ""}]}, 400),
                         ({"files": [{"path": "big.ipynb", "content": base64.b64encode(b"0" * (51 * 2**20)).decode()}]},
                          413)):
        request = urllib.request.Request(f"{hub.exchange_url}/api/submissions/perceptron/{PS1}", method="POST",
                                         data=json.dumps(body).encode(),
                                         headers={"Authorization": f"token {hub.token('pcx-eve')}"})
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=120)
        assert info.value.code == status
    assert eve.submissions("perceptron", PS1) == []
    # Ann's submissions are all there, unchanged.
    ian = ExchangeClient(hub.exchange_url, hub.token("pcx-ian"))
    with open(ann, "rb") as handle:
        assert ian.submission_files("perceptron", PS1, "pcx-ann", stamps[-1])[0].data == handle.read()


def test_the_instructor_grades_from_the_hub_and_export_returns_the_feedback(hub, ps1_released, tmp_path):
    env = {**os.environ, "JUPYTERHUB_API_TOKEN": hub.token("pcx-ian"), "COURSE_EXCHANGE_URL": hub.exchange_url}
    out = tmp_path / "graded"
    graded = subprocess.run([sys.executable, "-m", "autograder", "grade", PS1, "--from-hub", "--out", str(out),
                             "--course-dir", str(ps1_released)], capture_output=True, text=True, env=env, cwd=ROOT,
                            timeout=900)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    assert "from the hub's exchange" in graded.stdout
    grades = read_grades(out)
    assert grades["pcx-ann"]["status"] == "graded" and grades["pcx-bob"]["status"] == "graded"
    assert grades["pcx-eve"]["status"] == "missing"  # on the roster (the hub's group), submitted nothing
    exported = subprocess.run([sys.executable, "-m", "autograder", "export", str(out), "--allow-unmarked"],
                              capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert exported.returncode == 0, exported.stdout + exported.stderr
    assert "returned 2 feedback pages into the hub's course exchange" in exported.stdout
    hub.nbgrader("pcx-ann", "fetch_feedback", "--course", "perceptron", PS1)
    folder = os.path.join(home("pcx-ann"), "perceptron", PS1, "feedback")
    (stamp,) = os.listdir(folder)  # the feedback of the graded (latest) submission
    with open(os.path.join(folder, stamp, f"{PS1}.html"), encoding="utf-8") as handle:
        page = handle.read()
    with open(out / "feedback" / "pcx-ann.html", encoding="utf-8") as handle:
        assert page == handle.read()  # the same page as the LMS routes give
    assert f"{float(grades['pcx-ann']['total']):g}" in page
    listed = hub.nbgrader("pcx-ann", "list", "--cached")
    lines = [line for line in (listed.stdout + listed.stderr).splitlines() if "perceptron pcx-ann" in line]
    assert len(lines) == 2 and "(feedback already fetched)" in lines[-1] and "(no feedback available)" in lines[0]
    # Export again: the same feedback, nothing new to fetch.
    again = subprocess.run([sys.executable, "-m", "autograder", "export", str(out), "--allow-unmarked"],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert again.returncode == 0, again.stdout + again.stderr
    listed = hub.nbgrader("pcx-ann", "list", "--cached")
    assert "(feedback already fetched)" in listed.stdout + listed.stderr


def test_three_hundred_students_submit_within_a_minute_and_none_is_lost_or_mixed(hub, ps1_released):
    names = [f"pcx-load{i:03d}" for i in range(300)]
    # PAM's hub knows Linux users only: 300 of them, without homes (they never start a server), made once.
    for name in names:
        try:
            pwd.getpwnam(name)
        except KeyError:
            subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", name], check=True)
    hub.api("POST", "users", {"usernames": names})
    hub.api("POST", "groups/course-load-students", {"users": names})
    hub.api("POST", "groups/course-load-instructors", {"users": ["pcx-ian"]})
    # A new token: the exchange keeps the hub's answer about a token (and so its groups) for 10 seconds.
    fresh = hub.api("POST", "users/pcx-ian/tokens", {"scopes": SERVER_SCOPES, "note": "load"})["token"]
    ian = ExchangeClient(hub.exchange_url, fresh)
    ian.release("load", "quiz", [File("quiz.ipynb", b"{}")])
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        tokens = dict(zip(names, pool.map(hub.token, names)))

    def submit(name):
        client = ExchangeClient(hub.exchange_url, tokens[name])
        return client.submit("load", "quiz", [File("quiz.ipynb", f"answer of {name}".encode())])

    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(32) as pool:
        records = list(pool.map(submit, names))
    seconds = time.monotonic() - started
    assert seconds < 60, f"300 submissions took {seconds:.1f} s"
    assert sorted(r["student"] for r in records) == names
    kept = ian.submissions("load", "quiz")
    assert len(kept) == 300 and sorted(r["student"] for r in kept) == names
    for record in kept[::37]:
        files = ian.submission_files("load", "quiz", record["student"], record["stamp"])
        assert files[0].data == f"answer of {record['student']}".encode()
