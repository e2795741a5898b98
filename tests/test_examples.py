"""Each environment's committed example rollouts (verishop/envs/<folder>/examples.jsonl, issue 29):
every registered environment has some, solved and unsolved, and every line re-scores, from the
line alone, to the reward it stores; a line changed in any way that matters does not."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CATALOG_SEED, CATALOG_SIZE
from verishop.agents.record_examples import Play, record_one
from verishop.envs import REGISTRY, EnvSpec, get_env
from verishop.envs.examples import ExampleError, dumps, examples_path, read_examples, rescore

SPECS = list(REGISTRY.values())


def _ids(spec: EnvSpec) -> str:
    return spec.name


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_every_registered_environment_has_examples_both_solved_and_unsolved(spec: EnvSpec) -> None:
    examples = read_examples(spec)
    assert {e["reward"]["is_correct"] for e in examples} == {True, False}
    assert examples_path(spec).stat().st_size < 60_000
    for example in examples:
        # Of its current version, on the test catalog, and the line says the same as its scenario.
        assert example["env_id"] == example["scenario"]["env_id"] == spec.env_id
        scenario = example["scenario"]
        assert (example["difficulty"], example["seed"]) == (scenario["difficulty"], scenario["seed"])
        assert (example["catalog"]["size"], example["catalog"]["seed"]) == (CATALOG_SIZE, CATALOG_SEED)
        assert example["reward"]["verdict"] == "scored"
        assert example["transcript"][-1]["event"] == "episode_closed"


@pytest.mark.parametrize("spec", SPECS, ids=_ids)
def test_every_example_rescores_to_its_stored_reward(spec: EnvSpec, catalog_path: Path) -> None:
    for number, example in enumerate(read_examples(spec), start=1):
        assert rescore(example, catalog_path) == example["reward"], (
            f"{spec.env_id} line {number} earns another reward now: if scoring changed on purpose, `make examples`")


def _line(name: str, agent: str) -> dict:
    return next(e for e in read_examples(get_env(name)) if e["agent"] == agent)


def test_an_example_without_its_answer_event_does_not_rescore_to_its_reward(catalog_path: Path) -> None:
    example = copy.deepcopy(_line("pd", "oracle"))
    events = [e for e in example["transcript"] if e["event"] != "assistant_message"]
    assert len(events) < len(example["transcript"])
    example["transcript"] = events
    assert rescore(example, catalog_path) != example["reward"]


def test_an_example_whose_answer_is_taken_back_still_scores_but_not_as_solved(catalog_path: Path) -> None:
    """The transcript stays well formed (the seq renumbered), so only what it says can fail it."""
    example = copy.deepcopy(_line("pd", "oracle"))
    kept = [e for e in example["transcript"]
            if e["event"] != "assistant_message" and e.get("tool") != "respond_to_customer"]
    example["transcript"] = [dict(e, seq=i) for i, e in enumerate(kept, start=1)]
    now = rescore(example, catalog_path)
    assert now["verdict"] == "scored"
    assert now["is_correct"] is False and example["reward"]["is_correct"] is True


def test_an_example_whose_cart_was_emptied_does_not_rescore_to_its_reward(catalog_path: Path) -> None:
    example = copy.deepcopy(_line("cart", "oracle"))
    assert example["world"]["cart"], "the cart oracle fills the cart"
    example["world"]["cart"] = []
    now = rescore(example, catalog_path)
    assert now["verdict"] == "scored" and now["is_correct"] is False


def test_an_example_whose_stored_reward_was_changed_does_not_rescore_to_it(catalog_path: Path) -> None:
    example = copy.deepcopy(_line("pd", "greedy"))
    example["reward"]["total"] = round(example["reward"]["total"] + 0.01, 6)
    assert rescore(example, catalog_path) != example["reward"]


def test_an_example_recorded_on_another_catalog_is_refused_by_name(catalog_path: Path) -> None:
    example = copy.deepcopy(_line("pd", "oracle"))
    example["catalog"]["content_hash"] = "0" * 64
    with pytest.raises(ExampleError, match="recorded on catalog"):
        rescore(example, catalog_path)


def test_a_line_that_is_no_example_is_refused_by_name(catalog_path: Path) -> None:
    example = copy.deepcopy(_line("pd", "oracle"))
    del example["world"]
    with pytest.raises(ExampleError, match="not an example line"):
        rescore(example, catalog_path)


def test_recording_an_example_again_gives_its_committed_bytes(catalog_path: Path, tmp_path: Path) -> None:
    """Played again through the in-memory server (another episode id, seal key, clock and runs
    folder), the committed line comes out byte for byte."""
    spec = get_env("pd")
    committed = examples_path(spec).read_text(encoding="utf-8").splitlines()[0]
    example = json.loads(committed)
    play = Play(example["agent"], example["difficulty"], example["seed"])
    assert dumps(record_one(spec, play, catalog_path, tmp_path)) == committed, (
        "the episode plays differently now: if on purpose, `make examples` and commit the files")


def test_the_check_command_rescores_the_committed_examples(catalog_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "verishop.envs.examples", "--env", "status", "--catalog",
                           str(catalog_path)], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every example re-scores to its stored reward" in done.stdout
