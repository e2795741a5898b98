"""verishop served by OpenEnv 0.10's own server (`create_app`, in a uvicorn subprocess on
127.0.0.1) and played by OpenEnv's own client (`EnvClient` over its WebSocket session)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from verishop_openenv.client import VerishopEnv
from verishop_openenv.models import ShopAction

HERE = Path(__file__).parent
START_S = 60.0


def verishop_python() -> str:
    python = os.environ.get("VERISHOP_PYTHON")
    if not python:
        pytest.fail("set VERISHOP_PYTHON to the repository venv's python (make test-openenv does)")
    return python


@pytest.fixture(scope="module")
def server():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen([sys.executable, "-m", "verishop_openenv.server", "--port", str(port)],
                               env={**os.environ, "VERISHOP_PYTHON": verishop_python()})
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_S
    try:
        while True:
            assert process.poll() is None, "the OpenEnv server exited"
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "the OpenEnv server did not answer /health in time"
            time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=20)


def scripted(env: str, difficulty: int, seed: int, agent: str) -> dict:
    """The calls verishop's scripted `agent` makes on that episode, and the total it earned."""
    out = subprocess.run([verishop_python(), str(HERE / "oracle_calls.py"), env, str(difficulty), str(seed), agent],
                         capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout)


def play(url: str, env: str, difficulty: int, seed: int, calls: list[dict]):
    with VerishopEnv(base_url=url).sync() as client:
        first = client.reset(env=env, difficulty=difficulty, seed=seed)
        steps = [client.step(ShopAction(tool=c["tool"], arguments=c["arguments"])) for c in calls]
        state = client.state()
    return first, steps, state


@pytest.mark.parametrize("env", ["pd", "status"])
def test_the_oracles_calls_through_openenvs_client_reach_the_full_reward(server, env):
    recorded = scripted(env, 0, 3, "oracle")
    assert recorded["total"] == 1.0
    first, steps, state = play(server, env, 0, 3, recorded["calls"])
    assert first.observation.opening_message and first.observation.system_prompt and not first.done
    assert len(first.observation.tools) == 30
    assert all(not step.done and step.reward == 0.0 for step in steps[:-1])
    last = steps[-1]
    assert last.done and last.reward == 1.0 and last.observation.reward == 1.0
    assert last.metadata["reward"]["is_correct"] and last.metadata["reward"]["verdict"] == "scored"
    assert state.env_id.startswith(env + "-v") and state.seed == 3 and state.step_count == len(steps)


def test_a_wrong_answer_scores_lower(server):
    recorded = scripted("pd", 0, 3, "hallucinate")
    _, steps, _ = play(server, "pd", 0, 3, recorded["calls"])
    assert steps[-1].done and steps[-1].reward == pytest.approx(recorded["total"]) and steps[-1].reward < 1.0
    assert not steps[-1].metadata["reward"]["is_correct"]


def test_a_shop_error_comes_back_in_the_observation(server):
    with VerishopEnv(base_url=server).sync() as client:
        client.reset(env="pd", difficulty=0, seed=1)
        step = client.step(ShopAction(tool="get_product", arguments={"product_id": "P00000000"}))
        assert not step.done and step.observation.result is None and "P00000000" in step.observation.error
        unknown = client.step(ShopAction(tool="no_such_tool", arguments={}))
        assert unknown.observation.error == "Unknown tool: no_such_tool"


def test_sessions_are_isolated(server):
    with VerishopEnv(base_url=server).sync() as a, VerishopEnv(base_url=server).sync() as b:
        first_a = a.reset(env="pd", difficulty=0, seed=1)
        first_b = b.reset(env="status", difficulty=0, seed=1)
        assert first_a.observation.opening_message != first_b.observation.opening_message
        assert a.state().shop_episode_id != b.state().shop_episode_id


def test_same_seed_same_episode(server):
    with VerishopEnv(base_url=server).sync() as client:
        one = client.reset(env="pd", difficulty=2, seed=11).observation.opening_message
        two = client.reset(env="pd", difficulty=2, seed=11).observation.opening_message
        other = client.reset(env="pd", difficulty=2, seed=12).observation.opening_message
    assert one == two != other
