"""Cart building (CART): the customer wants specific products, variants and quantities.

Variants are synthesized per episode on the category's variant attribute: one target and
two distractors (USB-C / Lightning / Micro-USB ...) that exist only in this episode's world,
so an agent cannot have memorised them. A product of an imported shop whose variant group differs
on two options (size and colour) is wanted by both, among siblings sharing one of them
(`variants.py`).

What changed in each version, and why: CHANGELOG.md (the registry in `verishop/envs/__init__.py` holds
the current id).
"""

from __future__ import annotations

import math
import random

from verishop.envs.cart.variants import (
    options_of, replace_words, say_option, two_option_square, without_separators_left,
)
from verishop.scenarios.catalog.generate import product_id
from verishop.scenarios.catalog.reader import CatalogError, CatalogReader, Product
from verishop.scenarios.difficulty import axes_for
from verishop.scenarios.shared_world import SharedWorld, pick_customer, pick_policy, pick_today
from verishop.scenarios.household import make_browsing_history, make_order_history
from verishop.scenarios.models import CartGoal, CartItem, ExtraProduct, Scenario
from verishop.scenarios.noise import add_typos
from verishop.scenarios.prompts import system_prompt
from verishop.scenarios.rng import make_rng
from verishop.scenarios.taxonomy import category

ENV_ID = "cart-v6"
# The random stream a seed draws from: kept from cart-v1 wherever generation did not change, so
# re-scored versions play the same worlds.
SEED_STREAM = "cart-v1"
_OPENINGS = ("Hi! Could you put these in my cart: {items}?", "Hello, I'd like to order {items}.",
             "Hey, please add {items} to my cart.")


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


def base_description(p: Product, attributes: tuple[str, ...]) -> str:
    """The product's title without the values of `attributes` (and the separators they leave,
    "Tee - M / Blue" -> "Tee"): what the customer calls it."""
    title = p.title
    for attribute in attributes:
        title = replace_words(title, p.attrs[attribute], " ")
    return without_separators_left(title)


def synthesize_variants(rng: random.Random, catalog: CatalogReader, base: Product, attribute: str,
                        taken: set[int]) -> list[ExtraProduct]:
    """Three new siblings of `base` differing on `attribute` (values the base doesn't have)."""
    values = [v for v in category(base.category_id).attribute(attribute).values if v != base.attrs[attribute]]
    chosen = rng.sample(values, k=min(3, len(values)))
    extras = []
    for value in chosen:
        row = catalog.size + rng.randrange(10**7)
        while row in taken:
            row += 1
        taken.add(row)
        attrs = dict(base.attrs, **{attribute: value})
        title = replace_words(base.title, base.attrs[attribute], value)
        if title == base.title:
            title = f"{base.title} {value}"
        extras.append(ExtraProduct(
            product_id=product_id(row), group_id=base.group_id, title=title, brand=base.brand,
            category_id=base.category_id, price_cents=base.price_cents + rng.choice((0, 0, 100, 200, -100)),
            rating=base.rating, rating_count=base.rating_count, ship_days=base.ship_days,
            stock=rng.randint(5, 120), attrs=attrs))
    return extras


# Draws of a base product before a catalog is said to have too few variant groups (a generated
# catalog needs a handful; the bound only ends the search on an imported shop that has too few).
MAX_DRAWS = 20_000


def generate(difficulty: int, seed: int, catalog: CatalogReader,
             shared: SharedWorld | None = None) -> Scenario:
    rng = make_rng("scenario", SEED_STREAM, difficulty, seed)
    axes = axes_for(difficulty)
    today = pick_today(rng, shared)
    n_items = min(5, 1 + difficulty // 3)
    p_variant = _sigmoid((difficulty - 2) / 1.5)
    p_quantity = min(0.5, 0.1 * difficulty)
    items: list[CartItem] = []
    extras: list[ExtraProduct] = []
    taken: set[int] = set()
    used_groups: set[str] = set()
    variant_categories = {c.id for c in catalog.shoppable_categories if c.variant_attribute}
    if not variant_categories:
        raise CatalogError(f"{ENV_ID} needs a category whose products come in variants (variant groups that differ "
                           f"on one attribute); this catalog has none")
    for _ in range(MAX_DRAWS):
        if len(items) >= n_items:
            break
        base = catalog.random_product(rng, allow=variant_categories)
        if base.group_id in used_groups or base.stock < 4:
            continue
        if category(base.category_id).variant_attribute not in base.attrs:
            continue  # an imported product that does not state its category's variant option
        used_groups.add(base.group_id)
        quantity = rng.randint(2, 4) if rng.random() < p_quantity else 1
        attribute = category(base.category_id).variant_attribute
        variant = bool(attribute) and rng.random() < p_variant
        options = _two_options(catalog, base) if variant else None
        square = two_option_square(rng, catalog, base, options, taken) if options else []
        if square:
            target = rng.choice(square)
            extras += square
            items.append(CartItem(product_id=target.product_id, quantity=quantity,
                                  description=base_description(base, options),
                                  **options_of(target, options, [rng.random() >= axes.p_missing for _ in options])))
        elif variant:
            siblings = synthesize_variants(rng, catalog, base, attribute, taken)
            target = rng.choice(siblings)
            extras += siblings
            items.append(CartItem(product_id=target.product_id, quantity=quantity,
                                  description=base_description(base, (attribute,)), variant_attribute=attribute,
                                  variant_value=target.attrs[attribute],
                                  variant_stated=rng.random() >= axes.p_missing))
        else:
            items.append(CartItem(product_id=base.product_id, quantity=quantity, description=base.title))
    if len(items) < n_items:
        raise CatalogError(f"{ENV_ID} at difficulty {difficulty} needs {n_items} variant groups with 4 or more in "
                           f"stock that state their category's variant option; this catalog has fewer")
    return Scenario(
        env_id=ENV_ID, difficulty=difficulty, seed=seed, today=today, catalog=catalog.ref(), axes=axes,
        customer=pick_customer(rng, today, shared),
        orders=make_order_history(rng, catalog, today, axes.order_history),
        browsing_history=make_browsing_history(rng, catalog, None),
        stock_changes=(), extra_products=tuple(extras), policy=pick_policy(rng, shared, catalog),
        system_prompt=system_prompt(catalog.currency),
        opening_message=add_typos(rng, rng.choice(_OPENINGS).format(items=_list(items)), axes.p_noise),
        goal=CartGoal(items=tuple(items)),
    )


def _two_options(catalog: CatalogReader, base: Product) -> tuple[str, str] | None:
    """The two options `base`'s variant group differs on, when its category records two (an
    imported shop's) and its own group differs on both; else None (one option, as before)."""
    cat = category(base.category_id)
    if len(cat.variant_options) < 2 or not all(a in base.attrs for a in cat.variant_options):
        return None
    differing = cat.differing_options([p.attrs for p in catalog.group(base.group_id)])
    return (differing[0], differing[1]) if len(differing) == 2 else None


def say_item(item: CartItem, *, all_options: bool = False) -> str:
    """How the opening names an item: with the options it states (or, `all_options`, every one)."""
    text = f"{item.quantity} × {item.description}" if item.quantity > 1 else f"the {item.description}"
    if item.more_variant_options:
        said = [say_option(o) for o in item.variant_options if all_options or o.stated]
        if said:
            text += " in " + ", ".join(said)
    elif (all_options or item.variant_stated) and item.variant_value:
        text += f" in {item.variant_value}"
    return text


def _list(items: list[CartItem]) -> str:
    said = [say_item(i) for i in items]
    return said[0] if len(said) == 1 else "; ".join(said[:-1]) + " and " + said[-1]
