#!/usr/bin/env bash
# Installs the Debian packages that a make target needs, when any is missing.
#
# Usage: tools/system-packages.sh GROUP ...   (GROUP: build, book, pdf, test, grade, systems)
#   build: what compiling the library's kernel needs, for the Python named by PYTHON
#          (default python3): a C compiler, the C library's headers and Python's own.
#
# Each package is looked for by the command or file it provides, so a machine
# that already has them (installed by hand, or another way) is left alone.
# When something is missing it is installed with apt-get as root, or with
# `sudo -n` when that works without a password; otherwise the script stops at
# once with one message naming the missing packages and the command that
# installs them, so a make target never runs half-equipped.
set -euo pipefail

# package  what proves it is installed (a command, or an absolute file path)
python=${PYTHON:-python3}
build=(
    "gcc gcc"
    "libc6-dev /usr/include/stdio.h"
)
# Python's headers are looked for where that Python looks for them; the package is
# Debian's for its version (python3.11-dev on Debian 12, python3.13-dev on Debian 13).
if python_include=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])' 2>/dev/null) &&
   python_version=$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null); then
    build+=("python$python_version-dev $python_include/Python.h")
fi
book=(
    "nodejs node"
    "npm npm"
)
grade=(
    "bubblewrap bwrap"
)
# The book as a PDF (book/build_pdf.py): Debian's TeX Live with XeLaTeX and latexmk,
# the LaTeX packages Sphinx's output loads (texlive-latex-extra; ZapfDingbats from
# texlive-fonts-recommended), the fonts the PDF is set in (Latin Modern for text and
# mathematics; DejaVu Sans Mono for code, in each of the four faces code is set in: Debian 12
# keeps the two slanted ones in fonts-dejavu-extra), and poppler-utils, whose pdftotext and
# pdftohtml the PDF's test reads it with.
pdf=(
    "texlive-xetex xelatex"
    "texlive-latex-extra /usr/share/texlive/texmf-dist/tex/latex/fncychap/fncychap.sty"
    "texlive-fonts-recommended /usr/share/texlive/texmf-dist/fonts/tfm/adobe/zapfding/pzdr.tfm"
    "latexmk latexmk"
    "fonts-lmodern /usr/share/texmf/fonts/opentype/public/lm-math/latinmodern-math.otf"
    "fonts-dejavu-core /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
    "fonts-dejavu-core /usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf"
    "fonts-dejavu-extra /usr/share/fonts/truetype/dejavu/DejaVuSansMono-Oblique.ttf"
    "fonts-dejavu-extra /usr/share/fonts/truetype/dejavu/DejaVuSansMono-BoldOblique.ttf"
    "poppler-utils pdftotext"
)
# make test-systems: bare Debian roots, entered with bubblewrap.
systems=(
    "debootstrap debootstrap"
    "bubblewrap bwrap"
    "unzip unzip"
)
test=(
    "${book[@]}"
    "${pdf[@]}"
    "${grade[@]}"
    "chromium chromium"
    "chromium-driver chromedriver"
    # A browser with no fonts renders text as empty boxes, which breaks the
    # colour-contrast and layout checks of the browser tests.
    "fonts-dejavu-core /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    # The student tests build a locale whose encoding is not UTF-8 (as Windows' code
    # pages are not) with localedef, from the locale sources and character maps.
    "locales /usr/share/i18n/charmaps/ISO-8859-1.gz"
)

if [ $# -eq 0 ]; then
    echo "usage: $0 GROUP ...   (GROUP: build, book, pdf, test, grade, systems)" >&2
    exit 2
fi

wanted=()
for group in "$@"; do
    case "$group" in
        build) wanted+=("${build[@]}") ;;
        book) wanted+=("${book[@]}") ;;
        pdf) wanted+=("${pdf[@]}") ;;
        test) wanted+=("${test[@]}") ;;
        grade) wanted+=("${grade[@]}") ;;
        systems) wanted+=("${systems[@]}") ;;
        *) echo "$0: unknown group '$group'; expected build, book, pdf, test, grade or systems" >&2; exit 2 ;;
    esac
done

missing=()
for entry in "${wanted[@]}"; do
    package=${entry%% *}
    proof=${entry#* }
    if [[ "$proof" == /* ]]; then
        [ -e "$proof" ] && continue
    else
        command -v "$proof" >/dev/null 2>&1 && continue
    fi
    [[ " ${missing[*]-} " == *" $package "* ]] || missing+=("$package")
done

[ ${#missing[@]} -eq 0 ] && exit 0

install_command="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
else
    echo "Missing system packages: ${missing[*]}." >&2
    echo "Install them (as root, or with sudo) and run make again:" >&2
    echo "    sudo apt-get update && sudo $install_command" >&2
    exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "Missing system packages: ${missing[*]}; this machine has no apt-get (the names are Debian's)." >&2
    echo "Install the equivalents with your system's package manager and run make again." >&2
    exit 1
fi

echo "Installing missing system packages: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
