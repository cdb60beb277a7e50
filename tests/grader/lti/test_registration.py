"""The registration file an instructor writes (``lti_grades.toml``): read whole, and every wrong field named at once."""

import pytest

from autograder.lti import registration

COMPLETE = """
issuer = "https://canvas.instructure.com"
client_id = 10000000000042
deployment_id = "42:8865aa05b4b79b64a91a86042e43af5ea8ae79eb"
token_url = "https://sso.canvaslms.com/login/oauth2/token"
jwks_url = "https://sso.canvaslms.com/api/lti/security/jwks"
lineitems_url = "https://canvas.example.edu/api/lti/courses/1234/line_items"
memberships_url = "https://canvas.example.edu/api/lti/courses/1234/names_and_roles"
student_id_field = "lis_person_sourcedid"
"""


def written(tmp_path, text):
    path = tmp_path / registration.CONFIG_NAME
    path.write_text(text, encoding="utf-8")
    return path


def refusal(path):
    with pytest.raises(registration.RegistrationError) as caught:
        registration.load(path)
    return str(caught.value)


def test_a_complete_registration_is_read_with_the_token_url_as_the_audience(tmp_path):
    reg = registration.load(written(tmp_path, COMPLETE))
    assert reg.client_id == "10000000000042"  # typed without quotes, as Canvas shows it: taken as its text
    assert reg.token_audience == reg.token_url == "https://sso.canvaslms.com/login/oauth2/token"
    assert reg.student_id_field == "lis_person_sourcedid"
    assert reg.platform == {"issuer": "https://canvas.instructure.com", "client_id": "10000000000042",
                            "deployment_id": "42:8865aa05b4b79b64a91a86042e43af5ea8ae79eb"}


def test_every_missing_field_is_named_at_once(tmp_path):
    message = refusal(written(tmp_path, 'issuer = "https://moodle.example.edu"\n'))
    assert "7 fields to fix" in message
    for name in ("client_id", "deployment_id", "token_url", "jwks_url", "lineitems_url", "memberships_url",
                 "student_id_field"):
        assert f"- {name} " in message
    assert "- issuer" not in message


def test_every_wrong_field_is_named_with_what_it_should_be(tmp_path):
    text = (COMPLETE.replace("https://canvas.example.edu/api/lti/courses/1234/line_items",
                             "http://canvas.example.edu/api/lti/courses/1234/line_items")
            .replace('"lis_person_sourcedid"', '"login"').replace('deployment_id = "42:', 'deployment_id = " \\t42:')
            + 'lineitem_url = "https://canvas.example.edu/x"\n')
    message = refusal(written(tmp_path, text))
    assert "4 fields to fix" in message
    assert "lineitems_url must be an https:// address" in message and "'http://canvas.example.edu" in message
    assert "student_id_field must be one of 'lis_person_sourcedid', 'email'" in message and "'login'" in message
    assert "deployment_id holds a control character" in message
    assert "lineitem_url is not a field of the registration (a typo?" in message


def test_plain_http_is_taken_on_loopback_only():
    assert registration.is_allowed_url("http://127.0.0.1:8080/token")
    assert registration.is_allowed_url("http://localhost/token")
    assert registration.is_allowed_url("https://moodle.example.edu/mod/lti/token.php")
    for url in ("http://moodle.example.edu/token", "http://10.0.0.1/token", "ftp://127.0.0.1/x",
                "https://user:pw@moodle.example.edu/", "https:///nohost", "https://host:port/"):
        assert not registration.is_allowed_url(url), url


def test_a_missing_or_unreadable_file_says_what_to_write(tmp_path):
    assert "there is no registration file" in refusal(tmp_path / "absent.toml")
    assert "is not valid TOML" in refusal(written(tmp_path, "issuer: https://x\n"))
