"""Scenario generation cost per environment and catalog size (issue 11, goal 2: independent of
the catalog's size).

Each environment generates the same (difficulty, seed) jobs on every catalog, in-process through
`verishop.scenarios.envs.generate` (no server, no files). The floor is the smallest catalog of the run:
every size's p50 is printed as a multiple of that environment's p50 there (target: 2M within
about 1.5x of 1k). `--rows` also counts the SQLite virtual-machine instructions per generation
(`set_progress_handler`), a figure that does not move with the machine's load.

    python bench/generation.py --sizes 1000,100000,2000000 --episodes 200 [--envs pd,sub] [--rows]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

from _common import (DEFAULT_CACHE, cached_catalog, console, now, parse_sizes, percentile, print_table, summary_ms,
                     write_json)

from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.scenarios.envs import REGISTRY, generate

JOB_SEED = 4242
WARMUP = 5
TARGET_RATIO = 1.5
VM_STEPS_PER_TICK = 1000


def run_env(reader: CatalogReader, env: str, jobs: list[tuple[int, int]], count_vm: bool) -> dict[str, list[float]]:
    times, ticks = [], [0]
    if count_vm:
        reader.db.set_progress_handler(lambda: ticks.__setitem__(0, ticks[0] + 1) or 0, VM_STEPS_PER_TICK)
    vm = []
    try:
        for difficulty, seed in jobs:
            ticks[0] = 0
            t = now()
            generate(env, difficulty, seed, reader)
            times.append(now() - t)
            vm.append(ticks[0] * VM_STEPS_PER_TICK)
    finally:
        reader.db.set_progress_handler(None, 0)
    return {"seconds": times[WARMUP:], "vm_steps": vm[WARMUP:]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,100000,2000000")
    parser.add_argument("--episodes", type=int, default=200, help="per environment and size")
    parser.add_argument("--envs", default=",".join(s.short_name for s in REGISTRY.values()))
    parser.add_argument("--rows", action="store_true", help="also count SQLite VM instructions per generation")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    sizes = sorted(parse_sizes(args.sizes))
    envs = [e.strip() for e in args.envs.split(",") if e.strip()]
    rng = random.Random(JOB_SEED)
    jobs = {env: [(rng.randint(0, MAX_DIFFICULTY), rng.randrange(10**9)) for _ in range(args.episodes + WARMUP)]
            for env in envs}

    results: dict[str, dict[int, dict]] = {env: {} for env in envs}
    for size in sizes:
        path, _ = cached_catalog(args.cache_dir, size)
        with CatalogReader(path) as reader:
            for env in envs:
                samples = run_env(reader, env, jobs[env], args.rows)
                vm = sorted(samples["vm_steps"])
                results[env][size] = {**summary_ms(samples["seconds"]),
                                      "vm_steps_p50": percentile(vm, 50), "vm_steps_p99": percentile(vm, 99)}

    floor_size = sizes[0]
    rows = []
    for env in envs:
        floor = results[env][floor_size]["p50"]
        for size in sizes:
            s = results[env][size]
            row = [env, f"{size:,}", s["p50"], s["p99"], f"{s['p50'] / floor:.2f}x"]
            if args.rows:
                row += [s["vm_steps_p50"], s["vm_steps_p99"]]
            rows.append(row)
    columns = ["env", "products", "p50 ms", "p99 ms", f"p50 / p50 at {floor_size:,}"]
    if args.rows:
        columns += ["VM steps p50", "VM steps p99"]
    print_table(f"Scenario generation ({args.episodes} per environment and size after {WARMUP} warm-up, "
                f"difficulty 0-{MAX_DIFFICULTY})", columns, rows)
    largest = sizes[-1]
    worst = max(results[env][largest]["p50"] / results[env][floor_size]["p50"] for env in envs)
    console.print(f"worst environment: p50 at {largest:,} = {worst:.2f}x its p50 at {floor_size:,} "
                  f"(target <= {TARGET_RATIO}x)")
    write_json("generation", {"sizes": sizes, "episodes": args.episodes, "envs": envs, "warmup": WARMUP,
                              "job_seed": JOB_SEED, "ms": results})


if __name__ == "__main__":
    main()
