"""Scripted episodes per second (issue 11, goal 6): the oracle plays whole episodes of all eight
environments, round robin over difficulties 0-12.

In-process, per catalog size: one hub, one MCP server and one in-memory MCP client; each episode
is generated, opened as the hub's default episode, played and closed, one after another. The
floor is the same loop with the scenarios generated beforehand (open, play, close only), in the
same run; the ratio says what generation costs on top.

Over HTTP (`--http-size`, default 100,000): a `verishop serve --transport http` subprocess, and
this process as the client, with `--http-clients` episodes in flight (POST /episodes, the oracle
over Streamable HTTP, DELETE), as in `bench/load.py`.

    python bench/episodes_per_s.py --sizes 1000,100000,2000000 --episodes 200 --http-clients 16
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import anyio
from _common import DEFAULT_CACHE, cached_catalog, console, now, parse_sizes, print_table, start_http_server, write_json
from load import Tally, jobs, play, run_http

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.inprocess import InProcessClient
from verishop.mcp_server.tools import create_server
from verishop.scenarios.models import Scenario

TARGET_IN_PROCESS, TARGET_HTTP = 300, 100
WARMUP = 8


async def in_process(catalog: Path, runs: Path, count: int, pregenerated: bool) -> tuple[float, Tally]:
    """Wall seconds for `count` episodes played one after another, and their tally (its `cpu_s`:
    this process's CPU seconds over them, every thread included)."""
    hub, tally = EpisodeHub(catalog, runs), Tally()
    work = jobs(WARMUP + count)
    scenarios: list[Scenario | None] = [hub.generate(*job) if pregenerated else None for job in work]
    try:
        async with InProcessClient(create_server(hub)) as client:
            started = 0.0
            for i, (job, scenario) in enumerate(zip(work, scenarios)):
                if i == WARMUP:
                    started, tally, cpu_started = now(), Tally(), time.process_time()
                episode = await hub.open(scenario or hub.generate(*job), default=True)
                await play(episode.scenario, client, tally)
                if episode.episode_id in hub.episodes:
                    await hub.close(episode.episode_id, "agent_stopped")
            tally.cpu_s = time.process_time() - cpu_started
            return now() - started, tally
    finally:
        await hub.aclose()


async def over_http(catalog: Path, runs: Path, count: int, clients: int) -> tuple[float, Tally]:
    import httpx2

    from verishop.agents.evaluate import _wait_healthy

    port, server = start_http_server(catalog, runs)
    limits = httpx2.Limits(max_connections=None, max_keepalive_connections=None)
    try:
        async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits,
                                      timeout=httpx2.Timeout(120)) as http:
            await _wait_healthy(http, server)
            await run_http(http, clients, clients)  # warm-up: imports, first connections
            return await run_http(http, count, clients)
    finally:
        server.terminate()
        server.wait(timeout=30)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,100000,2000000")
    parser.add_argument("--episodes", type=int, default=200, help="per size, in-process")
    parser.add_argument("--http-size", type=int, default=100_000, help="0: no HTTP run")
    parser.add_argument("--http-clients", type=int, default=16)
    parser.add_argument("--http-episodes", type=int, default=160)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()

    rows, results = [], []
    with tempfile.TemporaryDirectory(prefix="verishop-bench-eps-") as tmp:
        for size in parse_sizes(args.sizes):
            catalog, _ = cached_catalog(args.cache_dir, size)
            full_s, full = await in_process(catalog, Path(tmp) / f"full-{size}", args.episodes, pregenerated=False)
            floor_s, floor = await in_process(catalog, Path(tmp) / f"floor-{size}", args.episodes, pregenerated=True)
            eps, floor_eps = full.episodes / full_s, floor.episodes / floor_s
            cpu_ms, floor_cpu_ms = full.cpu_s * 1000 / full.episodes, floor.cpu_s * 1000 / floor.episodes
            results.append({"size": size, "transport": "in-process", "episodes": full.episodes, "errors": full.errors,
                            "episodes_per_s": round(eps, 1), "floor_episodes_per_s": round(floor_eps, 1),
                            "cpu_ms_per_episode": round(cpu_ms, 2), "floor_cpu_ms_per_episode": round(floor_cpu_ms, 2)})
            rows.append([f"{size:,}", "in-process", full.episodes, full.errors, eps, floor_eps,
                         f"{floor_eps / eps:.2f}x", cpu_ms, floor_cpu_ms, TARGET_IN_PROCESS])
        if args.http_size:
            catalog, _ = cached_catalog(args.cache_dir, args.http_size)
            wall_s, tally = await over_http(catalog, Path(tmp) / "http", args.http_episodes, args.http_clients)
            eps = tally.episodes / wall_s
            results.append({"size": args.http_size, "transport": f"http, {args.http_clients} clients",
                            "episodes": tally.episodes, "errors": tally.errors, "episodes_per_s": round(eps, 1)})
            rows.append([f"{args.http_size:,}", f"HTTP, {args.http_clients} in flight", tally.episodes, tally.errors,
                         eps, "", "", "", "", TARGET_HTTP])
    print_table(f"Scripted (oracle) episodes per second, all eight environments ({WARMUP} warm-up episodes "
                "not counted); floor: the same loop on scenarios generated beforehand",
                ["products", "transport", "episodes", "errors", "episodes/s", "floor episodes/s",
                 "floor / full", "CPU ms/episode", "floor CPU ms/episode", "target"], rows)
    console.print("[dim]in-process: one hub, one MCP server, one in-memory client, episodes one after "
                  "another; HTTP: a `verishop serve` subprocess, this process as the client[/dim]")
    write_json("episodes_per_s", {"episodes": args.episodes, "results": results})


if __name__ == "__main__":
    anyio.run(main)
