"""SUB oracle: recommend the ideal alternatives, best first, after looking them up."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import SubstitutionGoal
from verishop.scenarios.tool_names import COMPARE_PRODUCTS, RESPOND_TO_CUSTOMER


async def play(shop: ShopSession, goal: SubstitutionGoal) -> None:
    ids = [ranked.product_id for ranked in goal.ideal]
    await shop.call(COMPARE_PRODUCTS, product_ids=ids)  # every ID recommended must first be shown
    await shop.call(RESPOND_TO_CUSTOMER, message="These in-stock alternatives are the closest to what you wanted.",
                    recommended_product_ids=ids)
