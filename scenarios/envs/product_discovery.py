"""Product discovery (PD): the customer wants products meeting m constraints.
The scenario is built around an *anchor* product drawn from the catalog, and every
constraint is read off that product, so the goal is feasible by construction.

pd-v2 (over v1): the customer has a main priority (low price, good reviews or fast delivery),
which dominates its persona weights; it says so in the opening unless the slot is omitted
(p_missing), and tells it when asked. In v1 the ranking followed weights the customer never
stated, so no agent could rank by them (see scenarios.ranking.PRIORITY_BOOST).

pd-v3 (over v2): the episode's sell-outs hit products of the category whether they fit or not
(v2 sold out only fitting ones, so a sold-out result hinted "fits"); scoring follows the rules
of issue 9 (committed lists count, IDs earn only once shown, items beyond k are misses).

pd-v4 (over v3): generation reads a bounded number of catalog rows at any catalog size (issue 11).
The sell-outs are drawn among a bounded uniform sample of the category (`shared.sell_outs`), not
the whole category: at 2M products v3 sold out about 15,000 products per episode. The ideal list
is the k best of the whole catalog, read through a category index (`ranking.ideal_ranking`); v3
ranked the first 20,000 feasible products only, which at 2M missed part of a category.
`feasible_count` is no longer counted (None): counting needs every feasible row.

pd-v5 (over v4): the sell-outs are a rule (`verishop.scenarios.stock`) that sells out p_oos of the whole
category again, at any catalog size, in a few bytes of scenario; v4's bounded sample sold out
only about 5% of a category of the default catalog at d = 12 instead of 50%.

pd-v6 (over v5, issue 19): scoring only: a denied product named in any spelling (IDs case- and
separator-insensitive, titles after Unicode, case, space and punctuation folding), on any channel, is a
hard fail; the scenarios are byte-identical to v5's but for the id.
"""

from __future__ import annotations

import math
import random

from verishop.scenarios.catalog.reader import CatalogReader, Product
from verishop.scenarios.constraints import describe
from verishop.scenarios.difficulty import axes_for, numeric_slack
from verishop.scenarios.envs.shared import EPOCH, SharedWorld, pick_customer, pick_policy, pick_today, sell_outs
from verishop.scenarios.household import make_browsing_history, make_order_history
from verishop.scenarios.models import Constraint, Persona, ProductDiscoveryGoal, Scenario
from verishop.scenarios.noise import add_typos
from verishop.scenarios.ranking import PRIORITIES, ideal_ranking, make_persona
from verishop.scenarios.prompts import SYSTEM_PROMPT
from verishop.scenarios.rng import make_rng
from verishop.scenarios.stock import EpisodeStock


ENV_ID = "pd-v6"
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


# The catalog field each constraint kind reads: none is built on a field an imported catalog lacks.
CONSTRAINT_FIELDS = {"brand": "brand", "rating_min": "rating", "ship_days_max": "ship_days"}
PRIORITY_FIELDS = {"rating": "rating", "ship": "ship_days"}


def priorities(catalog: CatalogReader) -> tuple[str, ...]:
    """The priorities a customer may name: not good reviews in a shop without ratings."""
    return tuple(p for p in PRIORITIES if PRIORITY_FIELDS.get(p) not in catalog.absent_fields)


def candidate_constraints(anchor: Product, d: int, rng: random.Random,
                          absent: frozenset[str] = frozenset()) -> list[Constraint]:
    """The constraints the anchor meets, but none on a field in `absent` (the draws are made anyway)."""
    slack = numeric_slack(d)
    price_cap = math.ceil(anchor.price_cents * (1 + slack * rng.random()) / 100) * 100
    candidates = [
        Constraint(kind="brand", value=anchor.brand),
        Constraint(kind="price_max", value=price_cap),
        Constraint(kind="rating_min", value=max(1.0, math.floor(anchor.rating * 2) / 2)),
        Constraint(kind="ship_days_max", value=anchor.ship_days + rng.choice((0, 1, 2))),
    ]
    candidates += [Constraint(kind="attribute", attribute=k, value=v) for k, v in sorted(anchor.attrs.items())]
    return [c for c in candidates if CONSTRAINT_FIELDS.get(c.kind) not in absent] if absent else candidates


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

    candidates = candidate_constraints(anchor, difficulty, rng, catalog.absent_fields)
    picked = rng.sample(candidates, k=min(axes.constraints - 1, len(candidates)))
    stated = [rng.random() >= axes.p_missing for _ in picked]
    if picked and not any(stated):
        stated[0] = True  # the opening names at least one requirement besides the category
    constraints = (Constraint(kind="category", value=anchor.category_id),
                   *(c.model_copy(update={"stated": s}) for c, s in zip(picked, stated)))

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
        system_prompt=SYSTEM_PROMPT,
        opening_message=opening_message(rng, constraints, k, axes.p_noise, persona),
        goal=ProductDiscoveryGoal(category_id=anchor.category_id, constraints=constraints,
                                  items_to_recommend=k, anchor_product_id=anchor.product_id, persona=persona,
                                  ideal=tuple(ideal)),
    )
