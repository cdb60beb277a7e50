"""Tests of the published course (``python -m autograder publish``, ``make site``).

The fast tests build the downloads from small stand-ins. The slow ones publish the real
course once per session (into a temporary folder, where its book is built too), serve it on
127.0.0.1, and follow a student who has never seen the repository: a fresh virtual
environment, the install command the student page shows, every chapter's notebook and every
assignment downloaded over HTTP (each exactly its release behind the install cell, the form
``test_grade.py`` grades in full), and the installed check on them, untouched and filled in.

The chapters are run here, and only here, in the test suite: each one as a student downloads
it, in the student's environment, and what it shows must be what the book shows (the outputs
that the book's build stored in the download). The book's build is the other run of each
chapter (``make book``; its jupyter-cache runs a chapter again only when its code changes).
"""

from __future__ import annotations

import html
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
import zipfile
from pathlib import Path
from types import SimpleNamespace

import nbformat
import pytest

from autograder.commands import audit as leak_audit
from autograder.commands import publish
from autograder.course.assignments import names as assignment_names

from tests.support import REPO_ROOT
from tests.support.book import toc_docnames
from tests.support.browser import PHONE, open_page, phone_layout_problems
from tests.support.grading import another_courses_notebook

ASSIGNMENTS = assignment_names()
READY = "Ready to submit: every visible test passes, nothing is missing, and the file name is right."


# --- fast: the pieces -------------------------------------------------------------------------

def test_site_address_comes_from_the_config_and_is_checked(tmp_path):
    config = tmp_path / "_config.yml"
    config.write_text("html:\n  baseurl: \"\"\n", encoding="utf-8")
    assert publish.site_address(config) is None
    config.write_text("html:\n  baseurl: https://example.edu/perceptron/\n", encoding="utf-8")
    assert publish.site_address(config) == "https://example.edu/perceptron"
    config.write_text("html:\n  baseurl: example.edu/perceptron\n", encoding="utf-8")
    with pytest.raises(publish.PublishError, match=r"html.baseurl .* starting with https://"):
        publish.site_address(config)


def test_install_command_uses_the_site_or_the_downloaded_wheel():
    wheel = "perceptron_course_student-1.0.0-py3-none-any.whl"
    assert publish.install_command("https://example.edu/c", "perceptron-course-student", wheel) == (
        "pip install --find-links https://example.edu/c/packages/index.html perceptron-course-student jupyterlab")
    assert publish.install_command(None, "perceptron-course-student", wheel) == f"pip install {wheel} jupyterlab"


def test_the_install_cell_comes_first_once_and_has_no_nbgrader_metadata():
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Problem set")])
    publish.with_install_cell(notebook, "https://old.example.edu", "pkg")
    publish.with_install_cell(notebook, "https://example.edu/c", "pkg")
    first = notebook.cells[0]
    assert len(notebook.cells) == 2 and first.cell_type == "code"
    assert "nbgrader" not in first.metadata and publish.INSTALL_TAG in first.metadata["tags"]
    pip_lines = [line for line in first.source.splitlines() if not line.startswith("#")]
    assert pip_lines == ["%pip install --quiet --find-links https://example.edu/c/packages/index.html pkg"]
    publish.with_install_cell(notebook, None, "pkg")
    assert [c.cell_type for c in notebook.cells] == ["markdown"]


def test_a_downloaded_chapter_runs_without_myst_nb(monkeypatch):
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import math\nfrom myst_nb import glue\nglue('x', math.pi, display=False)\nresult = 1")])
    source = publish.standalone_chapter(notebook).cells[0].source
    monkeypatch.setitem(sys.modules, "myst_nb", None)  # makes the import fail, as without myst-nb
    namespace = {}
    exec(compile(source, "chapter", "exec"), namespace)
    assert namespace["result"] == 1


PURE = "perceptron_course_student-1.0.0-py3-none-any.whl"
COMPILED = "perceptron_course_student-1.0.0-cp311-abi3-manylinux1_x86_64.manylinux_2_5_x86_64.whl"


def fake_wheels(out_dir: Path) -> tuple[Path, list[Path], str]:
    """Stand-ins for the student package's two wheels, with its console command (and, in the compiled one,
    a kernel)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in (PURE, COMPILED):
        with zipfile.ZipFile(out_dir / name, "w") as archive:
            for path in sorted((REPO_ROOT / "perceptron_lib").glob("*.py")):
                archive.write(path, f"perceptron_lib/{path.name}")
            if name == COMPILED:
                archive.writestr("perceptron_lib/_kernel.abi3.so", b"\x7fELF")
            archive.writestr("perceptron_course_student-1.0.0.dist-info/entry_points.txt",
                             "[console_scripts]\nperceptron-check = perceptron_course.check:main\n")
    return out_dir / PURE, [out_dir / COMPILED], ""


def fake_release(folder: Path) -> Path:
    for name in ASSIGNMENTS:
        notebook = nbformat.v4.new_notebook(cells=[
            nbformat.v4.new_markdown_cell(f"# Problem set on {name}"),
            nbformat.v4.new_code_cell("def f(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()")])
        (folder / name).mkdir(parents=True)
        nbformat.write(notebook, folder / name / f"{name}.ipynb")
    (folder / ASSIGNMENTS[0] / "points.csv").write_text("x,y\n1,1\n", encoding="utf-8")
    return folder


def test_prepare_writes_the_package_and_each_assignment(tmp_path, monkeypatch):
    monkeypatch.setattr(publish, "build_student_wheels", fake_wheels)
    out = tmp_path / "published"
    manifest = publish.prepare("https://example.edu/c", out=out, release=fake_release(tmp_path / "release"))
    wheel = PURE
    assert manifest["package"] == "perceptron-course-student" and manifest["check"] == "perceptron-check"
    published_manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert published_manifest == {key: value for key, value in manifest.items() if key != "packaging_note"}
    assert sorted(p.name for p in (out / "packages").iterdir()) == sorted([PURE, COMPILED])
    assert manifest["wheel"] == f"packages/{PURE}" and manifest["compiled_wheels"] == [f"packages/{COMPILED}"]
    assert [a["name"] for a in manifest["assignments"]] == list(ASSIGNMENTS)
    for assignment in manifest["assignments"]:
        name = assignment["name"]
        assert assignment["title"] == f"Problem set on {name}"
        notebook = nbformat.read(out / assignment["notebook"], as_version=4)
        assert publish.INSTALL_TAG in notebook.cells[0].metadata["tags"]
        with zipfile.ZipFile(out / assignment["zip"]) as archive:
            members = set(archive.namelist())
            readme = archive.read("README.txt").decode()
            assert archive.read(f"{name}.ipynb").decode() == (out / assignment["notebook"]).read_text(encoding="utf-8")
        # The zip's own install command names the wheel that installs everywhere.
        assert {f"{name}.ipynb", wheel, "README.txt"} <= members and COMPILED not in members
        assert f"perceptron-check {name}.ipynb" in readme and manifest["install"] in readme
    with zipfile.ZipFile(out / "assignments" / f"{ASSIGNMENTS[0]}.zip") as archive:
        assert "points.csv" in archive.namelist()  # what the release holds besides the notebook
    assert leak_audit.audit([out], leak_audit.collect_secrets(REPO_ROOT)) == []


def test_the_public_edition_holds_the_book_and_nothing_secret(tmp_path, monkeypatch):
    monkeypatch.setattr(publish, "build_student_wheels", fake_wheels)
    published = tmp_path / "published"
    manifest = publish.prepare(None, out=published, release=fake_release(tmp_path / "release"))
    edition = tmp_path / "public-repo"
    publish.write_public_edition(manifest, out=edition, published=published)
    top = {path.name for path in edition.iterdir()}
    assert {"book", "perceptron_lib", "notebooks", "published", "_config.yml", "_toc.yml", "requirements.txt",
            "README.md"} <= top
    assert "autograder" not in top and not (edition / "notebooks" / "source").exists()
    for name in ASSIGNMENTS:  # where the chapters' download links point
        assert (edition / "notebooks" / "release" / name / f"{name}.ipynb").is_file()
    requirements = (edition / "requirements.txt").read_text(encoding="utf-8").splitlines()
    assert f"./published/{manifest['wheel']}" in requirements and any(r.startswith("jupyter-book==") for r in requirements)
    assert "repository" in (edition / "README.md").read_text(encoding="utf-8")
    assert leak_audit.audit([edition], leak_audit.collect_secrets(REPO_ROOT)) == []


# A stand-in for the edition's book/build.py: it records where it ran, what it could import and see, and
# leaves byte-code behind as a real build does.
RECORDING_BUILD = """
import json, os, sys
from pathlib import Path
os.makedirs("book/__pycache__", exist_ok=True)
Path("book/__pycache__/x.pyc").write_bytes(b"")
out = Path(sys.argv[sys.argv.index("--path-output") + 1])
(out / "_build" / "html").mkdir(parents=True)
(out / "_build" / "html" / "record.json").write_text(json.dumps({
    "cwd": os.getcwd(), "pythonpath": os.environ.get("PYTHONPATH"),
    "lent": sorted(p.name for p in Path("_build").iterdir()),
    "cache_holds": sorted(p.name for p in Path("_build/.jupyter_cache").iterdir())}))
sys.exit(int(os.environ.get("RECORDING_BUILD_EXIT", "0")))
"""


def test_the_book_is_built_by_the_public_edition_alone_with_the_repositorys_caches_lent(tmp_path, monkeypatch):
    repository_build = tmp_path / "repository" / "_build"
    (repository_build / ".jupyter_cache").mkdir(parents=True)
    (repository_build / ".jupyter_cache" / "global.db").write_bytes(b"cache")
    monkeypatch.setattr(publish, "BUILD", repository_build)
    monkeypatch.setenv("PYTHONPATH", str(REPO_ROOT))
    edition = tmp_path / "public-repo"
    (edition / "book").mkdir(parents=True)
    (edition / "book" / "build.py").write_text(RECORDING_BUILD, encoding="utf-8")
    before = sorted(path.relative_to(edition) for path in edition.rglob("*"))

    publish.build_book(edition, tmp_path / "out")
    record = json.loads((tmp_path / "out" / "_build" / "html" / "record.json").read_text(encoding="utf-8"))
    assert record == {"cwd": str(edition), "pythonpath": None, "lent": [".jupyter_cache"],
                      "cache_holds": ["global.db"]}
    # The edition is left as it was written; the repository's cache is untouched.
    assert sorted(path.relative_to(edition) for path in edition.rglob("*")) == before
    assert (repository_build / ".jupyter_cache" / "global.db").read_bytes() == b"cache"

    monkeypatch.setenv("RECORDING_BUILD_EXIT", "1")
    shutil.rmtree(tmp_path / "out")
    with pytest.raises(publish.PublishError, match="the public edition's book build failed"):
        publish.build_book(edition, tmp_path / "out")
    assert sorted(path.relative_to(edition) for path in edition.rglob("*")) == before


def test_assemble_puts_in_the_install_cell_and_only_the_downloads_prepared_now(tmp_path, monkeypatch):
    monkeypatch.setattr(publish, "build_student_wheels", fake_wheels)
    published = tmp_path / "published"
    manifest = publish.prepare("https://example.edu/c", out=published, release=fake_release(tmp_path / "release"))
    book = tmp_path / "html"
    shutil.copytree(published, book)  # as the book's build copies it
    (book / "packages" / "old_course-0.9-py3-none-any.whl").write_bytes(b"left by an earlier build")
    (book / "book").mkdir()
    (book / "book" / "students.html").write_text("<html></html>", encoding="utf-8")
    (book / "reports").mkdir()
    (book / "reports" / "chapter.err.log").write_text("Traceback", encoding="utf-8")
    chapter = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("from myst_nb import glue\nx = 1")])
    (book / "_sources" / "book").mkdir(parents=True)
    nbformat.write(chapter, book / "_sources" / "book" / "hyperplanes.ipynb")
    (book / "_downloads" / "0a1b").mkdir(parents=True)
    shutil.copyfile(fake_release(tmp_path / "old-release") / ASSIGNMENTS[0] / f"{ASSIGNMENTS[0]}.ipynb",
                    book / "_downloads" / "0a1b" / f"{ASSIGNMENTS[0]}.ipynb")

    site = tmp_path / "site"
    publish.assemble(manifest, html_dir=book, site=site, published=published)
    assert sorted(p.name for p in (site / "packages").iterdir()) == sorted(["index.html", PURE, COMPILED])
    assert not (site / "reports").exists() and (site / ".nojekyll").is_file()
    downloaded = nbformat.read(site / "_sources" / "book" / "hyperplanes.ipynb", as_version=4)
    assert publish.INSTALL_TAG in downloaded.cells[0].metadata["tags"]
    assert "except ImportError" in downloaded.cells[1].source
    linked = site / "_downloads" / "0a1b" / f"{ASSIGNMENTS[0]}.ipynb"
    assert linked.read_bytes() == (published / "assignments" / f"{ASSIGNMENTS[0]}.ipynb").read_bytes()


def test_the_package_index_lists_each_wheel_by_a_relative_link(tmp_path):
    wheels = [tmp_path / "a_pkg-1.0-py3-none-any.whl", tmp_path / "a_pkg-1.1-py3-none-any.whl"]
    page = publish.packages_index(wheels)
    assert re.findall(r'<a href="([^"]+)"', page)[1:] == [w.name for w in wheels]
    assert '<html lang="en">' in page and "<title>" in page and "<main>" in page


def test_a_site_the_leak_audit_finds_a_secret_in_is_deleted_with_the_public_edition(tmp_path, monkeypatch):
    """publish's own audit, after the book is built: one hidden-test line in a page, and neither folder is left."""
    monkeypatch.setattr(publish, "build_student_wheels", fake_wheels)
    release = fake_release(tmp_path / "release")
    real_prepare = publish.prepare
    monkeypatch.setattr(publish, "prepare", lambda address, out: real_prepare(address, out=out, release=release))
    hidden = next(line for cell in nbformat.read(REPO_ROOT / "notebooks" / "source" / ASSIGNMENTS[0]
                                                 / f"{ASSIGNMENTS[0]}.ipynb", as_version=4).cells
                  if "### BEGIN HIDDEN TESTS" in cell.source
                  for line in cell.source.split("### BEGIN HIDDEN TESTS")[1].splitlines() if len(line.strip()) > 30)
    page = "<html><body><p>The course.</p></body></html>"

    def assemble(manifest, html_dir, site, published):  # the built book, as a page of it
        (site / "book").mkdir(parents=True)
        (site / "book" / "index.html").write_text(page, encoding="utf-8")

    monkeypatch.setattr(publish, "assemble", assemble)
    out = tmp_path / "out"
    result = publish.publish(book=False, address="https://courses.example.edu/perceptron", out=out)
    assert Path(result["site"]).is_dir() and Path(result["public_repo"]).is_dir()

    page = f"<html><body><pre>{html.escape(hidden)}</pre></body></html>"
    shutil.rmtree(out)
    with pytest.raises(publish.PublishError, match=r"the leak audit found \d+ secret") as refused:
        publish.publish(book=False, address="https://courses.example.edu/perceptron", out=out)
    assert "book/index.html" in str(refused.value)
    assert not (out / "site").exists() and not (out / "public-repo").exists()


def test_prepare_refuses_an_unreleased_assignment(tmp_path, monkeypatch):
    monkeypatch.setattr(publish, "build_student_wheels", fake_wheels)
    release = fake_release(tmp_path / "release")
    shutil.rmtree(release / ASSIGNMENTS[-1])
    with pytest.raises(publish.PublishError, match=rf"{ASSIGNMENTS[-1]}.*python -m autograder release"):
        publish.prepare(None, out=tmp_path / "published", release=release)


# --- slow: the real course, published and served ----------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def fetch(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read()


def repo_env() -> dict:
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}


@pytest.fixture(scope="session")
def published(tmp_path_factory):
    """The course published once for the session, with its address set to where it is served."""
    if not all((REPO_ROOT / "notebooks" / "release" / a / f"{a}.ipynb").is_file() for a in ASSIGNMENTS):
        subprocess.run([sys.executable, "-m", "autograder", "release"], cwd=REPO_ROOT, env=repo_env(), check=True)
    port = free_port()
    address = f"http://127.0.0.1:{port}"
    out = tmp_path_factory.mktemp("published")
    result = subprocess.run([sys.executable, "-m", "autograder", "publish", "--address", address, "--out", str(out)],
                            cwd=REPO_ROOT, env=repo_env(), capture_output=True, text=True)
    assert result.returncode == 0, f"publishing failed:\n{result.stdout[-6000:]}\n{result.stderr[-6000:]}"
    print(*[line for line in result.stdout.splitlines() if line.startswith("published ")])
    server = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1",
                               "--directory", str(out / "site")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                fetch(f"{address}/index.html")
                break
            except OSError:
                time.sleep(0.1)
        yield SimpleNamespace(address=address, site=out / "site", public=out / "public-repo")
    finally:
        server.terminate()
        server.wait(timeout=30)


def page_text(raw: bytes) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", raw.decode("utf-8")))


@pytest.fixture(scope="session")
def student(published, tmp_path_factory):
    """A fresh virtual environment, set up as the student page says: nothing of the repository."""
    home = tmp_path_factory.mktemp("student")
    venv = home / "venv"
    subprocess.run([getattr(sys, "_base_executable", sys.executable), "-m", "venv", str(venv)], check=True)
    page = page_text(fetch(f"{published.address}/book/students.html"))
    commands = [line.strip() for line in page.splitlines() if line.strip().startswith("pip install")]
    assert commands and published.address in commands[0], f"no install command from the site on the page: {commands}"
    # Nothing of this test run's environment that a student's would not have: the grading tests set
    # MPLBACKEND=Agg for themselves, and with it a notebook's figures are never displayed.
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME") and not key.startswith(("JUPYTER", "MPL"))}
    env.update(PATH=f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}", JUPYTER_DATA_DIR=str(home / "jupyter"),
               HOME=str(home), PIP_DISABLE_PIP_VERSION_CHECK="1")
    env["PIP_CACHE_DIR"] = os.environ.get("PIP_CACHE_DIR", str(Path.home() / ".cache" / "pip"))
    result = subprocess.run([str(venv / "bin" / "python"), "-m", *shlex.split(commands[0])], cwd=home, env=env,
                            capture_output=True, text=True)
    assert result.returncode == 0, f"`{commands[0]}` failed:\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return SimpleNamespace(home=home, venv=venv, env=env)


@pytest.mark.slow
def test_the_published_course_holds_nothing_secret(published):
    findings = leak_audit.audit([published.site, published.public], leak_audit.collect_secrets(REPO_ROOT))
    assert findings == [], "\n".join(map(str, findings))


@pytest.mark.slow
def test_the_site_links_only_relatively(published):
    absolute = []
    for page in sorted(published.site.rglob("*.html")):
        if "_static" in page.relative_to(published.site).parts:
            continue
        for url in re.findall(r'(?:href|src)="([^"]*)"', page.read_text(encoding="utf-8")):
            if url.startswith("/") or url.startswith(published.address):
                absolute.append(f"{page.relative_to(published.site)}: {url}")
    assert not absolute, "links that break when the site moves:\n" + "\n".join(absolute[:20])


def chapters_with_code() -> list[str]:
    """The chapters of ``_toc.yml`` that have code, as their notebooks are named (``hyperplanes``)."""
    return [Path(name).name for name in toc_docnames(REPO_ROOT / "_toc.yml")
            if (REPO_ROOT / f"{name}.md").is_file()
            and "```{code-cell}" in (REPO_ROOT / f"{name}.md").read_text(encoding="utf-8")]


@pytest.fixture(scope="session")
def chapter_runs(published, student) -> dict[str, SimpleNamespace]:
    """Every chapter's notebook that the site's pages offer, downloaded and run in the student's environment.

    Keyed by the download's link; each has ``downloaded`` (the file as the site serves it, with the outputs
    of the book's build), ``ran`` (the same notebook run top to bottom by ``jupyter nbconvert --execute``)
    and ``error`` (the end of nbconvert's output when the run failed, else empty).
    """
    links = set()
    for page in sorted((published.site / "book").glob("*.html")):
        links.update(re.findall(r'href="\.\./(_sources/book/[\w-]+\.ipynb)"', page.read_text(encoding="utf-8")))
    folder = student.home / "chapters"
    ran_folder = folder / "ran"
    ran_folder.mkdir(parents=True)
    downloads = {}
    for link in sorted(links):
        downloads[link] = folder / Path(link).name
        downloads[link].write_bytes(fetch(f"{published.address}/{link}"))

    def execute(*notebooks: Path) -> subprocess.CompletedProcess:
        return subprocess.run([str(student.venv / "bin" / "jupyter"), "nbconvert", "--to", "notebook", "--execute",
                               "--ExecutePreprocessor.timeout=600", "--output-dir", str(ran_folder),
                               *map(str, notebooks)], cwd=folder, env=student.env, capture_output=True, text=True)

    # One nbconvert for every chapter (each in a kernel of its own); only when that fails is each chapter run
    # alone, to say which ones fail.
    together = execute(*downloads.values())
    runs = {}
    for link, downloaded in downloads.items():
        alone = execute(downloaded) if together.returncode != 0 else together
        runs[link] = SimpleNamespace(downloaded=downloaded, ran=ran_folder / downloaded.name,
                                     error="" if alone.returncode == 0 else alone.stderr[-3000:])
    return runs


@pytest.mark.slow
def test_the_published_students_page_fits_a_phone_screen(published, browser):
    """With the downloads listed (the wheel's long file name among them), the page does not scroll sideways."""
    page = published.site / "book" / "students.html"
    assert published.address in page.read_text(encoding="utf-8"), f"{page} does not show the install command"
    errors = open_page(browser, page, PHONE)
    problems = [f"console error: {entry['message']}" for entry in errors]
    problems += phone_layout_problems(browser)
    assert not problems, "the published students' page at phone width:\n" + "\n".join(problems)


@pytest.mark.slow
def test_every_chapter_downloaded_from_the_site_runs(chapter_runs):
    offered = sorted(Path(link).stem for link in chapter_runs)
    assert offered == sorted(chapters_with_code()), (
        f"the site's pages offer the notebooks of {offered}; the chapters of _toc.yml with code are "
        f"{sorted(chapters_with_code())}")
    for link, run in chapter_runs.items():
        notebook = nbformat.read(run.downloaded, as_version=4)
        assert publish.INSTALL_TAG in notebook.cells[0].metadata.get("tags", []), f"{link} has no install cell"
    failures = [f"{link}:\n{run.error}" for link, run in chapter_runs.items() if run.error]
    assert not failures, "chapters that fail in the student's environment:\n" + "\n".join(failures)


# How a cell's outputs are compared, as nbval compares a notebook with the outputs it holds: streams
# (consecutive pieces joined) and the text of each display, in order, with what changes from run to run
# made neutral. An image counts by its kind only: its bytes change with the plotting library's version.
# myst-nb's glue records (the numbers the book's text quotes) are left out: a downloaded chapter's
# stand-in for glue records nothing.
GLUE_RECORD = "application/papermill.record/"
TEXT_KINDS = ("text/plain", "text/markdown", "text/html", "text/latex")
RUN_TO_RUN = (
    (re.compile(r"data:image/\w+;base64,[^\"']*"), "data:image/…"),  # images inside HTML (an animation's frames)
    (re.compile(r"\b0x[0-9a-f]+\b"), "0x…"),  # object addresses
    (re.compile(r"[0-9a-f]{32}"), "…"),  # random element ids (an animation's)
)


def neutral(text) -> str:
    text = "".join(text) if isinstance(text, list) else text
    for pattern, replacement in RUN_TO_RUN:
        text = pattern.sub(replacement, text)
    return text


def shown_outputs(cell) -> list[tuple]:
    """What a reader sees of a code cell's outputs, comparable between two runs."""
    shown: list[tuple] = []
    for output in cell.get("outputs", []):
        kind = output["output_type"]
        if kind == "stream":
            if shown and shown[-1][:2] == ("stream", output["name"]):
                shown[-1] = ("stream", output["name"], shown[-1][2] + neutral(output["text"]))
            else:
                shown.append(("stream", output["name"], neutral(output["text"])))
        elif kind in ("display_data", "execute_result"):
            data = {key: value for key, value in output["data"].items() if not key.startswith(GLUE_RECORD)}
            if data:
                shown.append((kind, sorted(data), [(key, neutral(data[key])) for key in TEXT_KINDS if key in data]))
        else:
            shown.append((kind, output.get("ename"), output.get("evalue")))
    return shown


def difference(expected: list[tuple], got: list[tuple]) -> str:
    """Where two cells' outputs (``shown_outputs``) first differ, with a little context."""
    if len(expected) != len(got):
        return (f"the book shows {len(expected)} outputs {[output[:2] for output in expected]}, the student gets "
                f"{len(got)} {[output[:2] for output in got]}")
    for number, (book, student) in enumerate(zip(expected, got)):
        if book != student:
            book, student = repr(book), repr(student)
            at = next((i for i, (a, b) in enumerate(zip(book, student)) if a != b), min(len(book), len(student)))
            start = max(0, at - 100)
            return (f"output {number}: the book shows ...{book[start:at + 200]}\n"
                    f"        the student gets ...{student[start:at + 200]}")
    return "no difference"


@pytest.mark.slow
def test_every_chapter_shows_in_the_students_environment_what_the_book_shows(chapter_runs):
    assert chapter_runs, "the site offers no chapter notebook"
    problems = []
    for link, run in sorted(chapter_runs.items()):
        if run.error:
            problems.append(f"{link} did not run (see test_every_chapter_downloaded_from_the_site_runs)")
            continue
        book = nbformat.read(run.downloaded, as_version=4).cells
        student = nbformat.read(run.ran, as_version=4).cells
        assert len(book) == len(student), f"{link}: {len(book)} cells downloaded, {len(student)} after the run"
        code = [(index, cell) for index, cell in enumerate(book)
                if cell.cell_type == "code" and publish.INSTALL_TAG not in cell.metadata.get("tags", [])]
        unexecuted = [index for index, cell in code if cell.get("execution_count") is None]
        if unexecuted:
            problems.append(f"{link}: cells {unexecuted} hold no outputs of the book's build, so there is nothing "
                            "to compare with (book/build.py takes them from its jupyter-cache)")
            continue
        for index, cell in code:
            expected, got = shown_outputs(cell), shown_outputs(student[index])
            if expected != got:
                first_line = (cell.source.splitlines() or [""])[0]
                problems.append(f"{link}, cell {index} ({first_line[:60]!r}):\n    {difference(expected, got)}")
    assert not problems, ("chapters whose outputs in the student's environment differ from the book's (run "
                          "`make book` after clearing _build/.jupyter_cache if the book's are out of date):\n"
                          + "\n".join(problems))


@pytest.mark.slow
def test_each_assignment_downloaded_is_its_release_with_the_install_cell(published):
    """What the grader is tested on: test_grade grades the release with this install cell in front, and every
    assignment's solution so, in full."""
    (wheel,) = (published.site / "packages").glob("*-py3-none-any.whl")
    for name in ASSIGNMENTS:
        downloaded = nbformat.reads(fetch(f"{published.address}/assignments/{name}.ipynb").decode("utf-8"),
                                    as_version=4)
        release = nbformat.read(REPO_ROOT / "notebooks" / "release" / name / f"{name}.ipynb", as_version=4)
        expected = publish.with_install_cell(release, published.address, publish.wheel_project(wheel))
        for notebook in (downloaded, expected):
            notebook.cells[0].pop("id")  # a new cell's id is random
        assert downloaded.cells == expected.cells, f"{name}: the download is not its release with the install cell"


@pytest.mark.slow
def test_each_assignment_is_checked_by_the_installed_check(published, student):
    from autograder.running.calibrate import solution_notebook

    check = str(student.venv / "bin" / "perceptron-check")
    for name in ASSIGNMENTS:
        untouched = student.home / "untouched" / f"{name}.ipynb"
        filled = student.home / "filled" / f"{name}.ipynb"
        for path in (untouched, filled):
            path.parent.mkdir(exist_ok=True)
        untouched.write_bytes(fetch(f"{published.address}/assignments/{name}.ipynb"))
        source = nbformat.read(REPO_ROOT / "notebooks" / "source" / name / f"{name}.ipynb", as_version=4)
        filled.write_text(solution_notebook(nbformat.read(untouched, as_version=4), source), encoding="utf-8")

        result = subprocess.run([check, str(filled)], cwd=student.home, env=student.env, capture_output=True, text=True)
        lines = result.stdout.splitlines()
        assert result.returncode == 0 and lines[-1:] == [READY] and not [line for line in lines if "[fix]" in line], (
            f"{name}, filled in: exit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")
        result = subprocess.run([check, str(untouched)], cwd=student.home, env=student.env, capture_output=True,
                                text=True)
        assert (result.returncode == 1 and result.stdout.splitlines()[-1].startswith("Not ready: ")
                and "still raises NotImplementedError" in result.stdout), (
            f"{name}, untouched: exit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")


@pytest.mark.slow
def test_the_sites_two_wheels_hold_every_release_and_nothing_secret_and_one_the_kernel(published):
    wheels = sorted(p.name for p in (published.site / "packages").glob("*.whl"))
    assert wheels == [COMPILED, PURE], "the site should offer the pure-Python wheel and the kernel's, tagged for " \
                                       f"every Linux on x86-64 with Python 3.11 or later: {wheels}"
    texts = {}
    for name in wheels:
        with zipfile.ZipFile(published.site / "packages" / name) as archive:
            texts[name] = {member: archive.read(member) for member in archive.namelist()}
    page = page_text(fetch(f"{published.address}/book/students.html"))
    assert ("On Linux on a 64-bit Intel or AMD PC (Colab and most JupyterHubs too), pip takes the package's version "
            "with compiled code") in " ".join(page.replace("\u2019", "'").split()), (
        "the students' page does not say who gets the kernel")
    payload = {name: {m for m in members if ".dist-info/" not in m and not m.endswith("/")}
               for name, members in texts.items()}
    assert payload[COMPILED] - payload[PURE] == {"perceptron_lib/_kernel.abi3.so"}
    assert payload[PURE] - payload[COMPILED] == set()
    assert texts[COMPILED]["perceptron_lib/_kernel.abi3.so"].startswith(b"\x7fELF")
    for name, members in texts.items():
        assert not [m for m in members if m.startswith("autograder") or m.endswith((".c", ".pyd", ".dll"))
                    or (m.endswith(".so") and m != "perceptron_lib/_kernel.abi3.so")], name
        for assignment in ASSIGNMENTS:
            assert f"perceptron_course/release/{assignment}/{assignment}.ipynb" in members
        for member, data in members.items():
            text = data.decode("utf-8", "replace")
            assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text and "run_in_notebook" not in text, (
                name, member)


# What pip is asked to install for, and which of the site's wheels it must take.
PLATFORMS = [
    ("Windows, Python 3.12", ["--platform", "win_amd64", "--python-version", "3.12"], PURE),
    ("macOS on Apple silicon, Python 3.13", ["--platform", "macosx_14_0_arm64", "--python-version", "3.13"], PURE),
    ("Linux on ARM, Python 3.12", ["--platform", "manylinux2014_aarch64", "--python-version", "3.12"], PURE),
    ("Linux on x86-64, Python 3.13", ["--platform", "manylinux2014_x86_64", "--python-version", "3.13"], COMPILED),
    ("Linux on x86-64, Python 3.11", ["--platform", "manylinux2014_x86_64", "--python-version", "3.11"], COMPILED),
]


@pytest.mark.slow
def test_pip_takes_the_kernels_wheel_on_linux_on_x86_64_and_the_pure_one_elsewhere(published, tmp_path):
    """pip, given the site's package index as the students' command gives it, picks by the wheels' tags alone."""
    wrong = []
    for system, options, expected in PLATFORMS:
        folder = tmp_path / re.sub(r"\W+", "-", system)
        done = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-index",
                               "--only-binary=:all:", "--implementation", "cp", *options,
                               "--find-links", f"{published.address}/packages/index.html", "--dest", str(folder),
                               "perceptron-course-student"], capture_output=True, text=True, timeout=120)
        taken = sorted(p.name for p in folder.glob("*.whl")) if folder.is_dir() else []
        if done.returncode != 0 or taken != [expected]:
            wrong.append(f"{system}: took {taken} (exit {done.returncode}, {done.stderr.strip()[-300:]})")
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow
def test_the_installed_library_trains_with_the_kernel_giving_the_numpy_engines_weights(student):
    """This machine is Linux on x86-64: the student's pip took the kernel's wheel, which gives, bit for bit,
    the weights of the numpy engine that Windows and macOS students train with."""
    # The run counts the kernel's epoch scans, so that the kernel is seen to train, not only to load.
    code = ("import sys, numpy, perceptron_lib\n"
            "from perceptron_lib._engine import compiled_kernel\n"
            "kernel, scans = compiled_kernel(), []\n"
            "if kernel is not None:\n"
            "    scan = kernel.scan\n"
            "    kernel.scan = lambda *args: scans.append(1) or scan(*args)\n"
            "rng = numpy.random.default_rng(0)\n"
            "X = rng.normal(size=(3000, 20)); y = numpy.where(X[:, 0] + rng.normal(size=3000) > 0, 1, -1)\n"
            "model = perceptron_lib.Perceptron(max_epochs=5).fit(X, y)\n"
            "print(kernel is not None and kernel.__file__.endswith('_kernel.abi3.so'), len(scans), model.n_mistakes_)\n"
            "numpy.save(sys.argv[1], numpy.append(model.coef_, model.intercept_))")
    weights = {}
    for engine, extra in (("kernel", {}), ("numpy", {"PERCEPTRON_LIB_PURE_NUMPY": "1"})):
        path = student.home / f"weights-{engine}.npy"
        done = subprocess.run([str(student.venv / "bin" / "python"), "-c", code, str(path)], cwd=student.home,
                              env={**student.env, **extra}, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        kernel, scans, mistakes = done.stdout.split()
        assert int(mistakes) > 1000, done.stdout
        assert (kernel, int(scans) >= 5) == ((("True", True) if engine == "kernel" else ("False", False))), done.stdout
        weights[engine] = path.read_bytes()
    assert weights["kernel"] == weights["numpy"]


@pytest.mark.slow
def test_the_installed_check_names_another_courses_notebook_without_a_traceback(student, tmp_path):
    nbformat.write(another_courses_notebook(), str(tmp_path / "lab1.ipynb"))
    check = str(student.venv / "bin" / "perceptron-check")
    done = subprocess.run([check, "lab1.ipynb"], cwd=tmp_path, env=student.env, capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == "", done.stdout
    assert done.stderr.startswith("perceptron-check: lab1.ipynb shares no graded cell with any assignment of this "
                                  "course") and "Traceback" not in done.stderr
    done = subprocess.run([check, "absent.ipynb"], cwd=tmp_path, env=student.env, capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("perceptron-check: there is no file ")
    assert "Traceback" not in done.stderr


@pytest.mark.slow
def test_the_sites_book_is_the_one_the_public_edition_builds(published):
    """publish builds the site's book from the public edition (book/build.py in the edition's folder, run
    without the repository on PYTHONPATH), so the edition is proven to build by itself; the build's
    caches and byte-code are taken out of the edition again."""
    import pickle

    with open(published.site.parent / "_build" / ".doctrees" / "environment.pickle", "rb") as saved:
        environment = pickle.load(saved)
    assert Path(environment.srcdir).resolve() == published.public.resolve(), (
        f"the site's book was built from {environment.srcdir}, not from the public edition")
    leftovers = [str(path.relative_to(published.public)) for path in published.public.rglob("*")
                 if path.name in ("_build", "__pycache__", ".jupyter_cache")]
    assert not leftovers, f"the book's build left these in the public edition: {leftovers}"
    students = (published.site / "book" / "students.html").read_text(encoding="utf-8")
    for name in ASSIGNMENTS:
        assert f'href="../assignments/{name}.zip"' in students
        assert (published.site / "assignments" / f"{name}.zip").is_file()
