"""Runs the README's two set-up commands on bare Debian systems, as a new user would.

For each system (Debian 12 "bookworm" and Debian 13 "trixie" by default), a
minimal root is made with ``debootstrap --variant=minbase`` (kept as a tarball in
``/var/tmp/perceptron-course-systems/``, or ``$TEST_SYSTEMS_ROOTS``, for the next
run) and entered as a container runtime enters one: its own mount, process, IPC and UTS namespaces, ``pivot_root`` into it, a clean
environment (bubblewrap does all of that). Inside, only what the README asks a user
to have is installed (``git``, ``make``, ``python3``, ``python3-venv``), the
project's committed HEAD is cloned into root's home (mode 700, a private home), and
``make book`` and ``make test`` run there. The report gives, for each system, the
Python, each command's result and time, and whether the compiled kernel was built;
each command's whole output is kept in ``_build/systems/<system>/``.

It takes about an hour per system on two cores (mostly ``make test`` and the
downloads), so it is a target of its own, ``make test-systems``, run before a change
of the set-up is merged, not by every CI run. It needs root, bubblewrap, debootstrap
and a reachable Debian archive.

With ``--gradescope``, each system also gets a second fresh root laid out as
Gradescope's ``/autograder``: the zip that ``python -m autograder gradescope`` builds
here for ps2 is unpacked into ``source/``, the instructor's solution is the
submission, and the zip's own ``setup.sh`` (as Gradescope runs it when it builds the
image) and ``run_autograder`` run there; the report gives the environment's size
and the score, which must be full.

Usage: python3 tools/test_systems.py [--only-book] [--gradescope] [SYSTEM ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
# The logs, in the checkout; the roots and the cached tarballs, gigabytes of files, outside it, where
# nothing that walks the checkout (pip's editable install of the project, a search) has to cross them.
WORK = REPO / "_build" / "systems"
ROOTS = Path(os.environ.get("TEST_SYSTEMS_ROOTS", "/var/tmp/perceptron-course-systems"))
MIRROR = "http://deb.debian.org/debian"
SYSTEMS = {"bookworm": "Debian 12", "trixie": "Debian 13"}
# What the README asks a user to have before the two commands (ca-certificates lets git
# and pip reach https addresses; a container image's apt brings it with them).
README_PACKAGES = ["git", "make", "python3", "python3-venv", "ca-certificates"]
HOME_CLONE = "/root/perceptron-course"
# A network that inspects TLS (as the one these tests run on does) asks every machine on it
# to trust its certificate authority: the host's extra authorities are installed in each
# root as a user would install them (/usr/local/share/ca-certificates, taken up when
# ca-certificates is installed), and the variables that point tools at the system's bundle
# are carried in when the host sets them.
EXTRA_AUTHORITIES = Path("/usr/local/share/ca-certificates")
BUNDLE_VARIABLES = ("PIP_CERT", "NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "GIT_SSL_CAINFO",
                    "CURL_CA_BUNDLE")
SYSTEM_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"

# Run inside the root. Each step's output goes to its own file in /results, and its exit
# status and time to steps.tsv, so that a failed step still leaves the report its line.
STEPS = r"""
set -u
cd /
step() {
    name=$1; shift
    started=$(date +%s)
    "$@" > "/results/$name.log" 2>&1
    status=$?
    echo -e "$name\t$status\t$(( $(date +%s) - started ))" >> /results/steps.tsv
    return $status
}
: > /results/steps.tsv
"""
INSIDE = STEPS + r"""
export DEBIAN_FRONTEND=noninteractive
step system-packages bash -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $README_PACKAGES" || exit 1
python3 --version > /results/python.txt 2>&1
step clone git clone -q /checkout "$HOME_CLONE" || exit 1
cd "$HOME_CLONE"
step make-book make book || exit 1
"$HOME_CLONE/.venv/bin/python" -c "import perceptron_lib._kernel" > /results/kernel.txt 2>&1 \
    && echo built > /results/kernel.txt || echo "not built" > /results/kernel.txt
[ "$ONLY_BOOK" = 1 ] && exit 0
step make-test make test
"""


# Gradescope's image: the zip's setup.sh installs, run_autograder grades the solution.
GRADESCOPE_ASSIGNMENT = "ps2_online_perceptron"
GRADESCOPE_INSIDE = STEPS + r"""
step gradescope-setup bash /autograder/source/setup.sh || exit 1
du -sm /autograder/venv | cut -f1 > /results/venv-mib.txt
step gradescope-run bash /autograder/source/run_autograder
"""


def run(command, **kwargs):
    print("+", " ".join(map(str, command)), flush=True)
    return subprocess.run(command, check=True, **kwargs)


def bare_root(system: str, name: str = "root") -> Path:
    """A fresh bare root of ``system`` in ``_build/systems/<system>/<name>``, from the cached tarball or made
    by debootstrap."""
    folder = ROOTS / system
    tarball = ROOTS / f"{system}-minbase.tar"
    root = folder / name
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    if not tarball.exists():
        with tempfile.TemporaryDirectory(dir=ROOTS) as made:
            run(["debootstrap", "--variant=minbase", system, made, MIRROR], stdout=subprocess.DEVNULL)
            run(["tar", "-C", made, "-cf", str(tarball) + ".part", "."])
        os.replace(str(tarball) + ".part", tarball)
    run(["tar", "-C", str(root), "-xf", str(tarball)])
    # A root file system is open to every user, as an image's is (debootstrap's folder was private).
    root.chmod(0o755)
    # A container runtime writes the names of the loopback addresses (a bare root has no /etc/hosts,
    # and the browser tests reach ChromeDriver at localhost).
    (root / "etc" / "hosts").write_text("127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n")
    if EXTRA_AUTHORITIES.is_dir():
        authorities = root / str(EXTRA_AUTHORITIES).lstrip("/")
        authorities.mkdir(parents=True, exist_ok=True)
        for authority in EXTRA_AUTHORITIES.glob("*.crt"):
            shutil.copyfile(authority, authorities / authority.name)
    return root


def enter(root: Path, results: Path, *, only_book: bool = False, script: str = INSIDE,
          binds: tuple = ()) -> int:
    """Run ``script`` in ``root`` as a container runtime would; return its exit status."""
    command = [
        "bwrap", "--bind", str(root), "/", "--dev", "/dev", "--tmpfs", "/dev/shm", "--proc", "/proc",
        "--ro-bind", "/sys", "/sys", "--ro-bind", "/etc/resolv.conf", "/etc/resolv.conf",
        "--ro-bind", str(REPO), "/checkout", "--bind", str(results), "/results", *binds,
        "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try", "--hostname", root.parent.name,
        # A container's root keeps its capabilities: apt drops to its own user, the grading
        # sandbox nests bubblewrap, the tests mount in namespaces of their own.
        "--cap-add", "ALL", "--die-with-parent", "--clearenv",
        "--setenv", "PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "--setenv", "HOME", "/root", "--setenv", "TERM", "dumb",
        "--setenv", "README_PACKAGES", " ".join(README_PACKAGES), "--setenv", "HOME_CLONE", HOME_CLONE,
        "--setenv", "ONLY_BOOK", "1" if only_book else "0",
    ]
    for name in BUNDLE_VARIABLES:
        if os.environ.get(name) == SYSTEM_BUNDLE:
            command += ["--setenv", name, SYSTEM_BUNDLE]
    command += ["/bin/bash", "-c", script]
    print(f"+ bwrap ... {root}", flush=True)
    return subprocess.run(command).returncode


def gradescope_image(system: str) -> tuple[str, bool]:
    """Gradescope's set-up and a grading run in a fresh root of ``system``: a paragraph, and whether it passed."""
    import json

    layout = ROOTS / system / "autograder"
    shutil.rmtree(layout, ignore_errors=True)
    for name in ("source", "submission", "results"):
        (layout / name).mkdir(parents=True)
    python = REPO / ".venv" / "bin" / "python"
    run([str(python), "-m", "autograder", "gradescope", GRADESCOPE_ASSIGNMENT, "--out", str(layout / "zip")],
        cwd=REPO, stdout=subprocess.DEVNULL)
    run(["unzip", "-q", str(layout / "zip" / "autograder.zip"), "-d", str(layout / "source")])
    solution = ("import sys, nbformat; from pathlib import Path; sys.path.insert(0, sys.argv[1]); "
                "from tests.support.grading import correct_submission, notebooks_of; "
                "nbformat.write(correct_submission(*notebooks_of(Path(sys.argv[1]) / 'notebooks', sys.argv[2])), "
                "sys.argv[3])")
    run([str(python), "-c", solution, str(REPO), GRADESCOPE_ASSIGNMENT,
         str(layout / "submission" / f"{GRADESCOPE_ASSIGNMENT}.ipynb")])
    root = bare_root(system, "gradescope-root")
    results = WORK / system / "gradescope-results"
    shutil.rmtree(results, ignore_errors=True)
    results.mkdir(parents=True)
    enter(root, results, script=GRADESCOPE_INSIDE, binds=("--bind", str(layout), "/autograder"))
    paragraph, passed = report(system, results, title="Gradescope's setup.sh and run_autograder")
    size = results / "venv-mib.txt"
    verdict = layout / "results" / "results.json"
    lines = [paragraph, f"  environment: {size.read_text().strip() + ' MiB' if size.exists() else 'not made'}"]
    if verdict.exists():
        data = json.loads(verdict.read_text())
        score, full = data.get("score"), sum(t.get("max_score", 0) for t in data.get("tests", []))
        lines.append(f"  the solution scored {score} of {full}")
        passed &= score == full and full > 0
    else:
        lines.append("  no results.json")
        passed = False
    shutil.rmtree(root, ignore_errors=True)
    return "\n".join(lines), passed


def report(system: str, results: Path, title: str = "") -> tuple[str, bool]:
    """One paragraph on ``system``'s run, and whether every step passed."""
    lines = [f"{SYSTEMS.get(system, system)} ({system}){': ' + title if title else ''}"]
    python = results / "python.txt"
    if python.exists() or not title:
        lines.append(f"  python: {python.read_text().strip() if python.exists() else 'not reached'}")
    passed = True
    steps = results / "steps.tsv"
    for row in (steps.read_text().splitlines() if steps.exists() else []):
        name, status, seconds = row.split("\t")
        verdict = "passed" if status == "0" else f"FAILED (exit {status})"
        passed &= status == "0"
        minutes, secs = divmod(int(seconds), 60)
        summary = ""
        if name == "make-test":
            tail = [l for l in (results / "make-test.log").read_text(errors="replace").splitlines()
                    if " passed" in l or " failed" in l]
            summary = f"; {tail[-1].strip('= ')}" if tail else ""
        lines.append(f"  {name}: {verdict} in {minutes} min {secs:02d} s{summary}")
    kernel = results / "kernel.txt"
    if not title:
        lines.append(f"  compiled kernel: {kernel.read_text().strip() if kernel.exists() else 'not reached'}")
    lines.append(f"  logs: {results}")
    return "\n".join(lines), passed


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("systems", nargs="*", default=list(SYSTEMS), metavar="SYSTEM",
                        help=f"Debian suites to try (default: {' '.join(SYSTEMS)})")
    parser.add_argument("--only-book", action="store_true", help="stop after make book")
    parser.add_argument("--gradescope", action="store_true",
                        help="also run the Gradescope zip's setup.sh and run_autograder in a fresh root")
    parser.add_argument("--only-gradescope", action="store_true", help="run only the Gradescope image's test")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        parser.error("it needs root: debootstrap makes the roots and bubblewrap enters them as root")
    missing = [tool for tool in ("debootstrap", "bwrap", "tar", "unzip") if not shutil.which(tool)]
    if missing:
        parser.error(f"missing {', '.join(missing)}: apt-get install debootstrap bubblewrap unzip")
    WORK.mkdir(parents=True, exist_ok=True)
    ROOTS.mkdir(parents=True, exist_ok=True)
    paragraphs, every_passed = [], True
    for system in args.systems:
        if args.gradescope or args.only_gradescope:
            paragraph, passed = gradescope_image(system)
            every_passed &= passed
            paragraphs.append(paragraph)
            print(paragraph, flush=True)
        if args.only_gradescope:
            continue
        started = time.monotonic()
        root = bare_root(system)
        results = WORK / system / "results"
        shutil.rmtree(results, ignore_errors=True)
        results.mkdir(parents=True)
        enter(root, results, only_book=args.only_book)
        paragraph, passed = report(system, results)
        every_passed &= passed
        paragraphs.append(paragraph + f"\n  whole run: {(time.monotonic() - started) / 60:.0f} min")
        print(paragraphs[-1], flush=True)
        # The root is gigabytes once the set-up has run; the tarball and the logs stay.
        shutil.rmtree(root, ignore_errors=True)
    print("\n" + "\n\n".join(paragraphs))
    return 0 if every_passed else 1


if __name__ == "__main__":
    sys.exit(main())
