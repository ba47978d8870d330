# Cucumber Arena: set-up, tests and benchmarks. Every target installs what it needs.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install test lint format bench clean

install: $(STAMP)

$(STAMP): pyproject.toml sdk/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ./sdk -e '.[dev]'
	touch $(STAMP)

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy --strict sdk/src/cucumbers
	$(BIN)/mypy benchmarks

test: lint
	$(BIN)/pytest

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: install
	$(BIN)/python benchmarks/engine.py
	$(BIN)/python benchmarks/process_runner.py

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
