"""CHANGE oracle: look the order up (its status, lines and each line's variants); if it has
shipped, refuse with `return_instead`; else name every change to the customer, and once they
agree, look the saved address up if one is wanted, make each change in one call and close."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import OrderChangeGoal
from verishop.scenarios.tool_names import (CANCEL_ORDER, CHANGE_ORDER_ADDRESS, CHECK_ORDER, GET_CUSTOMER_PROFILE,
                                           MODIFY_ORDER_ITEMS, RESPOND_TO_CUSTOMER)


async def play(shop: ShopSession, goal: OrderChangeGoal) -> None:
    await shop.call(CHECK_ORDER, order_id=goal.order_id)
    if goal.refusal is not None:
        await shop.call(RESPOND_TO_CUSTOMER, message=f"Order {goal.order_id} has already shipped, so it can no "
                        "longer be changed: you can return it once it arrives.", order_id=goal.order_id,
                        answer_refusal=goal.refusal, done=True)
        return
    amount = {"answer_number": goal.difference_cents / 100} if goal.difference_cents else {}
    await shop.call(RESPOND_TO_CUSTOMER, message=f"For order {goal.order_id}, I will {proposal(goal)}. Shall I go "
                    "ahead?", order_id=goal.order_id, **amount)
    if goal.cancel_reason is not None:
        await shop.call(CANCEL_ORDER, order_id=goal.order_id, reason=goal.cancel_reason)
    if goal.line_changes:
        await shop.call(MODIFY_ORDER_ITEMS, order_id=goal.order_id,
                        changes=[{"line_id": c.line_id, "product_id": c.product_id} for c in goal.line_changes])
    if goal.address is not None:
        if goal.address_id is not None:
            await shop.call(GET_CUSTOMER_PROFILE)
            await shop.call(CHANGE_ORDER_ADDRESS, order_id=goal.order_id, address_id=goal.address_id)
        else:
            await shop.call(CHANGE_ORDER_ADDRESS, order_id=goal.order_id, address=goal.address.model_dump())
    await shop.call(RESPOND_TO_CUSTOMER, message="All done: your order is changed.", order_id=goal.order_id,
                    done=True)


def proposal(goal: OrderChangeGoal) -> str:
    """Every change, named as the shop must name it before it makes it."""
    parts = []
    if goal.cancel_reason is not None:
        parts.append(f"cancel it ({goal.cancel_reason})")
    parts += [f"switch line {c.line_id} to {c.product_id} ({c.value})" for c in goal.line_changes]
    if goal.address is not None:
        parts.append(f"ship it to {goal.address.words()}")
    return " and ".join(parts)
