"""The featured order of an imported catalog: its rows staged in feed order, then placed in the
order of a hash of the shop's IDs.

Why not the feed's order: feeds list a category's products together, while the catalog's row
numbers carry its product IDs (`generate.product_id`), and the out-of-stock axis sells out
products by a hash linear in that number (`verishop.scenarios.stock`). A category on consecutive
rows then sells out all or nothing instead of the promised share. Spread over the rows by an
ID hash, as generation spreads categories, each category sells out its share, and a category's
first rows in featured order stay a fair sample of it (`CatalogReader.featured_in_category`).
The hash is of the shop's IDs only, so the same feed gives the same catalog on every machine.
"""

from __future__ import annotations

import hashlib
import sqlite3

from verishop.scenarios.catalog.generate import _ID_MULTIPLIER, _ID_OFFSET, _ID_SPACE

STAGING = """
CREATE TEMP TABLE staged (
    rowid INTEGER PRIMARY KEY, source_id TEXT NOT NULL, group_row INTEGER NOT NULL, title TEXT NOT NULL,
    brand TEXT NOT NULL, category_id TEXT NOT NULL, price_cents INTEGER NOT NULL, rating REAL NOT NULL,
    rating_count INTEGER NOT NULL, ship_days INTEGER NOT NULL, stock INTEGER NOT NULL, attrs TEXT NOT NULL,
    text TEXT NOT NULL
);
CREATE TEMP TABLE featured (staged INTEGER PRIMARY KEY, row INTEGER NOT NULL);
"""
STAGE_ROW = "INSERT INTO staged VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)"
# `generate.product_id` of a row number, in SQL.
_PRODUCT_ID_SQL = "printf('P%08d', ({row} * {m} + {o}) % {s})"
_READ_BATCH = 50_000


def _product_id_sql(row: str) -> str:
    return _PRODUCT_ID_SQL.format(row=row, m=_ID_MULTIPLIER, o=_ID_OFFSET, s=_ID_SPACE)


def hash_key(source_id: str) -> bytes:
    return hashlib.blake2b(source_id.encode(), digest_size=8).digest()


def place(db: sqlite3.Connection) -> None:
    """Move the staged rows into `products`, `products_fts` and `source_ids` in featured order."""
    keys: list[tuple[bytes, int]] = []
    rows = db.execute("SELECT source_id, rowid FROM staged ORDER BY rowid")
    while batch := rows.fetchmany(_READ_BATCH):
        keys.extend((hash_key(source_id), staged) for source_id, staged in batch)
    keys.sort()
    db.executemany("INSERT INTO featured VALUES (?, ?)", ((staged, row) for row, (_, staged) in enumerate(keys)))
    del keys
    db.execute(f"""
        INSERT INTO products
        SELECT f.row, {_product_id_sql('f.row')}, {_product_id_sql('g.row')}, s.title, s.brand, s.category_id,
               s.price_cents, s.rating, s.rating_count, s.ship_days, s.stock, s.attrs
        FROM featured f JOIN staged s ON s.rowid = f.staged JOIN featured g ON g.staged = s.group_row
        ORDER BY f.row""")
    db.execute("INSERT INTO products_fts(rowid, text) SELECT f.row, s.text FROM featured f "
               "JOIN staged s ON s.rowid = f.staged ORDER BY f.row")
    db.execute("INSERT INTO source_ids SELECT f.row, s.source_id FROM featured f "
               "JOIN staged s ON s.rowid = f.staged ORDER BY f.row")
    db.executescript("DROP TABLE temp.staged; DROP TABLE temp.featured;")
