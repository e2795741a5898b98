"""Oracle plays: each environment's `oracle.py` (`verishop/envs/<name>/oracle.py`, a `play`
coroutine), found through the registry (`verishop.envs`).

An oracle reads the hidden goal and plays the shortest correct episode through MCP, so it is
the proof that every episode is solvable. It must still look up every ID it uses (the
verifier counts an ID no tool result showed as hallucinated) and stay within the per-turn
tool budget.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from verishop.agents.session import ShopSession
from verishop.envs import spec_for, spec_for_goal
from verishop.minefields import carried, role
from verishop.scenarios.models import Scenario

Play = Callable[[ShopSession, Any], Awaitable[None]]


def oracle_for(scenario: Scenario) -> Play:
    """The oracle of the environment that serves `scenario`: first what each minefield it carries
    asks of a goal-aware agent (`verishop/minefields/<name>/oracle.py`: identify the customer,
    say), then the task's play."""
    play = spec_for(scenario).role("oracle").play
    if not carried(scenario):
        return play

    async def with_preludes(shop: ShopSession, goal: Any) -> None:
        await minefield_preludes(shop, scenario)
        await play(shop, goal)

    with_preludes.runs_preludes = True  # type: ignore[attr-defined]  # (tests/mutants.py: not twice)
    return with_preludes


async def minefield_preludes(shop: ShopSession, scenario: Scenario) -> None:
    """What each minefield the scenario carries asks a goal-aware agent to do first."""
    for name in carried(scenario):
        module = role(name, "oracle")
        if module is not None:
            await module.prelude(shop, scenario)


def play_for(goal: object) -> Play:
    """The oracle of the environment whose goal `goal` is (a journey's requests)."""
    return spec_for_goal(goal).role("oracle").play
