"""The customer's account, for the environments that change orders (issue 32): saved addresses,
payment methods with balances, the orders paid and shipped through them, the store's rules for
changing and exchanging, and the variants a line can become.

Shared by the order-change and exchange generators (`verishop/envs/change`, `verishop/envs/exchange`);
every draw comes from the generator's seeded `rng`.
"""

from __future__ import annotations

import random
from datetime import date, timedelta

from verishop.scenarios.catalog.reader import CatalogReader, Product
from verishop.scenarios.household import faker, make_order, make_order_with_status, noun, say_date
from verishop.scenarios.models import (Account, Address, Axes, Customer, Order, PaymentMethod, PolicyClause,
                                       StorePolicy)
from verishop.scenarios.taxonomy import category

_CARD_BRANDS = ("Visa", "Mastercard", "Amex")


def make_account(rng: random.Random, customer: Customer) -> Account:
    """Two or three saved addresses (the first, in the customer's city, the default) and two to four
    payment methods: a card, maybe a second card, a gift card with a balance, maybe store credit."""
    fake = faker()
    fake.seed_instance(rng.getrandbits(32))
    addresses = []
    for i in range(rng.randint(2, 3)):
        addresses.append(Address(address_id=f"AD{rng.randrange(10**6):06d}", street=fake.street_address(),
                                 city=customer.city if i == 0 else fake.city(), zip=f"{rng.randrange(10**5):05d}",
                                 default=i == 0))
    cards = rng.sample(_CARD_BRANDS, k=rng.randint(1, 2))
    methods = [PaymentMethod(payment_id=f"PM{rng.randrange(10**6):06d}", kind="card",
                             label=f"{brand} ending {rng.randrange(10**4):04d}") for brand in cards]
    methods.append(PaymentMethod(payment_id=f"PM{rng.randrange(10**6):06d}", kind="gift_card", label="gift card",
                                 balance_cents=rng.randrange(20, 200) * 100))
    if rng.random() < 0.5:
        methods.append(PaymentMethod(payment_id=f"PM{rng.randrange(10**6):06d}", kind="store_credit",
                                     label="store credit", balance_cents=rng.randrange(0, 60) * 100))
    ids = [a.address_id for a in addresses] + [m.payment_id for m in methods]
    if len(set(ids)) < len(ids):  # one in a million: make them distinct, deterministically
        addresses = [a.model_copy(update={"address_id": f"AD{i:06d}"}) for i, a in enumerate(addresses)]
        methods = [m.model_copy(update={"payment_id": f"PM{i:06d}"}) for i, m in enumerate(methods)]
    return Account(addresses=tuple(addresses), payment_methods=tuple(methods))


def with_account(rng: random.Random, orders: list[Order], account: Account) -> tuple[Order, ...]:
    """The orders, each shipped to one of the account's addresses (mostly the default) and paid by
    one of its cards or its gift card."""
    out = []
    for order in orders:
        address = account.addresses[0] if rng.random() < 0.7 else rng.choice(account.addresses)
        payment = rng.choice([m for m in account.payment_methods if m.kind != "store_credit"])
        out.append(order.model_copy(update={"address_id": address.address_id, "payment_id": payment.payment_id}))
    return tuple(out)


def order_total_cents(order: Order) -> int:
    return sum(line.quantity * line.unit_price_cents for line in order.lines)


# --- the store's rules ----------------------------------------------------------------------

CHANGE_CLAUSE_ID = "POL-ORDER-CHANGE"
EXCHANGE_CLAUSE_ID = "POL-EXCHANGE"


def with_change_rules(policy: StorePolicy) -> StorePolicy:
    """The policy with its clauses on changing and exchanging orders (an account shop's): what the
    order-change and exchange environments are judged by. Added after the others, so every other
    clause keeps its text and place."""
    window = policy.return_window_days
    clauses = (
        PolicyClause(policy_id=CHANGE_CLAUSE_ID, topic="orders", title="Changing an order",
                     text="While an order is still processing it can be cancelled, shipped to another address, "
                          "or have items switched to another size or colour of the same product (all items in one "
                          "change, once per order); the price difference goes to the order's payment method. Once "
                          "an order has shipped it cannot be changed or cancelled: it must be returned instead "
                          "after delivery."),
        PolicyClause(policy_id=EXCHANGE_CLAUSE_ID, topic="returns", title="Exchanges",
                     text=f"A delivered item can be exchanged once per order for another size or colour of the same "
                          f"product, within its return window ({window} days of delivery, "
                          f"{policy.electronics_return_window_days} for electronics). Final sale items cannot be "
                          f"exchanged. The price difference is charged, or refunded, to the payment method the "
                          f"customer chooses."),
    )
    if any(c.policy_id == CHANGE_CLAUSE_ID for c in policy.clauses):
        return policy
    return policy.model_copy(update={"clauses": (*policy.clauses, *clauses)})


# --- variants ---------------------------------------------------------------------------------


def variant_attribute_of(catalog: CatalogReader, product: Product) -> str | None:
    """The one option `product`'s variant group differs on (None when it has no siblings, or they
    differ on several: an imported shop's size-and-colour groups are left to the cart)."""
    siblings = catalog.group(product.group_id)
    if len(siblings) < 2:
        return None
    cat = category(product.category_id)
    differing = cat.differing_options([s.attrs for s in siblings])
    options = list(differing) if differing else [cat.variant_attribute] if cat.variant_attribute else []
    if len(options) != 1 or options[0] not in product.attrs:
        return None
    return options[0]


def draw_with_variants(rng: random.Random, catalog: CatalogReader, draws: int, *, min_stock: int,
                       siblings_needed: int = 1, allow: set[str] | None = None, deny: frozenset[str] = frozenset(),
                       in_stock: bool = True, avoid_groups: frozenset[str] | set[str] = frozenset()
                       ) -> tuple[Product, str, list[Product]] | None:
    """A product drawn (like `catalog.random_product`) until one comes in another value of its one
    variant option with at least `siblings_needed` such siblings holding `min_stock` units, outside
    `avoid_groups`: (the product, its option, those siblings); None after `draws` draws."""
    for _ in range(draws):
        product = catalog.random_product(rng, allow=allow, deny=deny, in_stock=in_stock)
        if product.group_id in avoid_groups:
            continue
        attribute = variant_attribute_of(catalog, product)
        if attribute is None:
            continue
        others = [s for s in siblings_by_value(catalog, product, attribute) if s.stock >= min_stock]
        if len(others) >= siblings_needed:
            return product, attribute, others
    return None


def siblings_by_value(catalog: CatalogReader, product: Product, attribute: str) -> list[Product]:
    """`product`'s siblings with a value of `attribute` of their own (distinct from its and from
    each other's: a customer's words name one)."""
    seen = {product.attrs.get(attribute)}
    out = []
    for sibling in catalog.group(product.group_id):
        value = sibling.attrs.get(attribute)
        if sibling.product_id != product.product_id and value and value not in seen:
            seen.add(value)
            out.append(sibling)
    return out


# --- drawing again -----------------------------------------------------------------------------

MAX_REDRAWS = 20
"""Draws of an order-change or exchange request before a catalog is said to be unable to support it."""


class Redraw(Exception):
    """A draw that cannot stand (the customer's words would fit another order): draw again."""


def settle_history(rng: random.Random, orders: list[Order], account: Account) -> tuple[Order, list[Order]]:
    """The history drawn with its target first, on the account (each order shipped and paid
    through it) and sorted by day: (the target, every order). `Redraw` when two orders share an ID."""
    if len({o.order_id for o in orders}) < len(orders):
        raise Redraw("order IDs collided")
    settled = list(with_account(rng, orders, account))
    target = settled[0]
    settled.sort(key=lambda o: (o.placed_on, o.order_id))
    return target, settled


def order_description(orders: list[Order], target: Order, item: str) -> str:
    """How the customer names the target: "my order of March 3 with the yoga mat". `Redraw` when
    those words fit another order too."""
    fitting = [o for o in orders if o.placed_on == target.placed_on and any(noun(line) == item for line in o.lines)]
    if fitting != [target]:
        raise Redraw("the description fits other orders")
    return f"my order of {say_date(target.placed_on)} with the {item}"


def history_with_lookalike(rng: random.Random, catalog: CatalogReader, axes: Axes, today: date, target: Order,
                           product: Product, account: Account) -> tuple[Order, list[Order]]:
    """A delivered `target` in a history of `axes.order_history` orders on other days: the first of
    them a look-alike (the same kind of item as `product`, delivered another day), the others drawn
    from the catalog; settled on the account (`settle_history`). The target as settled, and all."""
    orders = [target]
    taken = {target.placed_on}
    for i in range(axes.order_history - 1):
        day = today - timedelta(days=rng.randint(3, 100))
        if day in taken:
            continue
        taken.add(day)
        if i == 0:  # the look-alike: the same kind of item, delivered, another day
            same = catalog.random_product(rng, allow={product.category_id}, in_stock=False)
            orders.append(make_order_with_status(rng, [same], day, "delivered",
                                                 min(today - timedelta(days=1), day + timedelta(days=3))))
        else:
            orders.append(make_order(rng, catalog, today, (today - day).days))
    return settle_history(rng, orders, account)
