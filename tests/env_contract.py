"""The contract every environment passes (issue 29), for any registry: the registered ones
(tests/test_registry.py, parametrised over `REGISTRY`) and a toy added in a temporary folder
(tests/test_adding_an_environment.py).

- determinism: the same (d, seed) gives the same scenario bytes, and the opening message names
  no ID the agent must find;
- the oracle solves every episode at every difficulty 0–12 at the top of the scale; doing nothing
  solves none;
- greedy (goal-blind) stays below the oracle, and goal-blind agents (doing nothing, inventing
  IDs) never score above greedy;
- its example rollouts (`examples.jsonl`) re-score to their stored rewards (tests/test_examples.py).

Episodes are played through the real MCP server in this process (`run_memory`) and scored by the
verifier's own code in this process, so a registry changed by the test is the one both sides see.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import anyio

from verishop.agents.evaluate import Plan, new_eval_dir, run_memory
from verishop.envs import get_env
from verishop.envs.examples import read_examples, rescore
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.verifier.runner import Settings, Verifier

DIFFICULTIES = tuple(range(13))
SEED = 101
# Goal-blind agents that must never score above greedy here; the whole red team, against the better
# of greedy and the simple heuristics, runs over every registered environment in tests/test_redteam.py.
GOAL_BLIND = ("null", "hallucinate")
_ID = re.compile(r"\b(?:P\d{8}|W\d{7}|LN\d{8})\b")


@dataclass(frozen=True)
class Outcome:
    """One agent's episodes in one environment."""

    solved: int
    episodes: int
    mean_total: float


def generation_is_deterministic(env: str, reader: CatalogReader, seeds: tuple[int, ...] = (1, 2),
                                difficulties: tuple[int, ...] = (0, 3, 6, 9, 12)) -> None:
    """Twice the same bytes, within this process (tests/test_golden_scenarios.py pins them across
    machines), and an opening that names no ID the agent must find."""
    spec = get_env(env)
    for difficulty in difficulties:
        for seed in seeds:
            scenario = spec.generate(difficulty, seed, reader)
            assert spec.generate(difficulty, seed, reader).to_json() == scenario.to_json(), (env, difficulty, seed)
            assert scenario.env_id == spec.env_id and scenario.difficulty == difficulty
            wanted = set(_ID.findall(scenario.goal.model_dump_json()))
            assert not wanted & set(_ID.findall(scenario.opening_message)), scenario.opening_message


def play(agent: str, env: str, catalog: Path, tmp_path: Path, episodes: int = len(DIFFICULTIES)) -> list[dict]:
    """`episodes` episodes of `env` (difficulties 0–12 in turn) played by `agent` and scored in
    this process; every one must be scored."""
    plan = Plan(agent, (env,), DIFFICULTIES, episodes, SEED)
    root = new_eval_dir(tmp_path / "runs", agent)
    anyio.run(run_memory, plan, catalog, root, 4, lambda: None)
    folders = sorted(p for p in root.iterdir() if (p / "scenario.json").exists())
    assert len(folders) == episodes, (agent, env, (root / "failures.jsonl").read_text()
                                      if (root / "failures.jsonl").exists() else "")
    with Verifier(Settings(catalog=catalog)) as verifier:
        rewards = [verifier.score(folder).model_dump() for folder in folders]
    assert all(r["verdict"] == "scored" for r in rewards), [r.get("detail") for r in rewards]
    return rewards


def outcome(rewards: list[dict]) -> Outcome:
    return Outcome(sum(bool(r["is_correct"]) for r in rewards), len(rewards),
                   round(sum(r["total"] for r in rewards) / len(rewards), 6))


def examples_rescore(env: str, catalog: Path) -> None:
    """Its committed example rollouts, a solved one and an unsolved one at least, each re-scored
    to the reward stored with it."""
    examples = read_examples(get_env(env))
    assert {bool(e["reward"]["is_correct"]) for e in examples} == {True, False}, env
    for example in examples:
        assert rescore(example, catalog) == example["reward"], (env, example["agent"], example["difficulty"])


def check_contract(env: str, reader: CatalogReader, catalog: Path, tmp_path: Path,
                   goal_blind: tuple[str, ...] = GOAL_BLIND) -> dict[str, Outcome]:
    """Every rule of the contract for `env`; the outcome of each agent played."""
    generation_is_deterministic(env, reader)
    examples_rescore(env, catalog)
    oracle = play("oracle", env, catalog, tmp_path)
    assert all(r["is_correct"] and r["total"] == 1.0 for r in oracle), \
        [(r["difficulty"], r["r_task"], r["r_eff"], r["r_hall"], r.get("failed_requirements")) for r in oracle]
    outcomes = {"oracle": outcome(oracle)}
    for agent in ("greedy", *goal_blind):
        outcomes[agent] = outcome(play(agent, env, catalog, tmp_path))
    greedy = outcomes["greedy"]
    assert greedy.solved < outcomes["oracle"].solved and greedy.mean_total < 1.0, (env, greedy)
    assert outcomes.get("null", Outcome(0, 1, -1.0)).solved == 0, (env, outcomes["null"])
    for agent in goal_blind:
        beaten = outcomes[agent]
        assert beaten.solved <= greedy.solved and beaten.mean_total <= greedy.mean_total, (env, agent, beaten, greedy)
    return outcomes
