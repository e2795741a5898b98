"""What keeps a long-running HTTP server's footprint flat: a bounded record of closed episodes,
the idle-episode reaper, and the open-file limit.

A closed episode releases everything it held (its SQLite connection, its file descriptors);
the hub remembers only why it closed, for the most recent episodes in memory and for older ones
by reading the closing event back from disk.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import re
import resource
import time
from collections import OrderedDict
from pathlib import Path
from collections.abc import Mapping
from typing import Any, Protocol

import anyio


class ReapableHub(Protocol):
    """What the idle reaper needs of the hub (a protocol, so this module never imports the hub,
    which imports this module)."""

    episodes: Mapping[str, Any]
    default_id: str | None

    async def retire(self, episode: Any, reason: str, *, idle_before: float | None = None) -> None: ...

IDLE_TIMEOUT_REASON = "idle_timeout"
CLOSED_IN_MEMORY = 4096
# Each open episode holds its folder's lock, the transcript and its world's attached catalog (the
# world itself is in memory), plus a socket per client.
WANTED_OPEN_FILES = 65536
# What `--max-episodes` defaults to: the open-file limit, less a reserve for the server itself,
# divided among episodes at this many descriptors each (the three files above, two sockets, one spare).
FILES_PER_EPISODE = 6
RESERVED_FILES = 64
_EPISODE_ID = re.compile(r"^ep_[0-9a-f]{24}$")
_TAIL_BYTES = 4096


def is_episode_id(name: str) -> bool:
    """Whether `name` is an id the hub could have made (only such a name may name a path)."""
    return _EPISODE_ID.fullmatch(name) is not None


class ClosedEpisodes:
    """Why each closed episode closed, by id: the most recent `capacity` in memory, older ones
    read back from the `episode_closed` event at the end of their transcript. Behaves like the
    `dict[str, str]` it replaces (`in`, `[]`, `get`), so a closed episode's URL keeps answering
    "closed" however many episodes the server has run, while its memory stays bounded."""

    def __init__(self, runs_dir: Path, capacity: int = CLOSED_IN_MEMORY):
        self.runs_dir = Path(runs_dir)
        self.capacity = capacity
        self._recent: OrderedDict[str, str] = OrderedDict()

    def __setitem__(self, episode_id: str, reason: str) -> None:
        self._recent[episode_id] = reason
        self._recent.move_to_end(episode_id)
        while len(self._recent) > self.capacity:
            self._recent.popitem(last=False)

    def get(self, episode_id: str, default: str | None = None) -> str | None:
        reason = self._recent.get(episode_id)
        if reason is None:
            reason = self._from_disk(episode_id)
        return default if reason is None else reason

    def __contains__(self, episode_id: object) -> bool:
        return isinstance(episode_id, str) and self.get(episode_id) is not None

    def __getitem__(self, episode_id: str) -> str:
        reason = self.get(episode_id)
        if reason is None:
            raise KeyError(episode_id)
        return reason

    def __len__(self) -> int:
        """How many are held in memory (never more than `capacity`)."""
        return len(self._recent)

    def _from_disk(self, episode_id: str) -> str | None:
        # The id comes from a URL: only a well-formed one may name a path.
        if not is_episode_id(episode_id):
            return None
        try:
            with open(self.runs_dir / episode_id / "transcript.jsonl", "rb") as f:
                size = f.seek(0, 2)
                f.seek(max(0, size - _TAIL_BYTES))
                lines = f.read().splitlines()
        except OSError:
            return None
        try:
            last = json.loads(lines[-1]) if lines else {}
        except ValueError:
            return None
        return str(last.get("reason") or "closed") if last.get("event") == "episode_closed" else None


async def close_idle_episodes(hub: ReapableHub, idle_timeout_s: float) -> None:
    """Close every episode left without a tool call for `idle_timeout_s` (reason `idle_timeout`),
    forever. One task serves the whole hub: it sleeps until the earliest moment any episode can
    have been idle that long. An episode with a call in flight is busy, not idle; the default
    episode (an IDE's, at /mcp) lives as long as the process."""
    min_sleep_s = min(1.0, idle_timeout_s / 10)
    while True:
        cutoff = time.monotonic() - idle_timeout_s
        for episode in list(hub.episodes.values()):
            if (episode.episode_id != hub.default_id and episode.last_active_s <= cutoff
                    and not episode.lock.locked()):
                await hub.retire(episode, IDLE_TIMEOUT_REASON, idle_before=cutoff)
        watched = [e.last_active_s for e in hub.episodes.values() if e.episode_id != hub.default_id]
        wake = min(watched, default=time.monotonic()) + idle_timeout_s
        await anyio.sleep(max(wake - time.monotonic(), min_sleep_s))


def raise_open_file_limit(wanted: int = WANTED_OPEN_FILES) -> tuple[int, int]:
    """Raise the soft RLIMIT_NOFILE towards `wanted` (never above the hard limit, which only
    root may raise). Returns the soft limit (before, after)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (ValueError, OSError):
            pass  # some sandboxes refuse; the server still runs, with fewer episodes at once
    return soft, resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def default_max_episodes() -> int:
    """How many episodes fit the current open-file limit (see FILES_PER_EPISODE)."""
    soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    if soft == resource.RLIM_INFINITY:
        soft = WANTED_OPEN_FILES
    return max(1, (soft - RESERVED_FILES) // FILES_PER_EPISODE)


def _malloc_trim() -> object | None:
    try:
        return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc: nothing to trim
        return None


_TRIM = _malloc_trim()
# Trim after this many closings (and whenever the last open episode closes).
TRIM_EVERY_CLOSINGS = 64


def give_memory_back() -> None:
    """Return freed heap to the system. Each episode's SQLite connection runs in a thread of its
    own, and glibc gives threads their own malloc arenas, which keep what they freed: without
    this a server that once held 500 episodes keeps their memory after they close."""
    if _TRIM is not None:
        _TRIM(0)
