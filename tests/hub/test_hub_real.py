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
import csv
import json
import os
import pwd
import shutil
import signal
import socket
import ssl
import stat
import threading
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
from tools.hub import CERTIFICATE_SCRIPT as HUB_CERTIFICATE_SCRIPT
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
    """The instructor's course directory (a copy of the released course); ps1_released releases ps1 into the hub."""
    return copy_course(released_course, tmp_path_factory.mktemp("course"))


@pytest.fixture(scope="module")
def ps1_released(hub, course):
    from autograder.commands.release import release_to_hub

    client = hub.client(hub.token("pcx-ian"))
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


def _command_lines(pids):
    """Each process's command line as ``ps`` shows it (``None`` once it has ended)."""
    lines = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                lines[pid] = handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            lines[pid] = None
    return lines


def _server_of(uid):
    """The process id of the server of ``uid`` (jupyterhub-singleuser)."""
    from perceptron_course.hub.leftovers import processes_of

    servers = [pid for pid, line in _command_lines(processes_of(uid)).items()
               if line and "jupyterhub-singleuser" in line]
    assert len(servers) == 1, f"uid {uid} runs these servers: {servers}"
    return servers[0]


def _process_limit_of_server(uid):
    """``(soft, hard)`` of ``Max processes`` for the server process of ``uid``."""
    with open(f"/proc/{_server_of(uid)}/limits", encoding="utf-8") as handle:
        (line,) = [line for line in handle if line.startswith("Max processes")]
    return tuple(line.split()[2:4])


def _memory_group_of_server(uid):
    """The memory control group of the server process of ``uid``, and that group's limit in bytes."""
    from perceptron_course.hub.student_limits import _memory_hierarchy_v1

    with open(f"/proc/{_server_of(uid)}/cgroup", encoding="utf-8") as handle:
        (group,) = [line.rstrip("\n").split(":", 2)[2] for line in handle if "memory" in line.split(":")[1]]
    own = _memory_hierarchy_v1()  # this test's group, which the hub it started shares
    with open("/proc/self/cgroup", encoding="utf-8") as handle:
        (mine,) = [line.rstrip("\n").split(":", 2)[2] for line in handle if "memory" in line.split(":")[1]]
    folder = own[:len(own) - len(mine.rstrip("/"))] + group
    with open(os.path.join(folder, "memory.limit_in_bytes"), encoding="utf-8") as handle:
        return group, int(handle.read())


def test_what_a_student_left_running_ends_with_her_server(hub):
    from perceptron_course.hub.leftovers import processes_of
    from perceptron_course.limits import Limits

    hub.start_server("pcx-bob")
    hub.start_server("pcx-tia")
    uids = {user: pwd.getpwnam(user).pw_uid for user in ("pcx-bob", "pcx-ann", "pcx-tia")}
    # A student's server runs under the students' process limit, which she cannot raise (hard as soft); a TA's,
    # who grades in it, does not.
    students = str(Limits().hub_student_processes)
    assert _process_limit_of_server(uids["pcx-bob"]) == (students, students)
    assert students not in _process_limit_of_server(uids["pcx-tia"])
    # And in a memory group of her own, held to the students' memory limit; a TA's is not.
    from perceptron_course.hub.student_limits import GROUP_FOLDER, MemoryGroupError, MemoryGroups
    try:
        MemoryGroups()
    except MemoryGroupError:
        pass  # no memory control groups on this machine: test_spawner.py skips, saying so
    else:
        group, limit = _memory_group_of_server(uids["pcx-bob"])
        assert group.endswith(f"/{GROUP_FOLDER}/pcx-bob") and limit == Limits().hub_student_memory_bytes, group
        assert GROUP_FOLDER not in _memory_group_of_server(uids["pcx-tia"])[0]
    hub.api("DELETE", "users/pcx-tia/server")
    # As her terminal would: one in a session of its own, one daemonized by a double fork under nohup;
    # another student and a TA each leave one too, which bob's stop must not touch (they are not hers: that
    # staff's own stops leave theirs alone is tested in test_leftovers.py).
    started = {"pcx-bob": {"setsid -f sleep 600": "sleep 600", "(nohup sleep 601 &) &": "sleep 601"},
               "pcx-ann": {"setsid -f sleep 602": "sleep 602"}, "pcx-tia": {"setsid -f sleep 603": "sleep 603"}}
    wanted = {user: set(commands.values()) for user, commands in started.items()}
    for user, commands in started.items():
        for command in commands:
            hub.run_as(user, ["sh", "-c", f"exec </dev/null >/dev/null 2>&1; {command}"], check=True)

    def sleeping(user):
        return {line for line in _command_lines(processes_of(uids[user])).values() if line and line.startswith("sleep")}

    # The double fork may not have reached its exec when runuser returns (and a scan of /proc can miss a
    # process that forks and exits while it reads): wait for every sleep by its command line.
    deadline = time.monotonic() + 15
    while any(sleeping(user) != wanted[user] for user in started) and time.monotonic() < deadline:
        time.sleep(0.1)
    for user in started:
        assert sleeping(user) == wanted[user], f"{user}'s processes: {_command_lines(processes_of(uids[user]))}"
    assert hub.api("GET", "users/pcx-bob")["servers"][""]["ready"], "bob's server should be running"
    try:
        hub.api("DELETE", "users/pcx-bob/server")
        deadline = time.monotonic() + 30
        while ((processes_of(uids["pcx-bob"]) or hub.api("GET", "users/pcx-bob").get("servers"))
               and time.monotonic() < deadline):
            time.sleep(0.2)
        left = _command_lines(processes_of(uids["pcx-bob"]))
        assert left == {}, f"bob's server stopped, but these of her processes still run: {left}"
        for user in ("pcx-ann", "pcx-tia"):
            assert sleeping(user) == wanted[user], f"bob's stop ended {user}'s processes"
    finally:
        for user in ("pcx-ann", "pcx-tia"):
            for pid, line in _command_lines(processes_of(uids[user])).items():
                if line in wanted[user]:
                    os.kill(pid, signal.SIGKILL)


@pytest.fixture(scope="module")
def chromium(tmp_path_factory):
    """Headless Chromium for the hub's pages: loopback only (anything else goes to a closed port)."""
    from tests.support.browser import chromium_driver

    driver = chromium_driver(tmp_path_factory.mktemp("hub-chromium"), page_load_seconds=90)
    yield driver
    driver.quit()


class Lab:
    """A student's JupyterLab in Chromium, driven as the student would: menus, the panel's buttons, the keyboard."""

    def __init__(self, driver, artifacts):
        from selenium.common.exceptions import StaleElementReferenceException
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver, self.artifacts = driver, artifacts
        # JupyterLab redraws its tabs and panels while it loads, so an element found in one poll can be gone
        # before its text is read: that poll counts as "not yet", not as a failure.
        self.wait = WebDriverWait(driver, 120, poll_frequency=0.5,
                                  ignored_exceptions=(StaleElementReferenceException,))

    def log_in(self, url, user, password):
        from selenium.webdriver.common.by import By

        self.driver.get(f"{url}/hub/login")
        self.driver.find_element(By.ID, "username_input").send_keys(user)
        self.driver.find_element(By.ID, "password_input").send_keys(password)
        self.driver.find_element(By.ID, "login_submit").click()
        self.wait.until(lambda d: self.menu_item("Nbgrader"))

    def menu_item(self, text, css=".lm-MenuBar-item"):
        from selenium.webdriver.common.by import By

        return next((e for e in self.driver.find_elements(By.CSS_SELECTOR, css) if e.text == text), None)

    def open_assignments(self):
        self.menu_item("Nbgrader").click()
        self.wait.until(lambda d: self.menu_item("Assignment List", ".lm-Menu-item")).click()

    def press(self, text, where="#nbgrader-assignment-list"):
        """Click the button labelled ``text`` (the panel redraws itself, so find and click in one step)."""
        return self.driver.execute_script(
            "const b = [...document.querySelectorAll(arguments[1] + ' button')]"
            ".find(b => b.textContent.trim() === arguments[0] && !b.disabled);"
            "if (b) { b.click(); return true; } return false;", text, where)

    def text_of(self, css):
        return self.driver.execute_script(
            "return [...document.querySelectorAll(arguments[0])].map(e => e.innerText).join('\\n');", css)

    def screenshot(self, name):
        self.driver.save_screenshot(str(self.artifacts / f"hub-{name}.png"))


@pytest.fixture(scope="module")
def zoe_lab(chromium, hub, repo_root):
    artifacts = repo_root / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    lab = Lab(chromium, artifacts)
    lab.log_in(hub.url, "pcx-zoe", hub.passwords["pcx-zoe"])
    return lab


def test_a_student_in_jupyterlab_fetches_edits_checks_validates_and_submits(hub, ps1_released, zoe_lab):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    lab = zoe_lab
    lab.open_assignments()
    lab.wait.until(lambda d: "ps1_hyperplanes" in lab.text_of("#released_assignments_list"))
    lab.screenshot("1-released")
    lab.wait.until(lambda d: lab.press("Fetch"))
    lab.wait.until(lambda d: "ps1_hyperplanes" in lab.text_of("#fetched_assignments_list"))
    path = os.path.join(home("pcx-zoe"), "perceptron", PS1, PS1_FILE)
    assert os.stat(path).st_uid == pwd.getpwnam("pcx-zoe").pw_uid
    # Her answers, from an earlier sitting; today she opens the notebook from the panel and edits it.
    solve_as(hub, "pcx-zoe", ps1_released)
    lab.driver.find_element(By.CSS_SELECTOR, "#fetched_assignments_list .assignment-notebooks-link").click()
    lab.wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#fetched_assignments_list .nested_list_item a"))
    lab.driver.find_element(By.CSS_SELECTOR, "#fetched_assignments_list .nested_list_item a").click()
    notebook = nbformat.read(path, as_version=4)
    lab.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel .jp-Cell")) == len(notebook.cells))
    lab.wait.until(lambda d: "Idle" in lab.text_of(".jp-StatusBar-Component, #jp-main-statusbar"))
    cells = lab.driver.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel .jp-Cell")
    answer = next(i for i, c in enumerate(notebook.cells)
                  if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution"))
    editor = cells[answer].find_element(By.CSS_SELECTOR, ".cm-content")
    lab.driver.execute_script("arguments[0].scrollIntoView()", editor)
    editor.click()
    editor.send_keys(Keys.CONTROL, Keys.END)
    editor.send_keys(Keys.ENTER, "# checked against the chapter's definition")
    editor.send_keys(Keys.ESCAPE)
    lab.driver.find_element(By.TAG_NAME, "body").send_keys(Keys.CONTROL, "s")
    lab.wait.until(lambda d: "# checked against the chapter's definition" in open(path, encoding="utf-8").read())
    # The check cell, the notebook's last: it checks the saved file as grading will.
    check = cells[-1].find_element(By.CSS_SELECTOR, ".cm-content")
    lab.driver.execute_script("arguments[0].scrollIntoView()", check)
    check.click()
    check.send_keys(Keys.SHIFT, Keys.ENTER)
    lab.wait.until(lambda d: "Ready to submit" in cells[-1].text)
    lab.screenshot("2-checked")
    # nbgrader's Validate, from the panel.
    lab.driver.find_element(By.CSS_SELECTOR, ".lm-TabBar-tab[data-id='nbgrader-assignment-list']").click()
    lab.wait.until(lambda d: lab.press("Validate"))
    lab.wait.until(lambda d: "passes all the tests" in lab.text_of(".jp-Dialog"))
    lab.screenshot("3-validated")
    lab.driver.find_element(By.CSS_SELECTOR, ".jp-Dialog").send_keys(Keys.ESCAPE)
    lab.wait.until(lambda d: lab.press("Submit"))
    lab.wait.until(lambda d: "ps1_hyperplanes" in lab.text_of("#submitted_assignments_list"))
    lab.screenshot("4-submitted")
    (record,) = hub.client(hub.token("pcx-ian")).submissions("perceptron", PS1, "pcx-zoe")
    with open(path, "rb") as handle:
        submitted = hub.client(hub.token("pcx-ian")).submission_files(
            "perceptron", PS1, "pcx-zoe", record["stamp"])
        assert {f.path: f.data for f in submitted}[PS1_FILE] == handle.read()


def test_a_student_who_tries_reaches_nothing_of_another(hub, ps1_released):
    ann = os.path.join(home("pcx-ann"), "perceptron", PS1, PS1_FILE)
    assert os.path.exists(ann), "runs after the student's journey, which left ann's submitted notebook"
    stamps = [r["stamp"] for r in hub.client(hub.token("pcx-ian")).submissions("perceptron", PS1,
                                                                                                      "pcx-ann")]
    assert stamps
    eve = hub.client(hub.token("pcx-eve"))

    # The file system: another's home, the exchange's store, the hub's state.
    # The instructor's home, where their clone (solutions, hidden checks, gradebook) and course folder live.
    for path in (ann, home("pcx-ann"), home("pcx-ian"), hub.site["exchange_store"], os.path.join(hub.state, "hub.json"),
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
            urllib.request.urlopen(request, timeout=120, context=ssl.create_default_context(cafile=hub.ca))
        assert info.value.code == status
    assert eve.submissions("perceptron", PS1) == []
    # Ann's submissions are all there, unchanged.
    ian = hub.client(hub.token("pcx-ian"))
    with open(ann, "rb") as handle:
        assert ian.submission_files("perceptron", PS1, "pcx-ann", stamps[-1])[0].data == handle.read()


def test_a_token_that_does_not_grant_access_to_the_exchange_is_refused(hub, ps1_released):
    narrow = hub.api("POST", "users/pcx-eve/tokens", {"scopes": ["read:users:name!user", "read:users:groups!user"],
                                                      "note": "no access to the exchange"})["token"]
    with pytest.raises(ExchangeClientError) as info:
        hub.client(narrow).courses()
    assert info.value.status == 403 and "access:services!service=course-exchange" in str(info.value)


def test_a_student_who_takes_the_exchanges_port_while_it_is_down_gets_no_token(hub, tmp_path):
    """The servers check the exchange's certificate before they send a token: an impostor listening where the
    exchange should be (any user can bind a free loopback port) sees a TLS handshake it cannot complete."""
    received = []
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]

    def impostor():
        listener.settimeout(20)
        try:
            connection, _ = listener.accept()
        except OSError:
            return
        # An impostor with a certificate of its own: the one the hub's environment would make for anyone.
        key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
        subprocess.run([f"{hub.prefix}/venv/bin/python", "-c", HUB_CERTIFICATE_SCRIPT, str(key), str(cert),
                        "127.0.0.1"], check=True)
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cert, key)
        try:
            with context.wrap_socket(connection, server_side=True) as tls:
                received.append(tls.recv(65536))
        except (ssl.SSLError, OSError):
            pass

    thread = threading.Thread(target=impostor)
    thread.start()
    with pytest.raises(ExchangeClientError) as info:
        ExchangeClient(f"https://127.0.0.1:{port}/services/course-exchange", hub.token("pcx-ann"), ca=hub.ca,
                       timeout=20).courses()
    thread.join(30)
    listener.close()
    assert "certificate" in str(info.value).lower() or "ssl" in str(info.value).lower(), str(info.value)
    assert not any(hub.token("pcx-ann").encode() in data for data in received)


@pytest.fixture(scope="module")
def graded(hub, ps1_released, tmp_path_factory):
    """The instructor's grade --from-hub and export, from a terminal of their server (their token, the hub's
    address of the exchange): ``(out, grade's process, export's process, the grades)``."""
    env = {**os.environ, "JUPYTERHUB_API_TOKEN": hub.token("pcx-ian"), "COURSE_EXCHANGE_URL": hub.exchange_url,
           "COURSE_EXCHANGE_CA": hub.ca}
    out = tmp_path_factory.mktemp("hub-grading") / "ps1"
    graded = subprocess.run([sys.executable, "-m", "autograder", "grade", PS1, "--from-hub", "--out", str(out),
                             "--course-dir", str(ps1_released)], capture_output=True, text=True, env=env, cwd=ROOT,
                            timeout=900)
    assert graded.returncode == 0, graded.stdout + graded.stderr
    # A TA marks the written answers (the CSV route), each with a comment, before the feedback goes back.
    sheet = out.parent / "marks.csv"
    mark = [sys.executable, "-m", "autograder", "mark", PS1, "--course-dir", str(ps1_released)]
    subprocess.run(mark + ["--to-csv", str(sheet)], check=True, capture_output=True, env=env, cwd=ROOT, timeout=300)
    with open(sheet, newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    for row in rows:
        row["points"], row["comment"] = row["max_points"], f"Clear and right, {row['student_id']}."
    with open(sheet, "w", newline="", encoding="utf-8-sig") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    marked = subprocess.run(mark + ["--from-csv", str(sheet)], capture_output=True, text=True, env=env, cwd=ROOT,
                            timeout=300)
    assert marked.returncode == 0, marked.stdout + marked.stderr
    exported = subprocess.run([sys.executable, "-m", "autograder", "export", str(out)],
                              capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert exported.returncode == 0, exported.stdout + exported.stderr
    return out, graded, exported, read_grades(out), env


def test_the_instructor_grades_from_the_hub_and_export_returns_the_feedback(hub, graded):
    out, grade_run, export_run, grades, env = graded
    assert "4 submission(s) of perceptron/ps1_hyperplanes from the hub's exchange" in grade_run.stdout
    for student in ("pcx-ann", "pcx-bob", "pcx-zoe"):
        assert grades[student]["status"] == "graded", grades[student]
    assert grades["pcx-eve"]["status"] == "missing"  # on the roster (the hub's group), submitted nothing
    assert "returned 3 feedback pages into the hub's course exchange" in export_run.stdout
    hub.nbgrader("pcx-ann", "fetch_feedback", "--course", "perceptron", PS1)
    folder = os.path.join(home("pcx-ann"), "perceptron", PS1, "feedback")
    (stamp,) = os.listdir(folder)  # the feedback of the graded (latest) of her two submissions
    with open(os.path.join(folder, stamp, f"{PS1}.html"), encoding="utf-8") as handle:
        page = handle.read()
    with open(out / "feedback" / "pcx-ann.html", encoding="utf-8") as handle:
        assert page == handle.read()  # the same page as the LMS routes give
    listed = hub.nbgrader("pcx-ann", "list", "--cached")
    lines = [line for line in (listed.stdout + listed.stderr).splitlines() if "perceptron pcx-ann" in line]
    assert len(lines) == 2 and "(feedback already fetched)" in lines[-1] and "(no feedback available)" in lines[0]
    # Export again: the same feedback, nothing new to fetch.
    again = subprocess.run([sys.executable, "-m", "autograder", "export", str(out)],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert again.returncode == 0, again.stdout + again.stderr
    listed = hub.nbgrader("pcx-ann", "list", "--cached")
    assert "(feedback already fetched)" in listed.stdout + listed.stderr


def test_the_instructors_own_nbgrader_commands_release_list_and_collect_through_the_exchange(hub, graded,
                                                                                             ps1_released):
    course = os.path.join(home("pcx-ian"), "course")
    subprocess.run(["runuser", "-u", "pcx-ian", "--", "mkdir", "-p", os.path.join(course, "release")], check=True)
    shutil.copytree(ps1_released / "release" / PS1, os.path.join(course, "release", PS1), dirs_exist_ok=True)
    shutil.copy(ps1_released / "nbgrader_config.py", os.path.join(course, "nbgrader_config.py"))
    subprocess.run(["chown", "-R", "pcx-ian:", course], check=True)

    def as_ian(*args, check=True):
        done = hub.run_as("pcx-ian", [f"{hub.prefix}/venv/bin/nbgrader", *args], cwd=course)
        assert done.returncode == 0 or not check, done.stdout + done.stderr
        return done.stdout + done.stderr

    refused = as_ian("release_assignment", "--course", "perceptron", PS1, check=False)
    assert "already released; use --force" in refused
    assert "Released as: perceptron ps1_hyperplanes" in as_ian("release_assignment", "--course", "perceptron",
                                                               PS1, "--force")
    inbound = as_ian("list", "--inbound", "--course", "perceptron")
    assert sum("perceptron pcx-ann ps1_hyperplanes" in line for line in inbound.splitlines()) == 2
    assert "Collected submission: pcx-ann" in as_ian("collect", "--course", "perceptron", PS1)
    assert "already exists" in as_ian("collect", "--course", "perceptron", PS1)
    collected = os.path.join(course, "submitted", "pcx-ann", PS1)
    with open(os.path.join(collected, "timestamp.txt")) as handle:
        assert handle.read().endswith(" UTC")
    assert os.stat(os.path.join(collected, PS1_FILE)).st_uid == pwd.getpwnam("pcx-ian").pw_uid
    # A student is none of this: her token cannot list what came in, nor collect it.
    denied = hub.nbgrader("pcx-eve", "list", "--inbound", "--course", "perceptron", check=False)
    assert "pcx-ann" not in denied.stdout + denied.stderr


def test_the_student_fetches_her_feedback_in_jupyterlab_and_reads_her_marks(hub, graded, zoe_lab):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    grades = graded[3]
    lab = zoe_lab
    lab.driver.find_element(By.CSS_SELECTOR, ".lm-TabBar-tab[data-id='nbgrader-assignment-list']").click()
    lab.driver.find_element(By.ID, "refresh_assignments_list").click()
    lab.wait.until(lambda d: lab.press("Fetch Feedback"))
    lab.wait.until(lambda d: "view feedback" in lab.text_of("#submitted_assignments_list").lower())
    lab.screenshot("5-feedback-fetched")
    # "(view feedback)" opens the feedback's folder in the file browser; the student opens the page there.
    next(a for a in lab.driver.find_elements(By.CSS_SELECTOR, "#submitted_assignments_list a")
         if "view feedback" in a.text.lower()).click()
    page_name = f"{PS1}.html"
    item = lab.wait.until(lambda d: next((e for e in d.find_elements(By.CSS_SELECTOR, ".jp-DirListing-item")
                                          if page_name in e.text), None))
    ActionChains(lab.driver).double_click(item).perform()
    frame = lab.wait.until(lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, ".jp-HTMLViewer iframe")), None))
    total = f"Total: {float(grades['pcx-zoe']['total']):g} / {float(grades['pcx-zoe']['total_max']):g}"
    lab.driver.switch_to.frame(frame)
    try:
        lab.wait.until(lambda d: total in d.find_element(By.TAG_NAME, "body").text)
        page = lab.driver.find_element(By.TAG_NAME, "body").text
        assert "Clear and right, pcx-zoe." in page  # the TA's comment on her written answers
        assert "still to be marked" not in page
    finally:
        lab.driver.switch_to.default_content()
    lab.screenshot("6-feedback-page")


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
    ian = hub.client(fresh)
    ian.release("load", "quiz", [File("quiz.ipynb", b"{}")])
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        tokens = dict(zip(names, pool.map(hub.token, names)))

    def submit(name):
        client = hub.client(tokens[name])
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
