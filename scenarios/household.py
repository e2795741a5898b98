"""The customer's side of a world: who they are, what they ordered, what they browsed."""
from __future__ import annotations

import random
import threading
from datetime import date, timedelta
from collections import OrderedDict
from collections.abc import Callable, Sequence
from itertools import accumulate

from faker import Faker, Generator
from faker.providers import BaseProvider

from verishop.scenarios.catalog.reader import CatalogReader, Product
from verishop.scenarios.models import Customer, Order, OrderLine
from verishop.scenarios.taxonomy import category


CARRIERS = ("UPS", "FedEx", "USPS", "DHL")


_per_thread = threading.local()


def _kept_sums(elements: OrderedDict) -> tuple[tuple, list[float]]:
    kept = _SUMS.get(id(elements))
    if kept is None or kept[0] is not elements:
        kept = _SUMS[id(elements)] = (elements, (tuple(elements), list(accumulate(elements.values()))))
    return kept[1]


_SUMS: dict[int, tuple[OrderedDict, tuple[tuple, list[float]]]] = {}


def _summing_once(provider: BaseProvider) -> Callable[..., Sequence]:
    """`provider.random_elements`, drawing the same values with each weighted list's running sums kept.

    For one weighted element (a name from Faker's OrderedDict of names and frequencies) Faker calls
    `random.choices(names, weights=...)`, which copies and sums thousands of weights on every call;
    given those sums (`cum_weights`), `choices` makes the same draw from the same random number.
    Faker's data lists never change, so the sums are kept per list. Any other draw is Faker's own."""
    original = provider.random_elements
    weighted = provider.__use_weighting__

    def random_elements(elements=("a", "b", "c"), length=None, unique=False, use_weighting=None):
        if (length == 1 and not unique and type(elements) is OrderedDict
                and (weighted if use_weighting is None else use_weighting)):
            names, sums = _kept_sums(elements)
            return provider.generator.random.choices(names, cum_weights=sums, k=1)
        return original(elements, length, unique, use_weighting)

    return random_elements


def faker() -> Faker:
    # Building a Faker is slow (tens of ms); reseeding one is cheap. One per thread: scenarios
    # are generated in several threads at once (mcp_server/hub.py), each reseeding its own.
    fake = getattr(_per_thread, "faker", None)
    if fake is None:
        fake = _per_thread.faker = Faker("en_US")
        for provider in fake.get_providers():
            provider.random_elements = _summing_once(provider)
    return fake


def _generator() -> Generator:
    """`faker()`'s one generator (it has one locale), which the proxy passes every call on to:
    called directly, a call skips the proxy's two attribute hooks (Python functions both)."""
    generator = getattr(_per_thread, "generator", None)
    if generator is None:
        (generator,) = faker().factories
        _per_thread.generator = generator
    return generator


def make_customer(rng: random.Random, today: date) -> Customer:
    fake = _generator()
    fake.seed_instance(rng.getrandbits(32))
    first, last = fake.first_name(), fake.last_name()
    return Customer(
        customer_id=f"C{rng.randrange(10**7):07d}",
        name=f"{first} {last}",
        email=f"{first}.{last}{rng.randrange(100)}@example.com".lower().replace("'", ""),
        city=fake.city(),
        member_since=today - timedelta(days=rng.randrange(60, 3000)),
    )


def _status_for_age(rng: random.Random, age_days: int) -> str:
    if age_days <= 1:
        return "processing"
    if age_days <= 3:
        return rng.choice(("shipped", "in_transit"))
    if age_days <= 6:
        return rng.choice(("in_transit", "delivered"))
    return "cancelled" if rng.random() < 0.05 else "delivered"


def make_order(rng: random.Random, catalog: CatalogReader, today: date, age_days: int,
               products: list[Product] | None = None) -> Order:
    placed_on = today - timedelta(days=age_days)
    status = _status_for_age(rng, age_days)
    if products is None:
        products = [catalog.random_product(rng, deny=catalog.denied_category_ids) for _ in range(rng.randint(1, 3))]
    lines = tuple(
        OrderLine(line_id=f"LN{rng.randrange(10**8):08d}", product_id=p.product_id, title=p.title,
                  category_id=p.category_id, quantity=rng.choice((1, 1, 1, 2)), unit_price_cents=p.price_cents)
        for p in products
    )
    shipped = status in ("shipped", "in_transit", "delivered")
    transit_days = rng.randint(2, 6)
    return Order(
        order_id=f"W{rng.randrange(10**7):07d}",
        placed_on=placed_on,
        status=status,
        carrier=rng.choice(CARRIERS) if shipped else None,
        tracking_number=f"1Z{rng.randrange(10**12):012d}" if shipped else None,
        eta=placed_on + timedelta(days=transit_days) if status != "cancelled" else None,
        delivered_on=placed_on + timedelta(days=min(transit_days, age_days)) if status == "delivered" else None,
        lines=lines,
    )


def make_order_history(rng: random.Random, catalog: CatalogReader, today: date, count: int) -> tuple[Order, ...]:
    ages = sorted(rng.sample(range(0, 120), count), reverse=True)
    return tuple(make_order(rng, catalog, today, age) for age in ages)


def make_browsing_history(rng: random.Random, catalog: CatalogReader, category_id: str | None) -> tuple[str, ...]:
    seen = [catalog.random_product(rng, deny=catalog.denied_category_ids, in_stock=False) for _ in range(rng.randint(2, 5))]
    if category_id is not None:
        seen.append(catalog.random_product(rng, allow={category_id}, in_stock=False))
    rng.shuffle(seen)
    return tuple(p.product_id for p in seen)


def say_date(day: date) -> str:
    return f"{day:%B} {day.day}"


def noun(product: Product | OrderLine) -> str:
    """What a customer calls an item: the longest category noun in its title ("yoga mat")."""
    cat = category(product.category_id)
    nouns = [n for n in cat.nouns if n.lower() in product.title.lower()]
    if nouns:
        return max(nouns, key=len).lower()
    if product.category_id.startswith("shop_") and cat.nouns:
        return cat.nouns[0].lower()  # an imported shop's title may not name its kind: "a t-shirt", not "a t-shirts"
    return cat.name.lower()


def make_order_with_status(rng: random.Random, products: list[Product], placed_on: date, status: str,
                           delivered_on: date | None = None) -> Order:
    """An order of `products` with the status given (household orders draw it from their age)."""
    transit_days = rng.randint(2, 6)
    if status == "delivered" and delivered_on is None:
        delivered_on = placed_on + timedelta(days=transit_days)
    lines = tuple(
        OrderLine(line_id=f"LN{rng.randrange(10**8):08d}", product_id=p.product_id, title=p.title,
                  category_id=p.category_id, quantity=rng.choice((1, 1, 1, 2)), unit_price_cents=p.price_cents)
        for p in products
    )
    shipped = status in ("shipped", "in_transit", "delivered")
    return Order(
        order_id=f"W{rng.randrange(10**7):07d}", placed_on=placed_on, status=status,
        carrier=rng.choice(CARRIERS) if shipped else None,
        tracking_number=f"1Z{rng.randrange(10**12):012d}" if shipped else None,
        eta=None if status == "cancelled" else (delivered_on or placed_on + timedelta(days=transit_days)),
        delivered_on=delivered_on if status == "delivered" else None,
        lines=lines,
    )
