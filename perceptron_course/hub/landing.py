"""Open an assignment from its link: where an LTI launch of one assignment lands, on the user's own server.

A Jupyter server extension (enabled for every server of the course's hub by
``python -m tools.hub build``) with one page,
``/user/<name>/perceptron-course/open/<course>/<assignment>``: if the
assignment is not in the user's ``<course>/<assignment>/`` folder yet, it is
fetched from the course exchange as the Assignments panel's *Fetch* does (as
the user, with their server's token, never replacing a file); then JupyterLab
opens it: the notebook, when the assignment has one, or its folder.  A link to
an assignment that is not released says so on a page of its own.

The page only ever fetches what the user could fetch with the panel, into the
place the panel would, and only when nothing is there, so a link someone else
made can do no more than the user's own click.
"""

import asyncio
import os
import urllib.parse

from jupyter_server.base.handlers import JupyterHandler
from jupyter_server.utils import url_path_join
from tornado import web
from tornado.escape import xhtml_escape

from perceptron_course.hub.client import ExchangeClient, ExchangeClientError
from perceptron_course.hub.courses import is_assignment_id, is_course_id
from perceptron_course.hub.transfer import TransferError, write_files

__all__ = ["ROUTE", "OpenAssignmentHandler"]

ROUTE = "perceptron-course/open"

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>
<body><main><h1>{title}</h1><p>{message}</p><p><a href="{lab}">Open JupyterLab</a></p></main></body></html>"""


def _fetch(course, assignment, folder):
    files = ExchangeClient().fetch(course, assignment)
    write_files(files, folder, replace=False)


class OpenAssignmentHandler(JupyterHandler):
    @web.authenticated
    async def get(self, course, assignment):
        if not (is_course_id(course) and is_assignment_id(assignment)):
            raise web.HTTPError(404, "no such assignment")
        root = os.path.realpath(os.path.expanduser(self.settings.get("server_root_dir", "~")))
        folder = os.path.join(root, course, assignment)
        if not os.path.isdir(folder):
            try:
                await asyncio.to_thread(_fetch, course, assignment, folder)
            except (ExchangeClientError, TransferError) as exc:
                status = getattr(exc, "status", None) or 502
                self.set_status(status if status in (403, 404) else 502)
                self.finish(PAGE.format(title=xhtml_escape(f"{assignment} could not be opened"),
                                        message=xhtml_escape(f"The course exchange said: {exc}"),
                                        lab=xhtml_escape(url_path_join(self.base_url, "lab"))))
                return
        notebooks = sorted(name for name in os.listdir(folder)
                           if name.endswith(".ipynb") and not name.startswith(".")
                           and os.path.isfile(os.path.join(folder, name)))
        parts = [course, assignment] + (notebooks if len(notebooks) == 1 else [])
        self.redirect(url_path_join(self.base_url, "lab", "tree", *(urllib.parse.quote(p) for p in parts)))


def _jupyter_server_extension_points():
    return [{"module": "perceptron_course.hub.landing"}]


def _load_jupyter_server_extension(serverapp):
    from perceptron_course.hub.git_links import guard_nbgitpuller

    # nbgitpuller's links are held to the course's repository and a plain folder (git_links) before any
    # server of the hub serves one.
    guard_nbgitpuller()
    route = url_path_join(serverapp.web_app.settings["base_url"], ROUTE, "([^/]+)", "([^/]+)")
    serverapp.web_app.add_handlers(".*$", [(route, OpenAssignmentHandler)])
