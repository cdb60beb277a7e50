"""LTI 1.3 launches into the course's hub: jupyterhub-ltiauthenticator, with the checks it leaves to us.

A student, TA or instructor follows the course's link in Canvas or Moodle and
lands in the hub logged in, in the groups of their role in that course
(``hub/jupyterhub_config.py`` uses :class:`CourseLTIAuthenticator` when the
site's ``hub.json`` has an ``lti`` section; README, "Launching from Canvas or
Moodle").

What jupyterhub-ltiauthenticator (1.6) checks, and we use as it is: the
login initiation's required arguments (``iss``, ``login_hint``,
``target_link_uri``); the state, against the encrypted cookie set at login
initiation; the id_token's LTI version, message type, required claims, age
(``iat`` at most 10 minutes old) and ``azp``; its nonce, against the hash of a
second encrypted cookie.  Its handlers, its OpenID Connect redirect and its
configuration (issuer, client ids, the platform's key set and authorization
URLs) are ours too.

What we add, or do another way: at login initiation, the issuer, client id
and deployment id must be the configured ones (it takes any).  The
id_token's signature, issuer, audience and expiry (now required) are checked
with PyJWT here, against the platform's key set fetched off the hub's event
loop and kept five minutes (it fetches it anew at every launch, blocking the
hub).  A nonce is accepted once, remembered until its token expires, across
restarts (its cookie could be replayed with it).  The deployment id claim
must be a configured one (it never looks).  The user name comes from the
configured claim, and a missing one is refused (it falls back to ``sub``,
which no roster knows); the name of an account of the server not made for
the hub is refused.  The launch's context and roles decide the user's course
and groups (:mod:`perceptron_course.hub.lti_launch`); where the user lands is
read from the signed token, not from the login initiation's unsigned
``target_link_uri``.  Everything is checked before the hub's user, the Linux
account or a group membership is made, so a refused launch changes nothing,
and each refusal is a page that says why.  The user lands on the assignment
the link names, fetched and opened in JupyterLab
(:mod:`perceptron_course.hub.landing`), or in their JupyterLab.

The hub's own key (``tool_key_file``, made by ``tools.hub.write_site``) is
read once; only its public half is served, as the tool's key set at
``/hub/lti13/jwks`` (Canvas and Moodle ask for one); nothing logs it.
"""

import asyncio
import base64
import grp
import hashlib
import json
import os
import pwd
import secrets
import subprocess

import jwt
from jupyterhub import orm
from jupyterhub.handlers import BaseHandler
from jupyterhub.utils import url_path_join
from ltiauthenticator.lti13.auth import LTI13Authenticator
from ltiauthenticator.lti13.error import ValidationError
from ltiauthenticator.lti13.handlers import LTI13CallbackHandler, LTI13ConfigHandler, LTI13LoginInitHandler
from ltiauthenticator.lti13.validator import LTI13LaunchValidator
from ltiauthenticator.utils import convert_request_to_dict
from tornado.httputil import url_concat
from tornado.web import HTTPError
from traitlets import Bool, Dict, Unicode, default, validate
from traitlets import Set as SetTrait

from perceptron_course.hub.courses import is_course_id
from perceptron_course.hub.lti_launch import (ACCOUNTS_GROUP, DEFAULT_USERNAME_CLAIM, Launch, LaunchRefused,
                                              LaunchRules, NonceLedger, check_account, group_to_join, read_launch)

__all__ = ["CourseLTIAuthenticator", "refusal", "ensure_account", "public_key_set"]

LANDING = "perceptron-course/open"  # the route of perceptron_course.hub.landing on each user's server


def refusal(message, status=403):
    """The error the hub renders as its page: "<status> : Launch refused" and ``message``."""
    return HTTPError(status, "%s", message, reason="Launch refused")


def ensure_account(name, group=ACCOUNTS_GROUP):
    """The Linux account ``name`` for the hub, made (home 0700, in ``group``) unless it exists as the hub's."""
    check_account(name, group)
    try:
        grp.getgrnam(group)
    except KeyError:
        subprocess.run(["groupadd", "--system", group], capture_output=True, text=True)
    try:
        pwd.getpwnam(name)
    except KeyError:
        made = subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", "-K", "HOME_MODE=0700",
                               "--groups", group, name], capture_output=True, text=True)
        try:
            pwd.getpwnam(name)
        except KeyError:
            raise RuntimeError(f"useradd {name} failed ({made.returncode}): {made.stderr.strip()}") from None
    os.chmod(pwd.getpwnam(name).pw_dir, 0o700)


def _b64(number):
    raw = number.to_bytes((number.bit_length() + 7) // 8, "big")
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def public_key_set(path):
    """``{"keys": [...]}``: the public half of the RSA key in ``path``, as a JSON Web Key Set (no private member)."""
    from cryptography.hazmat.primitives import serialization

    with open(path, "rb") as handle:
        numbers = serialization.load_pem_private_key(handle.read(), password=None).public_key().public_numbers()
    n, e = _b64(numbers.n), _b64(numbers.e)
    # RFC 7638's thumbprint: the key's id, the same wherever it is computed.
    canonical = json.dumps({"e": e, "kty": "RSA", "n": n}, separators=(",", ":"), sort_keys=True)
    kid = base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode("ascii")
    return {"keys": [{"kty": "RSA", "n": n, "e": e, "kid": kid, "alg": "RS256", "use": "sig"}]}


class CourseLTIAuthenticator(LTI13Authenticator):
    """LTI 1.3 launches from one platform (Canvas or Moodle) into the course's hub."""

    login_service = "your course's LMS"

    deployment_ids = SetTrait(Unicode(), config=True,
                              help="The deployment ids of the tool in the LMS that the hub accepts (the LMS shows "
                                   "each when the tool is deployed).")
    courses = Dict(key_trait=Unicode(), value_trait=Unicode(), config=True,
                   help="The LMS's context ids (its courses) and the hub's course id each one is.")
    username_claim = Unicode(DEFAULT_USERNAME_CLAIM, config=True,
                             help="The claim that names the user as the course's LMS files and roster do: "
                                  "custom.<parameter> (e.g. custom.login_id, sent as login_id=$User.username), "
                                  "lis.person_sourcedid, or a claim of the token such as email.")
    tool_key_file = Unicode("", config=True,
                            help="The hub's own RSA key (PEM); its public half is served at /hub/lti13/jwks.")
    accounts_group = Unicode(ACCOUNTS_GROUP, config=True,
                             help="The Linux group of the accounts made for the hub; only its members (and names "
                                  "with no account) can be logged in by a launch.")
    create_accounts = Bool(True, config=True,
                           help="Make the Linux account of a user at their first launch (each server runs as one).")
    nonce_file = Unicode("", config=True,
                         help="Where the nonces of accepted launches are kept until their tokens expire, so a "
                              "launch replayed after the hub restarts is still refused (root's alone).")

    @default("allow_all")
    def _everyone_the_platform_vouches_for(self):
        # Every launch that passes the checks here is someone with a role in one of the hub's courses.
        return True

    @default("auto_login")
    def _straight_to_the_explanation(self):
        # The hub has no login form: /hub/login goes to the page that says to follow the LMS's link.
        return True

    @validate("courses")
    def _course_ids(self, proposal):
        for context, course in proposal.value.items():
            if not is_course_id(course):
                raise ValueError(f"CourseLTIAuthenticator.courses: the course for context {context!r} must be a "
                                 f"course id; got {course!r}")
        return proposal.value

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.nonces = NonceLedger(self.nonce_file or None)
        self._jwks_client = None
        self._key_set = None

    @property
    def rules(self):
        return LaunchRules(courses=dict(self.courses), deployment_ids=frozenset(self.deployment_ids),
                           username_claim=self.username_claim)

    def key_set_url(self, base_url):
        return url_path_join(base_url, "lti13", "jwks")

    def get_handlers(self, app):
        return [(self.login_url(""), CourseLoginHandler), (self.callback_url(""), CourseLaunchHandler),
                (self.config_json_url(""), CourseToolConfigHandler), (self.key_set_url(""), KeySetHandler)]

    def key_set(self):
        if self._key_set is None and self.tool_key_file:
            self._key_set = public_key_set(self.tool_key_file)
        return self._key_set

    async def platform_key(self, token):
        """The platform's public key that signed ``token`` (its key set is fetched in a thread, kept 5 minutes)."""
        if self._jwks_client is None:
            # The set is kept 5 minutes (and fetched again at once, at most every 30 s, for a key id it lacks); no
            # key is kept beyond it, so a key the platform withdraws stops being taken within 5 minutes.
            self._jwks_client = jwt.PyJWKClient(self.jwks_endpoint, cache_keys=False, cache_jwk_set=True,
                                                lifespan=300, timeout=15)
        return await asyncio.to_thread(self._jwks_client.get_signing_key_from_jwt, token)

    async def authenticate(self, handler, data=None):
        """The user of a launch :class:`CourseLaunchHandler` has verified and read (``data["launch"]``).

        Anything else, such as a form posted to ``/hub/login`` (whose fields are only ever strings), logs no one in.
        """
        launch = data.get("launch") if isinstance(data, dict) else None
        if not isinstance(launch, Launch):
            return None
        check_account(launch.user, self.accounts_group)
        return {"name": launch.user, "auth_state": None}

    async def add_user(self, user):
        """A user new to the hub (or, when the hub starts, each one it has): their Linux account."""
        super().add_user(user)
        if self.create_accounts:
            await asyncio.to_thread(ensure_account, user.name, self.accounts_group)


class CourseLoginHandler(LTI13LoginInitHandler):
    """OpenID Connect's login initiation: checked against the hub's platform, then off to its authorization."""

    def post(self):
        auth = self.authenticator
        args = convert_request_to_dict(self.request.arguments)
        if not args.get("iss") and not args.get("login_hint"):
            raise refusal("The course's hub is opened from your course in Canvas or Moodle: follow the hub's link "
                          "there, which logs you in. The hub has no password of its own.")
        try:
            LTI13LaunchValidator(parent=self.app).validate_login_request(args)
        except ValidationError as exc:
            raise refusal(f"This launch is incomplete ({exc}): launch again from your course.", 400)
        if args["iss"] != auth.issuer:
            raise refusal(f"This launch comes from a platform the hub does not know ({args['iss']!r}).")
        client_id = args.get("client_id") or ""
        if client_id and client_id not in auth.client_id:
            raise refusal(f"This launch is for a tool the hub is not ({client_id!r} is not one of its client ids).")
        if not client_id:
            if len(auth.client_id) != 1:
                raise refusal("This launch does not say which tool it is for (no client_id), and the hub is "
                              "registered as several.", 400)
            client_id = next(iter(auth.client_id))
        deployment = args.get("lti_deployment_id")
        if deployment and deployment not in auth.deployment_ids:
            raise refusal(f"This launch comes from a deployment of the tool that this hub does not know "
                          f"({deployment!r}). The hub's administrator must add it to the hub's LTI deployment ids.")
        self.authorize_redirect(client_id=client_id, login_hint=args["login_hint"],
                                lti_message_hint=args.get("lti_message_hint"), nonce=self.generate_nonce(),
                                redirect_uri=self.get_redirect_uri(), state=self.generate_state())

    get = post

    def get_state(self):
        # The state only ties the answer to this browser. (The library's also carries a next URL taken from the
        # unsigned target_link_uri; where the user lands is read from the signed token instead.)
        if self._state is None:
            self._state = secrets.token_urlsafe(32)
        return self._state

    def _set_oauth_cookie(self, key, value):
        # The platform posts the token back from its own site: over HTTPS the cookies must go with that post.
        https = self.authenticator.get_uri_scheme(self.request) == "https"
        cross_site = {"samesite": "None", "secure": True} if https else {}
        self._set_cookie(key, value, expires_days=1, httponly=True, encrypted=True, **cross_site)


class CourseLaunchHandler(LTI13CallbackHandler):
    """The platform's signed answer: every check, then the user, their course's group, and where they land."""

    async def post(self):
        try:
            launch = await self.verified_launch()
        except LaunchRefused as exc:
            raise refusal(str(exc), exc.status) from None
        try:
            user = await self.login_user({"launch": launch})
        except LaunchRefused as exc:
            raise refusal(str(exc), exc.status) from None
        if user is None:
            raise refusal("The hub could not log you in from this launch.")
        group = group_to_join(launch.course, launch.role, [g.name for g in user.groups])
        if group:
            found = orm.Group.find(self.db, group)
            if found is None:
                found = orm.Group(name=group)
                self.db.add(found)
            user.groups.append(found)
            self.db.commit()
        self.log.info("LTI launch: %s, %s of %s (context %s)%s", user.name, launch.role, launch.course,
                      launch.context_id, f", joined {group}" if group else "")
        self.redirect(self.landing(user, launch))

    async def verified_launch(self):
        auth = self.authenticator
        args = convert_request_to_dict(self.request.arguments)
        validator = LTI13LaunchValidator(parent=self.app)
        try:
            validator.validate_auth_response(args)
        except ValidationError as exc:
            raise LaunchRefused(f"This launch is incomplete ({exc}): launch again from your course.", 400)
        try:
            self.check_state()
        except HTTPError:
            raise LaunchRefused("This launch was not started from this browser, or was already used: launch again "
                                "from your course.", 400) from None
        token = args["id_token"]
        try:
            key = await auth.platform_key(token)
        except jwt.PyJWKClientConnectionError:
            raise LaunchRefused("The hub could not reach the LMS's key set to check this launch: launch again in a "
                                "minute, and tell the hub's administrator if it goes on.", 502) from None
        except jwt.PyJWKClientError:
            raise LaunchRefused("This launch is signed with a key the LMS does not publish: the hub cannot trust "
                                "it.") from None
        except jwt.PyJWTError:
            raise LaunchRefused("This launch's token is not a token the hub can read.", 400) from None
        try:
            claims = jwt.decode(token, key.key, algorithms=auth.jwks_algorithms, audience=sorted(auth.client_id),
                                issuer=auth.issuer, leeway=validator.time_leeway,
                                options={"require": ["exp", "iat", "iss", "aud", "nonce"]})
        except jwt.ExpiredSignatureError:
            raise LaunchRefused("This launch has expired: launch again from your course.") from None
        except jwt.InvalidAudienceError:
            raise LaunchRefused("This launch is for another tool (its client id is not the hub's).") from None
        except jwt.InvalidIssuerError:
            raise LaunchRefused("This launch comes from a platform the hub does not know.") from None
        except jwt.InvalidAlgorithmError:
            raise LaunchRefused("This launch is not signed as the LMS signs its launches (an unsigned token, or "
                                "another algorithm): the hub cannot trust it.") from None
        except jwt.InvalidSignatureError:
            raise LaunchRefused("This launch is not signed by the LMS the hub knows: the hub cannot trust it.") \
                from None
        except jwt.PyJWTError as exc:
            raise LaunchRefused(f"This launch's token is not valid ({exc}).") from None
        try:
            validator.validate_id_token(claims)
            validator.validate_azp_claim(claims, auth.client_id)
        except ValidationError as exc:
            raise LaunchRefused(f"This launch is not a valid LTI 1.3 launch ({exc}).", 400) from None
        try:
            self.check_nonce(claims)
        except HTTPError:
            raise LaunchRefused("This launch was not started from this browser: launch again from your course.",
                                400) from None
        if not auth.nonces.first_use(claims["nonce"], claims["exp"]):
            raise LaunchRefused("This launch was already used once: a launch is good for one visit. Launch again "
                                "from your course.")
        launch = read_launch(claims, auth.rules)
        check_account(launch.user, auth.accounts_group)
        return launch

    def landing(self, user, launch):
        """The assignment the link names (fetched and opened on the user's server), or the user's JupyterLab."""
        spawn = url_path_join(self.hub.base_url, "spawn", user.escaped_name)
        if launch.assignment:
            return url_concat(spawn, {"next": url_path_join(user.url, LANDING, launch.course, launch.assignment)})
        return spawn


class KeySetHandler(BaseHandler):
    """The tool's public key set, for the LMS: the public half of the hub's key, nothing else."""

    def get(self):
        keys = self.authenticator.key_set()
        if keys is None:
            raise HTTPError(404, "this hub has no key of its own")
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "max-age=3600")
        self.write(json.dumps(keys))


class CourseToolConfigHandler(LTI13ConfigHandler):
    """The tool's configuration as Canvas reads it ("Paste JSON" or "Enter URL" of an LTI developer key)."""

    async def get(self):
        auth = self.authenticator
        origin = f"{auth.get_uri_scheme(self.request)}://{self.request.host}"
        hub = url_path_join(origin, self.hub.base_url)
        custom = {}
        if auth.username_claim.startswith("custom."):
            custom[auth.username_claim[len("custom."):]] = "$User.username"
        config = {
            "title": auth.tool_name,
            "description": auth.tool_description,
            "oidc_initiation_url": auth.login_url(hub),
            "target_link_uri": hub,
            "scopes": [],
            "custom_fields": custom,
            "extensions": [{
                "platform": "canvas.instructure.com",
                "privacy_level": "public",
                "settings": {"placements": [{"placement": "course_navigation", "message_type": "LtiResourceLinkRequest",
                                             "target_link_uri": hub, "windowTarget": "_blank"}]},
            }],
        }
        if auth.key_set() is not None:
            config["public_jwk_url"] = auth.key_set_url(hub)
        self.set_header("Content-Type", "application/json")
        self.write(json.dumps(config, indent=1))
