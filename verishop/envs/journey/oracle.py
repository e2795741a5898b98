"""JOURNEY oracle: play each request's own oracle in turn. Only the last request may end the
episode: a request's `done=true` would close the whole conversation early."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from verishop.agents.session import ShopSession
from verishop.scenarios.models import JourneyGoal
from verishop.scenarios.tool_names import RESPOND_TO_CUSTOMER


@dataclass
class _KeepOpen:
    """A session that drops `done=true` from messages to the customer."""

    shop: ShopSession

    async def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        if tool == RESPOND_TO_CUSTOMER:
            arguments.pop("done", None)
        return await self.shop.call(tool, **arguments)


async def play(shop: ShopSession, goal: JourneyGoal) -> None:
    from verishop.agents.oracles import play_for

    for index, request in enumerate(goal.tasks):
        last = index == len(goal.tasks) - 1
        await play_for(request)(shop if last else _KeepOpen(shop), request)
