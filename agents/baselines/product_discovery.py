"""Greedy product discovery: recommend the top results for the customer's words."""

from __future__ import annotations

from agents.baselines import search_words
from agents.session import ShopSession


def matches(text: str) -> bool:
    return True


async def play(shop: ShopSession, text: str) -> None:
    ids = [p["product_id"] for p in await search_words(shop, text, 5)]
    if ids:
        await shop.call("respond_to_customer", message="Here are the best matches I found.",
                        recommended_product_ids=ids)
    else:
        await shop.call("respond_to_customer", message="Sorry, I couldn't find anything.", done=True)
