"""Greedy returns: return the line whose title shares the most words with the request (in the
delivered order whose items share the most), name it, and for a replacement recommend the top search
results. It neither asks which item nor checks the return window."""

from __future__ import annotations

import re

from verishop.agents.baselines import search_words
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.budget import BUDGET_ERROR

# The request's own phrasing (scenarios/envs/returns.py, order_status.py), not what was bought.
_STOPWORDS = frozenset((
    "hi", "hello", "hey", "there", "good", "afternoon", "the", "and", "that", "for", "from", "with", "start",
    "return", "need", "like", "please", "help", "ordered", "order", "it", "it's", "isn't", "what", "expected",
    "doesn't", "fit", "arrived", "damaged", "changed", "mind", "about", "stopped", "working", "after", "few",
    "days", "i'd", "also", "replacement", "can", "you", "tell", "me", "my", "is", "was", "wondering", "placed",
    "around", "most", "recent", "one", "status", "where", "what's", "happening",
))


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9'%-]+", text.lower()) if len(w) >= 3 and w not in _STOPWORDS}


def overlap(words: set[str], text: str) -> int:
    return len(words & content_words(text))


def matches(text: str) -> bool:
    return "start a return" in text.lower()


async def lookup(shop: ShopSession, tool: str, **arguments: object) -> dict:
    """Call a lookup; if this turn's budget is spent, say so to the customer and try again."""
    try:
        return await shop.call(tool, **arguments)
    except ToolFailed as exc:
        if BUDGET_ERROR not in str(exc):
            raise
    await shop.call("respond_to_customer", message="Let me look that up for you.")
    return await shop.call(tool, **arguments)


async def play(shop: ShopSession, text: str) -> None:
    request, _, wish = text.partition("replacement:")
    words = content_words(request)
    orders = (await shop.call("list_orders"))["orders"]
    if not orders:
        await shop.call("respond_to_customer", message="I can't find any orders.", done=True)
        return
    # Only a delivered order can be returned from; ties go to the newest.
    delivered = [o for o in orders if o["status"] == "delivered"] or orders
    best = max(delivered, key=lambda o: overlap(words, " ".join(o["items"])))
    order = await lookup(shop, "check_order", order_id=best["order_id"])
    line = max(order["lines"], key=lambda li: overlap(words, li["title"]))
    try:
        await shop.call("initiate_return", order_id=order["order_id"], line_id=line["line_id"],
                        reason="customer request")
    except ToolFailed:
        pass
    recommended = [p["product_id"] for p in await search_words(shop, wish, 3)] if wish else []
    await shop.call("respond_to_customer", message=f"I've started the return for the {line['title']}.",
                    order_id=order["order_id"], line_id=line["line_id"], recommended_product_ids=recommended or None)
