"""The tool's own RSA key: made once in the course directory, its public half given to the LMS, never shown.

An LTI 1.3 tool proves who it is to the platform's token endpoint with a JSON
Web Token it signs (a client assertion, RFC 7523): the platform checks the
signature against the public key its administrator registered for the
tool's client id.  :func:`make` writes a new 2048-bit key to
``<course>/.autograder/lti/tool-key.pem`` (:func:`key_path`), readable by its
owner only (0600, in a folder of mode 0700), and never replaces one;
:func:`public_jwks` is the public half as a JSON Web Key Set (what Canvas
and Moodle take, alongside :func:`public_pem`).  :func:`load` reads the key
back and refuses a key that others can read or that is no RSA private key,
with a message that never holds a byte of it.  :func:`client_assertion`
signs the assertion: ``RS256``, ``iss`` and ``sub`` the client id, ``aud``
the token URL, a random ``jti``, ``iat`` and ``exp`` five minutes later,
and the key's id (``kid``, its RFC 7638 thumbprint) in the header so that
the platform picks the right registered key.

Nothing here prints, logs or returns the private key in any form other than
the key object the signing needs.
"""

import base64
import hashlib
import json
import os
import secrets
import stat
import tempfile
import time
from dataclasses import dataclass

__all__ = ["ToolKey", "ToolKeyError", "key_path", "make", "load", "public_jwks", "public_jwk", "public_pem",
           "client_assertion", "ASSERTION_SECONDS", "KEY_NAME"]

KEY_NAME = "tool-key.pem"
ASSERTION_SECONDS = 300
_KEY_BITS = 2048


class ToolKeyError(Exception):
    """The tool's key is missing, unreadable, readable by others or no RSA private key; the message says what to do."""


@dataclass(frozen=True, repr=False)
class ToolKey:
    """The tool's private key (``repr`` shows only its id, so that no traceback or log line can show the key)."""

    private_key: object  # cryptography's RSAPrivateKey
    kid: str
    path: str

    def __repr__(self):
        return f"ToolKey(kid={self.kid!r}, path={self.path!r})"


def key_path(course_dir):
    return os.path.join(course_dir, ".autograder", "lti", KEY_NAME)


def _b64(number):
    data = number.to_bytes((number.bit_length() + 7) // 8 or 1, "big")
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _thumbprint(e, n):
    """RFC 7638: SHA-256 of the required members in lexicographic order, no whitespace, base64url."""
    canonical = json.dumps({"e": e, "kty": "RSA", "n": n}, separators=(",", ":"), sort_keys=True)
    return base64.urlsafe_b64encode(hashlib.sha256(canonical.encode("ascii")).digest()).rstrip(b"=").decode("ascii")


def _public_members(private_key):
    numbers = private_key.public_key().public_numbers()
    e, n = _b64(numbers.e), _b64(numbers.n)
    return e, n, _thumbprint(e, n)


def make(course_dir):
    """Write a new key to :func:`key_path` (0600) and return it; :class:`ToolKeyError` if one is there already."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    path = key_path(course_dir)
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    os.chmod(folder, 0o700)
    if os.path.lexists(path):
        raise ToolKeyError(f"the tool has a key already, {path}: print its public half with 'python -m autograder "
                           "send-grades --public-key'. To replace it, move it away first, then register the new "
                           "public key in the LMS in its place")
    private_key = rsa.generate_private_key(public_exponent=65537, key_size=_KEY_BITS)
    data = private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption())
    # mkstemp makes the file 0600 before a byte is in it; the link puts it in place whole, and fails rather than
    # replace a key another process made meanwhile.
    fd, staged = tempfile.mkstemp(prefix=".tmp-key-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.link(staged, path)
    except FileExistsError:
        raise ToolKeyError(f"another process made the tool's key {path} meanwhile; use that one") from None
    finally:
        os.unlink(staged)
    return ToolKey(private_key, _public_members(private_key)[2], path)


def load(course_dir):
    """The tool's key from :func:`key_path`; :class:`ToolKeyError` says why not (and never shows the key)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    path = key_path(course_dir)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        raise ToolKeyError(f"the tool has no key yet ({path} does not exist): make one with 'python -m autograder "
                           "send-grades --new-key' and register the public key it prints in the LMS") from None
    except OSError as exc:
        raise ToolKeyError(f"cannot read the tool's key {path}: {exc.strerror or type(exc).__name__} (a link is "
                           "not followed)") from None
    with os.fdopen(descriptor, "rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        if not stat.S_ISREG(mode):
            raise ToolKeyError(f"the tool's key {path} is not a regular file")
        if mode & 0o077:
            raise ToolKeyError(f"the tool's key {path} can be read by others (mode {stat.S_IMODE(mode):04o}): the "
                               f"key is the course's password to the LMS. Run 'chmod 600 {path}', and if others "
                               "may have copied it, make a new key and register it instead")
        data = handle.read(64 * 1024)
    try:
        private_key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError):  # the messages name the format only; the key's bytes are left out all the same
        raise ToolKeyError(f"the tool's key {path} is not an unencrypted PEM private key (damaged or replaced?): "
                           "move it away, make a new one with 'python -m autograder send-grades --new-key' and "
                           "register its public key in the LMS in place of the old one") from None
    if not isinstance(private_key, rsa.RSAPrivateKey) or private_key.key_size < _KEY_BITS:
        raise ToolKeyError(f"the tool's key {path} is not an RSA key of at least {_KEY_BITS} bits, which LTI 1.3 "
                           "(RS256) needs: make a new one with 'python -m autograder send-grades --new-key'")
    return ToolKey(private_key, _public_members(private_key)[2], path)


def public_jwk(key):
    """The public half of ``key`` as one JSON Web Key (Canvas's "Public JWK" field takes this)."""
    e, n, kid = _public_members(key.private_key)
    return {"kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid, "e": e, "n": n}


def public_jwks(key):
    """The public half of ``key`` as a JSON Web Key Set (``{"keys": [...]}``)."""
    return {"keys": [public_jwk(key)]}


def public_pem(key):
    """The public half of ``key`` as PEM text (Moodle's "RSA key" public key type takes this)."""
    from cryptography.hazmat.primitives import serialization

    return key.private_key.public_key().public_bytes(serialization.Encoding.PEM,
                                                     serialization.PublicFormat.SubjectPublicKeyInfo).decode("ascii")


def client_assertion(key, client_id, audience, *, now=None):
    """A signed client assertion (RFC 7523) for the token endpoint at ``audience``: the JWT's compact text."""
    import jwt

    issued = int(time.time() if now is None else now)
    claims = {"iss": client_id, "sub": client_id, "aud": audience, "iat": issued,
              "exp": issued + ASSERTION_SECONDS, "jti": secrets.token_urlsafe(24)}
    return jwt.encode(claims, key.private_key, algorithm="RS256", headers={"kid": key.kid, "typ": "JWT"})
