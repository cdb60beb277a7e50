"""The tool's key: made once, 0600, its public half given out as a key set, refused with a clear message when it
is missing, shared with others or no RSA key, and never shown."""

import base64
import hashlib
import json
import os
import stat

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from autograder.commands import send_grades
from autograder.lti import tool_key

PRIVATE_MEMBERS = {"d", "p", "q", "dp", "dq", "qi"}


def key_lines(path):
    """The base64 lines of a PEM key file, each a piece of the key that must never be shown."""
    return [line for line in path.read_text().splitlines() if line and not line.startswith("-----")]


def test_a_new_key_is_its_owner_s_alone_and_never_replaced(tmp_path):
    key = tool_key.make(tmp_path)
    assert stat.S_IMODE(os.stat(key.path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(os.path.dirname(key.path)).st_mode) == 0o700
    before = open(key.path, "rb").read()
    with pytest.raises(tool_key.ToolKeyError, match="has a key already"):
        tool_key.make(tmp_path)
    assert open(key.path, "rb").read() == before
    assert os.listdir(os.path.dirname(key.path)) == [tool_key.KEY_NAME]  # no staged copy left behind
    assert tool_key.load(tmp_path).kid == key.kid
    assert "PRIVATE" not in repr(key) and key.kid in repr(key)


def test_the_key_set_holds_the_public_half_only_with_its_thumbprint_as_id(tmp_path):
    key = tool_key.make(tmp_path)
    jwks = tool_key.public_jwks(key)
    (jwk,) = jwks["keys"]
    assert not PRIVATE_MEMBERS & set(jwk)
    assert (jwk["kty"], jwk["alg"], jwk["use"]) == ("RSA", "RS256", "sig")
    canonical = json.dumps({"e": jwk["e"], "kty": "RSA", "n": jwk["n"]}, separators=(",", ":"))
    assert jwk["kid"] == base64.urlsafe_b64encode(hashlib.sha256(canonical.encode()).digest()).rstrip(b"=").decode()
    pem = tool_key.public_pem(key)
    assert pem.startswith("-----BEGIN PUBLIC KEY-----")
    assert serialization.load_pem_public_key(pem.encode()).public_numbers() == \
        jwt.PyJWK(jwk).key.public_numbers()


def test_the_client_assertion_is_signed_for_the_token_url_and_never_the_same_twice(tmp_path):
    key = tool_key.make(tmp_path)
    public = jwt.PyJWK(tool_key.public_jwk(key)).key
    first = tool_key.client_assertion(key, "10000000000042", "https://lms.example.edu/login/oauth2/token")
    second = tool_key.client_assertion(key, "10000000000042", "https://lms.example.edu/login/oauth2/token")
    assert jwt.get_unverified_header(first) == {"alg": "RS256", "kid": key.kid, "typ": "JWT"}
    claims = jwt.decode(first, public, algorithms=["RS256"], audience="https://lms.example.edu/login/oauth2/token",
                        issuer="10000000000042")
    assert claims["sub"] == "10000000000042"
    assert claims["exp"] - claims["iat"] == tool_key.ASSERTION_SECONDS
    assert claims["jti"] != jwt.decode(second, public, algorithms=["RS256"],
                                       audience="https://lms.example.edu/login/oauth2/token")["jti"]


def test_a_missing_key_says_how_to_make_one(tmp_path):
    with pytest.raises(tool_key.ToolKeyError, match="send-grades --new-key"):
        tool_key.load(tmp_path)


def test_a_key_others_can_read_is_refused(tmp_path):
    key = tool_key.make(tmp_path)
    os.chmod(key.path, 0o640)
    with pytest.raises(tool_key.ToolKeyError, match=r"can be read by others \(mode 0640\).*chmod 600"):
        tool_key.load(tmp_path)


def test_a_damaged_key_is_refused_without_a_byte_of_it(tmp_path):
    key = tool_key.make(tmp_path)
    path = tmp_path / ".autograder" / "lti" / tool_key.KEY_NAME
    lines = key_lines(path)
    text = path.read_text()
    path.write_text(text.replace(lines[0], lines[0][::-1]))  # the DER header broken
    with pytest.raises(tool_key.ToolKeyError) as caught:
        tool_key.load(tmp_path)
    assert "is not an unencrypted PEM private key" in str(caught.value)
    assert not any(line in str(caught.value) for line in lines)
    assert key.kid


def test_a_key_of_another_kind_is_refused(tmp_path):
    tool_key.make(tmp_path)
    path = tmp_path / ".autograder" / "lti" / tool_key.KEY_NAME
    other = ec.generate_private_key(ec.SECP256R1())
    path.write_bytes(other.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                         serialization.NoEncryption()))
    with pytest.raises(tool_key.ToolKeyError, match="is not an RSA key of at least 2048 bits"):
        tool_key.load(tmp_path)


def test_the_commands_print_the_public_half_and_nothing_of_the_key(tmp_path, capsys):
    assert send_grades.main(["--new-key", "--course-dir", str(tmp_path)]) == 0
    made = capsys.readouterr()
    jwks = json.loads(made.out)
    path = tmp_path / ".autograder" / "lti" / tool_key.KEY_NAME
    assert str(path) in made.err
    assert send_grades.main(["--public-key", "--course-dir", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out) == jwks
    assert send_grades.main(["--public-key", "jwk", "--course-dir", str(tmp_path)]) == 0
    assert json.loads(capsys.readouterr().out) == jwks["keys"][0]
    assert send_grades.main(["--public-key", "pem", "--course-dir", str(tmp_path)]) == 0
    pem = capsys.readouterr().out
    assert pem.startswith("-----BEGIN PUBLIC KEY-----")
    assert send_grades.main(["--new-key", "--course-dir", str(tmp_path)]) == 2
    again = capsys.readouterr()
    shown = made.out + made.err + pem + again.out + again.err
    assert not any(line in shown for line in key_lines(path))
    assert "has a key already" in again.err
