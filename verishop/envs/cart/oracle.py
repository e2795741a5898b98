"""CART oracle: look up each wanted variant, put the exact quantity in the cart."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import CartGoal


async def play(shop: ShopSession, goal: CartGoal) -> None:
    await shop.call("compare_products", product_ids=[item.product_id for item in goal.items])
    for item in goal.items:
        await shop.call("add_to_cart", product_id=item.product_id, quantity=item.quantity)
    await shop.call("respond_to_customer", message="Everything you asked for is in your cart.")
