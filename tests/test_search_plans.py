"""A sorted search returns the same page whichever plan reads it: walking the category's index
in the sort order (bounded reads at 2M products) with the words as a rowid set or probed row by
row, or ranking every match (the plan before the category indexes, still used for few matches and
for catalogs built before them)."""

from __future__ import annotations

import random

import pytest

import verishop.mcp_server.shop.catalog as shop_catalog
from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.shop.catalog import search_catalog
from verishop.scenarios.catalog.text import (
    brand_token,
    category_token,
    match_expression,
    query_words,
)
from verishop.scenarios.taxonomy import SHOPPABLE_CATEGORIES


def sorted_query(rng: random.Random) -> dict:
    """A sorted search as agents send them: a category, maybe words, a brand or attributes, filters."""
    cat = rng.choice(SHOPPABLE_CATEGORIES)
    query = dict(query="", category_id=cat.id, brand=None, min_price_usd=None, max_price_usd=None,
                 min_rating=rng.choice((None, None, 3.5, 4.0, 4.5)), max_ship_days=rng.choice((None, None, 2, 3)),
                 attributes={}, in_stock_only=rng.random() < 0.6, limit=rng.choice((1, 5, 10, 20, 50)),
                 sort_by=rng.choice(("price", "rating", "delivery")))
    extra = rng.randrange(4)
    if extra == 1:
        query["query"] = rng.choice(cat.nouns).split()[-1].lower()
    elif extra == 2:
        query["brand"] = rng.choice(cat.brands)
    elif extra == 3 and cat.attributes:
        attribute = rng.choice(cat.attributes)
        query["attributes"] = {attribute.name: rng.choice(attribute.values)}
    if rng.random() < 0.4:
        low, high = cat.price_cents
        query["max_price_usd"] = round(rng.uniform(low, high) / 100, 2)
    return query


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_walking_the_category_index_gives_the_page_ranking_every_match_gives(
        hub: EpisodeHub, seed: int, monkeypatch: pytest.MonkeyPatch) -> None:
    # pd at d=8 has episode stock-outs, so the stock join is part of what is compared.
    ep = await hub.open(hub.generate("pd", 8, seed))
    assert ep.catalog.schema_version >= 2
    rng = random.Random(seed)
    queries = [sorted_query(rng) for _ in range(150)]

    monkeypatch.setattr(shop_catalog, "FEW_MATCHES", 0)  # every search with a category walks
    monkeypatch.setattr(shop_catalog, "DENSE_HITS", shop_catalog.DENSE_SAMPLE + 1)  # words as a rowid set
    walked = [await search_catalog(ep, **q) for q in queries]
    monkeypatch.setattr(shop_catalog, "DENSE_HITS", 0)  # words probed row by row
    probed = [await search_catalog(ep, **q) for q in queries]
    monkeypatch.setattr(ep.catalog, "schema_version", 1)  # as on a catalog without the indexes
    ranked = [await search_catalog(ep, **q) for q in queries]

    assert walked == ranked
    assert probed == ranked
    assert sum(len(r.results) for r in walked) > 500  # the comparison is not of empty pages


async def test_a_sorted_search_of_a_whole_category_reads_its_index_not_every_match(hub: EpisodeHub) -> None:
    ep = await hub.open(hub.generate("pd", 2, 1))
    cat = SHOPPABLE_CATEGORIES[0].id
    for sort_by, index in shop_catalog.SORT_INDEXES.items():
        sql_seen: list[tuple[str, list]] = []
        execute = ep.db.execute

        def spy(sql, params=(), _execute=execute, **options):
            sql_seen.append((sql, list(params)))
            return _execute(sql, params, **options)

        ep.db.execute = spy  # type: ignore[method-assign]
        try:
            await search_catalog(ep, query="", category_id=cat, brand=None, min_price_usd=None,
                                 max_price_usd=20.0, min_rating=4.0, max_ship_days=None, attributes={},
                                 in_stock_only=True, limit=10, sort_by=sort_by)
        finally:
            ep.db.execute = execute  # type: ignore[method-assign]
        sql, params = sql_seen[-1]
        plan = await (await ep.db.execute("EXPLAIN QUERY PLAN " + sql, params)).fetchall()
        details = " ".join(str(row[-1]) for row in plan)
        assert f"USING INDEX {index}" in details and "TEMP B-TREE" not in details, details


@pytest.mark.parametrize("seed", [1, 2])
async def test_a_featured_search_page_is_the_rows_the_materialised_join_gave(hub: EpisodeHub, seed: int) -> None:
    """The featured search reads `rowid IN (first matches)` in rowid order and stops at the page;
    before, it joined the materialised matches and sorted them: the same rows, in the same order."""

    ep = await hub.open(hub.generate("pd", 8, seed))  # episode stock-outs: the stock column is compared too
    rng = random.Random(seed)
    compared = 0
    for _ in range(120):
        cat = rng.choice(SHOPPABLE_CATEGORIES)
        facets = [category_token(cat.id)] if rng.random() < 0.7 else []
        words = query_words(rng.choice(cat.nouns))[-1:] if rng.random() < 0.5 else []  # as the tool reads them
        if rng.random() < 0.2:
            facets.append(brand_token(rng.choice(cat.brands)))
        match = match_expression(words, facets) if words or facets else None
        where, args = [], []
        if rng.random() < 0.4:
            where.append("p.price_cents <= ?")
            args.append(rng.randrange(*cat.price_cents))
        if rng.random() < 0.4:
            where.append("p.rating >= ?")
            args.append(rng.choice((3.5, 4.0, 4.5)))
        if rng.random() < 0.5:
            where.append(f"{ep.stock_sql} > 0")
            args.extend(ep.stock_args)
        filters = "".join(" AND " + w for w in where)
        depth, limit = rng.choice((5, 40, 150, 400)), rng.choice((1, 6, 11, 51))
        page = await shop_catalog._run_search(ep, match, filters=filters, args=args, limit=limit, depth=depth)

        source = ("(SELECT rowid FROM cat.products ORDER BY rowid LIMIT ?)" if match is None
                  else "(SELECT rowid FROM cat.products_fts(?) ORDER BY rowid LIMIT ?)")
        joined = (f"SELECT {shop_catalog._columns(ep)} FROM {source} f JOIN cat.products p ON p.rowid = f.rowid "
                  f"{shop_catalog._STOCK_JOIN} WHERE 1{filters} ORDER BY f.rowid LIMIT ?")
        params = [*ep.stock_args, *([depth] if match is None else [match, depth]), *args, limit]
        async with ep.db.execute(joined, params) as cur:
            before = [tuple(row) for row in await cur.fetchall()]
        assert [(p.product_id, p.stock) for p in page] == [(row[0], row[9]) for row in before]
        assert [p.attrs for p in page] == [shop_catalog.Product.from_row(row).attrs for row in before]
        compared += len(page)
    assert compared > 300  # pages, not empty lists, were compared
