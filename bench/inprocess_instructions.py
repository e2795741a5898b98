"""Instructions per in-process episode, free of the machine's noise (issue 36).

CPU time on a shared virtual machine moves by 1.5x from one quarter hour to the next; an
instruction count does not. This plays the small-shop bench's scripted in-process job
(`bench/small_shop_job.py`: open a product-discovery episode from (d, seed), search its category,
answer with the results, the verifier's reward) under valgrind's callgrind twice, with 26 and 78
episodes, and prints the difference per episode (the start-up, imports and the catalog's loading
cancel out). Compare two checkouts by running it from each (`--tree PATH`).

    python bench/inprocess_instructions.py [--tree PATH] [--catalog PATH]

Needs `valgrind` (Debian's package); about four minutes on 2 cores. Inside, `--play N` plays N
episodes and nothing else (what valgrind runs).
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

FEW, MANY = 26, 78
REPO = Path(__file__).resolve().parents[1]
EPISODE_SEED = 24_000  # the small-shop bench's seeds (bench/small_shop_job.py)


def play(catalog: Path, episodes: int) -> None:
    from verishop.local import LocalShop

    with LocalShop(catalog, seal=True) as shop:
        for i in range(episodes):
            episode = shop.open(env="pd", difficulty=i % 13, seed=EPISODE_SEED + i)
            goal = episode.scenario.goal
            found = episode.call("search_catalog", {"category_id": goal.category_id, "limit": goal.items_to_recommend})
            ids = [card["product_id"] for card in (found.data or {}).get("results", [])]
            episode.call("respond_to_customer", {"message": "These fit what you asked for.",
                                                 "recommended_product_ids": ids, "done": True})
            episode.reward_model()


def instructions(tree: Path, catalog: Path, episodes: int) -> int:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable,
                          str(Path(__file__).resolve()), "--play", str(episodes), "--catalog", str(catalog)],
                         env=env, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", run.stderr)
    if found is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{run.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout to measure (default: this one)")
    parser.add_argument("--catalog", type=Path, default=None,
                        help="a 1,000-product catalog (default: the small-shop bench's cached one)")
    parser.add_argument("--play", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    catalog = args.catalog
    if catalog is None:
        sys.path.insert(0, str(Path(__file__).parent))
        from _common import cached_catalog

        catalog, _ = cached_catalog(Path("~/.cache/verishop/bench"), 1000)
    if args.play is not None:
        play(catalog, args.play)
        return
    few, many = instructions(args.tree, catalog, FEW), instructions(args.tree, catalog, MANY)
    print(f"{args.tree}: {(many - few) / (MANY - FEW) / 1e6:.2f} million instructions per in-process episode "
          f"(callgrind, {MANY} episodes minus {FEW})")


if __name__ == "__main__":
    main()
