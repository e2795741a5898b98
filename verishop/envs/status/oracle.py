"""STATUS oracle: look the target order up, then name it and its status."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import StatusGoal
from verishop.scenarios.tool_names import CHECK_ORDER, RESPOND_TO_CUSTOMER


async def play(shop: ShopSession, goal: StatusGoal) -> None:
    order = await shop.call(CHECK_ORDER, order_id=goal.order_id)
    status = order["status"].replace("_", " ")
    await shop.call(RESPOND_TO_CUSTOMER, message=f"Your order {order['order_id']} is {status}.",
                    order_id=order["order_id"], answer=status, done=True)
