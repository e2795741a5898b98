"""The registry, and the contract every registered environment passes (tests/env_contract.py):
the same seed gives the same scenario, the oracle solves it, doing nothing does not, greedy stays
below the oracle, and the customer's first message names no ID the agent is supposed to find."""

from __future__ import annotations

import re

import pytest

from verishop.scenarios.envs import COLLECTIONS, REGISTRY, collection
from env_contract import check_contract

ENV_IDS = sorted(REGISTRY)
CASES = [(0, 1), (3, 2), (6, 3), (9, 4), (12, 5), (12, 6)]
_ID = re.compile(r"\b(?:P\d{8}|W\d{7}|LN\d{8})\b")


def test_every_environment_is_registered_with_a_versioned_id():
    assert len(REGISTRY) >= 11
    assert all(re.fullmatch(r"[a-z]+-v\d+", env_id) for env_id in REGISTRY)
    assert [len(collection(name)) for name in ("C1", "C2", "C4", "C8", "C10", "C11")] == [1, 2, 4, 8, 10, 11]
    assert set(COLLECTIONS["C12"]) == {spec.short_name for spec in REGISTRY.values()}
    assert set(COLLECTIONS["C11"]) - set(COLLECTIONS["C10"]) == {"handover"}
    # C8 is the reference's eight (reference §2), whatever is registered after them.
    assert COLLECTIONS["C8"] == ("pd", "cart", "sub", "policy", "return", "status", "bundle", "journey")


@pytest.mark.parametrize("env_id", ENV_IDS)
def test_every_registered_environment_passes_the_contract(reader, catalog_path, tmp_path, env_id):
    """Determinism, the oracle at the top of the scale over d 0–12, nothing for doing nothing,
    greedy below the oracle (tests/env_contract.py). The goal-blind agents are the whole red team
    here, against the better of greedy and the heuristics, in tests/test_redteam.py (its list of
    environments is the registry's)."""
    check_contract(env_id, reader, catalog_path, tmp_path, goal_blind=("null",))
