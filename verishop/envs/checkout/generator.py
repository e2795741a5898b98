"""CHECKOUT generator: a customer with an account (addresses, a card or two, a gift card) and
vouchers wants N = 1 + ⌊d/4⌋ items (named by their titles, never by ID; 2 units of one now and
then as d grows) delivered by a date, under a budget, at the lowest total.

The shop states three shipping options (standard, free from the policy's threshold; express;
next day). The customer's vouchers number 2 + ⌊d/3⌋: percent or fixed, some with a minimum spend,
limited to a category, not valid on final-sale items, stackable (from d = 3), expired (from d = 2),
or for items the customer is not buying. The deadline leaves standard shipping in time at low d
and, as d grows, more often only express or next day. The generator enumerates every applicable
voucher subset × every shipping option in time (`scenarios/checkout.optimum`): the cheapest total
is the answer and every plan reaching it is accepted (`CheckoutGoal.optima`). The budget sits above
that total by a slack that shrinks with d (none at d = 12 in half the episodes). With
p = min(0.8, 0.1 + 0.06·d) the customer pays with its gift card first and a card the rest; else
with a card alone. The delivery date and the payment are each held back with p_missing, told when
asked; from d = 5 the order ships to one of its other saved addresses.

An imported shop with its own policy file runs it when the file states the checkout's shipping
options (`shipping.standard_days`, `shipping.express`, `shipping.next_day`: scenarios/catalog/feeds/
shop_policy.py); a file without them is refused with a `CatalogError` naming the keys to add. An
imported shop without a policy file takes the generated policy, options included.

What changed in each version, and why: CHANGELOG.md.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from verishop.scenarios.account_world import generate_on_account
from verishop.scenarios.accounts import Redraw, with_account
from verishop.scenarios.catalog.reader import CatalogError, CatalogReader, Product
from verishop.scenarios.checkout import Line, optimum, split
from verishop.scenarios.household import make_browsing_history, make_order, say_date
from verishop.scenarios.models import (
    Account,
    Axes,
    CheckoutGoal,
    CheckoutItem,
    Customer,
    PaymentCharge,
    PaymentMethod,
    PolicyClause,
    Scenario,
    ShippingOption,
    StorePolicy,
    Voucher,
)
from verishop.scenarios.money import amount
from verishop.scenarios.noise import add_typos
from verishop.scenarios.prompts import account_system_prompt
from verishop.scenarios.shared_world import SharedWorld

ENV_ID = "checkout-v1"
SHIPPING_CLAUSE_ID = "POL-SHIPPING-OPTIONS"
MAX_ITEM_DRAWS = 400
_GREETINGS = ("Hi!", "Hello!", "Hey there.", "Good morning.")
_CODE_WORDS = ("SAVE", "WELCOME", "SPRING", "THANKS", "EXTRA", "VIP", "HOME", "TREAT", "LOYAL", "FLASH")
CHECKOUT_RULES = """\
- Before you place an order (`checkout`), tell the customer the items, the shipping option, how it
  is paid and the total they pay (`answer_number`), and place it only after they agree.
"""


def gift_split_probability(d: int) -> float:
    return min(0.8, 0.1 + 0.06 * d)


def budget_slack(rng: random.Random, d: int, total_cents: int) -> int:
    """How far above the cheapest total the budget sits: a share that shrinks with d, none at
    d = 12 in half the episodes."""
    share = max(0.0, 0.35 - 0.03 * d) + rng.choice((0.0, 0.02, 0.05))
    return int(total_cents * share)


def with_shipping_options(rng: random.Random, policy: StorePolicy) -> StorePolicy:
    """The generated shop's policy with its three shipping options and the clause stating them; an
    imported shop's, with the options its policy file states (refused when it states none)."""
    if policy.shop is not None:
        if policy.shipping_options:
            return policy
        raise CatalogError(f"{ENV_ID} needs the shop's checkout shipping options; this shop's policy file states "
                           "standard shipping only: add shipping.standard_days, shipping.express {cents, days} and "
                           "shipping.next_day {cents, days} (docs/catalog-import.md)")
    standard = ShippingOption(name="standard", price_cents=policy.standard_shipping_cents, days=rng.randint(4, 7))
    express = ShippingOption(name="express", price_cents=policy.standard_shipping_cents + rng.choice((500, 700, 900)),
                             days=rng.randint(2, 3))
    next_day = ShippingOption(name="next_day", price_cents=express.price_cents + rng.choice((800, 1000, 1500)), days=1)
    options = (standard, express, next_day)
    c = policy.currency
    text = (f"Standard shipping costs {amount(standard.price_cents, c)} and takes {standard.days} days; it is free "
            f"once the items, after vouchers, come to {amount(policy.free_shipping_threshold_cents, c)}. Express "
            f"costs {amount(express.price_cents, c)} and takes {express.days} days; next-day delivery costs "
            f"{amount(next_day.price_cents, c)}. One voucher per order, unless a voucher says it stacks; vouchers "
            f"marked so are not valid on final-sale items.")
    clause = PolicyClause(policy_id=SHIPPING_CLAUSE_ID, topic="shipping", title="Shipping options and vouchers",
                          text=text)
    return policy.model_copy(update={"shipping_options": options, "clauses": (*policy.clauses, clause)})


def _items(rng: random.Random, catalog: CatalogReader, n: int, d: int, policy: StorePolicy) -> list[Product]:
    deny = catalog.denied_category_ids | set(policy.restricted_categories)
    final_sale = set(policy.final_sale_categories) & catalog.category_id_set
    chosen: list[Product] = []
    titles: set[str] = set()
    for _ in range(MAX_ITEM_DRAWS):
        if len(chosen) == n:
            break
        allow = final_sale if final_sale and rng.random() < min(0.3, 0.05 * d) else None
        p = catalog.random_product(rng, allow=allow, deny=frozenset(deny))
        if p.stock < 3 or p.title.lower() in titles or any(c.group_id == p.group_id for c in chosen):
            continue
        chosen.append(p)
        titles.add(p.title.lower())
    if len(chosen) < n:
        raise CatalogError(f"{ENV_ID} needs {n} products in stock with distinct titles; this catalog has fewer")
    return chosen


def _vouchers(rng: random.Random, d: int, lines: list[Line], today: date, policy: StorePolicy,
              catalog: CatalogReader) -> tuple[Voucher, ...]:
    subtotal = sum(line.total_cents for line in lines)
    categories = sorted({line.category_id for line in lines})
    words = rng.sample(_CODE_WORDS, k=min(len(_CODE_WORDS), 2 + d // 3))
    out = []
    for word in words:
        percent = rng.random() < 0.5
        value = rng.choice((5, 10, 15, 20, 25)) if percent else max(100, int(round(subtotal * rng.uniform(0.04, 0.2), -2)))
        category_id = None
        if rng.random() < min(0.5, 0.1 + 0.04 * d):
            category_id = rng.choice(categories) if rng.random() < 0.7 else rng.choice(catalog.shoppable_categories).id
        min_spend = int(round(subtotal * rng.uniform(0.3, 1.3), -2)) if rng.random() < 0.5 else 0
        expired = d >= 2 and rng.random() < min(0.3, 0.04 * d)
        expires = today - timedelta(days=rng.randint(1, 30)) if expired else today + timedelta(
            days=0 if d >= 6 and rng.random() < 0.2 else rng.randint(1, 60))
        out.append(Voucher(code=f"{word}{value if percent else value // 100}", kind="percent" if percent else "fixed",
                           amount=value, min_spend_cents=min_spend, category_id=category_id,
                           excludes_final_sale=rng.random() < min(0.4, 0.05 * d),
                           stackable=d >= 3 and rng.random() < 0.35, expires_on=expires))
    return tuple(out)


def _deadline(rng: random.Random, d: int, today: date, options: tuple[ShippingOption, ...]) -> date:
    """A delivery date: standard in time at low d; as d grows, more often only express or next day."""
    standard, express, _ = options
    tight = rng.random() < min(0.7, 0.08 * d)
    if not tight:
        return today + timedelta(days=standard.days + rng.randint(0, 4))
    return today + timedelta(days=rng.choice((express.days, express.days, 1, standard.days - 1)))


def generate(difficulty: int, seed: int, catalog: CatalogReader, shared: SharedWorld | None = None) -> Scenario:
    return generate_on_account(ENV_ID, difficulty, seed, catalog, shared, _draw)


def _draw(rng: random.Random, difficulty: int, seed: int, catalog: CatalogReader, axes: Axes, today: date,
          customer: Customer, policy: StorePolicy, account: Account) -> Scenario:
    d = difficulty
    policy = with_shipping_options(rng, policy)
    products = _items(rng, catalog, 1 + d // 4, d, policy)
    quantities = [2 if rng.random() < min(0.3, 0.03 * d) else 1 for _ in products]
    lines = [Line(p.product_id, p.category_id, p.price_cents, q) for p, q in zip(products, quantities)]
    vouchers = _vouchers(rng, d, lines, today, policy, catalog)
    if len({v.code for v in vouchers}) < len(vouchers):
        raise Redraw("two vouchers share a code")
    deliver_by = _deadline(rng, d, today, policy.shipping_options)
    best = optimum(lines, vouchers, policy, today, deliver_by, 10**12)
    if best is None:
        raise Redraw("no shipping option arrives in time")
    budget = best.total_cents + budget_slack(rng, d, best.total_cents)
    budget = -(-budget // 100) * 100  # whole units of the currency, never below the total

    card = next(m for m in account.payment_methods if m.kind == "card")
    gift = next((m for m in account.payment_methods if m.kind == "gift_card"), None)
    methods: list[PaymentMethod] = [gift, card] if gift is not None and rng.random() < gift_split_probability(d) \
        else [card]
    charges = [PaymentCharge(payment_id=pid, amount_cents=c) for pid, c in split(methods, best.total_cents)]
    payment_words = (f"my gift card first, and the rest on my {card.label}" if len(methods) == 2
                     else f"my {card.label}")
    address = account.addresses[0] if d < 5 or rng.random() < 0.4 else rng.choice(account.addresses[1:])
    address_words = "my default address" if address.default else f"my address at {address.street}, {address.city}"
    date_stated = rng.random() >= axes.p_missing
    payment_stated = rng.random() >= axes.p_missing
    account = account.model_copy(update={"vouchers": vouchers})

    items = tuple(CheckoutItem(product_id=p.product_id, quantity=q, description=p.title)
                  for p, q in zip(products, quantities))
    said = [f"{q} × {p.title}" if q > 1 else f"the {p.title}" for p, q in zip(products, quantities)]
    listed = said[0] if len(said) == 1 else ", ".join(said[:-1]) + " and " + said[-1]
    text = f"{rng.choice(_GREETINGS)} I'd like to order {listed}, shipped to {address_words}"
    text += f", arriving by {say_date(deliver_by)}." if date_stated else "."
    text += (f" My budget is {amount(budget, catalog.currency)} in total, shipping included. Please use my vouchers "
             "to get the lowest total.")
    if payment_stated:
        text += f" I'd like to pay with {payment_words}."
    goal = CheckoutGoal(items=items, address_id=address.address_id, address_words=address_words,
                        deliver_by=deliver_by, date_stated=date_stated, budget_cents=budget,
                        payment_ids=tuple(m.payment_id for m in methods), payment_words=payment_words,
                        payment_stated=payment_stated, total_cents=best.total_cents, optima=best.plans,
                        charges=tuple(charges), currency=catalog.currency)
    orders = with_account(rng, [make_order(rng, catalog, today, rng.randint(5, 90))
                                for _ in range(max(0, axes.order_history - 1))], account)
    if len({o.order_id for o in orders}) < len(orders):
        raise Redraw("order IDs collided")
    return Scenario(
        env_id=ENV_ID, difficulty=d, seed=seed, today=today, catalog=catalog.ref(), axes=axes, customer=customer,
        orders=orders, browsing_history=make_browsing_history(rng, catalog, None), stock_changes=(),
        account=account, policy=policy,
        system_prompt=account_system_prompt(catalog.currency).replace(
            "- When the customer's request is handled", CHECKOUT_RULES + "- When the customer's request is handled"),
        opening_message=add_typos(rng, text, axes.p_noise), goal=goal,
    )
