"""From the book into the hub: a real student follows the book's nbgitpuller links on a real JupyterHub.

The hub is tests/hub/real_hub.py's (PAM, real Linux users, servers started as their users) with a student
of its own, so that it runs beside test_hub_real.py's users without touching them. The public edition that
``publish`` writes is committed to a git repository and served on loopback by git's own smart HTTP server
(``git http-backend``, behind a small HTTP server here), as GitHub serves the real one. The links are the
book's own (``book/_ext/course_hub.py``). Chromium plays the student: a click before logging in goes
through the hub's login page; nbgitpuller clones the edition into the student's home, owned by the
student; the student edits the assignment in JupyterLab; the instructor publishes a correction; the same
link again keeps the student's edit and brings the correction in.

The hub runs as a department's does, with each user's server on a subdomain of its own
(``subdomain_host``: the hub at ``http://hub.localhost:<port>``, the student at
``http://pcx-noa.hub.localhost:<port>/user/pcx-noa/``; Chromium resolves ``*.localhost`` to loopback by
itself). So the module also checks what the subdomains are for: a page the student's server serves (a
notebook she trusted, an HTML file in her home), opened by the instructor, cannot read the instructor's
server.
"""

from __future__ import annotations

import glob
import json
import os
import pwd
import shutil
import stat
import subprocess
import re
import secrets
import threading
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

import nbformat
import pytest

from autograder.commands import publish
from tests.hub.real_hub import Hub, environment_ready
from tests.hub.test_hub_real import Lab, chromium  # noqa: F401  (chromium is a fixture)
from tests.support import REPO_ROOT
from tests.support.book import book_module

pytestmark = pytest.mark.slow
course_hub = book_module("_ext/course_hub.py")
STUDENT = "pcx-noa"
INSTRUCTOR = "pcx-ida"  # and one of the hub's administrators, who may open a student's server
COURSES = {"perceptron": {"students": [STUDENT], "tas": [], "instructors": [INSTRUCTOR]}}
EDITION = "perceptron-course-public"  # the public repository's name, and the folder it is cloned into
ASSIGNMENT = "ps1_hyperplanes"
CHAPTER = "book/hyperplanes"
EDIT = "# my own note, kept across pulls"
CORRECTION = " (corrected)"


# --- git's smart HTTP server on loopback ------------------------------------------------------------

class GitBackend(BaseHTTPRequestHandler):
    """Hands each request to ``git http-backend`` (CGI), which serves the bare repositories of ``root``."""

    def __init__(self, root, *args, **kwargs):
        self.root = root
        super().__init__(*args, **kwargs)

    def log_message(self, *args):  # the test's output stays readable
        pass

    def body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0], 16)
                chunk = self.rfile.read(size + 2)[:size]
                if not size:
                    return data
                data += chunk
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def serve(self):
        path, _, query = self.path.partition("?")
        body = self.body()
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_PROJECT_ROOT": str(self.root),
               "GIT_HTTP_EXPORT_ALL": "1", "PATH_INFO": unquote(path), "QUERY_STRING": query,
               "REQUEST_METHOD": self.command, "CONTENT_TYPE": self.headers.get("Content-Type", ""),
               "CONTENT_LENGTH": str(len(body)), "REMOTE_ADDR": self.client_address[0],
               "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
               "GIT_PROTOCOL": self.headers.get("Git-Protocol", "")}
        done = subprocess.run(["git", "http-backend"], input=body, env=env, capture_output=True, timeout=60)
        separator = b"\r\n\r\n" if b"\r\n\r\n" in done.stdout else b"\n\n"
        head, _, payload = done.stdout.partition(separator)
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = int(value.split()[0])
            elif name:
                headers.append((name, value.strip()))
        self.send_response(status if done.returncode == 0 else 500)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_GET = do_POST = serve


class GitServer:
    """The public edition as GitHub would serve it: a bare repository at ``url``, and a clone to commit in."""

    def __init__(self, edition: Path, base: Path):
        self.work, self.served = base / "work", base / "served"
        shutil.copytree(edition, self.work)
        self.git("init", "-q", "-b", "main")
        self.commit("The course, published")
        subprocess.run(["git", "clone", "-q", "--bare", str(self.work), str(self.served / EDITION)], check=True)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), partial(GitBackend, self.served))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/{EDITION}"

    def git(self, *args):
        return subprocess.run(["git", "-C", str(self.work), "-c", "user.name=Instructor",
                               "-c", "user.email=instructor@example.edu", *args],
                              check=True, capture_output=True, text=True).stdout

    def commit(self, message):
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)

    def push(self):
        self.git("push", "-q", str(self.served / EDITION), "main")

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


# --- fixtures -------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def hub():
    if os.geteuid() != 0:
        pytest.skip("the hub's tests make Linux users and run the hub as root, as a hub's administrator does")
    if not environment_ready():
        pytest.fail("the hub's environment is not built: run make hub-env (make test builds it)", pytrace=False)
    running = Hub(courses=COURSES, subdomains=True, admins=[INSTRUCTOR])
    if not glob.glob(f"{running.prefix}/venv/lib/python3*/site-packages/nbgitpuller/__init__.py"):
        running.stop()
        pytest.fail("the hub's environment has no nbgitpuller (hub/requirements.txt): build it again with "
                    "make hub-env", pytrace=False)
    yield running
    running.stop()


@pytest.fixture(scope="module")
def public_edition(tmp_path_factory):
    """The public edition as ``publish`` writes it, with the released assignments (no wheels: none is needed)."""
    release = REPO_ROOT / "notebooks" / "release"
    if not (release / ASSIGNMENT / f"{ASSIGNMENT}.ipynb").is_file():
        pytest.fail("notebooks/release/ is missing: run make assignments (make test does)", pytrace=False)
    base = tmp_path_factory.mktemp("public-edition")
    published = base / "published"
    (published / "assignments").mkdir(parents=True)
    names = sorted(p.name for p in release.iterdir() if (p / f"{p.name}.ipynb").is_file())
    for name in names:
        shutil.copyfile(release / name / f"{name}.ipynb", published / "assignments" / f"{name}.ipynb")
    manifest = {"address": None, "package": "perceptron-course-student",
                "wheel": "packages/perceptron_course_student-1.0.0-py3-none-any.whl",
                "assignments": [{"name": n, "notebook": f"assignments/{n}.ipynb"} for n in names]}
    publish.write_public_edition(manifest, out=base / "public-repo", published=published)
    return base / "public-repo"


@pytest.fixture(scope="module")
def git_server(public_edition, tmp_path_factory):
    server = GitServer(public_edition, tmp_path_factory.mktemp("git"))
    yield server
    server.stop()


# --- the student ------------------------------------------------------------------------------------------

def open_link(lab, link, notebook_path, *, follow=True):
    """Follow ``link`` as a click on the book's page does (unless the hub is already on its way there), then
    wait for JupyterLab to show the notebook at ``notebook_path``; its cells as the page shows them."""
    from selenium.webdriver.common.by import By

    if follow:
        lab.driver.get(link)
    name = os.path.basename(notebook_path)
    current = ".jp-MainAreaWidget:not(.lm-mod-hidden).jp-NotebookPanel"
    lab.wait.until(lambda d: any(t.text.strip() == name for t in d.find_elements(
        By.CSS_SELECTOR, "#jp-main-dock-panel .lm-TabBar-tab.lm-mod-current .lm-TabBar-tabLabel")))
    cells = len(nbformat.read(notebook_path, as_version=4).cells)
    lab.wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, f"{current} .jp-Cell")) == cells)
    return lab.driver.find_elements(By.CSS_SELECTOR, f"{current} .jp-Cell")


def owned_by_the_student_and_private(folder, user):
    """Every file and folder nbgitpuller made is the student's and writable by nobody else."""
    account = pwd.getpwnam(user)
    problems = []
    for path in [folder, *Path(folder).rglob("*")]:
        info = os.lstat(path)
        if (info.st_uid, info.st_gid) != (account.pw_uid, account.pw_gid):
            problems.append(f"{path} is owned by {info.st_uid}:{info.st_gid}")
        if stat.S_IMODE(info.st_mode) & 0o022 and not stat.S_ISLNK(info.st_mode):
            problems.append(f"{path} has mode {stat.S_IMODE(info.st_mode):o}")
    return problems


def test_the_books_links_clone_the_public_edition_keep_the_students_edit_and_merge_a_correction(
        hub, git_server, chromium, repo_root):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    artifacts = repo_root / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    lab = Lab(chromium, artifacts)
    links = course_hub.hub_links(hub.url, git_server.url, "main")
    home = pwd.getpwnam(STUDENT).pw_dir
    clone = os.path.join(home, EDITION)
    chapter = os.path.join(clone, course_hub.chapter_notebook(CHAPTER))
    assignment = os.path.join(clone, course_hub.assignment_notebook(ASSIGNMENT))
    assert not os.path.exists(clone)

    # The chapter's launch button, clicked before logging in: the hub's login page first, then the hub starts
    # her server, nbgitpuller clones the public edition into her home, and JupyterLab opens the chapter.
    lab.driver.get(links.chapter(CHAPTER))
    lab.wait.until(lambda d: d.find_elements(By.ID, "username_input"))
    lab.driver.find_element(By.ID, "username_input").send_keys(STUDENT)
    lab.driver.find_element(By.ID, "password_input").send_keys(hub.passwords[STUDENT])
    lab.driver.find_element(By.ID, "login_submit").click()
    open_link(lab, links.chapter(CHAPTER), chapter, follow=False)
    lab.screenshot("nbgitpuller-1-chapter")
    assert nbformat.read(chapter, as_version=4).cells[0].cell_type == "markdown"
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
    assert owned_by_the_student_and_private(clone, STUDENT) == []
    assert not os.path.exists(os.path.join(clone, "notebooks", "source"))

    # The assignment's link beside its download: the same clone, the assignment opened. She answers Part A.
    cells = open_link(lab, links.assignment(ASSIGNMENT), assignment)
    notebook = nbformat.read(assignment, as_version=4)
    answer = next(i for i, c in enumerate(notebook.cells) if c.metadata.get("nbgrader", {}).get("solution"))
    editor = cells[answer].find_element(By.CSS_SELECTOR, ".cm-content")
    lab.driver.execute_script("arguments[0].scrollIntoView()", editor)
    editor.click()
    editor.send_keys(Keys.CONTROL, Keys.END)
    editor.send_keys(Keys.ENTER, EDIT)
    editor.send_keys(Keys.ESCAPE)
    lab.driver.find_element(By.TAG_NAME, "body").send_keys(Keys.CONTROL, "s")
    lab.wait.until(lambda d: EDIT in open(assignment, encoding="utf-8").read())
    lab.screenshot("nbgitpuller-2-edited")

    # The instructor corrects the assignment's title and adds a note, and publishes (a push to the public edition).
    published = git_server.work / course_hub.assignment_notebook(ASSIGNMENT)
    upstream = nbformat.read(published, as_version=4)
    title = upstream.cells[0].source.splitlines()[0]
    upstream.cells[0].source = upstream.cells[0].source.replace(title, title + CORRECTION, 1)
    nbformat.write(upstream, published)
    note = git_server.work / "notebooks" / "release" / ASSIGNMENT / "errata.md"
    note.write_text("Part A: the plane in the example is 3 x1 + 4 x2 - 5 = 0.\n", encoding="utf-8")
    git_server.commit("ps1: a correction")
    git_server.push()

    # The same link again: her answer is kept, the correction and the note arrive, all still hers.
    cells = open_link(lab, links.assignment(ASSIGNMENT), assignment)
    lab.screenshot("nbgitpuller-3-pulled-again")
    merged = nbformat.read(assignment, as_version=4)
    assert EDIT in merged.cells[answer].source
    assert merged.cells[0].source.splitlines()[0] == title + CORRECTION
    assert os.path.isfile(os.path.join(os.path.dirname(assignment), "errata.md"))
    assert EDIT in cells[answer].text.replace("\u200b", "")  # and the page shows it
    assert owned_by_the_student_and_private(clone, STUDENT) == []
    history = hub.run_as(STUDENT, ["git", "-C", clone, "log", "--format=%s", "-n", "4"], check=True).stdout
    assert "ps1: a correction" in history and "Automatic commit by nbgitpuller" in history, history
    # Nothing of hers left out of the merge (only JupyterLab's own untracked checkpoints may be there).
    changed = hub.run_as(STUDENT, ["git", "-C", clone, "status", "--porcelain", "--untracked-files=no"], check=True)
    assert changed.stdout == "", changed.stdout


# --- a page on the student's server, opened by the instructor --------------------------------------------

# What a student's page tries, from wherever it runs, on the instructor's server at each of ``bases``: read its
# API with the instructor's cookies; frame the instructor's JupyterLab, and open it in a window of its own (a
# click on the page would do; the tests' Chromium blocks no pop-up), and from each read the page and its XSRF
# cookie, and with that the API (as a script in the instructor's own JupyterLab could). What it got, or the
# error, goes into the page's <html data-probe>, for the test to read.
PROBE = r"""
(async () => {
  const root = document.documentElement;
  if (root.dataset.probe) { return; }
  root.dataset.probe = "running";
  const out = {href: location.href, origin: self.origin, reads: []};
  const pause = ms => new Promise(resolve => setTimeout(resolve, ms));
  const through = async (how, base, view) => {
    try {
      const page = view.document;
      const html = page.documentElement.outerHTML;
      const xsrf = (page.cookie.match(/(?:^|; )_xsrf=([^;]*)/) || [])[1];
      const response = await fetch(base + "api/contents", {credentials: "include",
          headers: xsrf ? {"X-XSRFToken": decodeURIComponent(xsrf)} : {}});
      out.reads.push({how, status: response.status,
                      text: html.slice(0, 20000) + (await response.text()).slice(0, 20000)});
    } catch (error) { out.reads.push({how, error: String(error)}); }
  };
  for (const base of __BASES__) {
    try {
      const response = await fetch(base + "api/contents", {credentials: "include"});
      out.reads.push({how: "fetch " + base, status: response.status, text: (await response.text()).slice(0, 20000)});
    } catch (error) { out.reads.push({how: "fetch " + base, error: String(error)}); }
    const frame = document.createElement("iframe");
    frame.style.cssText = "width: 600px; height: 400px";
    const loaded = new Promise(resolve => { frame.onload = resolve; setTimeout(resolve, 30000); });
    frame.src = base + "lab";
    document.body.appendChild(frame);
    await loaded;
    await through("frame " + base, base, frame.contentWindow);
    let opened = null;
    try {
      opened = window.open(base + "lab", "_blank");
      for (let i = 0; i < 60; i++) {  // until its page has loaded, if this page may see it at all
        await pause(500);
        try { if (opened.document.getElementById("jupyter-config-data")) { break; } }
        catch (error) { break; }
      }
    } catch (error) { /* no window: through() says so */ }
    await through("window " + base, base, opened);
    try { opened.close(); } catch (error) { /* closed, or none */ }
  }
  root.dataset.probe = JSON.stringify(out);
})();
"""


def probe_script(hub, victim):
    """:data:`PROBE` aimed at ``victim``'s server: by its path on the page's own host, and by its address."""
    bases = list(dict.fromkeys([f"/user/{victim}/", hub.server_url(victim)]))
    return PROBE.replace("__BASES__", json.dumps(bases))


def probe_result(lab):
    """What :data:`PROBE` found on the page open in ``lab``'s browser, once it has tried everything."""
    lab.wait.until(lambda d: (d.execute_script("return document.documentElement.dataset.probe || ''")
                              or "").startswith("{"))
    return json.loads(lab.driver.execute_script("return document.documentElement.dataset.probe"))


def read_from(probe, victim, marker):
    """The probe's tries that got the victim's data: their files (``marker`` is one of their names) or their
    JupyterLab's page (its settings name their server)."""
    mine = re.compile(rf'"baseUrl":\s*"/user/{re.escape(victim)}/"')
    return [read["how"] for read in probe["reads"] if marker in read.get("text", "") or mine.search(read.get("text", ""))]


@pytest.fixture(scope="module")
def instructor_chromium(tmp_path_factory):
    """A second browser, with its own profile (its own cookies), for the instructor."""
    from tests.support.browser import chromium_driver

    driver = chromium_driver(tmp_path_factory.mktemp("hub-chromium-instructor"), page_load_seconds=90)
    yield driver
    driver.quit()


def write_as(user, path, text):
    """``text`` into ``path`` in ``user``'s home, as their own file (0600)."""
    account = pwd.getpwnam(user)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.chown(path, account.pw_uid, account.pw_gid)
    os.chmod(path, 0o600)


def log_in_if_asked(lab, hub, user):
    from selenium.webdriver.common.by import By

    if lab.driver.find_elements(By.ID, "username_input"):
        lab.driver.find_element(By.ID, "username_input").send_keys(user)
        lab.driver.find_element(By.ID, "password_input").send_keys(hub.passwords[user])
        lab.driver.find_element(By.ID, "login_submit").click()


def test_a_students_page_opened_by_the_instructor_cannot_read_the_instructors_server(
        hub, git_server, chromium, instructor_chromium, repo_root):
    from selenium.webdriver.common.by import By

    artifacts = repo_root / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    teacher = Lab(instructor_chromium, artifacts)
    student = Lab(chromium, artifacts)
    assert hub.url.startswith("http://hub.localhost:"), hub.url  # the department's setting: a subdomain each
    marker = f"instructor-only-{secrets.token_hex(6)}.txt"
    write_as(INSTRUCTOR, os.path.join(pwd.getpwnam(INSTRUCTOR).pw_dir, marker), "the gradebook\n")

    # The instructor works in their own JupyterLab, on their own subdomain. There, the probe reads their files
    # (so it would see a read where there is one).
    teacher.log_in(hub.url, INSTRUCTOR, hub.passwords[INSTRUCTOR])
    assert teacher.driver.current_url.startswith(hub.server_url(INSTRUCTOR)), teacher.driver.current_url
    teacher.driver.execute_script(probe_script(hub, INSTRUCTOR))
    assert read_from(probe_result(teacher), INSTRUCTOR, marker), "the probe reads nothing even at its own origin"

    # The student's page: a notebook she trusted (JupyterLab runs the scripts of a trusted notebook's outputs,
    # in the page of the server it is opened on) and an HTML file, both with the probe in them.
    home = pwd.getpwnam(STUDENT).pw_dir
    script = probe_script(hub, INSTRUCTOR)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("1", outputs=[nbformat.v4.new_output(
        "display_data", data={"text/html": f"<p>Please look at my plot</p><script>{script}</script>"})])])
    write_as(STUDENT, os.path.join(home, "look-at-this.ipynb"), nbformat.writes(notebook))
    hub.run_as(STUDENT, [f"{hub.prefix}/venv/bin/jupyter", "trust", "look-at-this.ipynb"], check=True)
    write_as(STUDENT, os.path.join(home, "look-at-this.html"),
             f"<!doctype html><html><head><title>My plot</title></head><body><p>My plot</p>"
             f"<script>{script}</script></body></html>")

    # The instructor opens her links. The hub asks them to authorize access to her server (an administrator
    # may), and her JupyterLab shows the notebook: its script runs, on her subdomain, and reads nothing of theirs.
    teacher.driver.get(f"{hub.server_url(STUDENT)}lab/tree/look-at-this.ipynb")
    teacher.wait.until(lambda d: d.find_elements(By.XPATH, "//button[normalize-space()='Authorize']"))
    teacher.driver.find_element(By.XPATH, "//button[normalize-space()='Authorize']").click()
    probe = probe_result(teacher)
    teacher.screenshot("subdomains-1-instructor-opens-the-students-notebook")
    assert probe["href"].startswith(hub.server_url(STUDENT)), probe
    assert probe["origin"] == hub.server_url(STUDENT).split("/user/")[0], probe
    assert len(probe["reads"]) == 6, probe  # each way, by path and by address
    assert read_from(probe, INSTRUCTOR, marker) == [], probe
    teacher.driver.get(f"{hub.server_url(STUDENT)}files/look-at-this.html")
    probe = probe_result(teacher)
    assert probe["href"].startswith(hub.server_url(STUDENT)), probe
    assert read_from(probe, INSTRUCTOR, marker) == [], probe

    # The instructor's own server is still theirs: their JupyterLab loads and shows their file.
    teacher.driver.get(f"{hub.server_url(INSTRUCTOR)}lab/tree/{marker}")
    teacher.wait.until(lambda d: any(t.text.strip() == marker for t in d.find_elements(
        By.CSS_SELECTOR, "#jp-main-dock-panel .lm-TabBar-tab .lm-TabBar-tabLabel")))

    # And the student's: the book's link still pulls into her clone and opens the assignment in her JupyterLab.
    links = course_hub.hub_links(hub.url, git_server.url, "main")
    assignment = os.path.join(home, EDITION, course_hub.assignment_notebook(ASSIGNMENT))
    student.driver.get(links.assignment(ASSIGNMENT))
    log_in_if_asked(student, hub, STUDENT)
    open_link(student, links.assignment(ASSIGNMENT), assignment, follow=False)
    assert student.driver.current_url.startswith(hub.server_url(STUDENT)), student.driver.current_url
    student.screenshot("subdomains-2-student-pulls-again")


def test_a_link_that_would_clone_into_a_hidden_folder_or_from_a_path_on_the_server_is_refused(
        hub, git_server, instructor_chromium, repo_root):
    """A student sends the instructor a link of the book's shape that clones into ~/.ipython/profile_default
    (IPython runs its startup files in every kernel), or clones a repository of hers from a path on the
    server: the instructor's server refuses both, says why, and nothing is cloned."""
    from urllib.parse import urlencode

    from selenium.webdriver.common.by import By

    artifacts = repo_root / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    teacher = Lab(instructor_chromium, artifacts)
    home = pwd.getpwnam(INSTRUCTOR).pw_dir
    attempts = {
        "plain, visible folder": {"repo": git_server.url, "branch": "main", "targetpath": ".ipython/profile_default",
                                  "urlpath": "lab"},
        "is not a web address": {"repo": "/tmp/a-course.bundle", "branch": "main", "targetpath": "course"},
    }
    for said, query in attempts.items():
        for page in ("git-pull", "git-pull/api"):
            teacher.driver.get(f"{hub.server_url(INSTRUCTOR)}{page}?{urlencode(query)}")
            log_in_if_asked(teacher, hub, INSTRUCTOR)
            teacher.wait.until(lambda d: "403" in d.find_element(By.TAG_NAME, "body").text)
            assert said in teacher.driver.find_element(By.TAG_NAME, "body").text, (page, query)
    teacher.screenshot("nbgitpuller-4-refused-link")
    assert not os.path.exists(os.path.join(home, ".ipython", "profile_default"))
    assert not os.path.exists(os.path.join(home, "course"))
