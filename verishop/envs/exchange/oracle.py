"""EXCHANGE oracle: look the order up (delivery date, lines, each line's variants and stock);
refuse an exchange the store cannot make with the typed reason; else name the exchange, the
payment method and the exact difference, and once the customer agrees, look the payment method up
and make it."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import ExchangeGoal
from verishop.scenarios.tool_names import CHECK_ORDER, EXCHANGE_ITEMS, GET_CUSTOMER_PROFILE, RESPOND_TO_CUSTOMER


async def play(shop: ShopSession, goal: ExchangeGoal) -> None:
    await shop.call(CHECK_ORDER, order_id=goal.order_id)
    if goal.refusal is not None:
        why = ("is sold out" if goal.refusal == "out_of_stock"
               else "cannot be exchanged under the store's policy")
        await shop.call(RESPOND_TO_CUSTOMER, message=f"I'm sorry: the exchange you asked for {why}.",
                        order_id=goal.order_id, answer_refusal=goal.refusal, done=True)
        return
    change = goal.line_changes[0]
    await shop.call(RESPOND_TO_CUSTOMER, message=(
        f"For order {goal.order_id}, I will exchange line {change.line_id} for {change.product_id} "
        f"({change.value}), using your {goal.payment_label}: the difference is {goal.difference_cents / 100:.2f}. "
        "Shall I go ahead?"), order_id=goal.order_id, answer_number=goal.difference_cents / 100)
    profile = await shop.call(GET_CUSTOMER_PROFILE)
    assert any(m["payment_method_id"] == goal.payment_id for m in profile["payment_methods"])
    await shop.call(EXCHANGE_ITEMS, order_id=goal.order_id,
                    changes=[{"line_id": c.line_id, "product_id": c.product_id} for c in goal.line_changes],
                    payment_method_id=goal.payment_id)
    await shop.call(RESPOND_TO_CUSTOMER, message="Your exchange is on its way.", order_id=goal.order_id, done=True)
