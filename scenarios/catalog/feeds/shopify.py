"""Shopify's products CSV export: one row per variant, the rows of a product sharing its Handle;
the product's own fields (Title, Body (HTML), Vendor, Product Category, Type, OptionN Name) on its
first row only; image-only rows (a Handle and an Image Src) add nothing and count as merged."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from verishop.scenarios.catalog.feeds.rows import (
    FeedItem, FeedRow, Notice, Refusal, RowProblem, check_text, clean, feed_slug, html_to_text, title_category,
    title_text,
)
from verishop.scenarios.catalog.feeds.tabular import records

PRODUCT_FIELDS = ("Title", "Body (HTML)", "Vendor", "Product Category", "Type", "Status",
                  "Option1 Name", "Option2 Name", "Option3 Name")
_VARIANT_FIELDS = ("Variant SKU", "Variant Price", "Option1 Value", "Option2 Value", "Option3 Value")


# A Type that names no kind of product: the product kind of another platform's export ("simple",
# "variable") or a placeholder. When one such value names nearly every product (USELESS_TYPE_SHARE of
# at least USELESS_TYPE_MIN_PRODUCTS), it is not used as a category: Shopify's Product Category is,
# else words of the title. A shop whose Type is one real kind ("Tea") keeps it.
GENERIC_TYPES = frozenset({"simple", "variable", "grouped", "external", "default", "product", "products",
                           "general", "misc", "miscellaneous", "other", "others", "all", "item", "items", "none",
                           "n/a", "na", "-", "standard", "physical", "goods", "merchandise"})
USELESS_TYPE_SHARE = 0.9
USELESS_TYPE_MIN_PRODUCTS = 20


def useless_type(path: Path) -> str | None:
    """The Type that names nearly every product of the export and no kind of product, if any (a
    first pass over the file: one row per product counted)."""
    types: Counter[str] = Counter()
    for item in records(path, delimiter=",", id_column="Handle"):
        if not isinstance(item, Refusal) and item[1].get("Title"):
            types[clean(item[1].get("Type")).lower()] += 1
    total = sum(types.values())
    if not total:
        return None
    value, count = types.most_common(1)[0]
    if total >= USELESS_TYPE_MIN_PRODUCTS and count >= USELESS_TYPE_SHARE * total and value in GENERIC_TYPES:
        return value
    return None


def _category(product: dict[str, str], useless: str | None, title: str, options: dict[str, str]) -> tuple[str, bool]:
    """Shopify's Product Category (a Standard Product Taxonomy path) when set, else the shop's Type;
    else (no Type, or the `useless` one) a word of the product's own title, not of its variant's
    suffix (rows.title_category). Returns (category, whether the product stated none)."""
    if product.get("Product Category"):
        return product["Product Category"], False
    kind = clean(product.get("Type"))
    if kind and (useless is None or kind.lower() != useless):
        return kind, False
    return title_category(title, options), not kind


def read_csv(path: Path) -> Iterator[FeedItem]:
    useless = useless_type(path)
    if useless is not None:
        yield Notice(f"the Type {useless!r} names nearly every product and no kind of product: categories come "
                     "from Shopify's Product Category, else from the last word of the title")
    handle = ""
    product: dict[str, str] = {}
    variants = 0
    for item in records(path, delimiter=",", id_column="Handle"):
        if isinstance(item, Refusal):
            yield item
            continue
        record, values = item
        this = values.get("Handle", "")
        try:
            check_text(values)
            if not this:
                raise RowProblem("missing Handle")
            if values.get("Title"):  # a product's first row
                handle, product, variants = this, {k: values.get(k, "") for k in PRODUCT_FIELDS}, 0
            elif this != handle:
                raise RowProblem(f"a row of handle {this!r} without its product's first row (rows of one "
                                 "product must follow each other, the first one with the Title)")
            if not any(values.get(k) for k in _VARIANT_FIELDS):
                yield FeedRow(record, this, "", "", merge_only=True)
                continue
            variants += 1
            status = product.get("Status", "active").lower() or "active"
            if status != "active":
                raise RowProblem(f"status {status!r} (only active products are imported)")
            options = {}
            for n in (1, 2, 3):
                name, value = clean(product.get(f"Option{n} Name")), clean(values.get(f"Option{n} Value"))
                if name and value and not (name == "Title" and value == "Default Title"):
                    options[feed_slug(name)] = value
            suffix = " / ".join(options.values())
            title, had_html = title_text(product["Title"])
            category, from_title = _category(product, useless, title, options)
            yield FeedRow(
                record=record,
                source_id=clean(values.get("Variant SKU")) or f"{this}#{variants}",
                title=f"{title} - {suffix}" if suffix else title,
                price=clean(values.get("Variant Price")), category_path=clean(category),
                category_from_title=from_title,
                title_had_html=had_html,
                brand=clean(product.get("Vendor")), description=html_to_text(product.get("Body (HTML)", "")),
                group_key=this, sale_price="", availability="",
                stock=clean(values.get("Variant Inventory Qty")) if values.get("Variant Inventory Tracker") else "",
                attrs=options,
            )
        except RowProblem as exc:
            yield Refusal(record, clean(values.get("Variant SKU")) or this[:80], str(exc))
