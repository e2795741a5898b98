"""The Gymnasium adapter against the real gymnasium (opt-in: `make test-adapters`)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from servers import shop_server

pytestmark = pytest.mark.adapters
EXIT_DEADLINE_S = 30


@pytest.fixture(scope="module")
def base(catalog_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with shop_server(catalog_path, tmp_path_factory.mktemp("gym")) as url:
        yield url


def _status(base: str, episode_id: str) -> dict:
    return httpx2.get(f"{base}/episodes/{episode_id}").json()


def test_check_env_passes_on_the_raw_env(base):
    from gymnasium.utils.env_checker import check_env

    from verishop.agents.gym_env import ShopTextEnv

    env = ShopTextEnv(base, env="pd", difficulty=0)
    try:
        check_env(env)
    finally:
        env.close()


def test_check_env_passes_on_the_raw_env_in_process(catalog_path):
    from gymnasium.utils.env_checker import check_env

    from verishop.agents.gym_env import ShopTextEnv

    env = ShopTextEnv(catalog=catalog_path, env="pd", difficulty=0)  # no base_url: no server
    try:
        check_env(env)
        assert env.in_process and env.shop.health()["in_process"] is True
    finally:
        env.close()


def test_make_in_process_with_the_checker_on_truncates_scores_and_writes_the_run(catalog_path, tmp_path):
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    from verishop.agents.gym_env import ENV_ID, register_envs
    from verishop.verifier.runner import Verifier

    register_envs()
    env = gymnasium.make(ENV_ID, catalog=catalog_path, runs_dir=tmp_path, env="status", difficulty=0,
                         max_episode_steps=2)
    try:
        check_env(env.unwrapped)
        observation, info = env.reset(seed=41)
        assert observation and info["episode_id"]
        look = {"tool": "get_conversation", "arguments": {}}
        assert env.step(look)[2:4] == (False, False)
        _, reward, terminated, truncated, step_info = env.step(look)
        assert (terminated, truncated) == (False, True) and step_info["close_reason"] == "time_limit"
        assert step_info["reward"]["verdict"] == "scored" and reward == step_info["reward"]["total"]
        with Verifier() as verifier:
            rescored = verifier.score(tmp_path / info["episode_id"]).model_dump(mode="json")
        assert rescored == step_info["reward"]
    finally:
        env.close()


def test_make_with_the_checker_on_and_a_time_limit_closes_and_scores_the_truncated_episode(base):
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    from verishop.agents.gym_env import ENV_ID, register_envs

    register_envs()
    register_envs()  # idempotent
    env = gymnasium.make(ENV_ID, base_url=base, env="pd", difficulty=0, max_episode_steps=2)
    try:
        assert env.spec.disable_env_checker is False
        check_env(env.unwrapped)  # with a spec: determinism of seeded resets and steps, close twice
        observation, info = env.reset(seed=41)
        assert observation and info["episode_id"]
        search = {"tool": "search_catalog", "arguments": {"query": ""}}
        assert env.step(search)[2:4] == (False, False)
        _, reward, terminated, truncated, step_info = env.step(search)
        assert (terminated, truncated) == (False, True)  # TimeLimit's truncation, on the env's own last step
        assert step_info["close_reason"] == "time_limit" and step_info["reward"]["verdict"] == "scored"
        assert reward == step_info["reward"]["total"]
        assert _status(base, info["episode_id"])["status"] == "closed"  # before any reset
        first = info["episode_id"]
        _, again = env.reset()  # unseeded: drawn from the env's generator, so repeatable after reset(seed=41)
        env.reset(seed=41)
        _, repeat = env.reset()
        assert again["seed"] == repeat["seed"] and again["episode_id"] != first
    finally:
        env.close()


def test_a_script_that_raises_without_close_exits_promptly_and_closes_its_episode(base, tmp_path):
    script = tmp_path / "crash.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        from verishop.agents.gym_env import ShopTextEnv
        env = ShopTextEnv({base!r}, env="pd", difficulty=0)
        observation, info = env.reset(seed=5)
        print(info["episode_id"], flush=True)
        raise RuntimeError("the training script crashed")
    """))
    repo = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, str(script)], cwd=repo, capture_output=True, text=True,
                          timeout=EXIT_DEADLINE_S, env={"PYTHONPATH": str(repo), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 1 and "the training script crashed" in done.stderr
    episode_id = done.stdout.split()[0]
    assert _status(base, episode_id) == {"episode_id": episode_id, "status": "closed",
                                         "close_reason": "closed_by_client"}
