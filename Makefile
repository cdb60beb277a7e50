# Every target installs into .venv first; `make book` and `make test` are the whole set-up.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
ASSIGNMENT ?=
SUBMISSIONS ?=
OUT ?= grading-output
WORKERS ?=

.PHONY: all install book test bench assignments grade clean

all: test

$(STAMP): requirements.txt constraints.txt pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt -c constraints.txt
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

install: $(STAMP)

# The chapters link the student notebooks, so the release comes first.
book: $(STAMP) assignments
	$(PY) book/build.py

assignments: $(STAMP)
	$(PY) -m autograder release

test: $(STAMP) book
	$(PY) -m pytest

bench: $(STAMP)
	$(PY) -m tests.benchmarks

grade: $(STAMP)
	@test -n "$(ASSIGNMENT)" || { echo "usage: make grade ASSIGNMENT=ps1_hyperplanes SUBMISSIONS=path/to/folder-or.zip [OUT=dir] [WORKERS=n] [ROSTER=roster.csv] [DEADLINE=2025-01-31T23:59]"; exit 2; }
	@test -n "$(SUBMISSIONS)" || { echo "usage: make grade ASSIGNMENT=ps1_hyperplanes SUBMISSIONS=path/to/folder-or.zip [OUT=dir] [WORKERS=n] [ROSTER=roster.csv] [DEADLINE=2025-01-31T23:59]"; exit 2; }
	$(PY) -m autograder grade $(ASSIGNMENT) $(SUBMISSIONS) --out $(OUT) $(if $(WORKERS),--workers $(WORKERS)) \
		$(if $(ROSTER),--roster $(ROSTER)) $(if $(DEADLINE),--deadline $(DEADLINE))

clean:
	rm -rf _build notebooks/release notebooks/autograded notebooks/feedback notebooks/gradebook.db
