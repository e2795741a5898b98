"""What a blocking in-process call costs run inline (`verishop.local.inline`, the default) against
the same call on the shop's event loop (the way before), in the same process, rounds interleaved;
and how many objects a played episode leaves to the cyclic garbage collector.

The job is the small-shop bench's scripted episode (`bench/small_shop_job.py`: open from (pd, d,
seed), one search of the goal's category, the answer, close, the verifier's reward) on its
1,000-product catalog; only the way the two calls are run differs. CPU is `time.process_time`.

    python bench/inprocess_call.py --rounds 7 --episodes 200

About 15 seconds.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _common import DEFAULT_CACHE, cached_catalog
from small_shop_job import ENV, EPISODE_SEED, MAX_DIFFICULTY, _scripted_local, unlimited

from verishop.agents.client import ToolResult
from verishop.envs import generate
from verishop.local import LocalShop
from verishop.local.shop import LocalEpisode
from verishop.verifier.models import Reward


class OnTheLoop:
    """An in-process episode whose blocking calls take the shop's event loop: the way before."""

    def __init__(self, shop: LocalShop, episode: LocalEpisode):
        self.shop, self.episode, self.scenario = shop, episode, episode.scenario

    def call(self, name: str, arguments: dict) -> ToolResult:
        return self.shop._run(self.episode.acall(name, arguments))

    def reward_model(self) -> Reward:
        return self.episode.reward_model()


def play(shop: LocalShop, i: int, inline: bool) -> None:
    """The small-shop bench's scripted episode (`_scripted_local`), its calls inline or on the loop."""
    episode = shop.open(env=ENV, difficulty=i % (MAX_DIFFICULTY + 1), seed=EPISODE_SEED + i)
    _scripted_local(episode if inline else OnTheLoop(shop, episode))


def round_ms(shop: LocalShop, episodes: int, inline: bool) -> float:
    started = time.process_time()
    for i in range(episodes):
        play(shop, i, inline)
    return (time.process_time() - started) / episodes * 1000


def search_us(shop: LocalShop, calls: int, inline: bool, arguments: dict) -> float:
    """CPU microseconds of one blocking search call (an episode with an unlimited lookup budget)."""
    episode = shop._open(unlimited(generate("pd", 6, EPISODE_SEED, shop.catalog)), chosen_by_curriculum=False)
    try:
        started = time.process_time()
        for _ in range(calls):
            result = shop._run(episode.acall("search_catalog", arguments), inline=inline)
        elapsed = time.process_time() - started
        assert result.error is None, result.error
        return elapsed / calls * 1e6
    finally:
        episode.close()


def cyclic_garbage(shop: LocalShop, episodes: int) -> float:
    """Objects per played episode that only the cyclic collector frees (0: reference counting frees all)."""
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for i in range(episodes):
            play(shop, i, inline=True)
        gc.collect()
        return len(gc.garbage) / episodes
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--episodes", type=int, default=200)
    args = parser.parse_args()
    catalog, _ = cached_catalog(DEFAULT_CACHE, 1000)
    with LocalShop(catalog) as shop:
        round_ms(shop, MAX_DIFFICULTY + 1, True)  # warm: every difficulty once, both ways
        round_ms(shop, MAX_DIFFICULTY + 1, False)
        rounds: dict[bool, list[float]] = {True: [], False: []}
        for r in range(args.rounds):
            for inline in ((True, False) if r % 2 == 0 else (False, True)):
                rounds[inline].append(round_ms(shop, args.episodes, inline))
        inline_ms, loop_ms = statistics.median(rounds[True]), statistics.median(rounds[False])
        ratios = [a / b for a, b in zip(rounds[True], rounds[False])]
        print(f"scripted episode, CPU ms (median of {args.rounds} rounds of {args.episodes}):")
        print(f"  calls on the event loop (before): {loop_ms:.3f}")
        print(f"  calls inline (now):               {inline_ms:.3f}")
        print(f"  inline / loop: {inline_ms / loop_ms:.3f} (per round: {min(ratios):.3f}-{max(ratios):.3f})")
        for what, arguments in (("a featured search (a category)", {"category_id": "t_shirts", "limit": 10}),
                                ("a ranked search (words, sorted by price)",
                                 {"query": "cotton", "sort_by": "price", "limit": 10})):
            times: dict[bool, list[float]] = {True: [], False: []}
            for r in range(args.rounds):
                for inline in ((True, False) if r % 2 == 0 else (False, True)):
                    times[inline].append(search_us(shop, args.episodes, inline, arguments))
            inline_us, loop_us = statistics.median(times[True]), statistics.median(times[False])
            print(f"{what}, CPU us per blocking call: {loop_us:.0f} on the loop, {inline_us:.0f} inline "
                  f"({inline_us / loop_us:.3f})")
        print(f"objects left to the cyclic garbage collector per episode: {cyclic_garbage(shop, 50):.1f}")


if __name__ == "__main__":
    main()
