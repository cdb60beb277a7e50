"""Writing a file so that no reader ever sees half of it: the grader's one way to write a file it hands on.

Each write goes to a temporary name in the file's own folder and is then
renamed over the old file in one step, so a reader finds the old file whole
or the new one whole, and a failed write leaves the old one and no temporary
file behind.  Every module that writes a file others read uses these two
functions: the run's outputs (:mod:`autograder.outputs.record`), the run's
record for ``export`` (:mod:`autograder.outputs.graded_run`), the marking
sheet, the Gradescope files and the calibrated time limits.  The module
imports nothing of the grader, so any of them can import it.
"""

import os
import tempfile

__all__ = ["write_text_atomic", "write_bytes_atomic"]


def write_text_atomic(path, text):
    """Write ``text`` to ``path`` (UTF-8) through a temporary file in the same folder, then rename it."""
    write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path, data):
    """Write ``data`` to ``path`` through a temporary file in the same folder, then rename it."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
