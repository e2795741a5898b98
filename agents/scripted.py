"""Scripted agents. They speak only MCP, like any other agent.

- `OracleAgent` reads the hidden goal from the scenario (it is the proof that an episode is
  solvable) and plays the shortest correct episode.
- `GreedyAgent` never reads the goal: it searches the customer's words and recommends the
  top results, a baseline that a real agent should beat.
"""

from __future__ import annotations

import re

from agents.session import ShopSession, ToolFailed
from scenarios.models import ProductDiscoveryGoal, Scenario
from scenarios.taxonomy import SHOPPABLE_CATEGORIES

_STOPWORDS = {"hi", "hello", "hey", "there", "good", "morning", "i", "i'm", "im", "shopping", "for", "looking",
              "can", "you", "recommend", "options", "option", "what", "would", "suggest", "could", "find", "me",
              "choices", "please", "show", "your", "top", "picks", "great", "be", "a", "an", "the", "and", "made",
              "by", "under", "rated", "at", "least", "stars", "delivered", "within", "days", "tomorrow", "it",
              "should", "in", "of", "with", "to", "is", "some", "need"}


class OracleAgent:
    name = "oracle"

    def __init__(self, scenario: Scenario):
        self.scenario = scenario

    async def play(self, shop: ShopSession) -> None:
        await shop.call("get_conversation")
        goal = self.scenario.goal
        if isinstance(goal, ProductDiscoveryGoal):
            await self._product_discovery(shop, goal)

    async def _product_discovery(self, shop: ShopSession, goal: ProductDiscoveryGoal) -> None:
        filters: dict = {"category_id": goal.category_id, "in_stock_only": True, "limit": goal.items_to_recommend}
        attributes = {}
        for c in goal.constraints:
            match c.kind:
                case "brand":
                    filters["brand"] = c.value
                case "attribute":
                    attributes[c.attribute] = c.value
                case "price_max":
                    filters["max_price_usd"] = int(c.value) / 100
                case "rating_min":
                    filters["min_rating"] = float(c.value)
                case "ship_days_max":
                    filters["max_ship_days"] = int(c.value)
        if attributes:
            filters["attributes"] = attributes
        found = await shop.call("search_catalog", **filters)
        ids = [p["product_id"] for p in found["results"]]
        await shop.call("respond_to_customer", message="These match everything you asked for.",
                        recommended_product_ids=ids)


class GreedyAgent:
    name = "greedy"

    async def play(self, shop: ShopSession) -> None:
        conversation = await shop.call("get_conversation")
        text = conversation["messages"][0]["text"].lower()
        category_id = next((c.id for c in SHOPPABLE_CATEGORIES if c.name.lower() in text), None)
        words = [w for w in re.findall(r"[a-z0-9-]+", text) if w not in _STOPWORDS and not w.isdigit()]
        if category_id:
            words = [w for w in words if w not in category_id and w not in category_id.replace("_", " ")]
        try:
            found = await shop.call("search_catalog", query=" ".join(words[:4]), category_id=category_id, limit=5)
        except ToolFailed:
            found = {"results": []}
        ids = [p["product_id"] for p in found["results"]][:5]
        if ids:
            await shop.call("respond_to_customer", message="Here are the best matches I found.",
                            recommended_product_ids=ids)
        else:
            await shop.call("respond_to_customer", message="Sorry, I couldn't find anything.", done=True)
