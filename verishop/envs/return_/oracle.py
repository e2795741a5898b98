"""RETURN oracle: look the target order up (it shows the line IDs), return the target line,
and, when a replacement is wanted, recommend the reference one after looking it up in the
same turn (replacements are only asked for from d = 2, where two lookups fit in a turn)."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import ReturnGoal


async def play(shop: ShopSession, goal: ReturnGoal) -> None:
    await shop.call("check_order", order_id=goal.order_id)
    recommended = [goal.replacement_product_id] if goal.replacement and goal.replacement_product_id else []
    if recommended:
        await shop.call("compare_products", product_ids=recommended)
    await shop.call("initiate_return", order_id=goal.order_id, line_id=goal.line_id, reason=goal.reason)
    await shop.call("respond_to_customer", message="Your return is started."
                    + (" This would make a good replacement." if recommended else ""),
                    order_id=goal.order_id, line_id=goal.line_id, recommended_product_ids=recommended or None,
                    done=True)
