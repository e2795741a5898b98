"""A goal-blind identifier (issue 33): `identify-only` identifies the customer as greedy does (an
email, or a name and zip code, from the customer's words, asked for when absent), then does
nothing and closes. It shows that identifying earns nothing by itself: the identity check is a
rule the task's own verdict must still clear, so identifying and stopping solves no episode.
Like every red-team agent it reads only tool results and the customer's replies."""

from __future__ import annotations

from verishop.agents.baselines.identify import identify
from verishop.agents.redteam.common import opening, say
from verishop.agents.session import ShopSession


class IdentifyOnlyAgent:
    name = "identify-only"

    async def play(self, shop: ShopSession) -> None:
        await identify(shop, await opening(shop))
        await say(shop, "I've found your account. Is there anything else?", done=True)
