"""The files that cross the exchange, parsed once: names, sizes and counts, whoever sent them.

A release, a submission and a feedback travel as one JSON object,
``{"files": [{"path": "ps1.ipynb", "content": "<base64>"}, ...]}``, in the
keys' order :func:`encode_files` writes.  Every such object is read by
:func:`parse_files`, which reads that shape and no other JSON (so that what a
body costs in memory is bounded by its length).  It returns plain
:class:`File` records or raises :class:`TransferError` naming what was wrong
and what was expected: a path that is absolute, climbs out (``..``), is hidden,
holds a control character or a backslash, repeats another, or a body over the
course's :class:`~perceptron_course.limits.Limits` (``exchange_bytes``,
``exchange_files``).  Nothing past this module sees the raw body, and the
store writes only the records' bytes: no link, mode or time a student's disk had
reaches the instructor.

:func:`files_from_folder` is the other direction, on the sender's machine: it
reads a folder into records without following links (a link is refused, with
its name), leaving out what nbgrader's ``CourseDirectory.ignore`` names; and
:func:`write_files` writes records that came back into a folder, never through a link.
"""

import base64
import binascii
import fnmatch
import json
import os
import re
import stat
import unicodedata
from dataclasses import dataclass

from perceptron_course.limits import course_limits

__all__ = ["File", "TransferError", "parse_files", "encode_files", "encoded_length", "files_from_folder", "write_files",
           "check_path", "over_exchange_bytes", "over_body_bytes"]

MAX_PATH_CHARS = 512
MAX_NAME_BYTES = 255  # what Linux file systems take


class TransferError(ValueError):
    """What was sent cannot be taken; the message names the problem and what is expected."""

    too_large = False  # over a size or count limit (HTTP 413), rather than malformed (400)


class TooLarge(TransferError):
    too_large = True


@dataclass(frozen=True)
class File:
    path: str  # relative, POSIX separators, checked by check_path
    data: bytes


def check_path(path, max_depth=None):
    """``None`` if ``path`` is a safe relative file name for the exchange, else the reason.

    Safe: relative, at most ``max_depth`` folders deep (``Limits.exchange_depth``), every part a name of at
    most 255 bytes in UTF-8 that is not empty, ``.``, ``..`` or hidden and neither begins nor ends with a space,
    and no character that is a control, a formatting mark (bidirectional overrides, zero-width spaces), a line or
    paragraph separator or half of a surrogate pair.
    """
    max_depth = course_limits().exchange_depth if max_depth is None else max_depth
    if not isinstance(path, str) or not path:
        return "a file's path must be a non-empty string"
    if len(path) > MAX_PATH_CHARS:
        return f"a file's path is at most {MAX_PATH_CHARS} characters; got {len(path)}"
    if path.startswith("/"):
        return f"{path!r} is absolute; paths are relative to the assignment's folder"
    if "\\" in path or any(unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp") for ch in path):
        return (f"{path!r} holds a backslash, a control or formatting character, or a character that is not "
                "text; rename the file with letters, digits and punctuation")
    parts = path.split("/")
    if len(parts) - 1 > max_depth:
        return f"{path!r} lies {len(parts) - 1} folders deep; the exchange takes at most {max_depth}"
    for part in parts:
        if part in ("", ".", ".."):
            return f"{path!r} has an empty, '.' or '..' part; paths stay inside the assignment's folder"
        if part != part.strip():
            return f"{path!r} has a name that begins or ends with a space, which a reader cannot see"
        if part.startswith("."):
            return f"{path!r} names a hidden file or folder ({part!r}), which the exchange does not carry"
        if len(part.encode("utf-8")) > MAX_NAME_BYTES:
            return f"{path!r} has a name longer than {MAX_NAME_BYTES} bytes"
    return None


def _too_many(limits):
    # Both readers stop at the first file over the limit, so they cannot say how many more there were.
    return TooLarge(f"more than {limits.exchange_files:,} files were sent; the exchange takes at most "
                    f"{limits.exchange_files:,} (Autograder.exchange_files)")


def over_exchange_bytes(size, limits):
    """The refusal of ``size`` bytes of files, over ``exchange_bytes``."""
    return TooLarge(f"the files sent hold {size:,} bytes; the exchange takes at most "
                         f"{limits.exchange_bytes:,} (Autograder.exchange_bytes). Remove large data or outputs "
                         "from the assignment's folder and try again")


# The body's grammar, a subset of JSON that :func:`encode_files` writes (any whitespace between its parts):
# ``{"files": [`` entries separated by commas ``]}``, each entry ``{"path": <JSON string>, "content": "<base64>"}``.
# It is read piece by piece, not by json.loads: a general JSON parser turns a few bytes (``{},``) into a Python
# object of about 70, so a body within the limits could take the exchange 27 times its size in memory. Here
# each entry costs its path (a short string) and its decoded bytes, less than the body itself.
_SPACE = rb"[ \t\n\r]*"


def _pattern(*tokens):
    return re.compile(_SPACE.join(tokens) + _SPACE)


_OPEN = _pattern(b"", rb"\{", rb'"files"', b":", rb"\[")
# Ten of the pattern's steps a character at most: a surrogate pair's escape, \ud83d\ude00 (check_path then holds
# the path to MAX_PATH_CHARS characters).
_PATH = rb'("(?:[^"\\]|\\.){0,%d}")' % (10 * MAX_PATH_CHARS)
_ENTRY = _pattern(rb"\{", rb'"path"', b":", _PATH, b",", rb'"content"', b":", rb'"([^"\\]*)"', rb"\}")
_COMMA = re.compile(rb"," + _SPACE)
_CLOSE = re.compile(rb"\]" + _SPACE + rb"\}" + _SPACE + rb"\Z")
_BASE64 = re.compile(rb"[A-Za-z0-9+/]*={0,2}")
_EXPECTED = 'expected {"files": [{"path": "...", "content": "<base64>"}, ...]}, as the exchange\'s client writes it'


def over_body_bytes(length, limits):
    """The refusal of a body of ``length`` bytes, over what one body may hold."""
    return TooLarge(f"the upload is {length:,} bytes; one upload to the exchange holds at most "
                    f"{limits.exchange_body_bytes:,}: {limits.exchange_bytes:,} bytes of files "
                    "(Autograder.exchange_bytes) in base64, with their names. Remove large data or outputs from the "
                    "assignment's folder and try again")


def encoded_length(files):
    """The length of :func:`encode_files`' body for ``files``, without making it."""
    length = len(b'{"files": [') + len(b"]}") + 2 * max(len(files) - 1, 0)
    for item in files:
        length += len(b'{"path": , "content": ""}') + len(_json_path(item.path)) + -(-len(item.data) // 3) * 4
    return length


def _json_path(path):
    # Names as UTF-8, not \uXXXX escapes: a reply holds a path in no more bytes than an upload could.
    return json.dumps(path, ensure_ascii=False).encode("utf-8")


def parse_files(body, limits=None):
    """The :class:`File` records of a body (bytes, a bytearray or str) in the exchange's format;
    :class:`TransferError` if anything is wrong."""
    limits = limits or course_limits()
    if isinstance(body, str):
        body = body.encode("utf-8", "surrogatepass")
    if len(body) > limits.exchange_body_bytes:
        raise over_body_bytes(len(body), limits)
    view = memoryview(body)
    opened = _OPEN.match(body)
    if opened is None:
        raise TransferError(f"the body does not begin as the exchange's format does; {_EXPECTED}")
    records, seen, total, at = [], {}, 0, opened.end()
    while _CLOSE.match(body, at) is None:
        if records and (comma := _COMMA.match(body, at)) is not None:
            at = comma.end()
        elif records:
            raise TransferError(f"the body is not in the exchange's format at byte {at:,}; {_EXPECTED}")
        entry = _ENTRY.match(body, at)
        if entry is None:
            raise TransferError(f"the body is not in the exchange's format at byte {at:,}; {_EXPECTED}")
        if len(records) >= limits.exchange_files:
            raise _too_many(limits)
        quoted = entry.group(1)
        try:
            path = json.loads(quoted)
        except (UnicodeDecodeError, ValueError):
            raise TransferError(f"a file's path is not a JSON string of UTF-8 text: {bytes(quoted[:80])!r}") from None
        problem = check_path(path, limits.exchange_depth)
        if problem:
            raise TransferError(problem)
        key = _same_name(path)
        clash = next((p for p in seen if key == p or key.startswith(p + "/") or p.startswith(key + "/")), None)
        if clash is not None:
            raise TransferError(f"{path!r} is sent twice, or beside {seen[clash]!r}, a name that looks the same or "
                                "a file where the other has a folder; rename one of them")
        seen[key] = path
        start, end = entry.span(2)
        if _BASE64.fullmatch(body, start, end) is None or (end - start) % 4:
            raise TransferError(f"the content of {path!r} is not base64")
        total += (end - start) // 4 * 3 - bytes(view[max(start, end - 2):end]).count(b"=")
        if total > limits.exchange_bytes:
            raise over_exchange_bytes(total, limits)
        try:
            data = binascii.a2b_base64(view[start:end], strict_mode=True)
        except binascii.Error:
            raise TransferError(f"the content of {path!r} is not base64") from None
        records.append(File(path, data))
        at = entry.end()
    # What the exchange sends back must fit one body too: an upload may be written more tightly than encode_files
    # writes it (no spaces), and would otherwise be kept but never read back.
    reply_length = encoded_length(records)
    if reply_length > limits.exchange_body_bytes:
        raise over_body_bytes(reply_length, limits)
    return tuple(records)


def _same_name(path):
    """What two paths that name the same file, or look alike (case, é composed or not, full-width letters), share."""
    return unicodedata.normalize("NFKC", path).casefold()


def encode_files(files):
    """The JSON body for ``files`` (records), as :func:`parse_files` reads it: joined from each file's base64
    bytes, so that a large reply is not also held as text in between."""
    pieces = [b'{"files": [']
    for number, item in enumerate(files):
        pieces += [b", " if number else b"", b'{"path": ', _json_path(item.path), b', "content": "',
                   base64.b64encode(item.data), b'"}']
    pieces.append(b"]}")
    return b"".join(pieces)


def _ignored(name, patterns):
    return any(fnmatch.fnmatch(name, pattern) for pattern in patterns)


def files_from_folder(folder, *, ignore=(), limits=None):
    """The files under ``folder`` as records, in a stable order, checked as the exchange will check them.

    Hidden files and folders and names matching ``ignore`` (glob patterns, as
    nbgrader's ``CourseDirectory.ignore``) are left out; a symbolic link, a
    special file or a name the exchange refuses is a :class:`TransferError`.
    """
    limits = limits or course_limits()
    records, total = [], 0
    for current, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and not _ignored(d, ignore)
                         or os.path.islink(os.path.join(current, d)))
        for name in sorted(names) + [d for d in dirs if os.path.islink(os.path.join(current, d))]:
            if name.startswith(".") or _ignored(name, ignore):
                continue
            full = os.path.join(current, name)
            rel = os.path.relpath(full, folder).replace(os.sep, "/")
            info = os.lstat(full)
            if stat.S_ISLNK(info.st_mode):
                raise TransferError(f"{rel} is a symbolic link; copy the file itself into the folder instead")
            if not stat.S_ISREG(info.st_mode):
                raise TransferError(f"{rel} is not a regular file")
            problem = check_path(rel, limits.exchange_depth)
            if problem:
                raise TransferError(problem)
            total += info.st_size
            if total > limits.exchange_bytes:
                raise over_exchange_bytes(total, limits)
            if len(records) >= limits.exchange_files:
                raise _too_many(limits)
            with open(full, "rb") as handle:
                records.append(File(rel, handle.read(limits.exchange_bytes + 1)))
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(current, d))]
    return tuple(records)


def write_files(files, folder, *, replace=True):
    """Write exchange records under ``folder``, never through a link; ``replace=False`` keeps existing files."""
    written, max_depth = [], course_limits().exchange_depth
    for item in files:
        problem = check_path(item.path, max_depth)
        if problem:
            raise TransferError(problem)
        target = os.path.join(folder, *item.path.split("/"))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if os.path.lexists(target):
            if not replace:
                continue
            if os.path.islink(target) or not os.path.isfile(target):
                raise TransferError(f"{target} is in the way (a link or a folder); move it and try again")
        tmp = target + ".exchange-tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(item.data)
        os.replace(tmp, target)
        written.append(target)
    return written
