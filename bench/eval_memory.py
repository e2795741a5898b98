"""CPU per episode of `verishop eval --transport memory`'s loop: generate, open, a server bound to
the episode and an in-memory MCP client, the oracle plays, close, `Verifier.verify`, one episode
after another over all eight environments (difficulties 0-12).

It runs on older checkouts too (before `InProcessClient` it uses `mcp.Client`), so a before/after
pair is two runs from two venvs; `--runs-dir` keeps the episode folders, to compare their
transcripts and rewards.

    python bench/eval_memory.py --size 1000 --episodes 80 [--runs-dir /tmp/runs-after]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import anyio
from _common import DEFAULT_CACHE, cached_catalog, console, write_json
from load import ENVS, SEED

from verishop.agents.scripted import OracleAgent
from verishop.agents.session import ShopSession, ToolFailed
from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.tools import create_server
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.verifier.runner import Settings, Verifier

try:
    from verishop.mcp_server.inprocess import InProcessClient as MemoryClient
except ImportError:  # a checkout from before issue 24
    from mcp import Client as MemoryClient

WARMUP = 8


async def loop(catalog: Path, runs: Path, episodes: int) -> dict:
    hub = EpisodeHub(catalog, runs)
    cpu_s, wall_s, solved = [], [], 0
    try:
        with Verifier(Settings()) as verifier:
            for i in range(WARMUP + episodes):
                cpu0, wall0 = time.process_time(), time.perf_counter()
                scenario = hub.generate(ENVS[i % len(ENVS)], i % (MAX_DIFFICULTY + 1), SEED + i)
                episode = await hub.open(scenario)
                async with MemoryClient(create_server(hub, episode_id=episode.episode_id)) as client:
                    try:
                        await OracleAgent(scenario).play(ShopSession(client))
                    except ToolFailed:
                        pass  # scored as played
                if episode.episode_id in hub.episodes:
                    await hub.close(episode.episode_id, "agent_stopped")
                reward = verifier.verify(episode.directory)
                if i >= WARMUP:
                    cpu_s.append(time.process_time() - cpu0)
                    wall_s.append(time.perf_counter() - wall0)
                    solved += bool(reward.is_correct)
    finally:
        await hub.aclose()
    return {"client": f"{MemoryClient.__module__}.{MemoryClient.__name__}", "episodes": episodes,
            "cpu_ms_per_episode_p50": round(statistics.median(cpu_s) * 1000, 2),
            "episodes_per_s": round(episodes / sum(wall_s), 1), "solved": solved}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--episodes", type=int, default=80)
    parser.add_argument("--runs-dir", type=Path, help="keep the episode folders here")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    catalog, _ = cached_catalog(args.cache_dir, args.size)
    with tempfile.TemporaryDirectory(prefix="verishop-bench-eval-") as tmp:
        result = await loop(catalog, args.runs_dir or Path(tmp) / "runs", args.episodes)
    console.print(f"{result['client']}: {result['episodes']} oracle episodes at {args.size:,} products, CPU per "
                  f"episode p50 {result['cpu_ms_per_episode_p50']} ms, {result['episodes_per_s']} episodes/s (wall), "
                  f"solved {result['solved']}/{result['episodes']}")
    write_json("eval_memory", {"size": args.size, **result})


if __name__ == "__main__":
    anyio.run(main)
