"""PD oracle: recommend the ideal list, best first, after looking it up."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import ProductDiscoveryGoal
from verishop.scenarios.tool_names import COMPARE_PRODUCTS, RESPOND_TO_CUSTOMER


async def play(shop: ShopSession, goal: ProductDiscoveryGoal) -> None:
    ids = [ranked.product_id for ranked in goal.ideal]
    await shop.call(COMPARE_PRODUCTS, product_ids=ids)  # every ID recommended must first be shown
    await shop.call(RESPOND_TO_CUSTOMER, message="These are the best matches for everything you asked.",
                    recommended_product_ids=ids)
