"""Order changes (CHANGE): the customer wants one of its orders changed while it is processing:
cancelled (with a reason from the shop's list), a line switched to another size or colour of the
same product, shipped to another address; from d = 3, sometimes two changes at once (two lines,
which must go in one `modify_order_items` call, or a line and the address).

The order is named by what it holds and the day it was placed ("my order of March 3 with the
yoga mat"), never by ID; the description fits exactly one order (the generator checks). The
history holds H = 1 + ⌊d/2⌋ orders, built to tempt a wrong write: a look-alike order (the same
kind of item, another day) that has already shipped, other processing orders, older ones.

With p_refuse = min(0.35, 0.1 + 0.025·d) the order itself has shipped: it cannot be changed, and
the right answer is no write and the typed refusal `return_instead` (return it once delivered).
The cancellation's reason, the variant wanted and the address are each held back from the
opening with p_missing, told when the agent asks.

What changed in each version, and why: CHANGELOG.md.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

from verishop.envs.change.answers import REASON_WORDS
from verishop.scenarios.accounts import draw_with_variants, order_description, settle_history, siblings_by_value
from verishop.scenarios.catalog.reader import CatalogError, CatalogReader, Product
from verishop.scenarios.household import (faker, make_browsing_history, make_order, make_order_with_status, noun)
from verishop.scenarios.models import (Account, Address, Axes, Customer, LineChange, NewAddress, Order,
                                       OrderChangeGoal, Scenario, StorePolicy)
from verishop.scenarios.noise import add_typos
from verishop.scenarios.prompts import account_system_prompt
from verishop.scenarios.account_world import generate_on_account
from verishop.scenarios.shared_world import SharedWorld

ENV_ID = "change-v2"
# The task's draws are change-v1's: change-v2 added the minefields on top (issue 33).
SEED_STREAM = "change-v1"
PLANS = ("cancel", "modify", "address")
TWO_CHANGES = ("modify_two", "modify_address")
_GREETINGS = ("Hi!", "Hello!", "Hey there.", "Good morning.")
# Draws of a product with variants before an imported catalog is said to have too few.
MAX_DRAWS = 2000


def refuse_probability(d: int) -> float:
    return min(0.35, 0.1 + 0.025 * d)


def two_changes_probability(d: int) -> float:
    return 0.0 if d < 3 else min(0.5, 0.1 * (d - 2))


@dataclass(frozen=True)
class Switchable:
    """A product that comes in variants, and the sibling it is switched to."""

    product: Product
    attribute: str
    new: Product


def _switchable(rng: random.Random, catalog: CatalogReader, deny: frozenset[str], avoid_groups: set[str]) -> Switchable:
    drawn = draw_with_variants(rng, catalog, MAX_DRAWS, min_stock=2, deny=deny, avoid_groups=avoid_groups)
    if drawn is not None:
        product, attribute, others = drawn
        avoid_groups.add(product.group_id)
        return Switchable(product, attribute, rng.choice(others))
    raise CatalogError(f"{ENV_ID} needs products that come in variants (another size or colour in stock); this "
                       "catalog has too few")


def _plan(rng: random.Random, d: int) -> str:
    if rng.random() < two_changes_probability(d):
        return rng.choice(TWO_CHANGES)
    return rng.choice(PLANS)


def _other_products(rng: random.Random, catalog: CatalogReader, count: int, avoid: set[str]) -> list[Product]:
    out: list[Product] = []
    for _ in range(200):
        if len(out) >= count:
            break
        p = catalog.random_product(rng, deny=catalog.denied_category_ids)
        if p.category_id not in avoid:
            out.append(p)
    return out


def _lookalike(rng: random.Random, catalog: CatalogReader, main: Product, today: date, placed: date,
               status: str) -> Order:
    """An order holding the same kind of item as the target's main one, placed on another day."""
    same_kind = main
    for _ in range(50):
        same_kind = catalog.random_product(rng, allow={main.category_id}, in_stock=False)
        if same_kind.product_id != main.product_id:
            break
    return make_order_with_status(rng, [same_kind], placed, status)


def _address_change(rng: random.Random, account: Account, current: str) -> tuple[str | None, NewAddress]:
    """Where the order should ship instead: a saved address other than its own (with its ID), or
    a new one."""
    others = [a for a in account.addresses if a.address_id != current]
    if others and rng.random() < 0.6:
        chosen: Address = rng.choice(others)
        return chosen.address_id, NewAddress(street=chosen.street, city=chosen.city, zip=chosen.zip)
    fake = faker()
    fake.seed_instance(rng.getrandbits(32))
    return None, NewAddress(street=fake.street_address(), city=fake.city(), zip=f"{rng.randrange(10**5):05d}")


def generate(difficulty: int, seed: int, catalog: CatalogReader, shared: SharedWorld | None = None) -> Scenario:
    return generate_on_account(ENV_ID, difficulty, seed, catalog, shared, _draw, stream=SEED_STREAM)


def _draw(rng: random.Random, difficulty: int, seed: int, catalog: CatalogReader, axes: Axes, today: date,
          customer: Customer, policy: StorePolicy, account: Account) -> Scenario:
    plan = _plan(rng, difficulty)
    refuse = rng.random() < refuse_probability(difficulty)

    deny = catalog.denied_category_ids
    groups: set[str] = set()
    switches: list[Switchable] = []
    if plan.startswith("modify"):
        switches = [_switchable(rng, catalog, deny, groups) for _ in range(2 if plan == "modify_two" else 1)]
        main = switches[0].product
    else:
        main = catalog.random_product(rng, deny=deny)
    products = [s.product for s in switches] or [main]
    products += _other_products(rng, catalog, rng.randint(0, 1), {p.category_id for p in products})
    rng.shuffle(products)
    if refuse:
        placed = today - timedelta(days=rng.randint(1, 3))
        target = make_order_with_status(rng, products, placed, rng.choice(("shipped", "in_transit")))
    else:
        placed = today - timedelta(days=rng.randint(0, 1))
        target = make_order_with_status(rng, products, placed, "processing")

    orders = [target]
    taken = {placed}
    for i in range(axes.order_history - 1):
        if i == 0:
            # The look-alike, the same kind of item on another day: a processing order of today
            # beside a target that has shipped; a shipped one beside a processing target.
            day = today if refuse else placed - timedelta(days=rng.randint(2, 4))
            status = "processing" if refuse else rng.choice(("shipped", "in_transit"))
        else:
            day = today - timedelta(days=rng.randint(5, 90))
        if day in taken:
            continue
        taken.add(day)
        orders.append(_lookalike(rng, catalog, main, today, day, status) if i == 0
                      else make_order(rng, catalog, today, (today - day).days))
    target, orders = settle_history(rng, orders, account)

    item = noun(main)
    description = order_description(orders, target, item)

    asks: list[str] = []
    cancel_reason = None
    reason_stated = True
    line_changes: list[LineChange] = []
    address_id = None
    address = None
    address_stated = True
    if plan == "cancel":
        cancel_reason = rng.choice(tuple(REASON_WORDS))
        reason_stated = rng.random() >= axes.p_missing
        asks.append(f"Please cancel {description}." + (f" {REASON_WORDS[cancel_reason]}" if reason_stated else ""))
    if plan.startswith("modify"):
        parts = []
        for s in switches:
            line = next(line for line in target.lines if line.product_id == s.product.product_id)
            stated = rng.random() >= axes.p_missing
            value = s.new.attrs[s.attribute]
            others = tuple(o.attrs[s.attribute] for o in siblings_by_value(catalog, s.product, s.attribute)
                           if o.product_id != s.new.product_id)
            line_changes.append(LineChange(line_id=line.line_id, product_id=s.new.product_id, attribute=s.attribute,
                                           others=others,
                                           value=value, stated=stated))
            what = noun(s.product)
            said_attribute = s.attribute.replace("_", " ")
            parts.append(f"the {what} to {value}" if stated else f"the {what} to another {said_attribute}")
        asks.append(f"In {description}, could you switch {' and '.join(parts)}?" if len(parts) > 1 or plan ==
                    "modify_address" else f"Could you switch {parts[0]} in {description}?")
    if plan in ("address", "modify_address"):
        address_id, address = _address_change(rng, account, target.address_id or "")
        address_stated = rng.random() >= axes.p_missing
        where = address.words() if address_stated else ("my other address" if address_id else "a new address")
        asks.append(f"Please ship {description} to {where} instead." if plan == "address"
                    else f"And please ship it to {where} instead.")
    text = f"{rng.choice(_GREETINGS)} {' '.join(asks)}"
    prices = {line.line_id: line for line in target.lines}
    difference = sum((catalog.product(c.product_id).price_cents - prices[c.line_id].unit_price_cents)
                     * prices[c.line_id].quantity for c in line_changes)
    paid_by = account.payment(target.payment_id or "")
    if paid_by is not None and paid_by.balance_cents is not None and difference > 0:
        # A charge to a gift card or store credit could outrun its balance (in a journey, another
        # request may spend it first) and modify_order_items would refuse it: such an order was
        # paid by card. No draw: every other seed keeps its bytes.
        card = next(m for m in account.payment_methods if m.kind == "card")
        paid = target.model_copy(update={"payment_id": card.payment_id})
        orders = [paid if o.order_id == target.order_id else o for o in orders]
        target = paid
    goal = OrderChangeGoal(order_id=target.order_id, description=description, cancel_reason=cancel_reason,
                           reason_stated=reason_stated, line_changes=tuple(line_changes), address=address,
                           address_id=address_id, address_stated=address_stated,
                           refusal="return_instead" if refuse else None, difference_cents=difference,
                           currency=catalog.currency)
    return Scenario(
        env_id=ENV_ID, difficulty=difficulty, seed=seed, today=today, catalog=catalog.ref(), axes=axes,
        customer=customer, orders=tuple(orders), browsing_history=make_browsing_history(rng, catalog, None),
        stock_changes=(), account=account, policy=policy, system_prompt=account_system_prompt(catalog.currency),
        opening_message=add_typos(rng, text, axes.p_noise), goal=goal,
    )
