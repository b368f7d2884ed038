# `make book` builds the HTML book; `make test` runs every test, notebooks included.
# Both create .venv and install requirements.txt into it the first time.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book test test-browser lint report grade bench clean
BROWSER_STAMP := $(VENV)/.installed-browser

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $(STAMP)

# Executed notebooks are cached by their code; when the package changes, their
# outputs may too, so a change under src/ empties the cache.
CACHE_STAMP := _build/.package-stamp
$(CACHE_STAMP): $(wildcard src/rmsnorm_course/*.py src/rmsnorm_course/static/*)
	rm -rf _build/.jupyter_cache
	mkdir -p _build && touch $@

# The build is a test too: warnings are errors, references are checked.
book: $(STAMP) $(CACHE_STAMP)
	$(BIN)/jupyter-book build . --all --path-output . -n -W --keep-going

# The book is built first: the tests read the built HTML, and a failed build fails the tests.
test: book
	$(BIN)/python -m pytest
	$(BIN)/ruff check .

$(BROWSER_STAMP): requirements-browser.txt $(STAMP)
	$(BIN)/python -m pip install --quiet -r requirements-browser.txt
	touch $(BROWSER_STAMP)

# The built book in headless Chromium (Debian's package; no browser download).
test-browser: book $(BROWSER_STAMP)
	$(BIN)/python -m pytest browser_tests

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

report: $(STAMP)
	$(BIN)/python -m rmsnorm_course

# Grade exercises/answers.toml, or another file: make grade ANSWERS=path/to/answers.toml
grade: $(STAMP)
	$(BIN)/python -m pytest exercises $(if $(ANSWERS),--answers $(ANSWERS))

# Speed and memory against the copy limit and the peers; one thread, not part of `make test`.
bench: $(STAMP)
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python benchmarks/bench.py

clean:
	rm -rf _build
