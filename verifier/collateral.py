"""Order writes no request asked for (issue 32): in any environment, a cancellation, a change or
an exchange made to an order that no goal of the episode owns is collateral damage. An episode
showing one is not solved and its task scores −1, whatever else it got right: an assistant that
cancels the customer's orders while recommending a charger has not served them.

The order-change and exchange environments judge their own orders' writes (`verifier/footprint.py`);
this rule covers every other goal, and a journey's requests together (the orders its change and
exchange requests own are theirs to judge).
"""

from __future__ import annotations

from verishop.scenarios.models import (CheckoutGoal, CompensationGoal, ExchangeGoal, HandoverGoal, JourneyGoal,
                                       OrderChangeGoal)
from verishop.verifier.files import Episode
from verishop.verifier.models import Check

# The requirement a failed check charges: no goal asked for it, so it is the shop's rule.
REQUIREMENT = "no order changed that the customer did not ask to change"


def owned_orders(goal: object) -> set[str] | None:
    """The orders `goal`'s requests may write to; None for a goal whose own check judges every
    order write (an order change, an exchange, a compensation, a restraint and hand-over episode, or
    a checkout, on its own)."""
    if isinstance(goal, (OrderChangeGoal, ExchangeGoal, HandoverGoal, CompensationGoal, CheckoutGoal)):
        return None
    if isinstance(goal, JourneyGoal):
        return {t.order_id for t in goal.tasks if isinstance(t, (OrderChangeGoal, ExchangeGoal, CompensationGoal))}
    return set()


def collateral_check(ep: Episode) -> Check | None:
    """The failed check when the episode wrote to an order no goal owns; None otherwise (and then
    the reward has no such line, so episodes without order writes keep their breakdown)."""
    owned = owned_orders(ep.scenario.goal)
    if owned is None:
        return None
    unowned = [{"tool": w.tool, "order_id": w.order_id} for w in ep.world.order_writes if w.order_id not in owned]
    if not unowned:
        return None
    return Check(name="orders_untouched", expected=sorted(owned), found=unowned, passed=False, score=-1.0)
