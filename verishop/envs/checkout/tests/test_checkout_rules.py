"""The checkout's rules (scenarios/checkout.py): the optimum the generator stores is the one a
brute force over every voucher subset and shipping option finds, computed here independently
(Decimal rounding, no shared helper), on small random cases; the payment split."""

from __future__ import annotations

from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from itertools import chain, combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from verishop.scenarios.checkout import Line, optimum, split, split_problem
from verishop.scenarios.models import (
    PaymentMethod,
    ShippingOption,
    StorePolicy,
    Voucher,
)

TODAY = date(2026, 5, 10)
CATEGORIES = ("socks", "mugs", "lamps")


def policy(threshold: int, standard: int, express: int, next_day: int) -> StorePolicy:
    return StorePolicy(return_window_days=30, electronics_return_window_days=15, final_sale_categories=("socks",),
                       free_shipping_threshold_cents=threshold, standard_shipping_cents=standard,
                       restocking_fee_percent=0, clauses=(),
                       shipping_options=(ShippingOption(name="standard", price_cents=standard, days=5),
                                         ShippingOption(name="express", price_cents=express, days=2),
                                         ShippingOption(name="next_day", price_cents=next_day, days=1)))


def brute_force(lines, vouchers, pol, deliver_by, budget):
    """Every subset of every voucher, judged by the rules as the docs state them."""
    def covered(v):
        return sum(li.unit_price_cents * li.quantity for li in lines
                   if (v.category_id in (None, li.category_id))
                   and not (v.excludes_final_sale and li.category_id in pol.final_sale_categories))

    def off(v):
        base = covered(v)
        if v.kind == "fixed":
            return min(v.amount, base)
        return int((Decimal(base) * v.amount / 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))

    subtotal = sum(li.unit_price_cents * li.quantity for li in lines)
    found = {}
    for subset in chain.from_iterable(combinations(vouchers, k) for k in range(len(vouchers) + 1)):
        if any(v.expires_on < TODAY or covered(v) == 0 or covered(v) < v.min_spend_cents for v in subset):
            continue
        if sum(not v.stackable for v in subset) > 1:
            continue
        items = subtotal - min(subtotal, sum(off(v) for v in subset))
        for o in pol.shipping_options:
            if TODAY + timedelta(days=o.days) > deliver_by:
                continue
            ship = 0 if o.name == "standard" and items >= pol.free_shipping_threshold_cents else o.price_cents
            if items + ship <= budget:
                found[(tuple(sorted(v.code for v in subset)), o.name)] = items + ship
    if not found:
        return None
    best = min(found.values())
    return best, {plan for plan, total in found.items() if total == best}


lines_st = st.lists(st.builds(lambda i, c, p, q: Line(f"P{i:08d}", c, p, q), st.integers(0, 99),
                              st.sampled_from(CATEGORIES), st.integers(1, 9000), st.integers(1, 3)),
                    min_size=1, max_size=3, unique_by=lambda li: li.product_id)
voucher_st = st.builds(
    lambda kind, percent, fixed, min_spend, cat, sale, stack, days: Voucher(
        code="X", kind=kind, amount=percent if kind == "percent" else fixed, min_spend_cents=min_spend,
        category_id=cat, excludes_final_sale=sale, stackable=stack, expires_on=TODAY + timedelta(days=days)),
    st.sampled_from(("percent", "fixed")), st.integers(1, 60), st.integers(1, 5000), st.sampled_from((0, 0, 2000, 9000)),
    st.sampled_from((None, None, *CATEGORIES)), st.booleans(), st.booleans(), st.integers(-3, 5))


@settings(max_examples=150, deadline=None)
@given(lines_st, st.lists(voucher_st, max_size=5), st.integers(0, 12000), st.integers(0, 900), st.integers(0, 2000),
       st.integers(0, 3000), st.integers(1, 7), st.integers(1000, 60000))
def test_the_stored_optimum_is_every_cheapest_plan_a_brute_force_finds(lines, vouchers, threshold, standard, extra,
                                                                        extra2, days, budget):
    vouchers = [v.model_copy(update={"code": f"V{i}"}) for i, v in enumerate(vouchers)]
    pol = policy(threshold, standard, standard + extra, standard + extra + extra2)
    deliver_by = TODAY + timedelta(days=days)
    got = optimum(lines, vouchers, pol, TODAY, deliver_by, budget)
    want = brute_force(lines, vouchers, pol, deliver_by, budget)
    if want is None:
        assert got is None
    else:
        assert got is not None and got.total_cents == want[0]
        assert {(p.voucher_codes, p.shipping_option) for p in got.plans} == want[1]


def test_a_voucher_that_drops_the_items_below_the_free_shipping_threshold_can_cost_more_than_it_saves():
    pol = policy(5000, 799, 1500, 2500)
    lines = [Line("P00000001", "mugs", 5200, 1)]
    small = Voucher(code="SAVE3", kind="fixed", amount=300, expires_on=TODAY)
    best = optimum(lines, [small], pol, TODAY, TODAY + timedelta(days=9), 10**6)
    assert best is not None and best.total_cents == 5200
    assert [(p.voucher_codes, p.shipping_option) for p in best.plans] == [((), "standard")]


def test_a_gift_card_pays_its_balance_first_and_the_card_the_rest():
    gift = PaymentMethod(payment_id="PM000001", kind="gift_card", label="gift card", balance_cents=2500)
    card = PaymentMethod(payment_id="PM000002", kind="card", label="Visa ending 4242")
    assert split_problem([gift, card], 7000) is None
    assert split([gift, card], 7000) == [("PM000001", 2500), ("PM000002", 4500)]
    assert split([gift, card], 1000) == [("PM000001", 1000), ("PM000002", 0)]
    assert "must come last" in split_problem([card, gift], 7000)
    assert "holds too little" in split_problem([gift], 7000)
    assert "twice" in split_problem([card, card], 7000)


# --- an imported shop's policy file (point 4 of issue 34) -------------------------------------


def _shop_policy(shipping: dict):
    from verishop.scenarios.catalog.feeds.shop_policy import ShopPolicy
    return ShopPolicy.model_validate({"returns": {"return_window_days": 30}, "shipping": shipping})


def test_an_imported_policy_without_checkout_shipping_is_refused_naming_the_keys_to_add():
    import random

    import pytest

    from verishop.envs.checkout.generator import with_shipping_options
    from verishop.scenarios.catalog.reader import CatalogError
    from verishop.scenarios.shop_policy import store_policy

    bare = store_policy(_shop_policy({"standard_cents": 599, "free_threshold_cents": 5000}).stored_json())
    with pytest.raises(CatalogError, match=r"shipping\.standard_days, shipping\.express .* shipping\.next_day"):
        with_shipping_options(random.Random(1), bare)
    full = store_policy(_shop_policy({"standard_cents": 599, "free_threshold_cents": 5000, "standard_days": 5,
                                      "express": {"cents": 1299, "days": 2},
                                      "next_day": {"cents": 2499, "days": 1}}).stored_json())
    options = with_shipping_options(random.Random(1), full).shipping_options
    assert [(o.name, o.price_cents, o.days) for o in options] == [("standard", 599, 5), ("express", 1299, 2),
                                                                  ("next_day", 2499, 1)]
    assert any(c.policy_id == "POL-SHIPPING-OPTIONS" for c in full.clauses)


def test_a_policy_file_with_part_of_the_checkout_shipping_or_options_out_of_order_is_refused_clearly():
    import pytest
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=r"shipping\.standard_days, shipping\.next_day missing"):
        _shop_policy({"standard_cents": 599, "express": {"cents": 1299, "days": 2}})
    with pytest.raises(ValidationError, match="sooner"):
        _shop_policy({"standard_cents": 599, "standard_days": 2, "express": {"cents": 1299, "days": 3},
                      "next_day": {"cents": 2499, "days": 1}})
    with pytest.raises(ValidationError, match="at least"):
        _shop_policy({"standard_cents": 599, "standard_days": 5, "express": {"cents": 299, "days": 3},
                      "next_day": {"cents": 2499, "days": 1}})
    # A file without them stores what it always stored (its catalog keeps its content hash).
    assert "standard_days" not in _shop_policy({"standard_cents": 599}).stored_json()
