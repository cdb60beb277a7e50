"""A stand-in LTI 1.3 platform on loopback, for the hub's LTI tests: it stands in for Canvas or Moodle,
which cannot run here (no LMS runs in the tests).

It does what those platforms do in a launch, and nothing else:

* it has its own RSA key and publishes its public half as a JSON Web Key Set
  (``/jwks``, as Canvas's ``/api/lti/security/jwks`` and Moodle's
  ``/mod/lti/certs.php`` do);
* a course page (``/course/<launch>``) that starts a launch as Canvas's does:
  a form the browser posts to the tool's login initiation URL with ``iss``,
  ``login_hint``, ``lti_message_hint``, ``target_link_uri``, ``client_id`` and
  ``lti_deployment_id``;
* an OpenID Connect authorization endpoint (``/authorize``) that checks the
  tool's authentication request (response type, scope, response mode, prompt,
  client id, the registered redirect URL, the hints it gave) and answers, as
  Canvas does, with a page that posts the signed ``id_token`` and the tool's
  ``state`` to the tool's redirect URL.

What a launch says (who, their LTI roles, the course's context, the link,
custom parameters) is set by the test, one launch at a time, and so is what is
wrong with a hostile one: signed by a key the platform does not publish,
expired, for another deployment or client (at login initiation, or in the
token only: ``init_deployment_id`` and ``init_client_id`` say what the course
page posts when it differs from the token), or held (shown with a button
instead of posted at once, so the test can copy the browser's cookies first)
and posted again (``/repost/<launch>``).

The platform runs in the hub environment's Python (which has PyJWT and
cryptography): ``python tests/hub/lti_platform.py --port P``, with its control
secret in ``LTI_PLATFORM_SECRET``.  :class:`StandInPlatform` starts and drives
it from the tests with the standard library only.
"""

import argparse
import html
import json
import os
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

LTI = "https://purl.imsglobal.org/spec/lti/claim/"
MEMBERSHIP = "http://purl.imsglobal.org/vocab/lis/v2/membership"
LEARNER = [f"{MEMBERSHIP}#Learner"]
INSTRUCTOR = [f"{MEMBERSHIP}#Instructor"]
# What Canvas sends for a TA: Instructor, and the sub-role that says which kind.
TEACHING_ASSISTANT = [f"{MEMBERSHIP}#Instructor", f"{MEMBERSHIP}/Instructor#TeachingAssistant"]
CLIENT_ID = "10000000000042"
DEPLOYMENT_ID = "42:course-hub"
SECRET_VARIABLE = "LTI_PLATFORM_SECRET"


class StandInPlatform:
    """The stand-in platform as a process of its own, driven over loopback by the tests."""

    def __init__(self, python, port):
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.secret = secrets.token_hex(16)
        self.process = subprocess.Popen([python, os.path.abspath(__file__), "--port", str(port)],
                                        env={**os.environ, SECRET_VARIABLE: self.secret},
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/jwks", timeout=2):
                    break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("the stand-in LTI platform did not start: "
                                       + self.process.stderr.read().decode(errors="replace")[-2000:])
                time.sleep(0.2)

    @property
    def hub_settings(self):
        """What a hub's ``lti`` settings say about this platform (the courses are the test's)."""
        return {"issuer": self.url, "client_ids": [CLIENT_ID], "deployment_ids": [DEPLOYMENT_ID],
                "jwks_url": f"{self.url}/jwks", "authorize_url": f"{self.url}/authorize"}

    def _control(self, path, body=None):
        request = urllib.request.Request(f"{self.url}/control/{path}", method="POST" if body is not None else "GET",
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"Authorization": f"Bearer {self.secret}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())

    def register_tool(self, login_url, redirect_uri, target_link_uri):
        """The tool as the LMS's administrator registers it: its login initiation, redirect and target URLs."""
        self._control("tool", {"login_url": login_url, "redirect_uri": redirect_uri,
                               "target_link_uri": target_link_uri})

    def launch(self, **spec):
        """A new launch (see :func:`claims_for`); returns the address of the course page that starts it."""
        return self._control("launch", spec)["url"]

    def issued(self):
        """Every id_token the platform signed so far."""
        return self._control("issued")["tokens"]

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


# ---- the platform itself (run in the hub environment's Python) ------------------------------------------------


def claims_for(spec, issuer, tool, nonce, now):
    """The id_token's claims for a launch ``spec``: ``user`` (``{"sub", "login_id", "sourcedid", "name"}``),
    ``roles``, ``context`` (``{"id", "title"}``), ``target_link_uri``, ``custom``, ``deployment_id``,
    ``client_id``, ``expires_in`` (seconds; negative for an expired token), ``issued_ago`` (seconds).  The
    spec's ``key`` signs the token (``"platform"``; ``"rogue"``, a key the platform never published; or
    ``"none"``, no signature at all), and
    ``id_token``, if given, is posted as it is instead."""
    user = spec.get("user", {})
    client = spec.get("client_id", CLIENT_ID)
    custom = dict(spec.get("custom", {}))
    if user.get("login_id") is not None:
        custom["login_id"] = user["login_id"]
    issued = now - spec.get("issued_ago", 0)
    claims = {
        "iss": issuer, "aud": client, "azp": client, "sub": user.get("sub", "opaque-user"), "nonce": nonce,
        "iat": issued, "exp": issued + spec.get("expires_in", 300), "name": user.get("name", ""),
        LTI + "message_type": spec.get("message_type", "LtiResourceLinkRequest"), LTI + "version": "1.3.0",
        LTI + "deployment_id": spec.get("deployment_id", DEPLOYMENT_ID),
        LTI + "target_link_uri": spec.get("target_link_uri", tool["target_link_uri"]),
        LTI + "resource_link": {"id": spec.get("resource_link", "link-1"), "title": "The course's hub"},
        LTI + "roles": spec.get("roles", LEARNER),
        LTI + "custom": custom,
    }
    if spec.get("context") is not None:
        context = spec["context"]
        claims[LTI + "context"] = {"id": context["id"], "title": context.get("title", ""),
                                   "label": context.get("label", context.get("title", "")),
                                   "type": ["http://purl.imsglobal.org/vocab/lis/v2/course#CourseOffering"]}
    if user.get("sourcedid"):
        claims[LTI + "lis"] = {"person_sourcedid": user["sourcedid"]}
    return claims


def auto_post(action, fields, *, hold=False, title="Launching the course's hub"):
    """A page whose form posts ``fields`` to ``action``: at once, or when its button is pressed (``hold``)."""
    inputs = "".join(f'<input type="hidden" name="{html.escape(k)}" value="{html.escape(v)}">'
                     for k, v in fields.items() if v is not None)
    onload = "" if hold else ' onload="document.forms[0].submit()"'
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title></head>'
            f'<body{onload}><h1>{html.escape(title)}</h1><form method="post" action="{html.escape(action)}">'
            f'{inputs}<button id="continue" type="submit">Continue</button></form></body></html>')


def serve(port, secret):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    import jwt
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    issuer = f"http://127.0.0.1:{port}"
    kid = "stand-in-platform-1"
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    # Another key, never published: a token it signs, with the platform's key id, is a forgery.
    rogue = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = jwt.algorithms.RSAAlgorithm.to_jwk(key.public_key(), as_dict=True)
    key_set = {"keys": [{**public, "kid": kid, "alg": "RS256", "use": "sig"}]}
    pem = {name: k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption()) for name, k in (("platform", key), ("rogue", rogue))}
    tool = {}
    launches = {}
    forms = {}
    issued = []

    class Platform(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def reply(self, status, body, kind="text/html; charset=utf-8"):
            data = body.encode() if isinstance(body, str) else body
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def controlled(self):
            if self.headers.get("Authorization") != f"Bearer {secret}":
                self.reply(403, "not the test")
                return False
            return True

        def do_POST(self):
            if not self.controlled():
                return
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
            if self.path == "/control/tool":
                tool.update(body)
                self.reply(200, "{}", "application/json")
            elif self.path == "/control/launch":
                launch = f"L{len(launches) + 1}-{secrets.token_hex(4)}"
                launches[launch] = body
                self.reply(200, json.dumps({"url": f"{issuer}/course/{launch}"}), "application/json")
            else:
                self.reply(404, "no such control")

        def do_GET(self):
            url = urllib.parse.urlsplit(self.path)
            parts = url.path.strip("/").split("/")
            if url.path == "/jwks":
                self.reply(200, json.dumps(key_set), "application/json")
            elif url.path == "/control/issued":
                if self.controlled():
                    self.reply(200, json.dumps({"tokens": issued}), "application/json")
            elif parts[0] == "course" and len(parts) == 2 and parts[1] in launches:
                self.start_launch(parts[1], launches[parts[1]])
            elif url.path == "/authorize":
                self.authorize({k: v[0] for k, v in urllib.parse.parse_qs(url.query).items()})
            elif parts[0] == "repost" and len(parts) == 2 and parts[1] in forms:
                action, fields = forms[parts[1]]
                self.reply(200, auto_post(action, fields, title="Posting the launch again"))
            else:
                self.reply(404, "<h1>Not found</h1>")

        def start_launch(self, launch, spec):
            """The course page: the third-party-initiated login, posted to the tool."""
            client = spec.get("init_client_id", spec.get("client_id", CLIENT_ID))
            fields = {"iss": issuer, "login_hint": launch, "lti_message_hint": launch,
                      "target_link_uri": spec.get("target_link_uri", tool["target_link_uri"]),
                      "client_id": client,
                      "lti_deployment_id": spec.get("init_deployment_id", spec.get("deployment_id", DEPLOYMENT_ID))}
            self.reply(200, auto_post(tool["login_url"], fields, title="Opening the course's hub"))

        def authorize(self, query):
            """The authentication request (OIDC implicit flow, as LTI 1.3 uses it) and the signed answer."""
            launch = query.get("login_hint")
            expected = {"response_type": "id_token", "scope": "openid", "response_mode": "form_post",
                        "prompt": "none", "redirect_uri": tool.get("redirect_uri"), "lti_message_hint": launch}
            wrong = [name for name, value in expected.items() if query.get(name) != value]
            if launch not in launches:
                wrong.append("login_hint")
            spec = launches.get(launch, {})
            if query.get("client_id") != CLIENT_ID:  # the one tool registered here: the hub
                wrong.append("client_id")
            if not query.get("nonce") or not query.get("state"):
                wrong.append("nonce and state")
            if wrong:
                self.reply(400, f"<h1>The platform refused the tool's request</h1><p>{html.escape(', '.join(wrong))}"
                                "</p>")
                return
            claims = claims_for(spec, issuer, tool, query["nonce"], int(time.time()))
            signer = spec.get("key", "platform")
            if spec.get("id_token"):
                token = spec["id_token"]
            elif signer == "none":  # unsigned, naming the platform's key: "alg": "none"
                token = jwt.encode(claims, None, algorithm="none", headers={"kid": kid})
            else:
                token = jwt.encode(claims, pem[signer], algorithm="RS256", headers={"kid": kid})
            issued.append(token)
            fields = {"id_token": token, "state": query["state"]}
            forms[launch] = (query["redirect_uri"], fields)
            self.reply(200, auto_post(query["redirect_uri"], fields, hold=spec.get("hold", False)))

    server = ThreadingHTTPServer(("127.0.0.1", port), Platform)
    server.serve_forever()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args(argv)
    serve(args.port, os.environ[SECRET_VARIABLE])


if __name__ == "__main__":
    sys.exit(main())
