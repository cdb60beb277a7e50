"""A ``.zip`` of submissions, extracted member by member without trusting its names, links or sizes.

:func:`extract_zip` writes a download's members into an empty folder:
:func:`safe_member_path` refuses absolute, escaping, empty and too deep
paths; link members become links to a placeholder that is never followed;
members named like operating-system clutter (:data:`IGNORED_MEMBERS`) are
left out; the bytes of each member and of the whole archive are counted as
they are read, not taken from the headers.  A member that cannot be
extracted is reported with the reason; an archive that cannot be used at all
raises :class:`ArchiveError`.
"""

import os
import re
import stat
import zipfile
import zlib

__all__ = ["ArchiveError", "safe_member_path", "extract_zip", "IGNORED_MEMBERS", "LINK_PLACEHOLDER",
           "MAX_MEMBER_DEPTH"]

IGNORED_MEMBERS = frozenset({"__MACOSX", ".DS_Store", "Thumbs.db", ".ipynb_checkpoints", "desktop.ini"})
LINK_PLACEHOLDER = "(a link in the zip file; never followed)"
MAX_MEMBER_DEPTH = 8  # folders inside a zip member's path


class ArchiveError(ValueError):
    """The archive as a whole cannot be used (not a zip, too many members, expands too far)."""


def safe_member_path(name):
    """The parts of a zip member's path, or ``None`` for an absolute, escaping, empty or too deep one."""
    if not isinstance(name, str):
        return None
    name = name.replace("\\", "/")
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or "\x00" in name:
        return None
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or any(p == ".." for p in parts) or len(parts) > MAX_MEMBER_DEPTH:
        return None
    return parts


def extract_zip(archive, target, *, max_member_bytes, max_members, max_total_bytes):
    """Extract ``archive`` into the empty folder ``target``, member by member, with every check.

    Members with unsafe paths or named like operating-system clutter
    (``__MACOSX`` ...) are left out; a link member becomes a link to a
    placeholder (reported as a link, never followed); a member larger than
    ``max_member_bytes`` is cut just past that size, so it is reported as too
    large.  Returns ``{path: reason}`` for members that could not be
    extracted; raises :class:`ArchiveError` when the archive as a whole is
    unusable.
    """
    try:
        zf = zipfile.ZipFile(archive)
    except (zipfile.BadZipFile, OSError, ValueError) as exc:
        raise ArchiveError(f"{archive} is not a readable zip file ({exc}); "
                           "pass the folder of submissions or the zip as downloaded") from None
    total = 0
    problems = {}
    with zf:
        members = zf.infolist()
        if len(members) > max_members:
            raise ArchiveError(f"{archive} has {len(members):,} members; at most {max_members:,} are accepted")
        for info in members:
            parts = safe_member_path(info.filename)
            if parts is None or parts[0] in IGNORED_MEMBERS:
                continue
            dest = os.path.join(target, *parts)
            try:
                total = _extract_member(zf, info, dest, target, total, archive=archive,
                                        max_member_bytes=max_member_bytes, max_total_bytes=max_total_bytes)
            except (RuntimeError, NotImplementedError, zipfile.BadZipFile, zlib.error, EOFError, ValueError,
                    OSError) as exc:
                if isinstance(exc, ArchiveError):
                    raise
                # Encrypted, corrupt, oddly compressed, or a name this file system refuses
                # (longer than it allows, say): this member alone is unusable.
                reason = (exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc))[:100]
                problems[dest] = f"it could not be extracted from the zip file ({reason or type(exc).__name__})"
    return problems


def _extract_member(zf, info, dest, target, total, *, archive, max_member_bytes, max_total_bytes):
    """Extract one member to ``dest``; return the archive's running total of extracted bytes."""
    mode = info.external_attr >> 16
    if info.is_dir():
        _make_dirs(dest, target)
        return total
    if not _make_dirs(os.path.dirname(dest), target) or os.path.lexists(dest):
        return total
    if stat.S_ISLNK(mode):
        os.symlink(LINK_PLACEHOLDER, dest)
        return total
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    with zf.open(info) as src, os.fdopen(os.open(dest, flags, 0o600), "wb") as out:
        written = 0
        while True:
            chunk = src.read(1 << 20)
            if not chunk:
                break
            written += len(chunk)
            total += len(chunk)
            if total > max_total_bytes:
                raise ArchiveError(f"{archive} expands to more than {max_total_bytes:,} bytes; "
                                   "refusing to extract it")
            if written > max_member_bytes:
                out.write(chunk[: max(0, max_member_bytes + 1 - (written - len(chunk)))])
                break
            out.write(chunk)
    return total


def _make_dirs(folder, root):
    """Create ``folder`` under ``root`` unless a non-folder (a file or link) is in the way; return whether it exists."""
    rel = os.path.relpath(folder, root)
    current = root
    for part in ([] if rel == "." else rel.split(os.sep)):
        current = os.path.join(current, part)
        if os.path.islink(current) or (os.path.lexists(current) and not os.path.isdir(current)):
            return False
        if not os.path.exists(current):
            os.mkdir(current)
    return True
