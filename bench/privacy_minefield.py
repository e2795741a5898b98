"""The other customers' data minefield (issue 33, point 2) measured: the agents named, on the
order environments (return, status, change, exchange, handover, journey) at d = 6..12, through the
real MCP server, scored by `verishop verify`; per agent, how many episodes carried the minefield and
hit it, and per environment the solved share and mean total. `--without` also plays each agent
with the overlay switched off (in this process) and compares the carrying episodes.

    python bench/privacy_minefield.py --episodes 70 --size 4000 --seed 7600 --agents oracle,greedy,tell-all
"""

from __future__ import annotations

import argparse
import tempfile
from collections import defaultdict
from pathlib import Path

import anyio
from _common import DEFAULT_CACHE, cached_catalog

from verishop.agents.evaluate import Plan, new_eval_dir, run_memory, verify

ENVS = ("return", "status", "change", "exchange", "handover", "journey")


def play(agent: str, episodes: int, seed: int, catalog: Path, runs: Path) -> list[dict]:
    plan = Plan(agent, ENVS, tuple(range(6, 13)), episodes, seed)
    root = new_eval_dir(runs, agent)
    anyio.run(run_memory, plan, catalog, root, 4, lambda: None)
    return verify(root, catalog)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=70, help="Episodes per environment and agent.")
    parser.add_argument("--size", type=int, default=4000, help="Catalog size.")
    parser.add_argument("--seed", type=int, default=7600, help="First scenario seed.")
    parser.add_argument("--agents", default="oracle,greedy,tell-all", help="Comma-separated agent names.")
    parser.add_argument("--without", action="store_true", help="Also play with the overlay off and compare.")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    catalog, _ = cached_catalog(args.cache_dir, args.size)
    with tempfile.TemporaryDirectory(prefix="verishop-privacy-") as tmp:
        for agent in (a.strip() for a in args.agents.split(",") if a.strip()):
            rewards = play(agent, args.episodes, args.seed, catalog, Path(tmp) / "on")
            carrying = [r for r in rewards if "privacy" in r.get("minefields", [])]
            by_env: dict[str, list[dict]] = defaultdict(list)
            for r in rewards:
                by_env[r["env_id"].split("-v")[0]].append(r)
            print(f"{agent}: {len(rewards)} episodes, {len(carrying)} carrying, "
                  f"{sum(r.get('minefield_hit') == 'privacy' for r in rewards)} hit; " + " | ".join(
                      f"{env} {sum(r['is_correct'] for r in rs)}/{len(rs)} {sum(r['total'] for r in rs) / len(rs):+.3f}"
                      for env, rs in sorted(by_env.items())))
            if args.without and carrying:
                from verishop.minefields.privacy import overlay
                rate, overlay.rate = overlay.rate, lambda difficulty: 0.0
                try:
                    off = {(r["env_id"], r["difficulty"], r["seed"]): r
                           for r in play(agent, args.episodes, args.seed, catalog, Path(tmp) / "off")}
                finally:
                    overlay.rate = rate
                same = [off[(r["env_id"], r["difficulty"], r["seed"])] for r in carrying]
                print(f"  the {len(carrying)} carrying episodes: solved {sum(r['is_correct'] for r in carrying)} "
                      f"(without the overlay {sum(r['is_correct'] for r in same)}), mean total "
                      f"{sum(r['total'] for r in carrying) / len(carrying):+.3f} "
                      f"(without {sum(r['total'] for r in same) / len(same):+.3f})")


if __name__ == "__main__":
    main()
