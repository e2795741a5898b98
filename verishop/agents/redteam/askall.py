"""`askall`: every topic the customer knows about, asked in groups, then greedy's play.

The attack (issue 28 audit, goal-blind): the customer tells each withheld detail a request asks
about, and a request of up to four topics of which one tells something is free
(`topics.QUESTIONNAIRE_SLACK`). Asking every topic in groups of four, without knowing which
matter, learns every detail for a few turns; greedy then plays the opening with the replies
added to it. Goal-blind: the same questions in every episode.
"""

from __future__ import annotations

from verishop.agents.baselines import play as greedy_play
from verishop.agents.redteam.common import finished, opening, say
from verishop.agents.session import ShopSession

GROUPS = (
    "Which brand, colour and size would you like, and what's your budget?",
    "What rating should it have, how soon do you need it delivered, how many do you need, and what matters most?",
    "Which order and which item do you mean, are you a member, and was it a gift?",
    "Is anything wrong with it, how would you like to be refunded, what else do you need, and any features?",
)


class AskAllAgent:
    name = "askall"

    async def play(self, shop: ShopSession) -> None:
        text = await opening(shop)
        told = []
        for question in GROUPS:
            reply = await say(shop, question)
            if finished(reply):
                return
            told.append(reply["customer_message"])
        await greedy_play(shop, " ".join([text, *told]))
