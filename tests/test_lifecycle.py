"""A long-running hub stays flat: closed episodes release their SQLite connection (kept, up to
IDLE_WORLDS, for the next episodes) and their files, and an open one costs no thread; the record of closed episodes is bounded (older ones are read back from disk);
idle episodes are closed by one reaper task; the open-file limit is raised at server start."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading
import weakref
from pathlib import Path

import anyio
import pytest
from mcp import Client

from verishop.mcp_server.errors import EpisodeClosed
from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.episodes.lifecycle import IDLE_TIMEOUT_REASON, close_idle_episodes
from verishop.mcp_server.episodes.worlds import IDLE_WORLDS
from verishop.mcp_server.shop import cart
from verishop.mcp_server.tools import create_server

EPISODES = 300
BATCH = 30
CLOSED_KEPT = 50
RSS_GROWTH_LIMIT_KIB = 24 * 1024
DEADLINE_S = 10.0


def threads() -> int:
    """Threads other than anyio's worker pool (which closes use; it ends idle workers itself)."""
    from anyio._backends._asyncio import WorkerThread

    return sum(not isinstance(t, WorkerThread) for t in threading.enumerate())


def open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def rss_kib() -> int:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


async def test_300_closed_episodes_leave_no_connections_threads_files_or_growth(hub: EpisodeHub) -> None:
    hub.closed.capacity = CLOSED_KEPT
    threads_before, files = threads(), open_files()
    refs: list[weakref.ref] = []
    ids: list[str] = []
    rss_after_warmup = 0
    peak_threads = peak_files = 0
    for start in range(0, EPISODES, BATCH):
        episodes = [await hub.open(hub.generate("cart", i % 13, i)) for i in range(start, start + BATCH)]
        peak_threads, peak_files = max(peak_threads, threads()), max(peak_files, open_files())
        for episode in episodes:
            await episode.call("view_cart", {}, lambda ep=episode: cart.view_cart(ep))
            refs += [weakref.ref(episode), weakref.ref(episode.db)]
            ids.append(episode.episode_id)
            await hub.close(episode.episode_id, "closed_by_client")
        del episodes, episode
        if start == 0:  # the hub's own files: kept world connections (the catalog), its store
            files_kept = open_files()
        if start == BATCH:  # after two batches: imports, caches and allocator pools are warm
            gc.collect()
            rss_after_warmup = rss_kib()

    # Open episodes cost no thread (mcp_server/connection.py), and the file measure sees them.
    assert peak_threads == threads_before == threads()
    assert peak_files >= files + 3 * BATCH
    assert open_files() <= files_kept, "a closed episode left a file open"
    # What the hub keeps is bounded: IDLE_WORLDS connections, each on the catalog, and the store
    # (its file, -wal, -shm and the descriptor holding its lock).
    assert files_kept - files <= IDLE_WORLDS + 4
    gc.collect()
    assert not hub.episodes
    assert [r for r in refs if r() is not None] == [], "something still holds a closed episode or its connection"
    growth = rss_kib() - rss_after_warmup
    assert growth < RSS_GROWTH_LIMIT_KIB, f"RSS grew {growth} KiB over {EPISODES - 2 * BATCH} episodes"

    # The record of closed episodes is bounded; older ones still answer "closed", from disk.
    assert len(hub.closed) == CLOSED_KEPT
    assert ids[0] in hub.closed and hub.closed[ids[0]] == "closed_by_client"
    assert ids[-1] in hub.closed
    with pytest.raises(EpisodeClosed, match=f"{ids[0]} is closed \\(closed_by_client\\)"):
        hub.resolve(ids[0])
    assert "ep_000000000000000000000000" not in hub.closed
    assert "../../etc/passwd" not in hub.closed


async def test_an_episode_still_open_on_disk_is_not_reported_closed(hub: EpisodeHub) -> None:
    hub.closed.capacity = 1
    episode = await hub.open(hub.generate("pd", 0, 1))
    assert episode.episode_id not in hub.closed  # its transcript has no closing event yet
    assert hub.resolve(episode.episode_id) is episode


async def test_idle_episodes_are_closed_busy_and_default_ones_are_not(hub: EpisodeHub) -> None:
    default = await hub.open(hub.generate("pd", 0, 0), default=True)
    idle = await hub.open(hub.generate("pd", 0, 1))
    busy = await hub.open(hub.generate("pd", 0, 2))
    with anyio.fail_after(DEADLINE_S):
        async with anyio.create_task_group() as tg, Client(create_server(hub, episode_id=busy.episode_id)) as client:
            tg.start_soon(close_idle_episodes, hub, 0.5)
            while idle.episode_id in hub.episodes:  # bounded by fail_after
                assert not (await client.call_tool("get_conversation", {})).is_error
                await anyio.sleep(0.05)
            tg.cancel_scope.cancel()
    assert hub.closed[idle.episode_id] == IDLE_TIMEOUT_REASON
    assert busy.episode_id in hub.episodes and default.episode_id in hub.episodes
    events = [json.loads(line) for line in (idle.directory / "transcript.jsonl").read_text().splitlines()]
    assert events[-1]["event"] == "episode_closed" and events[-1]["reason"] == IDLE_TIMEOUT_REASON
    assert not (idle.directory / "world.db-wal").exists()


def test_server_start_raises_a_low_open_file_limit() -> None:
    code = ("import resource; from verishop.mcp_server.episodes.lifecycle import raise_open_file_limit; "
            "s, h = resource.getrlimit(resource.RLIMIT_NOFILE); "
            "resource.setrlimit(resource.RLIMIT_NOFILE, (256, h)); "
            "print(*raise_open_file_limit(4096), h)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    before, after, hard = (int(v) for v in out.stdout.split())
    assert before == 256
    assert after == (4096 if hard < 0 else min(4096, hard))
