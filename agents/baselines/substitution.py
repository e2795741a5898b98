"""Greedy substitution: search the words of the sold-out product's name that describe it (those
after its model number) in its category, in stock, and recommend the top results in the shop's
order, without looking at the original or asking anything."""

from __future__ import annotations

import re

from agents.session import ShopSession, ToolFailed
from scenarios.taxonomy import SHOPPABLE_CATEGORIES


def matches(text: str) -> bool:
    lowered = text.lower()
    return "sold out" in lowered or "alternatives" in lowered


async def play(shop: ShopSession, text: str) -> None:
    named = re.search(r"buy the (.+?), but", text)
    name = named.group(1) if named else text
    wanted = re.search(r"(\d+)\s+(?:similar|in-stock)", text)
    k = int(wanted.group(1)) if wanted else 3
    lowered = name.lower()
    category_id = next((c.id for c in SHOPPABLE_CATEGORIES if c.name.lower() in lowered
                        or any(n.lower() in lowered for n in c.nouns)), None)
    words = name.split()
    # Titles read "<brand> <model> <number> <attribute values> <noun>": the words after the model
    # number are what the product is like.
    number = next((i for i, w in enumerate(words) if w.isdigit()), None)
    query = " ".join(words[number + 1:] if number is not None else words[:3])
    try:
        found = await shop.call("search_catalog", query=query, category_id=category_id,
                                in_stock_only=True, limit=k)
    except ToolFailed:
        found = {"results": []}
    ids = [p["product_id"] for p in found["results"]]
    if ids:
        await shop.call("respond_to_customer", message="Here are the closest matches I found.",
                        recommended_product_ids=ids)
    else:
        await shop.call("respond_to_customer", message="Sorry, I couldn't find an alternative.", done=True)
