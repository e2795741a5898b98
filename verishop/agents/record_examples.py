"""Recording each environment's example rollouts (`verishop.envs.examples`): `make examples`, or
`python -m verishop.agents.record_examples [--env NAME ...]`.

Each example is played through the real in-memory server (the `memory` transport of `verishop
eval`) by a scripted agent on the test catalog (size 4000, seed 3), scored by the verifier, and
written as one line of `verishop/envs/<folder>/examples.jsonl`. Before a file is written, every
line is re-scored from the line alone (`verishop.envs.examples.rescore`) and must earn the reward
the episode earned: what the line leaves out (the clock, the seal, the world's seeded tables)
cannot change a reward. Re-recording gives the same bytes.

Each environment gets `DEFAULT_PLAYS` unless its folder's `__init__.py` names its own
(`EXAMPLE_PLAYS`, tuples of agent, difficulty, seed): an oracle at a low and a high
difficulty (solved) and a goal-blind greedy or null agent at a middle one (unsolved), each a
short episode, so a file stays small (tens of KB).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from verishop.agents.evaluate import Plan, failures, run_memory
from verishop.envs import REGISTRY, EnvSpec, get_env
from verishop.envs.examples import (CATALOG_SEED, CATALOG_SIZE, ExampleError, example_from_episode, materialise,
                                    rescore, world_rows, write_examples)


@dataclass(frozen=True)
class Play:
    agent: str
    difficulty: int
    seed: int


DEFAULT_PLAYS: tuple[Play, ...] = (Play("oracle", 0, 1), Play("greedy", 6, 1), Play("oracle", 12, 1))
def plays_for(spec: EnvSpec) -> tuple[Play, ...]:
    """The folder's `EXAMPLE_PLAYS` (where greedy solves the default's episode, or a long episode
    would make a large file), else the default."""
    own = getattr(importlib.import_module(spec.folder), "EXAMPLE_PLAYS", None)
    return tuple(Play(*play) for play in own) if own else DEFAULT_PLAYS


def record_one(spec: EnvSpec, play: Play, catalog: Path, work: Path) -> dict[str, Any]:
    """Play one example through the in-memory server in a fresh runs folder under `work`, score
    it, and check that its line re-scores to the reward its episode earned."""
    from verishop.verifier.runner import Settings, Verifier

    runs = work / f"{spec.name}-{play.agent}-d{play.difficulty}-s{play.seed}"
    runs.mkdir(parents=True)
    plan = Plan(play.agent, (spec.env_id,), (play.difficulty,), 1, play.seed)
    anyio.run(run_memory, plan, catalog, runs, 1, lambda: None)
    if failed := failures(runs):
        raise ExampleError(f"{spec.env_id} {play}: the episode failed: {failed}")
    (directory,) = [p for p in runs.iterdir() if p.is_dir() and not p.name.startswith(".")]
    with Verifier(Settings(catalog=catalog)) as verifier:
        reward = verifier.score(directory)
    if reward.verdict != "scored" or reward.seal != "intact":
        raise ExampleError(f"{spec.env_id} {play}: {reward.verdict} ({reward.reason}: {reward.detail})")
    example = example_from_episode(directory, agent=play.agent, reward=reward)
    # The line's world, seeded again from its scenario, must be the world the server left.
    made = materialise(example, work / f"{runs.name}-again", catalog)
    if (left := world_rows(directory / "world.db")) != (again_rows := world_rows(made / "world.db")):
        differ = sorted(t for t in left if left[t] != again_rows.get(t))
        raise ExampleError(f"{spec.env_id} {play}: the shop changed world.db's {differ} beyond what an example "
                           f"keeps: add the table to WRITTEN_TABLES in verishop/envs/examples.py")
    again = rescore(example, catalog)
    if again != example["reward"]:
        differ = sorted(k for k in again if again[k] != example["reward"][k])
        raise ExampleError(f"{spec.env_id} {play}: the line re-scores differently from its episode in {differ}")
    return example


def record(spec: EnvSpec, catalog: Path, work: Path) -> list[dict[str, Any]]:
    """Play, score and check `spec`'s examples (`plays_for`); nothing is written."""
    examples = [record_one(spec, play, catalog, work) for play in plays_for(spec)]
    solved = [e["reward"]["is_correct"] for e in examples]
    if True not in solved or False not in solved:
        raise ExampleError(f"{spec.env_id}: its examples must hold a solved and an unsolved episode, got {solved}; "
                           f"choose other plays in EXAMPLE_PLAYS in {spec.folder}/__init__.py")
    return examples


def main(argv: list[str] | None = None) -> int:
    from verishop.scenarios.catalog.cache import catalog_path, ensure_catalog, verishop_home

    parser = argparse.ArgumentParser(prog="python -m verishop.agents.record_examples",
                                     description="Record every registered environment's examples.jsonl.")
    parser.add_argument("--env", action="append", help="an environment's name or id (default: all registered)")
    parser.add_argument("--catalog", type=Path, help="the catalog of size 4000, seed 3 (built in "
                                                     "$VERISHOP_HOME/catalogs if not given)")
    args = parser.parse_args(argv)
    specs = [get_env(name) for name in args.env] if args.env else list(REGISTRY.values())
    catalog = args.catalog or ensure_catalog(catalog_path(verishop_home(), CATALOG_SIZE, CATALOG_SEED),
                                             size=CATALOG_SIZE, seed=CATALOG_SEED)
    with tempfile.TemporaryDirectory(prefix="verishop-examples-") as tmp:
        for spec in specs:
            examples = record(spec, catalog, Path(tmp))
            path = write_examples(spec, examples)
            totals = ", ".join(f"{e['agent']} d{e['difficulty']}: {e['reward']['total']}" for e in examples)
            print(f"{path} ({path.stat().st_size:,} bytes): {totals}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
