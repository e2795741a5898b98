"""One test over every registered environment and many seeds (the Gymnasium-style contract):
the same seed gives the same scenario, the oracle solves it, doing nothing does not, and the
customer's first message names no ID the agent is supposed to find."""

from __future__ import annotations

import re

import pytest

from verishop.scenarios.envs import COLLECTIONS, REGISTRY, collection, generate
from support import play_and_verify

ENV_IDS = sorted(REGISTRY)
CASES = [(0, 1), (3, 2), (6, 3), (9, 4), (12, 5), (12, 6)]
_ID = re.compile(r"\b(?:P\d{8}|W\d{7}|LN\d{8})\b")


def test_every_environment_is_registered_with_a_versioned_id():
    assert len(REGISTRY) == 8
    assert all(re.fullmatch(r"[a-z]+-v\d+", env_id) for env_id in REGISTRY)
    assert [len(collection(name)) for name in ("C1", "C2", "C4", "C8")] == [1, 2, 4, 8]
    assert set(COLLECTIONS["C8"]) == {spec.short_name for spec in REGISTRY.values()}


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_same_seed_same_scenario_and_no_goal_ids_in_the_opening(reader, env_id):
    for difficulty, seed in CASES:
        scenario = generate(env_id, difficulty, seed, reader)
        assert generate(env_id, difficulty, seed, reader).to_json() == scenario.to_json()
        assert scenario.env_id == env_id and scenario.difficulty == difficulty
        wanted = set(_ID.findall(scenario.goal.model_dump_json()))
        assert not wanted & set(_ID.findall(scenario.opening_message)), scenario.opening_message


def _rewards(agent: str, env_id: str, catalog_path, tmp_path) -> list[dict]:
    """Six episodes at difficulties 0, 3, 6, 9, 12, 0 (seeds 1..6), scored in one verifier run."""
    return play_and_verify(agent, (env_id,), (0, 3, 6, 9, 12), 6, 1, catalog_path, tmp_path, concurrency=3)


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_the_oracle_solves_it_and_doing_nothing_does_not(catalog_path, tmp_path, env_id):
    oracle = _rewards("oracle", env_id, catalog_path, tmp_path)
    assert all(r["verdict"] == "scored" and r["is_correct"] for r in oracle), \
        [(r.get("difficulty"), r.get("r_task"), r.get("detail")) for r in oracle]
    # A minimal correct play reaches the top of the scale, journeys included.
    assert all(r["total"] == 1.0 for r in oracle), [(r["difficulty"], r["r_eff"], r["r_hall"]) for r in oracle]
    null = _rewards("null", env_id, catalog_path, tmp_path)
    assert all(r["verdict"] == "scored" and not r["is_correct"] for r in null)
