"""Greedy product discovery: search with the requirements the customer stated, in the order of
the priority it stated, and recommend the top in-stock results; no questions asked."""

from __future__ import annotations

import re

from verishop.agents.baselines import categories, search_words
from verishop.agents.baselines.reading import named_category, stated_filters, stated_sort
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.tool_names import RESPOND_TO_CUSTOMER, SEARCH_CATALOG


# Greedy tries the environments' `matches` from the lowest PRECEDENCE up. Product discovery is the catch-all: tried last.
PRECEDENCE = 100


def matches(text: str) -> bool:
    return True


async def play(shop: ShopSession, text: str) -> None:
    cat = named_category(text)
    kind = _kind_phrase(text) if cat is None else None
    if kind:  # a category the generated taxonomy does not name (an imported shop): found by search
        results = await _search_found_category(shop, text, kind)
    elif cat is None:
        results = await search_words(shop, text, 5)
    else:
        try:
            found = await shop.call(SEARCH_CATALOG, **stated_filters(text, cat), in_stock_only=True,
                                    sort_by=stated_sort(text), limit=_wanted(text))
            results = found["results"]
        except ToolFailed:
            results = []
    ids = [p["product_id"] for p in results]
    if ids:
        await shop.call(RESPOND_TO_CUSTOMER, message="Here are the best matches I found.",
                        recommended_product_ids=ids)
    else:
        await shop.call(RESPOND_TO_CUSTOMER, message="Sorry, I couldn't find anything.", done=True)


def _kind_phrase(text: str) -> str | None:
    """The kind of product the customer shops for ("I'm shopping for bottled ink: ...")."""
    found = re.search(r"shopping for ([^:.!?]+)", text, re.IGNORECASE)
    return found.group(1).strip() if found else None


async def _search_found_category(shop: ShopSession, text: str, kind: str) -> list[dict]:
    cards = await categories.cards_for(shop, kind)
    category_id = categories.category_among(cards, kind)
    if category_id is None:
        return []
    sample = next((c for c in cards if c["category_id"] == category_id), None)
    filters = await categories.stated_filters(shop, text, category_id, sample)
    try:
        found = await shop.call(SEARCH_CATALOG, **filters, in_stock_only=True, sort_by=stated_sort(text),
                                limit=_wanted(text))
    except ToolFailed:
        from verishop.agents.baselines.lookups import lookup

        try:  # the turn's lookups spent: one filler turn, then the same search
            found = await lookup(shop, SEARCH_CATALOG, **filters, in_stock_only=True, sort_by=stated_sort(text),
                                 limit=_wanted(text))
        except ToolFailed:
            return []
    return found["results"]


def _wanted(text: str) -> int:
    """How many options the customer asked for ("top 4 picks"), else 3."""
    asked = re.search(r"\b(\d+)\s+(?:good\s+)?(?:options|choices|picks)\b", text.lower())
    return int(asked.group(1)) if asked else 3
