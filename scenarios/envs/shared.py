"""What chained requests share. A JOURNEY strings several environments' requests into one
conversation with one customer, on one day, under one store policy; its generator passes a
`SharedWorld` to each sub-generator, which then uses it instead of drawing its own.

The draws are made either way, so a generator's other choices do not depend on whether it
runs alone or inside a journey.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta

from scenarios.catalog.reader import CatalogReader
from scenarios.household import make_customer
from scenarios.models import Customer, StockChange, StorePolicy
from scenarios.policy import make_policy

EPOCH = date(2026, 1, 1)
# The out-of-stock axis draws its sell-outs among at most 4 × 32 products of the category: all of
# a small category's, a uniform sample of a large one's (at 2M products a category has up to
# 80,000, and selling out half of them made a 1 MB scenario and a 1 s generation).
SELL_OUT_RUNS, SELL_OUT_RUN_ROWS = 4, 32


@dataclass(frozen=True)
class SharedWorld:
    today: date
    customer: Customer
    policy: StorePolicy


def pick_today(rng: random.Random, shared: SharedWorld | None = None) -> date:
    drawn = EPOCH + timedelta(days=rng.randrange(365))
    return shared.today if shared else drawn


def pick_customer(rng: random.Random, today: date, shared: SharedWorld | None = None) -> Customer:
    drawn = make_customer(rng, today)
    return shared.customer if shared else drawn


def pick_policy(rng: random.Random, shared: SharedWorld | None = None) -> StorePolicy:
    drawn = make_policy(rng)
    return shared.policy if shared else drawn


def sell_outs(rng: random.Random, catalog: CatalogReader, category_id: str, p_out_of_stock: float,
              keep: frozenset[str] = frozenset()) -> tuple[StockChange, ...]:
    """The out-of-stock axis: each in-stock product of a bounded uniform sample of the category
    (`catalog.sample_category`), `keep` aside, sold out with probability `p_out_of_stock`, fitting
    the goal or not alike, so that "sold out" says nothing about "fits".

    The sample is drawn from a generator of its own, seeded by one draw of `rng`: the rest of the
    scenario does not depend on how many products the category has.
    """
    draw = random.Random(rng.getrandbits(64))
    if p_out_of_stock <= 0:
        return ()
    sample = catalog.sample_category(draw, category_id, SELL_OUT_RUNS, SELL_OUT_RUN_ROWS)
    return tuple(StockChange(product_id=p.product_id, stock=0) for p in sample
                 if p.product_id not in keep and p.stock > 0 and draw.random() < p_out_of_stock)
