"""Parallel episodes: N concurrent oracle episodes over Streamable HTTP against one real
`verishop serve --transport http` subprocess, next to the same episodes through the in-process
MCP transport measured in the same run (the baseline; the ratio is printed).

Per concurrency level N, max(N, --min-episodes) episodes are played with at most N in flight
(at N = 256 all 256 are open at once). Both transports use a new MCP client per episode, as
an RL worker would (over HTTP, its first call of each tool also lists the tools and compiles the
result schema's validator; in process, the shop's own `InProcessClient` trusts its own server's typed
results). The in-process transport has no headers, so it builds one MCP server per
episode (as `verishop eval --transport memory` does); that cost is reported and the episode
rate is also given without it. Reported: episodes/s, tool calls/s, p50/p99 tool-call
latency seen by the client, errors, and the server's RSS and open files after each level (flat
over levels means closed episodes released what they held).

    python bench/load.py --concurrency 1,16,64,256
"""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

import anyio
from _common import (DEFAULT_CACHE, cached_catalog, console, now, parse_sizes, print_table, start_http_server,
                     summary_ms, write_json)

from verishop.envs import REGISTRY
from verishop.agents.evaluate import _wait_healthy
from verishop.agents.scripted import OracleAgent
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.scenarios.models import Scenario

ENVS = tuple(spec.name for spec in REGISTRY.values())
SEED = 5150


@dataclass
class Tally:
    latencies_s: list[float] = field(default_factory=list)
    episodes: int = 0
    errors: int = 0
    server_build_s: float = 0.0  # in-process only: an MCP server built per episode, blocking the loop
    cpu_s: float = 0.0  # in-process only: the process's CPU seconds over the counted episodes


class TimedClient:
    """An MCP client that times each tool call (what the agent waits for)."""

    def __init__(self, client, tally: Tally):
        self.client, self.tally = client, tally

    async def call_tool(self, name: str, arguments: dict):
        started = now()
        result = await self.client.call_tool(name, arguments)
        self.tally.latencies_s.append(now() - started)
        return result


def jobs(count: int) -> list[tuple[str, int, int]]:
    return [(ENVS[i % len(ENVS)], i % (MAX_DIFFICULTY + 1), SEED + i) for i in range(count)]


async def play(scenario: Scenario, client, tally: Tally) -> None:
    try:
        await OracleAgent(scenario).play(ShopSession(TimedClient(client, tally)))
    except ToolFailed:
        tally.errors += 1
    tally.episodes += 1


async def drive(count: int, concurrency: int, one: Callable[[str, int, int], Awaitable[None]]) -> float:
    limiter = anyio.Semaphore(concurrency)

    async def limited(env: str, difficulty: int, seed: int) -> None:
        async with limiter:
            await one(env, difficulty, seed)

    started = now()
    async with anyio.create_task_group() as tg:
        for job in jobs(count):
            tg.start_soon(limited, *job)
    return now() - started


async def run_memory(catalog: Path, runs: Path, count: int, concurrency: int) -> tuple[float, Tally]:
    from verishop.mcp_server.episodes.hub import EpisodeHub
    from verishop.mcp_server.inprocess import InProcessClient
    from verishop.mcp_server.tools import create_server

    hub, tally = EpisodeHub(catalog, runs), Tally()

    async def one(env: str, difficulty: int, seed: int) -> None:
        episode = await hub.open(hub.generate(env, difficulty, seed))
        try:
            started = now()
            server = create_server(hub, episode_id=episode.episode_id)  # no headers in memory: one per episode
            tally.server_build_s += now() - started
            async with InProcessClient(server) as client:
                await play(episode.scenario, client, tally)
        finally:
            if episode.episode_id in hub.episodes:
                await hub.close(episode.episode_id, "agent_stopped")

    try:
        return await drive(count, concurrency, one), tally
    finally:
        await hub.aclose()


async def run_http(http, count: int, concurrency: int) -> tuple[float, Tally]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    tally = Tally()

    async def one(env: str, difficulty: int, seed: int) -> None:
        created = await http.post("/episodes", json={"env": env, "difficulty": difficulty, "seed": seed})
        created.raise_for_status()
        info = created.json()
        scenario = Scenario.model_validate_json(Path(info["run_dir"], "scenario.json").read_text())
        async with Client(streamable_http_client(info["mcp_url"], http_client=http)) as client:
            await play(scenario, client, tally)
        (await http.delete(f"/episodes/{info['episode_id']}")).raise_for_status()

    return await drive(count, concurrency, one), tally


def rates(wall_s: float, tally: Tally) -> dict[str, object]:
    lat = summary_ms(tally.latencies_s)
    # Building a server is synchronous CPU work on the one event loop, so it adds up in the wall time.
    net_s = wall_s - tally.server_build_s
    return {"episodes": tally.episodes, "tool_calls": len(tally.latencies_s), "errors": tally.errors,
            "wall_s": round(wall_s, 3), "episodes_per_s": round(tally.episodes / wall_s, 2),
            "calls_per_s": round(len(tally.latencies_s) / wall_s, 1), "latency_ms": lat,
            "server_build_s": round(tally.server_build_s, 3),
            "episodes_per_s_excl_server_build": round(tally.episodes / net_s, 2)}


def server_footprint(pid: int) -> dict[str, int | float]:
    status = Path(f"/proc/{pid}/status").read_text()
    fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
    targets = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
    ticks = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[11:13]  # utime, stime
    return {"rss_kib": int(fields["VmRSS"].split()[0]), "threads": int(fields["Threads"]),
            "open_files": len(targets),
            # Sockets are the bench client's pooled keep-alive connections; the rest are files.
            "open_non_sockets": sum(not t.startswith("socket:") for t in targets),
            "cpu_s": round(sum(int(t) for t in ticks) / os.sysconf("SC_CLK_TCK"), 2)}


async def main() -> None:
    import httpx2

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--concurrency", default="1,16,64,256", help="comma-separated levels N")
    parser.add_argument("--min-episodes", type=int, default=32, help="episodes per level at least")
    parser.add_argument("--size", type=int, default=100_000, help="catalog size")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    catalog, _ = cached_catalog(args.cache_dir, args.size)
    levels = parse_sizes(args.concurrency)

    results = []
    with tempfile.TemporaryDirectory(prefix="verishop-bench-load-") as tmp:
        port, server = start_http_server(catalog, Path(tmp) / "http")
        limits = httpx2.Limits(max_connections=None, max_keepalive_connections=None)
        try:
            async with httpx2.AsyncClient(base_url=f"http://127.0.0.1:{port}", limits=limits,
                                          timeout=httpx2.Timeout(120)) as http:
                await _wait_healthy(http, server)
                await run_http(http, 4, 4)  # warm-up: imports, first connections
                await run_memory(catalog, Path(tmp) / "warm", 4, 4)
                idle = server_footprint(server.pid)
                for n in levels:
                    count = max(n, args.min_episodes)
                    mem_wall, mem = await run_memory(catalog, Path(tmp) / f"memory-{n}", count, n)
                    http_wall, over_http = await run_http(http, count, n)
                    open_after = (await http.get("/health")).json()["open_episodes"]
                    row = {"concurrency": n, "episodes": count, "memory": rates(mem_wall, mem),
                           "http": rates(http_wall, over_http), "server_after": server_footprint(server.pid),
                           "server_open_episodes_after": open_after}
                    row["http_over_memory_episodes_per_s"] = round(
                        row["http"]["episodes_per_s"] / row["memory"]["episodes_per_s_excl_server_build"], 3)
                    row["http_over_memory_p50"] = round(
                        row["http"]["latency_ms"]["p50"] / row["memory"]["latency_ms"]["p50"], 2)
                    results.append(row)
                    console.print(f"[dim]N={n}: {count} episodes, http {http_wall:.1f} s, "
                                  f"memory {mem_wall:.1f} s[/dim]")
                # The largest level once more: a server that released everything ends where it was.
                await run_http(http, max(levels[-1], args.min_episodes), levels[-1])
                repeat = server_footprint(server.pid)
        finally:
            server.terminate()
            server.wait(timeout=30)

    rows = []
    for r in results:
        for transport in ("memory", "http"):
            t = r[transport]
            rows.append([f"{r['concurrency']} {transport}", t["episodes"], t["episodes_per_s"],
                         t["episodes_per_s_excl_server_build"], t["calls_per_s"], t["latency_ms"]["p50"],
                         t["latency_ms"]["p99"], t["errors"]])
    print_table("Concurrent oracle episodes (one server process; latency as the client sees it)",
                ["N, transport", "episodes", "episodes/s", "episodes/s excl. server build", "tool calls/s",
                 "p50 ms", "p99 ms", "errors"], rows)
    for i, r in enumerate(results):
        s = r["server_after"]
        cpu = s["cpu_s"] - (results[i - 1]["server_after"]["cpu_s"] if i else idle["cpu_s"])
        console.print(f"N={r['concurrency']}: http/memory episodes/s (memory excl. server build) = "
                      f"{r['http_over_memory_episodes_per_s']:.2f}x, server CPU {cpu / r['episodes'] * 1000:.0f} ms "
                      f"per HTTP episode, "
                      f"p50 latency = {r['http_over_memory_p50']:.2f}x; server after: {s['rss_kib'] / 1024:.0f} MiB "
                      f"RSS, {s['threads']} threads, {s['open_files']} open files ({s['open_non_sockets']} not "
                      f"sockets), {r['server_open_episodes_after']} episodes open")
    for name, f in (("idle before the levels", idle), (f"after N={levels[-1]} once more", repeat)):
        console.print(f"server {name}: {f['rss_kib'] / 1024:.0f} MiB RSS, {f['threads']} threads, "
                      f"{f['open_files']} open files ({f['open_non_sockets']} not sockets)")
    write_json("load", {"size": args.size, "min_episodes": args.min_episodes, "envs": list(ENVS),
                        "server_idle": idle, "levels": results, "server_after_repeat": repeat})


if __name__ == "__main__":
    anyio.run(main)
