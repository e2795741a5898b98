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

import math
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass

from scenarios.catalog.reader import PRODUCT_COLUMNS, CatalogReader, Product
from scenarios.models import RankedProduct

SCORE_SLACK = 2e-6
# Thresholds below the best possible score, tried in turn: most rankings finish at the first
# or second; None reads every candidate (a small category, or a goal only a few products meet).
THRESHOLD_STEPS = (0.02, 0.05, 0.1, 0.2, 0.4, None)
# Rows fetched per query beyond k and the episode's sold-out products: ties and near-ties.
EXTRA_ROWS = 16


@dataclass(frozen=True)
class RankQuery:
    where: str  # the candidate rows (catalog stock is filtered here; episode stock in Python)
    where_args: list[object]
    score_sql: str
    score_args: list[object]
    score: Callable[[Product], float]  # exact, rounded to 6 decimals
    admits: Callable[[Product], bool]  # `where` in Python, for episode products
    index: str
    # SQL conditions on the index's columns met by every row scoring at least the threshold.
    bounds: Callable[[float], tuple[str, list[object]]]
    best_possible: float


def ensure_ln(db: sqlite3.Connection) -> None:
    """SQLite builds without the math functions lack ln(); Python's log is the same libm call."""
    try:
        db.execute("SELECT ln(2.0)").fetchone()
    except sqlite3.OperationalError:
        db.create_function("ln", 1, math.log, deterministic=True)


def top_k(catalog: CatalogReader, query: RankQuery, k: int, stock: dict[str, int],
          extra: list[Product] = ()) -> list[RankedProduct]:
    """The k best in-stock candidates (episode `stock` applied, episode `extra` products added) by
    exact score, best first, ties by ID: what ranking every candidate would give."""
    ensure_ln(catalog.db)
    pool = [*extra, *_restocked(catalog, query, stock)]
    sold_out = sum(1 for s in stock.values() if s <= 0)
    for step in THRESHOLD_STEPS:
        threshold = None if step is None else query.best_possible - step
        limit = k + sold_out + EXTRA_ROWS
        while True:
            rows = _fetch(catalog, query, threshold, limit)
            ranked = _rank([*pool, *(p for p, _ in rows)], query, stock)
            truncated = len(rows) == limit
            # Every unread row scores below `unread_max`: below the last row read if the query
            # was cut by its limit, below the threshold otherwise (none at all without one).
            unread_max = rows[-1][1] if truncated else threshold
            if unread_max is None or (len(ranked) >= k and ranked[k - 1].utility > unread_max + SCORE_SLACK):
                return ranked[:k]
            if not truncated:
                break  # too few rows clear this threshold: lower it
            limit *= 2
    raise AssertionError("unreachable: the last step reads every candidate")


def _fetch(catalog: CatalogReader, query: RankQuery, threshold: float | None,
           limit: int) -> list[tuple[Product, float]]:
    """Candidates scoring at least `threshold` (all without one), best SQL score first."""
    where, args = query.where, [*query.where_args]
    if threshold is not None:
        # The bounds first: SQLite checks conditions on the index's columns in WHERE order before
        # it reads the table row, and a table row costs about 3 µs at 2M products.
        bound_sql, bound_args = query.bounds(threshold - SCORE_SLACK)
        where = f"{bound_sql} AND {where} AND ({query.score_sql}) >= ?"
        args = [*bound_args, *args, *query.score_args, threshold - SCORE_SLACK]
    sql = (f"SELECT {PRODUCT_COLUMNS}, ({query.score_sql}) AS score FROM products INDEXED BY {query.index} "
           f"WHERE {where} ORDER BY score DESC LIMIT ?")
    rows = catalog.db.execute(sql, [*query.score_args, *args, limit]).fetchall()
    return [(Product.from_row(r[:-1]), r[-1]) for r in rows]


def _restocked(catalog: CatalogReader, query: RankQuery, stock: dict[str, int]) -> list[Product]:
    """Catalog products sold out in the catalog but in stock in the episode (the SQL skips them)."""
    found = (catalog.product(pid) for pid, s in stock.items() if s > 0)
    return [p for p in found if p is not None and p.stock <= 0 and query.admits(p)]


def _rank(products: list[Product], query: RankQuery, stock: dict[str, int]) -> list[RankedProduct]:
    unique = {p.product_id: p for p in products}
    ranked = [RankedProduct(product_id=pid, utility=query.score(p))
              for pid, p in unique.items() if stock.get(pid, p.stock) > 0]
    ranked.sort(key=lambda r: (-r.utility, r.product_id))
    return ranked
