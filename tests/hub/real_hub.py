"""A real JupyterHub on loopback for the tests: its proxy, PAM, real Linux users, the course exchange.

One hub serves every test of a session (:func:`start`); users are real Linux
users (prefix ``pcx-``) with private homes, made once and kept.  Each person
acts as themselves: :meth:`Hub.run_as` runs a command as the Linux user with
the token the hub gave them, as their server's terminal would.
"""

import json
import os
import pwd
import secrets
import shutil
import subprocess
import time
import urllib.error
import urllib.request


from tools.hub import DEFAULT_PREFIX, ensure_user, free_port, private_folder, start_hub, stop_hub, write_site

COURSES = {
    "perceptron": {"students": ["pcx-ann", "pcx-bob", "pcx-eve", "pcx-zoe"], "tas": ["pcx-tia"],
                   "instructors": ["pcx-ian"]},
    "perceptron-b": {"students": ["pcx-bob"], "tas": [], "instructors": ["pcx-ian"]},
}
RUNUSER = shutil.which("runuser") or "/usr/sbin/runuser"
SERVER_SCOPES = ["access:services!service=course-exchange", "read:users:name!user", "read:users:groups!user",
                 "access:servers!user"]


def environment_ready(prefix=DEFAULT_PREFIX):
    return os.path.exists(os.path.join(prefix, ".built"))


class Hub:
    """A hub of :data:`COURSES` with PAM logins, or, given ``lti`` settings (``tools.hub.write_site``'s), of
    ``courses`` whose people log in by LTI launches (their Linux users are made at their first launch).

    With ``subdomains``, each user's server is on a subdomain of its own, as a department's hub is
    (``subdomain_host``): the hub at ``http://hub.localhost:<port>`` (:attr:`url`, for the browser, which
    resolves every ``*.localhost`` name to loopback by itself), each user at
    ``http://<user>.hub.localhost:<port>/user/<user>/``. Python's resolver does not resolve those names, so the
    tests' own requests go to the hub's API at :attr:`api_url` (127.0.0.1), where the proxy gives the hub every
    request of a host name it has no route for. ``admins`` are the hub's administrators (``access:servers``)."""

    def __init__(self, prefix=DEFAULT_PREFIX, courses=None, lti=None, subdomains=False, admins=()):
        courses = courses or COURSES
        self.prefix = prefix
        self.base = private_folder("pcx-hub-")
        self.state = os.path.join(self.base, "hub")
        self.admin_token = secrets.token_hex(32)
        self.passwords = {}
        for user in sorted({u for roles in courses.values() for members in roles.values() for u in members}):
            self.passwords[user] = secrets.token_urlsafe(12)
            ensure_user(user, self.passwords[user])
            home = pwd.getpwnam(user).pw_dir
            # Each session starts from empty homes: what an earlier run fetched is not this run's.
            for name in os.listdir(home):
                if not name.startswith(".bash") and name != ".profile":
                    path = os.path.join(home, name)
                    shutil.rmtree(path) if os.path.isdir(path) and not os.path.islink(path) else os.unlink(path)
        port = free_port()
        self.site = write_site(self.state, courses, prefix=prefix, port=port, admin_token=self.admin_token,
                               lti=lti, admins=admins,
                               subdomain_host=f"http://hub.localhost:{port}" if subdomains else None)
        self.api_url = f"http://127.0.0.1:{self.site['port']}"
        self.url = self.site.get("subdomain_host") or self.api_url
        # The servers' address of the exchange, and its certificate, as the hub gives them to every server.
        self.exchange_url = f"https://127.0.0.1:{self.site['exchange_port']}/services/course-exchange"
        self.ca = self.site["exchange_cert"]
        self.process = start_hub(self.state, prefix=prefix)
        self.tokens = {}

    def api(self, method, path, body=None, token=None):
        request = urllib.request.Request(f"{self.api_url}/hub/api/{path}", method=method,
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Authorization": f"token {token or self.admin_token}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            return json.loads(raw) if raw else None

    def token(self, user):
        """A token for ``user`` with exactly the scopes the hub gives their server's JUPYTERHUB_API_TOKEN."""
        if user not in self.tokens:
            made = self.api("POST", f"users/{user}/tokens", {"scopes": SERVER_SCOPES, "note": "tests"})
            self.tokens[user] = made["token"]
        return self.tokens[user]

    def server_url(self, user):
        """The address of ``user``'s server as a browser opens it: on its own subdomain where the hub has them."""
        if self.site.get("subdomain_host"):
            scheme, _, host = self.url.partition("://")
            return f"{scheme}://{user}.{host}/user/{user}/"
        return f"{self.url}/user/{user}/"

    def start_server(self, user, timeout=60):
        try:
            self.api("POST", f"users/{user}/server")
        except urllib.error.HTTPError as exc:
            if exc.code != 400:  # 400: already running
                raise
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            model = self.api("GET", f"users/{user}")
            server = model.get("servers", {}).get("")
            if server and server.get("ready"):
                # With subdomains the hub gives the server's whole address (its own host), else its path.
                return server["url"] if "://" in server["url"] else f"{self.url}{server['url']}"
            time.sleep(0.5)
        raise TimeoutError(f"{user}'s server did not start within {timeout} s; see {self.state}/jupyterhub.log")

    def client(self, token):
        """The exchange's client with ``token``, checking the exchange's certificate as every server does."""
        from perceptron_course.hub.client import ExchangeClient

        return ExchangeClient(self.exchange_url, token, ca=self.ca)

    def env(self, user):
        return {"HOME": pwd.getpwnam(user).pw_dir, "USER": user, "LOGNAME": user,
                "PATH": f"{self.prefix}/venv/bin:/usr/bin:/bin", "JUPYTERHUB_API_TOKEN": self.token(user),
                "COURSE_EXCHANGE_URL": self.exchange_url, "COURSE_EXCHANGE_CA": self.ca, "LANG": "C.UTF-8"}

    def run_as(self, user, command, *, cwd=None, check=False, timeout=120):
        """Run ``command`` (a list) as the Linux user ``user`` in their home, as their terminal would."""
        env = self.env(user)
        # The environment goes to runuser as its own (which it keeps), never on a command line others can read.
        result = subprocess.run([RUNUSER, "-u", user, "--", *command], env=env, cwd=cwd or env["HOME"],
                                capture_output=True, text=True, timeout=timeout)
        if check and result.returncode:
            raise AssertionError(f"{' '.join(command)} as {user} failed:\n{result.stdout}\n{result.stderr}")
        return result

    def nbgrader(self, user, *args, check=True):
        return self.run_as(user, [f"{self.prefix}/venv/bin/nbgrader", *args], check=check)

    def stop(self):
        stop_hub(self.process, self.site)
        shutil.rmtree(self.base, ignore_errors=True)
