"""One digest of everything episodes produce, to check that a change of speed changed no behaviour.

Plays every environment at difficulties 0, 2, 5, 8 and 12, seeds 0 and 1, with the oracle, greedy
and null agents (390 episodes), in process on the small-shop bench's 1,000-product catalog, and
digests each episode's scenario.json bytes, its transcript events (without clocks, ids and seals)
and its reward (without its episode id). Two checkouts that print the same digest produced the same
scenarios, the same tool results and customer replies, and the same rewards on these plays.

    python bench/fingerprint.py                          # this checkout
    PYTHONPATH=/path/to/other/checkout python bench/fingerprint.py   # another one (run from outside it)

About 8 seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _common import cached_catalog

from verishop.envs import REGISTRY
from verishop.local import LocalShop
from verishop.local.session import play_scripted

# What differs from run to run by design: clocks, the random episode id, the seal chain and the world's
# digest (its free pages may differ; its rows are in the reward's checks).
VOLATILE = frozenset({"episode_id", "elapsed_ms", "duration_ms", "seal", "seal_key_id", "seal_scheme", "world_sha256"})
DIFFICULTIES, SEEDS, AGENTS = (0, 2, 5, 8, 12), (0, 1), ("oracle", "greedy", "null")


async def fingerprint(catalog: Path) -> tuple[int, str]:
    """(episodes played, their digest)."""
    names = sorted({spec.env_id.rsplit("-v", 1)[0] for spec in REGISTRY.values()})
    digest, count = hashlib.sha256(), 0
    with LocalShop(catalog) as shop:
        for name in names:
            for difficulty in DIFFICULTIES:
                for seed in SEEDS:
                    for agent in AGENTS:
                        episode = await play_scripted(shop, agent, env=name, difficulty=difficulty, seed=seed)
                        reward = (await episode.areward()).model_dump(mode="json")
                        reward.pop("episode_id")
                        files = episode.run_files()
                        events = [{k: v for k, v in json.loads(line).items() if k not in VOLATILE}
                                  for line in files["transcript.jsonl"].splitlines()]
                        for part in (files["scenario.json"], json.dumps(events, sort_keys=True).encode(),
                                     json.dumps(reward, sort_keys=True).encode()):
                            digest.update(part)
                        count += 1
    return count, digest.hexdigest()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--catalog", type=Path, default=None,
                        help="the catalog to play on (default: the small-shop bench's cached 1,000 products)")
    args = parser.parse_args()
    catalog = args.catalog or cached_catalog(Path("~/.cache/verishop/bench"), 1000)[0]
    count, digest = asyncio.run(fingerprint(catalog))
    print(f"{count} episodes, fingerprint {digest}")


if __name__ == "__main__":
    main()
