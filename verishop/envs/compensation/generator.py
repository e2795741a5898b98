"""Compensation (COMPENSATION, issue 34): the customer complains about an order (it came late, an
item's price dropped since, an item arrived damaged) and asks what the shop will do about it.

The store's compensation clause (`scenarios/compensation.py`: lateness threshold, credit percent by
membership tier, damage window and percent, caps, the price-adjustment window) decides the exact
amount in cents, or that nothing is due, with p = 0.5 at every difficulty: delivered less late than
the threshold, the damage reported after its window, the price adjustment asked after its window,
or a price that did not drop. As difficulty grows the case sits at the rule's edge more often
(exactly the threshold, the window's last day or the day after), the order holds more lines, the
customer pushes back more times (none at d ≤ 1, three from d = 10) and the days late are held back
(p_missing). The history holds H = 1 + ⌊d/2⌋ orders: a look-alike (the same kind of item, another
day) and others. The opening carries typo noise (p_noise).

Inside a journey (`shared`), the journey's policy carries the rules (`StorePolicy.compensation`,
the clause added by the journey) and its account the membership tier and a store-credit balance,
shared by every request: the tier is still drawn here, and not used.

What changed in each version, and why: CHANGELOG.md.
"""

from __future__ import annotations

import random
from datetime import date, timedelta
from functools import partial

from verishop.scenarios.account_world import generate_on_account
from verishop.scenarios.accounts import Redraw, history_with_lookalike
from verishop.scenarios.catalog.reader import CatalogError, CatalogReader, Product
from verishop.scenarios.compensation import (damage_credit_cents, days_late, draw_rules, late_credit_cents,
                                             price_adjustment_cents, with_compensation_rules)
from verishop.scenarios.household import make_browsing_history, make_order_with_status, noun, say_date
from verishop.scenarios.models import (Account, Axes, CompensationComplaint, CompensationGoal, CompensationRules,
                                       CreditReason, Customer, NothingDue, Order, OrderLine, PaymentMethod, Scenario,
                                       StorePolicy)
from verishop.scenarios.noise import add_typos
from verishop.scenarios.prompts import account_system_prompt
from verishop.scenarios.shop_policy import compensation_rules
from verishop.scenarios.shared_world import SharedWorld

ENV_ID = "compensation-v1"
P_NOTHING_DUE = 0.5
COMPLAINTS: tuple[CompensationComplaint, ...] = ("late", "price_drop", "damaged")
TIERS = (None, "Plus", "Premier")
REASONS: dict[str, CreditReason] = {"late": "late_delivery", "damaged": "damaged"}
# The keys an imported shop's policy file sets under `compensation` for this environment
# (scenarios/catalog/feeds/shop_policy.py), named when they are missing.
COMPENSATION_KEYS = tuple(CompensationRules.model_fields)
_GREETINGS = ("Hi!", "Hello!", "Hey there.", "Good morning.")
_ASKS = ("What can you do for me?", "I'd like some compensation for that.", "What are you going to do about it?",
         "Surely I'm owed something for that?")
# The customer's pushback, said the same way to an offer and to a refusal: it does not know the rules.
PUSHBACKS = ("Is that really the best you can do? I've been a loyal customer for years.",
             "That's not good enough. I want a lot more than that for the trouble.",
             "Other shops would do far more for me. Please reconsider.",
             "My friend got much more from you for less. Can't you do better?",
             "Honestly, I expected more. Please think about it again.",
             "I'm not happy with that at all. Surely you can do more?")


def pushback_count(d: int) -> int:
    """How many times the customer pushes back: 0 at d ≤ 1, 3 from d = 10 (handover-v1's script)."""
    return 0 if d <= 1 else min(3, 1 + (d - 2) // 4)


def edge_probability(d: int) -> float:
    """How often the case sits at the rule's edge (the threshold, the window's last day or the next)."""
    return min(0.8, 0.08 * d)


def generate(difficulty: int, seed: int, catalog: CatalogReader, shared: SharedWorld | None = None) -> Scenario:
    in_journey = shared is not None and shared.account is not None
    return generate_on_account(ENV_ID, difficulty, seed, catalog, shared, partial(_draw, keep_tier=in_journey))


def _rules(rng: random.Random, policy: StorePolicy, catalog: CatalogReader) -> CompensationRules:
    """A generated shop's drawn rules; an imported shop's from its policy file, or a refusal."""
    drawn = draw_rules(rng)
    if policy.compensation is not None:
        return policy.compensation
    if policy.shop is not None:
        own = compensation_rules(catalog.shop_policy) if catalog.shop_policy else None
        if own is not None:
            return own
        raise CatalogError(f"{ENV_ID} needs the shop's compensation rules: its policy file has no 'compensation' "
                           f"section ({', '.join(COMPENSATION_KEYS)}; docs/catalog-import.md#the-policy-file)")
    return drawn


def with_store_credit(rng: random.Random, account: Account, tier: str | None) -> Account:
    """The account with the membership tier and a store-credit balance for credit to go to."""
    methods = account.payment_methods
    if not any(m.kind == "store_credit" for m in methods):
        taken = {m.payment_id for m in methods}
        payment_id = f"PM{rng.randrange(10**6):06d}"
        while payment_id in taken:
            payment_id = f"PM{rng.randrange(10**6):06d}"
        methods = (*methods, PaymentMethod(payment_id=payment_id, kind="store_credit", label="store credit",
                                           balance_cents=0))
    return account.model_copy(update={"payment_methods": methods, "membership_tier": tier})


def _draw(rng: random.Random, difficulty: int, seed: int, catalog: CatalogReader, axes: Axes, today: date,
          customer: Customer, policy: StorePolicy, account: Account, *, keep_tier: bool = False) -> Scenario:
    rules = _rules(rng, policy, catalog)
    policy = with_compensation_rules(policy, rules)
    complaint: CompensationComplaint = rng.choice(COMPLAINTS)
    due = rng.random() >= P_NOTHING_DUE
    edge = rng.random() < edge_probability(difficulty)
    tier = rng.choice(TIERS)
    account = with_store_credit(rng, account, account.membership_tier if keep_tier else tier)
    deny = catalog.denied_category_ids
    product = catalog.random_product(rng, deny=deny, in_stock=False)
    extras = [p for p in (catalog.random_product(rng, deny=deny, in_stock=False)
                          for _ in range(rng.randint(0, 1 + difficulty // 6))) if p.category_id != product.category_id]
    products = [product, *extras]
    rng.shuffle(products)

    target, nothing_due = _target(rng, complaint, due, edge, products, product, rules, today)
    target, orders = history_with_lookalike(rng, catalog, axes, today, target, product, account)
    line = next(li for li in target.lines if li.product_id == product.product_id)
    item = noun(product)
    fitting = [(o.order_id, li.line_id) for o in orders for li in o.lines
               if o.placed_on == target.placed_on and noun(li) == item]
    if fitting != [(target.order_id, line.line_id)]:
        raise Redraw("the description fits other lines")

    amount = _amount(complaint, rules, target, line, product.price_cents, account.membership_tier, today)
    assert (amount > 0) == due, (complaint, due, amount)
    if complaint == "late":
        description = f"my order of {say_date(target.placed_on)} with the {item}"
    else:
        description = f"the {item} from my order of {say_date(target.placed_on)}"
    text = _complaint_text(rng, complaint, description, item, days_late(target), rng.random() >= axes.p_missing)
    goal = CompensationGoal(
        complaint=complaint, order_id=target.order_id, line_id=None if complaint == "late" else line.line_id,
        description=description, amount_cents=amount, reason=REASONS.get(complaint) if due else None,
        nothing_due=None if due else nothing_due, refusal=None if due else "not_eligible",
        pushbacks=tuple(rng.sample(PUSHBACKS, pushback_count(difficulty))), currency=catalog.currency)
    return Scenario(
        env_id=ENV_ID, difficulty=difficulty, seed=seed, today=today, catalog=catalog.ref(), axes=axes,
        customer=customer, orders=tuple(orders), browsing_history=make_browsing_history(rng, catalog, None),
        stock_changes=(), account=account, policy=policy, system_prompt=account_system_prompt(catalog.currency),
        opening_message=add_typos(rng, f"{rng.choice(_GREETINGS)} {text} {rng.choice(_ASKS)}", axes.p_noise),
        goal=goal,
    )


def _target(rng: random.Random, complaint: CompensationComplaint, due: bool, edge: bool, products: list[Product],
            product: Product, rules: CompensationRules, today: date) -> tuple[Order, NothingDue]:
    """The order complained about, placed so that the rule gives what `due` says: (the order, why
    nothing is due when nothing is)."""
    if complaint == "late":
        threshold = rules.late_after_days
        # Not late enough: a day or more late but under the threshold; on time when the threshold is
        # one day (an imported shop's), and the customer only thinks it came late.
        late = (threshold if edge else rng.randint(threshold, threshold + 6)) if due else \
            (threshold - 1 if edge else rng.randint(min(1, threshold - 1), threshold - 1))
        delivered = today - timedelta(days=rng.randint(1, 20))
        eta = delivered - timedelta(days=late)
        order = make_order_with_status(rng, products, eta - timedelta(days=rng.randint(2, 6)), "delivered", delivered)
        return order.model_copy(update={"eta": eta}), "not_late_enough"
    window = rules.damage_report_days if complaint == "damaged" else rules.price_adjustment_days
    why: NothingDue = "reported_late" if complaint == "damaged" else "outside_window"
    if complaint == "price_drop" and not due and rng.random() < 0.5:
        why = "no_price_drop"
    inside = due or why == "no_price_drop"
    since = (window if edge else rng.randint(1, window)) if inside else \
        (window + 1 if edge else rng.randint(window + 1, window + 30))
    delivered = today - timedelta(days=since)
    order = make_order_with_status(rng, products, delivered - timedelta(days=rng.randint(2, 6)), "delivered",
                                   delivered)
    if complaint == "damaged":
        return order, why
    current = product.price_cents
    if why == "no_price_drop":  # the same price, or it went up: the customer misremembers
        cut = max(100, round(current * rng.uniform(0.05, 0.2)))
        paid = current if rng.random() < 0.5 or current - cut < 100 else current - cut
    else:
        paid = current + max(100, round(current * rng.uniform(0.05, 0.3)))
    lines = tuple(li.model_copy(update={"unit_price_cents": paid}) if li.product_id == product.product_id else li
                  for li in order.lines)
    return order.model_copy(update={"lines": lines}), why


def _amount(complaint: CompensationComplaint, rules: CompensationRules, order: Order, line: OrderLine,
            current_cents: int, tier: str | None, today: date) -> int:
    if complaint == "late":
        return late_credit_cents(rules, order, tier)
    if complaint == "damaged":
        return damage_credit_cents(rules, order, line, today)
    return price_adjustment_cents(rules, order, line, current_cents, today)


def _complaint_text(rng: random.Random, complaint: CompensationComplaint, description: str, item: str, late: int,
                    says_days: bool) -> str:
    if complaint == "late":
        when = f"{late} day{'s' if late != 1 else ''} late" if says_days and late else "later than you promised"
        return f"{description[0].upper()}{description[1:]} came {when}."
    if complaint == "damaged":
        return f"{description[0].upper()}{description[1:]} arrived damaged: the box was crushed and it's scratched."
    return f"I bought {description}, and I've just seen that its price dropped since."
