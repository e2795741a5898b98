"""docs/adding-an-environment.md is true: a new environment is one folder plus one registry line.

The toy environment in tests/toy_env/ is copied to a temporary folder (a package of its own,
outside verishop), one `EnvSpec` line is added to a copy of the registry, and the contract every
registered environment passes (tests/env_contract.py) runs on it: the server generates and serves
it, the simulated customer answers, the oracle and greedy play it and the verifier scores it, all
found through that one line."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from env_contract import check_contract, play
from verishop import envs
from verishop.agents.record_examples import record
from verishop.envs.examples import write_examples
from verishop.scenarios.models import StatusGoal

TOY = Path(__file__).parent / "toy_env"


@pytest.fixture
def toy_registered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> envs.EnvSpec:
    root = tmp_path / "contrib"
    shutil.copytree(TOY, root / "toy_shop_env", ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.syspath_prepend(str(root))
    spec = envs.EnvSpec("toy-v1", "Toy order status", StatusGoal, package="toy_shop_env")  # the one line
    monkeypatch.setattr(envs, "REGISTRY", {**envs.REGISTRY, spec.env_id: spec})
    yield spec
    for name in [m for m in sys.modules if m == "toy_shop_env" or m.startswith("toy_shop_env.")]:
        del sys.modules[name]


def test_a_toy_environment_in_its_own_folder_passes_the_contract(toy_registered, reader, catalog_path, tmp_path):
    # Its example rollouts are recorded into its folder the way `make examples` records them.
    write_examples(toy_registered, record(toy_registered, catalog_path, tmp_path / "recording"))
    outcomes = check_contract("toy", reader, catalog_path, tmp_path)
    assert outcomes["oracle"].solved == 13 and outcomes["greedy"].solved < 13


def test_the_toy_is_served_and_scored_by_its_own_roles_not_by_its_goal_models_environment(
        toy_registered, catalog_path, tmp_path):
    """It shares the status goal model: the registry, not the goal's kind, picks its roles."""
    rewards = play("oracle", "toy", catalog_path, tmp_path, episodes=2)
    assert [r["env_id"] for r in rewards] == ["toy-v1", "toy-v1"]
    assert all(c["name"] == "answer" for r in rewards for c in r["breakdown"] if c["name"] not in
               ("efficiency", "hallucination", "safety"))


def test_an_unregistered_folder_is_nothing(catalog_path, tmp_path):
    with pytest.raises(KeyError, match="unknown environment 'toy'"):
        envs.get_env("toy")


def test_a_registry_line_whose_folder_lacks_a_role_says_which(toy_registered, tmp_path):
    spec = envs.EnvSpec("bare-v1", "No folder", StatusGoal, package="toy_shop_env.missing")
    with pytest.raises((LookupError, ModuleNotFoundError), match="missing"):
        spec.role("generator")
