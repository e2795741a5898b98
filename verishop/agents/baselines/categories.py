"""Finding a shop's categories and filters through search, the way any MCP client can: for a
shop whose categories are not the generated taxonomy's (an imported feed, issue 30 point 4).

A phrase naming a kind of product ("bottled ink", "the Marlowe fountain pen") is searched; the
category is the one among the result cards whose ID shares the most words with the phrase, then
the one most cards fall in. The requirements the customer states in the shop's phrasing ("made
by Marlowe", "under $40", "nib size M") become search filters, attribute names read from one
product's details.
"""

from __future__ import annotations

import re
from typing import Any

from verishop.agents.baselines.policy_text import words_of
from verishop.agents.baselines.reading import numeric_filters
from verishop.agents.session import ShopSession, ToolFailed


async def cards_for(shop: ShopSession, phrase: str, limit: int = 10) -> list[dict]:
    from verishop.agents.baselines.lookups import lookup

    try:
        return (await lookup(shop, "search_catalog", query=phrase[:200], limit=limit))["results"]
    except ToolFailed:
        return []


def category_among(cards: list[dict], phrase: str) -> str | None:
    """The category of `cards` that `phrase` names best (see the module's doc)."""
    ids = [c["category_id"] for c in cards]
    if not ids:
        return None
    wanted = words_of(phrase)
    return max(dict.fromkeys(ids), key=lambda cid: (len(wanted & words_of(cid.replace("_", " "))), ids.count(cid),
                                                     -ids.index(cid)))


async def find_category(shop: ShopSession, phrase: str) -> str | None:
    return category_among(await cards_for(shop, phrase), phrase)


def _clause_value(text: str, after: str) -> str | None:
    """The words after `after` up to the end of its clause (", ", " and ", ".")."""
    found = re.search(rf"\b{re.escape(after)} (.+?)(?:,| and |\.|$)", text, re.IGNORECASE)
    return found.group(1).strip() if found else None


async def stated_filters(shop: ShopSession, text: str, category_id: str, sample: dict | None) -> dict[str, Any]:
    """search_catalog filters for what `text` states, in the shop's own phrasing; attribute names
    are those of `sample` (a product card of the category), read with get_product."""
    from verishop.agents.baselines.lookups import lookup

    lowered = text.lower()
    filters = numeric_filters(lowered, category_id)
    if brand := _clause_value(text, "made by"):
        filters["brand"] = brand
    if sample is not None:
        try:
            details = await lookup(shop, "get_product", product_id=sample["product_id"])
        except ToolFailed:
            details = {}
        attributes = []
        for name in details.get("attributes", {}):
            value = _clause_value(text, name.replace("_", " "))
            if value:
                attributes.append({"name": name, "value": value})
        if attributes:
            filters["attributes"] = attributes
    return filters
