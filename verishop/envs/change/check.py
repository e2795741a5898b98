"""CHANGE task check: the world after the episode against the gold world, by code alone.

    orders_as_wanted      the order ends as the customer wanted it (cancelled with its reason,
                          its lines' new variants, its new address), by exactly the writes that
                          asks for, each once; a shipped order (`refusal`) ends untouched
    nothing_else_changed  no other order changed or written to, no cart, no return
    approved_first        every write after the customer agreed to it
    refusal               a shipped order: the typed refusal `return_instead` given (the last
                          one given wins); an order that could change: no refusal given

r_task = 1 when every check passes, else −1: a write is right or it is not.
"""

from __future__ import annotations

import json
from collections import Counter

from verishop.envs.change.answers import address_matches
from verishop.scenarios.models import OrderChangeGoal
from verishop.scenarios.tool_names import CANCEL_ORDER, CHANGE_ORDER_ADDRESS, MODIFY_ORDER_ITEMS, ORDER_WRITES
from verishop.scenarios.world_db import address_json
from verishop.verifier.checks.base import Options, TaskScore, messages
from verishop.verifier.files import Episode
from verishop.verifier.footprint import approval, as_wanted, initial_state, nothing_else
from verishop.verifier.models import Check
from verishop.verifier.requirements import Requirement, hidden_or_stated, shop
from verishop.verifier.world import OrderState

# The checks' answer is the writes: a requirement told after the last write told the agent nothing in time.
COMMITTED_BY_TOOLS = ORDER_WRITES


def wanted_tools(goal: OrderChangeGoal) -> Counter[str]:
    if goal.refusal is not None:
        return Counter()
    tools: Counter[str] = Counter()
    if goal.cancel_reason is not None:
        tools[CANCEL_ORDER] = 1
    if goal.line_changes:
        tools[MODIFY_ORDER_ITEMS] = 1
    if goal.address is not None:
        tools[CHANGE_ORDER_ADDRESS] = 1
    return tools


def gold_state(ep: Episode, goal: OrderChangeGoal) -> OrderState | None:
    """The target order as it should end (None when it is not among the orders)."""
    order = next((o for o in ep.scenario.orders if o.order_id == goal.order_id), None)
    if order is None:
        return None
    state = initial_state(order, ep.scenario.account)
    if goal.refusal is not None:
        return state
    if goal.cancel_reason is not None:
        state = OrderState("cancelled", goal.cancel_reason, state.address_id, state.ship_to, state.lines)
    if goal.line_changes:
        new = {c.line_id: c.product_id for c in goal.line_changes}
        state = OrderState(state.status, state.cancel_reason, state.address_id, state.ship_to,
                           tuple((line, new.get(line, product)) for line, product in state.lines))
    if goal.address is not None:
        a = goal.address
        address_id, ship_to = goal.address_id, address_json(a.street, a.city, a.zip)
        found = ep.world.orders.get(goal.order_id)
        if found is not None and found.ship_to:
            # The address written in full for a saved one, or in other case or spacing, is the same place.
            detail = {"address_id": found.address_id, **json.loads(found.ship_to)}
            if address_matches(goal, detail):
                address_id, ship_to = found.address_id, found.ship_to
        state = OrderState(state.status, state.cancel_reason, address_id, ship_to, state.lines)
    return state


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, OrderChangeGoal)
    state = gold_state(ep, goal)
    wanted = {goal.order_id: state} if state is not None else {}
    checks = [as_wanted(ep, wanted, {goal.order_id: wanted_tools(goal)}),
              nothing_else(ep, {goal.order_id}), approval(ep), _refusal(ep, goal)]
    ok = all(c.passed for c in checks)
    attempted = bool(ep.world.order_writes) or any(s.answer_refusal or (s.order_id or "").strip()
                                                   for _, s in messages(ep))
    return TaskScore(r_task=1.0 if ok else -1.0, is_correct=ok, checks=checks, attempted=attempted)


def _refusal(ep: Episode, goal: OrderChangeGoal) -> Check:
    given = [s.answer_refusal for _, s in messages(ep) if s.answer_refusal is not None]
    if goal.refusal is None:
        passed = not given
    else:
        passed = bool(given) and given[-1] == goal.refusal and all(g == goal.refusal for g in given)
    return Check(name="refusal", expected=goal.refusal, found=given or None, passed=passed,
                 score=1.0 if passed else -1.0)


# --- what a failed check charges (verishop.verifier.blame) -----------------------------------


def _wants(ep: Episode, goal: OrderChangeGoal) -> list[Requirement]:
    """The customer's wants, each with where it came from."""
    reqs = [Requirement(f"change {goal.description}", "stated")]
    if goal.cancel_reason is not None:
        reqs.append(hidden_or_stated(ep, f"cancel it: {goal.cancel_reason}", goal.reason_stated))
    for c in goal.line_changes:
        reqs.append(hidden_or_stated(ep, f"{c.attribute.replace('_', ' ')} {c.value}", c.stated,
                                     said=f"I'd like {c.value}"))
    if goal.address is not None:
        reqs.append(hidden_or_stated(ep, f"ship to {goal.address.words()}", goal.address_stated,
                                     said=goal.address.words()))
    return reqs


def charges(ep: Episode, goal: OrderChangeGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    if check.name == "orders_as_wanted":
        if goal.refusal is not None:
            return [shop("a shipped order is returned, not changed (the store's policy)")]
        return _wants(ep, goal)[1:] or _wants(ep, goal)
    if check.name == "nothing_else_changed":
        return [Requirement(f"change only {goal.description}", "stated")]
    if check.name == "approved_first":
        return [shop("the customer's agreement before each change")]
    if goal.refusal is not None:
        return [shop("a shipped order is returned, not changed (the store's policy)")]
    return [shop("a processing order can be changed (the store's policy)")]


def contradiction(ep: Episode, goal: OrderChangeGoal) -> str | None:
    """How the world contradicts the goal (so no answer could pass), or None."""
    order = next((o for o in ep.scenario.orders if o.order_id == goal.order_id), None)
    if order is None:
        return f"the order {goal.order_id} to change is not among the customer's orders"
    lines = {line.line_id for line in order.lines}
    missing = [c.line_id for c in goal.line_changes if c.line_id not in lines]
    if missing:
        return f"the lines {missing} to switch are not in order {goal.order_id}"
    if goal.line_changes and goal.refusal is None and any(
            (p := ep.shop.product(c.product_id)) is None or p.stock <= 0 for c in goal.line_changes):
        return "a variant the customer wants is not in stock"
    return None
