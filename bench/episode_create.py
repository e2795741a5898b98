"""Episode creation cost: `hub.generate(...)` (scenario) and `await hub.open(scenario)` (world).

Scenarios are generated first (timed separately), then each is opened and closed again
(open and close timed separately), in every environment (--envs). Same-run floor, after every
environment's opens: a bare `sqlite3.connect` on a fresh file + WAL + the same world tables +
close, i.e. creating a bare SQLite file with the same tables; open p50 is printed as a multiple
of it. A second floor, interleaved with the opens so that both meet the disk in the same state:
the episode's files written with plain `open()`/`write()` (a folder, scenario.json, a world file
of the world image's size, the transcript), no SQLite at all. (Before issue 24 it also wrote the
-wal and -shm files each world had.) CPU time per step: `bench/episode_cpu.py`. On
this machine's disk that cost moves from about 0.1 to 4 ms per episode from one minute to the
next, and open follows it; on tmpfs open is a flat 1.1 ms.

    python bench/episode_create.py --size 100000 --episodes 200 [--envs pd,sub,...]
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import tempfile
from pathlib import Path

import anyio
from _common import DEFAULT_CACHE, cached_catalog, console, now, print_table, summary_ms, verdict, write_json

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.scenarios.envs import REGISTRY
from verishop.scenarios.world_db import SCHEMA as WORLD_SCHEMA
from verishop.scenarios.world_db import empty_world_image

SCENARIO_SEED = 4242
WARMUP = 5
TARGET_OPEN_P50_MS, TARGET_OPEN_P99_MS = 2.0, 5.0


def plain_files(folder: Path, scenario_bytes: int, world_bytes: int) -> None:
    """What an open and its close write to the disk, without SQLite: the disk's own part (the
    folder, scenario.json and the transcript at open; world.db at close, since issue 24)."""
    folder.mkdir()
    for name, size in (("scenario.json", scenario_bytes), ("world.db", world_bytes), ("transcript.jsonl", 400)):
        with open(folder / name, "wb") as file:
            file.write(b"\0" * size)


def bare_world(path: Path) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(WORLD_SCHEMA)
    db.close()


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--episodes", type=int, default=200, help="per environment")
    parser.add_argument("--envs", default=",".join(s.short_name for s in REGISTRY.values()))
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    path, built = cached_catalog(args.cache_dir, args.size)
    console.print(f"[dim]catalog {'built in %.1f s' % built if built else 'reused'}: {path}[/dim]")
    envs = [e.strip() for e in args.envs.split(",") if e.strip()]

    rng = random.Random(SCENARIO_SEED)
    samples: dict[str, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory(prefix="verishop-bench-episodes-") as tmp:
        hub = EpisodeHub(path, Path(tmp) / "runs")
        try:
            for env in envs:
                jobs = [(rng.randint(0, MAX_DIFFICULTY), rng.randrange(10**9)) for _ in range(args.episodes + WARMUP)]
                generate, scenarios = [], []
                for difficulty, seed in jobs:
                    t = now()
                    scenarios.append(hub.generate(env, difficulty, seed))
                    generate.append(now() - t)
                opens, closes, files = [], [], []
                world_bytes = len(empty_world_image())
                for i, scenario in enumerate(scenarios):
                    scenario_bytes = len(scenario.to_json())  # outside the floor's timing
                    t = now()
                    episode = await hub.open(scenario)
                    opens.append(now() - t)
                    t = now()
                    await hub.close(episode.episode_id, "bench")
                    closes.append(now() - t)
                    t = now()
                    plain_files(Path(tmp) / f"files-{env}-{i}", scenario_bytes, world_bytes)
                    files.append(now() - t)
                samples[env] = {"generate": generate[WARMUP:], "open": opens[WARMUP:], "close": closes[WARMUP:],
                                "plain_files": files[WARMUP:]}
            # The floor in a pass of its own, after every environment's opens: its fsyncs stall the
            # file system's journal for a while, and before an environment's opens they slowed its
            # mkdir and file creations (open p50 1.3 ms in the first environment, 3.9 in the later ones).
            for env in envs:
                bare = []
                for i in range(args.episodes + WARMUP):
                    t = now()
                    bare_world(Path(tmp) / f"bare-{env}-{i}.db")
                    bare.append(now() - t)
                samples[env]["bare_sqlite_world"] = bare[WARMUP:]
        finally:
            await hub.aclose()

    everything = {name: [t for env in samples.values() for t in env[name]] for name in next(iter(samples.values()))}
    stats = {name: summary_ms(values) for name, values in everything.items()}
    print_table(f"Episode creation, ms ({args.episodes} episodes per environment after {WARMUP} warm-up, "
                f"{len(envs)} environments, {args.size:,} products, difficulty 0-{MAX_DIFFICULTY})",
                ["step", "p50", "p95", "p99", "max", "mean"],
                [[name, s["p50"], s["p95"], s["p99"], s["max"], s["mean"]] for name, s in stats.items()])
    per_env = {env: {name: summary_ms(values) for name, values in v.items()} for env, v in samples.items()}
    print_table("per environment, ms", ["env", "generate p50", "generate p99", "open p50", "open p99", "floor p50",
                                        "plain files p50"],
                [[env, s["generate"]["p50"], s["generate"]["p99"], s["open"]["p50"], s["open"]["p99"],
                  s["bare_sqlite_world"]["p50"], s["plain_files"]["p50"]] for env, s in per_env.items()])
    floor = stats["bare_sqlite_world"]["p50"]
    ratio = stats["open"]["p50"] / floor
    console.print(f"floor: a bare sqlite3 world file (connect + WAL + the same tables + close) p50 {floor:.3f} ms; "
                  f"hub.open p50 {stats['open']['p50']:.3f} ms = {ratio:.2f}x the floor")
    files = stats["plain_files"]["p50"]
    console.print(f"the same files written plainly, interleaved with the opens: p50 {files:.3f} ms; open beyond them "
                  f"{stats['open']['p50'] - files:.3f} ms")
    worst_p50 = max(s["open"]["p50"] for s in per_env.values())
    worst_p99 = max(s["open"]["p99"] for s in per_env.values())
    console.print(f"target in every environment: open p50 <= {TARGET_OPEN_P50_MS:g} ms: "
                  f"{verdict(worst_p50, TARGET_OPEN_P50_MS)}; p99 <= {TARGET_OPEN_P99_MS:g} ms: "
                  f"{verdict(worst_p99, TARGET_OPEN_P99_MS)}")
    write_json("episode_create", {"size": args.size, "episodes": args.episodes, "envs": envs, "warmup": WARMUP,
                                  "scenario_seed": SCENARIO_SEED, "catalog_built_s": built, "ms": stats,
                                  "per_env_ms": per_env, "open_over_bare_p50": round(ratio, 2)})


if __name__ == "__main__":
    anyio.run(main)
