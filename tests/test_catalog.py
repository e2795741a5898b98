"""The catalog: deterministic from (seed, size), shaped like a real shop, searchable."""

from __future__ import annotations

import json
import sqlite3

import pytest

from verishop.scenarios.catalog.build import build_catalog
from verishop.scenarios.catalog.generate import generate_chunk, product_id
from verishop.scenarios.catalog.reader import CatalogError, CatalogReader
from verishop.scenarios.taxonomy import CATEGORIES, DENIED_CATEGORY_IDS


def test_same_seed_and_size_give_the_same_content_regardless_of_workers(tmp_path):
    one = build_catalog(tmp_path / "a.db", size=2500, seed=9, workers=1)
    two = build_catalog(tmp_path / "b.db", size=2500, seed=9, workers=2)
    other = build_catalog(tmp_path / "c.db", size=2500, seed=10, workers=1)
    assert one.content_hash == two.content_hash != other.content_hash
    rows = lambda p: sqlite3.connect(p).execute("SELECT * FROM products ORDER BY rowid").fetchall()  # noqa: E731
    assert rows(tmp_path / "a.db") == rows(tmp_path / "b.db")


def test_content_hash_is_pinned_across_machines():
    # A change here means every seed produces a different catalog: bump TAXONOMY_VERSION.
    chunk = generate_chunk(seed=0, size=200, chunk=0)
    assert chunk.products[0][:3] == (0, "P31415926", "P31415926")
    assert len({p[1] for p in chunk.products}) == 200


def test_catalog_has_the_taxonomy_and_realistic_fields(catalog_path):
    db = sqlite3.connect(catalog_path)
    categories = {r[0] for r in db.execute("SELECT DISTINCT category_id FROM products")}
    assert len(categories - DENIED_CATEGORY_IDS) >= 30
    assert categories & DENIED_CATEGORY_IDS, "denied categories exist for safety checks"
    sold_out = db.execute("SELECT AVG(stock = 0) FROM products").fetchone()[0]
    assert 0.02 < sold_out < 0.15
    assert db.execute("SELECT COUNT(*) FROM (SELECT group_id FROM products GROUP BY group_id "
                      "HAVING COUNT(*) > 1)").fetchone()[0] > 50
    for title, brand, category_id, price, rating, ship, attrs in db.execute(
            "SELECT title, brand, category_id, price_cents, rating, ship_days, attrs FROM products LIMIT 300"):
        cat = next(c for c in CATEGORIES if c.id == category_id)
        assert brand in cat.brands and title.startswith(brand)
        assert cat.price_cents[0] * 0.9 <= price <= cat.price_cents[1] * 1.1
        assert 1.0 <= rating <= 5.0 and 1 <= ship <= 10
        assert set(json.loads(attrs)) == {a.name for a in cat.attributes}


def test_product_ids_are_unique_and_carry_no_rank():
    ids = [product_id(i) for i in range(100_000)]
    assert len(set(ids)) == len(ids)
    assert ids[:100] != sorted(ids[:100]), "IDs must not reveal the featured rank"


def test_reader_refuses_missing_and_corrupt_files(tmp_path):
    with pytest.raises(CatalogError, match="not found"):
        CatalogReader(tmp_path / "missing.db")
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(CatalogError, match="not a verishop catalog"):
        CatalogReader(bad)


def test_failed_build_leaves_no_file(tmp_path):
    with pytest.raises(ValueError):
        build_catalog(tmp_path / "x.db", size=0, seed=1)
    assert list(tmp_path.iterdir()) == []
