"""A write to an order no request asked about fails the episode in every environment (issue 32,
point 5: nothing outside the goal's footprint changes), played through the real server."""

from __future__ import annotations

import pytest
from mutants import charged, play_scored

from verishop.agents.oracles import oracle_for
from verishop.verifier.collateral import REQUIREMENT


@pytest.mark.parametrize("env", ["pd", "return", "status", "policy"])
async def test_the_oracle_s_play_plus_one_cancellation_is_not_solved(hub, verifier, env):
    scenario = hub.generate(env, 6, 2)
    scenario = scenario.model_copy(update={"axes": scenario.axes.model_copy(update={"tool_calls_per_turn": 20})})
    victim = next(o for o in scenario.orders if o.status != "cancelled")
    play = oracle_for(scenario)

    async def oracle_then_cancel(shop, goal):
        await shop.call("list_orders")
        await shop.call("cancel_order", order_id=victim.order_id, reason="other")
        await play(shop, goal)

    solved = await play_scored(hub, verifier, scenario, play)
    assert solved.is_correct and not any(c.name == "orders_untouched" for c in solved.breakdown)
    reward = await play_scored(hub, verifier, scenario, oracle_then_cancel)
    assert not reward.is_correct and reward.r_task == -1.0
    check = next(c for c in reward.breakdown if c.name == "orders_untouched")
    assert check.found == [{"tool": "cancel_order", "order_id": victim.order_id}]
    assert (REQUIREMENT, "shop", "agent") in charged(reward)
