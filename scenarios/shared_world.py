"""What chained requests share. A JOURNEY strings several environments' requests into one
conversation with one customer, on one day, under one store policy; its generator passes a
`SharedWorld` to each sub-generator, which then uses it instead of drawing its own: the day, the
customer, the policy and, for the requests that change orders, the customer's account (its
addresses and payment methods), so that every order of one journey ships to and is paid from one
account.

The draws are made either way, so a generator's other choices do not depend on whether it
runs alone or inside a journey.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

from verishop.scenarios.accounts import make_account
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.household import make_customer
from verishop.scenarios.models import Account, Customer, SellOut, StorePolicy
from verishop.scenarios.money import USD
from verishop.scenarios.policy import make_policy
from verishop.scenarios.shop_policy import store_policy
from verishop.scenarios.stock import sell_out_rule

EPOCH = date(2026, 1, 1)


@dataclass(frozen=True)
class SharedWorld:
    today: date
    customer: Customer
    policy: StorePolicy
    account: Account | None = None


def pick_today(rng: random.Random, shared: SharedWorld | None = None) -> date:
    drawn = EPOCH + timedelta(days=rng.randrange(365))
    return shared.today if shared else drawn


def pick_customer(rng: random.Random, today: date, shared: SharedWorld | None = None) -> Customer:
    drawn = make_customer(rng, today)
    return shared.customer if shared else drawn


def pick_account(rng: random.Random, customer: Customer, shared: SharedWorld | None = None) -> Account:
    """The journey's account, else one drawn for `customer` (drawn either way)."""
    drawn = make_account(rng, customer)
    return shared.account if shared is not None and shared.account is not None else drawn


def pick_policy(rng: random.Random, shared: SharedWorld | None = None,
                catalog: CatalogReader | None = None) -> StorePolicy:
    """The journey's policy, else an imported shop's own (its catalog's policy file), else one drawn."""
    currency = catalog.currency if catalog is not None else USD
    drawn = make_policy(rng, currency)
    if shared:
        return shared.policy
    if catalog is not None and catalog.shop_policy:
        return store_policy(catalog.shop_policy, currency)
    return drawn


def sell_outs(rng: random.Random, category_id: str, p_out_of_stock: float,
              keep: frozenset[str] = frozenset()) -> tuple[SellOut, ...]:
    """The out-of-stock axis: a rule selling out `p_out_of_stock` of the category's products
    (`verishop.scenarios.stock`), `keep` aside, fitting the goal or not alike, so that "sold out" says
    nothing about "fits". The rule's hash comes from one draw of `rng`, made even when nothing
    is sold out, so the rest of the scenario does not depend on the axis."""
    draw = random.Random(rng.getrandbits(64))
    if p_out_of_stock <= 0:
        return ()
    return (sell_out_rule(draw, category_id, p_out_of_stock, keep),)
