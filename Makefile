# `make book` builds the HTML book; `make test` runs every test, notebooks included.
# Both create .venv and install requirements.txt into it the first time.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book test lint report bench clean

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $(STAMP)

# The build is a test too: warnings are errors, references are checked.
book: $(STAMP)
	$(BIN)/jupyter-book build . --path-output . -n -W --keep-going

test: $(STAMP)
	$(BIN)/python -m pytest
	$(BIN)/ruff check .

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

report: $(STAMP)
	$(BIN)/python -m rmsnorm_course

# Speed and memory against the copy limit and the peers; one thread, not part of `make test`.
bench: $(STAMP)
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 $(BIN)/python benchmarks/bench.py

clean:
	rm -rf _build
