"""What the test modules share besides fixtures: paths, notebooks filled in as students would, LMS layouts,
hostile submissions and the browser's helpers.  Fixtures live in the ``conftest.py`` files; no test module
imports another."""

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
ROOT = str(REPO_ROOT)
COURSE = os.path.join(ROOT, "notebooks")
