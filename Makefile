# Two commands from a fresh clone: `make run` (demo on the default catalog) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test bench serve clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)  ## scripted agents play seeded episodes through the real MCP server
	$(BIN)/verishop demo

serve: $(STAMP)  ## the shop over Streamable HTTP on 127.0.0.1:8000
	$(BIN)/verishop serve --transport http

test: $(STAMP)
	$(BIN)/pytest -q

bench: $(STAMP)  ## long runs: catalog build up to 2M products, search latency, episode creation
	$(BIN)/python bench/catalog_build.py --sizes 10000,100000,1000000,2000000
	$(BIN)/python bench/search.py --sizes 10000,100000,2000000
	$(BIN)/python bench/episode_create.py --size 100000 --episodes 200
	$(BIN)/python bench/verify.py --episodes 300
	$(BIN)/pytest -q -m slow

clean:
	rm -rf $(VENV) runs .pytest_cache
