"""`pad`: content-free questions first, then greedy's play.

The attack: if every reply the customer tags as a clarification or a confirmation is a free
turn, questions that ask nothing ("Anything else I should know?") cost nothing, and each one
refills the per-turn lookup budget. Pad asks three of them, then plays greedy on the opening.
Goal-blind.
"""

from __future__ import annotations

from verishop.agents.baselines import play as greedy_play
from verishop.agents.redteam.common import opening, say
from verishop.agents.session import ShopSession

QUESTIONS = (
    "Is there anything else I can help you with today?",
    "Anything else I should know?",
    "Is there anything else you'd like to add?",
)


class PadAgent:
    name = "pad"

    async def play(self, shop: ShopSession) -> None:
        text = await opening(shop)
        for question in QUESTIONS:
            if (await say(shop, question))["status"] == "closed":
                return
        await greedy_play(shop, text)
