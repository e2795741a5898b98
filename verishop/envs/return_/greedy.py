"""Greedy returns: return the line whose title shares the most words with the request (in the
delivered order whose items share the most), name it, and for a replacement recommend the top search
results. It neither asks which item nor checks the return window."""

from __future__ import annotations


from verishop.agents.baselines import search_words
from verishop.agents.baselines.lookups import content_words, lookup, overlap
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.tool_names import CHECK_ORDER, INITIATE_RETURN, LIST_ORDERS, RESPOND_TO_CUSTOMER


# Greedy tries the environments' `matches` from the lowest PRECEDENCE up (most specific first).
PRECEDENCE = 20


def matches(text: str) -> bool:
    return "start a return" in text.lower()


async def play(shop: ShopSession, text: str) -> None:
    request, _, wish = text.partition("replacement:")
    words = content_words(request)
    orders = (await shop.call(LIST_ORDERS))["orders"]
    if not orders:
        await shop.call(RESPOND_TO_CUSTOMER, message="I can't find any orders.", done=True)
        return
    # Only a delivered order can be returned from; ties go to the newest.
    delivered = [o for o in orders if o["status"] == "delivered"] or orders
    best = max(delivered, key=lambda o: overlap(words, " ".join(o["items"])))
    order = await lookup(shop, CHECK_ORDER, order_id=best["order_id"])
    line = max(order["lines"], key=lambda li: overlap(words, li["title"]))
    try:
        await shop.call(INITIATE_RETURN, order_id=order["order_id"], line_id=line["line_id"],
                        reason="customer request")
    except ToolFailed:
        pass
    recommended = [p["product_id"] for p in await search_words(shop, wish, 3)] if wish else []
    await shop.call(RESPOND_TO_CUSTOMER, message=f"I've started the return for the {line['title']}.",
                    order_id=order["order_id"], line_id=line["line_id"], recommended_product_ids=recommended or None)
