"""How many catalog rows an exact top-k must look at, per catalog size (issue 11, goal 2: what
bounds PD and SUB generation's growth with the catalog).

For each PD episode the k-th best utility of its ideal list is the bar. A ranking is exact only
if it has ruled out every product that might still reach the bar, so whatever index it walks, it
must visit every product that index cannot tell apart from one that does. This bench counts,
over the episode's whole category (read in Python, outside any index), the products that:

- `slab`:    today's walk (scenarios.topk) visits: the leading column of the heaviest dimension's
             category index may reach the bar with every other dimension at its best;
- `box`:     a 3-D box index would visit: price, rating and delivery may each reach the bar alone;
- `3-D`:     an index exact on price, rating and delivery together would visit (brand and
             attribute similarity at their best);
- `4-D`:     the brand exact too: every term an index can hold; what remains must be read
             as table rows for the similarity of its attributes (JSON in the row);
- `exact`:   reach the bar (every dimension exact, episode stock and constraints applied): the
             ideal list and its ties.

At 1,000 products a category holds at most a few dozen products, so any method reads all of
them in one query; at 2,000,000 even the `4-D` count, which today's indexes do not reach (it
would take new ones and hundreds of seeks per ranking), is larger than the 1k category whole. The bench also checks that the `exact` count holds the ideal
list (the full scan here agrees with the generator's index walk).

SUB the same way, with its relevance: `band` is the price band around the original that today's
walk reads (attributes, brand and constraints at their best), `index` what remains once the
brand and the constraints on the index's columns are exact too (the rest, attribute matches,
needs the table row), `exact` the ideal list and its ties.

    python bench/ranking_regions.py --sizes 1000,100000,2000000 --episodes 60
"""

from __future__ import annotations

import argparse
import random
import statistics
from pathlib import Path

from _common import DEFAULT_CACHE, cached_catalog, console, parse_sizes, print_table, write_json

from verishop.scenarios.catalog.reader import PRODUCT_COLUMNS, CatalogReader, Product
from verishop.scenarios.constraints import satisfies
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.scenarios.envs import generate
from verishop.scenarios.ranking import (_ON_WIDE_INDEX, SIM_WEIGHTS, dimension_scores, heaviest_sort_dimension, price_closeness,
                               substitute_relevance, utility)
from verishop.scenarios.stock import EpisodeStock
from verishop.scenarios.topk import SCORE_SLACK

JOB_SEED = 4242
# The utility dimensions the category indexes sort by (price, rating, delivery).
SORT_DIMENSIONS = ("price", "rating", "ship")
REGIONS = {"pd": ("category", "slab", "box", "3-D", "4-D", "exact"), "sub": ("category", "band", "index", "exact")}


def category_rows(reader: CatalogReader, category_id: str, rows_of: dict[str, list[Product]]) -> list[Product]:
    if category_id not in rows_of:
        sql = f"SELECT {PRODUCT_COLUMNS} FROM products WHERE category_id = ?"
        rows_of[category_id] = [Product.from_row(r) for r in reader.db.execute(sql, (category_id,))]
    return rows_of[category_id]


def check_ideal(goal, reached: set[str], env: str, difficulty: int, seed: int) -> None:
    missing = {r.product_id for r in goal.ideal} - reached
    if missing:  # the generator's index walk and this full scan disagree: the counts would mean nothing
        raise RuntimeError(f"{env} d={difficulty} seed={seed}: ideal products {missing} do not reach the bar "
                           "in a full scan")


def pd_regions(reader: CatalogReader, difficulty: int, seed: int, rows_of: dict[str, list[Product]]) -> dict[str, int]:
    scenario = generate("pd", difficulty, seed, reader)
    goal = scenario.goal
    w, persona = goal.persona.weights, goal.persona
    reference = reader.product(persona.reference_product_id)
    bar = goal.ideal[-1].utility - SCORE_SLACK
    products = category_rows(reader, goal.category_id, rows_of)
    stock = EpisodeStock.of_scenario(scenario)
    heaviest = heaviest_sort_dimension(w)
    total = sum(w.values())
    counts = dict.fromkeys(REGIONS["pd"], 0)
    reached = set()
    for p in products:
        phi = dimension_scores(p, persona, reference)
        counts["category"] += 1
        counts["slab"] += w[heaviest] * phi[heaviest] + total - w[heaviest] >= bar
        counts["box"] += all(w[d] * phi[d] + total - w[d] >= bar for d in SORT_DIMENSIONS)
        three = sum(w[d] * phi[d] for d in SORT_DIMENSIONS)
        counts["3-D"] += three + w["brand"] + w["sim"] >= bar
        counts["4-D"] += three + w["brand"] * phi["brand"] + w["sim"] >= bar
        if (stock.units(p) > 0 and all(satisfies(p, c) for c in goal.constraints)
                and utility(p, persona, reference) >= bar):
            counts["exact"] += 1
            reached.add(p.product_id)
    check_ideal(goal, reached, "pd", difficulty, seed)
    return counts


def sub_regions(reader: CatalogReader, difficulty: int, seed: int, rows_of: dict[str, list[Product]]) -> dict[str, int]:
    scenario = generate("sub", difficulty, seed, reader)
    goal = scenario.goal
    original = reader.product(goal.original_product_id)
    lam, constraints = goal.similarity_weight, goal.constraints
    bar = goal.ideal[-1].utility - SCORE_SLACK
    stock = EpisodeStock.of_scenario(scenario)
    counts = dict.fromkeys(REGIONS["sub"], 0)
    reached = set()
    best_else = lam * (1 - SIM_WEIGHTS["price"]) + (1 - lam)  # attributes, brand and constraints all met
    for p in category_rows(reader, goal.category_id, rows_of):
        closeness = price_closeness(p, original)
        counts["category"] += 1
        counts["band"] += best_else + lam * SIM_WEIGHTS["price"] * closeness >= bar
        held = (sum(satisfies(p, c) if c.kind in _ON_WIDE_INDEX else 1 for c in constraints) / len(constraints)
                if constraints else 1.0)
        index = lam * (SIM_WEIGHTS["attributes"] + SIM_WEIGHTS["brand"] * (p.brand == original.brand)
                       + SIM_WEIGHTS["price"] * closeness) + (1 - lam) * held
        counts["index"] += index >= bar
        if (stock.units(p) > 0 and p.product_id != original.product_id
                and substitute_relevance(p, original, constraints, lam) >= bar):
            counts["exact"] += 1
            reached.add(p.product_id)
    check_ideal(goal, reached, "sub", difficulty, seed)
    return counts


COUNTERS = {"pd": pd_regions, "sub": sub_regions}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="1000,100000,2000000")
    parser.add_argument("--episodes", type=int, default=60)
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    rng = random.Random(JOB_SEED)
    jobs = [(rng.randint(0, MAX_DIFFICULTY), rng.randrange(10**9)) for _ in range(args.episodes)]
    results: dict[str, dict[int, dict[str, float]]] = {env: {} for env in COUNTERS}
    for size in sorted(parse_sizes(args.sizes)):
        path, _ = cached_catalog(args.cache_dir, size)
        rows_of: dict[str, list[Product]] = {}
        with CatalogReader(path) as reader:
            for env, count in COUNTERS.items():
                samples = [count(reader, d, s, rows_of) for d, s in jobs]
                names = REGIONS[env]
                results[env][size] = {r: statistics.median(c[r] for c in samples) for r in names}
                results[env][size] |= {f"{r}_p90": sorted(c[r] for c in samples)[int(0.9 * (len(samples) - 1))]
                                       for r in names}
    for env, by_size in results.items():
        print_table(f"{env}: products an exact top-k must tell apart from the bar, median (p90) over "
                    f"{args.episodes} episodes", ["catalog", *REGIONS[env]],
                    [[f"{size:,}", *(f"{r[k]:,.0f} ({r[k + '_p90']:,})" for k in REGIONS[env])]
                     for size, r in by_size.items()])
    write_json("ranking_regions", {"episodes": args.episodes, "results": results})
    console.print("pd slab, sub band: today's index walk; pd 4-D, sub index: every term an index can hold "
                  "exact (attribute similarity is JSON in the row); exact: the ideal list and its ties.")


if __name__ == "__main__":
    main()
