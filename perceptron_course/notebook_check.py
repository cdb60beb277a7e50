"""The check from inside a notebook: what the last cell of every assignment runs, for students without a terminal.

In JupyterLab, Jupyter Notebook, on a JupyterHub or in Colab a student may
have no terminal at hand, or not know one.  The last cell of every
assignment calls :func:`perceptron_course.test_helpers.check_this_notebook`,
which calls :func:`check_this_notebook` here.  It runs the very check of the
``perceptron-check`` command (``python -m perceptron_course NOTEBOOK.ipynb``)
in a fresh process, and prints its report in the cell's output; it never
runs the student's code in the student's own kernel, whose state (a
function defined and since deleted, a variable set by hand) could pass a
notebook that fails when graded.  What it checks:

* in Jupyter, the saved file of the running notebook.  Its path comes from
  the Jupyter server's sessions API (``api/sessions``: the session of this
  kernel's id, which follows the notebook when it is renamed), else from the
  kernel's environment (``JPY_SESSION_NAME``, which Jupyter Server sets for
  the kernel of every notebook it opens), else from VS Code's
  ``__vsc_ipynb_file__``.  The student is told when the file was saved, and
  reminded to save first;
* in Colab, which keeps no file of the notebook in its runtime, the
  notebook's current contents, from Colab's notebook API
  (``google.colab._message.blocking_request("get_ipynb")``), written to a
  temporary file under the notebook's name.  When Colab's reply does not
  say the name, the file is named after the assignment whose graded cells
  the notebook holds, and the student is told that the name was not checked
  and how to check the downloaded file's.

Where neither finds the notebook, one sentence says how to check it in a
terminal, or after downloading it.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request

from .check import COMMAND, RELEASE_DIR, _released, _which_assignment
from .limits import LimitsError, course_limits
from .platform_support import ProcessTree

__all__ = ["check_this_notebook", "find_notebook", "colab_notebook", "NOT_FOUND", "COLAB_NOT_HANDED",
           "COLAB_UNNAMED"]

NOT_FOUND = ("This notebook's file could not be found from here: save it, then in a terminal, in the folder where it "
             f"is saved, run {COMMAND} followed by the notebook's file name (for example {COMMAND} "
             "ps1_hyperplanes.ipynb).")
COLAB_NOT_HANDED = ("Colab did not hand over this notebook: download it (File > Download > Download .ipynb), and on "
                    f"a computer with the course's package run {COMMAND} followed by the file's name, in the folder "
                    "where you saved it.")
# Said after the report when Colab did not give the notebook's name: the report's verdict on the file name was
# about the temporary file, not about the file the student will submit.
COLAB_UNNAMED = ("Colab did not say this notebook's name, so the check above ran its contents under the name "
                 "{name}, after the assignment whose graded cells it holds, and could not check the name of your "
                 "file. Before you submit, download it (File > Download > Download .ipynb) and make sure the "
                 "downloaded file is named {name}: rename it if it is not (for example 'Copy of {name}' or "
                 "'{stem} (1).ipynb').")
# How long to wait for a Jupyter server's or Colab's answer.
ASK_SECONDS = 5
COLAB_SECONDS = 60
# Variables a kernel has and a terminal does not, left out of the check's environment so that it runs as the
# command does there: the kernel's figure backend, and Jupyter's own.
KERNEL_ONLY = ("MPLBACKEND",)
KERNEL_ONLY_PREFIXES = ("JPY_",)


# -- where the notebook is ---------------------------------------------------------------------------------

def _resolve(path, cwd):
    """``path`` (absolute, or relative to the Jupyter server's root) as an existing file, or ``None``.

    A relative path is tried against the kernel's folder and each folder
    above it: the kernel starts in the notebook's folder, somewhere under the
    server's root.
    """
    if not isinstance(path, str) or not path:
        return None
    if os.path.isabs(path):
        return path if os.path.isfile(path) else None
    folder = os.path.abspath(cwd)
    while True:
        candidate = os.path.join(folder, path)
        if os.path.isfile(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _kernel_id():
    """This kernel's id, from the name of its connection file (``kernel-<id>.json``), or ``None``."""
    try:
        from ipykernel.connect import get_connection_file

        name = os.path.basename(get_connection_file())
    except Exception:  # not an ipykernel, or one without a connection file
        return None
    match = re.fullmatch(r"kernel-(.+)\.json", name)
    return match.group(1) if match else None


def _running_servers():
    """The Jupyter servers that run here: what each wrote about itself in Jupyter's runtime folder (its ``url``,
    ``token`` and root folder), as ``jupyter server list`` reads it."""
    try:
        from jupyter_core.paths import jupyter_runtime_dir

        folder = jupyter_runtime_dir()
        names = sorted(os.listdir(folder))
    except Exception:  # no Jupyter here, or no runtime folder yet
        return []
    servers = []
    for name in names:
        if re.fullmatch(r"(jpserver|nbserver)-\d+\.json", name):
            try:
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    info = json.load(f)
            except (OSError, ValueError):
                continue
            if isinstance(info, dict):
                servers.append(info)
    return servers


def _sessions_api_path(kernel_id, servers):
    """The path of the notebook whose session runs ``kernel_id``, asked of each server's sessions API."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # the server is on this machine
    for server in servers:
        url, root = server.get("url"), server.get("root_dir") or server.get("notebook_dir")
        if not isinstance(url, str) or not isinstance(root, str):
            continue
        token = server.get("token") or os.environ.get("JUPYTERHUB_API_TOKEN", "")
        request = urllib.request.Request(url.rstrip("/") + "/api/sessions",
                                         headers={"Authorization": f"token {token}"} if token else {})
        try:
            with opener.open(request, timeout=ASK_SECONDS) as answer:
                sessions = json.loads(answer.read().decode("utf-8"))
        except (OSError, ValueError):
            continue
        for session in sessions if isinstance(sessions, list) else []:
            kernel = session.get("kernel") if isinstance(session, dict) else None
            if isinstance(kernel, dict) and kernel.get("id") == kernel_id:
                path = session.get("path") or (session.get("notebook") or {}).get("path")
                if isinstance(path, str) and path:
                    found = os.path.join(os.path.expanduser(root), *path.split("/"))
                    if os.path.isfile(found):
                        return found
    return None


def find_notebook(namespace=None, *, environ=None, cwd=None, servers=None, kernel_id=None):
    """The path of the saved file of the notebook this kernel runs, or ``None`` when it cannot be found.

    ``namespace`` is the notebook's global namespace (for VS Code's
    ``__vsc_ipynb_file__``); ``environ``, ``cwd``, ``servers`` and
    ``kernel_id`` default to this kernel's environment and folder, the
    Jupyter servers running here and this kernel's id.
    """
    environ = os.environ if environ is None else environ
    cwd = os.getcwd() if cwd is None else cwd
    kernel_id = _kernel_id() if kernel_id is None else kernel_id
    found = _sessions_api_path(kernel_id, _running_servers() if servers is None else servers) if kernel_id else None
    if found is None:
        found = _resolve(environ.get("JPY_SESSION_NAME"), cwd)
    if found is None and namespace is not None:
        found = _resolve(namespace.get("__vsc_ipynb_file__"), cwd)
    return found if found is None or found.endswith(".ipynb") else None


def colab_notebook():
    """``(file name, notebook JSON)`` of the Colab notebook this kernel runs, the name ``None`` when Colab does not
    say it (or names no ``.ipynb`` file); ``None`` outside Colab; ``(None, None)`` when Colab does not hand the
    notebook over."""
    if "google.colab" not in sys.modules:
        return None
    try:
        from google.colab import _message

        reply = _message.blocking_request("get_ipynb", request="", timeout_sec=COLAB_SECONDS)
    except Exception:  # Colab's API changed, or it did not answer in time
        return None, None
    notebook = reply.get("ipynb") if isinstance(reply, dict) else None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        return None, None
    colab = notebook.get("metadata", {}).get("colab", {}) if isinstance(notebook.get("metadata"), dict) else {}
    name = os.path.basename(str(colab.get("name", ""))) if isinstance(colab, dict) else ""
    return (name if name.endswith(".ipynb") else None), notebook


def _assignment_of(notebook):
    """The assignment of this course whose release shares the most graded cells with ``notebook`` (its JSON), or
    ``None`` when none does or the releases cannot be read (the check then says so itself)."""
    try:
        return _which_assignment("", notebook, _released(RELEASE_DIR))
    except (OSError, ValueError):
        return None


# -- running the check ------------------------------------------------------------------------------------

def _saved_when(path):
    seconds = max(time.time() - os.path.getmtime(path), 0)
    if seconds < 90:
        return "less than a minute ago"
    if seconds < 90 * 60:
        return f"{round(seconds / 60)} minutes ago"
    return time.strftime("on %Y-%m-%d at %H:%M", time.localtime(os.path.getmtime(path)))


def _check_environment():
    env = {key: value for key, value in os.environ.items()
           if key not in KERNEL_ONLY and not key.startswith(KERNEL_ONLY_PREFIXES)}
    env["PYTHONIOENCODING"] = "utf-8"  # the report is read back as UTF-8 whatever the system's encoding
    return env


def run_check(path):
    """Run ``python -m perceptron_course path`` in a fresh process; print what it printed; return its exit status."""
    check = ProcessTree([sys.executable, "-m", "perceptron_course", path], cwd=os.path.dirname(path) or None,
                        env=_check_environment(), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = check.communicate()
    except KeyboardInterrupt:
        check.end(gently=5)
        print(f"{COMMAND}: stopped before it finished; nothing was changed.")
        return None
    finally:
        check.end()
    out, err = out.decode("utf-8", "replace"), err.decode("utf-8", "replace")
    if out:
        print(out, end="" if out.endswith("\n") else "\n")
    if err:
        print(err, end="" if err.endswith("\n") else "\n", file=sys.stderr)
    return check.process.returncode


def _budget():
    try:
        return f" (at most {course_limits().notebook_seconds:g} s)"
    except LimitsError:
        return ""


def check_this_notebook():
    """Check the notebook this kernel runs, as ``perceptron-check`` does, and print the report (see the module).

    Returns the check's exit status (0 ready, 1 not ready, 2 not checkable),
    or ``None`` when no check ran.
    """
    colab = colab_notebook()
    if colab is not None:
        name, notebook = colab
        if notebook is None:
            print(COLAB_NOT_HANDED)
            return None
        # Without its name, the notebook is checked under its assignment's, so that the report does not ask the
        # student to rename a file that may be named right; what could not be checked is said after the report.
        assignment = _assignment_of(notebook) if name is None else None
        print(f"Checking this notebook as it is now in Colab{_budget()}: it runs from top to bottom in a fresh "
              "Python, as grading will.", flush=True)
        with tempfile.TemporaryDirectory(prefix="perceptron-colab-", ignore_cleanup_errors=True) as folder:
            path = os.path.join(folder, name or f"{assignment or 'notebook'}.ipynb")
            with open(path, "w", encoding="utf-8") as f:
                json.dump(notebook, f, ensure_ascii=False)
            status = run_check(path)
        if assignment is not None and status is not None:
            print(COLAB_UNNAMED.format(name=f"{assignment}.ipynb", stem=assignment))
        return status
    try:
        from IPython import get_ipython

        shell = get_ipython()
    except ImportError:
        shell = None
    path = find_notebook(shell.user_ns if shell is not None else None)
    if path is None:
        print(NOT_FOUND)
        return None
    print(f"Checking the saved file {path}, saved {_saved_when(path)}. If you changed the notebook since, save it "
          "first (Ctrl+S, or File > Save) and run this cell again: the check runs what is saved, from top to bottom "
          f"in a fresh Python, as grading will{_budget()}.", flush=True)
    return run_check(path)
