"""Greedy product discovery: search with the requirements the customer stated, in the order of
the priority it stated, and recommend the top in-stock results; no questions asked."""

from __future__ import annotations

import re

from verishop.agents.baselines import search_words
from verishop.agents.baselines.reading import named_category, stated_filters, stated_sort
from verishop.agents.session import ShopSession, ToolFailed


def matches(text: str) -> bool:
    return True


async def play(shop: ShopSession, text: str) -> None:
    cat = named_category(text)
    if cat is None:
        results = await search_words(shop, text, 5)
    else:
        try:
            found = await shop.call("search_catalog", **stated_filters(text, cat), in_stock_only=True,
                                    sort_by=stated_sort(text), limit=_wanted(text))
            results = found["results"]
        except ToolFailed:
            results = []
    ids = [p["product_id"] for p in results]
    if ids:
        await shop.call("respond_to_customer", message="Here are the best matches I found.",
                        recommended_product_ids=ids)
    else:
        await shop.call("respond_to_customer", message="Sorry, I couldn't find anything.", done=True)


def _wanted(text: str) -> int:
    """How many options the customer asked for ("top 4 picks"), else 3."""
    asked = re.search(r"\b(\d+)\s+(?:good\s+)?(?:options|choices|picks)\b", text.lower())
    return int(asked.group(1)) if asked else 3
