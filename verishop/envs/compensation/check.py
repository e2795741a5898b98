"""COMPENSATION task check (issue 34): the world and the answers after the episode, by code alone.

    compensation          due: the one write the store's rules give, exactly (a price adjustment
                          of the line, refunding its whole difference; or store credit of exactly
                          the amount due with the reason); nothing due: no compensation at all
    orders_as_wanted      the order's own state untouched, with exactly that write (a second
                          credit, or a credit beside the adjustment, fails)
    nothing_else_changed  no other order changed or written to, no cart, no return
    approved_first        the write after the customer agreed to it
    refusal               nothing due: the typed refusal `not_eligible`, every refusal given that
                          one, kept through every scripted pushback (the customer pushed back as
                          many times as its script holds and a refusal answered the last time);
                          due: none given
    amount                due: the amount told as a typed number (`answer_number`), at least once,
                          every one exact to the cent; nothing due: none but zero told

r_task = 1 when every check passes, else −1.
"""

from __future__ import annotations

from collections import Counter

from verishop.scenarios.models import CompensationGoal
from verishop.scenarios.tool_names import COMPENSATION_WRITES, ISSUE_STORE_CREDIT, ORDER_WRITES, REQUEST_PRICE_ADJUSTMENT
from verishop.verifier.checks.base import Options, TaskScore, messages
from verishop.verifier.files import Episode
from verishop.verifier.footprint import approval, as_wanted, initial_state, nothing_else, refusal_kept
from verishop.verifier.models import Check
from verishop.verifier.requirements import Requirement, shop

COMMITTED_BY_TOOLS = ORDER_WRITES


def _tool(goal: CompensationGoal) -> str | None:
    if goal.amount_cents <= 0:
        return None
    return REQUEST_PRICE_ADJUSTMENT if goal.complaint == "price_drop" else ISSUE_STORE_CREDIT


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, CompensationGoal)
    order = next((o for o in ep.scenario.orders if o.order_id == goal.order_id), None)
    wanted = {goal.order_id: initial_state(order, ep.scenario.account)} if order is not None else {}
    tool = _tool(goal)
    writes = {goal.order_id: Counter({tool: 1}) if tool else Counter()}
    checks = [_compensation(ep, goal), as_wanted(ep, wanted, writes), nothing_else(ep, {goal.order_id}),
              approval(ep), refusal_kept(ep, goal.refusal, goal.pushbacks), _amount(ep, goal)]
    ok = all(c.passed for c in checks)
    attempted = bool(ep.world.order_writes) or any(s.answer_refusal or s.answer_number is not None
                                                   or (s.order_id or "").strip() for _, s in messages(ep))
    return TaskScore(r_task=1.0 if ok else -1.0, is_correct=ok, checks=checks, attempted=attempted)


def _compensation(ep: Episode, goal: CompensationGoal) -> Check:
    made = []
    for w in ep.world.order_writes:
        if w.tool not in COMPENSATION_WRITES:
            continue
        said = {"line_id": w.detail.get("line_id")} if w.tool == REQUEST_PRICE_ADJUSTMENT else \
            {"reason": w.detail.get("reason")}
        made.append({"tool": w.tool, "order_id": w.order_id, **said, "refunded_cents": -w.amount_cents})
    tool = _tool(goal)
    expected = []
    if tool == REQUEST_PRICE_ADJUSTMENT:
        expected = [{"tool": tool, "order_id": goal.order_id, "line_id": goal.line_id,
                     "refunded_cents": goal.amount_cents}]
    elif tool == ISSUE_STORE_CREDIT:
        expected = [{"tool": tool, "order_id": goal.order_id, "reason": goal.reason,
                     "refunded_cents": goal.amount_cents}]
    passed = made == expected
    return Check(name="compensation", expected=expected, found=made, passed=passed, score=1.0 if passed else -1.0)




def _amount(ep: Episode, goal: CompensationGoal) -> Check:
    given = [s.answer_number for _, s in messages(ep) if s.answer_number is not None]
    if goal.amount_cents <= 0:
        passed = all(round(g * 100) == 0 for g in given)
        return Check(name="amount", expected=0, found=given or None, passed=passed, score=1.0 if passed else -1.0)
    passed = bool(given) and all(round(g * 100) == goal.amount_cents for g in given)
    return Check(name="amount", expected=goal.amount_cents / 100, found=given or None, passed=passed,
                 score=1.0 if passed else -1.0)


# --- what a failed check charges (verishop.verifier.blame) -----------------------------------

_NOTHING_DUE = {
    "not_late_enough": "a delivery less late than the policy's threshold earns nothing",
    "outside_window": "a price adjustment is due only within the policy's window after delivery",
    "no_price_drop": "a price adjustment is due only when the current price is below the price paid",
    "reported_late": "damage is compensated only when reported within the policy's window after delivery",
}
_DUE = {"late": "a late delivery earns store credit of the policy's percent for the customer's tier, capped",
        "damaged": "a damaged item earns store credit of the policy's percent of its line, capped",
        "price_drop": "a price drop within the window is refunded with a price adjustment of the line"}


def charges(ep: Episode, goal: CompensationGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    if goal.nothing_due is not None:
        rule = _NOTHING_DUE[goal.nothing_due]
        if check.name == "refusal" and goal.pushbacks:
            return [shop(f"{rule}; the refusal is kept when the customer insists")]
        return [shop(f"{rule} (the store's policy)"), Requirement(f"compensation for {goal.description}", "stated")]
    if check.name == "nothing_else_changed":
        return [Requirement(f"compensation for {goal.description} only", "stated")]
    if check.name == "approved_first":
        return [shop("the customer's agreement before the compensation")]
    if check.name == "refusal":
        return [shop(f"{_DUE[goal.complaint]}: it is given, not refused")]
    return [shop(f"{_DUE[goal.complaint]}: exactly {goal.amount_cents / 100:.2f}, once"),
            Requirement(f"compensation for {goal.description}", "stated")]


def contradiction(ep: Episode, goal: CompensationGoal) -> str | None:
    """How the world contradicts the goal (so no answer could pass), or None."""
    order = next((o for o in ep.scenario.orders if o.order_id == goal.order_id), None)
    if order is None:
        return f"the order {goal.order_id} the customer means is not among its orders"
    if goal.line_id is not None and goal.line_id not in {line.line_id for line in order.lines}:
        return f"the line {goal.order_id}/{goal.line_id} complained about is not in that order"
    return None
