"""JOURNEY oracle: play each request's own oracle in turn. Only the last request may end the
episode: a request's `done=true` would close the whole conversation early."""

from __future__ import annotations

from verishop.agents.session import KeepOpen, ShopSession
from verishop.scenarios.models import JourneyGoal


async def play(shop: ShopSession, goal: JourneyGoal) -> None:
    from verishop.agents.oracles import play_for

    for index, request in enumerate(goal.tasks):
        last = index == len(goal.tasks) - 1
        await play_for(request)(shop if last else KeepOpen(shop), request)
