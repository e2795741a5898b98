"""Whether a product meets a customer's constraint, and how a constraint reads aloud.

Shared by the generator (to build feasible goals), the simulated customer and the verifier,
so all three agree on what "meets the constraint" means.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from verishop.scenarios.catalog.reader import Product
from verishop.scenarios.difficulty import numeric_slack
from verishop.scenarios.models import Constraint
from verishop.scenarios.money import written
from verishop.scenarios.taxonomy import category


def satisfies(product: Product, c: Constraint) -> bool:
    match c.kind:
        case "category":
            return product.category_id == c.value
        case "brand":
            return product.brand == c.value
        case "attribute":
            return product.attrs.get(c.attribute or "") == c.value
        case "price_max":
            return product.price_cents <= int(c.value)
        case "rating_min":
            return product.rating >= float(c.value)
        case "ship_days_max":
            return product.ship_days <= int(c.value)
        case "in_stock":
            return product.stock > 0
    raise ValueError(f"unknown constraint kind {c.kind!r}")


def admits_all(constraints: tuple[Constraint, ...]) -> Callable[[Product], bool]:
    """`satisfies` of every constraint, as one test over many products: each constraint's figure is
    read once, not once a product (a ranking asks it of a whole category)."""
    tests = [_test(c) for c in constraints]

    def admits(product: Product) -> bool:
        for test in tests:
            if not test(product):
                return False
        return True

    return admits


def _test(c: Constraint) -> Callable[[Product], bool]:
    value = c.value
    match c.kind:
        case "category":
            return lambda p: p.category_id == value
        case "brand":
            return lambda p: p.brand == value
        case "attribute":
            attribute = c.attribute or ""
            return lambda p: p.attrs.get(attribute) == value
        case "price_max":
            cents = int(value)
            return lambda p: p.price_cents <= cents
        case "rating_min":
            stars = float(value)
            return lambda p: p.rating >= stars
        case "ship_days_max":
            days = int(value)
            return lambda p: p.ship_days <= days
        case "in_stock":
            return lambda p: p.stock > 0
    return lambda p: satisfies(p, c)  # raises, as `satisfies` does, for a kind it does not know


def share_met(product: Product, constraints: tuple[Constraint, ...]) -> float:
    if not constraints:
        return 1.0
    return sum(satisfies(product, c) for c in constraints) / len(constraints)


def describe(c: Constraint) -> str:
    """The customer's own words for a constraint ("under $40", "under €40", "in Black"); a price
    in the constraint's currency."""
    match c.kind:
        case "category":
            return category(str(c.value)).name.lower()
        case "brand":
            return f"made by {c.value}"
        case "attribute":
            return f"{str(c.attribute).replace('_', ' ')} {c.value}"
        case "price_max":
            return f"under {written(c.currency, f'{int(c.value) / 100:.0f}')}"
        case "rating_min":
            return f"rated at least {float(c.value):.1f} stars"
        case "ship_days_max":
            days = int(c.value)
            return "delivered by tomorrow" if days == 1 else f"delivered within {days} days"
        case "in_stock":
            return "in stock"
    raise ValueError(f"unknown constraint kind {c.kind!r}")


def describe_violation(product: Product, c: Constraint) -> str:
    """What the customer says when a recommended product misses a constraint: always the
    constraint's own words (`describe`), so that the verifier sees it was told."""
    match c.kind:
        case "category":
            return f"that's not a {category(str(c.value)).name.lower()[:-1]}, is it? I'm after {describe(c)}."
        case "brand":
            return f"that one is {product.brand}, but I wanted it {describe(c)}."
        case "attribute":
            got = product.attrs.get(c.attribute or "", "something else")
            return f"the {str(c.attribute).replace('_', ' ')} is {got}, I need {describe(c)}."
        case "price_max":
            return f"that's {written(c.currency, f'{product.price_cents / 100:.2f}')}, I want to stay {describe(c)}."
        case "rating_min":
            return f"it's only rated {product.rating:.1f}; I'd like {describe(c)}."
        case "ship_days_max":
            return f"it ships in {product.ship_days} days, I need it {describe(c)}."
        case "in_stock":
            return "it's sold out."
    raise ValueError(f"unknown constraint kind {c.kind!r}")


def constraint_sql(c: Constraint) -> tuple[str, list[object]]:
    """A condition over `products` true exactly for the products meeting `c` (stock aside for
    "in_stock", which an episode may change)."""
    match c.kind:
        case "category":
            return "category_id = ?", [c.value]
        case "brand":
            return "brand = ?", [c.value]
        case "attribute":
            return "json_extract(attrs, ?) = ?", [f"$.{c.attribute}", c.value]
        case "price_max":
            return "price_cents <= ?", [c.value]
        case "rating_min":
            return "rating >= ?", [c.value]
        case "ship_days_max":
            return "ship_days <= ?", [c.value]
        case "in_stock":
            return "stock > 0", []
    raise ValueError(f"unknown constraint kind {c.kind!r}")


def feasible_sql(constraints: tuple[Constraint, ...]) -> tuple[str, list[object]]:
    """A WHERE clause over `products` selecting exactly the products meeting every constraint
    (stock aside, which an episode may change)."""
    where: list[str] = []
    args: list[object] = []
    for c in constraints:
        sql, values = constraint_sql(c)
        where.append(sql)
        args += values
    return (" AND ".join(where) or "1"), args


# The catalog field each constraint kind reads: none is built on a field an imported catalog lacks.
CONSTRAINT_FIELDS = {"brand": "brand", "rating_min": "rating", "ship_days_max": "ship_days"}


def candidate_constraints(anchor: Product, d: int, rng: random.Random, absent: frozenset[str] = frozenset(), *,
                          currency: str) -> list[Constraint]:
    """The constraints the anchor meets, but none on a field in `absent` (the draws are made anyway);
    a price cap in `currency`, the catalog's."""
    return [Constraint(**fields) for fields in candidate_constraint_fields(anchor, d, rng, absent, currency=currency)]


def candidate_constraint_fields(anchor: Product, d: int, rng: random.Random, absent: frozenset[str] = frozenset(),
                                *, currency: str) -> list[dict[str, object]]:
    """`candidate_constraints` as the fields of each constraint, with the same draws: a generator
    that keeps only a few of them builds just those, each once with its `stated` flag (a
    constraint model costs far more than its fields)."""
    slack = numeric_slack(d)
    price_cap = math.ceil(anchor.price_cents * (1 + slack * rng.random()) / 100) * 100
    candidates: list[dict[str, object]] = [
        {"kind": "brand", "value": anchor.brand},
        {"kind": "price_max", "value": price_cap, "currency": currency},
        {"kind": "rating_min", "value": max(1.0, math.floor(anchor.rating * 2) / 2)},
        {"kind": "ship_days_max", "value": anchor.ship_days + rng.choice((0, 1, 2))},
    ]
    candidates += [{"kind": "attribute", "attribute": k, "value": v} for k, v in sorted(anchor.attrs.items())]
    return [c for c in candidates if CONSTRAINT_FIELDS.get(c["kind"]) not in absent] if absent else candidates
