"""search_catalog latency per catalog size, over a fixed seeded mix of realistic queries.

Each size: open the catalog (timed: CatalogReader and EpisodeHub constructors, showing an
existing catalog is opened, not rebuilt), open one episode, run the query mix once as a
warm-up pass (its max is reported as "first-pass max"), then --rounds timed passes through
`search_catalog(ep, ...)` directly. Same-run baseline: the in-memory MCP round trip of the
trivial `get_current_date` tool through `Client(create_server(hub))`; search p50 is printed
as a multiple of it. The same mix once through MCP is reported too.

    python bench/search.py --sizes 10000,100000,2000000 [--cache-dir ~/.cache/verishop/bench]
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
from pathlib import Path

import anyio
from _common import (DEFAULT_CACHE, cached_catalog, console, ms, now, parse_sizes, print_table, summary_ms,
                     verdict, write_json)
from mcp import Client

from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.shop.catalog import search_catalog
from verishop.mcp_server.tools import create_server
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.taxonomy import SHOPPABLE_CATEGORIES

QUERY_SEED = 20_260_101
TARGET_P50_MS, TARGET_P99_MS = 20.0, 20.0  # issue 11, goal 4
# Query kinds in fixed proportions (the seeded rng only picks their content).
KINDS = (["text"] * 5 + ["text_category"] * 4 + ["text_filters"] * 4 + ["attributes"] * 3 + ["filter_only"] * 3
         + ["brand_only"] * 2 + ["selective", "fallback", "no_results"] + ["sorted"] * 2)


def _blank() -> dict:
    return dict(query="", category_id=None, brand=None, min_price_usd=None, max_price_usd=None, min_rating=None,
                max_ship_days=None, attributes={}, in_stock_only=False, limit=10, sort_by="featured")


def _words(rng: random.Random, cat) -> str:
    noun = rng.choice(cat.nouns).lower()
    titled = [a for a in cat.attributes if a.in_title]
    pick = rng.randrange(3)
    if pick == 0 and titled:
        return f"{rng.choice(rng.choice(titled).values).lower()} {noun}"  # "usb-c wall charger"
    if pick == 1:
        return f"{rng.choice(cat.brands).lower()} {noun}"  # "anker power bank"
    return noun.split()[-1]  # "headphones"


def _price_cap(rng: random.Random, cat) -> float:
    lo, hi = cat.price_cents
    return round(lo * (hi / lo) ** rng.uniform(0.3, 0.9) / 100)


def make_query(kind: str, rng: random.Random) -> dict:
    cat = rng.choice(SHOPPABLE_CATEGORIES)
    q = _blank() | {"limit": rng.choice((10, 10, 10, 20, 50))}
    if kind == "text":
        q["query"] = _words(rng, cat)
    elif kind == "text_category":
        q |= {"query": _words(rng, cat), "category_id": cat.id}
    elif kind == "text_filters":
        q |= {"query": rng.choice(cat.nouns).split()[-1].lower(), "category_id": cat.id,
              "max_price_usd": _price_cap(rng, cat), "in_stock_only": rng.random() < 0.5}
        if rng.random() < 0.5:
            q["brand"] = rng.choice(cat.brands)
        if rng.random() < 0.5:
            q["min_rating"] = rng.choice((4.0, 4.5))
    elif kind == "attributes":
        attrs = rng.sample(cat.attributes, k=min(len(cat.attributes), rng.randint(1, 2)))
        q |= {"category_id": cat.id, "attributes": {a.name: rng.choice(a.values) for a in attrs},
              "query": rng.choice(("", "", rng.choice(cat.nouns).split()[-1].lower()))}
    elif kind == "filter_only":
        q |= {"category_id": cat.id, "min_price_usd": round(cat.price_cents[0] / 100 * 1.5),
              "max_price_usd": _price_cap(rng, cat), "min_rating": rng.choice((None, 4.0, 4.5)),
              "max_ship_days": rng.choice((None, 2, 3)), "in_stock_only": True}
    elif kind == "brand_only":
        q |= {"brand": rng.choice(cat.brands), "max_ship_days": rng.choice((None, 3))}
    elif kind == "selective":  # a common word plus rare non-indexed filters: the slow path
        q |= {"query": rng.choice(("black", "wireless", "usb", "pro", "white")), "in_stock_only": True,
              "min_rating": rng.choice((4.5, 4.8, 4.9)), "max_ship_days": rng.choice((1, 2)),
              "max_price_usd": rng.choice((15, 25, 40))}
    elif kind == "fallback":  # no product has every word: relaxed to any word
        other = rng.choice(SHOPPABLE_CATEGORIES)
        q["query"] = f"{rng.choice(cat.nouns).split()[-1]} {rng.choice(other.nouns).split()[-1]} bundle".lower()
    elif kind == "sorted":  # the "sort by" button: ranks every match of the category (walks its index)
        q |= {"category_id": cat.id, "sort_by": rng.choice(("price", "rating", "delivery")),
              "in_stock_only": True, "min_rating": rng.choice((None, 4.0))}
        if rng.random() < 0.5:
            q["query"] = rng.choice(cat.nouns).split()[-1].lower()
    elif kind == "no_results":
        q |= rng.choice(({"query": "flux capacitor"}, {"query": "zorbulator"},
                         {"category_id": cat.id, "brand": "Nonexistent Brand"},
                         {"category_id": cat.id, "max_price_usd": 1.0}))
    return q


def query_mix(count: int, seed: int) -> tuple[list[str], list[dict]]:
    """(kind, arguments) of `count` queries, plus one plain browse (no words, no filters)."""
    rng = random.Random(seed)
    kinds = [KINDS[i % len(KINDS)] for i in range(count)] + ["browse"]
    return kinds, [make_query(kind, rng) for kind in kinds[:-1]] + [_blank()]


async def bench_size(path: Path, queries: list[dict], rounds: int, mcp_calls: int) -> dict:
    opens = []
    for _ in range(5):
        t = now()
        CatalogReader(path).close()
        opens.append(now() - t)
    with tempfile.TemporaryDirectory(prefix="verishop-bench-runs-") as runs:
        t = now()
        hub = EpisodeHub(path, Path(runs))
        hub_s = now() - t
        try:
            scenario = hub.generate("pd", 3, 1)
            # The per-turn lookup budget would refuse the timed MCP calls; this measures speed.
            unlimited = scenario.axes.model_copy(update={"tool_calls_per_turn": 1_000_000})
            ep = await hub.open(scenario.model_copy(update={"axes": unlimited}), default=True)
            first, empty, relaxed = [], 0, 0
            for q in queries:  # warm-up pass
                t = now()
                result = await search_catalog(ep, **q)
                first.append(now() - t)
                empty += not result.results
                relaxed += result.note is not None
            timed, per_query = [], [0.0] * len(queries)
            for _ in range(rounds):
                for i, q in enumerate(queries):
                    t = now()
                    await search_catalog(ep, **q)
                    timed.append(dt := now() - t)
                    per_query[i] = max(per_query[i], dt)
            async with Client(create_server(hub)) as client:
                date, via_mcp = [], []
                for i in range(mcp_calls + 20):  # the first 20 warm up
                    t = now()
                    result = await client.call_tool("get_current_date", {})
                    date.append(now() - t)
                    assert not result.is_error, result
                for q in queries:
                    t = now()
                    result = await client.call_tool("search_catalog", q)
                    via_mcp.append(now() - t)
                    assert not result.is_error, result
        finally:
            await hub.aclose()
    slowest = sorted(range(len(queries)), key=per_query.__getitem__, reverse=True)[:5]
    per_query_ms = [ms(t) for t in per_query]
    return {"open_reader_ms": ms(statistics.median(opens)), "hub_ctor_ms": ms(hub_s), "search": summary_ms(timed),
            "first_pass": summary_ms(first), "no_result_queries": empty, "relaxed_queries": relaxed,
            "mcp_get_current_date": summary_ms(date[20:]), "mcp_search": summary_ms(via_mcp),
            "per_query_max_ms": per_query_ms, "slowest": [{"ms": per_query_ms[i], "query": queries[i]} for i in slowest]}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000,2000000")
    parser.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--queries", type=int, default=240)
    parser.add_argument("--rounds", type=int, default=3, help="timed passes over the mix")
    parser.add_argument("--mcp-calls", type=int, default=200)
    args = parser.parse_args()
    kinds, queries = query_mix(args.queries, QUERY_SEED)
    results = {}
    for size in parse_sizes(args.sizes):
        path, built = cached_catalog(args.cache_dir, size)
        console.print(f"[dim]size {size:,}: {'built in %.1f s' % built if built else 'reused'} {path}[/dim]")
        results[size] = await bench_size(path, queries, args.rounds, args.mcp_calls) | {"built_s": built}

    rows = []
    for size, r in results.items():
        s, base = r["search"], r["mcp_get_current_date"]["p50"]
        rows.append([size, r["open_reader_ms"], r["hub_ctor_ms"], s["p50"], s["p95"], s["p99"], s["max"],
                     r["first_pass"]["max"], r["mcp_search"]["p50"], base, f"{s['p50'] / base:.2f}x",
                     f"{r['no_result_queries']}/{len(queries)}"])
    print_table(f"search_catalog latency, ms ({len(queries)} queries x {args.rounds} rounds, seed {QUERY_SEED})",
                ["products", "open reader", "hub ctor", "p50", "p95", "p99", "max", "1st-pass max",
                 "via MCP p50", "MCP date p50", "p50 / date", "no results"], rows)
    largest = max(results)
    by_kind: dict[str, list[float]] = {}
    for kind, t in zip(kinds, results[largest]["per_query_max_ms"]):
        by_kind.setdefault(kind, []).append(t)
    print_table(f"by query kind at {largest:,} products (max over rounds per query, ms)", ["kind", "queries", "median", "max"],
                [[k, len(v), statistics.median(v), max(v)] for k, v in by_kind.items()])
    console.print(f"slowest queries at {largest:,}:")
    for item in results[largest]["slowest"][:3]:
        q = {k: v for k, v in item["query"].items() if v not in (None, {}, False, "")}
        console.print(f"  {item['ms']:8.2f} ms  {q}")
    if 2_000_000 in results:
        s = results[2_000_000]["search"]
        console.print(f"target at 2M: p50 <= {TARGET_P50_MS:g} ms: {verdict(s['p50'], TARGET_P50_MS)}; "
                      f"p99 <= {TARGET_P99_MS:g} ms: {verdict(s['p99'], TARGET_P99_MS)}")
    write_json("search", {"query_seed": QUERY_SEED, "queries": len(queries), "kinds": kinds, "rounds": args.rounds,
                          "sizes": {str(k): v for k, v in results.items()}})


if __name__ == "__main__":
    anyio.run(main)
