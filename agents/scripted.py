"""Scripted agents. They speak only MCP, like any other agent.

- `oracle` reads the hidden goal from the scenario (it is the proof that an episode is
  solvable) and plays the shortest correct episode.
- `null` says it is done at once (every environment must score it as failed).
- `greedy` never reads the goal: it searches the customer's words and acts on the top
  results, a baseline that a real agent should beat.
- `hallucinate` recommends IDs it never retrieved (the hallucination check must bite).
"""

from __future__ import annotations

import random
import re

from agents.session import ShopSession, ToolFailed
from agents.oracles import play_for
from scenarios.models import Scenario
from scenarios.taxonomy import SHOPPABLE_CATEGORIES

_STOPWORDS = frozenset("""hi hello hey there good morning i i'm im shopping for looking can you recommend options
option what would suggest could find me choices please show your top picks great be a an the and made by under
rated at least stars delivered within days tomorrow it should in of with to is some need put these my cart add
like order i'd m d s ll ve""".split())


class OracleAgent:
    name = "oracle"

    def __init__(self, scenario: Scenario):
        self.scenario = scenario

    async def play(self, shop: ShopSession) -> None:
        await shop.call("get_conversation")
        goal = self.scenario.goal
        await play_for(goal.kind)(shop, goal)


class NullAgent:
    name = "null"

    async def play(self, shop: ShopSession) -> None:
        await shop.call("respond_to_customer", message="Goodbye!", done=True)


class GreedyAgent:
    name = "greedy"

    async def play(self, shop: ShopSession) -> None:
        conversation = await shop.call("get_conversation")
        text = conversation["messages"][0]["text"]
        if "cart" in text.lower() or "order" in text.lower():
            await self._cart(shop, text)
        else:
            await self._recommend(shop, text)

    async def _search(self, shop: ShopSession, text: str, limit: int) -> list[dict]:
        lowered = text.lower()
        category_id = next((c.id for c in SHOPPABLE_CATEGORIES if c.name.lower() in lowered), None)
        words = [w for w in re.findall(r"[a-z0-9-]+", lowered) if w not in _STOPWORDS and not w.isdigit()]
        if category_id:
            words = [w for w in words if w not in category_id.replace("_", " ")]
        try:
            found = await shop.call("search_catalog", query=" ".join(words[:5]), category_id=category_id,
                                    limit=limit)
        except ToolFailed:
            return []
        return found["results"]

    async def _recommend(self, shop: ShopSession, text: str) -> None:
        ids = [p["product_id"] for p in await self._search(shop, text, 5)]
        if ids:
            await shop.call("respond_to_customer", message="Here are the best matches I found.",
                            recommended_product_ids=ids)
        else:
            await shop.call("respond_to_customer", message="Sorry, I couldn't find anything.", done=True)

    async def _cart(self, shop: ShopSession, text: str) -> None:
        body = text.split(":", 1)[-1]
        for part in re.split(r";| and ", body):
            quantity = 1
            if m := re.search(r"(\d+)\s*×", part):
                quantity, part = int(m.group(1)), part[m.end():]
            results = await self._search(shop, part, 1)
            if results:
                try:
                    await shop.call("add_to_cart", product_id=results[0]["product_id"], quantity=quantity)
                except ToolFailed:
                    pass
        await shop.call("respond_to_customer", message="I've added what I could find to your cart.")


class HallucinateAgent:
    name = "hallucinate"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    async def play(self, shop: ShopSession) -> None:
        await shop.call("get_conversation")
        invented = [f"P{self.rng.randrange(10**8):08d}" for _ in range(3)]
        await shop.call("respond_to_customer", message=f"I recommend {', '.join(invented)}.",
                        recommended_product_ids=invented, done=True)


AGENTS = ("oracle", "null", "greedy", "hallucinate")


def make_agent(name: str, scenario: Scenario):
    match name:
        case "oracle":
            return OracleAgent(scenario)
        case "null":
            return NullAgent()
        case "greedy":
            return GreedyAgent()
        case "hallucinate":
            return HallucinateAgent(scenario.seed)
    raise KeyError(f"unknown agent {name!r}; known: {', '.join(AGENTS)}")
