"""Turn feed rows into a verishop catalog: the generated catalog's schema and indexes, rows in the
featured order of `featured.py`, product IDs made from the row number like a generated catalog's
(the shop's own IDs kept beside them in `source_ids`), the
categories and attribute schemas of the feed's own taxonomy, and a content hash covering the
products, that taxonomy, the shop's policy and its IDs. The file is written aside and renamed:
a failed or refused import leaves nothing where a reader would find it."""

from __future__ import annotations

import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from verishop.scenarios.catalog.build import CATALOG_SCHEMA_VERSION, INDEXES, written_aside
from verishop.scenarios.catalog.feeds import ImportFailed
from verishop.scenarios.catalog.feeds.featured import STAGE_ROW, STAGING, place
from verishop.scenarios.catalog.feeds.rows import (
    FeedItem, FeedRow, Notice, Refusal, RowProblem, parse_availability, parse_int, parse_price, parse_rating,
    title_category,
)
from verishop.scenarios.catalog.feeds.quality import Quality
from verishop.scenarios.catalog.feeds.shop_policy import ShopPolicy, check_categories
from verishop.scenarios.catalog.feeds.taxonomy import TaxonomyBuilder, canonical_attributes
from verishop.scenarios.catalog.integrity import import_seed, product_content_hash, source_ids_digest, write_stamp
from verishop.scenarios.catalog.text import attribute_token, brand_token, category_token

# What an import records for the stock of a product whose feed states availability but no count,
# or neither (docs/catalog-import.md): a count large enough that no episode runs it out.
DEFAULT_STOCK_IN_STOCK = 50
# Shipping days of a catalog whose feed states none; no environment constrains on it then.
DEFAULT_SHIP_DAYS = 3
# Refusals listed in the report (all of them are counted).
MAX_LISTED_REFUSALS = 1000
_BATCH_ROWS = 5000
# ... or fewer, when their text adds up to this many characters (imported fields can be long).
_BATCH_CHARS = 8 << 20
_SEARCH_DESCRIPTION_CHARS = 600
OPTIONAL_FIELDS = ("brand", "stock", "rating", "ship_days")
# A stock that is a count (refused when out of range); anything else is read as "in stock".
_COUNT = re.compile(r"^\s*[-+]?[0-9][0-9,]*(?:\.[0-9]+)?\s*$")


@dataclass
class ImportReport:
    path: Path | None = None
    imported: int = 0
    merged: int = 0
    refused: int = 0
    refusals: list[str] = field(default_factory=list)
    absent_fields: list[str] = field(default_factory=list)
    defaults: dict[str, str] = field(default_factory=dict)
    categories: int = 0
    content_hash: str = ""
    seconds: float = 0.0
    # Attribute names merged as synonyms ("colour -> color"), and each category's attribute coverage
    # (docs/catalog-import.md, "Attributes").
    merged_attributes: list[str] = field(default_factory=list)
    attribute_coverage: list[dict] = field(default_factory=list)
    # Per category with variant groups: the options it records and how many groups differ on one
    # option, on two, on more (docs/catalog-import.md, "Variants").
    variant_groups: list[dict] = field(default_factory=list)
    # Per environment, in the registry's order: {"env", "env_id", "can_run", "reason"} (support.py).
    environments: list[dict] = field(default_factory=list)
    # What a shop owner should look at: one-line warnings about the catalog's quality (quality.py).
    warnings: list[str] = field(default_factory=list)
    # Products whose stock was not a number ("100 ML") and were imported as in stock.
    unreadable_stock: int = 0

    def refuse(self, refusal: Refusal, source: str) -> None:
        self.refused += 1
        if len(self.refusals) < MAX_LISTED_REFUSALS:
            self.refusals.append(refusal.line(source))

    def summary(self) -> str:
        return f"imported {self.imported:,}, merged {self.merged:,}, refused {self.refused:,}"


@dataclass
class _Counts:
    """How many products state each optional field."""

    stated: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OPTIONAL_FIELDS, 0))
    availability_only: int = 0
    quality: Quality = field(default_factory=Quality)


class _Checker:
    """FeedRow -> a product row (without its category id), or RowProblem."""

    def __init__(self, currency: str | None):
        self.currency = currency
        self.seen: dict[str, str] = {}

    def check(self, row: FeedRow, where: str, counts: _Counts) -> tuple:
        if not row.source_id:
            raise RowProblem("missing id")
        if not row.title:
            raise RowProblem("empty title")
        if not row.category_path:
            # A feed that states no category anywhere (Merchant's product_type is optional, Shopify's Type
            # is often left empty): the product takes a word of its title, and the report counts them.
            # Not when the source has a column that looks like a category: renaming it is the better fix.
            word = "" if row.category_hint else title_category(row.title, row.attrs)
            if not word:
                hint = f"; {row.category_hint}" if row.category_hint else ""
                raise RowProblem(f"no category (product_type, google_product_category as a path, Product Category "
                                 f"or Type, nor a word of the title to take){hint}")
            row.category_path, row.category_from_title = word, True
        if row.source_id in self.seen:
            raise RowProblem(f"duplicate id (first at {self.seen[row.source_id]})")
        price_cents, currency = parse_price(row.price, self.currency)
        if row.sale_price:
            sale_cents, sale_currency = parse_price(row.sale_price, self.currency, "sale_price")
            if sale_currency != currency:
                raise RowProblem(f"sale_price currency {sale_currency} differs from price currency {currency}")
            price_cents = min(price_cents, sale_cents)
        if self.currency is None:
            self.currency = currency
        elif currency != self.currency:
            raise RowProblem(f"currency {currency} differs from the feed's {self.currency}")
        available = parse_availability(row.availability) if row.availability else None
        if row.stock and not _COUNT.match(row.stock):
            # "100 ML", "-", "yes": a feed's stock column holding something else than a count
            # (a size, a placeholder); the product is sold, so in stock unless availability says not.
            stock = 0 if available is False else DEFAULT_STOCK_IN_STOCK
            counts.quality.unreadable_stock(row.stock)
        elif row.stock:
            stock = max(0, parse_int(row.stock, "stock", -10**9, 10**9))
            counts.stated["stock"] += 1
        elif available is not None:
            stock = DEFAULT_STOCK_IN_STOCK if available else 0
            counts.availability_only += 1
        else:
            stock = DEFAULT_STOCK_IN_STOCK
        rating, rating_count = 0.0, 0
        if row.rating:
            rating = parse_rating(row.rating)
            rating_count = parse_int(row.rating_count, "rating_count", 0, 10**9) if row.rating_count else 1
            counts.stated["rating"] += 1
        ship_days = DEFAULT_SHIP_DAYS
        if row.ship_days:
            ship_days = parse_int(row.ship_days, "shipping days", 0, 365)
            counts.stated["ship_days"] += 1
        counts.stated["brand"] += bool(row.brand)
        counts.quality.title_categories += row.category_from_title
        counts.quality.note_row(row)
        self.seen[row.source_id] = where
        return price_cents, rating, rating_count, ship_days, stock


def _items(sources: Iterable[tuple[str, Iterator[FeedItem]]]) -> Iterator[tuple[str, FeedItem]]:
    for name, items in sources:
        for item in items:
            yield name, item


def import_catalog(
    sources: Iterable[tuple[str, Iterator[FeedItem]]],
    out: Path,
    *,
    feed_format: str,
    policy: ShopPolicy | None = None,
    policy_path: Path | None = None,
    currency: str | None = None,
    strict: bool = False,
    on_progress: Callable[[int], None] | None = None,
) -> ImportReport:
    """Read every (source name, items) in order into a catalog at `out`. Raises ImportFailed (and
    writes nothing) under `strict` at the first refusal, or when no product is imported."""
    started = time.perf_counter()
    out = Path(out)
    report = ImportReport()
    with written_aside(out, cache_kib=100_000) as db:
        db.execute("CREATE TABLE source_ids (rowid INTEGER PRIMARY KEY, source_id TEXT NOT NULL)")
        meta = _fill(db, sources, report, strict, currency, on_progress)
        if policy is not None:
            policy = check_categories(policy, policy_path or Path("policy"), meta.pop("_names"))
            meta["policy"] = policy.stored_json()
            report.warnings += policy.returns.deprecation_warnings(str(policy_path or "policy"))
        else:
            meta.pop("_names")
        meta["format"] = feed_format
        meta["seed"] = "0"
        meta["size"] = str(report.imported)
        meta["schema_version"] = str(CATALOG_SCHEMA_VERSION)
        meta["taxonomy_version"] = "import"
        meta["source"] = "import"
        db.executescript(INDEXES)
        db.executemany("INSERT INTO meta VALUES (?, ?)", sorted(meta.items()))
        report.content_hash = product_content_hash(db, import_seed(meta), report.imported)
        db.execute("INSERT INTO meta VALUES ('content_hash', ?)", (report.content_hash,))
    write_stamp(out, report.content_hash)
    report.path = out
    report.seconds = time.perf_counter() - started
    return report


def _fill(db: sqlite3.Connection, sources: Iterable[tuple[str, Iterator[FeedItem]]], report: ImportReport,
          strict: bool, currency: str | None, on_progress: Callable[[int], None] | None) -> dict[str, str]:
    checker = _Checker(currency)
    counts = _Counts()
    taxonomy = TaxonomyBuilder()
    merged: dict[str, str] = {}
    groups: dict[tuple[str, str], int] = {}
    staged: list[tuple] = []
    staged_chars = 0
    db.executescript(STAGING)

    def flush() -> None:
        nonlocal staged_chars
        db.executemany(STAGE_ROW, staged)
        if on_progress:
            on_progress(len(staged))
        staged.clear()
        staged_chars = 0

    for name, item in _items(sources):
        if isinstance(item, Notice):
            report.warnings.append(f"{name}: {item.text}")
            continue
        if isinstance(item, FeedRow) and item.merge_only:
            report.merged += 1
            continue
        if isinstance(item, FeedRow):
            try:
                price_cents, rating, rating_count, ship_days, stock = checker.check(
                    item, f"{name}:{item.record}", counts)
            except RowProblem as exc:
                item = Refusal(item.record, item.source_id[:80], str(exc))
        if isinstance(item, Refusal):
            if strict:
                raise ImportFailed(f"--strict: {item.line(name)}; nothing was written")
            report.refuse(item, name)
            continue
        row = report.imported
        item.attrs = canonical_attributes(item.attrs, merged)
        cat = taxonomy.add(item, price_cents)
        group_row = groups.setdefault((name, item.group_key), row) if item.group_key else row
        if group_row != row:
            taxonomy.note_variant(cat.id, str(group_row), item.attrs)
        else:
            taxonomy.note_group_head(cat.id, str(row), item.attrs, bool(item.group_key))
        facets = " ".join(attribute_token(k, v) for k, v in item.attrs.items())
        text = (f"{item.title} {cat.name} {cat.department} {' '.join(item.attrs.values())} {item.source_id} "
                f"{item.description[:_SEARCH_DESCRIPTION_CHARS]} {category_token(cat.id)} {brand_token(item.brand)} "
                f"{facets}")
        staged.append((row, item.source_id, group_row, item.title, item.brand, cat.id, price_cents, rating,
                       rating_count, ship_days, stock, json.dumps(item.attrs, separators=(",", ":"), sort_keys=True),
                       text))
        report.imported += 1
        staged_chars += len(text) + len(item.title)
        if len(staged) >= _BATCH_ROWS or staged_chars >= _BATCH_CHARS:
            flush()
    flush()
    if report.imported == 0:
        raise ImportFailed(f"no products imported ({report.summary()}): "
                           + ("the source has a header and no rows" if not report.refused else
                              "every row was refused:\n  " + "\n  ".join(report.refusals[:20])))
    place(db)
    absent = [f for f in OPTIONAL_FIELDS if counts.stated[f] < report.imported]
    defaults = _defaults(db, counts, absent, report.imported)
    report.absent_fields, report.defaults = absent, defaults
    categories = taxonomy.categories()
    report.categories = len(categories)
    report.merged_attributes = [f"{name} -> {target}" for name, target in sorted(merged.items())]
    report.attribute_coverage = taxonomy.coverage()
    report.variant_groups = taxonomy.variant_groups()
    report.unreadable_stock = counts.quality.unreadable
    report.warnings += counts.quality.warnings(categories, report.imported)
    db.executemany("INSERT INTO categories VALUES (?, ?, ?, ?, ?)",
                   [(c["id"], c["name"], c["department"], 0, ",".join(a["name"] for a in c["attributes"]))
                    for c in categories])
    return {"taxonomy": json.dumps(categories, separators=(",", ":"), sort_keys=True),
            "absent_fields": json.dumps(absent), "defaults": json.dumps(defaults, sort_keys=True),
            "currency": checker.currency or "", "source_ids_sha256": source_ids_digest(db),
            "_names": {c["id"]: c["name"] for c in categories}}


def _defaults(db: sqlite3.Connection, counts: _Counts, absent: list[str], imported: int) -> dict[str, str]:
    """Reset a field that only some products state to its default on every product (a constraint on
    it would otherwise read defaults as facts), and say in words what each default is."""
    defaults: dict[str, str] = {}
    if "rating" in absent:
        if counts.stated["rating"]:
            db.execute("UPDATE products SET rating = 0.0, rating_count = 0")
        defaults["rating"] = f"not stated by {imported - counts.stated['rating']:,} products: 0.0 with 0 ratings"
    if "ship_days" in absent:
        if counts.stated["ship_days"]:
            db.execute("UPDATE products SET ship_days = ?", (DEFAULT_SHIP_DAYS,))
        defaults["ship_days"] = (f"not stated by {imported - counts.stated['ship_days']:,} products: "
                                 f"{DEFAULT_SHIP_DAYS} days")
    if "stock" in absent:
        defaults["stock"] = (f"no count for {imported - counts.stated['stock']:,} products: "
                             f"{DEFAULT_STOCK_IN_STOCK} when in stock (or availability not stated), 0 when not")
    if "brand" in absent:
        defaults["brand"] = f"not stated by {imported - counts.stated['brand']:,} products: empty"
    return defaults
