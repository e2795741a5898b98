"""Where an open episode's world lives: an in-memory SQLite database on a connection that has the
shared catalog attached as `cat` (and the `shop_products` view over both), kept for the next
episode when this one closes.

Attaching the catalog reads its schema (the full-text index's tables included): about 0.7 ms of
CPU at 1k products, more than the rest of opening an episode. A kept connection pays it once;
the next episode gets a fresh world by deserializing the empty world image into its main
database, which leaves the attached catalog and the view in place. The world's durable copy is
in the process's store (`mcp_server/episodes/store.py`).
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from verishop.scenarios.catalog.reader import readonly_uri
from verishop.scenarios.world_db import empty_world_image

# Catalog products and the episode's own (synthesized) ones, with a rank for featured order.
SHOP_PRODUCTS_VIEW = """
CREATE TEMP VIEW shop_products AS
SELECT rowid AS rank, product_id, group_id, title, brand, category_id, price_cents, rating, rating_count,
       ship_days, stock, attrs FROM cat.products
UNION ALL
SELECT 1000000000000 + rowid, product_id, group_id, title, brand, category_id, price_cents, rating,
       rating_count, ship_days, stock, attrs FROM main.extra_products
"""

# Connections kept between episodes (each holds one descriptor, on the catalog): a burst of
# closings keeps this many, and closes the rest.
IDLE_WORLDS = 8


class WorldPool:
    """In-memory world connections over one catalog (see the module docstring)."""

    def __init__(self, catalog_path: Path, idle: int = IDLE_WORLDS):
        # The URI is quoted as an SQL string literal.
        catalog_uri = readonly_uri(Path(catalog_path)).replace("'", "''")
        self._setup = f"ATTACH DATABASE '{catalog_uri}' AS cat; {SHOP_PRODUCTS_VIEW};"
        self._idle: list[sqlite3.Connection] = []
        self._idle_max = idle
        self._guard = threading.Lock()
        self._closed = False

    @property
    def idle(self) -> int:
        """How many connections are kept for the next episodes."""
        return len(self._idle)

    def take(self) -> sqlite3.Connection:
        """A connection whose main database is an empty world (every table, no rows)."""
        with self._guard:
            db = self._idle.pop() if self._idle else None
        if db is None:
            # check_same_thread=False: offloaded statements run in worker threads, one at a
            # time with the loop's (mcp_server/episodes/connection.py).
            db = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            try:
                db.executescript(self._setup)
            except BaseException:
                db.close()
                raise
        try:
            db.deserialize(empty_world_image())
        except BaseException:
            db.close()
            raise
        return db

    def give_back(self, db: sqlite3.Connection) -> None:
        """Keep `db` for a later episode (or close it: the pool is full or closed, or `db` is in
        the middle of a transaction)."""
        with self._guard:
            keep = not self._closed and len(self._idle) < self._idle_max and not db.in_transaction
            if keep:
                self._idle.append(db)
        if not keep:
            db.close()

    def close(self) -> None:
        with self._guard:
            self._closed = True
            idle, self._idle = self._idle, []
        for db in idle:
            db.close()
