"""Which orders of a journey's merged history each request's words fit.

Every request about orders (a return, a status question, an order change, an exchange, a
compensation request) names its
target by a description its own generator checked against its own history: exactly one order (or
line) of that history fits it. A journey merges the histories of all its order requests into one,
so another request's orders could fit a description too ("my most recent order" when another
request brings a newer one). The generator draws again any request whose orders would make one
ambiguous (`ambiguous`).

A status question's words are one of several indirect clues (its item, its recency, a day near
it, its age) or its plain day, and the scenario keeps only the plain description: an order of
another request is taken to fit it when it fits any clue its words could have used (the same kind
of item, placed within NEAR_DAYS, or newer than a target among the two most recent of its own
history). That is stricter than the words, never looser.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from verishop.envs import get_env
from verishop.scenarios.catalog.reader import CatalogReader, Product
from verishop.scenarios.household import noun, say_date
from verishop.scenarios.models import (CompensationGoal, ExchangeGoal, Order, OrderChangeGoal, ReturnGoal, Scenario,
                                       StatusGoal)

ORDER_GOALS = (StatusGoal, ReturnGoal, OrderChangeGoal, ExchangeGoal, CompensationGoal)
# The requests whose answer is a write on their own order (or, for compensation, none when nothing
# is due): what they own, their gold world judges.
WRITE_GOALS = (OrderChangeGoal, ExchangeGoal, CompensationGoal)
# How far from its day an order still fits a status question's "around March 3" or "about 3 weeks
# ago": the day said is within 1 (3 for weeks) of the order's, and fits orders within 3 of that.
NEAR_DAYS = 6

Lookup = Callable[[str], Product | None]


def about_orders(sub: Scenario) -> bool:
    return isinstance(sub.goal, ORDER_GOALS)


def target_of(goal: StatusGoal | ReturnGoal | OrderChangeGoal | ExchangeGoal | CompensationGoal) -> str:
    """What the description must fit alone: the order, or the order's line (a late delivery is about
    the order, a price drop or damage about its line)."""
    whole_order = isinstance(goal, (StatusGoal, OrderChangeGoal)) or \
        (isinstance(goal, CompensationGoal) and goal.line_id is None)
    return goal.order_id if whole_order else f"{goal.order_id}/{goal.line_id}"


def fitting(sub: Scenario, orders: Sequence[Order], lookup: Lookup) -> list[str]:
    """The orders (order/line for a return or an exchange) of `orders` that `sub`'s request's words fit."""
    goal = sub.goal
    target = next(o for o in sub.orders if o.order_id == goal.order_id)
    if isinstance(goal, OrderChangeGoal):
        return [o.order_id for o in orders
                if any(f"my order of {say_date(o.placed_on)} with the {noun(line)}" == goal.description
                       for line in o.lines)]
    if isinstance(goal, CompensationGoal):
        return _fitting_compensation(goal, target, orders)
    if isinstance(goal, ExchangeGoal):
        item = noun(next(li for li in target.lines if li.line_id == goal.line_id))
        return [f"{o.order_id}/{li.line_id}" for o in orders for li in o.lines
                if o.placed_on == target.placed_on and noun(li) == item]
    if isinstance(goal, ReturnGoal):
        # The return generator's own reading of its description (through the registry).
        words = get_env("return").role("generator")
        described_attribute, Description, fitting_lines = words.described_attribute, words.Description, \
            words.fitting_lines
        product = lookup(next(li for li in target.lines if li.line_id == goal.line_id).product_id)
        attribute = described_attribute(product.category_id) if product is not None else None
        if product is None or attribute is None:
            return [target_of(goal)]
        desc = Description(product.category_id, noun(product), attribute, product.attrs[attribute], product.brand,
                           target.placed_on)
        return [f"{o}/{line}" for o, line in fitting_lines(desc, list(orders), lookup)]
    assert isinstance(goal, StatusGoal)
    own = {o.order_id for o in sub.orders}
    return [o.order_id for o in orders if o.order_id == target.order_id
            or (o.order_id not in own and _may_fit_status(goal, target, sub.orders, o))]


def _fitting_compensation(goal: CompensationGoal, target: Order, orders: Sequence[Order]) -> list[str]:
    """A compensation request's words name the day and the item: "my order of March 3 with the
    kettle" (late) fits every order of that day holding a kettle; "the kettle from my order of
    March 3" (damaged, price drop) every kettle line of that day (its generator's own reading)."""
    item = noun(next(li for li in target.lines if li.line_id == goal.line_id)) if goal.line_id is not None else \
        goal.description.rsplit(" with the ", 1)[-1]
    lines = [(o.order_id, li.line_id) for o in orders for li in o.lines
             if o.placed_on == target.placed_on and noun(li) == item]
    if goal.line_id is None:
        return list(dict.fromkeys(order_id for order_id, _ in lines))
    return [f"{order_id}/{line_id}" for order_id, line_id in lines]


def _may_fit_status(goal: StatusGoal, target: Order, own: Sequence[Order], other: Order) -> bool:
    if other.placed_on == target.placed_on:  # the plain words: the day
        return True
    if not goal.indirect:
        return False
    if abs((other.placed_on - target.placed_on).days) <= NEAR_DAYS:
        return True
    kinds = {line.category_id for line in target.lines}
    names = {noun(line) for line in target.lines}
    if any(line.category_id in kinds or any(n in line.title.lower() for n in names) for line in other.lines):
        return True
    days = sorted({o.placed_on for o in own}, reverse=True)
    return target.placed_on in days[:2] and other.placed_on >= target.placed_on


def ambiguous(subs: Sequence[Scenario], catalog: CatalogReader) -> bool:
    """Whether, with every order request's orders merged, some request's words fit more than its own
    target, or two orders or lines share an ID."""
    order_subs = [s for s in subs if about_orders(s)]
    orders = merged_orders(order_subs)
    order_ids = [o.order_id for o in orders]
    line_ids = [line.line_id for o in orders for line in o.lines]
    if len(set(order_ids)) < len(order_ids) or len(set(line_ids)) < len(line_ids):
        return True
    return any(fitting(s, orders, catalog.product) != [target_of(s.goal)] for s in order_subs)


def merged_orders(order_subs: Sequence[Scenario]) -> tuple[Order, ...]:
    """The order requests' histories as one, by day."""
    return tuple(sorted((o for s in order_subs for o in s.orders), key=lambda o: (o.placed_on, o.order_id)))

