"""What an order change may touch, and when (issue 32): the verifier's kit for the environments
whose answer is a write on the customer's orders.

- **The gold world.** The world after the episode must equal the world the goal describes on
  everything a change can touch: every order's status, cancellation reason, shipping address and
  lines' products. The goal's orders as it wants them (`as_wanted`), every other order as the
  scenario seeded it, no cart, no return (`nothing_else`): an extra cancellation, a change to
  another order fails (the collateral-damage check of AppWorld).
- **Exactly the writes asked for.** Each of the goal's orders gets the tools the goal asks of it,
  once each, and no other order any: a second modification, or a change undone by another, fails.
- **Agreement first.** Every order write comes after the customer's agreement (a reply tagged
  `approve`), which the customer gives only to a proposal naming what will change (`approval`).
"""

from __future__ import annotations

from collections import Counter

from verishop.scenarios.models import Account, Order
from verishop.scenarios.tool_names import ORDER_WRITES
from verishop.scenarios.world_db import ship_to_json
from verishop.verifier.checks.base import messages
from verishop.verifier.files import Episode
from verishop.verifier.models import Check
from verishop.verifier.transcript import succeeded
from verishop.verifier.world import OrderState


def initial_state(order: Order, account: Account | None) -> OrderState:
    """An order as the scenario seeded it."""
    return OrderState(status=order.status, cancel_reason=None, address_id=order.address_id,
                      ship_to=ship_to_json(account, order.address_id),
                      lines=tuple((line.line_id, line.product_id) for line in order.lines))


def _as_json(state: OrderState | None) -> dict | None:
    if state is None:
        return None
    return {"status": state.status, "cancel_reason": state.cancel_reason, "address_id": state.address_id,
            "ship_to": state.ship_to, "lines": [list(line) for line in state.lines]}


def _writes_by_order(ep: Episode) -> dict[str, Counter[str]]:
    made: dict[str, Counter[str]] = {}
    for w in ep.world.order_writes:
        made.setdefault(w.order_id, Counter())[w.tool] += 1
    return made


def as_wanted(ep: Episode, wanted: dict[str, OrderState], writes: dict[str, Counter[str]],
              name: str = "orders_as_wanted") -> Check:
    """Whether each of the goal's orders ends as `wanted` with exactly the writes `writes` (each
    tool's count). Passes on a world written before orders could change (world schema 1)."""
    if not ep.world.orders:
        return Check(name=name, expected=None, found=None, passed=True, score=1.0)
    made = _writes_by_order(ep)
    found, passed = {}, True
    for order_id, state in wanted.items():
        have = ep.world.orders.get(order_id)
        tools = dict(made.get(order_id, Counter()))
        ok = have == state and tools == dict(writes.get(order_id, Counter()))
        passed = passed and ok
        found[order_id] = {"state": _as_json(have), "writes": tools}
    expected = {o: {"state": _as_json(s), "writes": dict(writes.get(o, Counter()))} for o, s in wanted.items()}
    return Check(name=name, expected=expected, found=found, passed=passed, score=1.0 if passed else -1.0)


def nothing_else(ep: Episode, goal_orders: set[str], name: str = "nothing_else_changed") -> Check:
    """Whether every order but the goal's is as the scenario seeded it, none was written to, and
    no cart or return was made: the collateral-damage check."""
    world = ep.world
    account = ep.scenario.account
    changed = {}
    if world.orders:
        made = _writes_by_order(ep)
        for order in ep.scenario.orders:
            if order.order_id in goal_orders:
                continue
            state = world.orders.get(order.order_id)
            if state != initial_state(order, account) or made.get(order.order_id):
                changed[order.order_id] = {"state": _as_json(state),
                                           "writes": dict(made.get(order.order_id, Counter()))}
    found = {"orders_changed": changed, "cart": dict(world.cart), "returns": [list(r) for r in world.returns]}
    passed = not changed and not world.cart and not world.returns
    return Check(name=name, expected="no other order, cart or return touched", found=None if passed else found,
                 passed=passed, score=1.0 if passed else -1.0)


def order_write_calls(ep: Episode) -> list[dict]:
    """Every order write the shop carried out (refused calls changed nothing), in order."""
    return [c for c in ep.transcript.tool_calls if c.get("tool") in ORDER_WRITES and succeeded(c)]


def approval(ep: Episode, name: str = "approved_first", task: int | None = None) -> Check:
    """Whether every order write came after the customer agreed (a reply tagged `approve`). In a
    journey, `task` = k judges request k alone: its customer's agreement, and the writes made while
    the customer was on request k (another request's agreement never covers them)."""
    agreed = [e["seq"] for e in ep.transcript.customer if e.get("tag") == "approve"
              and (task is None or e.get("task") == task)]
    first = min(agreed) if agreed else None
    calls = order_write_calls(ep)
    if task is not None:
        calls = [c for c in calls if _request_at(ep, c["seq"]) == task]
    early = [{"tool": c["tool"], "order_id": (c.get("arguments") or {}).get("order_id"), "seq": c["seq"]}
             for c in calls if first is None or c["seq"] < first]
    return Check(name=name, expected="every order write after the customer agreed to it",
                 found=early or None, passed=not early, score=-1.0 if early else 1.0)


def _request_at(ep: Episode, seq: int) -> int:
    """The journey request the customer was on at event `seq`: the `task` of its last message
    before it (0 before any)."""
    said = [e for e in ep.transcript.customer if e["seq"] < seq and type(e.get("task")) is int]
    return said[-1]["task"] if said else 0


def refusal_kept(ep: Episode, refusal: str | None, pushbacks: tuple[str, ...]) -> Check:
    """The typed refusal the store's rules give (or none, when `refusal` is None), kept through
    every scripted pushback (the customer's `insist` replies): given, never another, and given again
    after the last pushback. Restraint and hand-over and compensation judge their "no" by it."""
    given = [(a["seq"], s.answer_refusal) for a, s in messages(ep) if s.answer_refusal is not None]
    found = [r for _, r in given] or None
    if refusal is None:
        passed = not given
        return Check(name="refusal", expected=None, found=found, passed=passed, score=1.0 if passed else -1.0)
    pushed = [e["seq"] for e in ep.transcript.customer if e.get("tag") == "insist"]
    last_push = max(pushed, default=-1)
    kept = (len(pushed) >= len(pushbacks) and bool(given) and all(r == refusal for _, r in given)
            and any(seq > last_push for seq, _ in given))
    return Check(name="refusal", expected={"refusal": refusal, "through_pushbacks": len(pushbacks)},
                 found={"given": found, "pushbacks_answered": len(pushed)} if given else None, passed=kept,
                 score=1.0 if kept else -1.0)
