"""Outputs that never name a test-split seed (issue 37): with the public generator a seed is
the hidden goal, so JUnit, the report, eval's output and its error lines show the episode's
index in the split instead ("test #7", scenarios.splits.seed_label).

`verishop eval --split` writes `<run>/split.json`, each seed's index, so that the outputs made
later from the run folder (the report, JUnit) can still name the index. The run folder itself is
the operator's: it holds every scenario.json (the goal) for the verifier, so it holds the seeds
too. `scenarios.splits.redact_seeds` is the net under every printed text: any integer that is a test-split seed becomes
its label, wherever it came from (an exception's message, a transcript line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from verishop.scenarios.splits import is_sealed, redact_seeds, seed_label

INDEX_FILE = "split.json"


def write_split_index(run_root: Path, split: str | None, seeds_by_index: dict[int, int]) -> None:
    """Record which index of `split` each seed is (nothing without a split)."""
    if split is None:
        return
    table = {str(seed): index for seed, index in seeds_by_index.items()}
    (run_root / INDEX_FILE).write_text(json.dumps({"split": split, "index_of_seed": table}, indent=1) + "\n")


def read_split_index(run_root: Path) -> dict[int, int]:
    """Seed -> index in its split, as eval recorded it; empty when there is none (or it is unreadable)."""
    try:
        table = json.loads((run_root / INDEX_FILE).read_text())["index_of_seed"]
        return {int(seed): int(index) for seed, index in table.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def shown_seed(seed: object, indices: dict[int, int] | None = None) -> object:
    """An episode's seed as outputs show it (scenarios.splits.seed_label)."""
    return seed_label(seed, (indices or {}).get(seed) if isinstance(seed, int) else None)


def redact_json(value: Any, indices: dict[int, int] | None = None) -> Any:
    """`redact_seeds` through a JSON-like value: a sealed seed (as a number or inside a string) becomes its label."""
    if isinstance(value, dict):
        return {k: redact_json(v, indices) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_json(v, indices) for v in value]
    if isinstance(value, str):
        return redact_seeds(value, indices)
    return shown_seed(value, indices) if is_sealed(value) else value
