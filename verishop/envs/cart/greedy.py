"""Greedy cart building: one search per requested item, its top result into the cart."""

from __future__ import annotations

import re

from verishop.agents.baselines import search_words
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.tool_names import ADD_TO_CART, RESPOND_TO_CUSTOMER


# Greedy tries the environments' `matches` from the lowest PRECEDENCE up (most specific first).
PRECEDENCE = 40


def matches(text: str) -> bool:
    lowered = text.lower()
    return "cart" in lowered or "order " in lowered or "like to order" in lowered


async def play(shop: ShopSession, text: str) -> None:
    body = text.split(":", 1)[-1]
    for part in re.split(r";| and ", body):
        quantity = 1
        if m := re.search(r"(\d+)\s*×", part):
            quantity, part = int(m.group(1)), part[m.end():]
        try:
            results = await search_words(shop, part, 1)
        except ToolFailed:  # the lookup budget is spent: stop searching
            break
        if results:
            try:
                await shop.call(ADD_TO_CART, product_id=results[0]["product_id"], quantity=quantity)
            except ToolFailed:
                pass
    await shop.call(RESPOND_TO_CUSTOMER, message="I've added what I could find to your cart.")
