"""The TRL and Gymnasium adapters in the trainer's own process (issue 36), without TRL or
gymnasium installed (neither module imports them; `make test-adapters` runs them beside the real
libraries): no server, no subprocess, no socket; the oracle solves pd and status episodes; tool
errors come back as each adapter documents; the run folder an adapter writes is re-scored
identically by the file verifier; and the same episodes and moves over HTTP (a real server
subprocess) give the same results, customer replies and rewards."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from servers import shop_server

from verishop.agents.gym_env import ShopTextEnv
from verishop.agents.oracles import oracle_for
from verishop.agents.session import ToolFailed
from verishop.agents.trl import make_environment_factory, verishop_reward
from verishop.envs import generate, get_env
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.models import Scenario
from verishop.verifier.runner import Verifier

# (env, difficulty, seed): oracle episodes that end solved with the full reward.
SOLVED = [("pd", 0, 3), ("pd", 2, 11), ("status", 0, 1), ("status", 3, 7)]
NOT_NETWORK = "this test runs with networking and subprocesses refused"


class NetworkRefused(RuntimeError):
    pass


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse every socket bind or connect and every subprocess for the test: an adapter that
    reached for a server (or started one) fails at once. The event loop's own wake-up pipe
    (`socket.socketpair`, neither bound nor connected by Python) is still allowed."""
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise NetworkRefused(NOT_NETWORK)

    for name in ("bind", "connect", "connect_ex"):
        monkeypatch.setattr(socket.socket, name, refuse)
    monkeypatch.setattr(subprocess.Popen, "__init__", refuse)


def test_the_guard_refuses_the_http_mode_and_subprocesses(no_network):
    with pytest.raises(ExceptionGroup) as caught:  # the HTTP client's task group
        make_environment_factory("http://127.0.0.1:9", env="pd", difficulty=0)
    assert caught.group_contains(NetworkRefused)
    with pytest.raises(NetworkRefused):
        subprocess.run(["true"])


class _Session:
    """What an oracle plays through (`ShopSession.call`), over a blocking adapter call run in a
    worker thread (the in-process shop refuses blocking calls inside a running loop, as it should)."""

    def __init__(self, call: Callable[[str, dict[str, Any]], dict[str, Any]]):
        self._call, self.log = call, []

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        data = await asyncio.to_thread(self._call, tool, arguments)
        self.log.append((tool, data))
        return data


def _trl_call(env: Any) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        try:
            return json.loads(getattr(env, tool)(**arguments))
        except ValueError as exc:
            raise ToolFailed(str(exc)) from None
    return call


def _gym_call(env: ShopTextEnv, steps: list[tuple]) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    def call(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        step = env.step({"tool": tool, "arguments": arguments})
        steps.append(step)
        if step[4]["is_error"]:
            raise ToolFailed(step[0])
        return step[4]["data"]
    return call


def _scenario(reader: CatalogReader, env: str, difficulty: int, seed: int) -> Scenario:
    return generate(get_env(env).env_id, difficulty, seed, reader)


def _play_oracle(scenario: Scenario, call: Callable[[str, dict[str, Any]], dict[str, Any]]) -> _Session:
    session = _Session(call)
    asyncio.run(oracle_for(scenario)(session, scenario.goal))  # type: ignore[arg-type]
    return session


@pytest.fixture(scope="module")
def trl_class(catalog_path: Path, tmp_path_factory: pytest.TempPathFactory) -> type:
    return make_environment_factory(catalog=catalog_path, runs_dir=tmp_path_factory.mktemp("trl-runs"))


@pytest.mark.parametrize(("env_name", "difficulty", "seed"), SOLVED)
def test_trl_in_process_the_oracle_solves_and_the_run_folder_rescores_identically(
        no_network, trl_class, reader, verifier, env_name, difficulty, seed):
    env = trl_class()
    text = env.reset(env=env_name, difficulty=difficulty, seed=seed, prompt="ignored column")
    scenario = _scenario(reader, env_name, difficulty, seed)
    assert env.opening_message == scenario.opening_message and scenario.opening_message in text

    _play_oracle(scenario, _trl_call(env))
    [total] = verishop_reward([env])

    details = env.reward_details
    assert details["verdict"] == "scored" and details["is_correct"] is True and total == details["total"] == 1.0
    assert (details["env_id"], details["difficulty"], details["seed"]) == (scenario.env_id, difficulty, seed)
    folder = Path(trl_class._runs_dir) / env.episode_id
    assert json.loads((folder / "reward.json").read_text()) == details
    assert verifier.score(folder).model_dump(mode="json") == details  # `verishop verify` agrees


def test_trl_in_process_tool_errors_raise_value_error_with_the_shops_message(no_network, trl_class):
    env = trl_class()
    with pytest.raises(ValueError, match="call reset"):
        env.search_catalog(query="lamp")
    env.reset(env="pd", difficulty=12, seed=5)  # 7 lookups a turn
    with pytest.raises(ValueError, match="^Error executing tool search_catalog: limit: Input should be less than "
                                         "or equal to 50$"):
        env.search_catalog(query="lamp", limit=51)
    with pytest.raises(ValueError, match="P000"):
        env.get_product(product_id="P000")
    assert json.loads(env.search_catalog(query="lamp", limit=2))["results"]  # the episode goes on
    # a model that stops without an answer: the episode is closed and scored, not solved
    assert verishop_reward([env])[0] < 0 and env.reward_details["close_reason"] == "closed_by_client"


def test_trl_instances_share_one_shop_and_a_row_without_difficulty_lets_the_curriculum_choose(no_network, trl_class):
    first, second = trl_class(), trl_class()
    assert first._shop() is second._shop()
    first.reset(env="status", seed=4)
    second.reset(env="status", seed=4)
    assert first.episode_id != second.episode_id and first.opening_message == second.opening_message
    assert verishop_reward([first, second]) == [first.reward, second.reward]
    assert first.reward_details["difficulty"] == 0 and first.reward_details["chosen_by_curriculum"] is True


@pytest.mark.parametrize(("env_name", "difficulty", "seed"), [SOLVED[0], SOLVED[2]])
def test_gym_in_process_the_oracle_solves_and_errors_are_observations(
        no_network, catalog_path, reader, verifier, tmp_path, env_name, difficulty, seed):
    env = ShopTextEnv(catalog=catalog_path, runs_dir=tmp_path, env=env_name, difficulty=difficulty)
    try:
        observation, info = env.reset(seed=seed)
        scenario = _scenario(reader, env_name, difficulty, seed)
        assert observation == scenario.opening_message and info["seed"] == seed

        error = env.step({"tool": "search_catalog", "arguments": {"query": "x", "limit": 0}})
        assert error[1:4] == (0.0, False, False) and error[4]["is_error"]
        assert error[0].startswith("Error executing tool search_catalog: limit:")

        steps: list[tuple] = []
        _play_oracle(scenario, _gym_call(env, steps))
        observation, reward, terminated, truncated, last = steps[-1]
        # pd's oracle leaves the goodbye to the satisfied customer; status's says done itself
        ending = {"pd": "customer_done", "status": "agent_done"}[env_name]
        assert (terminated, truncated) == (True, False) and last["close_reason"] == ending
        assert reward == last["reward"]["total"] == 1.0 and last["reward"]["is_correct"]
        assert verifier.score(tmp_path / info["episode_id"]).model_dump(mode="json") == last["reward"]
        with pytest.raises(RuntimeError, match="ended"):
            env.step("anything else?")
    finally:
        env.close()
    env.close()  # twice: nothing left to close


# -- the same moves over HTTP ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def server(catalog_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with shop_server(catalog_path, tmp_path_factory.mktemp("http")) as url:
        yield url


def _comparable(reward: dict[str, Any]) -> dict[str, Any]:
    """A reward without what names the episode (its ID) or when it was scored."""
    return {k: v for k, v in reward.items() if k not in ("episode_id", "scored_at", "verified_at")}


def _played(env: Any, scenario: Scenario) -> tuple[list[Any], dict[str, Any]]:
    """Play a wrong move, then the oracle, then read the reward: what came back, in order."""
    seen: list[Any] = []
    try:
        env.check_order(order_id="ORD-0000")
    except ValueError as exc:
        seen.append(("error", str(exc)))
    seen += _play_oracle(scenario, _trl_call(env)).log
    verishop_reward([env])
    return seen, env.reward_details


@pytest.mark.parametrize(("env_name", "difficulty", "seed"), [SOLVED[1], SOLVED[3]])
def test_trl_over_http_and_in_process_the_same_moves_give_the_same_replies_and_rewards(
        trl_class, server, reader, env_name, difficulty, seed):
    scenario = _scenario(reader, env_name, difficulty, seed)
    local, remote = trl_class(), make_environment_factory(server)()
    assert [name for name in dir(local) if not name.startswith("_")] == \
        [name for name in dir(remote) if not name.startswith("_")]
    for name in ("search_catalog", "respond_to_customer", "check_order"):
        method, twin = getattr(local, name), getattr(remote, name)
        assert (method.__doc__, str(method.__signature__)) == (twin.__doc__, str(twin.__signature__))
    assert local.reset(env=env_name, difficulty=difficulty, seed=seed) == \
        remote.reset(env=env_name, difficulty=difficulty, seed=seed)

    local_seen, local_reward = _played(local, scenario)
    remote_seen, remote_reward = _played(remote, scenario)
    assert local_seen == remote_seen  # the same error text, tool results and customer replies
    assert local_reward["total"] == remote_reward["total"] == 1.0
    assert _comparable(local_reward) == _comparable(remote_reward)


def test_gym_over_http_and_in_process_a_null_answer_gets_the_same_reply_and_reward(catalog_path, server):
    rewards = []
    for env in (ShopTextEnv(catalog=catalog_path, env="pd", difficulty=1), ShopTextEnv(server, env="pd", difficulty=1)):
        try:
            opening, _ = env.reset(seed=21)
            reply = env.step({"message": "Sorry, I cannot help.", "done": True})
            rewards.append((opening, reply[0], reply[1:4], _comparable(reply[4]["reward"])))
        finally:
            env.close()
    assert rewards[0] == rewards[1] and rewards[0][1] and rewards[0][2][0] <= 0
