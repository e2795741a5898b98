"""Order status (STATUS): "where is my order?" The agent must find the order the customer
means among H = 1 + ⌊d/2⌋ orders and tell its status.

The customer never says the order ID. With p = σ((d − 2)/1.5) the order is referred to
indirectly ("the order with the yoga mat", "the order I placed around March 3", "the order I
placed about 3 weeks ago", "my most recent order", "the order before my most recent one"; when
no single clue singles it out, item and day together, else the exact day); otherwise plainly,
by its date and items. Whatever the wording, the generator checks that exactly one order of
the history fits it; the customer says it plainly when asked.

What changed in each version, and why: CHANGELOG.md (the registry in `verishop/envs/__init__.py` holds
the current id).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from datetime import date, timedelta

from verishop.scenarios.catalog.reader import CatalogReader, Product
from verishop.scenarios.difficulty import axes_for
from verishop.scenarios.shared_world import SharedWorld, pick_customer, pick_policy, pick_today
from verishop.scenarios.household import make_browsing_history, make_order_with_status, noun, say_date
from verishop.scenarios.models import Order, OrderLine, Scenario, StatusGoal
from verishop.scenarios.noise import add_typos
from verishop.scenarios.prompts import system_prompt
from verishop.scenarios.rng import make_rng

ENV_ID = "status-v7"
# The random stream a seed draws from (v2 generates differently from v1, so a new stream).
SEED_STREAM = "status-v2"
MAX_AGE_DAYS = 120

STATUSES = ("processing", "shipped", "in_transit", "delivered", "cancelled")
# Days between placing the order and today that make each status plausible.
_AGE_DAYS = {"processing": (0, 1), "shipped": (1, 3), "in_transit": (2, 6), "delivered": (4, MAX_AGE_DAYS - 1),
             "cancelled": (1, MAX_AGE_DAYS - 1)}
# Two orders placed this close together are both "around" a date.
AROUND_DAYS = 3

_OPENINGS = ("Hi, where is {order}?", "Hello, can you tell me the status of {order}?",
             "Hey, what's happening with {order}?", "Hi there, I'm wondering where {order} is.")


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


# --- how the customer can refer to an order, and which orders fit each wording -------------

Fits = Callable[[Order], bool]


def _holds(line: OrderLine) -> Fits:
    """Orders holding the same kind of item as `line` (or one its name fits)."""
    name = noun(line)
    return lambda o: any(other.category_id == line.category_id or name in other.title.lower() for other in o.lines)


def _by_item(rng: random.Random, target: Order, orders: list[Order]) -> tuple[str, Fits] | None:
    """'the order with the yoga mat': an item whose kind is in no other order."""
    for line in rng.sample(target.lines, len(target.lines)):
        fits = _holds(line)
        if sum(map(fits, orders)) == 1:
            return f"the order with the {noun(line)}", fits
    return None


def _around(rng: random.Random, target: Order, today: date) -> tuple[date, Fits]:
    """A day near the target's (never after today), and the orders placed within a few days of it."""
    said = min(today, target.placed_on + timedelta(days=rng.choice((-1, 0, 1))))
    return said, lambda o: abs((o.placed_on - said).days) <= AROUND_DAYS


def _by_date(rng: random.Random, target: Order, orders: list[Order], today: date) -> tuple[str, Fits] | None:
    """'the order I placed around March 3': no other order within a few days of that date."""
    said, fits = _around(rng, target, today)
    return (f"the order I placed around {say_date(said)}", fits) if sum(map(fits, orders)) == 1 else None


def _by_item_and_date(rng: random.Random, target: Order, orders: list[Order], today: date
                      ) -> tuple[str, Fits] | None:
    """'the order with the yoga mat that I placed around March 3', when neither alone is enough."""
    said, near = _around(rng, target, today)
    for line in target.lines:
        fits: Fits = lambda o, line=line: _holds(line)(o) and near(o)
        if sum(map(fits, orders)) == 1:
            return f"the order with the {noun(line)} that I placed around {say_date(said)}", fits
    return None


def _by_age(rng: random.Random, target: Order, orders: list[Order], today: date) -> tuple[str, Fits] | None:
    """'the order I placed about 3 weeks ago' (the agent needs the shop's date)."""
    age = (today - target.placed_on).days
    said = age if age < 7 else age + rng.choice((-1, 0, 1))
    if said <= 1:
        words = "today" if said == 0 else "yesterday"
    elif said < 14:
        words = f"about {said} days ago"
    else:
        said = round(age / 7) * 7  # within AROUND_DAYS of the true age
        words = f"about {said // 7} weeks ago"
    fits: Fits = lambda o: abs((today - o.placed_on).days - said) <= AROUND_DAYS
    return (f"the order I placed {words}", fits) if sum(map(fits, orders)) == 1 else None


def _by_recency(rng: random.Random, target: Order, orders: list[Order]) -> tuple[str, Fits] | None:
    """'my most recent order' or 'the order before my most recent one'."""
    days = sorted((o.placed_on for o in orders), reverse=True)
    for rank, words in enumerate(("my most recent order", "the order before my most recent one")):
        if rank < len(days) and target.placed_on == days[rank]:
            return words, lambda o, day=days[rank]: o.placed_on == day
    return None


def _by_day(rng: random.Random, target: Order, orders: list[Order]) -> tuple[str, Fits] | None:
    return f"the order I placed on {say_date(target.placed_on)}", plain_fits(target)


def plain_description(order: Order) -> str:
    """Date and items: 'my order from March 3 with the yoga mat and the wall charger'."""
    items = [f"the {noun(line)}" for line in order.lines]
    listed = items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
    return f"my order from {say_date(order.placed_on)} with {listed}"


def plain_fits(target: Order) -> Fits:
    return lambda o: o.placed_on == target.placed_on


def describe(rng: random.Random, target: Order, orders: list[Order], today: date, indirect: bool
             ) -> tuple[str, bool]:
    """The words the opening uses for `target`, and whether they are indirect. Exactly one of
    `orders` fits them (an indirect wording that would fit several is not used)."""
    if indirect:
        ways = [_by_item, _by_recency, lambda r, t, o: _by_date(r, t, o, today),
                lambda r, t, o: _by_age(r, t, o, today)]
        rng.shuffle(ways)
        # When no single clue is enough (many recent orders of the same kind): item and day
        # together, else the exact day.
        for way in (*ways, lambda r, t, o: _by_item_and_date(r, t, o, today), _by_day):
            found = way(rng, target, orders)
            if found is not None and [o for o in orders if found[1](o)] == [target]:
                return found[0], True
    assert sum(map(plain_fits(target), orders)) == 1
    return plain_description(target), False


def _products(rng: random.Random, catalog: CatalogReader, count: int) -> list[Product]:
    return [catalog.random_product(rng, deny=catalog.denied_category_ids) for _ in range(count)]


def generate(difficulty: int, seed: int, catalog: CatalogReader, shared: SharedWorld | None = None) -> Scenario:
    rng = make_rng("scenario", SEED_STREAM, difficulty, seed)
    axes = axes_for(difficulty)
    today = pick_today(rng, shared)
    customer = pick_customer(rng, today, shared)
    policy = pick_policy(rng, shared, catalog)

    # Every order of the history is drawn the same way and the target is picked among them
    # afterwards, so neither its position, its age nor its status tells it apart (no prior
    # such as "the newest" or "the one not delivered yet"). As d grows, the history is longer
    # and more orders hold the same kind of item as an earlier one.
    p_same_kind = min(0.8, 0.1 * difficulty)
    free_ages = set(range(MAX_AGE_DAYS))
    orders: list[Order] = []
    for _ in range(axes.order_history):
        status = rng.choice([s for s in STATUSES if any(a in free_ages for a in range(_AGE_DAYS[s][0],
                                                                                          _AGE_DAYS[s][1] + 1))])
        lo, hi = _AGE_DAYS[status]
        age = rng.choice(sorted(a for a in free_ages if lo <= a <= hi))
        free_ages.discard(age)
        products = _products(rng, catalog, rng.randint(1, 3))
        if orders and rng.random() < p_same_kind:
            products[0] = catalog.random_product(rng, allow={rng.choice(rng.choice(orders).lines).category_id})
        orders.append(make_order_with_status(rng, products, today - timedelta(days=age), status))
    if len({o.order_id for o in orders}) < len(orders):
        raise RuntimeError(f"order IDs collided (d={difficulty}, seed={seed})")
    target = rng.choice(orders)

    indirect = rng.random() < _sigmoid((difficulty - 2) / 1.5)
    words, indirect = describe(rng, target, orders, today, indirect)
    opening = add_typos(rng, rng.choice(_OPENINGS).format(order=words), axes.p_noise)
    return Scenario(
        env_id=ENV_ID, difficulty=difficulty, seed=seed, today=today, catalog=catalog.ref(), axes=axes,
        customer=customer, orders=tuple(sorted(orders, key=lambda o: o.placed_on)),
        browsing_history=make_browsing_history(rng, catalog, None), stock_changes=(), policy=policy,
        system_prompt=system_prompt(catalog.currency), opening_message=opening,
        goal=StatusGoal(order_id=target.order_id, status=target.status, description=plain_description(target),
                        indirect=indirect),
    )
