"""Reading run folders for the report. Everything here is data from disk that an agent under
test influenced, so it is read tolerantly (a missing reward, an unreadable line, an unknown
field) and rendered later only through escaping."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from verishop.agents.sealed import read_split_index

# A tool result longer than this is cut in the report (a search page can be tens of kB).
MAX_RESULT_CHARS = 6000


@dataclass
class EpisodeRecord:
    directory: Path
    reward: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # The customer's voice its scenario records (issue 35); None before voices.
    voice: str | None = None

    @property
    def episode_id(self) -> str:
        return str(self.reward.get("episode_id") or self.directory.name)

    @property
    def solved(self) -> bool:
        return self.reward.get("verdict") == "scored" and bool(self.reward.get("is_correct"))


@dataclass
class Run:
    label: str
    path: Path
    episodes: list[EpisodeRecord]
    # Episodes the runner could not play (`failures.jsonl`: env_id, difficulty, seed, kind, message).
    failures: list[dict[str, Any]] = field(default_factory=list)
    # Seed -> index in its split (`split.json`): a test-split episode is shown by its index, never its seed.
    split_index: dict[int, int] = field(default_factory=dict)

    @property
    def rewards(self) -> list[dict[str, Any]]:
        return [e.reward for e in self.episodes]


def is_episode_dir(path: Path) -> bool:
    return path.is_dir() and ((path / "transcript.jsonl").is_file() or (path / "scenario.json").is_file())


def load_run(path: Path, label: str | None = None) -> Run:
    """A folder of episode folders (what `verishop eval` writes), or one episode folder."""
    if not path.is_dir():
        raise FileNotFoundError(f"{path} is not a folder")
    if is_episode_dir(path):
        directories = [path]
    else:
        directories = sorted(p for p in path.iterdir() if not p.name.startswith(".") and is_episode_dir(p))
    if not directories:
        raise FileNotFoundError(f"{path} holds no episode folder (one with transcript.jsonl or scenario.json)")
    failures = _read_events(path / "failures.jsonl", []) if (path / "failures.jsonl").is_file() else []
    indices = read_split_index(path) or read_split_index(path.parent)
    return Run(label or path.resolve().name, path, [load_episode(d) for d in directories], failures, indices)


def load_episode(directory: Path) -> EpisodeRecord:
    notes: list[str] = []
    reward = _read_json(directory / "reward.json", notes)
    if not isinstance(reward, dict):
        reward = {"verdict": "missing", "detail": "no reward.json: the episode was not verified"}
    events = _read_events(directory / "transcript.jsonl", notes)
    opened = next((e for e in events if e.get("event") == "episode_opened"), {})
    scenario = _read_json(directory / "scenario.json", [])
    if any(reward.get(key) is None for key in ("env_id", "difficulty", "seed")) and not opened:
        scenario = _read_json(directory / "scenario.json", notes)
    for key in ("env_id", "difficulty", "seed"):
        if reward.get(key) is None:
            reward[key] = opened.get(key, scenario.get(key) if isinstance(scenario, dict) else None)
    reward.setdefault("episode_id", directory.name)
    if reward.get("env_id") is None:
        reward["env_id"] = "?"
    voice = scenario.get("voice") if isinstance(scenario, dict) else None
    return EpisodeRecord(directory, reward, events, notes, voice if isinstance(voice, str) else None)


def _read_json(path: Path, notes: list[str]) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        notes.append(f"{path.name} cannot be read: {exc}")
        return None


def _read_events(path: Path, notes: list[str]) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as exc:
        notes.append(f"{path.name} cannot be read: {exc}")
        return []
    events = []
    for number, line in enumerate(lines, start=1):
        try:
            event = json.loads(line)
        except ValueError:
            notes.append(f"transcript line {number} is not JSON; skipped")
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def unique_labels(paths: list[Path], labels: list[str]) -> list[str]:
    """The given labels, else folder names; repeated names get a numeric suffix."""
    chosen = labels or [p.resolve().name for p in paths]
    seen: dict[str, int] = {}
    result = []
    for name in chosen:
        seen[name] = seen.get(name, 0) + 1
        result.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return result
