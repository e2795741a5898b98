"""The toy's greedy baseline: the newest order's status, without reading which item was meant."""

from __future__ import annotations

from verishop.agents.session import ShopSession

PRECEDENCE = 5  # its opening names "toy order": tried before every other environment's


def matches(text: str) -> bool:
    return "toy order" in text.lower()


async def play(shop: ShopSession, text: str) -> None:
    orders = (await shop.call("list_orders"))["orders"]
    newest = orders[0]
    await shop.call("respond_to_customer", message=f"Your order {newest['order_id']} is {newest['status']}.",
                    order_id=newest["order_id"], answer_status=newest["status"])
