"""The rules that turn a verified LTI 1.3 launch into a hub user, a course, a role and a landing
(perceptron_course/hub/lti_launch.py), in process: the roles Canvas and Moodle send, the course from the
context only, the groups a launch may add (never remove), every refusal, and the nonce ledger.

The launches of a real hub, signed by a stand-in platform, are in test_hub_lti.py.
"""

import pwd

import pytest

from perceptron_course.hub.lti_launch import (CLAIM, Launch, LaunchRefused, LaunchRules, NonceLedger, check_account,
                                              claim_value, course_role, group_to_join, is_account_name, read_launch)

M = "http://purl.imsglobal.org/vocab/lis/v2/membership"
RULES = LaunchRules(courses={"ctx-a": "perceptron", "ctx-b": "perceptron-b"}, deployment_ids=frozenset({"dep-1"}))


def launch_claims(*, user="ann", roles=(f"{M}#Learner",), context="ctx-a", deployment="dep-1", custom=None,
                  target="https://hub.example.edu/hub/", message_type="LtiResourceLinkRequest"):
    claims = {CLAIM["message_type"]: message_type, CLAIM["deployment_id"]: deployment, CLAIM["roles"]: list(roles),
              CLAIM["target_link_uri"]: target, CLAIM["custom"]: {**({"login_id": user} if user else {}),
                                                                   **(custom or {})}}
    if context is not None:
        claims[CLAIM["context"]] = {"id": context, "title": f"Course {context}"}
    return claims


@pytest.mark.parametrize("case, roles, role", [
    ("canvas student", [f"{M}#Learner"], "student"),
    ("canvas teacher", [f"{M}#Instructor"], "instructor"),
    ("canvas ta (instructor and the TA sub-role)", [f"{M}#Instructor", f"{M}/Instructor#TeachingAssistant"], "ta"),
    ("ta of a section", [f"{M}/Instructor#TeachingAssistantSection"], "ta"),
    ("grader", [f"{M}/Instructor#Grader"], "ta"),
    ("named instructor beside a ta sub-role", [f"{M}/Instructor#PrimaryInstructor",
                                               f"{M}/Instructor#TeachingAssistant"], "instructor"),
    ("moodle teacher with a system role", [f"{M}#Instructor",
                                           "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator"],
     "instructor"),
    ("lti short names", ["Learner"], "student"),
    ("learner sub-role", [f"{M}/Learner#NonCreditLearner"], "student"),
    ("designer", [f"{M}#ContentDeveloper"], None),
    ("observer", [f"{M}#Mentor"], None),
    ("institution instructor, course learner", ["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor",
                                                f"{M}#Learner"], "student"),
    ("institution faculty only", ["http://purl.imsglobal.org/vocab/lis/v2/institution/person#Faculty"], None),
    ("system administrator only", ["http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator"], None),
    ("not a list", f"{M}#Instructor", None),
    ("a look-alike vocabulary", [f"{M}x#Instructor", "https://evil.example/membership#Instructor"], None),
])
def test_the_role_in_the_course_comes_from_context_roles_only(case, roles, role):
    assert course_role(roles) == role, case


@pytest.mark.parametrize("case, role, groups, joined", [
    ("new student", "student", [], "course-perceptron-students"),
    ("student again", "student", ["course-perceptron-students"], None),
    ("ta who follows a student's link", "student", ["course-perceptron-tas"], None),
    ("instructor's ta launch", "ta", ["course-perceptron-instructors"], None),
    ("student made ta", "ta", ["course-perceptron-students"], "course-perceptron-tas"),
    ("instructor elsewhere, student here", "student", ["course-perceptron-b-instructors"],
     "course-perceptron-students"),
])
def test_a_launch_only_adds_its_own_courses_group(case, role, groups, joined):
    assert group_to_join("perceptron", role, groups) == joined, case


def test_a_students_launch_reads_user_course_role_and_assignment():
    launch = read_launch(launch_claims(user="Ann.Smith", target="https://hub.example.edu/hub/?assignment=ps1"), RULES)
    assert launch == Launch(user="ann.smith", course="perceptron", role="student", assignment="ps1",
                            context_id="ctx-a", context_title="Course ctx-a", deployment_id="dep-1")
    by_custom = read_launch(launch_claims(custom={"assignment": "ps2", "course": "perceptron"}), RULES)
    assert (by_custom.course, by_custom.assignment) == ("perceptron", "ps2")
    assert read_launch(launch_claims(), RULES).assignment is None


def test_the_user_name_claim_is_configurable():
    claims = launch_claims(user=None)
    claims[CLAIM["lis"]] = {"person_sourcedid": "s1234567"}
    claims["email"] = "ann@uni.example"
    sourcedid = LaunchRules(courses=RULES.courses, deployment_ids=RULES.deployment_ids,
                            username_claim="lis.person_sourcedid")
    assert read_launch(claims, sourcedid).user == "s1234567"
    assert claim_value(claims, "email") == "ann@uni.example"
    assert claim_value(claims, "custom.login_id") is None
    assert claim_value({CLAIM["lis"]: "not a dict"}, "lis.person_sourcedid") is None


@pytest.mark.parametrize("case, claims, words", [
    ("deep linking", launch_claims(message_type="LtiDeepLinkingRequest"), "does not offer"),
    ("unknown deployment", launch_claims(deployment="dep-2"), "deployment of the tool that this hub does not know"),
    ("no context", launch_claims(context=None), "did not come from a course"),
    ("unknown context (a sandbox course where the student is instructor)",
     launch_claims(context="ctx-sandbox", roles=[f"{M}#Instructor"], target="https://hub/hub/?course=perceptron"),
     "'ctx-sandbox') is not one of this hub's courses"),
    ("instructor of course b, link to course a",
     launch_claims(context="ctx-b", roles=[f"{M}#Instructor"], custom={"course": "perceptron"}),
     "A role in one LMS course counts only in that course"),
    ("link's target names another course",
     launch_claims(context="ctx-b", target="https://hub/hub/?course=perceptron&assignment=ps1"), "only in that course"),
    ("no role in the course", launch_claims(roles=[f"{M}#Mentor"]), "gives you no place"),
    ("no user claim", launch_claims(user=None), "custom.login_id"),
    ("variable not substituted", launch_claims(user="$User.username"), "did not fill that variable in"),
    ("all digits", launch_claims(user="20231234"), "cannot be a user name"),
    ("an e-mail address", launch_claims(user="ann@uni.example"), "cannot be a user name"),
    ("a path", launch_claims(user="../root"), "cannot be a user name"),
    ("too long", launch_claims(user="a" * 33), "cannot be a user name"),
    ("a hostile assignment id", launch_claims(custom={"assignment": "../../etc"}), "names an assignment"),
])
def test_launches_the_hub_cannot_take_are_refused_with_the_reason(case, claims, words):
    with pytest.raises(LaunchRefused) as refused:
        read_launch(claims, RULES)
    assert words in str(refused.value), case


def test_account_names_are_linux_user_names():
    assert is_account_name("ann") and is_account_name("ann.smith") and is_account_name("_svc-1")
    for name in ("", "Ann", "1ann", "ann smith", "-ann", "ann:x", "a" * 33, None):
        assert not is_account_name(name), name


def test_accounts_of_the_server_not_made_for_the_hub_are_refused():
    for name in ("root", "daemon", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        with pytest.raises(LaunchRefused, match="not one of the course's"):
            check_account(name)
    check_account("pcl-nobody-has-this-name")  # no account: the hub makes it


def test_a_nonce_is_taken_once_and_forgotten_when_its_token_expires():
    now = [1000.0]
    ledger = NonceLedger(clock=lambda: now[0])
    assert ledger.first_use("n1", 1300)
    assert not ledger.first_use("n1", 1300)
    assert ledger.first_use("n2", 1100)
    now[0] = 1200.0
    assert ledger.first_use("n2", 1500)  # expired tokens are refused by their expiry; the ledger forgets them
    assert not ledger.first_use("n1", 1300)


def test_the_nonce_ledger_outlives_a_restart_of_the_hub(tmp_path):
    path = tmp_path / "lti-nonces.json"
    now = [1000.0]
    assert NonceLedger(str(path), clock=lambda: now[0]).first_use("n1", 1300)
    assert oct(path.stat().st_mode & 0o777) == "0o600"
    restarted = NonceLedger(str(path), clock=lambda: now[0])
    assert not restarted.first_use("n1", 1300)
    path.write_text("not json")
    assert NonceLedger(str(path), clock=lambda: now[0]).first_use("n1", 1300)  # a spoilt file starts afresh


def test_rules_refuse_a_mapping_to_something_that_is_no_course_id():
    with pytest.raises(ValueError, match="course id"):
        LaunchRules(courses={"ctx": "../etc"}, deployment_ids=frozenset({"d"}))
    with pytest.raises(ValueError, match="deployment"):
        LaunchRules(courses={"ctx": "c"}, deployment_ids=frozenset())
