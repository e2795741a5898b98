"""Returns (RETURN): the customer wants to return one delivered order line, which they
describe ("the Blue Over-Ear Headphones from Sony that I ordered on March 3"), never name.

The target line is returnable on the scenario's day by the shop's rules (delivered, inside
its department's return window, not final sale); with p = 0.7·σ((d − 4)/1.5) it was
delivered near the end of that window. The history holds H = 1 + ⌊d/2⌋ orders, the others
built to tempt a wrong choice: the same kind of item delivered too long ago, a lookalike
(same kind, another colour or size) that is still returnable, final-sale items, an order
not delivered yet. The target's place in the list is drawn uniformly first and every
distractor is put on its side of it, so position says nothing (return-v2). The full
description fits exactly one line (the generator checks);
details left out of the opening (p_missing each) are told when the agent asks.

With a probability rising with d (none below d = 2, where one lookup per turn leaves no room
to look a replacement up in the same turn) the customer also wants a replacement meeting a
few constraints, read off an in-stock reference product like product discovery's anchor;
other products of its category, fitting or not, sell out with p_oos.

What changed in each version, and why: CHANGELOG.md (the registry in `verishop/envs/__init__.py` holds
the current id).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from verishop.scenarios.catalog.reader import CatalogError, CatalogReader, Product
from verishop.scenarios.constraints import candidate_constraints, describe as describe_constraint
from verishop.scenarios.difficulty import axes_for
from verishop.scenarios.shared_world import SharedWorld, pick_customer, pick_policy, pick_today, sell_outs
from verishop.scenarios.household import make_browsing_history, make_order, make_order_with_status, noun, say_date
from verishop.scenarios.models import Axes, Constraint, Order, OrderLine, ReturnGoal, Scenario, SellOut, StorePolicy
from verishop.scenarios.noise import add_typos
from verishop.scenarios.prompts import system_prompt
from verishop.scenarios.policy import return_window_days
from verishop.scenarios.rng import make_rng
from verishop.scenarios.taxonomy import category

ENV_ID = "return-v8"
# The random stream a seed draws from: kept from return-v1 wherever generation did not change, so
# re-scored versions play the same worlds.
SEED_STREAM = "return-v1"
DISTRACTORS = ("late", "lookalike", "final_sale", "undelivered")

_GREETINGS = ("Hi!", "Hello!", "Hey there.", "Good afternoon.")
_ASKS = ("I need to start a return for {item}.", "Please help me start a return for {item}.",
         "I'd like to start a return for {item}.")
_REASONS = ("It stopped working after a few days.", "It doesn't fit what I need.", "It arrived damaged.",
            "I changed my mind about it.", "It isn't what I expected.")


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def replacement_probability(d: int) -> float:
    return 0.0 if d < 2 else min(0.7, 0.1 * d)


def near_edge_probability(d: int) -> float:
    return 0.7 * _sigmoid((d - 4) / 1.5)


# --- the description: which slots the customer uses, and which lines fit them --------------


def described_attribute(category_id: str) -> str | None:
    """The attribute a customer mentions: colour if the category has one, else its variant, else
    its first; None for an imported category without attributes (no target is drawn from one)."""
    cat = category(category_id)
    names = [a.name for a in cat.attributes]
    if "color" in names:
        return "color"
    return cat.variant_attribute or (names[0] if names else None)


# Draws of a target that carries its category's described attribute before an imported catalog
# is said to have too few (a generated catalog's products all carry it: the first draw is kept).
MAX_TARGET_DRAWS = 400


def _draw_target(rng: random.Random, catalog: CatalogReader, deny: frozenset[str]) -> Product:
    """A returnable product that carries the attribute its description uses (imported categories
    state attributes for part of their products, and some none at all)."""
    described = {c.id for c in catalog.shoppable_categories if c.attributes and c.id not in deny}
    if not described:
        raise CatalogError(f"{ENV_ID} needs a category with an attribute (colour, size ...) to describe the "
                           "item by, outside the final-sale and restricted ones; this catalog has none")
    allow = described if catalog.imported else None
    for _ in range(MAX_TARGET_DRAWS):
        target = catalog.random_product(rng, deny=deny, allow=allow)
        if described_attribute(target.category_id) in target.attrs:
            return target
    raise CatalogError(f"{ENV_ID} needs in-stock products that state their category's attribute (colour, "
                       "size ...); this catalog has too few")


def _other_in_stock(catalog: CatalogReader, target: Product) -> bool:
    """Whether another product of the target's category is in stock (a replacement's reference)."""
    row = catalog.db.execute("SELECT 1 FROM products WHERE category_id = ? AND stock > 0 AND product_id != ? "
                             "LIMIT 1", (target.category_id, target.product_id)).fetchone()
    return row is not None


@dataclass(frozen=True)
class Description:
    """The target as the customer knows it: what it is, one attribute, its brand, the day ordered."""

    category_id: str
    noun: str
    attribute: str
    value: str
    brand: str
    placed_on: date

    def fits(self, product: Product, placed_on: date) -> bool:
        return (product.category_id == self.category_id and product.attrs.get(self.attribute) == self.value
                and product.brand == self.brand and placed_on == self.placed_on)

    def words(self, stated: dict[str, bool]) -> str:
        """The item as the opening says it, with the slots not stated left out."""
        text = self.noun
        if stated["attribute"]:
            text = (f"{self.value} {text}" if self.attribute == "color"
                    else f"{text} ({self.attribute.replace('_', ' ')} {self.value})")
        if stated["brand"] and self.brand:  # an imported product may have no brand
            text += f" from {self.brand}"
        if stated["date"]:
            text += f" that I ordered on {say_date(self.placed_on)}"
        return f"the {text}"

    def detail(self, slot: str) -> str:
        """The sentence that tells one slot when the agent asks."""
        match slot:
            case "attribute" if self.attribute == "color":
                return f"It's the {self.value} one."
            case "attribute":
                return f"It's the one with {self.attribute.replace('_', ' ')} {self.value}."
            case "brand" if self.brand:
                return f"It's made by {self.brand}."
            case "brand":
                return "It doesn't say who makes it."
        return f"I ordered it on {say_date(self.placed_on)}."


SLOTS = ("attribute", "brand", "date")


def fitting_lines(desc: Description, orders: list[Order], lookup: Callable[[str], Product | None]
                  ) -> list[tuple[str, str]]:
    """(order ID, line ID) of every line the full description fits."""
    return [(o.order_id, line.line_id) for o in orders for line in o.lines
            if (p := lookup(line.product_id)) is not None and desc.fits(p, o.placed_on)]


# --- the history ------------------------------------------------------------------------


def _day_between(rng: random.Random, first: date, last: date, taken: set[date]) -> date | None:
    """A free day in [first, last], drawn uniformly (None when there is none)."""
    free = [first + timedelta(days=i) for i in range((last - first).days + 1)]
    free = [day for day in free if day not in taken]
    if not free:
        return None
    day = rng.choice(free)
    taken.add(day)
    return day


def _same_kind(rng: random.Random, catalog: CatalogReader, target: Product, *,
               differ_on: str | None = None) -> Product:
    """Another product of the target's category (with another value of `differ_on`, if given)."""
    for _ in range(50):
        p = catalog.random_product(rng, allow={target.category_id}, in_stock=False)
        differs = differ_on is None or p.attrs.get(differ_on) != target.attrs.get(differ_on)
        if p.product_id != target.product_id and differs:
            return p
    return catalog.random_product(rng, allow={target.category_id}, in_stock=False)


def _extras(rng: random.Random, catalog: CatalogReader, avoid: str, count: int) -> list[Product]:
    out: list[Product] = []
    if not any(c.id != avoid for c in catalog.shoppable_categories):
        return out  # an imported shop of one category: nothing else to have ordered alongside
    while len(out) < count:
        p = catalog.random_product(rng, deny=catalog.denied_category_ids, in_stock=False)
        if p.category_id != avoid:
            out.append(p)
    return out


@dataclass(frozen=True)
class TargetSetting:
    """What every tempting order is drawn around: the shop (its catalog and policy), its day, and
    the item to return with the order it came in."""

    catalog: CatalogReader
    policy: StorePolicy
    today: date
    target: Product
    target_order: Order


def _distractor(kind: str, newer: bool, rng: random.Random, around: TargetSetting, taken: set[date]) -> Order | None:
    """One tempting order placed after the target's (`newer`) or before it; None when the
    kind cannot be placed on that side (the caller then tries another kind)."""
    catalog, policy, today, target, target_order = (around.catalog, around.policy, around.today, around.target,
                                                    around.target_order)
    window = return_window_days(policy, target.category_id)
    transit = timedelta(days=rng.randint(2, 6))
    extras = _extras(rng, catalog, target.category_id, rng.randint(0, 1))
    after, before = target_order.placed_on + timedelta(days=1), target_order.placed_on - timedelta(days=1)
    if kind == "undelivered":  # the same kind of item, not delivered yet: always the newest orders
        placed = _day_between(rng, max(after, today - timedelta(days=4)), today, taken) if newer else None
        if placed is None:
            return None
        return make_order_with_status(rng, [_same_kind(rng, catalog, target), *extras], placed,
                                      rng.choice(("processing", "shipped", "in_transit")))
    if kind == "late":  # the same kind of item, delivered too long ago to return: always older
        last = min(before, today - timedelta(days=window + 3) - transit)
        placed = None if newer else _day_between(rng, last - timedelta(days=45), last, taken)
        product = _same_kind(rng, catalog, target)
    elif kind == "lookalike":  # the same kind in another colour (or size ...), still returnable
        first = today - timedelta(days=window) - transit
        placed = (_day_between(rng, max(after, first), today - timedelta(days=1) - transit, taken) if newer
                  else _day_between(rng, first, before, taken))
        product = _same_kind(rng, catalog, target, differ_on=described_attribute(target.category_id))
    elif kind == "final_sale":  # socks or pillows, which cannot be returned
        final_sale = set(policy.final_sale_categories) & catalog.category_id_set
        if not final_sale:  # an imported shop may have none (or none of the generated policy's)
            return None
        first = today - timedelta(days=10) - transit
        placed = (_day_between(rng, max(after, first), today - timedelta(days=1) - transit, taken) if newer
                  else _day_between(rng, first - timedelta(days=60), min(before, today - timedelta(days=1) - transit),
                                    taken))
        product = catalog.random_product(rng, allow=final_sale, in_stock=False)
    else:  # any other order of the household
        placed = (_day_between(rng, after, today, taken) if newer
                  else _day_between(rng, today - timedelta(days=119), before, taken))
        if placed is None:
            return None
        return make_order(rng, catalog, today, (today - placed).days)
    if placed is None:
        return None
    return make_order_with_status(rng, [product, *extras], placed, "delivered",
                                  min(today - timedelta(days=1), placed + transit))


def _history(rng: random.Random, around: TargetSetting, count: int) -> list[Order]:
    """The target's order and `count` tempting others. The target's place in the list is drawn
    uniformly first (return-v2; in v1 it sat in the middle: undelivered orders were always newer
    and late ones older), then each distractor is placed on its side of the target: a kind that
    cannot be (an undelivered order older than the target) gives way to one that can."""
    taken = {around.target_order.placed_on}
    newer_count = rng.randrange(count + 1)
    kinds = list(DISTRACTORS)
    rng.shuffle(kinds)
    while len(kinds) < count:
        kinds.append(rng.choice((*DISTRACTORS, "other")))
    sides = [True] * newer_count + [False] * (count - newer_count)
    rng.shuffle(sides)
    orders = [around.target_order]
    for kind, newer in zip(kinds[:count], sides):
        others = [k for k in (*rng.sample(DISTRACTORS, len(DISTRACTORS)), "other") if k != kind]
        # A target placed only days ago leaves few newer days: then the order goes on the other side.
        for fallback, side in [(k, newer) for k in (kind, *others)] + [(k, not newer) for k in (kind, *others)]:
            order = _distractor(fallback, side, rng, around, taken)
            if order is not None:
                orders.append(order)
                break
        else:
            raise RuntimeError("no distractor fits beside the target")  # "other" fits any of 119 days
    return sorted(orders, key=lambda o: o.placed_on)


# --- the replacement ---------------------------------------------------------------------


def _replacement(rng: random.Random, catalog: CatalogReader, target: Product, d: int
                 ) -> tuple[tuple[Constraint, ...], Product, tuple[SellOut, ...]]:
    axes = axes_for(d)
    reference = target
    while reference.product_id == target.product_id:
        reference = catalog.random_product(rng, allow={target.category_id})
    candidates = candidate_constraints(reference, d, rng, catalog.absent_fields, currency=catalog.currency)
    picked = rng.sample(candidates, k=min(3, axes.constraints - 1, len(candidates)))
    constraints = (Constraint(kind="category", value=target.category_id),
                   *(c.model_copy(update={"stated": rng.random() >= axes.p_missing}) for c in picked))
    # Fitting or not alike (return-v2; v1 sold out only fitting products: "sold out" hinted "fits").
    rules = sell_outs(rng, target.category_id, axes.p_out_of_stock, keep=frozenset({reference.product_id}))
    return constraints, reference, rules


# Histories drawn before a catalog is said to be unable to tell its items apart.
MAX_HISTORY_DRAWS = 20


def _target_and_history(rng: random.Random, catalog: CatalogReader, policy: StorePolicy, today: date, axes: Axes,
                        difficulty: int) -> tuple[Product, Order, OrderLine, list[Order], Description]:
    """The item to return, the order it came in, the history around it and its description."""
    target = _draw_target(rng, catalog, catalog.denied_category_ids | set(policy.final_sale_categories))
    window = return_window_days(policy, target.category_id)
    if rng.random() < near_edge_probability(difficulty):
        since = window - rng.randint(0, min(2, window - 1))
    else:
        since = rng.randint(1, max(1, window // 2))
    delivered = today - timedelta(days=since)
    placed = delivered - timedelta(days=rng.randint(2, 6))
    products = [target, *_extras(rng, catalog, target.category_id, rng.randint(0, 2))]
    rng.shuffle(products)
    target_order = make_order_with_status(rng, products, placed, "delivered", delivered)
    line = next(line for line in target_order.lines if line.product_id == target.product_id)
    orders = _history(rng, TargetSetting(catalog, policy, today, target, target_order), axes.order_history - 1)
    attribute = described_attribute(target.category_id)
    desc = Description(category_id=target.category_id, noun=noun(target), attribute=attribute,
                       value=target.attrs[attribute], brand=target.brand, placed_on=placed)
    return target, target_order, line, orders, desc


def generate(difficulty: int, seed: int, catalog: CatalogReader, shared: SharedWorld | None = None) -> Scenario:
    rng = make_rng("scenario", SEED_STREAM, difficulty, seed)
    axes = axes_for(difficulty)
    today = pick_today(rng, shared)
    customer = pick_customer(rng, today, shared)
    policy = pick_policy(rng, shared, catalog)

    for _ in range(MAX_HISTORY_DRAWS):
        target, target_order, line, orders, desc = _target_and_history(rng, catalog, policy, today, axes,
                                                                               difficulty)
        # The description must fit the target's line only, and no two orders share an ID: a history
        # where either fails (rare; on a small imported shop, the same kind of item bought twice the
        # same day) is drawn again from the same generator, so every other seed keeps its bytes.
        if (fitting_lines(desc, orders, catalog.product) == [(target_order.order_id, line.line_id)]
                and len({o.order_id for o in orders}) == len(orders)):
            break
    else:
        raise CatalogError(f"{ENV_ID} needs items a customer can tell apart (by kind, colour or size, brand and day "
                           f"ordered); this catalog gave none in {MAX_HISTORY_DRAWS} draws")
    stated = {slot: rng.random() >= axes.p_missing for slot in SLOTS}

    replacement: tuple[Constraint, ...] | None = None
    reference: Product | None = None
    rules: tuple[SellOut, ...] = ()
    if rng.random() < replacement_probability(difficulty) and _other_in_stock(catalog, target):
        replacement, reference, rules = _replacement(rng, catalog, target, difficulty)

    reason = rng.choice(_REASONS)
    text = f"{rng.choice(_GREETINGS)} {rng.choice(_ASKS).format(item=desc.words(stated))} {reason}"
    if replacement:
        said = [describe_constraint(c) for c in replacement if c.stated]
        text += f" I'd also like a replacement: {', '.join(said[:-1])}{' and ' if len(said) > 1 else ''}{said[-1]}."
    return Scenario(
        env_id=ENV_ID, difficulty=difficulty, seed=seed, today=today, catalog=catalog.ref(), axes=axes,
        customer=customer, orders=tuple(orders), browsing_history=make_browsing_history(rng, catalog, None),
        stock_changes=(), sell_outs=rules, policy=policy, system_prompt=system_prompt(catalog.currency),
        opening_message=add_typos(rng, text, axes.p_noise),
        goal=ReturnGoal(order_id=target_order.order_id, line_id=line.line_id,
                        description=desc.words(dict.fromkeys(SLOTS, True)), reason=reason.rstrip("."),
                        replacement=replacement,
                        details=tuple(desc.detail(slot) for slot in SLOTS if not stated[slot]),
                        replacement_product_id=reference.product_id if reference else None),
    )
