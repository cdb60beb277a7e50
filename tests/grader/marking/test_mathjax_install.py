"""The marking page's MathJax after ``make install`` alone, with no book built.

``make install`` (and ``make mark``, which runs it) installs MathJax with the
book build's own step, ``book/build.py --install-mathjax``, and the page's
``find_mathjax`` must find what that step installs.  npm is replaced by a
script that writes the package it is asked for, so no test reaches the
network; the version asked for is the book's pin.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

from autograder.marking.web import find_mathjax
from tests.support import ROOT
from tests.support.book import book_module

FAKE_NPM = """\
#!{python}
# npm install --prefix PREFIX ... NAME@VERSION, as far as book/build.py asks it: write the package's
# package.json and es5/tex-chtml.js, and note the command.
import json, os, sys
args = sys.argv[1:]
prefix = args[args.index("--prefix") + 1]
name, version = args[-1].rsplit("@", 1)
package = os.path.join(prefix, "node_modules", name)
os.makedirs(os.path.join(package, "es5"), exist_ok=True)
with open(os.path.join(package, "package.json"), "w") as f:
    json.dump({{"name": name, "version": version}}, f)
with open(os.path.join(package, "es5", "tex-chtml.js"), "w") as f:
    f.write("/* MathJax */")
with open({log!r}, "a") as f:
    f.write(json.dumps(args) + "\\n")
"""


def test_make_install_and_make_mark_run_the_book_s_mathjax_step():
    for target in (["install"], ["mark", "ASSIGNMENT=ps1_hyperplanes"]):
        planned = subprocess.run([shutil.which("make"), "--dry-run", *target], cwd=ROOT, capture_output=True,
                                 text=True, timeout=60)
        assert planned.returncode == 0, planned.stderr
        commands = planned.stdout.splitlines()
        assert ".venv/bin/python book/build.py --install-mathjax" in commands, (target, planned.stdout)
        assert "tools/system-packages.sh book" in commands, f"npm is installed first: {planned.stdout}"


def test_the_marking_page_finds_the_mathjax_the_install_step_installs(tmp_path, monkeypatch, capsys):
    build = book_module("build.py")
    root = tmp_path / "repository"
    log = tmp_path / "npm-calls.jsonl"
    tools = tmp_path / "bin"
    tools.mkdir()
    npm = tools / "npm"
    npm.write_text(textwrap.dedent(FAKE_NPM).format(python=sys.executable, log=str(log)), encoding="utf-8")
    npm.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.delenv("BOOK_MATHJAX_DIR", raising=False)
    # The install step's folder, moved with the repository into tmp_path: where it is inside the repository
    # is what the page must agree with.
    monkeypatch.setattr(build, "MATHJAX_PREFIX", root / build.MATHJAX_PREFIX.relative_to(build.ROOT))
    assert find_mathjax(str(root)) is None

    assert build.main(["--install-mathjax"]) == 0
    es5 = root / "_build" / ".mathjax" / "node_modules" / "mathjax" / "es5"
    assert find_mathjax(str(root)) == str(es5)
    assert f"MathJax {build.MATHJAX_VERSION}" in capsys.readouterr().out
    calls = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(calls) == 1 and calls[0][-1] == f"mathjax@{build.MATHJAX_VERSION}", calls
    assert not (root / "_build" / "html").exists(), "the install step builds no book"

    assert build.main(["--install-mathjax"]) == 0
    assert len(log.read_text(encoding="utf-8").splitlines()) == 1, "installed once: npm is not run again"
