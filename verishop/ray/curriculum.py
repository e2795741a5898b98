"""The one curriculum of a Ray cluster: a named, detached actor over `CurriculumStore`.

Its state is the store's SQLite file on the node the actor is pinned to (the driver's node when
the cluster starts), so a restart (Ray restarts it without limit) reopens the file and goes on
with every window and counter it had. Every node's verifier records its scored episodes here;
`record` is keyed by episode id, so a delivery repeated after a restart (Ray retries calls to a
restarting actor, and a server replays its rewards when it starts) never counts twice.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ray
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from verishop.scenarios.curriculum_store import CurriculumStore
from verishop.scenarios.envs import REGISTRY
from verishop.scenarios.rng import make_rng
from verishop.scenarios.splits import SplitError, secret_from_env, split_seed

CURRICULUM_NAME = "verishop-curriculum"


@dataclass(frozen=True)
class Scored:
    """One scored episode, as the verifier saw it."""

    episode_id: str
    env_id: str
    difficulty: int
    solved: bool
    seed: int


class CurriculumActor:
    """Chooses (environment, difficulty) for new episodes and counts scored ones."""

    def __init__(self, path: str, params: dict[str, float | None] | None = None):
        self.store = CurriculumStore(Path(path))
        if params:
            self.store.set_params(**params)

    def choose(self, candidates: tuple[str, ...], seed: int | None,
               split: str | None = None) -> tuple[str, int, tuple[int, int]]:
        """An environment from `candidates` and a difficulty from its window (seeded as
        `POST /episodes` seeds it), and the window it came from. The assignment is recorded
        with the scenario's seed (a split's index mapped as the server maps it): only episodes
        the curriculum assigned count, each (env, d, seed) once."""
        seed = seed if seed is not None else secrets.randbelow(2**31)
        env_id, difficulty, window = self.store.choose(candidates, make_rng("curriculum", candidates, seed))
        try:
            scenario_seed = seed if split is None else split_seed(split, env_id, difficulty, seed, secret_from_env())
        except SplitError:
            scenario_seed = None  # the server refuses this request too (no secret for the test split)
        if scenario_seed is not None:
            self.store.assign(env_id, difficulty, scenario_seed)
        return env_id, difficulty, (window.low, window.high)

    def record(self, episodes: list[Scored]) -> int:
        """Count scored episodes; how many were new (the rest had been recorded before)."""
        return sum(self.store.record(e.episode_id, e.env_id, e.difficulty, e.solved, seed=e.seed) is not None
                   for e in episodes)

    def snapshot(self) -> dict[str, Any]:
        """Parameters, windows and counters of every environment (as GET /curriculum)."""
        return self.store.snapshot(tuple(REGISTRY))

    def counts(self) -> dict[str, int]:
        """Episodes recorded per environment (those with any)."""
        return {w["env_id"]: w["episodes"] for w in self.snapshot()["windows"] if w["episodes"]}


def start_curriculum(path: Path, node_id: str, namespace: str,
                     params: dict[str, float | None] | None = None) -> ray.actor.ActorHandle:
    """The curriculum actor, created pinned to `node_id` (where `path` lives), or the running one."""
    return ray.remote(CurriculumActor).options(
        name=CURRICULUM_NAME, namespace=namespace, get_if_exists=True, lifetime="detached",
        max_restarts=-1, max_task_retries=-1, num_cpus=0,
        scheduling_strategy=NodeAffinitySchedulingStrategy(node_id, soft=False),
    ).remote(str(path), params)


def curriculum_actor(namespace: str) -> ray.actor.ActorHandle:
    return ray.get_actor(CURRICULUM_NAME, namespace=namespace)
