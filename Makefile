# The suite's commands. Each one creates the virtual environment (.venv) first if needed.
#   make lab      set up and open the suite in JupyterLab
#   make test     set up and run every test: ruff, then the library and notebook tests on every core
#                 alongside the real-browser suite; installs Chromium for the browser tests
#                 first where it is missing (as root). Writes no tracked file; its wall time goes to
#                 test-artifacts/make-test-time.json (the benchmark report quotes it)
#   make test-lowest  the library and notebook tests again, on the lowest versions pyproject.toml
#                 declares (Python's floor, every dependency at its floor), in .venv-lowest; checks
#                 that no floor was lifted. CI runs it after `make test` (not part of make test)
#   make fuzz     the property-based fuzz of the toy with 1000 examples (make test runs 40); CI runs it
#   make book     the static book of the learning path and every lesson, from the stored notebooks
#                 (no re-execution), in build/book/html/ (open index.html; reading it needs no network).
#                 REPOSITORY_URL=https://github.com/... adds Binder and Colab launch buttons
#   make figures  regenerate every file in figures/: a file is replaced (atomically) only if it changed
#                 beyond floating point (so another CPU leaves the tree clean; CI checks it)
#   make student  student copies of the lessons in build/student/ (STUDENT_DIR=...): notebooks/ and
#                 figures/; lessons in the exercise format go through otter assign (answer cells and
#                 grader.check, no solutions) and get an autograder in autograder/; the others have
#                 each solution replaced by an empty answer cell
#   make grade    grade a folder of submitted student copies into a CSV of scores (otter, offline,
#                 no Docker): make grade SUBMISSIONS=dir [SCORES=scores.csv]
#   make app      serve the lessons as apps with Voila (no code, no solutions); prints the learning
#                 path's URL, behind a token as `make lab` is (JUPYTER_TOKEN's, or a generated one)
#   make bench    run the benchmarks and write a dated report to benchmarks/results/, with the last
#                 `make test` wall time (BENCH_TEST_TIME=1 make bench: run `make test` first to measure
#                 it) and the last complete browser run's slider latency report

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8888
FIRST  := notebooks/00_learning_path.ipynb
# Jupyter refuses to run as root without this flag (containers, CI machines)
ROOTFLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)
# Under CI (CI=true) `make lab` must not try to open a browser (a text-mode browser would block)
NOBROWSER := $(if $(filter true 1 yes,$(CI)),--no-browser,)
# The browser tests drive Debian's Chromium (no browser download)
CHROMIUM := /usr/bin/chromium
# pytest-xdist workers for the library and notebook tests: one per core
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 2)
ARTIFACTS := test-artifacts
# `make test-lowest`'s environment: every direct dependency at the lowest version pyproject.toml allows
LOWEST := .venv-lowest

.PHONY: setup lab test test-lowest student grade fuzz browser-deps figures book app bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[lab,test,reference,exercises,book]'
	touch $(STAMP)

# rooted at the repository (not notebooks/) so the notebooks' ../figures/ links resolve
lab: $(STAMP)
	$(BIN)/jupyter lab $(ROOTFLAG) $(NOBROWSER) --ServerApp.port=$(PORT) --ServerApp.root_dir=. $(FIRST)

# ruff, then two pytest runs at the same time; each step runs even if another failed, and
# `make test` fails if any did:
#  * the library and notebook tests on TEST_JOBS pytest-xdist workers, in the background and
#    niced. --dist loadfile keeps each file on one worker: a notebook's cells run in one kernel, in
#    order. One BLAS thread per worker. Its output goes to $(ARTIFACTS)/library-tests.log and is
#    printed when it ends, with its 25 slowest tests (where the 5-minute budget goes);
#  * the real-browser suite, one process in the foreground (it starts JupyterLab and Voila and
#    drives Chromium; Ctrl-C reaches it, so it stops its servers). It waits on the browser and the
#    servers much of the time, so the niced run above uses the CPU it leaves; it keeps first call.
#    (Its latency report records the load average; for numbers from a quiet machine run
#    `pytest tests/browser` alone.) Its servers, and so their kernels, get one BLAS thread too:
#    with the cores busy, a second BLAS thread only spins: lesson 4's three factor fits took
#    8.3 CPU-s with two BLAS threads on a loaded machine and 2.6 s with one.
# The wall time (installs excluded) goes to $(ARTIFACTS)/make-test-time.json (`make bench` reports it).
test: $(STAMP) browser-deps
	@start=$$(date +%s); failed=""; mkdir -p $(ARTIFACTS); \
	echo "== ruff check"; \
	$(BIN)/ruff check . || failed="$$failed ruff"; \
	echo "== library and notebook tests: pytest-xdist -n $(TEST_JOBS), in the background (output when done)"; \
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 nice -n 10 \
	  $(BIN)/python -m pytest -m "not browser" -n $(TEST_JOBS) --dist loadfile --durations=25 \
	  > $(ARTIFACTS)/library-tests.log 2>&1 & library=$$!; \
	trap 'kill $$library 2>/dev/null; exit 130' INT TERM; \
	echo "== the book (build/book/html), opened by the browser suite"; \
	$(BIN)/python book/build.py || failed="$$failed book"; \
	echo "== browser tests"; \
	OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 BOOK_HTML=$(BOOK_HTML) \
	  $(BIN)/python -m pytest tests/browser --durations=15 || failed="$$failed browser"; \
	echo "== library and notebook tests ($(ARTIFACTS)/library-tests.log)"; \
	wait $$library || failed="$$failed library/notebooks"; \
	cat $(ARTIFACTS)/library-tests.log; \
	secs=$$(( $$(date +%s) - start )); status=$$([ -z "$$failed" ] && echo 0 || echo 1); \
	printf '{"seconds": %s, "date": "%s", "commit": "%s", "exit_status": %s, "failed_steps": "%s", "cpus": %s, "workers": "%s"}\n' \
	  "$$secs" "$$(date -Iseconds)" "$$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$$status" \
	  "$${failed# }" "$$(nproc 2>/dev/null || echo '"?"')" "$(TEST_JOBS)" > $(ARTIFACTS)/make-test-time.json; \
	if [ -n "$$failed" ]; then echo "make test FAILED ($${failed# }) after $$secs s"; exit 1; fi; \
	echo "make test: all passed in $$secs s (recorded in $(ARTIFACTS)/make-test-time.json)"

# The declared floors are the tested ones. uv (from PyPI, installed into the environment it builds)
# resolves every direct dependency and extra at the lowest version pyproject.toml allows
# (--resolution lowest-direct; what they pull in at its newest compatible version) into a fresh
# $(LOWEST) made with $(PYTHON), which must be requires-python's floor (3.11; uv fetches no other
# Python). The library and notebook tests then run there as in `make test` (every core, loadfile,
# one BLAS thread per worker), and tests/project/test_declared_floors.py checks that every direct dependency
# was installed at exactly its floor. Rebuilt from scratch whenever pyproject.toml changes.
$(LOWEST)/.installed: pyproject.toml
	rm -rf $(LOWEST)
	$(PYTHON) -m venv $(LOWEST)
	$(LOWEST)/bin/python -m pip install --quiet --disable-pip-version-check 'uv>=0.5'
	$(LOWEST)/bin/uv pip install --quiet --python $(LOWEST)/bin/python --resolution lowest-direct \
	  -e '.[lab,test,reference,exercises,book]'
	touch $@

test-lowest: $(LOWEST)/.installed
	@echo "== library and notebook tests on the lowest declared versions ($(LOWEST)): pytest-xdist -n $(TEST_JOBS)"
	@$(LOWEST)/bin/python -c 'import sys; from importlib.metadata import version as v; \
	  print("   Python", sys.version.split()[0] + ";", ", ".join(p + " " + v(p) for p in \
	  ("numpy", "scipy", "matplotlib", "scikit-learn", "ipywidgets", "jax", "numpyro", "pytest", "nbval")))'
	ENSEMBLE_TEST_LOWEST=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 \
	  $(LOWEST)/bin/python -m pytest -m "not browser" -n $(TEST_JOBS) --dist loadfile

# The toy's fuzz over its documented domain (tests/models/test_toy_properties.py) with 1000 examples,
# derandomised: the same examples every run
fuzz: $(STAMP)
	ENSEMBLE_FUZZ_EXAMPLES=1000 $(BIN)/python -m pytest -q tests/models/test_toy_properties.py -k fuzz

# Chromium for the browser tests: installed with apt-get when missing and we are root; otherwise
# one line says why the browser tests will skip (under CI=true they fail instead). Silent when present.
browser-deps:
	@if [ ! -x $(CHROMIUM) ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "installing Chromium for the browser tests: apt-get install chromium"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	  else \
	    echo "note: $(CHROMIUM) not found and not root; the browser tests will skip (a root user: apt-get install chromium)"; \
	  fi; \
	fi

figures: $(STAMP)
	$(BIN)/python -m ensemble_lib.lessons.figures

# The static book (book/build.py says what it does): Sphinx + myst-nb + sphinx-book-theme over the
# stored notebooks, docs/equations.md and references.bib, into $(BOOK_HTML). MathJax, require.js and the
# widget manager are fetched once from the npm registry (pinned, hash-checked) into build/book-vendor/;
# with that cache the build needs no network, and reading the book never does.
# REPOSITORY_URL (unset: none) is the one setting for the Binder / Colab launch buttons.
BOOK_HTML := build/book/html
REPOSITORY_URL ?=
book: $(STAMP)
	REPOSITORY_URL='$(REPOSITORY_URL)' $(BIN)/python book/build.py

# The lessons without their solutions (cells tagged `solution`), to hand out (build/ is git-ignored);
# the lessons in the exercise format through otter assign, with their autograders in autograder/
STUDENT_DIR ?= build/student
student: $(STAMP)
	$(BIN)/python -m ensemble_lib.lessons.student_copies '$(STUDENT_DIR)'

# A lecturer's grading: every submitted notebook under SUBMISSIONS run by `otter run` against the
# autograders of `make student`, one CSV row of scores each (offline, no Docker)
SCORES ?= scores.csv
grade: $(STAMP)
	@test -n '$(SUBMISSIONS)' || { echo "usage: make grade SUBMISSIONS=folder-of-notebooks [SCORES=scores.csv]"; exit 2; }
	$(BIN)/python -m ensemble_lib.ui.grade '$(SUBMISSIONS)' --out '$(SCORES)' --autograders '$(STUDENT_DIR)/autograder'

# Voila serves notebooks/ (its start page lists the lessons, nothing else of the repository) with
# the settings in voila.json (--Voila.config_file_paths: the repository root, as the browser tests
# pass it): the exercise solutions (cells tagged `solution`) are left out of the app, and the
# renderer ensemble_lib.ui.voila.NotebookRelativeImages shows the learning path's ../figures/
# thumbnails. It also keeps out of the page two JupyterLab extensions that otter-grader (the
# exercises extra) brings along, jupytext's and ipylab's: they fail to start outside JupyterLab and
# would print errors in the app's console. The root is given as an absolute path: Voila before 0.5.12 hands a relative one to
# jupyter_core, whose recent releases refuse it (the file list at / fails with a 500).
# Like `make lab` it needs a token (Voila's own default is none: anyone who reaches the port could
# run the notebooks' kernels): JUPYTER_TOKEN's if set, else one generated here and handed to Voila
# in JUPYTER_TOKEN (--Voila.auto_token reads it); the learning path's URL, with the token, is
# printed first. The browser Voila opens is not given the token: its login page asks for it.
# Voila needs no flag to run as root.
app: $(STAMP)
	@if [ -n "$$JUPYTER_TOKEN" ]; then token=$$JUPYTER_TOKEN; shown='<your JUPYTER_TOKEN>'; \
	else token=$$($(BIN)/python -c 'import secrets; print(secrets.token_hex(24))'); shown=$$token; fi; \
	echo "The suite as an app: open the learning path at"; \
	echo "    http://localhost:$(PORT)/voila/render/$(notdir $(FIRST))?token=$$shown"; \
	JUPYTER_TOKEN=$$token exec $(BIN)/voila $(NOBROWSER) --port=$(PORT) --Voila.auto_token=True \
	  --Voila.config_file_paths='$(CURDIR)' '$(CURDIR)/notebooks'

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf $(VENV) $(LOWEST) build *.egg-info
