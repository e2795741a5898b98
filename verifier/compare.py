"""Re-scoring stored episodes and saying what changed and why (`verishop verify --compare`).

Each episode is scored again from its files, without writing, and its new reward set beside
the stored reward.json. A verdict, a solved flag or a total that differs is a change; its
cause comes from the two manifests: a different environment id, reward schema, verifier
version, catalog content or scenario names what moved. Two equal manifests and different
results mean the same inputs scored twice gave two answers: a verifier bug, and said so.

This is how results cross versions: re-score an old run with the new verifier, read the
list, and either accept it (run `verishop verify` without --compare to write the new
rewards) or hold the upgrade.

A stored reward is not evidence of anything by itself: whoever edits an episode can re-verify
it, and then stored and new rewards agree. So the seal is checked too (verifier.seal): every
episode whose sealed files changed after close is listed as modified after close whatever its
reward.json says, and a changed result with intact seals and a moved manifest is a verifier
change. Every episode gets its line: a stored reward.json that does not read as a reward, and an
episode folder that is a link (never read through), are listed as such and the batch goes on.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verishop.verifier.errors import Incomplete
from verishop.verifier.files import REWARD_FILE
from verishop.verifier.models import Manifest, Reward
from verishop.verifier.safeio import Limits, episode_folder, read_regular
from verishop.verifier.seal import KEY_MISSING, MODIFIED

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
    # modified_after_close, seal_key_missing, verifier_change, verifier_bug, unreadable_reward,
    # no_reward, refused_link, or changed (an unsealed episode's other changes)
    kind: str = "changed"


class UnreadableReward(ValueError):
    """A stored reward.json that is there but cannot be compared (not JSON, wrong types)."""


# What a stored reward must hold, by field, to be compared with a new one.
_STORED_TYPES = {"verdict": (str, type(None)), "is_correct": (bool, type(None)), "total": (int, float, type(None)),
                 "hard_fail": (str, type(None))}


def stored_reward(directory: Path, limits: Limits = Limits()) -> dict[str, Any] | None:
    """The reward.json an episode holds, or None when it has none. Raises UnreadableReward for one
    that is there but does not read as a reward (not JSON, not an object, a field of the wrong
    type such as a total of "abc"), so the batch lists it and goes on."""
    try:
        with episode_folder(directory) as dir_fd:
            raw = read_regular(REWARD_FILE, "reward", limits.scenario_bytes, dir_fd)
    except Incomplete as exc:
        if exc.reason in ("reward_missing", "episode_missing"):
            return None
        raise UnreadableReward(exc.detail) from None
    except OSError as exc:
        raise UnreadableReward(f"reward.json cannot be read: {exc.strerror}") from None
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise UnreadableReward(f"reward.json is not JSON: {str(exc)[:80]}") from None
    if not isinstance(data, dict):
        raise UnreadableReward(f"reward.json holds a JSON {type(data).__name__}, not a reward object")
    for key, types in _STORED_TYPES.items():
        value = data.get(key)
        if not isinstance(value, types) or (isinstance(value, float) and not math.isfinite(value)):
            raise UnreadableReward(f"reward.json's {key} is {_short(repr(value))}, not a "
                                   f"{'number' if key == 'total' else 'valid value'}")
    return data


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


SEAL_NOTES = {"intact": " (seals intact: no file changed since close)",
              "unsealed": " (unsealed: recorded before sealing, so tampering cannot be ruled out)"}


def cause(old: dict[str, Any], new: Reward) -> tuple[str, str]:
    """Why a result changed, from the two manifests and the seal: (reason, kind), the kind being
    verifier_change (a moved input, seals intact), verifier_bug (equal manifests) or changed."""
    if new.verdict != "scored" and new.reason:
        prefix = f"now incomplete ({new.reason}: {new.detail}); "
    else:
        prefix = ""
    note = SEAL_NOTES.get(new.seal or "", "")
    raw = old.get("manifest")
    if not isinstance(raw, dict):
        return (prefix + "the stored reward has no manifest (written before manifests): its inputs are unknown"
                + note, "changed")
    try:
        before = Manifest.model_validate(raw)
    except ValueError:
        return prefix + "the stored reward's manifest cannot be read" + note, "changed"
    after = new.manifest or Manifest()
    moved = [f"{label} {_short(getattr(before, key))} → {_short(getattr(after, key))}"
             for key, label in MANIFEST_FIELDS.items() if getattr(before, key) != getattr(after, key)]
    if moved:
        return prefix + "; ".join(moved) + note, "verifier_change" if new.seal == "intact" else "changed"
    why = prefix + "same inputs (equal manifests), different result: a verifier bug" + note
    return why, "verifier_bug" if new.verdict == "scored" else "changed"


def compare(directories: Iterable[Path], rewards: Iterable[Reward]) -> tuple[list[Change], int]:
    """The changes between each directory's stored reward and its new one, and how many
    episodes had no stored reward (each is listed as a change too). Whatever the stored reward,
    every episode whose files were modified after close, or whose seal cannot be checked, is
    listed: re-verifying an edited episode rewrites its reward.json, so only the seal tells."""
    changes, unscored = [], 0
    for directory, new in zip(directories, rewards, strict=True):
        found = _compare_one(directory, new)
        changes.extend(found)
        unscored += any(c.kind == "no_reward" for c in found)
    return changes, unscored


def _compare_one(directory: Path, new: Reward) -> list[Change]:
    if os.path.islink(directory):
        return [Change(new.episode_id, ["refused: the episode folder is a link"],
                       f"{directory.name} links to {_short(os.readlink(directory))}: episodes are compared in "
                       f"their own folders only, never through a link", False, "refused_link")]
    if new.reason in (MODIFIED, KEY_MISSING):
        label = "modified after close" if new.reason == MODIFIED else "seal not checked"
        return [Change(new.episode_id, [label], new.detail or new.reason, False, new.reason)]
    try:
        old = stored_reward(directory)
    except UnreadableReward as exc:
        return [Change(new.episode_id, [f"stored reward unreadable → verdict {new.verdict}"], str(exc), False,
                       "unreadable_reward")]
    if old is None:
        return [Change(new.episode_id, [f"verdict none → {new.verdict}"], "no stored reward.json to compare with",
                       False, "no_reward")]
    what = differences(old, new)
    if not what:
        return []
    why, kind = cause(old, new)
    return [Change(new.episode_id, what, why, kind == "verifier_bug", kind)]


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
            label = "BUG: " if change.bug else "TAMPERED: " if change.kind == MODIFIED else ""
            table.add_row(change.episode_id, "; ".join(change.what), label + change.why)
        console.print(table)
    bugs = sum(c.bug for c in changes)
    modified = sum(c.kind == MODIFIED for c in changes)
    console.print(f"{episodes} episodes re-scored: {episodes - len(changes)} unchanged, {len(changes)} changed"
                  + (f", {modified} modified after close (tampered)" if modified else "")
                  + (f", {bugs} with the same inputs (verifier bugs)" if bugs else ""), markup=False,
                  highlight=False)
