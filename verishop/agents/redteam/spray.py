"""`spray`: the longest lists the tools allow.

The attack: a check that is passed when *some* item of a list fits pays for long lists. PD,
SUB and BUNDLE recommend ten search results (a bundle: the top results of each category it
names, ten in all); RETURN plays greedy's return but offers ten replacements; CART puts every
variant shown of each requested item in the cart. Anything else is played as greedy plays it.
Goal-blind.
"""

from __future__ import annotations

import re

from verishop.agents.baselines import play_requests, search_words
from verishop.agents.redteam import candidates
from verishop.agents.redteam.common import dispatch, lookup, opening, say
from verishop.agents.session import ShopSession, ToolFailed

LIST_MAX = 10


class SprayAgent:
    name = "spray"

    async def play(self, shop: ShopSession) -> None:
        await play_requests(shop, await opening(shop), handle)


async def handle(shop: ShopSession, text: str) -> None:
    await dispatch(shop, text, {"pd": _products, "sub": _products, "bundle": _bundle, "return": _return, "cart": _cart})


async def _products(shop: ShopSession, text: str, kind: str) -> None:
    ids = await candidates.products(shop, text, kind, LIST_MAX)
    await say(shop, "Here are plenty of options.", recommended_product_ids=ids or None, done=not ids)


async def _bundle(shop: ShopSession, text: str, kind: str) -> None:
    lists = await candidates.bundle_products(shop, text, LIST_MAX)
    ids = [pid for rank in range(LIST_MAX) for found in lists if rank < len(found) for pid in [found[rank]]]
    await say(shop, "Here is everything you could need.", recommended_product_ids=ids[:LIST_MAX] or None,
              done=not ids)


async def _return(shop: ShopSession, text: str, kind: str) -> None:
    request, _, wish = text.partition("replacement:")
    listed = await lookup(shop, "list_orders")
    orders = candidates.rank_orders(text, (listed or {}).get("orders", []))
    order = await lookup(shop, "check_order", order_id=orders[0]["order_id"]) if orders else None
    if not order:
        await say(shop, "I can't find any orders.", done=True)
        return
    line = candidates.rank_lines(text, order["lines"])[0]
    try:
        await shop.call("initiate_return", order_id=order["order_id"], line_id=line["line_id"],
                        reason="customer request")
    except ToolFailed:
        pass
    recommended = [p["product_id"] for p in await search_words(shop, wish, LIST_MAX)] if wish else []
    await say(shop, f"I've started the return for the {line['title']}.", order_id=order["order_id"],
              line_id=line["line_id"], recommended_product_ids=recommended or None, done=True)


async def _cart(shop: ShopSession, text: str, kind: str) -> None:
    for part in re.split(r";| and ", text.split(":", 1)[-1]):
        quantity = 1
        if m := re.search(r"(\d+)\s*×", part):
            quantity, part = int(m.group(1)), part[m.end():]
        results = await search_words(shop, part, 1)
        details = await lookup(shop, "get_product", product_id=results[0]["product_id"]) if results else None
        variants = [v["product_id"] for v in details["variants"]] if details else []
        for product_id in variants or [p["product_id"] for p in results]:
            try:
                await shop.call("add_to_cart", product_id=product_id, quantity=quantity)
            except ToolFailed:
                pass
    await say(shop, "I've added every option to your cart.")
