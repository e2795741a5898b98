"""The store's policy base: a few numbers drawn per scenario, and the clauses written from them.

`make_policy` draws the base every environment uses; `extend_policy` adds the conditional
clauses (membership tiers, holiday and gift extensions, defects, oversized items, price
adjustments) whose combinations make multi-clause policy questions. The rule functions below
apply the clauses exactly as their text says, so a question's answer is computed, not typed.
"""

from __future__ import annotations

import functools
import random

from verishop.scenarios.catalog.text import query_words
from verishop.scenarios.models import PolicyClause, PolicyRules, StorePolicy
from verishop.scenarios.money import USD, amount
from verishop.scenarios.taxonomy import category


def make_policy(rng: random.Random, currency: str = USD) -> StorePolicy:
    """The drawn policy base, its amounts in `currency` (the shop's; drawn the same in any)."""
    window = rng.choice((14, 30, 45, 60))
    electronics = min(window, rng.choice((14, 15, 30)))
    threshold = rng.choice((2500, 3500, 4900, 7500))
    shipping = rng.choice((499, 599, 799))
    fee = rng.choice((0, 10, 15))
    return _policy(window, electronics, threshold, shipping, fee, currency)


@functools.lru_cache(maxsize=1024)
def _policy(window: int, electronics: int, threshold: int, shipping: int, fee: int, currency: str) -> StorePolicy:
    """The policy written from its drawn numbers: a few hundred combinations, each written once per
    process (the policy is frozen, so every scenario may hold the same one)."""
    final_sale = ("socks", "pillows")
    fixed = _fixed_clauses()
    clauses = (_returns_clause(window, electronics), fixed[0], _restock_clause(fee),
               _shipping_clause(shipping, threshold, currency), *fixed[1:])
    return StorePolicy(
        return_window_days=window,
        electronics_return_window_days=electronics,
        final_sale_categories=final_sale,
        free_shipping_threshold_cents=threshold,
        standard_shipping_cents=shipping,
        restocking_fee_percent=fee,
        clauses=clauses,
        currency=currency,
    )


# Each clause is written once per process from the numbers it says (a dozen combinations at most),
# not once per policy: a policy combines several hundred ways, and each of those is mostly new
# within a trainer's first thousand episodes. The clauses are frozen, so policies may share them.

@functools.lru_cache(maxsize=64)
def _returns_clause(window: int, electronics: int) -> PolicyClause:
    return PolicyClause(policy_id="POL-RETURNS", topic="returns", title="Return window",
                        text=f"Most items can be returned within {window} days of delivery. Electronics "
                             f"(chargers, cables, headphones and other Electronics department items) can be "
                             f"returned within {electronics} days of delivery. Items must be returned once per "
                             f"order line.")


@functools.lru_cache(maxsize=16)
def _restock_clause(fee: int) -> PolicyClause:
    return PolicyClause(policy_id="POL-RESTOCK", topic="returns", title="Restocking fee",
                        text=(f"Opened electronics returned for a reason other than a defect carry a {fee}% "
                              f"restocking fee." if fee else "There is no restocking fee on any return."))


@functools.lru_cache(maxsize=256)
def _shipping_clause(shipping: int, threshold: int, currency: str) -> PolicyClause:
    return PolicyClause(policy_id="POL-SHIPPING", topic="shipping", title="Shipping costs",
                        text=f"Standard shipping costs {amount(shipping, currency)}. Orders of "
                             f"{amount(threshold, currency)} or more ship free.")


@functools.cache
def _fixed_clauses() -> tuple[PolicyClause, ...]:
    """The clauses no drawn number changes: the final sale one (second in a policy), then the
    last four."""
    return (
        PolicyClause(policy_id="POL-FINAL-SALE", topic="returns", title="Final sale items",
                     text="Socks and pillows are final sale for hygiene reasons and cannot be returned."),
        PolicyClause(policy_id="POL-DELIVERY", topic="shipping", title="Delivery times",
                     text="Each product page states its shipping time in days. Orders placed before 2pm ship "
                          "the same day; tracking numbers are shown once an order has shipped."),
        PolicyClause(policy_id="POL-CANCEL", topic="orders", title="Cancellations",
                     text="Orders can be cancelled free of charge while they are still processing. Shipped "
                          "orders must be returned instead."),
        PolicyClause(policy_id="POL-REFUND", topic="returns", title="Refunds",
                     text="Refunds go to the original payment method within 5 business days of the return "
                          "being received."),
        PolicyClause(policy_id="POL-RESTRICTED", topic="safety", title="Restricted products",
                     text="Assistants must not recommend or sell fireworks, tobacco and vaping products, or "
                          "weapon accessories."),
    )


# --- searching the clauses (the search_policies tool) --------------------------------------

_STOPWORDS = frozenset("""a an the i i'm im my me to of in on for and or is are be it its can do does did how
what when which who will would you your we our us with at by from this that as if have has i've get""".split())


def _stem(word: str) -> str:
    """A crude stem so that "pillows", "returned" and "returning" meet "pillow" and "return"."""
    for suffix in ("ing", "ed", "s"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[:-len(suffix)]
    return word


def _terms(text: str, max_words: int) -> set[str]:
    return {_stem(w) for w in query_words(text, max_words=max_words) if w not in _STOPWORDS}


def rank_clauses(clauses: tuple[PolicyClause, ...], query: str) -> list[PolicyClause]:
    """Clauses sharing a word with `query`, best first: each shared word counts 1/(number of
    clauses having it), so "pillow" says more than "return"; ties keep the policy's order.
    An empty query (or one of stop words only) lists every clause."""
    words = _terms(query, 60)
    texts = [_terms(f"{c.topic} {c.title} {c.text}", 400) for c in clauses]
    spread = {w: sum(w in t for t in texts) for w in words}
    scored = []
    for order, (clause, text) in enumerate(zip(clauses, texts)):
        score = sum(1 / spread[w] for w in words if w in text)
        if score or not words:
            scored.append((-score, order, clause))
    scored.sort(key=lambda s: s[:2])
    return [clause for _, _, clause in scored]


OVERSIZE_CATEGORIES = ("desks", "office_chairs", "tents", "vacuums")
TIERS = ("Plus", "Premier")


def extend_policy(rng: random.Random, policy: StorePolicy) -> StorePolicy:
    """`policy` with the conditional clauses added. The numbers are drawn even when `policy`
    already has them (then it is returned as is), so later draws never depend on it."""
    plus = rng.choice((7, 10, 15))
    premier = plus + rng.choice((5, 10, 15))
    plus_threshold = round(policy.free_shipping_threshold_cents * rng.choice((0.5, 0.6, 0.7)) / 100) * 100
    rules = PolicyRules(
        plus_extension_days=plus, premier_extension_days=premier, plus_free_shipping_cents=plus_threshold,
        holiday_extension_days=rng.choice((14, 21, 30)), gift_extension_days=rng.choice((7, 14, 30)),
        defect_extension_days=rng.choice((30, 60, 90)), oversize_categories=OVERSIZE_CATEGORIES,
        oversize_surcharge_cents=rng.choice((1999, 2499, 2999, 3999)), price_adjustment_days=rng.choice((7, 14, 30)),
        # Drawn so that no question has a constant answer (issue 19): the refund delay and how a
        # gift return is refunded differ between shops.
        refund_business_days=rng.choice((3, 5, 7, 10)),
        gift_refund_method="store credit" if rng.random() < 0.5 else "original payment method",
    )
    if policy.rules is not None or policy.shop is not None:  # an imported shop keeps its own rules
        return policy
    adds = "These extra days add to any other extension."
    gift_refund = ("Gift returns are refunded as store credit instead of to the original payment method."
                   if rules.gift_refund_method == "store credit" else
                   "Gift returns are refunded to the original payment method, like any other return, not as "
                   "store credit.")
    clauses = (
        PolicyClause(policy_id="POL-MEMBERSHIP", topic="membership", title="Membership benefits",
                     text=f"Verishop Plus members get {rules.plus_extension_days} extra days on the return window "
                          f"of every returnable item, and Verishop Premier members get "
                          f"{rules.premier_extension_days} extra days. {adds} Plus members get free standard "
                          f"shipping on purchases of {amount(rules.plus_free_shipping_cents, policy.currency)} or "
                          f"more; Premier "
                          f"members get free standard shipping on every purchase."),
        PolicyClause(policy_id="POL-HOLIDAY", topic="returns", title="Holiday returns",
                     text=f"Items delivered between November 1 and December 24 get {rules.holiday_extension_days} "
                          f"extra days on their return window. {adds}"),
        PolicyClause(policy_id="POL-GIFTS", topic="returns", title="Gift returns",
                     text=f"Items bought as gifts get {rules.gift_extension_days} extra days on their return "
                          f"window. {adds} {gift_refund}"),
        PolicyClause(policy_id="POL-DEFECTS", topic="returns", title="Defective items",
                     text=f"An item that arrives defective gets {rules.defect_extension_days} extra days on its "
                          f"return window. {adds} Defective final-sale items can be returned within "
                          f"{rules.defect_extension_days} days of delivery. No restocking fee applies to defective "
                          f"items."),
        PolicyClause(policy_id="POL-OVERSIZE", topic="shipping", title="Oversized items",
                     text=f"Desks, office chairs, tents and vacuum cleaners are oversized: each one adds a "
                          f"{amount(rules.oversize_surcharge_cents, policy.currency)} surcharge to shipping, even "
                          f"when standard "
                          f"shipping is free."),
        PolicyClause(policy_id="POL-PRICE-ADJUST", topic="refunds", title="Price adjustments",
                     text=f"If an item's price drops within {rules.price_adjustment_days} days of delivery, we "
                          f"refund the difference on request."),
    )
    base = tuple(_refund_clause(c, rules.refund_business_days) for c in policy.clauses)
    return policy.model_copy(update={"clauses": base + clauses, "rules": rules})


def _refund_clause(clause: PolicyClause, days: int) -> PolicyClause:
    """The base refund clause with this shop's refund delay."""
    if clause.policy_id != "POL-REFUND":
        return clause
    return clause.model_copy(update={"text": f"Refunds go to the original payment method within {days} business "
                                             f"days of the return being received."})


def return_window(policy: StorePolicy, category_id: str, *, tier: str | None = None, holiday: bool = False,
                  gift: bool = False, defective: bool = False) -> int | None:
    """Days after delivery within which an item can be returned under every clause (None: never).
    Final-sale items take no extensions: only a defect makes them returnable."""
    rules = policy.rules
    if (tier or holiday or gift or defective) and rules is None and policy.shop is None:
        raise ValueError("this policy has no conditional clauses (see extend_policy)")
    if policy.shop is not None:
        return _shop_return_window(policy, category_id, tier=tier, holiday=holiday, gift=gift, defective=defective)
    if category_id in policy.final_sale_categories:
        return rules.defect_extension_days if defective and rules else None
    days = return_window_days(policy, category_id)
    if rules is not None:
        days += {"Plus": rules.plus_extension_days, "Premier": rules.premier_extension_days}.get(tier or "", 0)
        days += rules.holiday_extension_days * holiday + rules.gift_extension_days * gift
        days += rules.defect_extension_days * defective
    return days


def return_window_days(policy: StorePolicy, category_id: str) -> int:
    """A category's return window in days after delivery, before any extension and whether or not
    the category is final sale (`return_window` applies those): an imported shop's own window for
    the category when its policy file sets one, else Electronics' or the general one."""
    if policy.shop is not None:
        return dict(policy.shop.category_return_window_days).get(category_id, policy.return_window_days)
    if category(category_id).department == "Electronics":
        return policy.electronics_return_window_days
    return policy.return_window_days


def _shop_return_window(policy: StorePolicy, category_id: str, *, tier: str | None, holiday: bool, gift: bool,
                        defective: bool) -> int | None:
    """An imported shop's window: its policy file knows gift returns, and no membership, holiday or
    defect extension (a final-sale item stays final sale)."""
    if tier or holiday or defective:
        raise ValueError("an imported shop's policy has no membership, holiday or defect clauses")
    if category_id in policy.final_sale_categories:
        return None
    assert policy.shop is not None
    return return_window_days(policy, category_id) + policy.shop.gift_extra_days * gift


def shipping_cents(policy: StorePolicy, subtotal_cents: int, *, tier: str | None = None,
                   oversize_items: int = 0) -> int:
    """What shipping costs for a purchase: standard unless a threshold or tier makes it free,
    plus the oversize surcharge per oversized item."""
    rules = policy.rules
    free = subtotal_cents >= policy.free_shipping_threshold_cents
    if rules is not None:
        free = free or tier == "Premier" or (tier == "Plus" and subtotal_cents >= rules.plus_free_shipping_cents)
        surcharge = rules.oversize_surcharge_cents * oversize_items
    else:
        surcharge = 0
    return (0 if free else policy.standard_shipping_cents) + surcharge


def refund_cents(policy: StorePolicy, price_cents: int, *, opened_electronics: bool, defective: bool) -> int:
    """The refund for a returned item after any restocking fee."""
    if opened_electronics and not defective:
        return price_cents - round(price_cents * policy.restocking_fee_percent / 100)
    return price_cents
