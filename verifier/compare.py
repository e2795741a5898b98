"""Re-scoring stored episodes and saying what changed and why (`verishop verify --compare`).

Each episode is scored again from its files, without writing, and its new reward set beside
the stored reward.json. A verdict, a solved flag or a total that differs is a change; its
cause comes from the two manifests: a different environment id, reward schema, verifier
version, catalog content or scenario names what moved. Two equal manifests and different
results mean the same inputs scored twice gave two answers: a verifier bug, and said so.

This is how results cross versions: re-score an old run with the new verifier, read the
list, and either accept it (run `verishop verify` without --compare to write the new
rewards) or hold the upgrade.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verishop.verifier.errors import Incomplete
from verishop.verifier.files import REWARD_FILE
from verishop.verifier.models import Manifest, Reward
from verishop.verifier.safeio import Limits, episode_folder, read_regular

TOTAL_TOLERANCE = 1e-9
MANIFEST_FIELDS = {"env_id": "environment id", "reward_schema_version": "reward schema",
                   "verifier_version": "verifier version", "catalog_content_hash": "catalog content hash",
                   "scenario_digest": "scenario digest"}


@dataclass(frozen=True)
class Change:
    episode_id: str
    what: list[str]  # "verdict scored → incomplete", "total +0.812 → -0.100", ...
    why: str
    bug: bool  # same inputs, different result


def stored_reward(directory: Path, limits: Limits = Limits()) -> dict[str, Any] | None:
    """The reward.json an episode holds, or None when it has none that reads as a JSON object."""
    try:
        with episode_folder(directory) as dir_fd:
            raw = read_regular(REWARD_FILE, "reward", limits.scenario_bytes, dir_fd)
        data = json.loads(raw)
    except (Incomplete, OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def _short(value: object) -> str:
    text = "none" if value is None else str(value)
    return text[:12] + "…" if len(text) > 16 else text


def _total(value: object) -> str:
    return f"{value:+.3f}" if isinstance(value, int | float) else "none"


def differences(old: dict[str, Any], new: Reward) -> list[str]:
    """What differs between a stored reward and a new one, in words (empty: the same result)."""
    found = []
    if old.get("verdict") != new.verdict:
        found.append(f"verdict {old.get('verdict')} → {new.verdict}")
    if old.get("is_correct") != new.is_correct:
        found.append(f"solved {old.get('is_correct')} → {new.is_correct}")
    old_total, new_total = old.get("total"), new.total
    if (old_total is None) != (new_total is None) or (
            old_total is not None and new_total is not None and abs(float(old_total) - new_total) > TOTAL_TOLERANCE):
        found.append(f"total {_total(old_total)} → {_total(new_total)}")
    if old.get("hard_fail") != new.hard_fail:
        found.append(f"hard fail {old.get('hard_fail')!r} → {new.hard_fail!r}")
    return found


def cause(old: dict[str, Any], new: Reward) -> tuple[str, bool]:
    """Why a result changed, from the two manifests; (reason, is it a bug)."""
    if new.verdict != "scored" and new.reason:
        prefix = f"now incomplete ({new.reason}: {new.detail}); "
    else:
        prefix = ""
    raw = old.get("manifest")
    if not isinstance(raw, dict):
        return prefix + "the stored reward has no manifest (written before manifests): its inputs are unknown", False
    try:
        before = Manifest.model_validate(raw)
    except ValueError:
        return prefix + "the stored reward's manifest cannot be read", False
    after = new.manifest or Manifest()
    moved = [f"{label} {_short(getattr(before, key))} → {_short(getattr(after, key))}"
             for key, label in MANIFEST_FIELDS.items() if getattr(before, key) != getattr(after, key)]
    if moved:
        return prefix + "; ".join(moved), False
    return prefix + "same inputs (equal manifests), different result: a verifier bug", not prefix


def compare(directories: Iterable[Path], rewards: Iterable[Reward]) -> tuple[list[Change], int]:
    """The changes between each directory's stored reward and its new one, and how many
    episodes had no stored reward (each is listed as a change too)."""
    changes, unscored = [], 0
    for directory, new in zip(directories, rewards, strict=True):
        old = stored_reward(directory)
        if old is None:
            unscored += 1
            changes.append(Change(new.episode_id, [f"verdict none → {new.verdict}"],
                                  "no stored reward.json to compare with", False))
            continue
        what = differences(old, new)
        if what:
            why, bug = cause(old, new)
            changes.append(Change(new.episode_id, what, why, bug))
    return changes, unscored


def print_changes(changes: list[Change], episodes: int) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:
        console = Console(width=200)
    if changes:
        table = Table(title="Changed on re-scoring")
        for column in ("episode", "changed", "why"):
            table.add_column(column, no_wrap=column == "episode")
        for change in changes:
            table.add_row(change.episode_id, "; ".join(change.what), ("BUG: " if change.bug else "") + change.why)
        console.print(table)
    bugs = sum(c.bug for c in changes)
    console.print(f"{episodes} episodes re-scored: {episodes - len(changes)} unchanged, {len(changes)} changed"
                  + (f", {bugs} with the same inputs (verifier bugs)" if bugs else ""), markup=False,
                  highlight=False)
