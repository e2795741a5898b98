"""The adaptive curriculum (reference §5): one difficulty window per environment.

Each environment keeps a window [low, high], starting at [0, 0]; an episode's difficulty is
drawn uniformly from it. Only episodes played at the window's top (d = high) count: after
`episodes_per_check` of them, the window moves up one level if the solved share reached
`threshold` (dropping its bottom so it never spans more than `max_width` levels), and the
counters start again either way. There is no demotion: training always sits at the edge of
what the agent can do, and a bad streak only delays the next step.

Pure functions over frozen values; persistence lives in `scenarios/curriculum_store.py`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from verishop.scenarios.difficulty import MAX_DIFFICULTY


@dataclass(frozen=True)
class Params:
    episodes_per_check: int = 32
    threshold: float = 0.9
    max_width: int = 5
    max_level: int = MAX_DIFFICULTY

    def __post_init__(self) -> None:
        if self.episodes_per_check < 1:
            raise ValueError(f"episodes_per_check must be at least 1, got {self.episodes_per_check}")
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be between 0 and 1, got {self.threshold}")
        if self.max_width < 1:
            raise ValueError(f"max_width must be at least 1, got {self.max_width}")
        if not 0 <= self.max_level <= MAX_DIFFICULTY:
            raise ValueError(f"max_level must be between 0 and {MAX_DIFFICULTY}, got {self.max_level}")


@dataclass(frozen=True)
class Window:
    """A window and the counters of the current check (episodes at d = high, solved ones)."""

    low: int = 0
    high: int = 0
    attempts: int = 0
    solved: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.low <= self.high <= MAX_DIFFICULTY:
            raise ValueError(f"a window needs 0 <= low <= high <= {MAX_DIFFICULTY}, got [{self.low}, {self.high}]")
        if not 0 <= self.solved <= self.attempts:
            raise ValueError(f"a window needs 0 <= solved <= attempts, got {self.solved}/{self.attempts}")


def record(window: Window, difficulty: int, solved: bool, params: Params = Params()) -> Window:
    """The window after one scored episode at `difficulty`."""
    if difficulty != window.high:
        return window  # easier episodes keep the agent sharp but say nothing about the edge
    attempts, wins = window.attempts + 1, window.solved + int(solved)
    if attempts < params.episodes_per_check:
        return replace(window, attempts=attempts, solved=wins)
    high = window.high
    if wins / attempts >= params.threshold and high < params.max_level:
        high += 1
    low = max(window.low, high - params.max_width + 1)
    return Window(low=low, high=high)


def sample(window: Window, rng: random.Random) -> int:
    """A difficulty drawn uniformly from the window."""
    return rng.randint(window.low, window.high)


def choose(env_ids: Sequence[str], windows: Mapping[str, Window], rng: random.Random) -> tuple[str, int]:
    """An environment drawn uniformly from `env_ids` and a difficulty from its window."""
    if not env_ids:
        raise ValueError("no environment to choose from")
    env_id = env_ids[rng.randrange(len(env_ids))]
    return env_id, sample(windows.get(env_id, Window()), rng)
