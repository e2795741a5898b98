"""Where an episode's own CPU goes at small catalogs (issue 24, points 1 and 3): creation
(generate + open), open alone, close, and close-time verification (`Verifier.verify` with one
warm verifier, as `verishop eval` and the sidecar run it), in CPU time (`time.process_time`:
every thread of this process, so work moved to a worker thread still counts), medians.

Episodes of all eight environments, round robin over difficulties 0-12, are generated, opened,
closed and verified one after another on one hub; `load` is the verifier reading and checking the
files alone, `verify, new verifier` scoring with a verifier made for the episode (what in-process
scoring, `ShopClient.reward` without a sidecar, did before issue 24). After each, the same-run floor `files`: the
folder, scenario.json and transcript.jsonl that the file contract makes every open create,
written plainly (no server); `open beyond files` is open's median less theirs. `--profile` runs cProfile over open, close and
verify at the first size and prints the functions that take the most time.

`--prototypes` times the world's part of creation three ways on the same scenarios, the
candidates of the design (docs/performance.md, "Episode creation and closing at small
catalogs"):
- file: today's world file (`create_world` written to disk) and a fresh connection on it that
  attaches the catalog (WAL, -shm), closed again (checkpoint);
- memory: the world seeded into a kept connection that has the catalog attached already (its
  empty image deserialized again), its image written to world.db in one write;
- memory, no file: the same without writing the image (the floor of a world held in memory);
- store: the same rows inserted into one shared on-disk database per process (one transaction).

    python bench/episode_cpu.py --sizes 1000,10000,100000 --episodes 400 [--profile] [--prototypes]
                                [--runs-parent /dev/shm]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path

import anyio
from _common import DEFAULT_CACHE, cached_catalog, console, parse_sizes, print_table, write_json

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.scenarios.envs import REGISTRY
from verishop.scenarios.models import Scenario
from verishop.verifier.files import load_episode
from verishop.verifier.runner import Verifier

JOB_SEED = 24
WARMUP = 16
cpu = time.process_time


def jobs(count: int) -> list[tuple[str, int, int]]:
    envs = [spec.short_name for spec in REGISTRY.values()]
    return [(envs[i % len(envs)], i % 13, JOB_SEED * 100_000 + i) for i in range(count)]


def median_ms(samples_s: list[float]) -> float:
    return round(statistics.median(samples_s) * 1000, 3)


async def measure(catalog: Path, runs: Path, count: int, profile: cProfile.Profile | None) -> dict[str, float]:
    hub = EpisodeHub(catalog, runs)
    times: dict[str, list[float]] = {"generate": [], "open": [], "close": [], "verify": [], "load": [],
                                     "verify, new verifier": [], "files": []}
    try:
        with Verifier() as verifier:
            for i, job in enumerate(jobs(WARMUP + count)):
                t = cpu()
                scenario = hub.generate(*job)
                generated = cpu()
                if profile is not None:
                    profile.enable()
                t_open = cpu()
                episode = await hub.open(scenario)
                opened = cpu()
                await hub.close(episode.episode_id, "bench")
                closed = cpu()
                # The kept verifier and one made for the episode, in turns first: whichever runs
                # second finds the files and Python's caches warm.
                if i % 2 == 0:
                    reward = verifier.verify(episode.directory)
                    verified = cpu()
                if profile is not None:
                    profile.disable()
                t_fresh = cpu()
                with Verifier() as fresh:  # what in-process scoring did per episode before issue 24
                    fresh.verify(episode.directory)
                fresh_s = cpu() - t_fresh
                if i % 2 == 1:
                    t_kept = cpu()
                    reward = verifier.verify(episode.directory)
                    verified = closed + cpu() - t_kept
                t_load = cpu()
                load_episode(episode.directory, verifier.catalogs)
                load_s = cpu() - t_load
                t_files = cpu()
                plain_files(runs / f"plain-{i}", scenario_bytes=len(episode.scenario.to_json()))
                files = cpu() - t_files
                if reward.verdict != "scored":
                    raise SystemExit(f"{episode.directory}: {reward.verdict} {reward.reason} {reward.detail}")
                if i >= WARMUP:
                    times["generate"].append(generated - t)
                    times["open"].append(opened - t_open)
                    times["close"].append(closed - opened)
                    times["verify"].append(verified - closed)
                    times["files"].append(files)
                    times["load"].append(load_s)
                    times["verify, new verifier"].append(fresh_s)
    finally:
        await hub.aclose()
    result = {name: median_ms(values) for name, values in times.items()}
    result["creation"] = median_ms([g + o for g, o in zip(times["generate"], times["open"])])
    result["open beyond files"] = round(result["open"] - result["files"], 3)
    return result


def plain_files(folder: Path, scenario_bytes: int) -> None:
    """What the file contract makes every open create, without the server: the episode's folder,
    its scenario.json and its transcript (the disk's part of opening; it moves from minute to minute)."""
    folder.mkdir()
    with open(folder / "scenario.json", "xb") as file:
        file.write(b"\0" * scenario_bytes)
    with open(folder / "transcript.jsonl", "xb") as file:
        file.write(b"\0" * 400)


def prototypes(catalog: Path, tmp: Path, scenarios: list[Scenario]) -> dict[str, float]:
    """The world's part of creation, each candidate on the same scenarios (CPU ms, medians)."""
    from verishop.scenarios.world_db import create_world, empty_world_image, seed_world

    uri = f"file:{catalog}?mode=ro"
    samples: dict[str, list[float]] = {"file": [], "memory": [], "memory, no file": [], "store": []}
    kept = sqlite3.connect(":memory:", isolation_level=None)
    kept.execute("ATTACH DATABASE ? AS cat", (uri,))
    store = sqlite3.connect(tmp / "store.db", isolation_level=None)
    store.execute("PRAGMA journal_mode=WAL")
    store.execute("PRAGMA synchronous=OFF")
    store.execute("CREATE TABLE rows (episode_id TEXT, kind TEXT, payload TEXT)")
    for i, scenario in enumerate(scenarios):
        folder = tmp / f"proto-{i}"
        folder.mkdir()
        t = cpu()
        create_world(folder / "world.db", scenario, episode_id=f"ep_{i}", catalog_path=catalog)
        db = sqlite3.connect(folder / "world.db", isolation_level=None)
        db.executescript(f"PRAGMA synchronous=NORMAL; ATTACH DATABASE '{uri}' AS cat;")
        db.close()
        samples["file"].append(cpu() - t)
        t = cpu()
        kept.deserialize(empty_world_image())
        seed_world(kept, scenario, episode_id=f"ep_{i}", catalog_path=catalog)
        with open(folder / "world-memory.db", "xb") as file:
            file.write(kept.serialize())
        samples["memory"].append(cpu() - t)
        t = cpu()
        kept.deserialize(empty_world_image())
        seed_world(kept, scenario, episode_id=f"ep_{i}", catalog_path=catalog)
        samples["memory, no file"].append(cpu() - t)
        t = cpu()
        store.execute("BEGIN")
        store.executemany("INSERT INTO rows VALUES (?, ?, ?)",
                          [(f"ep_{i}", "order", o.model_dump_json()) for o in scenario.orders]
                          + [(f"ep_{i}", "stock", c.model_dump_json()) for c in scenario.stock_changes]
                          + [(f"ep_{i}", "extra", p.model_dump_json()) for p in scenario.extra_products])
        store.execute("COMMIT")
        samples["store"].append(cpu() - t)
    kept.close()
    store.close()
    return {name: median_ms(values[WARMUP:]) for name, values in samples.items()}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--episodes", type=int, default=400, help="per size, all eight environments in turn")
    parser.add_argument("--profile", action="store_true", help="cProfile open, close and verify at the first size")
    parser.add_argument("--prototypes", action="store_true", help="time the world's creation three ways")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--runs-parent", type=Path, default=None,
                        help="where the runs folders go (default: the system's temp dir); /dev/shm takes the "
                             "disk's weather out of the figures")
    args = parser.parse_args()

    rows, results = [], []
    with tempfile.TemporaryDirectory(prefix="verishop-bench-cpu-", dir=args.runs_parent) as tmp:
        for n, size in enumerate(parse_sizes(args.sizes)):
            catalog, _ = cached_catalog(args.cache_dir, size)
            profile = cProfile.Profile() if args.profile and n == 0 else None
            figures = await measure(catalog, Path(tmp) / f"runs-{size}", args.episodes, profile)
            if args.prototypes:
                hub = EpisodeHub(catalog, Path(tmp) / f"gen-{size}")
                scenarios = [hub.generate(*job) for job in jobs(WARMUP + args.episodes)]
                await hub.aclose()
                proto_dir = Path(tmp) / f"prototypes-{size}"
                proto_dir.mkdir()
                figures.update({f"world {k}": v for k, v in prototypes(catalog, proto_dir, scenarios).items()})
            results.append({"size": size, "cpu_ms_p50": figures})
            rows.append([f"{size:,}", *figures.values()])
            if profile is not None:
                out = io.StringIO()
                pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(45)
                console.print(out.getvalue(), markup=False, highlight=False)
    columns = list(results[0]["cpu_ms_p50"])
    print_table(f"An episode's own CPU, ms (medians over {args.episodes} episodes, all eight environments, "
                f"difficulty 0-12, after {WARMUP} warm-up)", ["products", *columns], rows)
    write_json("episode_cpu", {"episodes": args.episodes, "results": results})


if __name__ == "__main__":
    anyio.run(main)
