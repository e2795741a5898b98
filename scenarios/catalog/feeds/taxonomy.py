"""The imported catalog's own taxonomy, gathered while its rows stream past: a category per distinct
category path of the feed, with the attributes enough of its products state (values as seen, the
rule in `kept`), its brands, its price range and the attribute its variant groups differ on.

Real exports state an attribute for part of a category only (a Shopify product with variants on
Size beside one with Shopify's single "Default Title" variant), and name one thing two ways
("Colour" and "Color"): `canonical_attributes` merges the names listed in SYNONYMS, and an
attribute is kept when at least KEEP_SHARE of the category's products, and at least
KEEP_MIN_PRODUCTS of them, state it. A category whose products all state an attribute keeps it,
as before this rule (issue 30)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from verishop.scenarios.catalog.feeds.rows import FeedRow, feed_slug
from verishop.scenarios.taxonomy import CATEGORY_BY_ID

# Bounds on what a category remembers, whatever the feed's size.
MAX_VALUES_PER_ATTRIBUTE = 200
MAX_BRANDS_PER_CATEGORY = 200
# Imported category ids never equal a generated one: `taxonomy.category` resolves both.
IMPORTED_PREFIX = "shop_"
# The search tool takes category ids of at most 40 characters: prefix, slug and a "__N" suffix fit.
MAX_SLUG_CHARS = 30
# An attribute enters a category's schema when at least this share of its products state it, and
# at least KEEP_MIN_PRODUCTS of them: a third is enough for a customer to ask for it and for the
# environments to find products that carry it (each draws only those), while an attribute one
# product in twenty states is noise.
KEEP_SHARE = 1 / 3
KEEP_MIN_PRODUCTS = 2
# Variant groups whose products differ on two options (Size and Colour) are variant groups too: a
# category records both (`variant_attributes`, its `variant_attribute` first) when at least one of
# its groups differs on both, the second being the option that differs beside the first in the most
# groups. Shopify allows three options; a category records two at most.
MAX_VARIANT_OPTIONS = 2
# Option and attribute names (as slugs) that mean the same thing, merged into the second. Only
# names whose sameness is plain: spelling variants and a qualifier that names the category's own
# kind of size. Anything else stays as the feed names it.
SYNONYMS = {
    "colour": "color", "colours": "color", "colors": "color", "color_name": "color", "colour_name": "color",
    "shoe_size": "size", "clothing_size": "size", "sizes": "size", "size_name": "size",
    "materials": "material", "fabric": "material",
}


def kept(products_stating: int, products: int) -> bool:
    """Whether an attribute stated by `products_stating` of a category's `products` is in its schema."""
    return products_stating >= max(KEEP_MIN_PRODUCTS, KEEP_SHARE * products) or products_stating == products


def canonical_attributes(attrs: dict[str, str], merged: dict[str, str]) -> dict[str, str]:
    """`attrs` with SYNONYMS merged (the first value stated wins); each merge noted in `merged`."""
    if not any(name in SYNONYMS for name in attrs):
        return attrs
    result: dict[str, str] = {}
    for name, value in attrs.items():
        target = SYNONYMS.get(name, name)
        if target != name:
            merged[name] = target
        result.setdefault(target, value)
    return result


@dataclass
class _Category:
    id: str
    name: str
    department: str
    path: str
    count: int = 0
    low_cents: int = 0
    high_cents: int = 0
    brands: set[str] = field(default_factory=set)
    attr_count: Counter = field(default_factory=Counter)
    attr_values: dict[str, set[str]] = field(default_factory=dict)
    varies: Counter = field(default_factory=Counter)
    # Each variant group's values of each attribute (groups whose rows are in this category).
    group_values: dict[str, dict[str, set[str]]] = field(default_factory=dict)


def split_path(path: str) -> list[str]:
    return [p.strip() for p in path.replace("›", ">").split(">") if p.strip()]


def singular(name: str) -> str:
    """'Knitting Needles' -> 'Knitting Needle', 'Craft Knives' -> 'Craft Knife': how a customer names
    one item of a category (a crude English rule; a name it does not know stays as it is)."""
    head, _, last = name.rpartition(" ")
    lower = last.lower()
    if lower.endswith("ives"):
        last = last[:-3] + "fe"
    elif lower.endswith("ies") and len(lower) > 4:
        last = last[:-3] + "y"
    elif lower.endswith(("ches", "shes", "xes", "sses")):
        last = last[:-2]
    elif lower.endswith("s") and not lower.endswith(("ss", "us", "is")):
        last = last[:-1]
    return f"{head} {last}".strip()


class TaxonomyBuilder:
    def __init__(self) -> None:
        self.by_path: dict[str, _Category] = {}
        self.taken: set[str] = set()
        self.group_heads: dict[str, tuple[tuple[str, str], ...]] = {}
        self.by_id: dict[str, _Category] = {}

    def _new(self, path: str) -> _Category:
        parts = split_path(path) or [path]
        for candidate in (parts[-1], " ".join(parts[-2:]), " ".join(parts)):
            cid = IMPORTED_PREFIX + ((feed_slug(candidate) or "category")[:MAX_SLUG_CHARS].strip("_"))
            if cid not in self.taken:
                break
        n = 2
        while cid in self.taken or cid in CATEGORY_BY_ID:
            cid, n = f"{cid.rsplit('__', 1)[0]}__{n}", n + 1
        self.taken.add(cid)
        return _Category(cid, parts[-1], parts[0] if len(parts) > 1 else parts[-1], " > ".join(parts))

    def add(self, row: FeedRow, price_cents: int) -> _Category:
        key = " > ".join(split_path(row.category_path)).lower()
        cat = self.by_path.get(key)
        if cat is None:
            cat = self.by_path[key] = self._new(row.category_path)
            self.by_id[cat.id] = cat
        cat.count += 1
        cat.low_cents = price_cents if cat.count == 1 else min(cat.low_cents, price_cents)
        cat.high_cents = max(cat.high_cents, price_cents)
        if row.brand and len(cat.brands) < MAX_BRANDS_PER_CATEGORY:
            cat.brands.add(row.brand)
        for name, value in row.attrs.items():
            cat.attr_count[name] += 1
            values = cat.attr_values.setdefault(name, set())
            if len(values) < MAX_VALUES_PER_ATTRIBUTE:
                values.add(value)
        return cat

    def note_group_head(self, category_id: str, group_id: str, attrs: dict[str, str], grouped: bool) -> None:
        if grouped:
            self.group_heads[group_id] = tuple(attrs.items())

    def note_variant(self, category_id: str, group_id: str, attrs: dict[str, str]) -> None:
        head = dict(self.group_heads.get(group_id, ()))
        cat = self.by_id[category_id]
        for name, value in attrs.items():
            if head.get(name) != value:
                cat.varies[name] += 1
        values = cat.group_values.setdefault(group_id, {n: {v} for n, v in head.items()})
        for name, value in attrs.items():
            seen = values.setdefault(name, set())
            if len(seen) < MAX_VALUES_PER_ATTRIBUTE:
                seen.add(value)

    def categories(self) -> list[dict]:
        """Each category as the catalog's `taxonomy` meta records it (verishop.scenarios.taxonomy reads it)."""
        result = []
        for cat in sorted(self.by_path.values(), key=lambda c: c.id):
            schema = self._schema(cat)
            options = self._variant_options(cat, schema)
            record = {
                "id": cat.id, "name": cat.name, "department": cat.department, "path": cat.path,
                "products": cat.count, "price_cents": [cat.low_cents, cat.high_cents],
                "brands": sorted(cat.brands), "nouns": [singular(cat.name)],
                "attributes": [{"name": n, "values": sorted(cat.attr_values[n])} for n in schema],
                "variant_attribute": options[0] if options else None,
            }
            if len(options) > 1:  # left out for one option: such a category is recorded as before
                record["variant_attributes"] = options
            result.append(record)
        return result

    @staticmethod
    def _schema(cat: _Category) -> list[str]:
        return sorted(n for n, k in cat.attr_count.items() if kept(k, cat.count))

    @staticmethod
    def _differing(cat: _Category, schema: list[str]) -> list[list[str]]:
        """For each variant group of the category, the attributes of its schema its products differ on."""
        return [[n for n in schema if len(values.get(n, ())) > 1] for values in cat.group_values.values()]

    def _variant_options(self, cat: _Category, schema: list[str]) -> list[str]:
        """The category's variant attribute (the one most variants differ on from their group's first
        product), and the one most often differing beside it in a group, if any group differs on both."""
        varying = [n for n, _ in cat.varies.most_common() if n in schema and len(cat.attr_values[n]) > 1]
        if not varying:
            return []
        first = varying[0]
        beside = Counter(n for names in self._differing(cat, schema) if first in names for n in names if n != first)
        ranked = sorted(beside.items(), key=lambda item: (-item[1], item[0]))
        return [first, *(n for n, _ in ranked[:MAX_VARIANT_OPTIONS - 1])]

    def variant_groups(self) -> list[dict]:
        """Per category with variant groups: the options it records, and how many of its groups
        differ on one option, on two, and on more (the import report's `variant_groups`)."""
        rows = []
        for cat in sorted(self.by_path.values(), key=lambda c: c.id):
            schema = self._schema(cat)
            counts = Counter(min(len(names), 3) for names in self._differing(cat, schema))
            if counts[1] or counts[2] or counts[3]:
                rows.append({"category": cat.id, "options": self._variant_options(cat, schema),
                             "one_option": counts[1], "two_options": counts[2], "more_options": counts[3]})
        return rows

    def coverage(self) -> list[dict]:
        """How many products of each category state each attribute, and whether the rule kept it."""
        return [{"category": cat.id, "attribute": name, "products": k, "of": cat.count, "kept": kept(k, cat.count)}
                for cat in sorted(self.by_path.values(), key=lambda c: c.id)
                for name, k in sorted(cat.attr_count.items())]
