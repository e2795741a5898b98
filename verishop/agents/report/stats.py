"""The numbers behind the report: per environment and difficulty (the same summary rows as
`verishop eval`), the checks that fail most, failed requirements by source, pass^k when tasks
were tried several times."""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from verishop.agents.eval_output import trial_outputs
from verishop.agents.evaluate import summarize
from verishop.agents.passk import max_trials, pass_k_rows
from verishop.agents.report.load import EpisodeRecord, Run

_REQUEST_PART = re.compile(r"^request \d+ · ")
_REQUEST = re.compile(r"^request \d+: ")
_ITEM = re.compile(r"^(item)(?:_\d+|: .*)$", re.DOTALL)


def check_family(name: str) -> str:
    """Check names that differ only by a position, a request number or a product title are one
    family ('item_3', 'request 2 · item: Foo Lamp' -> 'item')."""
    name = _REQUEST_PART.sub("", name)
    name = _REQUEST.sub("request: ", name)
    return _ITEM.sub(r"\1", name)


@dataclass
class FailingCheck:
    env_id: str
    family: str
    failed: int  # episodes in which at least one check of the family failed
    episodes: int  # episodes of the environment
    example: EpisodeRecord


def failing_checks(run: Run, limit: int = 8) -> list[FailingCheck]:
    """The check families that fail in the most episodes, per environment."""
    per_env: dict[str, list[EpisodeRecord]] = defaultdict(list)
    for episode in run.episodes:
        per_env[str(episode.reward.get("env_id"))].append(episode)
    found: list[FailingCheck] = []
    for env_id, episodes in sorted(per_env.items()):
        counts: Counter[str] = Counter()
        examples: dict[str, EpisodeRecord] = {}
        for episode in episodes:
            families = {check_family(str(c.get("name", "?"))) for c in _checks(episode) if c.get("passed") is False}
            counts.update(families)
            for family in families:
                examples.setdefault(family, episode)
        found += [FailingCheck(env_id, family, n, len(episodes), examples[family])
                  for family, n in counts.most_common(limit)]
    return found


def _checks(episode: EpisodeRecord) -> list[dict[str, Any]]:
    breakdown = episode.reward.get("breakdown")
    return [c for c in breakdown if isinstance(c, dict)] if isinstance(breakdown, list) else []


SOURCES = ("stated", "revealed", "withheld", "shop")


@dataclass
class BySource:
    """Failed requirements of one environment in one run, counted by where they came from
    (EComAgentBench's view), and how many were charged to the customer or the world (a bug)."""

    env_id: str
    episodes: int
    counts: dict[str, int]
    not_agent: int


def failed_by_source(run: Run) -> dict[str, BySource]:
    """Per environment: each distinct failed requirement of each episode (reward.json's
    `failed_requirements`; a reward written before it existed counts nothing)."""
    found: dict[str, BySource] = {}
    for episode in run.episodes:
        env_id = str(episode.reward.get("env_id"))
        row = found.setdefault(env_id, BySource(env_id, 0, dict.fromkeys(SOURCES, 0), 0))
        row.episodes += 1
        failed = episode.reward.get("failed_requirements")
        for f in failed if isinstance(failed, list) else []:
            if isinstance(f, dict) and f.get("source") in row.counts:
                row.counts[f["source"]] += 1
                row.not_agent += f.get("actor") != "agent"
    return found


def summary_rows(run: Run) -> list[dict[str, Any]]:
    """`verishop eval`'s rows; an episode whose difficulty cannot be read (no opening event, no
    scenario) is listed at d = -1 rather than breaking the ordering."""
    return summarize([r if isinstance(r.get("difficulty"), int) else {**r, "difficulty": -1} for r in run.rewards])


def overall(run: Run) -> dict[str, Any]:
    rewards = run.rewards
    scored = [r for r in rewards if r.get("verdict") == "scored"]
    totals = [r["total"] for r in scored if isinstance(r.get("total"), int | float)]
    return {"episodes": len(rewards), "scored": len(scored),
            "solved_share": sum(e.solved for e in run.episodes) / len(rewards) if rewards else 0.0,
            "total": sum(totals) / len(totals) if totals else None, "trials": max_trials(rewards)}


def pass_k_table(run: Run) -> list[dict[str, Any]]:
    """pass^k rows when every task was tried at least twice, else nothing."""
    return pass_k_rows(run.rewards) if max_trials(run.rewards) > 1 else []


def by_env(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Summary rows per environment, the per-difficulty rows in order, "all" last."""
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[row["env_id"]].append(row)
    return dict(grouped)


def run_summary(run: Run) -> dict[str, Any]:
    """What `verishop report --json` prints for one run: the summary rows with their intervals
    and, when tasks were tried several times, flip rates and the determinism certificate."""
    summary: dict[str, Any] = {"label": run.label, "run_dir": str(run.path), "rows": summary_rows(run)}
    if max_trials(run.rewards) > 1:
        summary.update(trial_outputs(run.rewards, run.path))
    return summary
