"""The determinism certificate of a run with repeated trials: does the shop itself vary?

A task (env_id, difficulty, seed) played several times must get the same scenario every time
(its digest, `scenario_sha256` in the transcript's opening event) and the same opening message;
and as long as the agent does exactly the same things (the same tool calls with the same
arguments, in the same order), the customer must answer exactly the same. Where the agents'
moves part, the customer may rightly answer differently, so the comparison stops there. Any
difference before that point is the environment's own variance: a bug, since a flip in
verdict could then be the shop's doing rather than the agent's (tau2-bench's retail tasks flip
33-55% of the time between identical runs). With no variance, every flip is the agent's.

Read from the run folder's transcripts alone, like the report.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TRANSCRIPT = "transcript.jsonl"
MAX_TRANSCRIPT_BYTES = 64 << 20  # far above any played episode; a larger file is not read


@dataclass(frozen=True)
class Trial:
    episode_id: str
    task: tuple[str, int, int]
    scenario_digest: str | None
    opening: str | None
    moves: list[tuple[str, str]]  # (tool, canonical arguments) in order
    replies: list[str | None]  # the customer's answer to each move (None for other tools)


@dataclass
class Certificate:
    tasks: int = 0  # tasks played at least twice
    trials: int = 0  # episodes of those tasks
    replies_compared: int = 0  # customer replies checked against the first trial's
    differences: list[str] = field(default_factory=list)

    @property
    def deterministic(self) -> bool:
        return self.tasks > 0 and not self.differences

    def as_json(self) -> dict[str, Any]:
        return {"tasks": self.tasks, "trials": self.trials, "replies_compared": self.replies_compared,
                "environment_differences": len(self.differences), "deterministic": self.deterministic,
                "examples": self.differences[:10]}

    def line(self) -> str:
        if self.tasks == 0:
            return "determinism certificate: no task was played twice (use --trials 2 or more)"
        if self.deterministic:
            return (f"determinism certificate: {self.tasks} tasks × {self.trials // self.tasks} trials, the same "
                    f"scenario digest and opening in every trial, {self.replies_compared} customer replies to "
                    f"identical moves identical; every verdict flip is the agent's")
        return (f"determinism certificate FAILED: {len(self.differences)} environment difference(s) over "
                f"{self.tasks} tasks, e.g. {self.differences[0]}")


def read_trial(episode_dir: Path) -> Trial | None:
    """The trial an episode folder holds, or None when its transcript cannot be read."""
    path = episode_dir / TRANSCRIPT
    try:
        if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_TRANSCRIPT_BYTES:
            return None
        events = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    except (OSError, ValueError):
        return None
    opened = next((e for e in events if e.get("event") == "episode_opened"), None)
    if opened is None:
        return None
    opening = next((e.get("text") for e in events if e.get("event") == "customer_message"), None)
    moves, replies = [], []
    for e in events:
        if e.get("event") != "tool_call":
            continue
        moves.append((str(e.get("tool")), json.dumps(e.get("arguments"), sort_keys=True)))
        result = e.get("result")
        replies.append(result.get("customer_message") if isinstance(result, dict) and
                       e.get("tool") == "respond_to_customer" else None)
    task = (str(opened.get("env_id")), opened.get("difficulty"), opened.get("seed"))
    return Trial(episode_dir.name, task, opened.get("scenario_sha256"), opening, moves, replies)


def certify(run_root: Path) -> Certificate:
    """Compare every trial of each task with its first trial (episode folders in name order)."""
    by_task: dict[tuple[str, int, int], list[Trial]] = defaultdict(list)
    for episode_dir in sorted(p for p in run_root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        trial = read_trial(episode_dir)
        if trial is not None:
            by_task[trial.task].append(trial)
    certificate = Certificate()
    for task, trials in sorted(by_task.items(), key=lambda kv: str(kv[0])):
        if len(trials) < 2:
            continue
        certificate.tasks += 1
        certificate.trials += len(trials)
        first = trials[0]
        for other in trials[1:]:
            _compare(certificate, task, first, other)
    return certificate


def _compare(certificate: Certificate, task: tuple[str, int, int], first: Trial, other: Trial) -> None:
    name = f"{task[0]} d={task[1]} seed={task[2]}: {first.episode_id} vs {other.episode_id}"
    if first.scenario_digest != other.scenario_digest:
        certificate.differences.append(f"{name}: scenario digests differ")
        return
    if first.opening != other.opening:
        certificate.differences.append(f"{name}: opening messages differ")
        return
    for index, (move_a, move_b) in enumerate(zip(first.moves, other.moves)):
        if move_a != move_b:
            return  # the agents parted; from here the customer may rightly differ
        if first.replies[index] is None and other.replies[index] is None:
            continue
        certificate.replies_compared += 1
        if first.replies[index] != other.replies[index]:
            certificate.differences.append(f"{name}: the customer answered move {index + 1} ({move_a[0]}) "
                                           f"differently")
            return
