"""Shopify's products CSV export: one row per variant, the rows of a product sharing its Handle;
the product's own fields (Title, Body (HTML), Vendor, Product Category, Type, OptionN Name) on its
first row only; image-only rows (a Handle and an Image Src) add nothing and count as merged."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from verishop.scenarios.catalog.feeds.rows import (
    FeedItem, FeedRow, Refusal, RowProblem, check_text, clean, html_to_text,
)
from verishop.scenarios.catalog.feeds.tabular import records
from verishop.scenarios.catalog.text import slug

PRODUCT_FIELDS = ("Title", "Body (HTML)", "Vendor", "Product Category", "Type", "Status",
                  "Option1 Name", "Option2 Name", "Option3 Name")
_VARIANT_FIELDS = ("Variant SKU", "Variant Price", "Option1 Value", "Option2 Value", "Option3 Value")


def _category(product: dict[str, str]) -> str:
    """Shopify's Product Category (a Standard Product Taxonomy path) when set, else the shop's Type."""
    return product.get("Product Category", "") or product.get("Type", "")


def read_csv(path: Path) -> Iterator[FeedItem]:
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
                    options[slug(name)] = value
            suffix = " / ".join(options.values())
            title = clean(product["Title"])
            yield FeedRow(
                record=record,
                source_id=clean(values.get("Variant SKU")) or f"{this}#{variants}",
                title=f"{title} - {suffix}" if suffix else title,
                price=clean(values.get("Variant Price")), category_path=clean(_category(product)),
                brand=clean(product.get("Vendor")), description=html_to_text(product.get("Body (HTML)", "")),
                group_key=this, sale_price="", availability="",
                stock=clean(values.get("Variant Inventory Qty")) if values.get("Variant Inventory Tracker") else "",
                attrs=options,
            )
        except RowProblem as exc:
            yield Refusal(record, clean(values.get("Variant SKU")) or this[:80], str(exc))
