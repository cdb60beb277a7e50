"""LTI 1.3 launches into a real hub, in Chromium: from a stand-in platform to JupyterLab, and every hostile launch.

No LMS runs here: tests/hub/lti_platform.py stands in for Canvas or Moodle
(its own keys, its published key set, its course pages and its OpenID Connect
authorization endpoint that posts the signed id_token back, as Canvas does).
The hub is a real one (tests/hub/real_hub.py) configured for LTI
(hub/course_lti.py), with its proxy, its exchange and real Linux users made
at their first launch, and each user's server on a subdomain of its own, as
the README advises a department's hub; one hub serves the module.  Each hostile launch is
checked to have created nothing: no hub user, no group membership, no Linux
account.  Runs as root, as the other real-hub tests do.
"""

import base64
import grp
import html
import json
import os
import pwd
import stat
import subprocess
import urllib.error
import urllib.request

import nbformat
import pytest

from perceptron_course.hub.lti_launch import ACCOUNTS_GROUP
from perceptron_course.hub.transfer import File
from tests.hub.lti_platform import CLIENT_ID, INSTRUCTOR, LEARNER, TEACHING_ASSISTANT, StandInPlatform
from tests.hub.real_hub import Hub, environment_ready
from tools.hub import DEFAULT_PREFIX, free_port

pytestmark = pytest.mark.slow
PERCEPTRON = {"id": "c0ffee-perceptron-2026", "title": "Perceptrons (2026)"}
PERCEPTRON_B = {"id": "c0ffee-perceptron-b-2026", "title": "Perceptrons B (2026)"}
CONTEXTS = {PERCEPTRON["id"]: "perceptron", PERCEPTRON_B["id"]: "perceptron-b"}
PREFIX = "pcl-"  # the Linux users of this module, made by the hub at their first launch
LOCAL = "pcl-local"  # a person of the server who never came by LTI


def remove_accounts():
    for account in pwd.getpwall():
        if account.pw_name.startswith(PREFIX):
            subprocess.run(["userdel", "--remove", account.pw_name], capture_output=True)


@pytest.fixture(scope="module")
def platform():
    if os.geteuid() != 0:
        pytest.skip("the hub's tests make Linux users and run the hub as root, as a hub's administrator does")
    if not environment_ready():
        pytest.fail("the hub's environment is not built: run make hub-env (make test builds it)", pytrace=False)
    running = StandInPlatform(os.path.join(DEFAULT_PREFIX, "venv", "bin", "python"), free_port())
    yield running
    running.stop()


@pytest.fixture(scope="module")
def hub(platform):
    # Each run starts with no account of its own: the first launch must make it.
    remove_accounts()
    subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", LOCAL], check=True)
    courses = {course: {"students": [], "tas": [], "instructors": []} for course in CONTEXTS.values()}
    running = Hub(courses=courses, lti={**platform.hub_settings, "courses": CONTEXTS,
                                        "username_claim": "custom.login_id"}, subdomains=True)
    platform.register_tool(f"{running.url}/hub/lti13/oauth_login", f"{running.url}/hub/lti13/oauth_callback",
                           f"{running.url}/hub/")
    yield running
    running.stop()
    remove_accounts()


@pytest.fixture(scope="module")
def browser(tmp_path_factory, repo_root):
    """Headless Chromium, loopback only (anything else goes to a closed port)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    from tests.support.browser import chromium_driver

    driver = chromium_driver(tmp_path_factory.mktemp("lti-chromium"), page_load_seconds=90)
    # The hub's and JupyterLab's pages redraw while they load: a stale element in one poll means "not yet".
    driver.wait = WebDriverWait(driver, 90, poll_frequency=0.3, ignored_exceptions=(StaleElementReferenceException,))
    driver.artifacts = repo_root / "test-artifacts"
    driver.artifacts.mkdir(exist_ok=True)
    yield driver
    driver.quit()


def body_text(driver):
    return driver.execute_script("return document.body ? document.body.innerText : '';")


def state_of(hub):
    """Everything a launch could create: the hub's users and their groups, the groups, this module's Linux
    accounts (other tests on the machine make accounts of their own meanwhile)."""
    users = {u["name"]: sorted(u["groups"]) for u in hub.api("GET", "users")}
    groups = {g["name"]: sorted(g["users"]) for g in hub.api("GET", "groups")}
    return users, groups, sorted(a.pw_name for a in pwd.getpwall() if a.pw_name.startswith(PREFIX))


def groups_of(hub, user):
    return sorted(hub.api("GET", f"users/{user}")["groups"])


def launch(browser, platform, **spec):
    """Open the course page of a new launch in Chromium (it starts the launch); returns the launch's id."""
    url = platform.launch(**spec)
    browser.get(url)
    return url.rsplit("/", 1)[1]


def person(login_id, name=""):
    return {"sub": f"opaque-{login_id.lower()}", "login_id": login_id, "name": name or login_id}


def lab_is_open(browser, hub, user):
    return browser.current_url.startswith(hub.server_url(user) + "lab") and browser.execute_script(
        "return document.querySelectorAll('.lm-MenuBar-item').length > 0;")


def test_a_students_launch_lands_her_in_the_hub_logged_in_in_her_course(hub, platform, browser):
    # Canvas sends the login id as she typed it at her first login; the hub's name is its lower case.
    launch(browser, platform, user=person("PCL-Ann", "Ann"), roles=LEARNER, context=PERCEPTRON)
    browser.wait.until(lambda d: lab_is_open(d, hub, "pcl-ann"))
    browser.save_screenshot(str(browser.artifacts / "lti-1-student-landed.png"))
    assert groups_of(hub, "pcl-ann") == ["course-perceptron-students"]
    account = pwd.getpwnam("pcl-ann")
    assert stat.S_IMODE(os.stat(account.pw_dir).st_mode) == 0o700
    assert "pcl-ann" in grp.getgrnam(ACCOUNTS_GROUP).gr_mem
    # Her server runs as her.
    found = subprocess.run(["pgrep", "-u", "pcl-ann", "-f", "jupyterhub-singleuser"], capture_output=True, text=True)
    assert found.stdout.strip()


@pytest.fixture(scope="module")
def instructor(hub, platform, browser):
    """The course's instructor, who came by an LTI launch: their groups just after it."""
    launch(browser, platform, user=person("pcl-ian"), roles=INSTRUCTOR, context=PERCEPTRON)
    browser.wait.until(lambda d: d.current_url.startswith(hub.server_url("pcl-ian"))
                       or "/hub/spawn-pending/pcl-ian" in d.current_url)
    return groups_of(hub, "pcl-ian")


def test_an_instructors_launch_makes_them_the_courses_instructor(instructor):
    assert instructor == ["course-perceptron-instructors"]


def test_a_launch_in_another_course_adds_that_course_and_keeps_the_others(hub, platform, browser, instructor):
    launch(browser, platform, user=person("pcl-ian"), roles=LEARNER, context=PERCEPTRON_B)
    browser.wait.until(lambda d: d.current_url.startswith(hub.server_url("pcl-ian")))
    assert groups_of(hub, "pcl-ian") == ["course-perceptron-b-students", "course-perceptron-instructors"]


def test_a_tas_launch_puts_them_in_the_ta_group(hub, platform, browser):
    launch(browser, platform, user=person("pcl-tia"), roles=TEACHING_ASSISTANT, context=PERCEPTRON)
    browser.wait.until(lambda d: d.current_url.startswith(hub.server_url("pcl-tia"))
                       or "/hub/spawn-pending/pcl-tia" in d.current_url)
    assert groups_of(hub, "pcl-tia") == ["course-perceptron-tas"]
    # A TA whose next launch says Learner (Moodle's non-editing teachers) stays a TA and joins no roster.
    launch(browser, platform, user=person("pcl-tia"), roles=LEARNER, context=PERCEPTRON)
    browser.wait.until(lambda d: d.current_url.startswith(hub.server_url("pcl-tia")))
    assert groups_of(hub, "pcl-tia") == ["course-perceptron-tas"]


@pytest.fixture(scope="module")
def week1(hub, instructor):
    """The instructor (who came by LTI) releases week1 into the course perceptron."""
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Week 1: the perceptron")])
    hub.client(hub.token("pcl-ian")).release("perceptron", "week1",
                                             [File("week1.ipynb", nbformat.writes(notebook).encode())])
    return "week1"


def test_an_assignment_link_opens_that_assignment(hub, platform, browser, week1):
    # Sam's first visit ever is the assignment's link: the hub makes him, starts his server, and opens week1.
    launch(browser, platform, user=person("pcl-sam"), roles=LEARNER, context=PERCEPTRON,
           target_link_uri=f"{hub.url}/hub/?assignment={week1}")
    path = hub.server_url("pcl-sam") + "lab/tree/perceptron/week1/week1.ipynb"
    browser.wait.until(lambda d: d.current_url.startswith(path))
    browser.wait.until(lambda d: d.execute_script(
        "return [...document.querySelectorAll('.jp-NotebookPanel .jp-MarkdownOutput')]"
        ".some(e => e.innerText.includes('Week 1: the perceptron'));"))
    browser.save_screenshot(str(browser.artifacts / "lti-2-assignment-opened.png"))
    fetched = os.path.join(pwd.getpwnam("pcl-sam").pw_dir, "perceptron", "week1", "week1.ipynb")
    assert os.stat(fetched).st_uid == pwd.getpwnam("pcl-sam").pw_uid
    assert groups_of(hub, "pcl-sam") == ["course-perceptron-students"]
    # Ann, whose server runs, follows it by its custom parameter: the same notebook, opened at once.
    launch(browser, platform, user=person("pcl-ann"), roles=LEARNER, context=PERCEPTRON,
           custom={"assignment": week1})
    browser.wait.until(lambda d: d.current_url.startswith(hub.server_url("pcl-ann") + "lab/tree/perceptron/week1/"))
    assert os.path.isfile(os.path.join(pwd.getpwnam("pcl-ann").pw_dir, "perceptron", "week1", "week1.ipynb"))
    # A link to an assignment that is not released says so; it fetches nothing.
    launch(browser, platform, user=person("pcl-ann"), roles=LEARNER, context=PERCEPTRON,
           custom={"assignment": "week9"})
    browser.wait.until(lambda d: "week9 could not be opened" in body_text(d))
    assert not os.path.exists(os.path.join(pwd.getpwnam("pcl-ann").pw_dir, "perceptron", "week9"))


HOSTILE = {
    "signed by a key the platform does not publish": (
        dict(user=person("pcl-mal"), key="rogue"), "not signed by the LMS the hub knows"),
    "expired": (dict(user=person("pcl-mal"), expires_in=-60, issued_ago=120), "has expired"),
    "an unsigned token": (dict(user=person("pcl-mal"), key="none"), "not signed as the LMS signs its launches"),
    "a token that is no token": (dict(user=person("pcl-mal"), id_token="this-is-not-a-jwt"),
                                 "not a token the hub can read"),
    "an unknown deployment": (
        dict(user=person("pcl-mal"), deployment_id="99:elsewhere"), "deployment of the tool that this hub does not"),
    "an unknown deployment in the token only": (
        dict(user=person("pcl-mal"), deployment_id="99:elsewhere", init_deployment_id="42:course-hub"),
        "deployment of the tool that this hub does not"),
    "an unknown client": (dict(user=person("pcl-mal"), client_id="another-tool"), "is for a tool the hub is not"),
    "a token for another client": (
        dict(user=person("pcl-mal"), client_id="another-tool", init_client_id=CLIENT_ID), "is for another tool"),
    "instructor of a sandbox course, linked to this course": (
        dict(user=person("pcl-mal"), roles=INSTRUCTOR, context={"id": "sandbox-of-mal", "title": "Mal's sandbox"},
             target_link_uri="http://hub/hub/?course=perceptron&assignment=week1"),
        "is not one of this hub's courses"),
    "a student, instructor in another course, claiming this one": (
        dict(user=person("pcl-ann"), roles=INSTRUCTOR, context=PERCEPTRON_B, custom={"course": "perceptron"}),
        "counts only in that course"),
    "root": (dict(user=person("root")), "not one of the course's"),
    "the exchange's system account": (dict(user=person("course-exchange")), "not one of the course's"),
    "a person of the server who never came by LTI": (dict(user=person(LOCAL)), "not one of the course's"),
    "an identifier that is no user name": (dict(user=person("20231234")), "cannot be a user name"),
}


@pytest.mark.parametrize("case", list(HOSTILE))
def test_a_hostile_launch_is_refused_with_a_clear_page_and_creates_nothing(hub, platform, browser, case):
    spec, words = HOSTILE[case]
    name = spec["user"]["login_id"].lower()
    before, had_account = state_of(hub), name in {a.pw_name for a in pwd.getpwall()}
    launch(browser, platform, **{"roles": LEARNER, "context": PERCEPTRON, **spec})
    browser.wait.until(lambda d: "Launch refused" in body_text(d))
    text = body_text(browser)
    assert words in text, text
    assert state_of(hub) == before
    assert (name in {a.pw_name for a in pwd.getpwall()}) == had_account


def hub_cookies(browser):
    return [c for c in browser.execute_cdp_cmd("Network.getAllCookies", {})["cookies"]
            if c["name"].startswith("lti13authenticator")]


def test_a_replayed_launch_is_refused_even_with_its_cookies(hub, platform, browser):
    launched = launch(browser, platform, user=person("pcl-rex"), roles=LEARNER, context=PERCEPTRON, hold=True)
    button = browser.wait.until(lambda d: d.find_elements("id", "continue"))
    # Everything an eavesdropper could copy: the posted form (the platform keeps it) and the browser's cookies.
    cookies = hub_cookies(browser)
    assert {c["name"] for c in cookies} == {"lti13authenticator-state", "lti13authenticator-nonce-state"}
    button[0].click()
    browser.wait.until(lambda d: d.current_url.startswith(hub.server_url("pcl-rex"))
                       or "/hub/spawn-pending/pcl-rex" in d.current_url)
    assert groups_of(hub, "pcl-rex") == ["course-perceptron-students"]
    before = state_of(hub)
    # The same form again: its state cookie was used up.
    browser.get(f"{platform.url}/repost/{launched}")
    browser.wait.until(lambda d: "Launch refused" in body_text(d))
    assert "not started from this browser" in body_text(browser)
    # With the cookies put back too: its nonce was seen before.
    for cookie in cookies:
        browser.execute_cdp_cmd("Network.setCookie", {key: cookie[key] for key in
                                                      ("name", "value", "domain", "path", "httpOnly", "secure")})
    browser.get(f"{platform.url}/repost/{launched}")
    browser.wait.until(lambda d: "already used once" in body_text(d))
    browser.save_screenshot(str(browser.artifacts / "lti-3-replay-refused.png"))
    assert state_of(hub) == before


def as_the_browser_asks(hub, path):
    """GET ``path`` from the hub as a browser at its public address would: through loopback (the hub's
    subdomain host resolves in Chromium only), with that address as the Host the hub builds its links from."""
    request = urllib.request.Request(f"{hub.api_url}{path}", headers={"Host": hub.url.partition("://")[2]})
    return urllib.request.urlopen(request, timeout=30)


def test_the_hub_without_the_lms_says_where_to_log_in(hub):
    with pytest.raises(urllib.error.HTTPError) as refused:
        as_the_browser_asks(hub, "/hub/lti13/oauth_login")
    assert refused.value.code == 403
    assert "follow the hub's link there" in html.unescape(refused.value.read().decode())


def b64_number(text):
    return int.from_bytes(base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)), "big")


def test_the_hubs_key_is_never_served_or_logged(hub, platform, browser):
    launch(browser, platform, user=person("pcl-ann"), roles=LEARNER, context=PERCEPTRON)
    browser.wait.until(lambda d: d.current_url.startswith(hub.server_url("pcl-ann")))
    key_file = hub.site["lti"]["tool_key"]
    assert stat.S_IMODE(os.stat(key_file).st_mode) == 0o600 and os.stat(key_file).st_uid == 0
    with as_the_browser_asks(hub, "/hub/lti13/jwks") as response:
        served = json.loads(response.read())
    (key,) = served["keys"]
    assert set(key) == {"kty", "n", "e", "kid", "alg", "use"}  # no d, p, q, dp, dq, qi
    modulus = subprocess.run(["openssl", "rsa", "-in", key_file, "-noout", "-modulus"], capture_output=True,
                             text=True, check=True).stdout.strip().split("=", 1)[1]
    assert b64_number(key["n"]) == int(modulus, 16)
    with as_the_browser_asks(hub, "/hub/lti13/config") as response:
        config = json.loads(response.read())
    assert config["public_jwk_url"] == f"{hub.url}/hub/lti13/jwks"
    assert config["oidc_initiation_url"] == f"{hub.url}/hub/lti13/oauth_login"
    assert config["custom_fields"] == {"login_id": "$User.username"}
    with open(key_file, encoding="ascii") as handle:
        pem_lines = [line.strip() for line in handle if line.strip() and not line.startswith("-----")]
    with open(os.path.join(hub.state, "jupyterhub_cookie_secret"), encoding="ascii") as handle:
        cookie_secret = handle.read().strip()
    with open(os.path.join(hub.state, "jupyterhub.log"), encoding="utf-8", errors="replace") as handle:
        log = handle.read()
    assert "LTI launch: pcl-ann, student of perceptron" in log  # the launches were logged, and only that
    assert "PRIVATE KEY" not in log and not any(line in log for line in pem_lines)
    assert cookie_secret not in log
    tokens = platform.issued()
    assert tokens
    for token in tokens:
        signature = token.rsplit(".", 1)[-1]
        assert token not in log and (not signature or signature not in log)
