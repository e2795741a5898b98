"""Verifier throughput: episodes played through the real MCP server in-process, then scored.

Episodes (half PD, half CART, difficulty 0-12) are played by scripted agents over the
in-memory MCP client, some well and some badly, so the files look like real runs. Then the
same episode folders are scored:
- baseline: only reading the files (scenario.json and transcript.jsonl parsed as JSON,
  world.db opened read-only, its meta read), the floor for any verifier;
- in-process: `Verifier.verify` per episode (load, score, write reward.json), one core;
- pool: `verify_many` over a process pool;
- CLI: `verishop verify RUNS --json` in a subprocess (Python start-up included).

    python bench/verify.py --episodes 300 --size 10000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

import anyio
from _common import DEFAULT_CACHE, cached_catalog, console, now, print_table, write_json
from mcp import Client

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.inprocess import InProcessClient
from verishop.mcp_server.tools import create_server
from verishop.scenarios.models import CartGoal, ProductDiscoveryGoal, Scenario
from verishop.verifier.runner import Settings, Verifier, verify_many

SCENARIO_SEED = 2026
TARGET_EPISODES_PER_S = 500
REPEATS = 3


async def play(client: Client, scenario: Scenario, style: int) -> None:
    """A scripted agent: style 0 plays the ideal answer, 1 a filtered search, 2 a sloppy one."""
    async def call(tool: str, **arguments: object) -> dict:
        result = await client.call_tool(tool, arguments)
        return {} if result.is_error else (result.structured_content or {})

    await call("get_conversation")
    goal = scenario.goal
    if isinstance(goal, ProductDiscoveryGoal):
        if style == 0:
            ids = [r.product_id for r in goal.ideal]
            await call("compare_products", product_ids=ids)
        else:
            found = await call("search_catalog", category_id=goal.category_id, in_stock_only=style == 1,
                               limit=goal.items_to_recommend)
            ids = [p["product_id"] for p in found.get("results", [])]
            if style == 2 and ids:
                await call("respond_to_customer", message="Anything else I should know?")
        await call("respond_to_customer", message="Here are my picks.", recommended_product_ids=ids, done=True)
    elif isinstance(goal, CartGoal):
        await call("compare_products", product_ids=[item.product_id for item in goal.items])
        for item in goal.items:
            await call("add_to_cart", product_id=item.product_id, quantity=item.quantity + (style == 2))
        await call("view_cart")
        await call("respond_to_customer", message="Your cart is ready.", done=True)


async def make_episodes(catalog: Path, runs: Path, count: int) -> list[Path]:
    rng = random.Random(SCENARIO_SEED)
    hub = EpisodeHub(catalog, runs)
    try:
        for i in range(count):
            scenario = hub.generate("pd" if i % 2 == 0 else "cart", rng.randint(0, 12), rng.randrange(10**9))
            episode = await hub.open(scenario)
            async with InProcessClient(create_server(hub, episode_id=episode.episode_id)) as client:
                await play(client, scenario, rng.randrange(3))
            if episode.episode_id in hub.episodes:
                await hub.close(episode.episode_id, "bench")
    finally:
        await hub.aclose()
    return sorted(p for p in runs.iterdir() if p.is_dir())


def read_only(directories: list[Path]) -> None:
    """The baseline: what any verifier must do at least."""
    for d in directories:
        json.loads((d / "scenario.json").read_bytes())
        for line in (d / "transcript.jsonl").read_bytes().splitlines():
            json.loads(line)
        db = sqlite3.connect(f"file:{(d / 'world.db').resolve()}?mode=ro&immutable=1", uri=True)
        db.execute("SELECT key, value FROM meta").fetchall()
        db.close()


def best_of(fn) -> float:
    times = []
    for _ in range(REPEATS):
        t = now()
        fn()
        times.append(now() - t)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--size", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    catalog, built = cached_catalog(args.cache_dir, args.size)
    with tempfile.TemporaryDirectory(prefix="verishop-bench-verify-") as tmp:
        runs = Path(tmp) / "runs"
        t = now()
        directories = anyio.run(make_episodes, catalog, runs, args.episodes)
        console.print(f"[dim]{len(directories)} episodes played through MCP in {now() - t:.1f} s[/dim]")

        baseline_s = best_of(lambda: read_only(directories))
        with Verifier(Settings()) as verifier:
            verifier.verify(directories[0])  # open the catalog outside the timing
            inproc_s = best_of(lambda: [verifier.verify(d) for d in directories])
            rewards = [verifier.score(d) for d in directories]
        pool_s = best_of(lambda: list(verify_many(directories, Settings(), workers=args.workers)))
        cli = [sys.executable, "-m", "verishop", "verify", str(runs), "--json", "--workers", str(args.workers)]
        cli_s = best_of(lambda: subprocess.run(cli, check=False, stdout=subprocess.DEVNULL, timeout=300))

    n = len(directories)
    scored = [r for r in rewards if r.verdict == "scored"]
    rows = [[name, round(seconds * 1000, 1), round(n / seconds), round(seconds / baseline_s, 2)]
            for name, seconds in [("baseline: read files only", baseline_s), ("in-process, 1 core", inproc_s),
                                  (f"verify_many, {args.workers} workers", pool_s),
                                  (f"CLI subprocess, {args.workers} workers", cli_s)]]
    print_table(f"Verifying {n} episodes ({args.size:,}-product catalog, best of {REPEATS})",
                ["path", "ms", "episodes/s", "x baseline"], rows)
    mean_total = sum(r.total or 0 for r in scored) / max(1, len(scored))
    console.print(f"{len(scored)}/{n} scored, mean total {mean_total:+.3f}, "
                  f"{sum(bool(r.is_correct) for r in scored)} solved")
    best_rate = max(n / inproc_s, n / pool_s)
    mark = "[green]met[/green]" if best_rate >= TARGET_EPISODES_PER_S else "[red]MISSED[/red]"
    console.print(f"target >= {TARGET_EPISODES_PER_S} episodes/s: {mark} ({best_rate:,.0f}/s)")
    write_json("verify", {"episodes": n, "size": args.size, "workers": args.workers, "catalog_built_s": built,
                          "seconds": {"baseline": baseline_s, "in_process": inproc_s, "pool": pool_s, "cli": cli_s},
                          "episodes_per_s": {"baseline": n / baseline_s, "in_process": n / inproc_s,
                                             "pool": n / pool_s, "cli": n / cli_s},
                          "scored": len(scored), "mean_total": mean_total})


if __name__ == "__main__":
    main()
