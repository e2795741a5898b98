"""The k best products of a ranking, read through a category index instead of scoring every
candidate in Python.

A `RankQuery` describes one ranking: which rows are candidates (a WHERE clause), the exact score
of a product (Python, the one the verifier uses), the same score as an SQL expression, and, for
a threshold T, conditions on an index's columns that every row scoring at least T meets. `top_k`
asks SQLite for the best rows by the SQL score among those scoring at least T, lowering T until
the k-th best exact score clears every row left unread, so the list is the one a full scan would
rank (`tests/test_topk.py` compares the two).

Why a threshold and not "ORDER BY score LIMIT k" alone: the score has no index, so that would
read every candidate row (74,000 in a category at 2M products, 3 µs a row). A high threshold
narrows the walk to one end of the index, where the best rows are.

The SQL score may differ from the exact one by float noise and by the exact score's own rounding
(to 6 decimals), both well under SCORE_SLACK; the stopping rule leaves that much room.
"""

from __future__ import annotations

import json
import math
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

from verishop.scenarios.catalog.reader import PRODUCT_COLUMNS, CatalogReader, Product
from verishop.scenarios.models import RankedProduct
from verishop.scenarios.stock import CATALOG_NUMBER_SQL, EpisodeStock

SCORE_SLACK = 2e-6
# Thresholds below the best possible score, tried in turn: most rankings finish at the first
# or second; None reads every candidate (a small category, or a goal only a few products meet).
THRESHOLD_STEPS = (0.02, 0.05, 0.1, 0.2, 0.4, None)
# Facet lists up to this long are read whole once the first walk of the index found too few.
FACET_ROWS_READ_WHOLE = 1000
# A category this small is ranked whole in one query: cheaper than any walk.
SMALL_CATEGORY_ROWS = 64
# Rows fetched per query beyond k and the episode's sold-out products: ties and near-ties.
EXTRA_ROWS = 16
# The rows holding every token of an FTS5 MATCH expression (the facet tokens of the builder).
IN_FACET_LIST = "rowid IN (SELECT rowid FROM products_fts WHERE products_fts MATCH ?)"
# The same test for one row: a lookup of its rowid in the full-text index.
HAS_FACETS = "EXISTS (SELECT 1 FROM products_fts(?) f WHERE f.rowid = products.rowid)"


@dataclass(frozen=True)
class Head:
    """Candidates found through the full-text index's facet tokens (`verishop.scenarios.catalog.text`):
    the rows holding every token of `match`, all others scoring at most `others_max`. When the
    k-th best of the head beats `others_max`, the ranking reads nothing else."""
    match: str  # an FTS5 MATCH expression
    others_max: float


@dataclass(frozen=True)
class RankQuery:
    where: str  # the candidate rows (catalog stock is filtered here; the episode's in `top_k`)
    where_args: list[object]
    score_sql: str
    score_args: list[object]
    score: Callable[[Product], float]  # exact, rounded to 6 decimals
    admits: Callable[[Product], bool]  # `where` in Python, for episode products
    index: str
    # SQL conditions on the index's columns met by every row scoring at least the threshold.
    bounds: Callable[[float], tuple[str, list[object]]]
    best_possible: float
    head: Head | None = None
    category_id: str | None = None  # every candidate's, when they share one
    # An FTS5 MATCH expression every candidate's row holds (facet tokens of the goal's brand and
    # attributes): checked on the index entry's rowid, before SQLite reads the table row.
    facets: str | None = None
    # Thresholds below the best possible tried first, before the head: for a ranking whose bounds
    # on the index entry leave few table rows to read near the top.
    fine_steps: tuple[float, ...] = ()
    # Thresholds below the best possible tried after the head (None: every candidate).
    steps: tuple[float | None, ...] = THRESHOLD_STEPS


def ensure_ln(db: sqlite3.Connection) -> None:
    """SQLite builds without the math functions lack ln(); Python's log is the same libm call."""
    try:
        db.execute("SELECT ln(2.0)").fetchone()
    except sqlite3.OperationalError:
        db.create_function("ln", 1, math.log, deterministic=True)


def top_k(catalog: CatalogReader, query: RankQuery, k: int, stock: EpisodeStock,
          extra: list[Product] = ()) -> list[RankedProduct]:
    """The k best in-stock candidates (episode `stock` applied, episode `extra` products added) by
    exact score, best first, ties by ID: what ranking every candidate would give. Rows that the
    episode's sell-out rules sell out are skipped in SQL; its explicit changes apply in Python."""
    ranking = _Ranking(catalog, query, k, stock, pool=[*extra, *_restocked(catalog, query, stock)],
                       limit=k + stock.explicitly_sold_out() + EXTRA_ROWS)
    small = query.category_id is not None and catalog.category_has_at_most(query.category_id, SMALL_CATEGORY_ROWS)
    if small:
        held = catalog.category_in_memory(query.category_id)
        if held is not None:
            # Every candidate at hand (an in-process shop's reader keeps the catalog): the ranking of
            # all of them, which is what the walk below reads from SQL (`where` = `admits`).
            return _rank([*ranking.pool, *(p for p in held if query.admits(p))], query, stock, k)
    ensure_ln(catalog.db)  # the SQL below scores with ln() (a statement to check: not for a ranking in memory)
    if small:
        return ranking.best_if_exact(threshold_filter(query, None), None)
    for step in query.fine_steps:
        threshold = query.best_possible - step
        found = ranking.best_if_exact(threshold_filter(query, threshold, with_facets=False), threshold)
        if found is not None:
            return found
    if query.head is not None:
        head = facet_filter(query.head.match)
        found = ranking.best_if_exact(head, query.head.others_max)
        if found is not None:
            return found
    for i, step in enumerate(query.steps):
        threshold = None if step is None else query.best_possible - step
        # k candidates already seen score at least `floor`, so the k best do too: a walk down to
        # just below it is the last one needed (its check passes unless its limit cuts rows off).
        floor = _kth_best(ranking.seen, k)
        if floor is not None and (threshold is None or floor - 2 * SCORE_SLACK > threshold):
            threshold = floor - 2 * SCORE_SLACK
        elif i == 1 and query.facets is not None and (
                few := _facet_rows_at_most(catalog, query.facets, FACET_ROWS_READ_WHOLE)) is not None:
            # The first walk found too few; the goal's brand and attributes leave so few products
            # that reading every one of them is cheaper than walking further down the index.
            return ranking.best_if_exact(rows_filter(few), None)
        # The facets (a lookup per row, or a set of the list's rowids for every candidate) only
        # once the first walk has shown that few rows of the index meet the goal.
        narrowed = threshold_filter(query, threshold, with_facets=i > 0)
        found = ranking.best_if_exact(narrowed, threshold)
        if found is not None:
            return found
    # Not reached when the steps end with None (every candidate), as they do: the floor's walk
    # passes its check by construction. Should float noise ever say otherwise, read everything.
    return ranking.best_if_exact(threshold_filter(query, None, with_facets=False), None)


def _kth_best(seen: dict[str, float], k: int) -> float | None:
    return sorted(seen.values(), reverse=True)[k - 1] if len(seen) >= k else None


@dataclass(frozen=True)
class Filter:
    """What narrows the candidates: conditions checked before the query's WHERE (cheap ones, on
    an index's columns) and after it (the score), and the FROM clause that reads them."""
    before: str
    before_args: list[object]
    source: str
    after: str = "1"
    after_args: tuple[object, ...] = ()
    # A lookup per row in the full-text index, after `before` and the episode's sell-out rule.
    probe: str | None = None


def facet_filter(match: str) -> Filter:
    """The rows holding every facet token of `match`."""
    # NOT INDEXED: the rows come from the full-text index's list, one rowid lookup each; through a
    # category index SQLite would walk the whole category to test each rowid against the list.
    return Filter(IN_FACET_LIST, [match], "products NOT INDEXED")


def rows_filter(rowids: list[int]) -> Filter:
    """The rows `rowids`, read one by one (found before, so the full-text match is not run again:
    at 2M products intersecting three or four facet tokens' lists costs 1 to 3 ms)."""
    return Filter("rowid IN (SELECT value FROM json_each(?))", [json.dumps(rowids)], "products NOT INDEXED")


def threshold_filter(query: RankQuery, threshold: float | None, with_facets: bool = True) -> Filter:
    """The rows of the query's index that may score at least `threshold` (every row without one)."""
    source = f"products INDEXED BY {query.index}"
    # What the index entry holds first: SQLite checks conditions on the index's columns (and the
    # rowid) in WHERE order before it reads the table row, and a table row costs about 3 µs at 2M
    # products. The score last: the query's own conditions are cheaper and reject most rows.
    facets = query.facets is not None and with_facets
    if threshold is None:  # every candidate: the facet list's rowids as a set, built once
        return Filter(IN_FACET_LIST if facets else "1", [query.facets] if facets else [], source)
    # Under a threshold the index's bounds leave few rows, so each is looked up in the full-text
    # index after them: building the facet list's set cost 3 to 24 ms at 2M products (a brand's
    # list spans every category), the lookups a fraction of it (pd's p99 at 2M: 33 -> 16 ms).
    bound_sql, bound_args = query.bounds(threshold - SCORE_SLACK)
    return Filter(bound_sql, bound_args, source, f"({query.score_sql}) >= ?",
                  (*query.score_args, threshold - SCORE_SLACK), probe=query.facets if facets else None)


@dataclass(frozen=True)
class _Ranking:
    """One `top_k` call: what each of its walks of the index shares. `pool`: the episode's products
    the SQL cannot see; `limit`: the rows a walk fetches first; `seen`: every candidate ranked so
    far, with its exact score."""

    catalog: CatalogReader
    query: RankQuery
    k: int
    stock: EpisodeStock
    pool: list[Product]
    limit: int
    seen: dict[str, float] = field(default_factory=dict)

    def best_if_exact(self, narrowed: Filter, others_max: float | None) -> list[RankedProduct] | None:
        """The k best, if the rows the filter leaves out (scoring at most `others_max`; None: it
        leaves none out) cannot be among them; else None. The walk's limit doubles while it cuts
        rows off."""
        k, limit = self.k, self.limit
        while True:
            rows = _fetch(self.catalog, self.query, narrowed, limit, self.stock)
            ranked = _rank([*self.pool, *(p for p, _ in rows)], self.query, self.stock)
            self.seen.update((r.product_id, r.utility) for r in ranked)
            truncated = len(rows) == limit
            # Unread rows score at most the last row read (cut by the limit) or `others_max`.
            unread_max = max(rows[-1][1], others_max if others_max is not None else -math.inf) if truncated \
                else others_max
            if unread_max is None or (len(ranked) >= k and ranked[k - 1].utility > unread_max + SCORE_SLACK):
                return ranked[:k]
            if not truncated:
                return None  # too few rows pass this filter
            limit *= 2


def _fetch(catalog: CatalogReader, query: RankQuery, narrowed: Filter, limit: int,
           stock: EpisodeStock) -> list[tuple[Product, float]]:
    """Candidates passing the filter and not sold out by a rule, best SQL score first."""
    sql, args = fetch_sql(query, narrowed, stock)
    rows = catalog.db.execute(sql, [*args, limit]).fetchall()
    return [(Product.from_row(r[:-1]), r[-1]) for r in rows]


def fetch_sql(query: RankQuery, narrowed: Filter, stock: EpisodeStock = EpisodeStock()) -> tuple[str, list[object]]:
    """The SQL of `_fetch` and its arguments, the LIMIT's aside (for EXPLAIN QUERY PLAN in tests)."""
    # The rule on the rowid, right after the index's own conditions: SQLite then skips a sold-out
    # row without reading it from the table.
    ruled, ruled_args = stock.sold_by_rule_sql(number=CATALOG_NUMBER_SQL) or ("", [])
    unruled = f" AND NOT {ruled}" if ruled else ""
    probe = f" AND {HAS_FACETS}" if narrowed.probe else ""
    sql = (f"SELECT {PRODUCT_COLUMNS}, ({query.score_sql}) AS score FROM {narrowed.source} "
           f"WHERE {narrowed.before}{unruled}{probe} AND {query.where} AND {narrowed.after} ORDER BY score DESC LIMIT ?")
    return sql, [*query.score_args, *narrowed.before_args, *ruled_args, *([narrowed.probe] if narrowed.probe else []),
                 *query.where_args, *narrowed.after_args]


def _facet_rows_at_most(catalog: CatalogReader, match: str, rows: int) -> list[int] | None:
    """The rowids holding every token of `match`, if there are at most `rows` of them; else None."""
    sql = "SELECT rowid FROM products_fts WHERE products_fts MATCH ? LIMIT ?"
    found = [rowid for (rowid,) in catalog.db.execute(sql, (match, rows + 1))]
    return found if len(found) <= rows else None


def _restocked(catalog: CatalogReader, query: RankQuery, stock: EpisodeStock) -> list[Product]:
    """Catalog products given stock explicitly that the SQL skips (sold out in the catalog, or
    by a rule, which an explicit change overrides)."""
    found = (catalog.product(pid) for pid in stock.restocked())
    return [p for p in found if p is not None and (p.stock <= 0 or stock.sold_by_rule(p)) and query.admits(p)]


def _rank(products: list[Product], query: RankQuery, stock: EpisodeStock,
          k: int | None = None) -> list[RankedProduct]:
    """The in-stock products by score, best first, ties by ID (the first `k`, if given: only
    those are made into `RankedProduct`s)."""
    unique = {p.product_id: p for p in products}
    scored = [(-query.score(p), pid) for pid, p in unique.items() if stock.units(p) > 0]
    scored.sort()
    return [RankedProduct(product_id=pid, utility=-negated) for negated, pid in scored[:k]]
