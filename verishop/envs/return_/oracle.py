"""RETURN oracle: look the target order up (it shows the line IDs), return the target line,
and, when a replacement is wanted, recommend the reference one after looking it up in the
same turn (replacements are only asked for from d = 2, where two lookups fit in a turn)."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import ReturnGoal
from verishop.scenarios.tool_names import CHECK_ORDER, COMPARE_PRODUCTS, INITIATE_RETURN, RESPOND_TO_CUSTOMER


async def play(shop: ShopSession, goal: ReturnGoal) -> None:
    await shop.call(CHECK_ORDER, order_id=goal.order_id)
    recommended = [goal.replacement_product_id] if goal.replacement and goal.replacement_product_id else []
    if recommended:
        await shop.call(COMPARE_PRODUCTS, product_ids=recommended)
    await shop.call(INITIATE_RETURN, order_id=goal.order_id, line_id=goal.line_id, reason=goal.reason)
    await shop.call(RESPOND_TO_CUSTOMER, message="Your return is started."
                    + (" This would make a good replacement." if recommended else ""),
                    order_id=goal.order_id, line_id=goal.line_id, recommended_product_ids=recommended or None,
                    done=True)
