"""How well pd-v3 can be solved from what the customer says: an agent that knows every
requirement and the priority (all said in the opening or when asked) sorts the feasible,
in-stock products the way search_catalog's sort_by does and recommends the top k. Prints its
solved share per difficulty next to a same-run baseline with the priority boost off (pd-v1's
situation: weights nobody states). Not a speed benchmark; the numbers behind
scenarios.ranking.PRIORITY_BOOST.

    python bench/pd_priority_bound.py [--seeds 40] [--boost 40]
"""

from __future__ import annotations

import argparse

import verishop.scenarios.ranking as ranking
from verishop.scenarios.catalog.cache import DEFAULT_SEED, DEFAULT_SIZE, catalog_path, ensure_catalog, verishop_home
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.envs.pd.generator import generate
from verishop.scenarios.ranking import feasible, ndcg, utility
from verishop.scenarios.stock import EpisodeStock
from verishop.envs.pd.check import SOLVED_AT

ORDER = {"price": lambda p: (p.price_cents, -p.rating), "rating": lambda p: (-p.rating, p.price_cents),
         "ship": lambda p: (p.ship_days, p.price_cents)}


def solved(catalog: CatalogReader, d: int, seed: int) -> bool:
    s = generate(d, seed, catalog)
    goal, k = s.goal, s.goal.items_to_recommend
    stock = EpisodeStock.of_scenario(s)
    fitting = [p for p in feasible(catalog, goal.constraints) if stock.units(p) > 0]
    picked = sorted(fitting, key=ORDER[goal.persona.priority])[:k]
    reference = catalog.product(goal.persona.reference_product_id)
    n = ndcg([utility(p, goal.persona, reference) for p in picked], [r.utility for r in goal.ideal[:k]])
    return round(0.55 * (2 * n - 1) + 0.35 + 0.10, 6) >= SOLVED_AT


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--boost", type=float, default=ranking.PRIORITY_BOOST)
    args = parser.parse_args()
    path = ensure_catalog(catalog_path(verishop_home(), DEFAULT_SIZE, DEFAULT_SEED), size=DEFAULT_SIZE,
                          seed=DEFAULT_SEED)
    with CatalogReader(path) as catalog:
        print("d   solved (boost %g)   solved (boost 0, baseline)" % args.boost)
        for d in range(13):
            shares = []
            for boost in (args.boost, 0.0):
                ranking.PRIORITY_BOOST = boost
                shares.append(sum(solved(catalog, d, seed) for seed in range(args.seeds)) / args.seeds)
            print(f"{d:<3} {shares[0]:>8.0%} {shares[1]:>24.0%}", flush=True)


if __name__ == "__main__":
    main()
