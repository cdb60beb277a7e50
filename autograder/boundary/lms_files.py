"""The files an LMS adds to its download, which carry names students chose.

* A Blackboard receipt (one per attempt, plain text):
  :func:`read_blackboard_receipt` gives a :class:`BlackboardReceipt` (the
  student's name and username, the date, the original names of the files).
* Gradescope's ``submission_metadata.yml``: :func:`read_gradescope_metadata`
  gives a :class:`GradescopeSubmission` per submission folder (its
  submitters and its time).  It is YAML written by a Ruby program: it is
  read with a safe loader that takes Ruby's tagged values as plain data,
  and only plain scalars become names, so an alias bomb is never expanded
  into text.

Both readers are total, and :mod:`autograder.intake.lms` uses nothing of
these files but the records they give.
"""

import datetime
import re
from dataclasses import dataclass
from typing import Any

from perceptron_course.boundary import read_untrusted_file

__all__ = ["BlackboardReceipt", "GradescopeSubmission", "read_blackboard_receipt", "read_gradescope_metadata"]

MAX_RECEIPT_BYTES = 256 * 2**10
MAX_METADATA_BYTES = 16 * 2**20


@dataclass(frozen=True)
class BlackboardReceipt:
    """What a Blackboard receipt says about one attempt.

    ``name`` and ``username`` of the student, ``submitted`` the date as the
    receipt writes it (its format follows the server's locale), and ``files``
    the ``(stored name, original name)`` pairs of the attempt's files.
    """

    name: str = ""
    username: str = ""
    submitted: str = ""
    files: tuple = ()

    def original_name(self, stored):
        """The name the student gave the file stored as ``stored``, or ``None``."""
        return dict(self.files).get(stored)


@dataclass(frozen=True)
class GradescopeSubmission:
    """One submission of Gradescope's ``submission_metadata.yml``.

    ``submitters`` are ``(name, sid, email)`` text triples (a group has
    several); ``created_at`` a :class:`datetime.datetime`, or ``None`` when the
    file gives no readable time.
    """

    submitters: tuple = ()
    created_at: Any = None


def read_blackboard_receipt(path):
    """The :class:`BlackboardReceipt` of a receipt file, or ``None`` when it cannot be read.

    A receipt is plain text: ``Name: Ada Lovelace (alovelace)``,
    ``Assignment: ...``, ``Date Submitted: ...``, and under ``Files:`` pairs
    of ``Original filename: ...`` and ``Filename: ...`` lines.
    """
    data, _ = read_untrusted_file(path, MAX_RECEIPT_BYTES)
    if data is None:
        return None
    text = data.decode("utf-8-sig", errors="replace")
    info = {"name": "", "username": "", "submitted": ""}
    files = {}
    original = None
    for raw in text.splitlines():
        line = raw.strip()
        key, sep, value = line.partition(":")
        if not sep:
            continue
        key, value = key.strip().lower(), value.strip()
        if key == "name" and not info["name"]:
            match = re.match(r"^(?P<name>.*?)\s*\((?P<user>[^()]+)\)\s*$", value)
            info["name"], info["username"] = (match["name"], match["user"]) if match else (value, "")
        elif key == "date submitted":
            info["submitted"] = value
        elif key == "original filename":
            original = value
        elif key == "filename" and original is not None:
            files[value] = original
            original = None
    return BlackboardReceipt(files=tuple(files.items()), **info)


class _TolerantLoader:
    """A YAML safe loader that reads Ruby-tagged values (``!ruby/object:...``) as plain data."""

    loader = None

    @classmethod
    def get(cls):
        if cls.loader is None:
            import yaml

            class Loader(yaml.SafeLoader):
                pass

            def untagged(loader, suffix, node):
                if isinstance(node, yaml.MappingNode):
                    return loader.construct_mapping(node, deep=True)
                if isinstance(node, yaml.SequenceNode):
                    return loader.construct_sequence(node, deep=True)
                return loader.construct_scalar(node)

            Loader.add_multi_constructor("!", untagged)
            Loader.add_multi_constructor("tag:yaml.org,2002:", untagged)
            cls.loader = Loader
        return cls.loader


def _key(mapping, name):
    """A value of a Gradescope mapping whose keys are Ruby symbols (``:name``) or plain strings."""
    if not isinstance(mapping, dict):
        return None
    for key in (f":{name}", name):
        if key in mapping:
            return mapping[key]
    return None


def _scalar_text(value):
    """A name, id or email from the metadata as text; anything but a plain scalar (an alias bomb ...) is ignored."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return ""
    return str(value).strip()[:200]


def _as_time(value):
    if isinstance(value, datetime.datetime):
        return value
    if isinstance(value, str):
        text = value.strip()
        match = re.match(r"^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?$", text)
        if match:
            zone = match[4] or ""
            if zone and zone != "Z" and ":" not in zone:
                zone = zone[:3] + ":" + zone[3:]
            fraction = (match[3] or "")[:7]
            try:
                return datetime.datetime.fromisoformat(f"{match[1]}T{match[2]}{fraction}{zone.replace('Z', '+00:00')}")
            except ValueError:
                return None
    return None


def read_gradescope_metadata(path):
    """``({folder name: GradescopeSubmission}, problem)``; ``problem`` is ``None`` or why nothing could be read."""
    data, problem = read_untrusted_file(path, MAX_METADATA_BYTES)
    if data is None:
        return {}, problem
    import yaml

    try:
        document = yaml.load(data.decode("utf-8", errors="replace"), Loader=_TolerantLoader.get())  # noqa: S506 (safe loader subclass)
    except (yaml.YAMLError, RecursionError) as exc:
        return {}, f"it is not valid YAML ({str(exc).splitlines()[0][:100]})"
    if not isinstance(document, dict):
        return {}, "it does not map submission folders to their submitters"
    found = {}
    for folder, record in document.items():
        if not isinstance(folder, str) or not isinstance(record, dict):
            continue
        submitters = []
        people = _key(record, "submitters")
        for person in people[:100] if isinstance(people, list) else []:
            if isinstance(person, dict):
                submitters.append(tuple(_scalar_text(_key(person, k)) for k in ("name", "sid", "email")))
        found[folder] = GradescopeSubmission(submitters=tuple(submitters),
                                             created_at=_as_time(_key(record, "created_at")))
    return found, None
