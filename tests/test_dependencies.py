"""What the pinned dependencies cost every process that reads a notebook.

Grading starts a Python process per worker and per command, and each imports
nbformat; with jsonschema 4.25 or later, nbformat's import also builds
rfc3987-syntax's grammar (about a second of CPU) for a URL format nothing here
validates. ``requirements.txt`` pins jsonschema below it; this holds the pin.
"""

import subprocess
import sys


def test_importing_nbformat_builds_no_iri_grammar():
    probe = ("import sys, nbformat\n"
             "print(sorted(name for name in ('rfc3987_syntax', 'lark') if name in sys.modules))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", (
        f"importing nbformat loads {done.stdout.strip()}: a jsonschema of 4.25 or later is installed "
        "(requirements.txt pins 4.24.1)")
