"""The course on a JupyterHub: build its environment, make its users, start it.

``python -m tools.hub build [--prefix P]``
    The environment every server of the hub runs from, at ``P`` (default
    ``/opt/perceptron-hub``): a virtual environment made with a Python every
    user can run, holding ``hub/requirements.txt`` (JupyterHub, JupyterLab,
    nbgrader, jupyterhub-ltiauthenticator) pinned by ``constraints.txt`` and the
    course's student package, with its server extension that opens an
    assignment from its link (:mod:`perceptron_course.hub.landing`);
    nbgrader's exchange set to the course exchange (``hub/nbgrader_config.py``);
    nbgrader's formgrader and course list turned off for everyone (the
    instructors' tools are this repository's commands); and
    configurable-http-proxy from npm.  Built again only when one of those changed.

``python -m tools.hub demo``
    Builds it, then starts a hub on 127.0.0.1 with demo users (two students of
    the course ``perceptron``, one of them also in ``perceptron-b``, a TA and an
    instructor), releases the course's assignments (``notebooks/release/``) into
    its exchange as the instructor, and prints the address, the users and their
    passwords; Ctrl-C stops the hub and everything it started.  Each user's
    server is on a subdomain of its own, ``http://<user>.hub.localhost:8000/``
    (``--no-subdomains``: all at ``http://127.0.0.1:8000/``).

A department's server uses the same pieces: :func:`ensure_user` for each
person (home folders 0700, in the hub's accounts group), :func:`write_site`
for ``hub.json`` (with ``lti=`` for launches from Canvas or Moodle, README,
"Launching from Canvas or Moodle"), and
``jupyterhub -f hub/jupyterhub_config.py`` (README, "Running the course on a JupyterHub").
Everything here runs as root.
"""

import argparse
import grp
import hashlib
import json
import os
import pwd
import secrets
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request

from perceptron_course.hub.lti_launch import ACCOUNTS_GROUP, DEFAULT_USERNAME_CLAIM, LaunchRules

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HUB_DIR = os.path.join(ROOT, "hub")
DEFAULT_PREFIX = os.environ.get("COURSE_HUB_PREFIX") or "/opt/perceptron-hub"
PROXY_VERSION = "5.3.0"
EXCHANGE_USER = "course-exchange"
# nbgrader's server extensions and panels students must not get; the Assignments panel and Validate stay.
SERVER_EXTENSIONS = {
    "nbgrader.server_extensions.formgrader": False,
    "nbgrader.server_extensions.course_list": False,
    "nbgrader.server_extensions.validate_assignment": True,
    "nbgrader.server_extensions.assignment_list": True,
}
# The course's own: an assignment's link (an LTI launch of one assignment) fetches and opens it.
COURSE_SERVER_EXTENSIONS = {"perceptron_course.hub.landing": True}
LAB_PLUGINS_OFF = ("@jupyter/nbgrader:formgrader", "@jupyter/nbgrader:course-list", "@jupyter/nbgrader:create-assignment")

__all__ = ["build_environment", "ensure_user", "ensure_accounts_group", "ensure_system_user", "write_site",
           "subdomain_host_setting",
           "lti_settings", "start_hub", "stop_hub", "HubError", "DEFAULT_PREFIX", "EXCHANGE_USER"]


class HubError(Exception):
    pass


def _run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode:
        raise HubError(f"{' '.join(command)} failed ({result.returncode}):\n{result.stdout[-3000:]}"
                       f"{result.stderr[-3000:]}")
    return result.stdout


def _everyone_can_run(path):
    """Whether every user can reach ``path``: each folder above it searchable by others (not so under /root)."""
    path = os.path.realpath(path)
    folder = os.path.dirname(path)
    while True:
        if not os.stat(folder).st_mode & stat.S_IXOTH:
            return False
        if folder == "/":
            return os.stat(path).st_mode & stat.S_IXOTH
        folder = os.path.dirname(folder)


def system_python():
    """A Python of 3.11 or later that every user can run (not one under root's home)."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3", shutil.which("python3") or ""):
        if candidate and os.path.exists(candidate) and _everyone_can_run(candidate):
            version = _run([candidate, "-c", "import sys; print(sys.version_info >= (3, 11))"]).strip()
            if version == "True":
                return candidate
    raise HubError("the hub's environment needs a Python 3.11 or later that every user can run (Debian's "
                   "python3 and python3-venv); a Python under /root cannot be run by the students")


def _digest(paths, tree):
    """One hash of the files ``paths`` and of every file under the folder ``tree``, by name and content."""
    digest = hashlib.sha256()
    named = [(os.path.relpath(path, ROOT), path) for path in paths]
    for folder, folders, files in os.walk(tree):
        folders.sort()
        named += [(os.path.relpath(os.path.join(folder, name), tree), os.path.join(folder, name))
                  for name in sorted(files)]
    for name, path in named:
        with open(path, "rb") as handle:
            content = handle.read()
        digest.update(f"{name}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()


def _check_server_extension(venv, name):
    """Refuse an environment whose servers would not load the server extension ``name``: a link to it (the
    book's nbgitpuller links, for nbgitpuller) would find nothing there."""
    import re

    listed = _run([os.path.join(venv, "bin", "jupyter"), "server", "extension", "list"])
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).strip() for line in listed.splitlines()]  # without its colours
    if f"{name} enabled" not in lines or not any(re.fullmatch(rf"{re.escape(name)} \S+ OK", line) for line in lines):
        raise HubError(f"the hub's environment does not load the server extension {name}:\n{listed[-3000:]}")


def environment_inputs():
    """The files the hub's environment is made from, besides the student package's staged sources: the hub's
    pins and nbgrader configuration, the constraints, what the compiled wheel adds to the staged tree (the
    C kernel and setup.py), and the two scripts that build it."""
    from tools import student_package

    return [os.path.join(HUB_DIR, "requirements.txt"), os.path.join(HUB_DIR, "nbgrader_config.py"),
            os.path.join(ROOT, "constraints.txt"), os.path.join(ROOT, "setup.py"),
            os.path.join(ROOT, student_package.KERNEL_SOURCE), os.path.abspath(student_package.__file__),
            os.path.abspath(__file__)]


def build_environment(prefix=DEFAULT_PREFIX, *, log=print):
    """Build (or bring up to date) the hub's environment at ``prefix``; returns ``prefix``."""
    from tools import student_package

    prefix = os.path.abspath(prefix)
    venv = os.path.join(prefix, "venv")
    if not shutil.which("git"):
        raise HubError("the hub's servers need git: nbgitpuller pulls the course's public repository with it "
                       "(Debian's git package)")
    wheels = tempfile.mkdtemp(prefix="hub-wheels-")
    try:
        # Up to date when nothing the environment is made from has changed (environment_inputs, and the
        # student package's sources as its build lays them out): compiling the wheels only to compare them took
        # most of a run that changed nothing.
        staged = os.path.join(wheels, "staged")
        os.makedirs(staged)
        student_package.stage(staged)
        digest = _digest(environment_inputs(), staged)
        stamp = os.path.join(prefix, ".built")
        if os.path.exists(stamp) and open(stamp).read() == digest:
            log(f"The hub's environment at {prefix} is up to date.")
            return prefix
        built = student_package.build_wheels(wheels)
        wheel = built.compiled or built.pure
        os.makedirs(prefix, exist_ok=True)
        os.chmod(prefix, 0o755)
        if not os.path.exists(os.path.join(venv, "bin", "python")):
            log(f"Making the hub's environment at {venv} ...")
            _run([system_python(), "-m", "venv", venv])
        pip = [os.path.join(venv, "bin", "python"), "-m", "pip", "install", "--disable-pip-version-check"]
        log("Installing JupyterHub, JupyterLab and nbgrader into it ...")
        _run(pip + ["-r", os.path.join(HUB_DIR, "requirements.txt"), "-c", os.path.join(ROOT, "constraints.txt")])
        log(f"Installing the student package ({os.path.basename(wheel)}) and what it needs ...")
        _run(pip + ["-c", os.path.join(ROOT, "constraints.txt"), wheel])
        # The same version number as last time, different files: replace it whatever pip thinks.
        _run(pip + ["--no-deps", "--force-reinstall", wheel])
        etc = os.path.join(venv, "etc", "jupyter")
        shutil.copyfile(os.path.join(HUB_DIR, "nbgrader_config.py"), os.path.join(etc, "nbgrader_config.py"))
        with open(os.path.join(etc, "jupyter_server_config.d", "nbgrader.json"), "w") as handle:
            json.dump({"ServerApp": {"jpserver_extensions": SERVER_EXTENSIONS}}, handle, indent=2)
        with open(os.path.join(etc, "jupyter_server_config.d", "perceptron_course.json"), "w") as handle:
            json.dump({"ServerApp": {"jpserver_extensions": COURSE_SERVER_EXTENSIONS}}, handle, indent=2)
        # JupyterLab asks every new user whether to fetch news from the internet; a course's hub does not.
        settings = os.path.join(venv, "share", "jupyter", "lab", "settings")
        os.makedirs(settings, exist_ok=True)
        with open(os.path.join(settings, "overrides.json"), "w") as handle:
            json.dump({"@jupyterlab/apputils-extension:notification": {"fetchNews": "false",
                                                                        "checkForUpdates": False}}, handle, indent=2)
        for plugin in LAB_PLUGINS_OFF:
            _run([os.path.join(venv, "bin", "jupyter"), "labextension", "disable", "--level=sys_prefix", plugin])
        # nbgitpuller (hub/requirements.txt) serves the book's links to the hub; its package enables itself.
        _check_server_extension(venv, "nbgitpuller")
        log(f"Installing configurable-http-proxy {PROXY_VERSION} from npm ...")
        _run(["npm", "install", "--no-audit", "--no-fund", "--prefix", os.path.join(prefix, "proxy"),
              f"configurable-http-proxy@{PROXY_VERSION}"])
        _run(["chmod", "-R", "a+rX,go-w", prefix])
        with open(stamp, "w") as handle:
            handle.write(digest)
        log(f"The hub's environment is ready at {prefix}.")
        return prefix
    finally:
        shutil.rmtree(wheels, ignore_errors=True)


def ensure_accounts_group():
    """The Linux group of the accounts made for the hub (an LTI launch logs in no other existing account)."""
    try:
        grp.getgrnam(ACCOUNTS_GROUP)
    except KeyError:
        _run(["groupadd", "--system", ACCOUNTS_GROUP])


def ensure_user(name, password=None):
    """A Linux user ``name`` for the hub: a private home (0700), in the hub's accounts group; sets ``password``
    when given."""
    ensure_accounts_group()
    try:
        pwd.getpwnam(name)
    except KeyError:
        # No subordinate user ids (which useradd allots where /etc/subuid exists): processes in such a range
        # would be hers but not by number, and outlive her server's stop (leftovers).
        _run(["useradd", "--create-home", "--shell", "/bin/bash", "-K", "HOME_MODE=0700", "-K", "SUB_UID_COUNT=0",
              "-K", "SUB_GID_COUNT=0", "--groups", ACCOUNTS_GROUP, name])
    if name not in grp.getgrnam(ACCOUNTS_GROUP).gr_mem:
        _run(["usermod", "--append", "--groups", ACCOUNTS_GROUP, name])
    home = pwd.getpwnam(name).pw_dir
    os.chmod(home, 0o700)
    if password is not None:
        _run(["chpasswd"], input=f"{name}:{password}\n")
    return pwd.getpwnam(name)


def ensure_system_user(name):
    """A system user with no login and no home, to run a service as."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        _run(["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", name])
        return pwd.getpwnam(name)


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# The exchange's key and certificate, made by the hub's environment's Python (which has cryptography): the
# servers check the exchange by this certificate before they send it a token, so a process that takes the
# exchange's port while it is down (any user can bind a loopback port) gets nothing.
CERTIFICATE_SCRIPT = """
import datetime, ipaddress, os, sys
from cryptography import x509
from cryptography.x509.oid import NameOID
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

key_path, cert_path, *names = sys.argv[1:]
key = ec.generate_private_key(ec.SECP256R1())
name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "course-exchange")])
def alt(text):
    try:
        return x509.IPAddress(ipaddress.ip_address(text))
    except ValueError:
        return x509.DNSName(text)
now = datetime.datetime.now(datetime.timezone.utc)
cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=825))
        .add_extension(x509.SubjectAlternativeName([alt(n) for n in names]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .sign(key, hashes.SHA256()))
fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
with os.fdopen(fd, "wb") as handle:
    handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption()))
with open(cert_path, "wb") as handle:
    handle.write(cert.public_bytes(serialization.Encoding.PEM))
"""


def make_certificate(prefix, key_path, cert_path, owner, names=("127.0.0.1", "localhost")):
    """A new key (``owner``'s alone, 0600) and self-signed certificate (everyone's, 0644) for the exchange."""
    for path in (key_path, cert_path):
        if os.path.lexists(path):
            os.unlink(path)
    _run([os.path.join(prefix, "venv", "bin", "python"), "-c", CERTIFICATE_SCRIPT, key_path, cert_path, *names])
    os.chown(key_path, owner.pw_uid, owner.pw_gid, follow_symlinks=False)
    os.chmod(cert_path, 0o644)


# The hub's own RSA key for LTI 1.3, made by the hub's environment's Python: root's alone (0600), in the state
# folder; only its public half ever leaves, as the tool's key set (/hub/lti13/jwks) that Canvas and Moodle ask for.
TOOL_KEY_SCRIPT = """
import os, sys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
with os.fdopen(fd, "wb") as handle:
    handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                   serialization.NoEncryption()))
"""
LTI_REQUIRED = ("issuer", "client_ids", "deployment_ids", "jwks_url", "authorize_url", "courses")


def lti_settings(lti, state, prefix):
    """The ``lti`` section of ``hub.json``, checked, with the hub's own key made (once) in ``state``."""
    missing = [key for key in LTI_REQUIRED if not lti.get(key)]
    if missing:
        raise HubError(f"the LTI settings need {', '.join(missing)} (README, \"Launching from Canvas or Moodle\")")
    unknown = set(lti) - set(LTI_REQUIRED) - {"username_claim", "token_url"}
    if unknown:
        raise HubError(f"unknown LTI settings: {', '.join(sorted(unknown))}")
    try:
        LaunchRules(courses=dict(lti["courses"]), deployment_ids=frozenset(lti["deployment_ids"]),
                    username_claim=lti.get("username_claim") or DEFAULT_USERNAME_CLAIM)
    except ValueError as exc:
        raise HubError(f"LTI settings: {exc}") from None
    key = os.path.join(state, "lti-tool-key.pem")
    if not os.path.exists(key):
        _run([os.path.join(prefix, "venv", "bin", "python"), "-c", TOOL_KEY_SCRIPT, key])
    return {**lti, "client_ids": list(lti["client_ids"]), "deployment_ids": list(lti["deployment_ids"]),
            "username_claim": lti.get("username_claim") or DEFAULT_USERNAME_CLAIM, "tool_key": key}


def private_folder(prefix):
    """A new folder in the temporary folder that only root can write and others can only pass through (0711)."""
    folder = tempfile.mkdtemp(prefix=prefix)
    os.chmod(folder, 0o711)
    return folder


def subdomain_host_setting(url):
    """``url`` checked as the hub's ``subdomain_host``: ``http(s)://host[:port]`` with a host name (each user's
    server is at ``<user>.<host>``, so no IP address) and no path; returned without a trailing slash."""
    import ipaddress
    from urllib.parse import urlsplit

    parts = urlsplit(url or "")
    try:
        port = parts.port
    except ValueError:
        port = None
        parts = parts._replace(scheme="")
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path.strip("/") or parts.query \
            or parts.fragment or parts.username or parts.password:
        raise HubError(f"subdomain_host must be http(s)://HOST[:PORT] with nothing after it, not {url!r}")
    try:
        ipaddress.ip_address(parts.hostname)
    except ValueError:
        pass
    else:
        raise HubError(f"subdomain_host needs a host name whose subdomains name the users' servers, not the "
                       f"address {parts.hostname} (on loopback: http://hub.localhost:PORT)")
    if parts.scheme == "http" and parts.hostname != "localhost" and not parts.hostname.endswith(".localhost"):
        raise HubError(f"subdomain_host {url!r} is plain HTTP: the hub's cookies are secure (__Host-) ones, which "
                       "browsers keep only over HTTPS (or on *.localhost, for a hub on loopback)")
    return f"{parts.scheme}://{parts.hostname.lower()}" + (f":{port}" if port else "")


def write_site(state, courses, *, prefix=DEFAULT_PREFIX, port=8000, admins=(), exchange_user=EXCHANGE_USER,
               admin_token=None, store=None, lti=None, subdomain_host=None, git_repositories=(),
               memory_group_folder=None):
    """The hub's state folder (root's alone), its ``hub.json``, and the exchange's store (its user's alone).

    ``courses`` is ``{course: {"students": [...], "tas": [...], "instructors": [...]}}``; ``admin_token``,
    if given, is a token for the site's scripts (the hub's API as an administrator of users and servers).
    ``lti``, if given, makes people log in by LTI 1.3 launches from one LMS instead of with Linux passwords:
    ``{"issuer", "client_ids", "deployment_ids", "jwks_url", "authorize_url", "courses": {context id: course},
    "username_claim"}`` (README, "Launching from Canvas or Moodle"); the hub's own key is made beside
    ``hub.json``.
    ``subdomain_host``, if given (``https://hub.example.edu``, with a wildcard DNS name and a wildcard
    certificate for ``*.hub.example.edu``; ``http://hub.localhost:PORT`` on loopback), puts each user's server
    at an origin of its own, ``<user>.<host>`` (README, "Running the course on a JupyterHub").
    The store is ``store`` (default: ``<state>-exchange``, beside the state folder: inside it, the
    exchange's user could not reach it, and the hub's database and secrets must stay root's).
    ``git_repositories``: the addresses of the course's repositories (the public edition the book's links
    clone); nbgitpuller's links then clone those only (:mod:`perceptron_course.hub.git_links`).
    ``memory_group_folder``: with cgroup v2, the control group the students' memory groups are made in
    (:mod:`perceptron_course.hub.student_limits`); by default, with cgroup v1, one under the hub's own.
    """
    if subdomain_host is not None:
        subdomain_host = subdomain_host_setting(subdomain_host)
    from perceptron_course.hub.git_links import pull_problem

    for repository in git_repositories:
        problem = pull_problem(repository, None)
        if problem:
            raise HubError(f"git_repositories: {problem}")
    state = os.path.abspath(state)
    store = os.path.abspath(store or state.rstrip("/") + "-exchange")
    for folder in (state, store):
        parent = os.stat(os.path.dirname(folder))
        # In a folder others can write (/tmp), a student could make the folder first, or a link in its place.
        if parent.st_mode & stat.S_IWOTH or parent.st_uid != 0:
            raise HubError(f"{folder} must be in a folder only root can write (such as /var/lib), not in "
                           f"{os.path.dirname(folder)}")
        if os.path.islink(folder):
            raise HubError(f"{folder} is a symbolic link; the hub's folders must be real folders")
    os.makedirs(state, exist_ok=True)
    os.chmod(state, 0o700)
    os.makedirs(store, exist_ok=True)
    user = ensure_system_user(exchange_user)
    os.chown(store, user.pw_uid, user.pw_gid, follow_symlinks=False)
    os.chmod(store, 0o700)
    key, cert = os.path.join(store, ".tls-key.pem"), store + ".pem"
    make_certificate(prefix, key, cert, user)
    if lti is not None:
        lti = lti_settings(lti, state, prefix)
    site = {"prefix": os.path.abspath(prefix), "port": port, "hub_port": free_port(), "proxy_api_port": free_port(),
            "exchange_port": free_port(), "exchange_user": exchange_user, "exchange_store": store,
            "exchange_key": key, "exchange_cert": cert,
            "courses": courses, "admins": list(admins), "admin_token": admin_token}
    if lti is not None:
        site["lti"] = lti
    if subdomain_host is not None:
        site["subdomain_host"] = subdomain_host
    if git_repositories:
        site["git_repositories"] = list(git_repositories)
    if memory_group_folder:
        site["memory_group_folder"] = os.path.abspath(memory_group_folder)
    with open(os.path.join(state, "hub.json"), "w") as handle:
        json.dump(site, handle, indent=1)
    os.chmod(os.path.join(state, "hub.json"), 0o600)
    return site


def stop_hub(process, site, timeout=30.0):
    """Stop the hub ``process`` of ``site`` (its ``hub.json``) and what it started: the users' servers, the proxy
    and the exchange run in sessions of their own, so each is found by what marks it as this hub's (another hub on
    the machine keeps its own)."""
    import psutil

    process.terminate()
    try:
        process.wait(timeout)
    except subprocess.TimeoutExpired:
        process.kill()
    for child in psutil.process_iter(["cmdline"]):
        try:
            line = " ".join(child.info["cmdline"] or ())
            if "jupyterhub-singleuser" in line:
                mine = f":{site['hub_port']}/" in child.environ().get("JUPYTERHUB_API_URL", "")
            else:
                mine = (f"--api-port {site['proxy_api_port']}" in line
                        or f"--store {site['exchange_store']}" in line)
            if mine:
                child.kill()
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            pass


def start_hub(state, *, prefix=DEFAULT_PREFIX, timeout=60.0, log_file=None):
    """Start JupyterHub on the site in ``state``; returns the process once the hub answers."""
    with open(os.path.join(state, "hub.json")) as handle:
        site = json.load(handle)
    # The hub's HTTP client (aiohttp) reads the certificates it trusts when it is imported, before the
    # configuration: the exchange's certificate must be in the hub's environment from the start.
    env = {**os.environ, "COURSE_HUB_STATE": state, "SSL_CERT_FILE": site["exchange_cert"]}
    out = open(log_file or os.path.join(state, "jupyterhub.log"), "ab")
    process = subprocess.Popen([os.path.join(prefix, "venv", "bin", "jupyterhub"), "-f",
                                os.path.join(HUB_DIR, "jupyterhub_config.py")],
                               cwd=state, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + timeout
    url = f"http://127.0.0.1:{site['port']}/hub/api/"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            stop_hub(process, site)  # what it started before it failed (the exchange) must not outlive it
            raise HubError(f"JupyterHub exited ({process.returncode}); see {out.name}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return process
        except OSError:
            time.sleep(0.3)
    stop_hub(process, site)
    raise HubError(f"JupyterHub did not answer at {url} within {timeout:.0f} s; see {out.name}")


DEMO = {
    "perceptron": {"students": ["demo-student", "demo-student2"], "tas": ["demo-ta"], "instructors": ["demo-teacher"]},
    "perceptron-b": {"students": ["demo-student2"], "tas": [], "instructors": ["demo-teacher"]},
}


def demo(prefix, port, subdomains=True):
    import signal

    from perceptron_course.hub.client import ExchangeClient
    from perceptron_course.hub.transfer import files_from_folder

    build_environment(prefix)
    passwords = {}
    for user in sorted({u for roles in DEMO.values() for members in roles.values() for u in members}):
        passwords[user] = secrets.token_urlsafe(9)
        ensure_user(user, passwords[user])
    state = os.path.join(private_folder("perceptron-hub-demo-"), "hub")
    admin_token = secrets.token_hex(32)
    # Each user's server at http://<user>.hub.localhost:<port>/ (Chromium and Firefox take every *.localhost name
    # for loopback by themselves): the department's setting, on this machine with no DNS.
    site = write_site(state, DEMO, prefix=prefix, port=port, admin_token=admin_token,
                      subdomain_host=f"http://hub.localhost:{port}" if subdomains else None)
    process = start_hub(state, prefix=prefix)
    # Stop the hub and all it started on Ctrl-C and on a plain kill alike.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        url = f"http://127.0.0.1:{site['port']}"  # the hub's API, for this script (which cannot resolve *.localhost)
        exchange = f"https://127.0.0.1:{site['exchange_port']}/services/course-exchange"
        request = urllib.request.Request(f"{url}/hub/api/users/demo-teacher/tokens", method="POST",
                                         data=json.dumps({"scopes": ["access:services!service=course-exchange",
                                                                     "read:users:name!user",
                                                                     "read:users:groups!user"],
                                                          "note": "the demo's release", "expires_in": 600}).encode(),
                                         headers={"Authorization": f"token {admin_token}"})
        with urllib.request.urlopen(request, timeout=30) as response:
            teacher = ExchangeClient(exchange, json.loads(response.read())["token"], ca=site["exchange_cert"])
        release = os.path.join(ROOT, "notebooks", "release")
        released = []
        for assignment in sorted(os.listdir(release)) if os.path.isdir(release) else ():
            teacher.release("perceptron", assignment, files_from_folder(os.path.join(release, assignment)))
            released.append(assignment)
        shown = site.get("subdomain_host") or url
        print(f"\nThe course's hub: {shown}/  (state and log in {state})")
        if site.get("subdomain_host"):
            print("  each user's JupyterLab at http://<user>.hub.localhost:...: open it in Chromium or Firefox, "
                  "which find *.localhost on this machine by themselves (--no-subdomains for one address)")
        for user, password in passwords.items():
            roles = ", ".join(f"{'TA' if kind == 'tas' else kind[:-1]} of {course}" for course, r in DEMO.items()
                              for kind, members in r.items() if user in members)
            print(f"  {user:14} password {password}   {roles}")
        listed = ", ".join(released) or "nothing (run make assignments first)"
        print(f"Released into the course perceptron, as demo-teacher: {listed}. Log in as a student and open "
              "Nbgrader > Assignment List in JupyterLab.")
        if os.stat(ROOT).st_mode & stat.S_IROTH:
            print(f"WARNING: {ROOT} can be read by every user of this machine, the hub's students included, and it "
                  "holds the solutions: chmod o-rwx it before real students use this machine.")
        print("Ctrl-C stops the hub.")
        process.wait()
    except KeyboardInterrupt:
        pass
    finally:
        stop_hub(process, site)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tools.hub", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="build or update the hub's environment")
    build.add_argument("--prefix", default=DEFAULT_PREFIX)
    run = sub.add_parser("demo", help="start a demo hub on loopback with demo users (at http://hub.localhost:PORT, "
                                      "each user on a subdomain of their own)")
    run.add_argument("--prefix", default=DEFAULT_PREFIX)
    run.add_argument("--port", type=int, default=8000)
    run.add_argument("--no-subdomains", dest="subdomains", action="store_false",
                     help="serve every user at http://127.0.0.1:PORT/user/NAME/ instead of their own "
                          "http://NAME.hub.localhost:PORT/ (for a browser that does not resolve *.localhost)")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        if args.command == "build":
            print("The hub's environment is built as root (sudo make hub-env): not built, and the hub's tests "
                  "skip themselves.")
            return
        sys.exit("The hub's environment, its users and the hub itself are set up as root (sudo make hub-demo).")
    try:
        if args.command == "build":
            build_environment(args.prefix)
        else:
            demo(args.prefix, args.port, args.subdomains)
    except HubError as exc:
        sys.exit(str(exc))


if __name__ == "__main__":
    main()
