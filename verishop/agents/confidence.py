"""How sure a summary is: a 95% Wilson interval for a solved share, a seeded bootstrap interval
for a mean total, and the flip rate of tasks tried several times.

Wilson rather than the normal approximation because evaluation runs are small (20 episodes
per environment) and shares sit near 0 or 1, where p ± 1.96·sqrt(p(1-p)/n) leaves [0, 1] or
collapses to a point. The bootstrap resamples with its own seeded generator, so the same
rewards always give the same interval (a summary must be reproducible byte for byte).
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from typing import Any

Z_95 = 1.959963984540054  # the 97.5th percentile of the standard normal
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0
DIGITS = 4


def wilson_interval(successes: int, n: int, z: float = Z_95) -> tuple[float, float] | None:
    """The Wilson score interval of `successes` out of `n` (None when n is 0)."""
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes} n={n}")
    if n == 0:
        return None
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return round(max(0.0, centre - half), DIGITS), round(min(1.0, centre + half), DIGITS)


def bootstrap_mean_interval(values: Sequence[float], *, seed: int = BOOTSTRAP_SEED,
                            resamples: int = BOOTSTRAP_RESAMPLES,
                            level: float = 0.95) -> tuple[float, float] | None:
    """The percentile bootstrap interval of the mean of `values` (None when there are none).
    Deterministic: the resampling generator is seeded with `seed`."""
    if resamples < 1 or not 0 < level < 1:
        raise ValueError(f"need resamples >= 1 and 0 < level < 1, got {resamples} and {level}")
    data = [float(v) for v in values]
    if not data:
        return None
    n = len(data)
    rng = random.Random(seed)
    means = sorted(sum(rng.choices(data, k=n)) / n for _ in range(resamples))
    tail = (1 - level) / 2
    low = means[max(0, math.floor(tail * resamples))]
    high = means[min(resamples - 1, math.ceil((1 - tail) * resamples) - 1)]
    return round(low, DIGITS), round(high, DIGITS)


def solved(reward: dict[str, Any]) -> bool:
    return reward.get("verdict") == "scored" and bool(reward.get("is_correct"))


def flip_rates(rewards: Iterable[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per environment: among its tasks (env, difficulty, seed) tried at least twice, the share
    whose verdict differs between trials. With a deterministic shop and a deterministic agent
    this is 0; above 0 it measures the agent's own randomness."""
    tasks: dict[tuple[Any, Any, Any], list[bool]] = defaultdict(list)
    for r in rewards:
        tasks[(r.get("env_id", "?"), r.get("difficulty", "?"), r.get("seed", "?"))].append(solved(r))
    per_env: dict[str, list[bool]] = defaultdict(list)
    for (env, _, _), outcomes in tasks.items():
        if len(outcomes) >= 2:
            per_env[str(env)].append(len(set(outcomes)) > 1)
    return {env: {"tasks": len(flips), "flipped": sum(flips), "flip_rate": round(sum(flips) / len(flips), DIGITS)}
            for env, flips in sorted(per_env.items())}
