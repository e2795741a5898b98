"""Splits that cannot leak: train, dev and test seeds are disjoint for every environment and
difficulty, the test split needs its secret, and nothing an agent sees gives its seed away."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import anyio
import httpx2
import pytest

from servers import started
from verishop.agents.evaluate import Plan
from verishop.agents.gym_env import ShopTextEnv
from verishop.agents.trl import make_environment_factory
from verishop.scenarios.envs import REGISTRY
from verishop.scenarios.splits import SplitError, split_of, split_seed

SECRET = "a-secret-the-evaluator-keeps-0123"
OTHER_SECRET = "another-secret-entirely-45678901"
INDICES = 300


def test_the_three_splits_are_disjoint_for_every_environment_and_difficulty():
    for env in REGISTRY:
        for difficulty in (0, 6, 12):
            spaces = {split: {split_seed(split, env, difficulty, i, SECRET) for i in range(INDICES)}
                      for split in ("train", "dev", "test")}
            assert all(len(seeds) == INDICES for seeds in spaces.values())  # no repeat inside a split
            assert not spaces["train"] & spaces["dev"] and not spaces["train"] & spaces["test"]
            assert not spaces["dev"] & spaces["test"]
            assert all(split_of(s) == split for split, seeds in spaces.items() for s in seeds)
            assert all(s >= 2**61 and s < 2**63 for seeds in spaces.values() for s in seeds)


def test_plain_seeds_belong_to_no_split():
    assert {split_of(seed) for seed in range(10_000)} == {None}


def test_each_environment_and_difficulty_has_its_own_seeds():
    seeds = {split_seed("train", env, d, 0) for env in REGISTRY for d in range(13)}
    assert len(seeds) == len(REGISTRY) * 13


def test_a_split_survives_environment_versions_and_short_names():
    env_id = next(iter(REGISTRY))
    short = REGISTRY[env_id].short_name
    assert split_seed("dev", env_id, 3, 5) == split_seed("dev", short, 3, 5)


def test_the_test_split_depends_on_the_secret_and_only_on_it():
    with_secret = [split_seed("test", "pd", 4, i, SECRET) for i in range(INDICES)]
    assert with_secret == [split_seed("test", "pd", 4, i, SECRET) for i in range(INDICES)]  # re-creatable
    other = [split_seed("test", "pd", 4, i, OTHER_SECRET) for i in range(INDICES)]
    assert not set(with_secret) & set(other)
    # The public splits do not move with the secret: a published train set carries no trace of it.
    assert [split_seed("train", "pd", 4, i, SECRET) for i in range(50)] == \
        [split_seed("train", "pd", 4, i, OTHER_SECRET) for i in range(50)] == \
        [split_seed("train", "pd", 4, i) for i in range(50)]


@pytest.mark.parametrize(("split", "secret", "message"), [
    ("test", None, "needs its secret"),
    ("test", "short", "at least 16 characters"),
    ("holdout", SECRET, "unknown split"),
])
def test_a_split_that_cannot_be_used_says_why(split, secret, message):
    with pytest.raises(SplitError, match=message):
        split_seed(split, "pd", 0, 0, secret)


def test_an_evaluation_plan_plays_the_split_seeds_of_its_indices():
    plan = Plan("oracle", ("pd-v10",), (0, 1), 3, 10, trials=2, split="test", split_secret=SECRET)
    assert plan.episodes_to_play() == [(env, d, split_seed("test", env, d, i, SECRET))
                                       for env, d, i in (("pd-v10", 0, 10), ("pd-v10", 1, 11), ("pd-v10", 0, 12))
                                       for _ in range(2)]
    assert SECRET not in repr(plan)


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-m", "verishop", *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, **(env or {})})


def test_generate_re_creates_a_test_episode_only_with_the_secret(catalog_path: Path):
    refused = cli("generate", "--env", "pd", "--difficulty", "2", "--seed", "7", "--split", "test", "--catalog",
                  str(catalog_path), env={"VERISHOP_SPLIT_SECRET": ""})
    assert refused.returncode == 2 and "needs its secret" in refused.stderr
    made = cli("generate", "--env", "pd", "--difficulty", "2", "--seed", "7", "--split", "test", "--catalog",
               str(catalog_path), env={"VERISHOP_SPLIT_SECRET": SECRET})
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["seed"] == split_seed("test", "pd", 2, 7, SECRET)


def test_eval_refuses_the_test_split_without_a_secret_and_plays_it_with_one(catalog_path: Path, tmp_path: Path):
    args = ("eval", "--json", "--catalog", str(catalog_path), "--runs-dir", str(tmp_path / "runs"), "--env",
            "status", "--difficulty", "0-1", "--episodes", "2", "--split", "test")
    refused = cli(*args, env={"VERISHOP_SPLIT_SECRET": ""})
    assert refused.returncode == 2 and "needs its secret" in refused.stderr
    done = cli(*args, "--split-secret", SECRET)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    seeds = {json.loads(p.read_text())["seed"] for p in Path(summary["run_dir"]).glob("*/reward.json")}
    assert seeds == {split_seed("test", "status", d, i, SECRET) for d, i in ((0, 0), (1, 1))}


async def what_the_agent_sees(mcp_url: str) -> str:
    """Every argument-free tool's result and the tool list, as one text."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    async with httpx2.AsyncClient(timeout=30) as http, \
            Client(streamable_http_client(mcp_url, http_client=http)) as client:
        parts = [json.dumps([t.model_dump(mode="json") for t in (await client.list_tools()).tools])]
        for tool in ("get_conversation", "get_current_date", "get_browsing_history", "list_orders", "view_cart"):
            result = await client.call_tool(tool, {})
            parts.append(json.dumps(result.structured_content, ensure_ascii=False))
        parts.append(json.dumps((await client.call_tool("search_catalog", {"query": "charger"})).structured_content))
    return "\n".join(parts)


def test_over_http_a_test_episode_shows_no_seed_to_anyone(catalog_path: Path, tmp_path: Path):
    runs = tmp_path / "runs"
    args = ["serve", "--transport", "http", "--no-default-episode", "--catalog", str(catalog_path), "--runs-dir",
            str(runs), "--workers", "1"]
    with started(args, tmp_path / "plain.log", {"VERISHOP_SPLIT_SECRET": ""}) as server:
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            refused = http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 3, "split": "test"})
            assert refused.status_code == 400 and "needs its secret" in refused.json()["error"]
            train = http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 3, "split": "train"})
            assert train.status_code == 201 and train.json()["seed"] == split_seed("train", "pd", 1, 3)
        # The adapters pass a split through: Gymnasium's reset(seed=i) and a TRL row's seed are indices.
        env = ShopTextEnv(server.base, env="pd", difficulty=2, split="dev")
        try:
            assert env.reset(seed=4)[1]["seed"] == split_seed("dev", "pd", 2, 4)
        finally:
            env.close()
        tool_env = make_environment_factory(server.base, env="pd", difficulty=2, split="dev")()
        try:
            tool_env.reset(seed=5)
            opened = json.loads((runs / tool_env.episode_id / "transcript.jsonl").read_text().splitlines()[0])
            assert opened["seed"] == split_seed("dev", "pd", 2, 5)
        finally:
            tool_env._end_episode()
    with started(args, tmp_path / "secret.log", {"VERISHOP_SPLIT_SECRET": SECRET}) as server:
        with httpx2.Client(base_url=server.base, timeout=30) as http:
            created = http.post("/episodes", json={"env": "pd", "difficulty": 1, "seed": 3, "split": "test"})
            assert created.status_code == 201, created.text
            info = created.json()
            assert info["seed"] is None and info["split"] == "test"
            shown = http.get(f"/episodes/{info['episode_id']}").json()
            seed = split_seed("test", "pd", 1, 3, SECRET)
            # The seed is nowhere in what the creator or the agent gets: the payloads, the opening
            # message, the system prompt (the tools never show it: no tool result names a seed).
            for text in (json.dumps(info), json.dumps(shown)):
                assert str(seed) not in text
            seen = anyio.run(what_the_agent_sees, info["mcp_url"])
            assert info["opening_message"] in seen and str(seed) not in seen
            scenario = json.loads(Path(info["run_dir"], "scenario.json").read_text())
            assert scenario["seed"] == seed  # on disk for the verifier and whoever holds the secret
            # A curriculum-chosen episode in the test split draws from the same private space.
            chosen = http.post("/episodes", json={"env": "pd", "split": "test", "seed": 9}).json()
            scenario = json.loads(Path(chosen["run_dir"], "scenario.json").read_text())
            assert scenario["seed"] == split_seed("test", "pd", chosen["difficulty"], 9, SECRET)
