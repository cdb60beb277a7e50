#!/usr/bin/env bash
# Makes the project's virtual environment and installs into it what every make target uses.
#
# Usage: tools/venv.sh VENV FLOOR
#   VENV   the environment's folder (.venv)
#   FLOOR  the oldest Python the project supports (the Makefile's PYTHON_FLOOR, which is
#          pyproject.toml's requires-python)
#   PYTHON in the environment: the interpreter to make VENV with; by default the system's
#          python3 when it is new enough, else the newest python3.X on PATH that is.
#
# Before anything is built, tools/system-packages.sh installs what building the library's
# compiled kernel needs (a C compiler and the Python headers), so that a fresh machine gets
# the kernel and not only the numpy engine. pip runs without --quiet: when a pin cannot be
# installed, its own explanation (which package, which Python) is the message.
set -euo pipefail
venv=$1
floor=$2
here=${0%/*}

new_enough() {
    "$1" -c "import sys; sys.exit(sys.version_info[:2] < tuple(map(int, '$floor'.split('.'))))" >/dev/null 2>&1
}

if [ ! -x "$venv/bin/python" ]; then
    python=${PYTHON:-}
    if [ -z "$python" ]; then
        for candidate in python3 python3.14 python3.13 python3.12 "python$floor"; do
            if command -v "$candidate" >/dev/null 2>&1 && new_enough "$candidate"; then
                python=$(command -v "$candidate")
                break
            fi
        done
    fi
    if [ -z "$python" ] || ! new_enough "$python"; then
        found=$("${python:-python3}" --version 2>&1) || found="no ${python:-python3}"
        echo "The project needs Python $floor or newer and found $found: install python$floor," \
             "python$floor-venv and python$floor-dev (Ubuntu 22.04 has them in its universe component)," \
             "then run make again, or name another interpreter with make PYTHON=/path/to/python3." >&2
        exit 1
    fi
    PYTHON=$python "$here/system-packages.sh" build
    "$python" -m venv "$venv"
else
    PYTHON=$venv/bin/python "$here/system-packages.sh" build
fi

pip=("$venv/bin/python" -m pip)
"${pip[@]}" install --quiet --upgrade pip
# Every line but the hundreds that say a pinned package is there already (pipefail keeps pip's status).
"${pip[@]}" install --progress-bar off -r requirements.txt -c constraints.txt | sed '/^Requirement already satisfied/d'
# A kernel left by an earlier build (of an older _kernel.c, or for another ABI, whose file name
# Python looks for first) would be imported instead of the one built now.
rm -f perceptron_lib/_kernel.*.so perceptron_lib/_kernel.so
"${pip[@]}" install --progress-bar off --no-deps --no-build-isolation -e .
if ! "$venv/bin/python" -c "import perceptron_lib._kernel" 2>/dev/null; then
    echo "The compiled kernel was not built (\`$venv/bin/python -m pip install -v --no-deps" \
         "--no-build-isolation -e .\` shows the compiler's messages): perceptron_lib trains with" \
         "its numpy engine, with the same results but more slowly." >&2
fi
