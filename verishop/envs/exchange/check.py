"""EXCHANGE task check: the world and the answers after the episode, by code alone.

    exchange              the one exchange the customer wants (the line, the variant, the payment
                          method), made once; none when the answer is a refusal
    orders_as_wanted      the order's own state untouched (an exchange ships a new item; it does
                          not rewrite the order), with exactly that write
    nothing_else_changed  no other order changed or written to, no cart, no return
    approved_first        the exchange after the customer agreed to it
    refusal               not eligible, or sold out with no other acceptable: the typed refusal
                          given; else none given
    difference            the price difference as a typed amount (`answer_number`: what the
                          customer pays, negative when refunded), every one given exact

r_task = 1 when every check passes, else −1.
"""

from __future__ import annotations

from collections import Counter

from verishop.scenarios.models import ExchangeGoal
from verishop.scenarios.tool_names import EXCHANGE_ITEMS, ORDER_WRITES
from verishop.verifier.checks.base import Options, TaskScore, messages
from verishop.verifier.files import Episode
from verishop.verifier.footprint import approval, as_wanted, initial_state, nothing_else
from verishop.verifier.models import Check
from verishop.verifier.requirements import Requirement, hidden_or_stated, shop

COMMITTED_BY_TOOLS = ORDER_WRITES


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, ExchangeGoal)
    order = next((o for o in ep.scenario.orders if o.order_id == goal.order_id), None)
    wanted = {goal.order_id: initial_state(order, ep.scenario.account)} if order is not None else {}
    writes = {goal.order_id: Counter({EXCHANGE_ITEMS: 1}) if goal.line_changes else Counter()}
    checks = [_exchange(ep, goal), as_wanted(ep, wanted, writes), nothing_else(ep, {goal.order_id}), approval(ep),
              _refusal(ep, goal), _difference(ep, goal)]
    ok = all(c.passed for c in checks)
    attempted = bool(ep.world.order_writes) or any(s.answer_refusal or s.answer_number is not None
                                                   or (s.order_id or "").strip() for _, s in messages(ep))
    return TaskScore(r_task=1.0 if ok else -1.0, is_correct=ok, checks=checks, attempted=attempted)


def _exchange(ep: Episode, goal: ExchangeGoal) -> Check:
    made = [{"order_id": w.order_id, "lines": w.detail.get("lines"), "payment_id": w.payment_id}
            for w in ep.world.order_writes if w.tool == EXCHANGE_ITEMS]
    expected = ([{"order_id": goal.order_id, "lines": {c.line_id: c.product_id for c in goal.line_changes},
                  "payment_id": goal.payment_id}] if goal.line_changes else [])
    passed = made == expected
    return Check(name="exchange", expected=expected, found=made, passed=passed, score=1.0 if passed else -1.0)


def _refusal(ep: Episode, goal: ExchangeGoal) -> Check:
    given = [s.answer_refusal for _, s in messages(ep) if s.answer_refusal is not None]
    passed = not given if goal.refusal is None else bool(given) and all(g == goal.refusal for g in given)
    return Check(name="refusal", expected=goal.refusal, found=given or None, passed=passed,
                 score=1.0 if passed else -1.0)


def _difference(ep: Episode, goal: ExchangeGoal) -> Check:
    """Every amount stated exact, at least one stated, when an exchange is due (a refusal owes none)."""
    given = [s.answer_number for _, s in messages(ep) if s.answer_number is not None]
    if not goal.line_changes:
        return Check(name="difference", expected=None, found=given or None, passed=True, score=1.0)
    exact = goal.difference_cents / 100
    passed = bool(given) and all(round(g * 100) == goal.difference_cents for g in given)
    return Check(name="difference", expected=exact, found=given, passed=passed, score=1.0 if passed else -1.0)


# --- what a failed check charges (verishop.verifier.blame) -----------------------------------


def charges(ep: Episode, goal: ExchangeGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    if check.name in ("exchange", "orders_as_wanted"):
        if goal.refusal == "not_eligible":
            return [shop("only eligible items are exchanged: within the return window, not final sale")]
        if goal.refusal == "out_of_stock":
            return [shop("the variant wanted is sold out"),
                    Requirement(f"only {goal.wanted.attribute.replace('_', ' ')} {goal.wanted.value}", "stated")]
        reqs = [Requirement(f"exchange {goal.description}", "stated")]
        change = goal.line_changes[0]
        if change.product_id == goal.wanted.product_id:
            reqs.append(hidden_or_stated(ep, f"{change.attribute.replace('_', ' ')} {change.value}",
                                         goal.wanted.stated, said=f"{change.value}"))
        else:
            reqs.append(hidden_or_stated(ep, f"{change.value} if the first is sold out", goal.fallback_stated,
                                         said=change.value))
        reqs.append(hidden_or_stated(ep, f"pay with the {goal.payment_label}", goal.payment_stated,
                                     said=goal.payment_label))
        return reqs
    if check.name == "nothing_else_changed":
        return [Requirement(f"exchange only {goal.description}", "stated")]
    if check.name == "approved_first":
        return [shop("the customer's agreement before the exchange")]
    if check.name == "difference":
        return [shop(f"the price difference, exactly: {goal.difference_cents / 100:.2f}")]
    if goal.refusal is not None:
        return [shop("an exchange the store cannot make is refused, saying why")]
    return [shop("an eligible exchange is made, not refused")]


def contradiction(ep: Episode, goal: ExchangeGoal) -> str | None:
    order = next((o for o in ep.scenario.orders if o.order_id == goal.order_id), None)
    if order is None or goal.line_id not in {line.line_id for line in order.lines}:
        return f"the line {goal.order_id}/{goal.line_id} to exchange is not among the customer's orders"
    for c in goal.line_changes:
        p = ep.shop.product(c.product_id)
        if p is None or p.stock <= 0:
            return f"the variant {c.product_id} to exchange for is not in stock"
    return None
