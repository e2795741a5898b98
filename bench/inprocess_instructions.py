"""Instructions per in-process episode, free of the machine's noise (issue 36).

CPU time on a shared virtual machine moves by 1.5x from one quarter hour to the next; an
instruction count does not. This plays the small-shop bench's scripted in-process job
(`bench/small_shop_job.py`: open a product-discovery episode from (d, seed), search its category,
answer with the results, the verifier's reward) under valgrind's callgrind twice, with 26 and 78
episodes, and prints the difference per episode (the start-up, imports and the catalog's loading
cancel out). Compare two checkouts by running it from each (`--tree PATH`).

`--peer PATH` counts EcomRLVE-Gym's side of the same job the same way (`bench/peer_ecomrlve.py`:
reset, a search step, the answer step). `--misses` also simulates the caches and the branch
predictor (valgrind's cache and branch simulation, several times slower) and prints the
first-level instruction and data cache misses and the mispredicted branches per episode: fewer
instructions is not the whole of CPU time, and these say where the rest goes.

    python bench/inprocess_instructions.py [--tree PATH] [--catalog PATH] [--peer PATH] [--misses]

Needs `valgrind` (Debian's package); about four minutes on 2 cores (twice that with --misses).
Inside, `--play N` plays N episodes and nothing else (what valgrind runs).
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
# valgrind's names of the simulated events, and what this prints for them.
EVENTS = {"Ir": "instructions", "I1mr": "L1 instruction misses", "D1mr": "L1 data read misses",
          "D1mw": "L1 data write misses", "Bcm": "mispredicted conditional branches",
          "Bim": "mispredicted indirect branches"}


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


def play_peer(peer_path: Path, episodes: int) -> None:
    """The peer's side of the small-shop bench's job (`small_shop_job.peer_round`, without its timers)."""
    from peer_ecomrlve import load_peer
    from search import QUERY_SEED, query_mix

    peer = load_peer(peer_path)
    _, queries = query_mix(240, QUERY_SEED)
    with peer.stubbed():
        env = peer.env(1000, EPISODE_SEED)
        for i in range(episodes):
            peer.create(env, EPISODE_SEED + i)
            step = peer.search_step(env, queries[i % len(queries)])
            peer.answer_step(env, step[0] if isinstance(step, tuple) else step)


def counted(tree: Path, episodes: int, job: list[str], misses: bool) -> dict[str, int]:
    # A fixed hash seed: the order of a set of strings, and so a little of the work, follows it.
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": os.environ.get("PYTHONHASHSEED", "0")}
    simulate = ["--cache-sim=yes", "--branch-sim=yes"] if misses else []
    run = subprocess.run(["valgrind", "--tool=callgrind", *simulate, "--callgrind-out-file=/dev/null",
                          sys.executable, str(Path(__file__).resolve()), "--play", str(episodes), *job],
                         env=env, capture_output=True, text=True, check=True)
    names = re.search(r"Events\s*:\s*(.+)", run.stderr)
    found = re.search(r"Collected : ([\d ]+)", run.stderr)
    if found is None or names is None:
        raise SystemExit(f"no counts in valgrind's output:\n{run.stderr[-2000:]}")
    return dict(zip(names.group(1).split(), map(int, found.group(1).split())))


def per_episode(tree: Path, job: list[str], misses: bool) -> dict[str, float]:
    few, many = counted(tree, FEW, job, misses), counted(tree, MANY, job, misses)
    return {name: (many[name] - few[name]) / (MANY - FEW) for name in EVENTS if name in many}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=REPO, help="the checkout to measure (default: this one)")
    parser.add_argument("--catalog", type=Path, default=None,
                        help="a 1,000-product catalog (default: the small-shop bench's cached one)")
    parser.add_argument("--peer", type=Path, default=None,
                        help="also count EcomRLVE-Gym's side of the job, from its checkout at PATH")
    parser.add_argument("--misses", action="store_true",
                        help="also simulate the caches and the branch predictor (several times slower)")
    parser.add_argument("--play", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--play-peer", type=Path, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).parent))
    if args.play is not None and args.play_peer is not None:
        play_peer(args.play_peer, args.play)
        return
    catalog = args.catalog
    if catalog is None:
        from _common import cached_catalog

        catalog, _ = cached_catalog(Path("~/.cache/verishop/bench"), 1000)
    if args.play is not None:
        play(catalog, args.play)
        return
    jobs = {str(args.tree): ["--catalog", str(catalog)]}
    if args.peer is not None:
        jobs[f"EcomRLVE-Gym ({args.peer})"] = ["--play-peer", str(args.peer.expanduser().resolve())]
    for label, job in jobs.items():
        counts = per_episode(args.tree, job, args.misses)
        print(f"{label}: {counts['Ir'] / 1e6:.2f} million instructions per in-process episode "
              f"(callgrind, {MANY} episodes minus {FEW})")
        for name, value in counts.items():
            if name != "Ir":
                print(f"    {value / 1e3:8.1f} thousand {EVENTS[name]}")


if __name__ == "__main__":
    main()
