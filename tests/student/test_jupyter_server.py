"""The check from a notebook's last cell, in a real Jupyter Server: the server of JupyterLab, of Notebook 7 and of
every JupyterHub's single-user server.

``tests/student/test_platforms.py`` tests how the cell finds its notebook against a stand-in for the server's
sessions API, and ``test_student_journey.py`` runs the cell in a kernel told its notebook's path.  Here nothing is
told: a Jupyter Server is started in a fresh environment with the student wheel installed, as a JupyterHub starts
a student's (under ``/user/<name>/``, with a token, its root the student's home), the notebook's session is opened
through the server's REST API as JupyterLab opens it, and the last cell runs in the kernel the server started for
that session.  The cell must find the saved file by itself, also after the notebook was moved in the server,
and the check must find the solution ready.
"""

import json
import os
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import nbformat
import pytest

from autograder.commands.release import CHECK_CELL_SOURCE
from tests.support.grading import solved_release
from tests.support.kernels import printed_by

PS4 = "ps4_offset"
READY = "Ready to submit: every visible test passes, nothing is missing, and the file name is right."
TOKEN = "a-students-token"
BASE_URL = "/user/zoe/"

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Server:
    """A Jupyter Server of the student's Python, spoken to through its REST API."""

    def __init__(self, python, home):
        self.home, self.runtime = home, home / "jupyter-runtime"
        self.env = {"PATH": f"{python.parent}{os.pathsep}/usr/bin{os.pathsep}/bin", "HOME": str(home),
                    "JUPYTER_RUNTIME_DIR": str(self.runtime), "JUPYTER_CONFIG_DIR": str(home / "jupyter-config"),
                    "JUPYTER_DATA_DIR": str(home / "jupyter-data"), "MPLBACKEND": "Agg", "LANG": "C.UTF-8"}
        self.log = open(home / "server.log", "wb")
        # The port is a free one when asked; should another process take it first, the server tries the next
        # ones, and says where it listens in its runtime file, as `jupyter server list` reads it.
        self.process = subprocess.Popen(
            [str(python), "-m", "jupyter_server", "--no-browser", "--ServerApp.ip=127.0.0.1",
             f"--ServerApp.port={free_port()}", f"--ServerApp.base_url={BASE_URL}",
             f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={home}",
             # A student's server never runs as root; these test machines run everything as root.
             *(["--allow-root"] if hasattr(os, "geteuid") and os.geteuid() == 0 else [])],
            cwd=home, env=self.env, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while True:
            try:
                info = json.loads((self.runtime / f"jpserver-{self.process.pid}.json").read_text(encoding="utf-8"))
                self.url = info["url"]
                self.request("GET", "api/status")
                break
            except (OSError, ValueError, KeyError):
                if self.process.poll() is not None or time.monotonic() > deadline:
                    log = self.server_log()
                    self.stop()
                    raise AssertionError(f"the Jupyter server did not start:\n{log}")
                time.sleep(0.2)
        assert self.url.endswith(BASE_URL), self.url

    def request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        request = urllib.request.Request(self.url + path, data=data, method=method,
                                         headers={"Authorization": f"token {TOKEN}",
                                                  "Content-Type": "application/json"})
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(request, timeout=30) as answer:
            text = answer.read().decode("utf-8")
        return json.loads(text) if text else None

    def run_in_session_kernel(self, kernel_id, code):
        """Run ``code`` in the kernel the server started, through its connection file; return what it printed."""
        from jupyter_client import BlockingKernelClient

        client = BlockingKernelClient(connection_file=str(self.runtime / f"kernel-{kernel_id}.json"))
        client.load_connection_file()
        return printed_by(client, code)

    def server_log(self):
        self.log.flush()
        return (self.home / "server.log").read_bytes().decode("utf-8", "replace")[-4000:]

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=30)
        self.log.close()


def quoted(path):
    return urllib.parse.quote(path)


def test_the_last_cell_finds_its_notebook_in_a_real_jupyter_server_also_after_a_move_and_is_ready(
        student_python, released_course, tmp_path):
    python = student_python("linux")
    home = tmp_path / "zoë"
    course = home / "Zoë's course ψ"
    course.mkdir(parents=True)
    solution = solved_release(released_course, PS4)
    assert solution.cells[-1].source == CHECK_CELL_SOURCE
    nbformat.write(solution, str(course / f"{PS4}.ipynb"))
    server = Server(python, home)
    try:
        first = f"{course.name}/{PS4}.ipynb"
        session = server.request("POST", "api/sessions", {"path": first, "name": f"{PS4}.ipynb", "type": "notebook",
                                                          "kernel": {"name": "python3"}})
        kernel_id = session["kernel"]["id"]
        printed = server.run_in_session_kernel(kernel_id, CHECK_CELL_SOURCE)
        lines = printed.splitlines()
        assert lines[0].startswith(f"Checking the saved file {course / f'{PS4}.ipynb'}, saved "), printed
        assert lines[-1] == READY and not [line for line in lines if "[fix]" in line], printed

        # Moved in JupyterLab's file browser: the file, then the session, follow; the kernel keeps running, and
        # the environment the server gave it still names the old path.
        moved = home / "submitted ✓"
        moved.mkdir()
        second = f"{moved.name}/{PS4}.ipynb"
        server.request("PATCH", f"api/contents/{quoted(first)}", {"path": second})
        server.request("PATCH", f"api/sessions/{session['id']}", {"path": second})
        assert not (course / f"{PS4}.ipynb").exists()
        printed = server.run_in_session_kernel(kernel_id, CHECK_CELL_SOURCE)
        lines = printed.splitlines()
        assert lines[0].startswith(f"Checking the saved file {moved / f'{PS4}.ipynb'}, saved "), printed
        assert lines[-1] == READY, printed
        server.request("DELETE", f"api/sessions/{session['id']}")
    except Exception:
        print(server.server_log())
        raise
    finally:
        server.stop()
        shutil.rmtree(home / "jupyter-runtime", ignore_errors=True)
