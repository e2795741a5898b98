"""A catalog reader that remembers what it read, for the in-process shop and the import's table
of the environments a catalog can run (feeds/support.py: about 500 scenarios on one catalog).

A catalog file never changes once built (its readers open it immutable), so a product or a
category's list read once is the same on every later read. A server reads them again for each
episode; a trainer's process plays thousands of episodes over one catalog and can keep them: at
1,000 products every product and category ends up in memory after a few hundred episodes (as
EcomRLVE-Gym keeps its whole catalog), and at 2M the caches stay bounded (least recently used).
Lists are handed out as copies: a caller that sorts its list cannot reorder the cache's."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from verishop.scenarios.catalog.reader import PRODUCT_COLUMNS, STOCK_COLUMN, CatalogReader, Product

PRODUCTS_KEPT = 50_000
LISTS_KEPT = 4_096
# Up to this many products, every product is read once when the reader opens (about 10 ms per
# 1,000 products), as a trainer's process would have them after its first few hundred episodes.
PRELOAD_PRODUCTS = 20_000


class CachedCatalogReader(CatalogReader):
    """`CatalogReader` with its row reads memoised (see the module docstring)."""

    def __init__(self, path: Path):
        super().__init__(path)
        read = CatalogReader
        self._kept_product = lru_cache(maxsize=PRODUCTS_KEPT)(lambda pid: read.product(self, pid))
        self._kept_product_at = lru_cache(maxsize=PRODUCTS_KEPT)(lambda rowid: read.product_at(self, rowid))
        self._kept_group = lru_cache(maxsize=LISTS_KEPT)(lambda gid: tuple(read.group(self, gid)))
        self._kept_in_category = lru_cache(maxsize=LISTS_KEPT)(
            lambda cid, cap: tuple(read.in_category(self, cid, cap)))
        self._kept_featured = lru_cache(maxsize=LISTS_KEPT)(
            lambda cid, limit: tuple(read.featured_in_category(self, cid, limit)))
        self._kept_featured_stock = lru_cache(maxsize=LISTS_KEPT)(
            lambda cid, limit: tuple(read.featured_in_stock(self, cid, limit)))
        self._kept_at_most = lru_cache(maxsize=LISTS_KEPT)(lambda cid, rows: read.category_has_at_most(self, cid, rows))
        self._kept_in_stock = lru_cache(maxsize=LISTS_KEPT)(
            lambda cid, at_most, besides: read.in_stock_count(self, cid, at_most, besides))

        self._by_id: dict[str, Product] = {}
        self._by_rowid: dict[int, Product] = {}
        self._by_category: dict[str, list[Product]] = {}
        if self.size <= PRELOAD_PRODUCTS:
            for rowid, *row in self.db.execute(f"SELECT rowid, {PRODUCT_COLUMNS} FROM products ORDER BY rowid"):
                product = Product.from_row(tuple(row))
                self._by_id[product.product_id] = self._by_rowid[rowid] = product
                self._by_category.setdefault(product.category_id, []).append(product)

    def category_in_memory(self, category_id: str) -> list[Product] | None:
        if not self._by_rowid:
            return None
        return self._by_category.get(category_id, [])

    def product(self, product_id: str) -> Product | None:
        product = self._by_id.get(product_id)
        return product if product is not None or self._by_rowid else self._kept_product(product_id)

    def product_of_row(self, row: tuple) -> Product:
        # The kept product has every column of the row but the stock, which is the episode's: no
        # JSON of attributes parsed again for each search result.
        kept = self._by_id.get(row[0])
        if kept is None:
            return Product.from_row(row)
        stock = row[STOCK_COLUMN]
        return kept if kept.stock == stock else kept.with_stock(stock)

    def product_at(self, rowid: int) -> Product:
        product = self._by_rowid.get(rowid)
        return product if product is not None else self._kept_product_at(rowid)

    def group(self, group_id: str) -> list[Product]:
        return list(self._kept_group(group_id))

    def in_category(self, category_id: str, max_price_cents: int | None = None) -> list[Product]:
        return list(self._kept_in_category(category_id, max_price_cents))

    def featured_in_category(self, category_id: str, limit: int) -> list[Product]:
        return list(self._kept_featured(category_id, limit))

    def featured_in_stock(self, category_id: str, limit: int) -> list[tuple[str, int]]:
        return list(self._kept_featured_stock(category_id, limit))

    def category_has_at_most(self, category_id: str, rows: int) -> bool:
        return self._kept_at_most(category_id, rows)

    def in_stock_count(self, category_id: str, at_most: int, besides: str = "") -> int:
        return self._kept_in_stock(category_id, at_most, besides)
