"""What keeps the student package working on every system, read from its source and tried on Linux.

* No module of ``perceptron_course`` but ``platform_support`` names what only some systems have (a POSIX or
  Linux name such as ``signal.SIGALRM``, ``os.fork`` or ``/proc``, or a Windows one), read from each module's
  syntax tree; and every file it opens as text, it opens as UTF-8.
* The check ends the runner and every process the notebook started, when the notebook's time is up and when
  it ends.
* The check from inside a notebook finds the notebook's file (the Jupyter server's sessions API, the kernel's
  environment, VS Code's variable) and, in Colab, the notebook's contents from Colab's API, under the notebook's
  name, or its assignment's when Colab does not say the name.

The runner's limits in Pythons that lack what Windows and macOS lack are tested in ``test_runner.py``; the whole
journey of a student in them, with the installed wheel, in ``test_student_journey.py``.
"""

import ast
import http.server
import json
import os
import sys
import threading
import time
import types
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from perceptron_course import check, notebook_check, platform_support
from perceptron_course.execute import run_notebook
from perceptron_course.limits import Limits
from tests.support import ROOT

PACKAGE = os.path.join(ROOT, "perceptron_course")
CHOOSER = "platform_support.py"  # the one module that may name them

# Names that some of Windows, macOS and Linux lack, by the module that has them.
UNPORTABLE_ATTRIBUTES = {
    "signal": {"SIGALRM", "SIGKILL", "SIGSTOP", "SIGCHLD", "SIGHUP", "SIGQUIT", "SIGPIPE", "SIGUSR1", "SIGUSR2",
               "SIGBREAK", "CTRL_C_EVENT", "CTRL_BREAK_EVENT", "setitimer", "getitimer", "ITIMER_REAL",
               "ITIMER_VIRTUAL", "ITIMER_PROF", "alarm", "pause", "siginterrupt", "pthread_kill", "pthread_sigmask",
               "sigwait", "sigtimedwait"},
    "os": {"fork", "forkpty", "killpg", "setsid", "setpgid", "setpgrp", "getpgid", "getpgrp", "getuid", "geteuid",
           "getgid", "setuid", "setgid", "chown", "lchown", "fchown", "nice", "wait3", "wait4", "WNOHANG", "sysconf",
           "uname", "O_NOFOLLOW", "O_NONBLOCK", "getloadavg", "mkfifo", "sched_setaffinity", "sched_getaffinity",
           "posix_spawn", "startfile"},
    "subprocess": {"CREATE_NEW_PROCESS_GROUP", "CREATE_NO_WINDOW", "CREATE_NEW_CONSOLE", "STARTUPINFO"},
    "ctypes": {"windll", "WinDLL", "wintypes"},
}
UNPORTABLE_MODULES = {"resource", "fcntl", "pwd", "grp", "termios", "tty", "pty", "posix", "crypt", "spwd", "syslog",
                      "_posixsubprocess", "msvcrt", "winreg", "_winapi", "nt", "ctypes.wintypes"}
UNPORTABLE_KEYWORDS = {"start_new_session", "process_group", "preexec_fn", "pass_fds", "creationflags", "startupinfo",
                       "user", "group", "extra_groups", "umask"}
UNPORTABLE_PATHS = ("/proc", "/dev/", "/sys/")


def unportable_names(source):
    """``(line, what)`` for every use in ``source`` of something only some systems have."""
    tree = ast.parse(source)
    aliases = {}  # local name -> module, from the imports
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top = alias.name.split(".")[0]
                aliases[alias.asname or top] = alias.name if alias.asname else top
                if alias.name in UNPORTABLE_MODULES or alias.name.split(".")[0] in UNPORTABLE_MODULES:
                    found.append((node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module in UNPORTABLE_MODULES or node.module.split(".")[0] in UNPORTABLE_MODULES:
                found.append((node.lineno, f"from {node.module} import ..."))
            for alias in node.names:
                if alias.name in UNPORTABLE_ATTRIBUTES.get(node.module, ()):
                    found.append((node.lineno, f"{node.module}.{alias.name}"))
                if f"{node.module}.{alias.name}" in UNPORTABLE_MODULES:
                    found.append((node.lineno, f"{node.module}.{alias.name}"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = aliases.get(node.value.id)
            if node.attr in UNPORTABLE_ATTRIBUTES.get(module, ()):
                found.append((node.lineno, f"{module}.{node.attr}"))
        elif isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else None
            # getattr(os, "O_NOFOLLOW") fails where the name is missing; with a default it is portable.
            if name == "getattr" and len(node.args) == 2 and isinstance(node.args[0], ast.Name) \
                    and isinstance(node.args[1], ast.Constant) \
                    and node.args[1].value in UNPORTABLE_ATTRIBUTES.get(aliases.get(node.args[0].id), ()):
                found.append((node.lineno, f"getattr({node.args[0].id}, {node.args[1].value!r})"))
            for keyword in node.keywords:
                if keyword.arg in UNPORTABLE_KEYWORDS:
                    found.append((node.lineno, f"{keyword.arg}="))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.startswith(UNPORTABLE_PATHS):
            found.append((node.lineno, repr(node.value)))
    return sorted(set(found))


def modules():
    names = sorted(n for n in os.listdir(PACKAGE) if n.endswith(".py"))
    return {name: Path(PACKAGE, name).read_text(encoding="utf-8") for name in names}


def test_the_search_for_unportable_names_finds_each_kind():
    source = ("import signal as s, resource\nfrom os import fork\nimport subprocess\nimport os\n"
              "s.setitimer(s.ITIMER_REAL, 1)\nos.killpg(1, 9)\nopen('/proc/1/stat')\n"
              "subprocess.Popen(['x'], start_new_session=True)\ngetattr(os, 'setsid')\n"
              "getattr(os, 'O_NOFOLLOW', 0)\nos.getpid()\n")
    assert {what for _, what in unportable_names(source)} == {
        "import resource", "os.fork", "signal.setitimer", "signal.ITIMER_REAL", "os.killpg", "'/proc/1/stat'",
        "start_new_session=", "getattr(os, 'setsid')"}


def test_only_one_module_of_the_student_package_names_what_some_systems_lack():
    found = {name: unportable_names(source) for name, source in modules().items() if name != CHOOSER}
    assert {name: uses for name, uses in found.items() if uses} == {}, (
        f"only perceptron_course/{CHOOSER} may use these; call it instead")
    assert unportable_names(modules()[CHOOSER]), f"{CHOOSER} should be where the system's facilities are chosen"


SUBPROCESS_CALLS = ("run", "Popen", "check_output", "call", "check_call")


def text_opens_without_encoding(source):
    """Lines of ``source`` that open a file as text (``open``, ``read_text``, ``write_text``, ``subprocess``'s
    ``text=True``) without naming its encoding, which would then be the system's (a code page on Windows)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        keywords = {k.arg: k.value for k in node.keywords}
        if name == "open" and isinstance(node.func, ast.Name):
            mode = node.args[1] if len(node.args) > 1 else keywords.get("mode")
            binary = isinstance(mode, ast.Constant) and "b" in str(mode.value)
            if not binary and "encoding" not in keywords:
                found.append(node.lineno)
        elif name in ("read_text", "write_text") and "encoding" not in keywords:
            found.append(node.lineno)
        elif name in SUBPROCESS_CALLS and "encoding" not in keywords and any(
                isinstance(keywords.get(k), ast.Constant) and keywords[k].value
                for k in ("text", "universal_newlines")):
            found.append(node.lineno)
    return found


def test_every_file_the_student_package_opens_as_text_is_utf8():
    assert text_opens_without_encoding("open(p)\nopen(p, 'rb')\nopen(p, 'w', encoding='utf-8')\n"
                                       "subprocess.run(c, text=True)\n") == [1, 4]
    found = {name: lines for name, source in modules().items() if (lines := text_opens_without_encoding(source))}
    assert found == {}, "open these files with encoding=\"utf-8\""


# -- every process the notebook started ends with the check -------------------------------------------------------

STARTS_PROCESSES = ("import subprocess, sys\n"
                    "quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
                    "child = subprocess.Popen(['sleep', '300'], **quiet)\n"
                    "# A grandchild, whose parent waits for it.\n"
                    "parent = subprocess.Popen(['sh', '-c', 'sleep 301 & echo $! > grandchild.pid; wait'], **quiet)\n"
                    "import time\n"
                    "while not __import__('os').path.exists('grandchild.pid'):\n"
                    "    time.sleep(0.01)\n"
                    "open('pids', 'w', encoding='utf-8').write(f'{child.pid} {parent.pid}')")


def alive(pid):
    """Whether process ``pid`` still runs (a zombie, ended but not yet reaped by its new parent, does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("how", ["the notebook ends", "its time is up"])
def test_the_check_ends_every_process_the_notebook_started(tmp_path, how):
    cells = [STARTS_PROCESSES]
    if how == "its time is up":  # a cell that catches every interruption, until the budget ends the run
        cells.append("while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n"
                     "        pass")
    notebook = new_notebook(cells=[new_code_cell(source) for source in cells])
    started = time.monotonic()
    interrupted, stopped, died, _ = run_notebook(notebook, str(tmp_path), cell_timeout=0.5,
                                                 limits=Limits(notebook_seconds=4, grace_seconds=2))
    assert time.monotonic() - started < 15
    assert died is None and stopped == (1 if how == "its time is up" else None)
    pids = [int(p) for p in (tmp_path / "pids").read_text(encoding="utf-8").split()]
    pids.append(int((tmp_path / "grandchild.pid").read_text(encoding="utf-8")))
    deadline = time.monotonic() + 5
    while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in pids if alive(pid)] == [], "the notebook's processes outlived the check"


def test_what_this_system_cannot_enforce_is_said_in_one_sentence_each(monkeypatch):
    assert platform_support.unenforced_limits() == ()  # Linux enforces every limit as grading does
    monkeypatch.setattr(platform_support, "TIMER_SIGNALS", False)
    monkeypatch.setattr(platform_support, "POSIX_GROUPS", False)
    monkeypatch.setattr(platform_support, "IS_WINDOWS", False)
    assert platform_support.unenforced_limits() == (platform_support.BLOCKING_CALLS_NOTE,
                                                    platform_support.PROCESSES_NOTE)


# -- the check from inside a notebook: finding the notebook -------------------------------------------------------

class SessionsServer(http.server.BaseHTTPRequestHandler):
    """A Jupyter server's sessions API, answering only requests with its token."""

    sessions = []
    token = "secret-token"

    def do_GET(self):
        if self.path != "/user/zoe/api/sessions" or self.headers.get("Authorization") != f"token {self.token}":
            self.send_response(403)
            self.end_headers()
            return
        body = json.dumps(self.sessions).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def jupyter_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), SessionsServer)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/user/zoe/"
    server.shutdown()
    server.server_close()


@pytest.fixture
def notebooks(tmp_path):
    """A server root with a notebook in a folder whose name has spaces and letters beyond ASCII, and its copy
    under an older name."""
    folder = tmp_path / "root" / "My Documents" / "Zoë's course"
    folder.mkdir(parents=True)
    for name in ("ps1_hyperplanes.ipynb", "old name.ipynb"):
        (folder / name).write_text("{}", encoding="utf-8")
    return tmp_path / "root", folder


def test_the_sessions_api_names_the_notebook_of_this_kernel_even_after_a_rename(jupyter_server, notebooks,
                                                                              monkeypatch):
    root, folder = notebooks
    SessionsServer.sessions = [
        {"id": "s1", "path": "elsewhere/other.ipynb", "kernel": {"id": "other-kernel"}},
        {"id": "s2", "path": "My Documents/Zoë's course/ps1_hyperplanes.ipynb", "kernel": {"id": "this-kernel"}},
    ]
    servers = [{"url": jupyter_server, "token": SessionsServer.token, "root_dir": str(root)}]
    # The kernel's environment still names the notebook it was started for; the server knows its new name.
    stale = {"JPY_SESSION_NAME": str(folder / "old name.ipynb")}
    assert notebook_check.find_notebook(environ=stale, cwd=str(folder), servers=servers,
                                        kernel_id="this-kernel") == str(folder / "ps1_hyperplanes.ipynb")
    # Without the token (a JupyterHub's server) the hub's API token is used.
    servers = [{"url": jupyter_server, "token": "", "root_dir": str(root)}]
    monkeypatch.setenv("JUPYTERHUB_API_TOKEN", SessionsServer.token)
    assert notebook_check.find_notebook(environ={}, cwd=str(folder), servers=servers,
                                        kernel_id="this-kernel") == str(folder / "ps1_hyperplanes.ipynb")


def test_without_a_server_the_kernels_environment_or_vs_code_names_the_notebook(notebooks):
    root, folder = notebooks
    notebook = str(folder / "ps1_hyperplanes.ipynb")
    refused = [{"url": "http://127.0.0.1:9/", "token": "x", "root_dir": str(root)}]  # nothing listens there
    find = notebook_check.find_notebook
    assert find(environ={"JPY_SESSION_NAME": notebook}, cwd="/", servers=refused, kernel_id="k") == notebook
    # A path relative to the server's root, which is one of the folders above the kernel's.
    relative = {"JPY_SESSION_NAME": "My Documents/Zoë's course/ps1_hyperplanes.ipynb"}
    assert find(environ=relative, cwd=str(folder), servers=[], kernel_id="k") == notebook
    assert find({"__vsc_ipynb_file__": notebook}, environ={}, cwd="/", servers=[], kernel_id="k") == notebook
    assert find({}, environ={"JPY_SESSION_NAME": str(folder / "gone.ipynb")}, cwd=str(folder), servers=[],
                kernel_id="k") is None


def test_a_kernel_that_finds_no_notebook_says_how_to_check_in_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(notebook_check, "find_notebook", lambda namespace=None: None)
    monkeypatch.setattr(notebook_check, "run_check", lambda path: pytest.fail("nothing should be checked"))
    assert notebook_check.check_this_notebook() is None
    assert capsys.readouterr().out == notebook_check.NOT_FOUND + "\n"


# -- the check from inside a notebook: Colab ---------------------------------------------------------------------

def in_colab(monkeypatch, reply):
    """Put a stand-in for Colab's ``google.colab._message``, which gives ``reply`` to ``get_ipynb``, where an
    import finds it; return the list of the requests it gets."""
    asked = []

    def blocking_request(request_type, request="", timeout_sec=5):
        asked.append(request_type)
        if isinstance(reply, Exception):
            raise reply
        return reply

    message = types.SimpleNamespace(blocking_request=blocking_request)
    colab = types.ModuleType("google.colab")
    colab._message = message
    fake = {"google": types.ModuleType("google"), "google.colab": colab, "google.colab._message": message}
    for name, module in fake.items():
        monkeypatch.setitem(sys.modules, name, module)
    return asked


def test_in_colab_the_notebooks_current_contents_are_checked_under_its_name(monkeypatch, capsys):
    notebook = nbformat.v4.new_notebook(cells=[new_code_cell("x = 'Zoë'")])
    notebook.metadata["colab"] = {"name": "ps1_hyperplanes.ipynb"}
    asked = in_colab(monkeypatch, {"ipynb": json.loads(nbformat.writes(notebook))})
    checked = {}

    def run_check(path):
        checked["name"] = os.path.basename(path)
        checked["notebook"] = json.loads(open(path, encoding="utf-8").read())
        return 0

    monkeypatch.setattr(notebook_check, "run_check", run_check)
    assert notebook_check.check_this_notebook() == 0
    assert asked == ["get_ipynb"]
    assert checked["name"] == "ps1_hyperplanes.ipynb"
    assert "".join(checked["notebook"]["cells"][0]["source"]) == "x = 'Zoë'"
    assert capsys.readouterr().out.startswith("Checking this notebook as it is now in Colab")


def graded_notebook(*grade_ids):
    """A notebook with one graded answer cell for each of ``grade_ids``."""
    cells = [new_code_cell("x = 1", metadata={"nbgrader": {"grade": True, "solution": True, "locked": False,
                                                           "points": 1, "grade_id": gid, "schema_version": 3}})
             for gid in grade_ids]
    return nbformat.v4.new_notebook(cells=cells)


@pytest.mark.parametrize("cells_of", ["ps2_online_perceptron", "another course"])
def test_in_colab_a_notebook_without_a_name_is_checked_under_its_assignments(tmp_path, monkeypatch, capsys,
                                                                            cells_of):
    release = tmp_path / "release"
    for assignment, gid in (("ps1_hyperplanes", "draw_boundary"), ("ps2_online_perceptron", "train_perceptron")):
        (release / assignment).mkdir(parents=True)
        nbformat.write(graded_notebook(gid), release / assignment / f"{assignment}.ipynb")
    monkeypatch.setattr(notebook_check, "RELEASE_DIR", str(release))
    notebook = graded_notebook("train_perceptron" if cells_of == "ps2_online_perceptron" else "their_cell")
    notebook.metadata["colab"] = {"provenance": []}  # what Colab's reply may hold without a "name"
    in_colab(monkeypatch, {"ipynb": json.loads(nbformat.writes(notebook))})
    checked = {}

    def run_check(path):
        checked["name"] = os.path.basename(path)
        try:
            planned = check.plan(path, release_dir=str(release))
            checked["about the file"] = [f.text for f in planned.findings if f.part == check.FILE]
        except check.CheckError as exc:
            checked["cannot check"] = str(exc)
        return 0

    monkeypatch.setattr(notebook_check, "run_check", run_check)
    assert notebook_check.check_this_notebook() == 0
    out = capsys.readouterr().out
    if cells_of == "ps2_online_perceptron":
        assert checked == {"name": "ps2_online_perceptron.ipynb", "about the file": []}, "no rename was asked for"
        assert out.endswith(notebook_check.COLAB_UNNAMED.format(name="ps2_online_perceptron.ipynb",
                                                                stem="ps2_online_perceptron") + "\n")
        assert "'ps2_online_perceptron (1).ipynb'" in out
    else:  # the check says it is not one of the course's notebooks; there is no name to advise
        assert checked["name"] == "notebook.ipynb" and "shares no graded cell" in checked["cannot check"]
        assert "Colab did not say this notebook's name" not in out


@pytest.mark.parametrize("reply", [TimeoutError("no answer"), None, {"error": "not allowed"}])
def test_when_colab_does_not_hand_the_notebook_over_it_says_how_to_download_and_check(monkeypatch, capsys, reply):
    in_colab(monkeypatch, reply)
    monkeypatch.setattr(notebook_check, "run_check", lambda path: pytest.fail("nothing should be checked"))
    assert notebook_check.check_this_notebook() is None
    assert capsys.readouterr().out == notebook_check.COLAB_NOT_HANDED + "\n"
