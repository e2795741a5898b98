"""Other customers of the shop, drawn for an episode: neighbours of the customer (its city) who
bought what it bought, each with an email, a street address and orders of their own whose IDs,
line IDs and tracking numbers are the world's only (never one the scenario already holds). At high
difficulty their order IDs look like the customer's own (one digit changed, or two swapped).
"""

from __future__ import annotations

import random
import re
from datetime import date, timedelta

from verishop.scenarios.household import CARRIERS, faker
from verishop.scenarios.models import Order, OrderLine, OtherCustomer, Scenario

LOOKALIKE_FROM_DIFFICULTY = 9
_ID = re.compile(r"\b(?:W\d{7}|LN\d{8}|C\d{7}|1Z\d{12})\b")
_STATUSES = ("shipped", "in_transit", "delivered")


class Taken:
    """Every ID the scenario holds, and those drawn since: a new one is never one of them."""

    def __init__(self, scenario: Scenario):
        self.ids = set(_ID.findall(scenario.model_dump_json()))

    def new(self, rng: random.Random, prefix: str, digits: int) -> str:
        while True:
            candidate = f"{prefix}{rng.randrange(10 ** digits):0{digits}d}"
            if candidate not in self.ids:
                self.ids.add(candidate)
                return candidate

    def lookalike(self, rng: random.Random, own: str) -> str | None:
        """`own` with one digit changed or two neighbouring different digits swapped, if free."""
        digits = list(own[1:])
        for _ in range(20):
            changed = digits.copy()
            i = rng.randrange(len(digits))
            if rng.random() < 0.5 and i + 1 < len(digits) and digits[i] != digits[i + 1]:
                changed[i], changed[i + 1] = changed[i + 1], changed[i]
            else:
                changed[i] = rng.choice([d for d in "0123456789" if d != digits[i]])
            candidate = own[0] + "".join(changed)
            if candidate not in self.ids:
                self.ids.add(candidate)
                return candidate
        return None


def _order(rng: random.Random, taken: Taken, lines: list[OrderLine], placed_on: date, status: str,
           order_id: str) -> Order:
    """An order of the same products as `lines` (new line IDs, quantities of its own)."""
    transit_days = rng.randint(2, 6)
    delivered = placed_on + timedelta(days=transit_days) if status == "delivered" else None
    return Order(
        order_id=order_id, placed_on=placed_on, status=status, carrier=rng.choice(CARRIERS),
        tracking_number=taken.new(rng, "1Z", 12), eta=placed_on + timedelta(days=transit_days),
        delivered_on=delivered,
        lines=tuple(line.model_copy(update={"line_id": taken.new(rng, "LN", 8), "quantity": rng.choice((1, 1, 2))})
                    for line in lines))


def draw_others(rng: random.Random, scenario: Scenario, count: int,
                spouse: str | None = None) -> tuple[OtherCustomer, ...]:
    """`count` other customers of the customer's city, each with one or two orders of the
    customer's own products (shipped or later, so each has a tracking number). With `spouse`
    ("wife" or "husband"), the first is the customer's: its surname, a first name to fit, and an
    address of its own in the city."""
    fake = faker()
    fake.seed_instance(rng.getrandbits(32))
    taken = Taken(scenario)
    own = scenario.customer
    own_lines = [line for o in scenario.orders for line in o.lines]
    own_streets = {a.street.lower() for a in (scenario.account.addresses if scenario.account else ())}
    names = {own.name}
    people = []
    while len(people) < count:
        first = {"wife": fake.first_name_female, "husband": fake.first_name_male}.get(
            spouse if not people else "", fake.first_name)()
        last = own.name.split()[-1] if spouse and not people else fake.last_name()
        name, street = f"{first} {last}", f"{fake.building_number()} {fake.street_name()}"
        if name in names or first == own.name.split()[0] or street.lower() in own_streets:
            continue
        names.add(name)
        orders = []
        for _ in range(rng.randint(1, 2)):
            lines = rng.sample(own_lines, rng.randint(1, min(2, len(own_lines))))
            mine = next(o for o in scenario.orders if lines[0] in o.lines)
            order_id = None
            if scenario.difficulty >= LOOKALIKE_FROM_DIFFICULTY:
                order_id = taken.lookalike(rng, mine.order_id)
            placed_on = scenario.today - timedelta(days=rng.randint(1, 60))
            orders.append(_order(rng, taken, lines, placed_on, rng.choice(_STATUSES),
                                 order_id or taken.new(rng, "W", 7)))
        people.append(OtherCustomer(
            customer_id=taken.new(rng, "C", 7), name=name,
            email=f"{first}.{last}{rng.randrange(10, 100)}@example.com".lower().replace("'", ""),
            street=street, city=own.city, zip=f"{rng.randrange(10 ** 5):05d}", orders=tuple(orders)))
    return tuple(people)
