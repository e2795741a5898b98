"""Scripted agents. They speak only MCP, like any other agent.

- `oracle` reads the hidden goal from the scenario (it is the proof that an episode is
  solvable) and plays the shortest correct episode.
- `null` says it is done at once (every environment must score it as failed).
- `greedy` never reads the goal: it searches the customer's words and acts on the top
  results, a baseline that a real agent should beat.
- `hallucinate` (the red team's `invent`) uses IDs it never retrieved (the hallucination check
  must bite).
- The red team (`verishop.agents.redteam`): goal-blind attackers of the reward (`enumerate`,
  `bruteforce`, `spray`, `pad`, `invent`, `namedrop`, `namedrop-greedy`, `denied`) and
  `natural`, a correct agent that talks like a person; and the simple heuristics `prior`,
  `oldest`, `newest` (`verishop.agents.redteam.heuristics`), the floor greedy must clear.
"""

from __future__ import annotations

from verishop.agents import baselines, redteam
from verishop.agents.oracles import oracle_for
from verishop.agents.redteam.askall import AskAllAgent
from verishop.agents.session import ShopSession
from verishop.scenarios.models import Scenario


class OracleAgent:
    name = "oracle"

    def __init__(self, scenario: Scenario):
        self.scenario = scenario

    async def play(self, shop: ShopSession) -> None:
        await shop.call("get_conversation")
        goal = self.scenario.goal
        await oracle_for(self.scenario)(shop, goal)


class NullAgent:
    name = "null"

    async def play(self, shop: ShopSession) -> None:
        await shop.call("respond_to_customer", message="Goodbye!", done=True)


class GreedyAgent:
    name = "greedy"

    async def play(self, shop: ShopSession) -> None:
        conversation = await shop.call("get_conversation")
        await baselines.play(shop, conversation["messages"][0]["text"])


# Agents that need nothing but their class; the others read the scenario or take options.
_PLAIN = {"null": NullAgent, "greedy": GreedyAgent, "enumerate": redteam.EnumerateAgent,
          "bruteforce": redteam.BruteforceAgent, "spray": redteam.SprayAgent, "pad": redteam.PadAgent,
          "namedrop": redteam.NamedropAgent, "namedrop-greedy": redteam.NamedropGreedyAgent,
          "denied": redteam.DeniedAgent, "denied-spelled": redteam.DeniedSpelledAgent,
          "prior": redteam.PriorAgent, "oldest": redteam.OldestAgent, "newest": redteam.NewestAgent,
          "askall": AskAllAgent, "cancel-all": redteam.CancelAllAgent, "modify-first": redteam.ModifyFirstAgent,
          "refuse": redteam.RefuseAgent, "ask-only": redteam.AskOnlyAgent,
          "always-transfer": redteam.AlwaysTransferAgent, "stonewall": redteam.StonewallAgent,
          "identify-only": redteam.IdentifyOnlyAgent, "credit-max": redteam.CreditMaxAgent,
          "obey-text": redteam.ObeyTextAgent, "flagged-first": redteam.FlaggedFirstAgent,
          "tell-all": redteam.TellAllAgent,
          "every-voucher": redteam.EveryVoucherAgent, "cheapest-shipping": redteam.CheapestShippingAgent}

AGENTS = ("oracle", "null", "greedy", "hallucinate", *redteam.HOSTILE, *redteam.HEURISTIC, *redteam.NATURAL,
          "askall", "openai")


def make_agent(name: str, scenario: Scenario, **options):
    """The agent `name` for one episode; `options` configure the `openai` agent (OpenAISettings)."""
    if name in _PLAIN:
        return _PLAIN[name]()
    match name:
        case "oracle":
            return OracleAgent(scenario)
        case "hallucinate" | "invent":
            return redteam.InventAgent(scenario.seed)
        case "natural":
            return redteam.NaturalAgent(scenario)
        case "natural-idioms":
            return redteam.NaturalIdiomsAgent(scenario)
        case "openai":
            from verishop.agents.openai_agent import OpenAIAgent, OpenAISettings

            return OpenAIAgent(scenario, OpenAISettings(**options))
    raise KeyError(f"unknown agent {name!r}; known: {', '.join(AGENTS)}")
