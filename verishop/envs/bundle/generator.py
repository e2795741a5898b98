"""Project bundles (BUNDLE): everything needed for a project, one product per category,
within a budget.

A project template names its core categories and related extras, all real taxonomy
categories; the customer needs min(12, 3 + ⌊d/2⌋) of them, core first. Each category is
checked against the catalog at generation: it must have in-stock products among the first
`search_top_k` of the category (what a category search can reach at this difficulty), or
the next candidate takes its place. From d ≥ 2 there is a budget: the price of a cheap
reachable product per category (the reference solution, stored in the goal) times a slack
that shrinks with d, so the budget is feasible by construction.

What changed in each version, and why: CHANGELOG.md (the registry in `verishop/envs/__init__.py` holds
the current id).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from verishop.scenarios.catalog.reader import CatalogError, CatalogReader, Product
from verishop.scenarios.difficulty import axes_for
from verishop.scenarios.shared_world import SharedWorld, pick_customer, pick_policy, pick_today
from verishop.scenarios.household import make_browsing_history, make_order_history
from verishop.scenarios.models import Axes, BundleGoal, Scenario, StockChange
from verishop.scenarios.money import written
from verishop.scenarios.noise import add_typos
from verishop.scenarios.prompts import system_prompt
from verishop.scenarios.rng import make_rng
from verishop.scenarios.taxonomy import category

ENV_ID = "bundle-v6"
# The random stream a seed draws from: kept from bundle-v1 wherever generation did not change, so
# re-scored versions play the same worlds.
SEED_STREAM = "bundle-v1"

# The reference product of a category is drawn among its cheapest reachable in-stock products.
REFERENCE_POOL = 3
# Stock-outs (axis p_oos) hit the category's featured head: what a hasty agent takes first.
FEATURED_HEAD = 10


@dataclass(frozen=True)
class Project:
    name: str
    intro: str
    core: tuple[str, ...]
    extras: tuple[str, ...]


PROJECTS: tuple[Project, ...] = (
    Project("home office", "I'm setting up a home office",
            ("desks", "office_chairs", "monitors", "keyboards", "mice", "desk_lamps"),
            ("webcams", "usb_hubs", "headphones", "cables", "chargers", "speakers", "plant_pots", "water_bottles")),
    Project("camping trip", "I'm heading off on a camping trip",
            ("tents", "backpacks", "water_bottles", "jackets"),
            ("power_banks", "socks", "pillows", "cookware", "kitchen_knives", "speakers", "smartwatches",
             "t_shirts", "headphones", "board_games", "towels")),
    Project("new kitchen", "I'm kitting out my new kitchen",
            ("cookware", "kitchen_knives", "coffee_makers", "blenders"),
            ("water_bottles", "towels", "plant_pots", "speakers", "vacuums", "board_games", "chargers", "cables")),
    Project("running starter kit", "I've just taken up running",
            ("running_shoes", "socks", "t_shirts", "water_bottles"),
            ("smartwatches", "headphones", "jackets", "backpacks", "phone_cases", "power_banks", "yoga_mats",
             "towels", "dumbbells")),
    Project("home gym", "I'm putting together a home gym",
            ("dumbbells", "yoga_mats", "water_bottles", "towels"),
            ("speakers", "headphones", "t_shirts", "socks", "smartwatches", "running_shoes", "monitors",
             "plant_pots")),
    Project("first apartment", "I'm moving into my first apartment",
            ("bed_sheets", "pillows", "towels", "cookware", "vacuums"),
            ("kitchen_knives", "coffee_makers", "desk_lamps", "plant_pots", "blenders", "speakers", "desks",
             "office_chairs", "board_games")),
    Project("dorm room", "I'm getting ready to move into my college dorm room",
            ("backpacks", "desk_lamps", "bed_sheets", "headphones"),
            ("pillows", "towels", "water_bottles", "chargers", "cables", "power_banks", "keyboards", "mice",
             "phone_cases", "coffee_makers", "board_games")),
    Project("business trip", "I'm packing for a long business trip",
            ("backpacks", "headphones", "power_banks", "chargers"),
            ("cables", "water_bottles", "phone_cases", "pillows", "jackets", "t_shirts", "socks", "smartwatches",
             "jeans")),
    Project("streaming setup", "I'm building a streaming setup",
            ("monitors", "keyboards", "mice", "headphones", "webcams"),
            ("speakers", "office_chairs", "desks", "usb_hubs", "cables", "desk_lamps", "chargers")),
)

# How the customer names each category: taxonomy nouns, so the words are searchable.
PHRASES: dict[str, str] = {
    "desks": "a desk", "office_chairs": "an office chair", "monitors": "a monitor", "keyboards": "a keyboard",
    "mice": "a mouse", "desk_lamps": "a desk lamp", "webcams": "a webcam", "usb_hubs": "a USB hub",
    "headphones": "headphones", "cables": "a charging cable", "chargers": "a wall charger",
    "speakers": "a bluetooth speaker", "plant_pots": "a plant pot", "water_bottles": "a water bottle",
    "tents": "a tent", "backpacks": "a backpack", "jackets": "a rain jacket", "power_banks": "a power bank",
    "socks": "socks", "cookware": "some cookware", "kitchen_knives": "a kitchen knife",
    "coffee_makers": "a coffee maker", "blenders": "a blender", "bed_sheets": "bed sheets", "towels": "towels",
    "pillows": "a pillow", "vacuums": "a vacuum cleaner", "yoga_mats": "a yoga mat", "dumbbells": "dumbbells",
    "smartwatches": "a smartwatch", "running_shoes": "running shoes", "t_shirts": "t-shirts", "jeans": "jeans",
    "phone_cases": "a phone case", "dog_beds": "a dog bed", "board_games": "a board game",
}

_GREETINGS = ("Hi!", "Hello,", "Hey there.", "Good morning!", "Hi there,")
_MORE = (", plus a few other things", " and a couple of other bits")
_ASKS = ("Could you pick one of each for me?", "What would you recommend? One of each is enough.",
         "Can you suggest one product for each?")


def say_category(category_id: str) -> str:
    return PHRASES.get(category_id, f"some {category(category_id).name.lower()}")


def say_list(phrases: list[str]) -> str:
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " and " + phrases[-1]


def money(cents: int, currency: str) -> str:
    """A budget or a total as the customer says it, in the shop's currency: "$290", "€41.50", "290 AED"."""
    return written(currency, f"{cents / 100:,.0f}" if cents % 100 == 0 else f"{cents / 100:,.2f}")


def category_count(difficulty: int) -> int:
    return min(12, 3 + difficulty // 2)


def budget_slack(difficulty: int) -> float:
    """How far above the reference cost the budget sits: 2.0 at d = 2, about 1.13 at d = 12."""
    return 1.1 + 0.9 * math.exp(-(difficulty - 2) / 3)


@dataclass(frozen=True)
class Pick:
    category_id: str
    reference: Product
    sold_out: tuple[str, ...]


def projects(catalog: CatalogReader) -> tuple[Project, ...]:
    """The templates above on a generated catalog; on an imported one, one project per department
    of the shop's own taxonomy (its categories the core, the others the extras)."""
    if not catalog.imported:
        return PROJECTS
    shoppable = catalog.shoppable_categories
    departments = sorted({c.department for c in shoppable})
    return tuple(Project(f"{d.lower()} kit", f"I'm putting together a {d.lower()} kit",
                         tuple(sorted(c.id for c in shoppable if c.department == d)),
                         tuple(sorted(c.id for c in shoppable if c.department != d))) for d in departments)


def _candidates(rng: random.Random, catalog: CatalogReader, project: Project) -> list[str]:
    """Core categories, then the project's extras, then any other shoppable category (a
    fallback for a catalog too small to stock every category of the template)."""
    core = rng.sample(project.core, len(project.core))
    extras = rng.sample(project.extras, len(project.extras))
    rest = sorted(c.id for c in catalog.shoppable_categories if c.id not in project.core + project.extras)
    return core + extras + rng.sample(rest, len(rest))


def _pick(rng: random.Random, catalog: CatalogReader, category_id: str, axes: Axes) -> Pick | None:
    # (product ID, price) of the reachable in-stock products, featured order: 20 to 200 of them,
    # read without their whole rows (the one drawn as the reference is read after).
    in_stock = catalog.featured_in_stock(category_id, axes.search_top_k)
    if not in_stock:
        return None
    cheapest = sorted(in_stock, key=lambda p: (p[1], p[0]))[:REFERENCE_POOL]
    reference = catalog.product(rng.choice(cheapest)[0])
    sold_out = tuple(pid for pid, _ in in_stock[:FEATURED_HEAD]
                     if pid != reference.product_id and rng.random() < axes.p_out_of_stock)
    return Pick(category_id, reference, sold_out)


def pick_categories(rng: random.Random, catalog: CatalogReader, project: Project, count: int,
                    axes: Axes) -> list[Pick]:
    picks: list[Pick] = []
    for category_id in _candidates(rng, catalog, project):
        if len(picks) == count:
            break
        pick = _pick(rng, catalog, category_id, axes)
        if pick is not None:
            picks.append(pick)
    return picks


def opening_message(rng: random.Random, project: Project, categories: tuple[str, ...], stated: list[bool],
                    budget_cents: int | None, p_noise: float, currency: str) -> str:
    said = [say_category(c) for c, s in zip(categories, stated) if s]
    text = f"{rng.choice(_GREETINGS)} {project.intro} and I need {say_list(said)}"
    if not all(stated):
        text += rng.choice(_MORE)
    text += "."
    if budget_cents is not None:
        text += f" My budget is {money(budget_cents, currency)} for everything."
    return add_typos(rng, f"{text} {rng.choice(_ASKS)}", p_noise)


def generate(difficulty: int, seed: int, catalog: CatalogReader, shared: SharedWorld | None = None) -> Scenario:
    rng = make_rng("scenario", SEED_STREAM, difficulty, seed)
    axes = axes_for(difficulty)
    today = pick_today(rng, shared)
    project = rng.choice(projects(catalog))
    picks = pick_categories(rng, catalog, project, category_count(difficulty), axes)
    if not picks:
        raise CatalogError("no category of the catalog has an in-stock product within reach of a search; the "
                           "catalog is too small for bundle")
    categories = tuple(p.category_id for p in picks)
    stated = [rng.random() >= axes.p_missing for _ in picks]
    if not any(stated):
        stated[0] = True  # the opening names at least one thing the project needs
    budget_cents = None
    if difficulty >= 2:
        reference_cents = sum(p.reference.price_cents for p in picks)
        budget_cents = math.ceil(reference_cents * budget_slack(difficulty) / 1000) * 1000
    return Scenario(
        env_id=ENV_ID,
        difficulty=difficulty,
        seed=seed,
        today=today,
        catalog=catalog.ref(),
        axes=axes,
        customer=pick_customer(rng, today, shared),
        orders=make_order_history(rng, catalog, today, axes.order_history),
        browsing_history=make_browsing_history(rng, catalog, categories[0]),
        stock_changes=tuple(StockChange(product_id=pid, stock=0) for p in picks for pid in p.sold_out),
        policy=pick_policy(rng, shared, catalog),
        system_prompt=system_prompt(catalog.currency),
        opening_message=opening_message(rng, project, categories, stated, budget_cents, axes.p_noise,
                                        catalog.currency),
        goal=BundleGoal(project=project.name, categories=categories, budget_cents=budget_cents,
                        unstated=tuple(c for c, s in zip(categories, stated) if not s),
                        reference_product_ids=tuple(p.reference.product_id for p in picks),
                        currency=catalog.currency),
    )
