"""Generated ideal lists against a full scan of the catalog and the scenario's world, at any
catalog size (the slow test `tests/test_topk.py -m slow` does the same on 100,000 products).

For each environment, seeds 0..N-1 at difficulty seed % 13 are generated as usual (the ideal
lists read through the category indexes, `verishop.scenarios.topk`), and every PD and SUB list (also
inside journeys) is compared with `verishop.scenarios.ranking_reference`, which reads every candidate
row. Prints the lists compared, the mismatches (must be 0) and the time of both.

    python bench/ranking_equivalence.py --size 2000000 --seeds 200 [--envs pd,sub,journey]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from _common import DEFAULT_CACHE, cached_catalog, console, now, print_table, write_json

from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.scenarios.envs import generate
from verishop.scenarios.ranking_reference import ideal_mismatches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", type=int, default=2_000_000)
    parser.add_argument("--seeds", type=int, default=200, help="per environment")
    parser.add_argument("--envs", default="pd,sub,journey")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    path, _ = cached_catalog(args.cache_dir, args.size)
    rows, results = [], {}
    with CatalogReader(path) as reader:
        for env in [e.strip() for e in args.envs.split(",") if e.strip()]:
            compared, problems, generate_s, scan_s = 0, [], 0.0, 0.0
            for seed in range(args.seeds):
                t = now()
                scenario = generate(env, seed % (MAX_DIFFICULTY + 1), seed, reader)
                generate_s += now() - t
                t = now()
                problems += ideal_mismatches(reader, scenario)
                scan_s += now() - t
                goals = scenario.goal.tasks if scenario.goal.kind == "journey" else (scenario.goal,)
                compared += sum(g.kind in ("product_discovery", "substitution") for g in goals)
            for problem in problems[:5]:
                console.print(f"[red]{problem}[/red]")
            results[env] = {"seeds": args.seeds, "lists": compared, "mismatches": len(problems),
                            "generate_s": round(generate_s, 2), "full_scan_s": round(scan_s, 2)}
            rows.append([env, args.seeds, compared, len(problems), generate_s, scan_s])
    print_table(f"Ideal lists: generated (index reads) vs full scan, {args.size:,} products",
                ["env", "seeds", "lists compared", "mismatches", "generation s (all)", "full scans s"], rows)
    write_json("ranking_equivalence", {"size": args.size, "results": results})


if __name__ == "__main__":
    main()
