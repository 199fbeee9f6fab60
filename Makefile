# The suite's commands. Each one creates the virtual environment (.venv) first if needed.
#   make lab      set up and open the suite in JupyterLab
#   make test     set up and run every test (library, notebooks via nbval, browser)
#   make figures  regenerate every file in figures/
#   make app      serve the notebooks as apps with Voila
#   make bench    run the benchmarks and write a dated report to benchmarks/results/

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PORT   ?= 8888
FIRST  := notebooks/01_toy_posterior_laplace_vs_kl.ipynb
# Jupyter refuses to run as root without this flag (containers, CI machines)
ROOTFLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: setup lab test figures app bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[lab,test]'
	touch $(STAMP)

lab: $(STAMP)
	$(BIN)/jupyter lab $(ROOTFLAG) --ServerApp.port=$(PORT) $(FIRST)

test: $(STAMP)
	$(BIN)/python -m pytest

figures: $(STAMP)
	$(BIN)/python -m ensemble_lib.figures

app: $(STAMP)
	$(BIN)/voila --port=$(PORT) notebooks/

bench: $(STAMP)
	$(BIN)/python -m benchmarks.run

clean:
	rm -rf $(VENV) build *.egg-info
