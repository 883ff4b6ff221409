# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test bench screenshots install clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## Start the TUI on the embedded default (bundled skills, sample DB, offline demo model).
run: $(STAMP)
	$(BIN)/aiq-tui

## Install and run the whole test suite.
test: $(STAMP)
	$(BIN)/python -m pytest

## Benchmarks: writes bench/results/report.json.
bench: $(STAMP)
	$(BIN)/python -m bench.run

## Regenerate the SVG screenshots in screenshots/.
screenshots: $(STAMP)
	$(BIN)/python -m bench.screenshots

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
