"""PD oracle: recommend the ideal list, best first, after looking it up."""

from __future__ import annotations

from agents.session import ShopSession
from scenarios.models import ProductDiscoveryGoal


async def play(shop: ShopSession, goal: ProductDiscoveryGoal) -> None:
    ids = [ranked.product_id for ranked in goal.ideal]
    for product_id in ids:  # every ID the agent recommends must first be shown to it
        await shop.call("get_product", product_id=product_id)
    await shop.call("respond_to_customer", message="These are the best matches for everything you asked.",
                    recommended_product_ids=ids)
