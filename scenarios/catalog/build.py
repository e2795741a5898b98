"""Build a catalog file: generate chunks (in parallel processes), write them to SQLite with an
FTS5 index, record a content hash, and move the finished file into place atomically so that a
killed build never leaves a half-written catalog where a reader would find it.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from verishop.scenarios.catalog.generate import Chunk, chunk_count, generate_chunk
from verishop.scenarios.catalog.integrity import write_stamp
from verishop.scenarios.catalog.text import FTS_TOKENIZER
from verishop.scenarios.taxonomy import CATEGORIES, TAXONOMY_VERSION

# 2: one index per sort key within a category (the search tool's "sort by" reads a window of it).
# The version is in the cached catalog's file name, so an older build is rebuilt, not reused;
# the content hash covers the products only, which did not change.
# 3: the sort indexes also hold the columns of a ranking's other terms (delivery or rating, and the
# brand) after an explicit rowid, so their order is schema 2's; and an index in featured order
# within a category (scenario generation reads bounded rows at any catalog size, issue 11).
CATALOG_SCHEMA_VERSION = 3

SCHEMA = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE categories (
    category_id TEXT PRIMARY KEY, name TEXT NOT NULL, department TEXT NOT NULL,
    denied INTEGER NOT NULL, attributes TEXT NOT NULL
);
-- rowid is the featured rank: popularity falls as it grows.
CREATE TABLE products (
    rowid INTEGER PRIMARY KEY,
    product_id TEXT NOT NULL,
    group_id TEXT NOT NULL,
    title TEXT NOT NULL,
    brand TEXT NOT NULL,
    category_id TEXT NOT NULL,
    price_cents INTEGER NOT NULL,
    rating REAL NOT NULL,
    rating_count INTEGER NOT NULL,
    ship_days INTEGER NOT NULL,
    stock INTEGER NOT NULL,
    attrs TEXT NOT NULL
);
CREATE VIRTUAL TABLE products_fts USING fts5(
    text, content='', detail=none, tokenize="{FTS_TOKENIZER}"
);
"""

INDEXES = """
CREATE UNIQUE INDEX products_by_id ON products(product_id);
CREATE INDEX products_by_group ON products(group_id);
-- One per sort_by order of mcp_server/shop/catalog.py (ties: the rowid, featured order). The columns
-- after the rowid change no order: they let a ranking (scenarios/ranking.py) bound a product's
-- price, rating, delivery and brand terms on the index entry, before SQLite reads the table row.
CREATE INDEX products_by_category ON products(category_id, price_cents, rating DESC, rowid, ship_days, brand);
CREATE INDEX products_by_category_rating ON products(category_id, rating DESC, price_cents, rowid, ship_days, brand);
CREATE INDEX products_by_category_ship ON products(category_id, ship_days, price_cents, rowid, rating, brand);
-- Featured (rowid) order within a category: the first products of a category, or a run of them from
-- a given row, in as many index entries as products (schema 3); with what scenario generation reads
-- of them (verishop/envs/bundle/generator.py, shared.py) besides, so it reads no table row.
CREATE INDEX products_by_category_featured ON products(category_id, rowid, stock, price_cents, product_id);
"""


@dataclass(frozen=True)
class BuildResult:
    path: Path
    size: int
    seed: int
    content_hash: str
    seconds: float


def _chunk_job(args: tuple[int, int, int]) -> tuple[int, Chunk, str]:
    seed, size, chunk = args
    generated = generate_chunk(seed, size, chunk)
    digest = hashlib.sha256(repr(generated.products).encode()).hexdigest()
    return chunk, generated, digest


def _chunks(seed: int, size: int, workers: int) -> Iterator[tuple[int, Chunk, str]]:
    jobs = [(seed, size, c) for c in range(chunk_count(size))]
    if workers <= 1 or len(jobs) <= 1:
        yield from map(_chunk_job, jobs)
        return
    # fork is cheap and the workers need nothing but the (already imported) generator.
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        yield from pool.imap(_chunk_job, jobs)


@contextmanager
def written_aside(path: Path, *, cache_kib: int) -> Iterator[sqlite3.Connection]:
    """A new catalog database with the schema, written beside `path` (journal off: nothing reads
    it yet) and renamed over `path` only when the block ends without an error, so no reader ever
    sees half a catalog; on an error the partial file is removed. The block fills the tables."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    partial.unlink(missing_ok=True)
    db = sqlite3.connect(partial)
    try:
        db.executescript(f"PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-{cache_kib};")
        db.executescript(SCHEMA)
        yield db
        db.execute("INSERT INTO products_fts(products_fts) VALUES ('optimize')")
        db.commit()
        db.execute("PRAGMA journal_mode=DELETE")
    except BaseException:
        db.close()
        partial.unlink(missing_ok=True)
        raise
    db.close()
    os.replace(partial, path)


def build_catalog(
    path: Path,
    *,
    size: int,
    seed: int,
    workers: int | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> BuildResult:
    """Generate `size` products from `seed` into the SQLite file at `path`."""
    if size < 1:
        raise ValueError(f"catalog size must be at least 1, got {size}")
    started = time.perf_counter()
    path = Path(path)
    workers = workers if workers is not None else max(1, min(2, os.cpu_count() or 1))
    with written_aside(path, cache_kib=200_000) as db:
        db.executemany(
            "INSERT INTO categories VALUES (?, ?, ?, ?, ?)",
            [(c.id, c.name, c.department, int(c.denied), ",".join(a.name for a in c.attributes))
             for c in CATEGORIES],
        )
        total = hashlib.sha256(f"verishop-catalog:{seed}:{size}".encode())
        for _, chunk, digest in _chunks(seed, size, workers):
            db.executemany("INSERT INTO products VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", chunk.products)
            db.executemany("INSERT INTO products_fts(rowid, text) VALUES (?, ?)", chunk.search_text)
            total.update(digest.encode())
            if on_progress:
                on_progress(len(chunk.products))
        db.executescript(INDEXES)
        content_hash = total.hexdigest()
        db.executemany(
            "INSERT INTO meta VALUES (?, ?)",
            [("schema_version", str(CATALOG_SCHEMA_VERSION)), ("taxonomy_version", str(TAXONOMY_VERSION)),
             ("seed", str(seed)), ("size", str(size)), ("content_hash", content_hash)],
        )
    write_stamp(path, content_hash)  # just hashed: the first server to open it need not hash again
    return BuildResult(path, size, seed, content_hash, time.perf_counter() - started)
