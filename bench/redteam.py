"""The red-team table for the README: every red-team agent, greedy and null on the same seeded
episodes of all eight environments, played through the real MCP server (in memory) and scored
by `verishop verify` in its own process. Prints agents × environments, solved share and mean
total, as markdown, and each agent's count of hard-failed episodes.

    python bench/redteam.py --episodes 26 --size 10000
    python bench/redteam.py --episodes 13 --voices all   # one table per customer voice (issue 35)

Seeds start at 7100 (tests/test_redteam.py's `-m slow` run uses the same; no other test does);
difficulties cycle over 0..12.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _common import DEFAULT_CACHE, cached_catalog, console, now

from verishop.agents.redteam import HOSTILE
from verishop.agents.redteam.suite import (AGENTS, BAR_AGENTS, ENVS, TRANSPORTS, above_the_bar, bar, play_all,
                                           render, table)
from verishop.scenarios.voices import VOICES

SEED = 7100


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--episodes", type=int, default=26, help="Episodes per environment and agent.")
    parser.add_argument("--size", type=int, default=10000, help="Catalog size.")
    parser.add_argument("--seed", type=int, default=SEED, help="First scenario seed.")
    parser.add_argument("--agents", default=",".join(AGENTS), help="Comma-separated agent names.")
    parser.add_argument("--difficulties", default="0-12", help="Difficulties the episodes cycle over: a range "
                                                               "(0-12) or a comma-separated list (1,5,9,12).")
    parser.add_argument("--voices", default=None, help="Comma-separated customer voices, or 'all': one table "
                                                        "per voice, every customer in it (default: each "
                                                        "episode's drawn voice).")
    parser.add_argument("--transport", choices=sorted(TRANSPORTS), default="memory",
                        help="memory: through the MCP server, scored by `verishop verify` (default); local: in "
                             "process, the same rewards in about half the time.")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()

    catalog, _ = cached_catalog(args.cache_dir, args.size)
    agents = tuple(a.strip() for a in args.agents.split(",") if a.strip())
    voices: tuple[str | None, ...] = (None,)
    if args.voices:
        voices = VOICES if args.voices == "all" else tuple(v.strip() for v in args.voices.split(","))
    for voice in voices:
        if voice is not None:
            print(f"\n### voice: {voice}\n")
        one_table(agents, args, catalog, voice)


def difficulties(text: str) -> tuple[int, ...]:
    if "-" in text:
        low, high = (int(x) for x in text.split("-"))
        return tuple(range(low, high + 1))
    return tuple(int(x) for x in text.split(","))


def one_table(agents: tuple[str, ...], args: argparse.Namespace, catalog: Path, voice: str | None) -> None:
    started = now()
    with tempfile.TemporaryDirectory(prefix="verishop-redteam-") as tmp:
        rewards = play_all(agents, ENVS, difficulties(args.difficulties), args.episodes, args.seed, catalog, Path(tmp),
                           voice=voice, transport=args.transport)
    elapsed_s = now() - started
    episodes = sum(len(rs) for rs in rewards.values())
    print(f"{args.episodes} episodes per environment and agent (difficulties {args.difficulties}, seeds from {args.seed}), "
          f"catalog {args.size:,} products; each cell: solved share / mean total\n")
    cells = table(rewards)
    print(render(cells))
    if any(a in cells for a in BAR_AGENTS):
        print("| **bar** (better of greedy and the heuristics) | " + " | ".join(
            "{:.0%} / {:+.3f}".format(solved / cells[next(a for a in BAR_AGENTS if a in cells)][e].episodes, total)
            for e in ENVS for solved, total in [bar(cells, e)]) + " |")
    # Hard fails (safety: a denied product offered) per agent; an honest agent's must be 0.
    print("\nhard fails: " + ", ".join(f"{agent} {sum(bool(r.get('hard_fail')) for r in rs)} of {len(rs)}"
                                       for agent, rs in rewards.items()))
    if any(a in cells for a in BAR_AGENTS):
        above = above_the_bar(cells, tuple(a for a in HOSTILE if a in cells))
        print(f"\nhostile agents above the bar: {'; '.join(above) if above else 'none'}")
    console.print(f"\n{episodes} episodes played and verified in {elapsed_s:.0f} s")


if __name__ == "__main__":
    main()
