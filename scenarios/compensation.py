"""The store's compensation rules (issue 34): what a late delivery, a price drop or a damaged item
earns, in exact cents, or that nothing is due.

The clause the policy gains says every number (`compensation_clause`), and the functions below
apply it exactly as its text says: the generator computes the goal's amount with them, and the
brute-force test recomputes it from the clause's numbers alone. Percentages are of cents and
rounded down to the cent; credits are capped; a price adjustment is not.
"""

from __future__ import annotations

import random
from datetime import date

from verishop.scenarios.models import CompensationRules, Order, OrderLine, PolicyClause, StorePolicy
from verishop.scenarios.money import amount

CLAUSE_ID = "POL-COMPENSATION"


def draw_rules(rng: random.Random) -> CompensationRules:
    """The drawn numbers of a generated shop's compensation clause."""
    base = rng.choice((5, 10, 15))
    plus = base + rng.choice((5, 10))
    return CompensationRules(
        late_after_days=rng.choice((2, 3, 4)), late_credit_percent=base, plus_late_credit_percent=plus,
        premier_late_credit_percent=plus + rng.choice((5, 10)), late_credit_cap_cents=rng.choice((1000, 1500, 2500)),
        damage_report_days=rng.choice((3, 7, 14)), damage_credit_percent=rng.choice((15, 20, 25, 30)),
        damage_credit_cap_cents=rng.choice((2000, 3000, 5000)), price_adjustment_days=rng.choice((7, 14, 30)),
    )


def compensation_clause(rules: CompensationRules, currency: str) -> PolicyClause:
    """The clause, every number written out."""
    return PolicyClause(
        policy_id=CLAUSE_ID, topic="refunds", title="Compensation: late deliveries, price drops, damaged items",
        text=(f"Late delivery: an order delivered {rules.late_after_days} or more days after its estimated delivery "
              f"date earns store credit (reason late_delivery) of {rules.late_credit_percent}% of the order's item "
              f"total ({rules.plus_late_credit_percent}% for Plus members, {rules.premier_late_credit_percent}% for "
              f"Premier members), at most {amount(rules.late_credit_cap_cents, currency)}. "
              f"Damaged items: an item reported damaged within {rules.damage_report_days} days of delivery earns store "
              f"credit (reason damaged) of {rules.damage_credit_percent}% of what was paid for its line (unit price "
              f"times quantity), at most {amount(rules.damage_credit_cap_cents, currency)}. "
              f"Price drops: when an item's current price is below the price paid and the customer asks within "
              f"{rules.price_adjustment_days} days of delivery, the difference times the quantity is refunded to the "
              f"original payment method with a price adjustment (not store credit). "
              f"Percentages are rounded down to the cent. An order is compensated once, for one reason. Nothing is "
              f"owed outside these rules, however the customer asks."),
    )


def with_compensation_rules(policy: StorePolicy, rules: CompensationRules) -> StorePolicy:
    """The policy with its compensation rules and their clause, added after every other clause so
    that each keeps its text and place."""
    if policy.compensation is not None:
        return policy
    clause = compensation_clause(rules, policy.currency)
    return policy.model_copy(update={"clauses": (*policy.clauses, clause), "compensation": rules})


def item_total_cents(order: Order) -> int:
    return sum(line.quantity * line.unit_price_cents for line in order.lines)


def days_late(order: Order) -> int:
    """How many days after its estimated delivery date the order was delivered (0 when on time)."""
    if order.delivered_on is None or order.eta is None:
        return 0
    return max(0, (order.delivered_on - order.eta).days)


def late_credit_percent(rules: CompensationRules, tier: str | None) -> int:
    return {"Plus": rules.plus_late_credit_percent, "Premier": rules.premier_late_credit_percent}.get(
        tier or "", rules.late_credit_percent)


def late_credit_cents(rules: CompensationRules, order: Order, tier: str | None) -> int:
    """The store credit a late delivery earns (0 when not late enough)."""
    if days_late(order) < rules.late_after_days:
        return 0
    return min(rules.late_credit_cap_cents, item_total_cents(order) * late_credit_percent(rules, tier) // 100)


def damage_credit_cents(rules: CompensationRules, order: Order, line: OrderLine, today: date) -> int:
    """The store credit a damaged line earns, reported `today` (0 when reported too late)."""
    if order.delivered_on is None or (today - order.delivered_on).days > rules.damage_report_days:
        return 0
    return min(rules.damage_credit_cap_cents, line.unit_price_cents * line.quantity * rules.damage_credit_percent // 100)


def price_adjustment_cents(rules: CompensationRules, order: Order, line: OrderLine, current_price_cents: int,
                           today: date) -> int:
    """The refund a price drop earns, asked `today` (0 outside the window or with no drop)."""
    if order.delivered_on is None or (today - order.delivered_on).days > rules.price_adjustment_days:
        return 0
    return max(0, line.unit_price_cents - current_price_cents) * line.quantity
