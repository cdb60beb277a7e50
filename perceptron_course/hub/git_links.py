"""nbgitpuller's links held to what the book's links are: the course's repository, cloned into a plain folder.

nbgitpuller, which every server of the hub runs so that the book's links clone the course's public edition,
takes any ``repo`` and any ``targetpath`` from its link's query, and its page starts the clone as soon as it
opens. A student could then send a classmate or an instructor a link of the course's own shape that clones
her repository into a hidden folder of theirs where code runs by itself (``~/.ipython/profile_default``, whose
``startup/`` files IPython runs in every kernel), and have their account with their next notebook. So every
server checks each nbgitpuller request first (:func:`pull_problem`), and refuses with 403:

* a ``repo`` that is not one of the course's repositories, when the hub names them
  (``COURSE_GIT_REPOSITORIES``, space-separated, from the site's ``git_repositories``), and otherwise any
  ``repo`` that is not an ``https://`` or ``http://`` address (a path on the server, ``file:``, ``ssh``, git's
  other transports);
* a ``targetpath`` (or, without one, the repository's last name, which nbgitpuller then takes) that is not one
  plain, visible folder name in the home: no ``/``, no ``\\``, no leading ``.``, no control character.

:func:`guard_nbgitpuller` installs the check in front of nbgitpuller's two handlers (its page and its API,
which its older addresses redirect to); the course's server extension (:mod:`perceptron_course.hub.landing`)
calls it when the server starts.
"""

import os
import unicodedata
import urllib.parse

__all__ = ["REPOSITORIES_VARIABLE", "allowed_repositories", "guard_nbgitpuller", "pull_problem"]

REPOSITORIES_VARIABLE = "COURSE_GIT_REPOSITORIES"


def allowed_repositories(environ=os.environ):
    """The course's repositories the hub names, normalised (no trailing ``/`` or ``.git``); empty: none named."""
    return {_normalised(url) for url in environ.get(REPOSITORIES_VARIABLE, "").split() if url}


def _normalised(url):
    url = url.strip().rstrip("/")
    return url[:-4] if url.endswith(".git") else url


def pull_problem(repo, targetpath, allowed=frozenset()):
    """``None`` if nbgitpuller may clone ``repo`` into ``targetpath`` (``None``: nbgitpuller's default, the
    repository's last name), else why not, in words for the page."""
    if not isinstance(repo, str) or not repo:
        return "the link names no repository"
    if allowed:
        if _normalised(repo) not in allowed:
            return (f"the link's repository {repo!r} is not one of the course's ({', '.join(sorted(allowed))}); "
                    "use the links in the course's book")
    else:
        parts = urllib.parse.urlsplit(repo)
        if parts.scheme not in ("https", "http") or not parts.netloc or any(c.isspace() for c in repo):
            return f"the link's repository {repo!r} is not a web address (https://...)"
    folder = targetpath if targetpath else repo.rstrip("/").split("/")[-1]
    if (not folder or folder in (".", "..") or folder.startswith(".") or "/" in folder or "\\" in folder
            or any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") for c in folder)):
        return (f"the link would put the repository in {folder!r}; it may only go into a plain, visible folder of "
                "your home (one name, not starting with '.')")
    return None


def _guarded(get):
    from tornado import web

    async def checked_get(self, *args, **kwargs):
        repo = self.get_argument("repo", "")
        targetpath = self.get_argument("targetpath", None) or self.get_argument("targetPath", None)
        problem = pull_problem(repo, targetpath, allowed_repositories())
        if problem:
            self.log.warning("refused an nbgitpuller link: %s", problem)
            raise web.HTTPError(403, problem)
        return await get(self, *args, **kwargs)

    checked_get.course_guarded = True
    return checked_get


def guard_nbgitpuller():
    """Put :func:`pull_problem` in front of nbgitpuller's handlers; ``False`` if nbgitpuller is not installed.

    Raises ``RuntimeError`` when nbgitpuller is there but its handlers are not the ones this guards (a version
    that moved them), so that a server never runs it unguarded."""
    try:
        from nbgitpuller import handlers
    except ImportError:
        return False
    for name in ("SyncHandler", "UIHandler"):
        handler = getattr(handlers, name, None)
        if handler is None or not callable(getattr(handler, "get", None)):
            raise RuntimeError(f"nbgitpuller has no {name}.get to guard: its links would clone anything anywhere")
        if not getattr(handler.get, "course_guarded", False):
            handler.get = _guarded(handler.get)
    return True
