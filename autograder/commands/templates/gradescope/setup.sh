#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder's image
# (the contract: https://gradescope-autograders.readthedocs.io/en/latest/specs/).
# It only installs; run_autograder grades.  Everything it writes outside the
# system's package manager goes under $GRADESCOPE_ROOT (default /autograder):
# the grader's Python environment in $ROOT/venv.  It deletes nothing.
set -euo pipefail

ROOT="${GRADESCOPE_ROOT:-/autograder}"
SOURCE="$ROOT/source"
VENV="$ROOT/venv"
export DEBIAN_FRONTEND=noninteractive

apt_has() { apt-cache show "$1" >/dev/null 2>&1; }
python_ok() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; }

apt-get update -qq
# setpriv and prlimit (util-linux) run the notebook as an unprivileged user with
# the course's limits where bubblewrap cannot start.
apt-get install -y -qq --no-install-recommends util-linux ca-certificates
if apt_has bubblewrap; then
    apt-get install -y -qq --no-install-recommends bubblewrap
else
    echo "setup.sh: no bubblewrap package here; notebooks will run as an unprivileged user instead" >&2
fi

# A Python of at least 3.11, as the pinned requirements need: the system's own
# (Ubuntu 24.04 has 3.12), or a newer one from the distribution (Ubuntu 22.04
# has python3.11 in its universe component).
PYTHON=""
for candidate in python3 python3.13 python3.12 python3.11; do
    if command -v "$candidate" >/dev/null 2>&1 && python_ok "$candidate"; then
        PYTHON="$(command -v "$candidate")"
        break
    fi
done
if [ -z "$PYTHON" ]; then
    for version in 3.13 3.12 3.11; do
        if apt_has "python$version"; then
            apt-get install -y -qq --no-install-recommends "python$version"
            PYTHON="$(command -v "python$version")"
            break
        fi
    done
fi
if [ -z "$PYTHON" ] || ! python_ok "$PYTHON"; then
    echo "setup.sh: no Python 3.11 or newer is available on this image; choose the Ubuntu 24.04 base image" >&2
    exit 1
fi
# Debian and Ubuntu ship venv (and ensurepip) separately, per Python version.
if ! "$PYTHON" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    name="$(basename "$PYTHON")"
    if apt_has "$name-venv"; then
        apt-get install -y -qq --no-install-recommends "$name-venv"
    else
        apt-get install -y -qq --no-install-recommends python3-venv
    fi
fi

"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --progress-bar off --no-cache-dir \
    -r "$SOURCE/gradescope/requirements.txt" -c "$SOURCE/gradescope/constraints.txt"

# Say in the build log what grading will find: the grader imports, and which isolation works.
PYTHONPATH="$SOURCE" "$VENV/bin/python" -m autograder.commands.gradescope --check-setup "$ROOT"
