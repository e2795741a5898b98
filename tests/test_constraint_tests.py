"""`admits_all` (a ranking's test of every constraint, each figure read once) must say what
`satisfies` says of each constraint, for every kind of constraint the generators draw."""

from __future__ import annotations

import random

from verishop.scenarios.constraints import admits_all, candidate_constraints, satisfies
from verishop.scenarios.models import Constraint


def test_admits_all_agrees_with_satisfies_on_every_drawn_constraint_and_product(reader) -> None:
    rng = random.Random(3)
    products = [reader.random_product(rng) for _ in range(400)]
    kinds_seen: set[str] = set()
    for trial in range(60):
        anchor = products[trial]
        drawn = candidate_constraints(anchor, trial % 13, rng, reader.absent_fields, currency=reader.currency)
        constraints = (Constraint(kind="category", value=anchor.category_id), *rng.sample(drawn, min(4, len(drawn))),
                       Constraint(kind="in_stock", value=True))
        kinds_seen.update(c.kind for c in constraints)
        admits = admits_all(constraints)
        for product in products:
            assert admits(product) == all(satisfies(product, c) for c in constraints), (trial, product.product_id)
    assert {"category", "brand", "attribute", "price_max", "rating_min", "in_stock"} <= kinds_seen
