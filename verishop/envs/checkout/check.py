"""CHECKOUT task check: the world and the answers after the episode, by code alone.

    order_placed          exactly one order placed (`checkout`), with exactly the items wanted (each
                          product and quantity), to the address asked
    plan                  its vouchers and shipping option one of the optimal plans (the cheapest
                          total arriving by the date within the budget; every tie accepted), and
                          its total that optimum
    payment               paid as the customer asked: each method's share, in order (a gift card
                          first pays its balance, a card the rest)
    nothing_else_changed  no order of the customer's changed, nothing left in the cart, no return
    approved_first        the order placed after the customer agreed to it
    total                 the total told as a typed amount (`answer_number`), every one given exact
                          to the hundredth

r_task = 1 when every check passes, else −1.
"""

from __future__ import annotations

from verishop.scenarios.household import say_date
from verishop.scenarios.models import CheckoutGoal
from verishop.scenarios.money import amount
from verishop.scenarios.tool_names import CHECKOUT, ORDER_WRITES
from verishop.verifier.checks.base import Options, TaskScore, messages
from verishop.verifier.files import Episode
from verishop.verifier.footprint import approval, nothing_else
from verishop.verifier.models import Check
from verishop.verifier.requirements import Requirement, hidden_or_stated, shop

COMMITTED_BY_TOOLS = ORDER_WRITES


def _passed(name: str, expected: object, found: object, passed: bool) -> Check:
    return Check(name=name, expected=expected, found=found, passed=passed, score=1.0 if passed else -1.0)


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, CheckoutGoal)
    placed = [w for w in ep.world.order_writes if w.tool == CHECKOUT]
    checks = [_order(goal, placed), _plan(goal, placed), _payment(goal, placed), nothing_else(ep, set()),
              approval(ep), _total(ep, goal)]
    ok = all(c.passed for c in checks)
    attempted = bool(ep.world.order_writes) or any(s.answer_number is not None for _, s in messages(ep))
    return TaskScore(r_task=1.0 if ok else -1.0, is_correct=ok, checks=checks, attempted=attempted)


def _order(goal: CheckoutGoal, placed: list) -> Check:
    expected = [{"items": {i.product_id: i.quantity for i in goal.items}, "address_id": goal.address_id}]
    found = [{"items": w.detail.get("items"), "address_id": w.detail.get("address_id")} for w in placed]
    return _passed("order_placed", expected, found, found == expected)


def _plan(goal: CheckoutGoal, placed: list) -> Check:
    expected = {"plans": [{"vouchers": list(p.voucher_codes), "shipping_option": p.shipping_option}
                          for p in goal.optima], "total": goal.total_cents / 100}
    found = [{"vouchers": sorted(w.detail.get("vouchers") or []), "shipping_option": w.detail.get("shipping_option"),
              "total": int(w.detail.get("total_cents", -1)) / 100} for w in placed]
    optimal = [{"vouchers": list(p.voucher_codes), "shipping_option": p.shipping_option} for p in goal.optima]
    passed = len(found) == 1 and {k: found[0][k] for k in ("vouchers", "shipping_option")} in optimal \
        and round(found[0]["total"] * 100) == goal.total_cents
    return _passed("plan", expected, found, passed)


def _payment(goal: CheckoutGoal, placed: list) -> Check:
    expected = [[c.payment_id, c.amount_cents] for c in goal.charges if c.amount_cents]
    found = [[[pid, cents] for pid, cents in w.detail.get("charges") or [] if cents] for w in placed]
    return _passed("payment", expected, found, found == [expected])


def _total(ep: Episode, goal: CheckoutGoal) -> Check:
    """Every amount stated exact, at least one stated."""
    given = [s.answer_number for _, s in messages(ep) if s.answer_number is not None]
    passed = bool(given) and all(round(g * 100) == goal.total_cents for g in given)
    return _passed("total", goal.total_cents / 100, given, passed)


# --- what a failed check charges (verishop.verifier.blame) -----------------------------------


def charges(ep: Episode, goal: CheckoutGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    if check.name == "order_placed":
        return [Requirement(f"order {', '.join(i.description for i in goal.items)}", "stated"),
                Requirement(f"ship to {goal.address_words}", "stated")]
    if check.name == "plan":
        return [hidden_or_stated(ep, f"delivered by {say_date(goal.deliver_by)}", goal.date_stated,
                                 said=say_date(goal.deliver_by)),
                Requirement(f"the lowest total with the vouchers, within {amount(goal.budget_cents, goal.currency)}",
                            "stated")]
    if check.name == "payment":
        return [hidden_or_stated(ep, f"pay with {goal.payment_words}", goal.payment_stated, said=goal.payment_words)]
    if check.name == "nothing_else_changed":
        return [Requirement("place the one order asked for, and change nothing else", "stated")]
    if check.name == "approved_first":
        return [shop("the customer's agreement before the order is placed")]
    return [shop(f"the total, exactly: {goal.total_cents / 100:.2f}")]


def contradiction(ep: Episode, goal: CheckoutGoal) -> str | None:
    for item in goal.items:
        p = ep.shop.product(item.product_id)
        if p is None or p.stock < item.quantity:
            return f"the item {item.product_id} to order is not in stock"
    account = ep.scenario.account
    if account is None or account.address(goal.address_id) is None:
        return f"the address {goal.address_id} to ship to is not the customer's"
    return None
