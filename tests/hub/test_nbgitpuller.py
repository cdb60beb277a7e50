"""From the book into the hub: a real student follows the book's nbgitpuller links on a real JupyterHub.

The hub is tests/hub/real_hub.py's (PAM, real Linux users, servers started as their users) with a student
of its own, so that it runs beside test_hub_real.py's users without touching them. The public edition that
``publish`` writes is committed to a git repository and served on loopback by git's own smart HTTP server
(``git http-backend``, behind a small HTTP server here), as GitHub serves the real one. The links are the
book's own (``book/_ext/course_hub.py``). Chromium plays the student: a click before logging in goes
through the hub's login page; nbgitpuller clones the edition into the student's home, owned by the
student; the student edits the assignment in JupyterLab; the instructor publishes a correction; the same
link again keeps the student's edit and brings the correction in.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import stat
import subprocess
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
COURSES = {"perceptron": {"students": [STUDENT], "tas": [], "instructors": []}}
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
    running = Hub(courses=COURSES)
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
