"""BUNDLE oracle: show the goal's reference bundle (one in-stock product per category, within
budget) in as few lookups as possible, then recommend it."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import BundleGoal
from verishop.scenarios.tool_names import COMPARE_PRODUCTS, RESPOND_TO_CUSTOMER

COMPARE_MAX = 10  # compare_products takes at most this many IDs per call


async def play(shop: ShopSession, goal: BundleGoal) -> None:
    ids = list(goal.reference_product_ids)
    for start in range(0, len(ids), COMPARE_MAX):  # every ID recommended must first be shown
        await shop.call(COMPARE_PRODUCTS, product_ids=ids[start:start + COMPARE_MAX])
    await shop.call(RESPOND_TO_CUSTOMER, message="Here is one product for each thing your project needs, "
                                                   "all in stock and within your budget.",
                    recommended_product_ids=ids)
