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

from agents import baselines
from agents.oracles import play_for
from agents.session import ShopSession
from scenarios.models import Scenario


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
        await baselines.play(shop, conversation["messages"][0]["text"])


class HallucinateAgent:
    name = "hallucinate"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    async def play(self, shop: ShopSession) -> None:
        await shop.call("get_conversation")
        invented = [f"P{self.rng.randrange(10**8):08d}" for _ in range(3)]
        await shop.call("respond_to_customer", message=f"I recommend {', '.join(invented)}.",
                        recommended_product_ids=invented, done=True)


AGENTS = ("oracle", "null", "greedy", "hallucinate", "openai")


def make_agent(name: str, scenario: Scenario, **options):
    """The agent `name` for one episode; `options` configure the `openai` agent (OpenAISettings)."""
    match name:
        case "oracle":
            return OracleAgent(scenario)
        case "null":
            return NullAgent()
        case "greedy":
            return GreedyAgent()
        case "hallucinate":
            return HallucinateAgent(scenario.seed)
        case "openai":
            from agents.openai_agent import OpenAIAgent, OpenAISettings

            return OpenAIAgent(scenario, OpenAISettings(**options))
    raise KeyError(f"unknown agent {name!r}; known: {', '.join(AGENTS)}")
