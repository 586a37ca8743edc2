# Two commands set everything up on a machine with only Python 3.11 and make:
#   make demo   creates .venv, installs unjudged, evaluates the shipped TREC-COVID example
#   make test   creates .venv, installs with test extras, runs the static checks and the suite
#   make check  the static checks alone: ruff, mypy (config in pyproject.toml), import layers
#   make docs   the documentation site (mkdocs.yml) into site/, warnings as errors
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo check test bench docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV) || python3 -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# the package alone (demo, bench, docs); with the test extras (check, test)
$(VENV)/.installed: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.installed-test: $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/unjudged demo

check: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

# the suite on TEST_WORKERS processes (pytest-xdist), whole files per worker (--dist loadfile):
# a module's fixtures are built once, its tests run in order; 2 cores in CI
TEST_WORKERS ?= 2
test: check
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadfile

bench: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/run_bench.py --case all

docs: $(VENV)/.installed
	$(BIN)/python -m pip install --quiet -e '.[docs]'
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

clean:
	rm -rf $(VENV) build src/*.egg-info
