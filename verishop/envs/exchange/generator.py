"""Exchanges (EXCHANGE): the customer wants a delivered item swapped for another size or colour of
the same product ("the black yoga mat from my order of March 3, in blue instead"), the price
difference charged or refunded to the payment method it names, and asks what that difference is
(a typed money answer).

The store's rules decide: an item can be exchanged once per order, within its return window of
delivery, not on final sale (`scenarios/accounts.py`). With p_refuse = min(0.3, 0.05 + 0.02·d) the
item is not eligible (delivered too long ago, near the edge as d grows, or final sale): the right
answer is no write and the typed refusal `not_eligible`. With p_out_of_stock the variant wanted is
sold out: then the customer takes another one it names when told (60%), else the answer is the
refusal `out_of_stock`. The variant wanted and the payment method are each held back from the
opening with p_missing, told when the agent asks. The history holds H = 1 + ⌊d/2⌋ orders: a
look-alike (the same kind of item, another day) and others.

What changed in each version, and why: CHANGELOG.md.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from verishop.scenarios.accounts import Redraw, history_with_lookalike, draw_with_variants, siblings_by_value
from verishop.scenarios.catalog.reader import CatalogError, CatalogReader, Product
from verishop.scenarios.household import make_browsing_history, make_order_with_status, noun, say_date
from verishop.scenarios.models import (Account, Axes, Customer, ExchangeGoal, LineChange, PaymentMethod, Scenario,
                                       StockChange, StorePolicy)
from verishop.scenarios.noise import add_typos
from verishop.scenarios.policy import return_window_days
from verishop.scenarios.prompts import account_system_prompt
from verishop.scenarios.account_world import generate_on_account
from verishop.scenarios.shared_world import SharedWorld

ENV_ID = "exchange-v2"
# The task's draws are exchange-v1's: exchange-v2 added the minefields on top (issue 33).
SEED_STREAM = "exchange-v1"
P_FALLBACK = 0.6
MAX_DRAWS = 2000
_GREETINGS = ("Hi!", "Hello!", "Hey there.", "Good afternoon.")


def refuse_probability(d: int) -> float:
    return min(0.3, 0.05 + 0.02 * d)


def _exchangeable(rng: random.Random, catalog: CatalogReader, allow: set[str] | None, deny: frozenset[str],
                  siblings_needed: int) -> tuple[Product, str, list[Product]] | None:
    """A product with at least `siblings_needed` siblings of other values in stock, its option and
    those siblings; None when the catalog has none (after MAX_DRAWS draws)."""
    return draw_with_variants(rng, catalog, MAX_DRAWS, min_stock=3, siblings_needed=siblings_needed, allow=allow,
                              deny=deny, in_stock=False)


def _payment(rng: random.Random, account: Account, difference: int) -> PaymentMethod:
    """The method the customer names: a card, or a gift card or store credit for a refund (a charge
    to a balance could outrun it: in a journey another request may spend it first)."""
    usable = [m for m in account.payment_methods if m.kind == "card" or difference <= 0]
    return rng.choice(usable)


def _change(line_id: str, product: Product, attribute: str, stated: bool, siblings: list[Product]) -> LineChange:
    """The line switched to `product`, with the values of its other siblings (`LineChange.others`)."""
    return LineChange(line_id=line_id, product_id=product.product_id, attribute=attribute,
                      value=product.attrs[attribute], stated=stated,
                      others=tuple(s.attrs[attribute] for s in siblings if s.product_id != product.product_id))


def generate(difficulty: int, seed: int, catalog: CatalogReader, shared: SharedWorld | None = None) -> Scenario:
    return generate_on_account(ENV_ID, difficulty, seed, catalog, shared, _draw, stream=SEED_STREAM)


def _draw(rng: random.Random, difficulty: int, seed: int, catalog: CatalogReader, axes: Axes, today: date,
          customer: Customer, policy: StorePolicy, account: Account) -> Scenario:
    refuse = rng.random() < refuse_probability(difficulty)
    final_sale = set(policy.final_sale_categories) & catalog.category_id_set
    why = rng.choice(("window", "final_sale")) if refuse else None
    sold_out = not refuse and rng.random() < axes.p_out_of_stock
    fallback_wanted = sold_out and rng.random() < P_FALLBACK
    deny = catalog.denied_category_ids
    drawn = None
    if why == "final_sale" and final_sale:
        drawn = _exchangeable(rng, catalog, final_sale, deny, 1)
    if drawn is None:
        why = "window" if refuse else None
        drawn = _exchangeable(rng, catalog, None, deny | set(policy.final_sale_categories),
                              2 if fallback_wanted else 1)
    if drawn is None:
        raise CatalogError(f"{ENV_ID} needs products that come in variants (another size or colour in stock); "
                           "this catalog has too few")
    product, attribute, others = drawn
    wanted_product = rng.choice(others)
    fallback_product = rng.choice([o for o in others if o.product_id != wanted_product.product_id]) \
        if fallback_wanted else None

    window = return_window_days(policy, product.category_id)
    if why == "window":  # delivered just past the window (right at its edge as d grows) or long past it
        since = window + (1 if rng.random() < min(0.8, 0.1 * difficulty) else rng.randint(2, 40))
    elif rng.random() < min(0.7, 0.07 * difficulty):  # near the window's last day, still inside
        since = window - rng.randint(0, min(2, window - 1))
    else:
        since = rng.randint(1, max(1, window // 2))
    delivered = today - timedelta(days=since)
    placed = delivered - timedelta(days=rng.randint(2, 6))
    extras = [p for p in (catalog.random_product(rng, deny=deny, in_stock=False) for _ in range(rng.randint(0, 1)))
              if p.category_id != product.category_id]
    products = [product, *extras]
    rng.shuffle(products)
    target = make_order_with_status(rng, products, placed, "delivered", delivered)

    target, orders = history_with_lookalike(rng, catalog, axes, today, target, product, account)
    line = next(li for li in target.lines if li.product_id == product.product_id)

    item = noun(product)
    old_value = product.attrs[attribute]
    description = f"the {item} ({attribute.replace('_', ' ')} {old_value}) from my order of {say_date(placed)}"
    fitting = [(o.order_id, li.line_id) for o in orders for li in o.lines
               if o.placed_on == placed and noun(li) == item]
    if fitting != [(target.order_id, line.line_id)]:
        raise Redraw("the description fits other lines")

    siblings = siblings_by_value(catalog, product, attribute)
    wanted = _change(line.line_id, wanted_product, attribute, rng.random() >= axes.p_missing, siblings)
    fallback = _change(line.line_id, fallback_product, attribute, False, siblings) if fallback_product else None
    fallback_stated = fallback is not None and rng.random() >= axes.p_missing
    written = fallback if sold_out and fallback else None if sold_out else wanted
    refusal = "not_eligible" if refuse else "out_of_stock" if written is None else None
    new_price = (fallback_product if written is fallback and fallback_product else wanted_product).price_cents
    difference = (new_price - line.unit_price_cents) * line.quantity if refusal is None else 0
    payment = _payment(rng, account, difference)
    payment_stated = rng.random() >= axes.p_missing

    said_attribute = attribute.replace("_", " ")
    text = (f"{rng.choice(_GREETINGS)} I'd like to exchange {description} for "
            + (f"{said_attribute} {wanted.value}" if wanted.stated else f"another {said_attribute}") + ".")
    if fallback is not None and fallback_stated and wanted.stated:
        text += f" If that's sold out, {fallback.value} would be fine too."
    if payment_stated:
        text += f" Please use my {payment.label} for any difference."
    text += " How much would the difference be?"
    stock_changes = (StockChange(product_id=wanted_product.product_id, stock=0),) if sold_out else ()
    goal = ExchangeGoal(order_id=target.order_id, line_id=line.line_id, description=description, wanted=wanted,
                        fallback=fallback, fallback_stated=fallback_stated,
                        line_changes=(written,) if written is not None and refusal is None else (),
                        payment_id=payment.payment_id, payment_label=payment.label, payment_stated=payment_stated,
                        difference_cents=difference, refusal=refusal, currency=catalog.currency)
    return Scenario(
        env_id=ENV_ID, difficulty=difficulty, seed=seed, today=today, catalog=catalog.ref(), axes=axes,
        customer=customer, orders=tuple(orders), browsing_history=make_browsing_history(rng, catalog, None),
        stock_changes=stock_changes, account=account, policy=policy,
        system_prompt=account_system_prompt(catalog.currency), opening_message=add_typos(rng, text, axes.p_noise),
        goal=goal,
    )
