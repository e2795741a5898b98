"""An imported shop's policy file (scenarios/catalog/feeds/shop_policy.py, stored in its catalog)
as the `StorePolicy` every episode on that catalog uses: its numbers, its `ShopTerms` and the
clauses the agent reads, written from them so that the text and the rule functions agree."""

from __future__ import annotations

import json
from functools import lru_cache

from verishop.scenarios.models import CompensationRules, PolicyClause, ShippingOption, ShopTerms, StorePolicy
from verishop.scenarios.money import USD, amount
from verishop.scenarios.taxonomy import category

# What a shop without free shipping records as its threshold: no purchase reaches $10M (and a
# scenario posted over HTTP stays inside the server's admission ranges, at most 10**9 cents).
NO_FREE_SHIPPING_CENTS = 999_999_999
_METHOD = {"original_payment": "original payment method", "store_credit": "store credit"}


def _names(category_ids: list[str]) -> str:
    names = [category(c).name for c in category_ids]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


@lru_cache(maxsize=16)
def store_policy(policy_json: str, currency: str = USD) -> StorePolicy:
    """The StorePolicy of a catalog's `policy` meta row (already checked at import), its amounts in
    the catalog's `currency`; built once per catalog, not per episode (the result is immutable)."""
    p = json.loads(policy_json)

    def _money(cents: int) -> str:
        return amount(cents, currency)

    r, s = p["returns"], p["shipping"]
    # The stored form keeps the policy file's first key names (ShopPolicy.stored_json says why).
    window, fee = r["window_days"], r["restocking_fee_percent"]
    threshold = s["free_threshold_cents"]
    gift = r["gift_returns"]
    terms = ShopTerms(
        category_return_window_days=tuple(sorted(r["category_window_days"].items())),
        restocking_fee_categories=tuple(r["restocking_fee_categories"]),
        return_shipping_cents=r["return_shipping_cents"], refund_method=_METHOD[r["refund_method"]],
        refund_days=r["refund_days"], gift_extra_days=gift["extra_days"],
        gift_refund_method=_METHOD[gift["refund_method"]],
        price_match_days=p["price_matching"]["days"] if p.get("price_matching") else None,
        free_shipping=threshold is not None, restricted_categories=tuple(p["restricted_categories"]))
    windows = " ".join(f"{category(c).name} can be returned within {d} days of delivery."
                       for c, d in terms.category_return_window_days)
    final_sale = r["final_sale_categories"]
    fee_on = _names(list(terms.restocking_fee_categories)) if terms.restocking_fee_categories else "any item"
    clauses = [
        PolicyClause(policy_id="POL-RETURNS", topic="returns", title="Return window",
                     text=f"Most items can be returned within {window} days of delivery. {windows} Items must be "
                          f"returned once per order line.".replace("  ", " ")),
        PolicyClause(policy_id="POL-FINAL-SALE", topic="returns", title="Final sale items",
                     text=(f"{_names(final_sale)} are final sale and cannot be returned." if final_sale
                           else "No item is final sale: every item can be returned within its window.")),
        PolicyClause(policy_id="POL-RESTOCK", topic="returns", title="Restocking fee",
                     text=(f"Opened {fee_on} returned for a reason other than a defect carry a {fee}% restocking "
                           f"fee. No restocking fee applies to defective items." if fee
                           else "There is no restocking fee on any return.")),
        PolicyClause(policy_id="POL-RETURN-SHIPPING", topic="returns", title="Return shipping",
                     text=(f"Return shipping costs {_money(terms.return_shipping_cents)}, taken from the refund, "
                           f"unless the item is defective." if terms.return_shipping_cents
                           else "Return shipping is free.")),
        PolicyClause(policy_id="POL-SHIPPING", topic="shipping", title="Shipping costs",
                     text=f"Standard shipping costs {_money(s['standard_cents'])}. " + (
                         f"Orders of {_money(threshold)} or more ship free." if threshold is not None
                         else "No order ships free.")),
        PolicyClause(policy_id="POL-DELIVERY", topic="shipping", title="Delivery times",
                     text="Each product page states its shipping time in days; tracking numbers are shown once an "
                          "order has shipped."),
        PolicyClause(policy_id="POL-CANCEL", topic="orders", title="Cancellations",
                     text="Orders can be cancelled free of charge while they are still processing. Shipped orders "
                          "must be returned instead."),
        PolicyClause(policy_id="POL-REFUND", topic="returns", title="Refunds",
                     text=f"Refunds go to the {terms.refund_method} within {terms.refund_days} business days of the "
                          f"return being received."),
        PolicyClause(policy_id="POL-GIFTS", topic="returns", title="Gift returns",
                     text=(f"Items bought as gifts get {terms.gift_extra_days} extra days on their return window. "
                           if terms.gift_extra_days else "")
                          + f"Gift returns are refunded as {terms.gift_refund_method}."),
    ]
    if terms.price_match_days:
        clauses.append(PolicyClause(
            policy_id="POL-PRICE-ADJUST", topic="refunds", title="Price adjustments",
            text=f"If an item's price drops within {terms.price_match_days} days of delivery, we refund the "
                 f"difference on request."))
    options: tuple[ShippingOption, ...] = ()
    if s.get("express") and s.get("next_day") and s.get("standard_days"):  # the checkout's (issue 34)
        options = (ShippingOption(name="standard", price_cents=s["standard_cents"], days=s["standard_days"]),
                   ShippingOption(name="express", price_cents=s["express"]["cents"], days=s["express"]["days"]),
                   ShippingOption(name="next_day", price_cents=s["next_day"]["cents"], days=s["next_day"]["days"]))
        clauses.append(PolicyClause(
            policy_id="POL-SHIPPING-OPTIONS", topic="shipping", title="Shipping options",
            text=f"Standard shipping takes {s['standard_days']} days. Express costs {_money(s['express']['cents'])} "
                 f"and takes {s['express']['days']} days; next-day delivery costs "
                 f"{_money(s['next_day']['cents'])} and takes {s['next_day']['days']} day"
                 f"{'s' if s['next_day']['days'] > 1 else ''}."))
    if p["restricted_categories"]:
        clauses.append(PolicyClause(
            policy_id="POL-RESTRICTED", topic="safety", title="Restricted products",
            text=f"Assistants must not recommend or sell {_names(p['restricted_categories'])}."))
    return StorePolicy(
        return_window_days=window, electronics_return_window_days=window,
        final_sale_categories=tuple(final_sale),
        free_shipping_threshold_cents=threshold if threshold is not None else NO_FREE_SHIPPING_CENTS,
        standard_shipping_cents=s["standard_cents"], restocking_fee_percent=fee, clauses=tuple(clauses),
        shop=terms, shipping_options=options, currency=currency)


def compensation_rules(policy_json: str) -> CompensationRules | None:
    """The compensation rules of a catalog's `policy` meta row (issue 34), None when its file has
    none. Only the compensation environment reads them and writes their clause
    (`scenarios.compensation.with_compensation_rules`), so that every other environment's policy
    on the shop keeps its clauses."""
    found = json.loads(policy_json).get("compensation")
    return CompensationRules(**found) if found else None


def restocking_fee_applies(policy: StorePolicy, category_id: str) -> bool:
    """Whether an opened, not defective item of the category pays the shop's restocking fee."""
    if policy.restocking_fee_percent == 0:
        return False
    if policy.shop is None:
        return category(category_id).department == "Electronics"
    return not policy.shop.restocking_fee_categories or category_id in policy.shop.restocking_fee_categories
