"""Google Merchant Center product feeds: the TSV form and the RSS 2.0 / XML form, with the product
data specification's attribute names (`id`, `title`, `price` like `15.00 USD`, `availability`,
`item_group_id`, `product_type`, `google_product_category`, `color`, `size` ...)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

from verishop.scenarios.catalog.feeds.rows import (
    MAX_FIELD_CHARS, FeedItem, FeedRow, Refusal, RowProblem, category_like_column, check_text, clean, feed_slug,
    html_to_text, title_text,
)
from verishop.scenarios.catalog.feeds.tabular import records

# The specification's attributes that describe a product's kind: they become catalog attributes.
ATTRIBUTE_FIELDS = ("color", "size", "material", "pattern", "gender", "age_group", "size_type",
                    "size_system", "condition")
G_NAMESPACE = "http://base.google.com/ns/1.0"
_NUMERIC_CATEGORY = re.compile(r"^\d+$")
_ITEM_TAGS = ("item", "entry")
# No feed nests its elements more than a handful deep (rss > channel > item > g:shipping > value).
MAX_XML_DEPTH = 64


def _category(values: dict[str, str]) -> str:
    """The shop's own product_type first; else google_product_category when it is a path (a bare
    Google taxonomy number names no category words this import could show a customer)."""
    product_type = values.get("product_type", "")
    if product_type:
        return product_type.split(",")[0]
    google = values.get("google_product_category", "")
    return "" if _NUMERIC_CATEGORY.match(google.strip()) else google


def _ship_days(values: dict[str, str]) -> str:
    transit = values.get("max_transit_time", "")
    handling = values.get("max_handling_time", "")
    if not transit:
        return ""
    try:
        return str(int(transit) + int(handling or 0))
    except ValueError:
        return transit  # refused, with the value named, when the row is checked


def product_details(text: str) -> dict[str, str]:
    """`product_detail` in the TSV form: 'section:attribute name:value', several separated by commas
    -> {attribute name as a slug: value}."""
    details: dict[str, str] = {}
    for part in text.split(","):
        pieces = part.split(":", 2)
        if len(pieces) == 3 and feed_slug(pieces[1]) and clean(pieces[2]):
            details.setdefault(feed_slug(pieces[1]), clean(pieces[2]))
        elif part.strip():
            raise RowProblem(f"product_detail {part.strip()!r} is not 'section:attribute name:value'")
    return details


def to_row(record: int, values: dict[str, str], details: dict[str, str] | None = None) -> FeedRow:
    check_text(values)
    attrs = {name: clean(values[name]) for name in ATTRIBUTE_FIELDS if clean(values.get(name))}
    attrs.update(details if details is not None else product_details(values.get("product_detail", "")))
    if attrs.get("condition", "new") == "new":
        attrs.pop("condition", None)
    title, had_html = title_text(values.get("title", ""))
    category_path = clean(_category(values))
    column = None if category_path else category_like_column(values, set(ATTRIBUTE_FIELDS))
    return FeedRow(
        record=record, source_id=clean(values.get("id")), title=title, title_had_html=had_html,
        category_hint=f"the column {column!r} looks like one: rename it product_type" if column else "",
        price=clean(values.get("price")), category_path=category_path,
        brand=clean(values.get("brand")), description=html_to_text(values.get("description", "")),
        group_key=clean(values.get("item_group_id")), sale_price=clean(values.get("sale_price")),
        availability=clean(values.get("availability")), ship_days=_ship_days(values),
        stock=clean(values.get("quantity")), attrs=attrs,
    )


def read_tsv(path: Path) -> Iterator[FeedItem]:
    for item in records(path, delimiter="\t", id_column="id"):
        if isinstance(item, Refusal):
            yield item
            continue
        record, values = item
        try:
            yield to_row(record, values)
        except RowProblem as exc:
            yield Refusal(record, clean(values.get("id"))[:80], str(exc))


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def read_xml(path: Path) -> Iterator[FeedItem]:
    """<rss><channel><item><g:id>… (or an Atom <feed><entry>): each item's child elements by local
    name, nested ones (g:shipping/g:max_transit_time) flattened. A document cut short, malformed or
    nested deeper than MAX_XML_DEPTH ends with a fatal Refusal after the items before it. Memory
    stays bounded: every finished element is cleared and dropped from its parent, inside an item
    or not, so a feed of millions of elements that are not products holds none of them."""
    record = 0
    parents: list[ET.Element] = []
    items_open = 0  # items being read: their children must stay until the item ends
    try:
        for event, element in ET.iterparse(path, events=("start", "end")):
            if event == "start":
                if len(parents) >= MAX_XML_DEPTH:
                    yield Refusal(record + 1, "", f"the XML document is nested deeper than {MAX_XML_DEPTH} "
                                                  "elements; nothing after it was read", fatal=True)
                    return
                parents.append(element)
                items_open += _local(element.tag) in _ITEM_TAGS
                continue
            parents.pop()
            if _local(element.tag) not in _ITEM_TAGS:
                if not items_open:
                    _drop(element, parents)
                continue
            items_open -= 1
            record += 1
            values, details = _item_values(element)
            _drop(element, parents)
            try:
                yield to_row(record, values, details)
            except RowProblem as exc:
                yield Refusal(record, clean(values.get("id"))[:80], str(exc))
    except ET.ParseError as exc:
        line, column = exc.position
        yield Refusal(record + 1, "", f"the XML document is cut off or malformed at line {line}, column {column} "
                                      f"({exc.msg if hasattr(exc, 'msg') else exc}); nothing after it was read",
                      fatal=True)


def _drop(element: ET.Element, parents: list[ET.Element]) -> None:
    """Forget a finished element: a cleared element still held by its parent would grow with the feed."""
    element.clear()
    if parents:
        parents[-1].remove(element)


def _item_values(element: ET.Element) -> tuple[dict[str, str], dict[str, str]]:
    values: dict[str, str] = {}
    details: dict[str, str] = {}
    for child in element:
        if _local(child.tag) == "product_detail":
            parts = {_local(c.tag): clean(c.text) for c in child}
            if feed_slug(parts.get("attribute_name", "")) and parts.get("attribute_value"):
                details.setdefault(feed_slug(parts["attribute_name"]), parts["attribute_value"])
    for child in element.iter():
        if child is element:
            continue
        name = _local(child.tag)
        text = child.text or ""
        if len(text) > MAX_FIELD_CHARS:
            values[name] = text  # refused by check_text, named
        elif text.strip() and name not in values:
            values[name] = text.strip()
    return values, details
