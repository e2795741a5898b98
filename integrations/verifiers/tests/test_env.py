"""The verifiers environment against real verishop processes (the shop and its verifier sidecar,
from the repository's own venv), and in process (verishop installed in this venv, no shop URL),
through verifiers' own entry points (`vf-eval`, and `Env.run_slot`,
the call prime-rl's env servers make), with verifiers' own chat harness (`null`) and a scripted
model behind an OpenAI-compatible endpoint (tests/scripted_model.py): no model download, no GPU.
uv fetches the harness script's dependencies from the package index on the first run. Run by
`make test-verifiers` in the repository root."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import verifiers.v1 as vf
from verifiers.v1.env import RunSlot

from scripted_model import ScriptedModel, serving
from verishop_verifiers import VerishopTaskConfig, load_environment

REPO = Path(__file__).resolve().parents[3]
VERISHOP_PYTHON = os.environ.get("VERISHOP_PYTHON", str(REPO / ".venv" / "bin" / "python"))
VENV_BIN = Path(__file__).resolve().parents[1] / ".venv" / "bin"
STARTUP_DEADLINE_S = 60
EVAL_TIMEOUT_S = 600  # the first run has uv prepare the harness's script
SHOP_TOOLS = 30
TOKEN = "t0ken-for-the-test"


@dataclass
class Services:
    shop: str
    locked_shop: str
    """A second shop on the same runs folder whose control API needs `Bearer TOKEN`."""
    verifier: str
    runs: Path
    model_url: str
    model: ScriptedModel
    catalog: Path
    home: Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def _running(args: list[str], log: Path, home: Path) -> Iterator[str]:
    port = _free_port()
    # a token in the developer's shell must not reach servers the test gave none
    inherited = {k: v for k, v in os.environ.items() if k != "VERISHOP_TOKEN"}
    with open(log, "wb") as out:
        proc = subprocess.Popen([VERISHOP_PYTHON, "-P", "-m", "verishop", *args, "--port", str(port)], stdout=out,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=REPO,
                                env={**inherited, "VERISHOP_HOME": str(home)})
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_DEADLINE_S
        while True:
            assert proc.poll() is None, log.read_text()
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{base}/health", timeout=2).status_code == 200:
                    break
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    root = tmp_path_factory.mktemp("verishop")
    catalog = root / "catalog.db"
    subprocess.run([VERISHOP_PYTHON, "-P", "-c", "import sys; from verishop.scenarios.catalog.build import build_catalog; "
                    "build_catalog(sys.argv[1], size=4000, seed=3)", str(catalog)], cwd=REPO, check=True, timeout=120)
    runs = root / "runs"
    runs.mkdir()
    common = ["--catalog", str(catalog), "--runs-dir", str(runs)]
    model = ScriptedModel()
    shop_args = ["serve", "--transport", "http", "--no-default-episode", *common]
    with _running(shop_args, root / "shop.log", root) as shop, \
            _running([*shop_args, "--token", TOKEN], root / "locked-shop.log", root) as locked_shop, \
            _running(["verifier", "serve", *common], root / "verifier.log", root) as verifier, \
            serving(model) as model_url:
        yield Services(shop, locked_shop, verifier, runs, model_url, model, catalog, root)


def _vf_eval(services: Services, out: Path, model: str, *flags: str, runs: Path | None = None) -> list[dict[str, Any]]:
    """Run verifiers' CLI on the taskset; the traces it wrote (one episode per rollout, one trace per episode).
    Over HTTP on the test's shop and sidecar; with `runs`, in vf-eval's own process (no shop URL),
    on the test's catalog, writing each episode's run folder into `runs`."""
    shop = ["--env.taskset.task.base-url", services.shop, "--env.taskset.task.verifier-url", services.verifier] \
        if runs is None else ["--env.taskset.task.catalog", str(services.catalog), "--env.taskset.task.runs-dir", str(runs)]
    command = [str(VENV_BIN / "vf-eval"), "verishop-verifiers", "-m", model, "--client.base-url", services.model_url,
               "--no-push", "--no-rich", "-o", str(out), "--run.name", model, *shop, *flags]
    # verifiers prepares its harness with uv, found on PATH (this venv has it)
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
           "VERISHOP_HOME": str(services.home)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=EVAL_TIMEOUT_S, cwd=out.parent)
    assert done.returncode == 0, done.stderr[-4000:]
    episodes = [json.loads(line) for line in (out / model / "traces.jsonl").read_text().splitlines()]
    assert all(len(episode["traces"]) == 1 for episode in episodes)
    return [episode["traces"][0] for episode in episodes]


def _episode(services: Services, trace: dict[str, Any], runs: Path | None = None
             ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The transcript events and reward.json of the verishop episode a rollout played."""
    folder = (runs or services.runs) / trace["task"]["data"]["episode_id"]
    events = [json.loads(line) for line in (folder / "transcript.jsonl").read_text().splitlines()]
    return events, json.loads((folder / "reward.json").read_text())


def _score(trace: dict[str, Any]) -> float:
    [(name, reward)] = trace["rewards"].items()
    assert name == "verishop_reward" and reward["weight"] == 1.0
    return reward["score"]


def test_vf_eval_plays_a_fresh_episode_per_rollout_and_is_paid_the_verifiers_reward(services, tmp_path):
    traces = _vf_eval(services, tmp_path / "out", "shopper", "--env.taskset.env", "C1", "-n", "2", "-r", "2")

    assert len(traces) == 4 and all(t["ok"] and not t["errors"] for t in traces)
    episode_ids = {t["task"]["data"]["episode_id"] for t in traces}
    assert len(episode_ids) == 4, "every rollout, each member of a group too, plays its own episode"
    assert len({t["task"]["key"] for t in traces}) == 2, "a group's rollouts share their task's key"
    for trace in traces:
        assert trace["stop_condition"] == "episode_closed"
        events, reward = _episode(services, trace)
        calls = [e["tool"] for e in events if e["event"] == "tool_call"]
        assert calls == ["search_catalog", "respond_to_customer"]
        assert events[-1] == {**events[-1], "event": "episode_closed", "reason": "agent_done"}
        assert reward["verdict"] == "scored" and reward["episode_id"] == trace["task"]["data"]["episode_id"]
        assert _score(trace) == reward["total"]
        assert trace["metrics"] == {"r_task": reward["r_task"], "r_eff": reward["r_eff"],
                                    "r_hall": reward["r_hall"], "is_correct": float(reward["is_correct"])}
        assert reward["is_correct"], "seeds 0 and 1 of pd at d = 0 are solved by this play"

    # what the model was shown: the episode's system prompt, the customer's opening, the shop's tools
    openings = {t["task"]["data"]["prompt"]: t["task"]["data"]["system_prompt"] for t in traces}
    first_turns = [r for r in services.model.requests if r["model"] == "shopper" and len(r["messages"]) == 2]
    assert len(first_turns) == 4
    for request in first_turns:
        system, user = request["messages"]
        assert user["role"] == "user" and user["content"].startswith("The customer says:\n")
        assert system == {"role": "system", "content": openings[user["content"]]}
        tools = {t["function"]["name"]: t["function"]["parameters"] for t in request["tools"]}
        assert len(tools) == SHOP_TOOLS and "respond_to_customer" in tools
        assert tools["search_catalog"]["additionalProperties"] is False
        assert tools["search_catalog"]["properties"]["sort_by"]["enum"] == ["featured", "price", "rating", "delivery"]


def test_a_model_that_answers_nothing_is_paid_at_most_zero(services, tmp_path):
    [trace] = _vf_eval(services, tmp_path / "out", "null", "--env.taskset.env", "pd", "-n", "1")

    events, reward = _episode(services, trace)
    assert trace["ok"] and trace["stop_condition"] == "episode_closed"
    assert [e["tool"] for e in events if e["event"] == "tool_call"] == ["respond_to_customer"]
    assert _score(trace) == reward["total"] <= 0
    assert trace["metrics"]["is_correct"] == 0.0
    verdict = trace["info"]["verishop"]
    assert verdict["close_reason"] == "agent_done" and verdict["failed_checks"]


@pytest.mark.parametrize(("model", "flags", "stop"), [
    ("staller", ["--env.agent.max-turns", "3"], "max_turns"),
    ("talker", [], "agent_completed"),  # a reply without a tool call ends verifiers' chat loop
])
def test_a_rollout_that_ends_with_its_episode_open_closes_it_and_is_scored(services, tmp_path, model, flags, stop):
    [trace] = _vf_eval(services, tmp_path / "out", model, "--env.taskset.env", "pd", "-n", "1", *flags)

    events, reward = _episode(services, trace)
    assert trace["ok"] and trace["stop_condition"] == stop
    assert events[-1]["event"] == "episode_closed" and events[-1]["reason"] == "closed_by_client"
    assert reward["verdict"] == "scored" and _score(trace) == reward["total"] <= 0


def test_load_environment_gives_an_env_that_plays_in_process_with_the_control_token(services, monkeypatch):
    assert httpx.post(f"{services.locked_shop}/episodes", json={"env": "pd"}).status_code == 401
    monkeypatch.setenv("PATH", f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    env = load_environment(base_url=services.locked_shop, token=TOKEN, verifier_url=services.verifier, env="pd",
                           difficulty=0, num_examples=1, first_seed=5)
    [task] = list(env.taskset)
    context = vf.ModelContext(client=vf.EvalClientConfig(base_url=services.model_url), model="shopper",
                              sampling=vf.SamplingConfig())

    async def play() -> vf.Episode:
        async with env.serving():
            return await env.run_slot(RunSlot(task), context)

    episode = asyncio.run(play())
    [trace] = episode.traces
    _, reward = _episode(services, trace.model_dump(mode="json"))
    # The shop names the version it served (pd-v10 today); the integration only passes it on.
    assert episode.ok and trace.task.data.seed == 5 and trace.task.data.env_id.startswith("pd-v")
    assert trace.task.data.episode_difficulty == reward["difficulty"] == 0
    assert trace.rewards["verishop_reward"].score == reward["total"] and reward["is_correct"]


def test_a_token_left_out_of_the_config_is_read_from_its_environment_variable(monkeypatch):
    monkeypatch.setenv("SHOP_TOKEN_FOR_TEST", "from-env")
    config = VerishopTaskConfig(token_var="SHOP_TOKEN_FOR_TEST", verifier_token="given")
    assert (config.control_token, config.sidecar_token) == ("from-env", "given")
    assert VerishopTaskConfig(token="given", token_var="SHOP_TOKEN_FOR_TEST").control_token == "given"


# -- in process: the shop in the env's own process, no `verishop serve`, no sidecar -----------------

# What names an episode, its moment or its seal key (the server's runs folder has its own key), how
# long a step took, and the world file's hash (the file carries the episode's ID).
EPISODE_NAMES = ("episode_id", "ts", "elapsed_ms", "duration_ms", "seal", "seal_key_id", "world_sha256", "scored_at",
                 "verified_at")


def _comparable(item: dict[str, Any]) -> dict[str, Any]:
    """An event or a reward without what names its episode, its moment or its seal key."""
    return {k: v for k, v in item.items() if k not in EPISODE_NAMES}


def _shown(services: Services, model: str) -> dict[str, list[Any]]:
    """What each of `model`'s rollouts showed it, by the customer's opening: the tool results."""
    shown: dict[str, list[Any]] = {}
    for request in services.model.requests:
        if request["model"] == model:
            opening = request["messages"][1]["content"]
            shown[opening] = [m["content"] for m in request["messages"] if m["role"] == "tool"]
    return shown


def test_vf_eval_in_process_plays_scores_and_writes_what_verify_rescores_as_over_http(services, tmp_path,
                                                                                      monkeypatch):
    from verishop.verifier.runner import Verifier

    runs = tmp_path / "runs"
    local = _vf_eval(services, tmp_path / "local", "shopper-local", "--env.taskset.env", "C1", "-n", "2", runs=runs)
    remote = _vf_eval(services, tmp_path / "http", "shopper-http", "--env.taskset.env", "C1", "-n", "2")

    assert len(local) == 2 and all(t["ok"] and not t["errors"] for t in local)
    monkeypatch.setenv("VERISHOP_HOME", str(services.home))  # the seal key the in-process shop used
    by_seed = {}
    for trace in local:
        episode_id = trace["task"]["data"]["episode_id"]
        assert not (services.runs / episode_id).exists(), "the HTTP shop never saw it"
        events, reward = _episode(services, trace, runs)
        assert trace["stop_condition"] == "episode_closed" and reward["is_correct"]
        assert _score(trace) == reward["total"] and trace["info"]["verishop"]["close_reason"] == "agent_done"
        with Verifier() as verifier:
            assert verifier.score(runs / episode_id).model_dump(mode="json") == reward  # `verishop verify` agrees
        by_seed[trace["task"]["data"]["seed"]] = (events, reward)
    for trace in remote:  # the same tasks over HTTP: the same episode, move for move, and the same reward
        events, reward = _episode(services, trace)
        local_events, local_reward = by_seed[trace["task"]["data"]["seed"]]
        assert [_comparable(e) for e in events] == [_comparable(e) for e in local_events]
        assert _comparable(reward) == _comparable(local_reward)
    shown = _shown(services, "shopper-local")
    assert len(shown) == 2 and shown == _shown(services, "shopper-http")  # the same tool results, as text


def test_load_environment_plays_in_process_through_run_slot(services, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("VERISHOP_HOME", str(services.home))
    env = load_environment(catalog=str(services.catalog), runs_dir=str(tmp_path), env="pd", difficulty=0,
                           num_examples=1, first_seed=5)
    [task] = list(env.taskset)
    assert task.config.base_url is None, "in process is the default"
    context = vf.ModelContext(client=vf.EvalClientConfig(base_url=services.model_url), model="shopper",
                              sampling=vf.SamplingConfig())

    async def play() -> vf.Episode:
        async with env.serving():
            return await env.run_slot(RunSlot(task), context)

    episode = asyncio.run(play())
    [trace] = episode.traces
    _, reward = _episode(services, trace.model_dump(mode="json"), tmp_path)
    assert episode.ok and trace.task.data.env_id.startswith("pd-v") and reward["is_correct"]
    assert trace.rewards["verishop_reward"].score == reward["total"]
