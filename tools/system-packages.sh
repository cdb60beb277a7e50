#!/usr/bin/env bash
# Installs the Debian packages that a make target needs, when any is missing.
#
# Usage: tools/system-packages.sh GROUP ...   (GROUP: book, pdf, test, grade)
#
# Each package is looked for by the command or file it provides, so a machine
# that already has them (installed by hand, or another way) is left alone.
# When something is missing it is installed with apt-get as root, or with
# `sudo -n` when that works without a password; otherwise the script stops at
# once with one message naming the missing packages and the command that
# installs them, so a make target never runs half-equipped.
set -euo pipefail

# package  what proves it is installed (a command, or an absolute file path)
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
# mathematics, DejaVu Sans Mono for code), and poppler-utils, whose pdftotext and
# pdftohtml the PDF's test reads it with.
pdf=(
    "texlive-xetex xelatex"
    "texlive-latex-extra /usr/share/texlive/texmf-dist/tex/latex/fncychap/fncychap.sty"
    "texlive-fonts-recommended /usr/share/texlive/texmf-dist/fonts/tfm/adobe/zapfding/pzdr.tfm"
    "latexmk latexmk"
    "fonts-lmodern /usr/share/texmf/fonts/opentype/public/lm-math/latinmodern-math.otf"
    "fonts-dejavu-core /usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
    "poppler-utils pdftotext"
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
)

if [ $# -eq 0 ]; then
    echo "usage: $0 GROUP ...   (GROUP: book, pdf, test, grade)" >&2
    exit 2
fi

wanted=()
for group in "$@"; do
    case "$group" in
        book) wanted+=("${book[@]}") ;;
        pdf) wanted+=("${pdf[@]}") ;;
        test) wanted+=("${test[@]}") ;;
        grade) wanted+=("${grade[@]}") ;;
        *) echo "$0: unknown group '$group'; expected book, pdf, test or grade" >&2; exit 2 ;;
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
