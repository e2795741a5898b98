"""pass^k, the reliability metric of tau-bench: the probability that all k trials of a task
succeed, estimated per task from n trials with c successes as C(c, k) / C(n, k) (unbiased, unlike
(c/n)^k) and averaged over tasks. A task is one (env_id, difficulty, seed); its trials are the
rewards that share it. pass^1 is the plain solved share."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from math import comb
from typing import Any

Task = tuple[str, Any, Any]


def pass_hat_k(n: int, c: int, k: int) -> float:
    """C(c, k) / C(n, k): k trials drawn without replacement from n all succeed."""
    if not 0 <= c <= n or not 1 <= k <= n:
        raise ValueError(f"need 0 <= c <= n and 1 <= k <= n, got n={n} c={c} k={k}")
    return comb(c, k) / comb(n, k)


def trials_by_task(rewards: Iterable[dict[str, Any]]) -> dict[Task, list[bool]]:
    """Each task's outcomes; an episode that was not scored counts as a failed trial."""
    tasks: dict[Task, list[bool]] = defaultdict(list)
    for r in rewards:
        tasks[(r.get("env_id", "?"), r.get("difficulty", "?"), r.get("seed", "?"))].append(
            r.get("verdict") == "scored" and bool(r.get("is_correct")))
    return dict(tasks)


def pass_k(rewards: Iterable[dict[str, Any]], k: int) -> float | None:
    """pass^k averaged over the tasks with at least k trials (None when there is none)."""
    estimates = [pass_hat_k(len(outcomes), sum(outcomes), k)
                 for outcomes in trials_by_task(rewards).values() if len(outcomes) >= k]
    return round(sum(estimates) / len(estimates), 4) if estimates else None


def max_trials(rewards: Iterable[dict[str, Any]]) -> int:
    """The fewest trials any task has: the largest k that every task can estimate."""
    counts = [len(outcomes) for outcomes in trials_by_task(rewards).values()]
    return min(counts) if counts else 0


def pass_k_rows(rewards: list[dict[str, Any]], ks: Iterable[int] | None = None) -> list[dict[str, Any]]:
    """One row per (environment, difficulty) plus an "all" row per environment and an overall
    row: tasks, trials per task and pass^k for each k (1 .. the fewest trials, unless `ks`)."""
    groups: dict[tuple[str, Any], list[dict]] = defaultdict(list)
    for r in rewards:
        env = r.get("env_id", "?")
        groups[(env, r.get("difficulty", "?"))].append(r)
        groups[(env, "all")].append(r)
    groups[("all", "all")] = list(rewards)
    chosen = tuple(ks) if ks is not None else tuple(range(1, max_trials(rewards) + 1))
    rows = []
    for (env, difficulty), items in sorted(groups.items(), key=_group_order):
        tasks = trials_by_task(items)
        rows.append({"env_id": env, "difficulty": difficulty, "tasks": len(tasks),
                     "trials": max_trials(items), **{f"pass^{k}": pass_k(items, k) for k in chosen}})
    return rows


def _group_order(item: tuple[tuple[str, Any], list]) -> tuple:
    env, difficulty = item[0]
    return (env == "all", env, difficulty == "all", difficulty if isinstance(difficulty, int) else 0)
