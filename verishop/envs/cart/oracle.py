"""CART oracle: look up each wanted variant, put the exact quantity in the cart."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import CartGoal
from verishop.scenarios.tool_names import ADD_TO_CART, COMPARE_PRODUCTS, RESPOND_TO_CUSTOMER


async def play(shop: ShopSession, goal: CartGoal) -> None:
    await shop.call(COMPARE_PRODUCTS, product_ids=[item.product_id for item in goal.items])
    for item in goal.items:
        await shop.call(ADD_TO_CART, product_id=item.product_id, quantity=item.quantity)
    await shop.call(RESPOND_TO_CUSTOMER, message="Everything you asked for is in your cart.")
