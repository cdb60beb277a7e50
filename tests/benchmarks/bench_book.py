"""Book build: a rebuild after one chapter changed, against a clean build.

Both builds run ``book/build.py`` on a copy of the book in a temporary
folder, so the repository's own ``_build`` is untouched.  Between them one
code cell is appended to one chapter; the jupyter-cache must then re-execute
that chapter alone, which the benchmark checks from the build's log.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tests.support.book import book_module

ROOT = Path(__file__).resolve().parents[2]
CHANGED = "offset"


def build(root, env):
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "book/build.py"], cwd=root, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"book build failed in {root}:\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}")
    executed = re.search(r"^\[book\] executed: (.*?); from the cache", result.stdout, re.M)
    return elapsed, [] if executed is None or executed[1] == "none" else executed[1].split(", ")


def run(quick=False):
    if quick:
        return []
    with tempfile.TemporaryDirectory(prefix="bench-book-") as tmp:
        copy = Path(tmp)
        # The chapters include the library's source with literalinclude.
        for folder in ("book", "perceptron_lib"):
            shutil.copytree(ROOT / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
        for name in ("_config.yml", "_toc.yml"):
            shutil.copy2(ROOT / name, copy / name)
        if (ROOT / "notebooks" / "release").is_dir():
            shutil.copytree(ROOT / "notebooks" / "release", copy / "notebooks" / "release")
        env = dict(os.environ)
        es5 = ROOT / "_build" / ".mathjax" / "node_modules" / "mathjax" / "es5"
        if es5.is_dir():
            env["BOOK_MATHJAX_DIR"] = str(es5)
        book_build = book_module("build.py")
        for name, checker in book_build.CHECKERS.items():
            script = book_build.installed_checker_script(name)
            if script is not None:
                env[checker.variable] = str(script)
        clean_t, clean_executed = build(copy, env)
        chapter = copy / "book" / f"{CHANGED}.md"
        chapter.write_text(chapter.read_text() + "\n```{code-cell} ipython3\nprint('changed')\n```\n")
        rebuild_t, executed = build(copy, env)
    if executed != [CHANGED]:
        raise RuntimeError(f"after changing only {CHANGED}.md the rebuild executed {executed or 'nothing'}")
    return [("book build", f"rebuild after {CHANGED}.md changed (re-executed only it; "
             f"the clean build executed {len(clean_executed)} chapters)", rebuild_t, "clean build", clean_t)]
