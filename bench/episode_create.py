"""Episode creation cost: `hub.generate(...)` (scenario) and `await hub.open(scenario)` (world).

Scenarios are generated first (timed separately), then each is opened and closed again
(open and close timed separately). Same-run baseline, interleaved with the opens: a bare
`sqlite3.connect` on a fresh file + WAL + the same world tables + close, i.e. the least any
world creation costs; open p50 is printed as a multiple of it.

    python bench/episode_create.py --size 100000 --episodes 200
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import tempfile
from pathlib import Path

import anyio
from _common import DEFAULT_CACHE, cached_catalog, console, now, print_table, summary_ms, verdict, write_json

from mcp_server.hub import EpisodeHub
from scenarios.difficulty import MAX_DIFFICULTY
from scenarios.world_db import SCHEMA as WORLD_SCHEMA

SCENARIO_SEED = 4242
WARMUP = 5
TARGET_OPEN_P50_MS = 10.0


def bare_world(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(WORLD_SCHEMA)
    db.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    path, built = cached_catalog(args.cache_dir, args.size)
    console.print(f"[dim]catalog {'built in %.1f s' % built if built else 'reused'}: {path}[/dim]")

    rng = random.Random(SCENARIO_SEED)
    jobs = [(rng.randint(0, MAX_DIFFICULTY), rng.randrange(10**9)) for _ in range(args.episodes + WARMUP)]
    with tempfile.TemporaryDirectory(prefix="verishop-bench-episodes-") as tmp:
        hub = EpisodeHub(path, Path(tmp) / "runs")
        try:
            generate, scenarios = [], []
            for difficulty, seed in jobs:
                t = now()
                scenarios.append(hub.generate("pd", difficulty, seed))
                generate.append(now() - t)
            opens, closes, bare = [], [], []
            for i, scenario in enumerate(scenarios):
                t = now()
                bare_world(Path(tmp) / f"bare-{i}.db")
                bare.append(now() - t)
                t = now()
                episode = await hub.open(scenario)
                opens.append(now() - t)
                t = now()
                await hub.close(episode.episode_id, "bench")
                closes.append(now() - t)
        finally:
            await hub.aclose()

    stats = {name: summary_ms(samples[WARMUP:]) for name, samples in
             [("generate", generate), ("open", opens), ("close", closes), ("bare_sqlite_world", bare)]}
    print_table(f"Episode creation, ms ({args.episodes} episodes after {WARMUP} warm-up, {args.size:,} products, "
                f"difficulty 0-{MAX_DIFFICULTY})", ["step", "p50", "p95", "p99", "max", "mean"],
                [[name, s["p50"], s["p95"], s["p99"], s["max"], s["mean"]] for name, s in stats.items()])
    ratio = stats["open"]["p50"] / stats["bare_sqlite_world"]["p50"]
    console.print(f"hub.open p50 = {ratio:.2f}x the bare sqlite3 world (connect + WAL + schema + close)")
    console.print(f"target: open p50 < {TARGET_OPEN_P50_MS:g} ms: {verdict(stats['open']['p50'], TARGET_OPEN_P50_MS)}")
    write_json("episode_create", {"size": args.size, "episodes": args.episodes, "warmup": WARMUP,
                                  "scenario_seed": SCENARIO_SEED, "catalog_built_s": built, "ms": stats,
                                  "open_over_bare_p50": round(ratio, 2)})


if __name__ == "__main__":
    anyio.run(main)
