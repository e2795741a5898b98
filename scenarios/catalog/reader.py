"""Read-only access to a built catalog, for generators, the customer and the verifier.

The server reads the same file through its episodes' connections; this module is the reader
for pure code paths.
"""

from __future__ import annotations

import json
import random
import sqlite3
from array import array
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from verishop.scenarios.models import CatalogRef
from verishop.scenarios.money import USD, currency
from verishop.scenarios.taxonomy import (
    CATEGORIES, DENIED_CATEGORY_IDS, SHOPPABLE_CATEGORIES, Category, categories_from_records, register_imported,
)

PRODUCT_COLUMNS = ("product_id, group_id, title, brand, category_id, price_cents, rating, "
                   "rating_count, ship_days, stock, attrs")
STOCK_COLUMN = 9  # where `stock` is among PRODUCT_COLUMNS (the column an episode's stock replaces)
# Up to this many products, `random_product` tests its candidates against an index of every
# product's category and stock held in memory (3 bytes a product, read once per reader in
# about a millisecond per 10,000 products) instead of reading each candidate's row: most
# candidates of a category draw are rejected. Larger catalogs keep reading rows.
DRAW_INDEX_MAX_PRODUCTS = 250_000


class CatalogError(Exception):
    """The catalog file is missing, unreadable or not a verishop catalog."""


@dataclass(frozen=True, slots=True)
class Product:
    product_id: str
    group_id: str
    title: str
    brand: str
    category_id: str
    price_cents: int
    rating: float
    rating_count: int
    ship_days: int
    stock: int
    attrs: dict[str, str]

    @classmethod
    def from_row(cls, row: tuple) -> Product:
        return cls(*row[:10], attrs=json.loads(row[10]))

    def with_stock(self, stock: int) -> Product:
        return Product(self.product_id, self.group_id, self.title, self.brand, self.category_id,
                       self.price_cents, self.rating, self.rating_count, self.ship_days, stock, self.attrs)


def readonly_uri(path: Path) -> str:
    """A SQLite URI opening `path` read-only and immutable (the path quoted: '?' or '#' in it
    would otherwise end the file name)."""
    return f"file:{quote(str(Path(path).resolve()))}?mode=ro&immutable=1"


def open_readonly(path: Path) -> sqlite3.Connection:
    path = Path(path)
    if not path.is_file():
        raise CatalogError(f"catalog not found: {path}")
    # immutable=1: the file never changes after its build, so SQLite may skip locking.
    db = sqlite3.connect(readonly_uri(path), uri=True, check_same_thread=False)
    try:
        db.execute("SELECT 1 FROM meta LIMIT 1")
    except sqlite3.DatabaseError as exc:
        db.close()
        raise CatalogError(f"{path} is not a verishop catalog: {exc}") from None
    return db


class CatalogReader:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.db = open_readonly(self.path)
        self.meta = dict(self.db.execute("SELECT key, value FROM meta"))
        self.size = int(self.meta["size"])
        # 1 before the per-sort category indexes (scenarios/catalog/build.py); such a file still
        # opens, and sorted searches on it rank every match instead of walking an index.
        self.schema_version = int(self.meta.get("schema_version", 1))
        self.taxonomy = self._taxonomy()
        self.category_ids = tuple(sorted(c.id for c in self.taxonomy))
        self.category_id_set = frozenset(self.category_ids)
        self.shop_policy = self.meta.get("policy")  # the imported shop's policy file, as JSON
        self.absent_fields: frozenset[str] = frozenset(json.loads(self.meta.get("absent_fields", "[]")))
        self.currency = self._currency()
        self._draw_index: tuple[list[str], array, bytearray] | None | bool = None  # False: none to be had
        self._ref: CatalogRef | None = None

    def _currency(self) -> str:
        """The currency of the prices: an imported feed's (its `currency` meta row), else US dollars."""
        code = self.meta.get("currency") or USD
        try:
            currency(code)
        except ValueError as exc:
            raise CatalogError(f"{self.path}: its currency: {exc}") from None
        return code

    def _taxonomy(self) -> tuple[Category, ...]:
        """The generated taxonomy, or an imported catalog's own (registered, so that
        `taxonomy.category` resolves its ids everywhere in this process)."""
        if "taxonomy" not in self.meta:
            return CATEGORIES
        records = json.loads(self.meta["taxonomy"])
        try:  # registered as the feed defines them: restriction is the policy's, per episode
            register_imported(categories_from_records(records))
        except ValueError as exc:
            raise CatalogError(f"{self.path}: {exc}") from None
        restricted = set(json.loads(self.meta["policy"])["restricted_categories"]) if "policy" in self.meta else set()
        for r in records:
            r["denied"] = r["id"] in restricted
        return categories_from_records(records)

    @property
    def shoppable_categories(self) -> tuple[Category, ...]:
        return SHOPPABLE_CATEGORIES if self.taxonomy is CATEGORIES else tuple(c for c in self.taxonomy if not c.denied)

    @property
    def denied_category_ids(self) -> frozenset[str]:
        if self.taxonomy is CATEGORIES:
            return DENIED_CATEGORY_IDS
        return frozenset(c.id for c in self.taxonomy if c.denied)

    @property
    def imported(self) -> bool:
        return self.meta.get("source") == "import"

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> CatalogReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def ref(self) -> CatalogRef:
        # Built once per reader: the file never changes, and the model is frozen, so every
        # scenario generated on this reader may hold the same one.
        if self._ref is None:
            self._ref = CatalogRef(seed=int(self.meta["seed"]), size=self.size, content_hash=self.meta["content_hash"],
                                   currency=self.currency)
        return self._ref

    def product(self, product_id: str) -> Product | None:
        row = self.db.execute(f"SELECT {PRODUCT_COLUMNS} FROM products WHERE product_id = ?",
                              (product_id,)).fetchone()
        return Product.from_row(row) if row else None

    def product_of_row(self, row: tuple) -> Product:
        """`Product.from_row(row)` for a row of this catalog's products, whose stock column may be
        the episode's (a reader that keeps its products in memory returns its own)."""
        return Product.from_row(row)

    def product_at(self, rowid: int) -> Product:
        row = self.db.execute(f"SELECT {PRODUCT_COLUMNS} FROM products WHERE rowid = ?", (rowid,)).fetchone()
        return Product.from_row(row)

    def random_product(self, rng: random.Random, *, allow: set[str] | None = None,
                       deny: frozenset[str] = frozenset(), in_stock: bool = True) -> Product:
        """A uniformly drawn product (retrying past denied categories and sold-out items)."""
        index = self._category_and_stock_index()
        if index is not None:
            # The same draws as the loop below, each candidate tested in memory.
            names, codes, stocked = index
            for _ in range(10_000):
                rowid = rng.randrange(self.size)
                category_id = names[codes[rowid]]
                if category_id in deny or (allow is not None and category_id not in allow):
                    continue
                if in_stock and not stocked[rowid]:
                    continue
                return self.product_at(rowid)
            raise CatalogError("no product matches; the catalog is too small for this scenario")
        for _ in range(10_000):
            product = self.product_at(rng.randrange(self.size))
            if product.category_id in deny or (allow is not None and product.category_id not in allow):
                continue
            if in_stock and product.stock <= 0:
                continue
            return product
        raise CatalogError("no product matches; the catalog is too small for this scenario")

    def _category_and_stock_index(self) -> tuple[list[str], array, bytearray] | None:
        """Every product's category (a code into a list of names) and whether it is in stock, by
        rowid; None for a catalog too large for it or whose rowids are not 0 .. size - 1."""
        if self._draw_index is None:
            self._draw_index = False
            if self.size <= DRAW_INDEX_MAX_PRODUCTS:
                names: list[str] = []
                code_of: dict[str, int] = {}
                codes, stocked = array("H"), bytearray()
                rows = self.db.execute("SELECT rowid, category_id, stock > 0 FROM products ORDER BY rowid")
                for expected, (rowid, category_id, in_stock) in enumerate(rows):
                    if rowid != expected:
                        break
                    code = code_of.get(category_id)
                    if code is None:
                        code = code_of[category_id] = len(names)
                        names.append(category_id)
                    codes.append(code)
                    stocked.append(in_stock)
                else:
                    if len(codes) == self.size and len(names) < 2 ** 16:
                        self._draw_index = (names, codes, stocked)
        return self._draw_index or None

    def category_in_memory(self, category_id: str) -> list[Product] | None:
        """Every product of a category, if this reader holds the catalog in memory (a plain reader
        does not: None). `cached_reader.CachedCatalogReader` does, for small catalogs."""
        return None

    def group(self, group_id: str) -> list[Product]:
        """The products of one variant group (by index), in featured order."""
        sql = f"SELECT {PRODUCT_COLUMNS} FROM products WHERE group_id = ? ORDER BY rowid"
        return [Product.from_row(r) for r in self.db.execute(sql, (group_id,))]

    def in_category(self, category_id: str, max_price_cents: int | None = None) -> list[Product]:
        """Every product of a category (by index), optionally under a price cap."""
        sql = f"SELECT {PRODUCT_COLUMNS} FROM products WHERE category_id = ?"
        args: list[object] = [category_id]
        if max_price_cents is not None:
            sql += " AND price_cents <= ?"
            args.append(max_price_cents)
        return [Product.from_row(r) for r in self.db.execute(sql + " ORDER BY rowid", args)]

    def featured_in_category(self, category_id: str, limit: int) -> list[Product]:
        """The first `limit` products of a category in featured (rowid) order."""
        if self.category_has_at_most(category_id, limit):
            return self.in_category(category_id)
        sql = f"SELECT {PRODUCT_COLUMNS} FROM {self._featured} WHERE category_id = ? ORDER BY rowid LIMIT ?"
        return [Product.from_row(r) for r in self.db.execute(sql, (category_id, limit))]

    def featured_in_stock(self, category_id: str, limit: int) -> list[tuple[str, int]]:
        """(product ID, price in cents) of the catalog-in-stock products among the first `limit`
        of a category in featured order: `featured_in_category`'s, without reading whole rows."""
        if self.category_has_at_most(category_id, limit):
            sql = "SELECT product_id, price_cents, stock FROM products WHERE category_id = ? ORDER BY rowid"
            rows = self.db.execute(sql, (category_id,))
        else:
            sql = (f"SELECT product_id, price_cents, stock FROM {self._featured} WHERE category_id = ? "
                   "ORDER BY rowid LIMIT ?")
            rows = self.db.execute(sql, (category_id, limit))
        return [(pid, price) for pid, price, stock in rows if stock > 0]

    @property
    def _featured(self) -> str:
        """The FROM clause reading a category in featured (rowid) order: its index in that order
        (schema 3), `limit` rows for the first `limit`. Before it (NOT INDEXED): the other category
        indexes are in price, rating or delivery order, so through them SQLite reads the whole
        category to sort it by rowid (74,000 rows at 2M); walking the table in rowid order reads
        about `limit` / (the category's share of the catalog) rows whatever the catalog's size,
        since generation spreads every category evenly over the rows."""
        if self.schema_version >= 3:
            return "products INDEXED BY products_by_category_featured"
        return "products NOT INDEXED"

    def category_has_at_most(self, category_id: str, rows: int) -> bool:
        """Whether a category has at most `rows` products (reading at most rows + 1 index entries).
        A small category is cheapest read whole through its index."""
        sql = "SELECT count(*) FROM (SELECT 1 FROM products WHERE category_id = ? LIMIT ?)"
        return self.db.execute(sql, (category_id, rows + 1)).fetchone()[0] <= rows

    def in_stock_count(self, category_id: str, at_most: int, besides: str = "") -> int:
        """How many products of a category are in stock (`besides` aside), counting up to `at_most`."""
        sql = ("SELECT count(*) FROM (SELECT 1 FROM products WHERE category_id = ? AND stock > 0"
               " AND product_id != ? LIMIT ?)")
        return self.db.execute(sql, (category_id, besides, at_most)).fetchone()[0]


def feasible_products(catalog: CatalogReader, where: str, args: list[object], limit: int = 5000) -> list[Product]:
    """Products matching a WHERE clause from `verishop.scenarios.constraints.feasible_sql`, featured order."""
    sql = f"SELECT {PRODUCT_COLUMNS} FROM products WHERE {where} ORDER BY rowid LIMIT ?"
    return [Product.from_row(r) for r in catalog.db.execute(sql, [*args, limit])]
