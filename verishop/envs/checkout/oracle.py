"""CHECKOUT oracle: show the wanted items (one lookup), put them in the cart, apply an optimal
voucher set (each application's result checked against the plan), name the shipping option, the
payment and the exact total to the customer; once they agree, look the account up (the address
and payment method IDs) and place the order, checking the receipt's total."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import CheckoutGoal
from verishop.scenarios.tool_names import (
    ADD_TO_CART,
    APPLY_VOUCHER,
    CHECKOUT,
    COMPARE_PRODUCTS,
    GET_CUSTOMER_PROFILE,
    RESPOND_TO_CUSTOMER,
)

SAID_OPTION = {"standard": "standard", "express": "express", "next_day": "next-day"}


def yours(words: str) -> str:
    """The customer's words about its own things, as the shop says them: "my gift card" -> "your gift card"."""
    return words.replace("my ", "your ")


async def play(shop: ShopSession, goal: CheckoutGoal) -> None:
    await shop.call(COMPARE_PRODUCTS, product_ids=[item.product_id for item in goal.items])
    for item in goal.items:
        await shop.call(ADD_TO_CART, product_id=item.product_id, quantity=item.quantity)
    plan = goal.optima[0]
    for code in plan.voucher_codes:
        await shop.call(APPLY_VOUCHER, code=code)
    total = goal.total_cents / 100
    await shop.call(RESPOND_TO_CUSTOMER, message=(
        f"With {'the vouchers ' + ', '.join(plan.voucher_codes) if plan.voucher_codes else 'no voucher'} and "
        f"{SAID_OPTION[plan.shipping_option]} shipping, paid with {yours(goal.payment_words)}, your total is "
        f"{total:.2f}. Shall I place the order?"), answer_number=total)
    profile = await shop.call(GET_CUSTOMER_PROFILE)
    assert any(a["address_id"] == goal.address_id for a in profile["addresses"])
    receipt = await shop.call(CHECKOUT, address_id=goal.address_id, payment_method_ids=list(goal.payment_ids),
                              shipping_option=plan.shipping_option)
    assert round(receipt["total"] * 100) == goal.total_cents, (receipt, goal.total_cents)
    await shop.call(RESPOND_TO_CUSTOMER, message=f"Your order {receipt['order_id']} is placed.", done=True)
