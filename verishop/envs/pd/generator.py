"""Product discovery (PD): the customer wants products meeting m constraints.
The scenario is built around an *anchor* product drawn from the catalog, and every
constraint is read off that product, so the goal is feasible by construction.

What changed in each version, and why: CHANGELOG.md (the registry in `verishop/envs/__init__.py` holds
the current id).
"""

from __future__ import annotations

import random

from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.constraints import candidate_constraint_fields, describe
from verishop.scenarios.difficulty import axes_for
from verishop.scenarios.shared_world import EPOCH, SharedWorld, pick_customer, pick_policy, pick_today, sell_outs
from verishop.scenarios.household import make_browsing_history, make_order_history
from verishop.scenarios.models import Constraint, Persona, ProductDiscoveryGoal, Scenario
from verishop.scenarios.noise import add_typos
from verishop.scenarios.ranking import PRIORITIES, ideal_ranking, make_persona
from verishop.scenarios.prompts import system_prompt
from verishop.scenarios.rng import make_rng
from verishop.scenarios.stock import EpisodeStock


ENV_ID = "pd-v9"
# The random stream a seed draws from: kept from pd-v2 wherever generation did not change, so
# re-scored versions play the same worlds.
SEED_STREAM = "pd-v2"
__all__ = ["ENV_ID", "EPOCH", "generate"]

_GREETINGS = ("Hi!", "Hello,", "Hey there.", "Good morning!", "Hi there,")
# What the customer says of its main priority (scenarios.ranking.PRIORITIES).
PRIORITY_WORDS = {"price": "A low price matters most to me.", "rating": "Great reviews matter most to me.",
                  "ship": "Fast delivery matters most to me."}
_ASKS = ("Can you recommend {k} good options?", "What would you suggest? {k} options would be great.",
         "Could you find me {k} choices?", "Please show me your top {k} picks.")


PRIORITY_FIELDS = {"rating": "rating", "ship": "ship_days"}


def priorities(catalog: CatalogReader) -> tuple[str, ...]:
    """The priorities a customer may name: not good reviews in a shop without ratings."""
    return tuple(p for p in PRIORITIES if PRIORITY_FIELDS.get(p) not in catalog.absent_fields)


def opening_message(rng: random.Random, constraints: tuple[Constraint, ...], k: int, p_noise: float,
                    persona: Persona) -> str:
    cat = next(c for c in constraints if c.kind == "category")
    said = [describe(c) for c in constraints if c.stated and c.kind != "category"]
    need = f"I'm shopping for {describe(cat)}"
    if said:
        need += ": " + ", ".join(said[:-1]) + (" and " if len(said) > 1 else "") + said[-1]
    priority = f" {PRIORITY_WORDS[persona.priority]}" if persona.priority and persona.priority_stated else ""
    text = f"{rng.choice(_GREETINGS)} {need}.{priority} {rng.choice(_ASKS).format(k=k)}"
    return add_typos(rng, text, p_noise)


def generate(difficulty: int, seed: int, catalog: CatalogReader,
             shared: SharedWorld | None = None) -> Scenario:
    rng = make_rng("scenario", SEED_STREAM, difficulty, seed)
    axes = axes_for(difficulty)
    today = pick_today(rng, shared)
    anchor = catalog.random_product(rng, deny=catalog.denied_category_ids)

    candidates = candidate_constraint_fields(anchor, difficulty, rng, catalog.absent_fields, currency=catalog.currency)
    picked = rng.sample(candidates, k=min(axes.constraints - 1, len(candidates)))
    stated = [rng.random() >= axes.p_missing for _ in picked]
    if picked and not any(stated):
        stated[0] = True  # the opening names at least one requirement besides the category
    constraints = (Constraint(kind="category", value=anchor.category_id),
                   *(Constraint(**fields, stated=s) for fields, s in zip(picked, stated)))

    # Out-of-stock axis: sell out products of the category (never the anchor), fitting or not alike.
    rules = sell_outs(rng, anchor.category_id, axes.p_out_of_stock, keep=frozenset({anchor.product_id}))
    k = axes.items_to_recommend
    persona = make_persona(rng, constraints, anchor, priority=rng.choice(priorities(catalog)),
                           priority_stated=rng.random() >= axes.p_missing)
    ideal = ideal_ranking(catalog, constraints, persona, EpisodeStock(rules=rules), k)
    return Scenario(
        env_id=ENV_ID,
        difficulty=difficulty,
        seed=seed,
        today=today,
        catalog=catalog.ref(),
        axes=axes,
        customer=pick_customer(rng, today, shared),
        orders=make_order_history(rng, catalog, today, axes.order_history),
        browsing_history=make_browsing_history(rng, catalog, anchor.category_id),
        stock_changes=(),
        sell_outs=rules,
        policy=pick_policy(rng, shared, catalog),
        system_prompt=system_prompt(catalog.currency),
        opening_message=opening_message(rng, constraints, k, axes.p_noise, persona),
        goal=ProductDiscoveryGoal(category_id=anchor.category_id, constraints=constraints,
                                  items_to_recommend=k, anchor_product_id=anchor.product_id, persona=persona,
                                  ideal=tuple(ideal)),
    )
