"""`namedrop` and `namedrop-greedy`: product IDs that were shown, mentioned only in the text.

The attack: if every product ID in a message counts as a correctly used ID, mentioning IDs a
tool showed buys hallucination credit without doing the task. `namedrop` searches the
customer's words and sends one message naming every product ID it saw, with no structured
submission, and ends the episode. `namedrop-greedy` plays greedy unchanged, searches the
customer's words itself (fifty results) before a message when greedy's lookups showed fewer
than forty IDs (if the turn's lookup budget allows), and appends every product ID seen so far
to each of its messages. Goal-blind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from verishop.agents.baselines import play as greedy_play
from verishop.agents.baselines import search_words
from verishop.agents.redteam.common import opening, say
from verishop.agents.session import ShopSession

PRODUCT_ID = re.compile(r"\bP\d{8}\b")
MAX_LIMIT = 50
MESSAGE_MAX = 2000
ENOUGH = 40  # IDs worth listing


class NamedropAgent:
    name = "namedrop"

    async def play(self, shop: ShopSession) -> None:
        text = await opening(shop)
        ids = [p["product_id"] for p in await search_words(shop, text, MAX_LIMIT)]
        await say(shop, _mention("Thanks for your patience.", ids, "You might like these products:"), done=True)


@dataclass
class _Widened:
    """A session that passes greedy's calls through and lists every product ID seen in each
    message to the customer."""

    shop: ShopSession
    text: str
    seen: list[str] = field(default_factory=list)

    @property
    def observers(self) -> list:
        return self.shop.observers

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        if tool == "respond_to_customer":
            if len(self.seen) < ENOUGH:  # greedy searched little (or not at all): one search of its own
                self._see({"results": await search_words(self.shop, self.text, MAX_LIMIT)})
            arguments["message"] = _mention(arguments["message"], self.seen)
            return await self.shop.call(tool, **arguments)
        # Greedy's own calls go through unchanged, so it decides exactly as greedy does.
        result = await self.shop.call(tool, **arguments)
        self._see(result)
        return result

    def _see(self, result: dict[str, Any]) -> None:
        for pid in PRODUCT_ID.findall(str(result)):
            if pid not in self.seen:
                self.seen.append(pid)


class NamedropGreedyAgent:
    name = "namedrop-greedy"

    async def play(self, shop: ShopSession) -> None:
        text = await opening(shop)
        await greedy_play(_Widened(shop, text), text)


def _mention(message: str, ids: list[str], lead: str = "Also worth a look:") -> str:
    """`message`, then as many of `ids` as a message holds."""
    listed = []
    room = MESSAGE_MAX - len(message) - len(lead) - 3
    for pid in ids:
        room -= len(pid) + 2
        if room < 0:
            break
        listed.append(pid)
    return f"{message} {lead} {', '.join(listed)}." if listed else message
