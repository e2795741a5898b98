"""Greedy order status: the order whose items share the most words with the question (the
newest on a tie), and the status the order list shows for it. No questions asked."""

from __future__ import annotations

from verishop.agents.baselines.returns import content_words, overlap
from verishop.agents.session import ShopSession


def matches(text: str) -> bool:
    lowered = text.lower()
    return "order" in lowered and any(cue in lowered for cue in ("where", "status", "happening"))


async def play(shop: ShopSession, text: str) -> None:
    words = content_words(text)
    orders = (await shop.call("list_orders"))["orders"]
    if not orders:
        await shop.call("respond_to_customer", message="I can't find any orders.", done=True)
        return
    best = max(orders, key=lambda o: overlap(words, " ".join(o["items"])))
    status = best["status"].replace("_", " ")
    await shop.call("respond_to_customer", message=f"Your order {best['order_id']} is {status}.",
                    order_id=best["order_id"], answer=status)
