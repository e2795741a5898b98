"""Cart building: the final cart against the wanted one, unit by unit.

Unit-level multiset F1 over product IDs (a variant is its own product ID):
matched = Σ min(cart units, wanted units), F1 = 2·matched / (cart units + wanted units),
r_task = 2·F1 − 1, solved when F1 = 1. The cart is read from world.db, never from what a
tool reported.
"""

from __future__ import annotations

from collections import Counter

from scenarios.models import CartGoal
from verifier.checks.base import Options, TaskScore
from verifier.files import Episode
from verifier.models import Check


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, CartGoal)
    wanted: Counter[str] = Counter()
    for item in goal.items:
        wanted[item.product_id] += item.quantity
    cart = ep.world.cart
    matched = sum(min(units, wanted[pid]) for pid, units in cart.items())
    total_units = sum(cart.values()) + sum(wanted.values())
    f1 = 1.0 if total_units == 0 else 2 * matched / total_units
    checks = [Check(name="unit_f1", expected=1.0, found=round(f1, 6), passed=f1 >= 1.0, score=round(2 * f1 - 1, 6))]
    checks += [_item_check(ep, item.product_id, item.quantity, item.description) for item in goal.items]
    unrequested = {pid: units for pid, units in cart.items() if pid not in wanted}
    checks.append(Check(name="unrequested_items", expected={}, found=unrequested, passed=not unrequested))
    return TaskScore(r_task=2 * f1 - 1, is_correct=matched == sum(cart.values()) == sum(wanted.values()),
                     checks=checks)


def _item_check(ep: Episode, product_id: str, quantity: int, description: str) -> Check:
    have = ep.world.cart.get(product_id, 0)
    found: dict[str, object] = {"product_id": product_id, "quantity": have}
    target = ep.shop.product(product_id)
    if target is not None:
        siblings = {pid: units for pid, units in ep.world.cart.items() if pid != product_id
                    and (p := ep.shop.product(pid)) is not None and p.group_id == target.group_id}
        if siblings:
            found["other_variants_in_cart"] = siblings
    return Check(name=f"item: {description}", expected={"product_id": product_id, "quantity": quantity},
                 found=found, passed=have == quantity)
