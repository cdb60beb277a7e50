"""JupyterHub's configuration for the perceptron course: the one a department runs, and the demo's.

One server: the hub and its proxy (configurable-http-proxy), PAM logins for
real Linux users, each user's JupyterLab started as that user
(LocalProcessSpawner) from the course's environment, which holds JupyterLab,
nbgrader's Assignments panel and the course's student package; and the
course exchange (:mod:`perceptron_course.hub.service`), a hub service run as
its own Linux user, which holds released work, submissions and feedback.

Everything site-specific is read from ``<state>/hub.json``, written by
``tools.hub.write_site`` (README, "Running the course on a JupyterHub",
step 3, and the demo's ``python -m tools.hub demo``): the environment's prefix, the state folder, the address (with
``subdomain_host``, each user's server on a subdomain of its own), and the
courses with their students, TAs and instructors, which become the hub's
groups ``course-<course>-students|tas|instructors`` and so each user's role in
each course.  With an ``lti`` section there, people log in by LTI 1.3 launches
from Canvas or Moodle instead (``hub/course_lti.py``; README, "Launching from
Canvas or Moodle"), and each launch adds its user to their course's group.
Start it as root: ``jupyterhub -f hub/jupyterhub_config.py`` with
``COURSE_HUB_STATE`` naming the state folder.
"""

import json
import os

from perceptron_course.hub.leftovers import end_leftover_processes

c = get_config()  # noqa: F821  (provided by traitlets when JupyterHub loads this file)

state = os.environ.get("COURSE_HUB_STATE", "/var/lib/perceptron-hub")
with open(os.path.join(state, "hub.json"), encoding="utf-8") as handle:
    site = json.load(handle)
prefix = site["prefix"]
exchange_name = "course-exchange"
# HTTPS with the site's own certificate: the servers check it before they send the exchange a token. The hub
# trusts it too (start it with SSL_CERT_FILE naming the certificate: Python reads it beside the system's
# certificate folder, and the hub's HTTP client reads it when it is imported), and so does its proxy (Node adds
# NODE_EXTRA_CA_CERTS to its own), so the hub sees the service up and the proxy's route to it checks it as well.
exchange_url = f"https://127.0.0.1:{site['exchange_port']}"
if os.environ.get("SSL_CERT_FILE") != site["exchange_cert"]:
    raise SystemExit(f"start the hub with SSL_CERT_FILE={site['exchange_cert']} in its environment (the course "
                     "exchange's certificate), as python -m tools.hub and the README's steps do")
os.environ["NODE_EXTRA_CA_CERTS"] = site["exchange_cert"]

# Where it listens: loopback unless the site says otherwise (a department puts TLS in front, or sets
# ssl_key and ssl_cert here).
c.JupyterHub.ip = site.get("ip", "127.0.0.1")
c.JupyterHub.port = site["port"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = site["hub_port"]
c.ConfigurableHTTPProxy.api_url = f"http://127.0.0.1:{site['proxy_api_port']}"
c.ConfigurableHTTPProxy.command = [os.path.join(prefix, "proxy", "node_modules", ".bin", "configurable-http-proxy")]
# Each user's server at an address of its own, http(s)://<user>.<host>/user/<user>/, the hub at <host> itself:
# a page a student's server serves (a notebook they trusted, anything their server sends) then runs at the
# student's own origin, and a TA or instructor who opens it keeps their own server and hub session out of its
# reach (the browser's same-origin policy: no reading another origin's pages or API, no framing them). It needs a
# wildcard DNS name (*.<host>) and, with HTTPS, a wildcard certificate; the demo and the tests use
# http://hub.localhost:<port>, which browsers resolve to loopback by themselves. The proxy then routes by host
# name; the hub keeps every other host name (127.0.0.1, as the site's own scripts use), and the servers and the
# exchange still talk to the hub and to each other on 127.0.0.1 directly, never through a user's domain. The
# hub's and the servers' cookies get the __Host- prefix: only their own host can set them, so a student's
# server cannot plant a cookie for the hub's domain (cookie tossing, GHSA-7r3h-4ph8-w38g). Such cookies must be
# Secure, which the servers make their OAuth state cookie only when they see HTTPS: every cookie is Secure here
# (browsers keep Secure cookies of http://*.localhost too, so the demo on loopback works as well).
if site.get("subdomain_host"):
    c.JupyterHub.subdomain_host = site["subdomain_host"]
    c.JupyterHub.cookie_host_prefix_enabled = True
    c.JupyterHub.tornado_settings = {"cookie_options": {"secure": True}}
c.JupyterHub.db_url = "sqlite:///" + os.path.join(state, "jupyterhub.sqlite")
c.JupyterHub.cookie_secret_file = os.path.join(state, "jupyterhub_cookie_secret")
c.ConfigurableHTTPProxy.pid_file = os.path.join(state, "jupyterhub-proxy.pid")

# Who may log in: the people of the courses, with their Linux passwords (PAM); or, where the site has an "lti"
# section, whoever the course's LMS launches with a role in one of the hub's courses (hub/course_lti.py), whose
# groups then fill themselves at each launch.
courses = site["courses"]
people = sorted({user for course in courses.values() for members in course.values() for user in members})
lti = site.get("lti")
if lti:
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from course_lti import CourseLTIAuthenticator

    c.JupyterHub.authenticator_class = CourseLTIAuthenticator
    c.CourseLTIAuthenticator.issuer = lti["issuer"]
    c.CourseLTIAuthenticator.client_id = set(lti["client_ids"])
    c.CourseLTIAuthenticator.deployment_ids = set(lti["deployment_ids"])
    c.CourseLTIAuthenticator.jwks_endpoint = lti["jwks_url"]
    c.CourseLTIAuthenticator.authorize_url = lti["authorize_url"]
    c.CourseLTIAuthenticator.courses = dict(lti["courses"])
    c.CourseLTIAuthenticator.username_claim = lti["username_claim"]
    c.CourseLTIAuthenticator.tool_key_file = lti["tool_key"]
    c.CourseLTIAuthenticator.nonce_file = os.path.join(state, "lti-nonces.json")
    c.CourseLTIAuthenticator.tool_name = "The perceptron course's hub"
    c.CourseLTIAuthenticator.tool_description = "JupyterLab with the course's assignments"
else:
    c.JupyterHub.authenticator_class = "pam"
    c.Authenticator.allowed_users = set(people)
c.Authenticator.admin_users = set(site.get("admins", []))
c.JupyterHub.load_groups = {
    f"course-{course}-{kind}": {"users": sorted(members)}
    for course, roles in courses.items() for kind, members in roles.items()
}

# Each user's JupyterLab, as that user, from the course's environment; home folders are private (0700). A
# student's server starts under a limit on her processes and in a memory group of her own, so that a fork bomb
# or a runaway array takes no one else's (perceptron_course/hub/spawner.py; Autograder.hub_student_processes and
# hub_student_memory_bytes; with cgroup v2, c.CourseSpawner.memory_group_folder, README).
c.JupyterHub.spawner_class = "perceptron_course.hub.spawner.CourseSpawner"
if site.get("memory_group_folder"):
    c.CourseSpawner.memory_group_folder = site["memory_group_folder"]
c.Spawner.cmd = [os.path.join(prefix, "venv", "bin", "jupyterhub-singleuser")]
c.Spawner.default_url = "/lab"
c.Spawner.notebook_dir = "~"
c.Spawner.environment = {"COURSE_EXCHANGE_URL": f"{exchange_url}/services/{exchange_name}",
                         "COURSE_EXCHANGE_CA": site["exchange_cert"],
                         "PATH": os.path.join(prefix, "venv", "bin") + ":/usr/local/bin:/usr/bin:/bin"}
# nbgitpuller's links clone only the course's repositories, where the site names them (git_links).
if site.get("git_repositories"):
    c.Spawner.environment["COURSE_GIT_REPOSITORIES"] = " ".join(site["git_repositories"])
# LocalProcessSpawner ends the server only: what a student left running in the background (nohup, setsid) is
# ended when their server stops, as a systemd scope would end it; staff, who also work in a shell, are left alone.
c.Spawner.post_stop_hook = end_leftover_processes
# A student's own Jupyter configuration could make their server serve pages of their choosing (extra static
# paths, extensions), which would run as whoever opens them: servers read only the environment's configuration.
# What a student's server still shows others (a notebook they trusted runs its scripts) is kept at the student's
# own origin by per-user subdomains (subdomain_host above; README).
c.Spawner.disable_user_config = True
# The token each server holds: its own server, and the course exchange, which must see the user's groups.
c.Spawner.server_token_scopes = [
    "users:activity!user", "access:servers!server",
    f"access:services!service={exchange_name}", "read:users:name!user", "read:users:groups!user",
]
c.JupyterHub.load_roles = [
    {"name": "user", "scopes": ["self", f"access:services!service={exchange_name}"]},
    # The exchange reads the courses' groups for an instructor's roster, and nothing else of the hub.
    {"name": exchange_name, "services": [exchange_name], "scopes": ["read:groups", "read:users:name"]},
]

# The course exchange: its own Linux user, its store readable by no one else.
c.JupyterHub.services = [{
    "name": exchange_name,
    "url": exchange_url,
    "user": site["exchange_user"],
    "command": [os.path.join(prefix, "venv", "bin", "python"), "-m", "perceptron_course.hub.service",
                "--store", site["exchange_store"], "--tls-cert", site["exchange_cert"],
                "--tls-key", site["exchange_key"]],
    "cwd": site["exchange_store"],
    "display": False,
}]

# A token for the site's own scripts (adding people to courses, starting servers), when the site names one.
if site.get("admin_token"):
    c.JupyterHub.services.append({"name": "course-admin", "api_token": site["admin_token"], "display": False})
    c.JupyterHub.load_roles.append({"name": "course-admin", "services": ["course-admin"],
                                    "scopes": ["admin:users", "admin:groups", "admin:servers", "tokens",
                                               "access:servers", "list:users", "read:users"]})
