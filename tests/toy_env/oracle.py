"""The toy's oracle: look the order up, then name it and its status."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import StatusGoal


async def play(shop: ShopSession, goal: StatusGoal) -> None:
    order = await shop.call("check_order", order_id=goal.order_id)
    await shop.call("respond_to_customer", message=f"Your order {order['order_id']} is {order['status']}.",
                    order_id=order["order_id"], answer_status=order["status"], done=True)
