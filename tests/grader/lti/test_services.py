"""The platform's services as the tool calls them, against the stand-in platform on loopback
(:mod:`tests.support.lti_grades_platform`, which stands in for Canvas or Moodle): the token and what the token
endpoint refuses, every page of members and line items, a line item made, a score posted, and the addresses the
token is never sent to."""

import json
import time
import urllib.error
import urllib.parse
import urllib.request

import jwt
import pytest

from autograder.lti import registration, services, tool_key
from tests.support.lti_grades_platform import INSTRUCTOR, GradesPlatform, member

CLIENT = "10000000000042"
CONTEXT = "perceptron-2026"
MEMBERS = [member(f"user-{n}", f"s{n}", f"Student {n}") for n in range(5)] + [
    member("user-teacher", None, "Ann Teacher", roles=INSTRUCTOR), {"name": "no user id"}]


@pytest.fixture
def platform():
    stand_in = GradesPlatform(page_size=2)
    stand_in.add_context(CONTEXT, MEMBERS)
    yield stand_in
    stand_in.close()


@pytest.fixture
def key(tmp_path):
    return tool_key.make(tmp_path / "course")


@pytest.fixture
def reg(platform, key, tmp_path):
    platform.register_tool(CLIENT, tool_key.public_jwks(key))
    path = tmp_path / registration.CONFIG_NAME
    path.write_text(platform.registration_toml(CONTEXT, CLIENT), encoding="utf-8")
    return registration.load(path)


def token_request(platform, assertion):
    """Post ``assertion`` to the token endpoint as a tool would: ``(status, answer)``."""
    form = urllib.parse.urlencode({"grant_type": "client_credentials", "client_assertion_type": services.ASSERTION_TYPE,
                                   "client_assertion": assertion, "scope": " ".join(services.SCOPES)}).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(platform.token_url, data=form), timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_tool_gets_a_token_for_the_grade_and_membership_scopes(platform, reg, key):
    client = services.Platform(reg, key)
    assert client.token() == client.token()  # kept until it is about to expire
    assert platform.token_requests == 1
    assert set(client.granted) == set(services.SCOPES)


def test_the_token_endpoint_refuses_a_replayed_expired_or_misaddressed_assertion(platform, reg, key):
    assertion = tool_key.client_assertion(key, CLIENT, platform.token_url)
    assert token_request(platform, assertion)[0] == 200
    status, answer = token_request(platform, assertion)
    assert (status, answer["error"]) == (401, "invalid_client") and "replay" in answer["error_description"]
    expired = tool_key.client_assertion(key, CLIENT, platform.token_url, now=time.time() - 3600)
    assert token_request(platform, expired)[1]["error_description"].startswith("the assertion does not verify")
    elsewhere = tool_key.client_assertion(key, CLIENT, "https://another.example.edu/token")
    assert "Audience" in token_request(platform, elsewhere)[1]["error_description"]
    now = int(time.time())
    other_subject = jwt.encode({"iss": CLIENT, "sub": "someone", "aud": platform.token_url, "iat": now,
                                "exp": now + 60, "jti": "x1"}, key.private_key, algorithm="RS256",
                               headers={"kid": key.kid})
    assert token_request(platform, other_subject)[1]["error_description"] == "sub must be the client id"


def test_a_key_the_lms_does_not_know_is_refused_naming_what_to_register(platform, reg, tmp_path):
    stranger = tool_key.make(tmp_path / "another-course")
    with pytest.raises(services.PlatformError) as caught:
        services.Platform(reg, stranger).members()
    message = str(caught.value)
    assert "the LMS refused the tool's key for client id 10000000000042" in message
    assert stranger.kid in message and "send-grades --public-key" in message
    assert platform.refused[-1][2:4] == (401, "invalid_client")


def test_every_member_is_read_over_every_page(platform, reg, key):
    members, dropped = services.Platform(reg, key).members()
    assert [m.user_id for m in members] == [f"user-{n}" for n in range(5)] + ["user-teacher"]
    assert dropped == 1
    assert members[0].fields["lis_person_sourcedid"] == "s0" and members[0].is_learner
    assert not members[-1].is_learner


def test_a_line_item_is_made_once_and_then_found_by_its_resource_id(platform, reg, key):
    client = services.Platform(reg, key)
    for n in range(3):  # other columns, on more than one page
        client.create_line_item(f"quiz{n}", f"Quiz {n}", 5)
    assert client.line_items("ps1_hyperplanes") == []
    made = client.create_line_item("ps1_hyperplanes", "ps1_hyperplanes", 14.5)
    assert (made.label, made.score_maximum, made.resource_id) == ("ps1_hyperplanes", 14.5, "ps1_hyperplanes")
    assert client.line_items("ps1_hyperplanes") == [made]
    assert len(platform.line_items(CONTEXT)) == 4


def test_a_score_is_posted_to_the_line_item_s_scores_as_a_score(platform, reg, key):
    client = services.Platform(reg, key)
    item = client.create_line_item("ps1_hyperplanes", "ps1_hyperplanes", 14)
    score = {"userId": "user-1", "scoreGiven": 12.5, "scoreMaximum": 14, "activityProgress": "Completed",
             "gradingProgress": "FullyGraded", "timestamp": "2026-01-31T10:00:00.000+00:00", "comment": "Good."}
    assert client.post_score(item, score) == 200
    assert platform.scores_of(item.id) == [score]
    with pytest.raises(services.PlatformError) as caught:
        client.post_score(item, {**score, "userId": "user-nobody"})
    assert caught.value.status == 422 and caught.value.about_one
    assert "userId is no member of the course" in str(caught.value)


def test_the_token_goes_to_the_registered_hosts_only(platform, reg, key):
    client = services.Platform(reg, key)
    platform.contexts[CONTEXT]["line_items"].append(
        {"id": "https://elsewhere.example.edu/line_items/9", "label": "x", "scoreMaximum": 1,
         "resourceId": "ps1_hyperplanes"})
    with pytest.raises(services.PlatformError, match="on another host than"):
        client.line_items("ps1_hyperplanes")
    item = services.LineItem("https://elsewhere.example.edu/line_items/9", "x", 1.0)
    with pytest.raises(services.PlatformError, match="on another host than"):
        client.post_score(item, {})


def test_scores_sit_beside_the_line_item_s_path_with_its_query_kept():
    assert services.scores_url("https://moodle.example.edu/mod/lti/services.php/2/lineitems/5/lineitem?type_id=1") \
        == "https://moodle.example.edu/mod/lti/services.php/2/lineitems/5/lineitem/scores?type_id=1"
    assert services.scores_url("https://canvas.example.edu/api/lti/courses/1/line_items/7/") \
        == "https://canvas.example.edu/api/lti/courses/1/line_items/7/scores"
