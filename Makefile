# The suite's commands. Each one creates the virtual environment (.venv) first if needed.
#   make lab      set up and open the suite in JupyterLab
#   make test     set up and run every test (library, notebooks via nbval, browser);
#                 installs Chromium for the browser tests first where it is missing (as root)
#   make figures  regenerate every file in figures/
#   make app      serve the notebooks as apps with Voila (open notebooks/00_learning_path.ipynb)
#   make bench    run the benchmarks and write a dated report to benchmarks/results/

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

.PHONY: setup lab test browser-deps figures app bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[lab,test]'
	touch $(STAMP)

# rooted at the repository (not notebooks/) so the notebooks' ../figures/ links resolve
lab: $(STAMP)
	$(BIN)/jupyter lab $(ROOTFLAG) $(NOBROWSER) --ServerApp.port=$(PORT) --ServerApp.root_dir=. $(FIRST)

test: $(STAMP) browser-deps
	$(BIN)/python -m pytest

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
	$(BIN)/python -m ensemble_lib.ui.figures

# Voila serves the repository root (open notebooks/); the renderer makes the learning path's
# ../figures/ thumbnails render (Voila looks markdown images up from its root, not the notebook)
app: $(STAMP)
	$(BIN)/voila $(NOBROWSER) --port=$(PORT) \
	  --VoilaExporter.markdown_renderer_class=ensemble_lib.ui.voila.NotebookRelativeImages .

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf $(VENV) build *.egg-info
