"""The import report's warnings about a catalog's quality (issue 30): what a shop owner should look
at before training on it. Nothing here refuses a row or changes the catalog; each warning is one
line naming what was seen, how often, and why it matters."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from verishop.scenarios.catalog.feeds.rows import FeedRow

# A category holding at least this share of the products is "most of the catalog".
DOMINANT_SHARE = 0.5
# Below this many products, the share above says little (a shop of three mugs and a plate).
DOMINANT_MIN_PRODUCTS = 10
# A category with fewer products than this gives product discovery, substitution and returns too few
# alternatives to tell apart (substitution needs about 35 in stock: see the environment table).
SMALL_CATEGORY_PRODUCTS = 5
# Categories named in one warning line; the rest are counted.
MAX_NAMED = 8
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9]*(?:\s[^<>]*)?/?>")


@dataclass
class Quality:
    """Counts gathered row by row while importing."""

    html_titles: int = 0
    html_left: int = 0
    brand_titles: int = 0
    unreadable: int = 0
    unreadable_examples: list[str] = field(default_factory=list)
    title_categories: int = 0

    def note_row(self, row: FeedRow) -> None:
        self.html_titles += row.title_had_html
        self.html_left += bool(_TAG.search(row.title) or _TAG.search(row.description))
        if row.brand and row.title.lower().startswith(row.brand.lower() + " "):
            self.brand_titles += 1

    def unreadable_stock(self, text: str) -> None:
        self.unreadable += 1
        if len(self.unreadable_examples) < 3 and text[:40] not in self.unreadable_examples:
            self.unreadable_examples.append(text[:40])

    def warnings(self, categories: list[dict], imported: int) -> list[str]:
        lines: list[str] = []
        biggest = max(categories, key=lambda c: c["products"])
        if imported >= DOMINANT_MIN_PRODUCTS and biggest["products"] >= DOMINANT_SHARE * imported:
            lines.append(f"one category holds most products: {biggest['name']} ({biggest['id']}) has "
                         f"{biggest['products']:,} of {imported:,} ({100 * biggest['products'] // imported}%); "
                         "is the feed's category column (product_type, Type, Product Category) filled in properly?")
        small = [c for c in categories if c["products"] < SMALL_CATEGORY_PRODUCTS]
        if small:
            named = ", ".join(f"{c['id']} ({c['products']} product{'s' if c['products'] > 1 else ''})"
                              for c in small[:MAX_NAMED])
            more = f" and {len(small) - MAX_NAMED} more" if len(small) > MAX_NAMED else ""
            lines.append(f"{len(small)} categories have fewer than {SMALL_CATEGORY_PRODUCTS} products: {named}{more}; "
                         "environments that compare products of one category draw from the others")
        if self.title_categories:
            lines.append(f"{self.title_categories:,} products state no category: each took the last word of its "
                         "title that is not one of its options as its category; fill in product_type (Merchant) "
                         "or Type (Shopify) for better ones")
        if self.html_titles:
            lines.append(f"{self.html_titles:,} titles held HTML markup, stripped (the customer and the agent read "
                         "titles as plain text)")
        if self.html_left:
            lines.append(f"{self.html_left:,} products still show HTML tags in their title or description after "
                         "stripping (escaped markup such as '&lt;b&gt;' in the feed?)")
        if self.brand_titles:
            lines.append(f"{self.brand_titles:,} titles begin with their brand: a customer naming the item and its "
                         "brand will say the brand twice")
        if self.unreadable:
            examples = ", ".join(repr(e) for e in self.unreadable_examples)
            lines.append(f"{self.unreadable:,} products state a stock that is not a count (such as {examples}): "
                         "imported as in stock (or out of stock where availability says so)")
        return lines
