"""The rules of a checkout (issue 34): what a voucher takes off, what shipping costs, what the
order totals, how the payment splits, and the cheapest plan meeting a date and a budget.

One set of rules, here in the scenario core, for every side: the shop's tools apply them
(mcp_server/shop/checkout.py), the checkout generator finds the optimum with them, and the
verifier's check and the tests read the same numbers. Every amount is an integer of hundredths of
the shop's currency.

- **A voucher** applies to the items it covers: every item, or those of its category; never a
  final-sale item (the policy's `final_sale_categories`: the shop's "sale" items) when it excludes
  them. It needs those items to come to its minimum spend, and today not after its expiry day. A
  percentage is taken off their total, rounded to the nearest hundredth (half up); a fixed amount
  is taken off, at most their total. Each voucher is worked out on the items' own prices, not
  after another voucher; the discounts together never exceed the items' subtotal.
- **Stacking**: an order carries at most one voucher that is not stackable (and any stackable
  ones beside it).
- **Shipping**: each option has a price and the days it takes; standard ships free once the items,
  after vouchers, come to the policy's free-shipping threshold. It arrives `days` after today.
- **Payment**: the methods pay in the order given; a gift card or store credit pays what its
  balance holds of what is left, a card pays all that is left, so a card comes last;
  a method named after the total is covered pays nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from itertools import combinations

from verishop.scenarios.models import (
    CheckoutPlan,
    PaymentMethod,
    ShippingOption,
    StorePolicy,
    Voucher,
)

MAX_PAYMENT_METHODS = 3


@dataclass(frozen=True)
class Line:
    """One item of the order: a product, its category, its unit price and how many."""

    product_id: str
    category_id: str
    unit_price_cents: int
    quantity: int

    @property
    def total_cents(self) -> int:
        return self.unit_price_cents * self.quantity


@dataclass(frozen=True)
class Quote:
    """What an order costs: the items, each voucher's discount, shipping and the total."""

    subtotal_cents: int
    discounts: tuple[tuple[str, int], ...]  # (voucher code, hundredths off), in the order applied
    shipping_cents: int
    total_cents: int

    @property
    def discount_cents(self) -> int:
        return self.subtotal_cents + self.shipping_cents - self.total_cents


def covered_cents(voucher: Voucher, lines: Iterable[Line], final_sale: Iterable[str]) -> int:
    """The total of the items `voucher` applies to."""
    excluded = set(final_sale) if voucher.excludes_final_sale else set()
    return sum(line.total_cents for line in lines
               if (voucher.category_id is None or line.category_id == voucher.category_id)
               and line.category_id not in excluded)


def voucher_problem(voucher: Voucher, lines: Sequence[Line], today: date, final_sale: Iterable[str]) -> str | None:
    """Why `voucher` cannot apply to these items today (None when it can)."""
    if today > voucher.expires_on:
        return f"voucher {voucher.code} expired on {voucher.expires_on.isoformat()}"
    covered = covered_cents(voucher, lines, final_sale)
    if covered == 0:
        return f"voucher {voucher.code} applies to none of the items in the cart"
    if covered < voucher.min_spend_cents:
        return (f"voucher {voucher.code} needs {voucher.min_spend_cents / 100:.2f} of the items it applies to; "
                f"the cart has {covered / 100:.2f} of them")
    return None


def discount_cents(voucher: Voucher, lines: Sequence[Line], final_sale: Iterable[str]) -> int:
    """What `voucher` takes off these items (assuming it applies)."""
    covered = covered_cents(voucher, lines, final_sale)
    if voucher.kind == "percent":
        return (covered * min(voucher.amount, 100) + 50) // 100
    return min(voucher.amount, covered)


def stacking_problem(vouchers: Sequence[Voucher]) -> str | None:
    """Why these vouchers cannot go on one order together (None when they can)."""
    single = [v.code for v in vouchers if not v.stackable]
    if len(single) > 1:
        return f"vouchers {' and '.join(single)} do not stack: an order carries one voucher that is not stackable"
    return None


def shipping_cents(option: ShippingOption, merchandise_cents: int, policy: StorePolicy) -> int:
    """What `option` costs for items coming to `merchandise_cents` after vouchers."""
    if option.name == "standard" and merchandise_cents >= policy.free_shipping_threshold_cents:
        return 0
    return option.price_cents


def arrival(today: date, option: ShippingOption) -> date:
    return today + timedelta(days=option.days)


def quote(lines: Sequence[Line], vouchers: Sequence[Voucher], option: ShippingOption, policy: StorePolicy) -> Quote:
    """What the order costs with these vouchers (assumed applicable) and this shipping option."""
    subtotal = sum(line.total_cents for line in lines)
    discounts = tuple((v.code, discount_cents(v, lines, policy.final_sale_categories)) for v in vouchers)
    off = min(subtotal, sum(d for _, d in discounts))
    shipping = shipping_cents(option, subtotal - off, policy)
    return Quote(subtotal, discounts, shipping, subtotal - off + shipping)


def option_named(policy: StorePolicy, name: str) -> ShippingOption | None:
    return next((o for o in policy.shipping_options if o.name == name), None)


@dataclass(frozen=True)
class Optimum:
    """The cheapest total meeting the date and the budget, and every plan reaching it."""

    total_cents: int
    plans: tuple[CheckoutPlan, ...]


def optimum(lines: Sequence[Line], vouchers: Sequence[Voucher], policy: StorePolicy, today: date,
            deliver_by: date, budget_cents: int) -> Optimum | None:
    """Every applicable voucher subset × every shipping option arriving by `deliver_by`: the
    cheapest total within `budget_cents`, and every plan reaching it (None when none fits)."""
    usable = [v for v in vouchers if voucher_problem(v, lines, today, policy.final_sale_categories) is None]
    best: int | None = None
    plans: list[CheckoutPlan] = []
    for size in range(len(usable) + 1):
        for subset in combinations(usable, size):
            if stacking_problem(subset) is not None:
                continue
            for option in policy.shipping_options:
                if arrival(today, option) > deliver_by:
                    continue
                total = quote(lines, subset, option, policy).total_cents
                if total > budget_cents or (best is not None and total > best):
                    continue
                if best is None or total < best:
                    best, plans = total, []
                plans.append(CheckoutPlan(voucher_codes=tuple(sorted(v.code for v in subset)),
                                          shipping_option=option.name))
    return None if best is None else Optimum(best, tuple(plans))


def split_problem(methods: Sequence[PaymentMethod], total_cents: int) -> str | None:
    """Why these methods, in this order, cannot pay `total_cents` (None when they can)."""
    if not methods:
        return "give at least one payment method"
    if len(methods) > MAX_PAYMENT_METHODS:
        return f"at most {MAX_PAYMENT_METHODS} payment methods per order"
    ids = [m.payment_id for m in methods]
    if len(set(ids)) < len(ids):
        return "a payment method appears twice; give each once"
    left = total_cents
    for i, m in enumerate(methods):  # a method after the total is covered pays nothing, and may stay
        if m.balance_cents is None:
            if i < len(methods) - 1:
                return f"the card {m.payment_id} pays all that is left, so it must come last"
            left = 0
        else:
            left -= min(max(m.balance_cents, 0), left)
    if left > 0:
        last = methods[-1]
        return (f"{last.payment_id} ({last.label}) holds too little: {left / 100:.2f} is left to pay; add a card "
                f"after it")
    return None


def split(methods: Sequence[PaymentMethod], total_cents: int) -> list[tuple[str, int]]:
    """What each method pays of `total_cents`, in order (`split_problem` must be None)."""
    out, left = [], total_cents
    for m in methods:
        pays = left if m.balance_cents is None else min(max(m.balance_cents, 0), left)
        out.append((m.payment_id, pays))
        left -= pays
    return out
