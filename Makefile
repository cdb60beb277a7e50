# Every target installs into .venv first; `make book` and `make test` are the whole set-up.
# The oldest Python the project supports: pyproject.toml's requires-python (tests/test_pins.py
# holds the two equal). PYTHON names the interpreter to make .venv with; left empty,
# tools/venv.sh takes the system's python3 when it is new enough, else the newest python3.X.
PYTHON_FLOOR := 3.11
PYTHON ?=
# Python's byte-code caches stay on for everything make runs, whatever the environment says
# (PYTHONDONTWRITEBYTECODE): the test suite starts hundreds of Python processes (grading runs,
# sandboxes, the notebooks' kernels, pytest's workers), which would otherwise each compile the
# project's modules from source, about 40 s of a run's CPU on two cores.
export PYTHONDONTWRITEBYTECODE :=
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
ASSIGNMENT ?=
SUBMISSIONS ?=
OUT ?= grading-output
WORKERS ?=
NOTEBOOK ?=

.PHONY: all install hub-env hub-demo system-book system-pdf system-test system-grade book pdf site test test-fast test-systems bench assignments grade mark export check verify clean

all: test

$(STAMP): requirements.txt constraints.txt pyproject.toml setup.py perceptron_lib/_kernel.c tools/venv.sh
	PYTHON="$(PYTHON)" tools/venv.sh $(VENV) $(PYTHON_FLOOR)
	touch $(STAMP)

# The environment, and MathJax for the TAs' marking page (python -m autograder mark), which renders the
# answers' mathematics with it: the book build's own step installs it (book/build.py, the one pinned version,
# with npm) into _build/.mathjax, where the page looks, so the page needs neither a built book nor the network.
install: system-book $(STAMP)
	$(PY) book/build.py --install-mathjax

# The Debian packages each target uses (npm for MathJax; TeX Live for the PDF; bubblewrap
# for the sandbox; chromium and its driver for the browser tests; tools/venv.sh asks for a C
# compiler and the Python headers before it builds the library): installed when missing,
# or a message that names them and the command that installs them.
system-book:
	@tools/system-packages.sh book
system-pdf:
	@tools/system-packages.sh pdf
system-test:
	@tools/system-packages.sh test
system-grade:
	@tools/system-packages.sh grade

# The chapters link the student notebooks, so the release comes first.
book: system-book $(STAMP) assignments
	$(PY) book/build.py

# The public course in _build/site/ (the book, the student package, the assignments) and the
# public edition of the repository in _build/public-repo/; fails if the leak audit finds anything.
# The PDF first, so that the site carries it and its pages link to it.
site: system-book $(STAMP) pdf
	$(PY) -m autograder publish

# The whole book as one PDF, _build/pdf/perceptron-course.pdf, from the same cache of
# executed chapters as the HTML, typeset again only when a source is newer; the web pages
# built after it link to it.
pdf: system-pdf $(STAMP) assignments
	$(PY) book/build_pdf.py

assignments: $(STAMP)
	$(PY) -m autograder release

# The course's JupyterHub (README, "Running the course on a JupyterHub"): the environment every server of the
# hub runs from, at HUB_PREFIX (root only; without root it says so and the hub's tests skip themselves), and a
# demo hub on 127.0.0.1 with demo users, for an instructor to try.
HUB_PREFIX ?= /opt/perceptron-hub
export COURSE_HUB_PREFIX := $(HUB_PREFIX)
hub-env: system-book $(STAMP) assignments
	$(PY) -m tools.hub build --prefix $(HUB_PREFIX)
hub-demo: hub-env
	$(PY) -m tools.hub demo --prefix $(HUB_PREFIX)

# The PDF before the HTML, so that the pages the tests check link to it; the PDF's test
# reuses it.  Three workers on the two cores of the smallest machine the suite is timed on: much
# of the suite waits (hubs and servers starting, browsers loading pages, pip asking the index,
# useradd), and a third worker runs in those waits.
test: system-test $(STAMP) pdf book hub-env
	$(PY) -m pytest -n 3

# The edit loop, in about a minute (two on a machine half as fast): the tests not marked slow, on two workers,
# with fewer examples for each property test (the hypothesis profile "fast"); its tests of the built book read
# the last `make book`.
test-fast: system-test $(STAMP)
	$(PY) -m pytest -m "not slow" -n 2 -q --hypothesis-profile=fast

# The README's two commands on bare Debian 12 and 13 roots (debootstrap), each entered as a
# container runtime enters it, from a clone of the committed HEAD in root's private home:
# about an hour per system, so not part of make test. SYSTEMS="bookworm" tries one.
SYSTEMS ?=
test-systems:
	@tools/system-packages.sh systems
	python3 tools/test_systems.py $(SYSTEMS)

# The book benchmark builds the book, which links the released notebooks.
bench: system-test $(STAMP) assignments
	$(PY) -m tests.benchmarks

grade: system-grade $(STAMP)
	@test -n "$(ASSIGNMENT)" || { echo "usage: make grade ASSIGNMENT=ps1_hyperplanes SUBMISSIONS=path/to/folder-or.zip [OUT=dir] [WORKERS=n] [ROSTER=roster.csv] [DEADLINE=2025-01-31T23:59]"; exit 2; }
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade ASSIGNMENT=ps1_hyperplanes SUBMISSIONS=path/to/folder-or.zip [OUT=dir] [WORKERS=n] [ROSTER=roster.csv] [DEADLINE=2025-01-31T23:59]"; exit 2; }
	$(PY) -m autograder grade $(ASSIGNMENT) $(SUBMISSIONS) --out $(OUT) $(if $(WORKERS),--workers $(WORKERS)) \
		$(if $(ROSTER),--roster $(ROSTER)) $(if $(DEADLINE),--deadline $(DEADLINE))

# The written answers, after grade: the marking page (open the address it prints), or the CSV route with
# TO_CSV (write the answers and the booklet) or FROM_CSV (read the marks back).
mark: install
	@test -n "$(ASSIGNMENT)" || { echo "usage: make mark ASSIGNMENT=ps1_hyperplanes [PORT=8890] [TA=name] | [TO_CSV=marking/ps1.csv | FROM_CSV=marking/ps1.csv]"; exit 2; }
	$(PY) -m autograder mark $(ASSIGNMENT) $(if $(TO_CSV),--to-csv "$(TO_CSV)") $(if $(FROM_CSV),--from-csv "$(FROM_CSV)") \
		$(if $(PORT),--port $(PORT)) $(if $(TA),--ta "$(TA)")

# Every file of the folder grade wrote (OUT), again with the marks; ALLOW_UNMARKED=1 writes while answers are unmarked.
export: $(STAMP)
	@test -f "$(OUT)/grading_run.json" || { echo "usage: make export OUT=grading/ps1 [ALLOW_UNMARKED=1]   (OUT is the folder 'make grade' wrote; $(OUT) holds no grading_run.json)"; exit 2; }
	$(PY) -m autograder export "$(OUT)" $(if $(ALLOW_UNMARKED),--allow-unmarked)

# A student's check compares the notebook with its release, so release first if that was never done.
check: $(STAMP)
	@test -n "$(NOTEBOOK)" || { echo "usage: make check NOTEBOOK=path/to/ps1_hyperplanes.ipynb"; exit 2; }
	@test -d notebooks/release || $(PY) -m autograder release
	$(PY) -m autograder check "$(NOTEBOOK)"

# Every assignment, or only ASSIGNMENT=...; releases into a temporary copy, never into notebooks/release.
verify: $(STAMP)
	$(PY) -m autograder verify $(ASSIGNMENT)

clean:
	rm -rf _build notebooks/release notebooks/autograded notebooks/feedback notebooks/gradebook.db
