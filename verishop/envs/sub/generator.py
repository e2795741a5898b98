"""Substitution (SUB): the product the customer wanted is sold out; they want k similar
alternatives that are in stock.

The sold-out *original* is drawn from the catalog and set to stock 0 in this episode. The
customer's constraints are read off the original, like PD's off its anchor. Relevance blends
similarity to the original with the share of constraints met (reference §3):

    rel(p) = λ·sim(p, original) + (1 − λ)·s(p),   λ = clip(0.4 + 0.05·d, 0.4, 0.8)

and the ideal list (the k most relevant in-stock products of the category, the original
excluded) is computed here from the catalog and stored in the goal, so the verifier ranks
against it (`verishop.scenarios.ranking.best_substitutes`, shared by both).

What changed in each version, and why: CHANGELOG.md (the registry in `verishop/envs/__init__.py` holds
the current id).
"""

from __future__ import annotations

import random

from verishop.scenarios.catalog.reader import CatalogError, CatalogReader, Product
from verishop.scenarios.constraints import candidate_constraints, describe
from verishop.scenarios.difficulty import axes_for
from verishop.scenarios.shared_world import SharedWorld, pick_customer, pick_policy, pick_today, sell_outs
from verishop.scenarios.household import make_browsing_history, make_order_history
from verishop.scenarios.models import Constraint, Scenario, StockChange, SubstitutionGoal
from verishop.scenarios.noise import add_typos
from verishop.scenarios.prompts import system_prompt
from verishop.scenarios.ranking import best_substitutes
from verishop.scenarios.rng import make_rng
from verishop.scenarios.stock import EpisodeStock
from verishop.scenarios.taxonomy import category

ENV_ID = "sub-v8"
# Draws of an original before the catalog is declared too small (a generated catalog needs a few).
ORIGINAL_ATTEMPTS = 2000
# The random stream a seed draws from: kept from sub-v1 wherever generation did not change, so
# re-scored versions play the same worlds.
SEED_STREAM = "sub-v1"
# The original's category must have this many in-stock alternatives besides the k asked for.
SELL_OUT_POOL = 30

_GREETINGS = ("Hi!", "Hello,", "Hey there.", "Good afternoon!", "Hi there,")
_ASKS = ("Could you suggest {k} similar alternatives that are in stock?",
         "Can you find me {k} similar alternatives I can buy right now?",
         "What {k} in-stock alternatives would you suggest instead?")


def similarity_weight(d: int) -> float:
    """λ = clip(0.4 + 0.05·d, 0.4, 0.8)."""
    return round(min(0.8, max(0.4, 0.4 + 0.05 * d)), 4)


def noun(p: Product) -> str:
    """What the product is, in the words of its title ("wall charger")."""
    cat = category(p.category_id)
    return next((n for n in cat.nouns if n in p.title), cat.name).lower()


def vague_name(p: Product) -> str:
    return f"the {p.brand} {noun(p)} I was looking at earlier"


def opening_message(rng: random.Random, goal: SubstitutionGoal, original: Product, p_noise: float) -> str:
    name = f"the {original.title}" if goal.original_stated else vague_name(original)
    said = [describe(c) for c in goal.constraints if c.stated and c.kind != "category"]
    text = f"{rng.choice(_GREETINGS)} I wanted to buy {name}, but it's sold out. " \
           f"{rng.choice(_ASKS).format(k=goal.items_to_recommend)}"
    if said:
        text += " What I need: " + ", ".join(said[:-1]) + (" and " if len(said) > 1 else "") + said[-1] + "."
    return add_typos(rng, text, p_noise)


def _browsing_history(rng: random.Random, catalog: CatalogReader, original: Product) -> tuple[str, ...]:
    """Recently viewed products, the original among them and no other of its brand and category
    (so "the Anker charger I was looking at" names exactly one)."""
    seen = [pid for pid in make_browsing_history(rng, catalog, None)
            if (p := catalog.product(pid)) is not None
            and (p.brand, p.category_id) != (original.brand, original.category_id)]
    seen.insert(rng.randrange(len(seen) + 1), original.product_id)
    return tuple(seen)


def generate(difficulty: int, seed: int, catalog: CatalogReader, shared: SharedWorld | None = None) -> Scenario:
    rng = make_rng("scenario", SEED_STREAM, difficulty, seed)
    axes = axes_for(difficulty)
    today = pick_today(rng, shared)
    k = axes.items_to_recommend
    enough = SELL_OUT_POOL + k
    for _ in range(ORIGINAL_ATTEMPTS):  # an original whose category has enough in-stock alternatives
        original = catalog.random_product(rng, deny=catalog.denied_category_ids)
        if catalog.in_stock_count(original.category_id, enough, besides=original.product_id) >= enough:
            break
    else:
        raise CatalogError(f"the catalog is too small for {ENV_ID} at difficulty {difficulty}: it needs a category "
                           f"with at least {enough + 1} in-stock products")

    candidates = candidate_constraints(original, difficulty, rng, catalog.absent_fields,
                                        currency=catalog.currency)
    picked = rng.sample(candidates, k=min(axes.constraints - 1, len(candidates)))
    constraints = (Constraint(kind="category", value=original.category_id),
                   *(c.model_copy(update={"stated": rng.random() >= axes.p_missing}) for c in picked))
    weight = similarity_weight(difficulty)

    # Out-of-stock axis: besides the original, sell out alternatives of every relevance alike
    # (sub-v2; v1 sold out only the most relevant, so "sold out" hinted "good substitute").
    rules = sell_outs(rng, original.category_id, axes.p_out_of_stock, keep=frozenset({original.product_id}))
    stock = EpisodeStock({original.product_id: 0}, rules)
    ideal = tuple(best_substitutes(catalog, original, constraints, weight, stock, k))

    goal = SubstitutionGoal(original_product_id=original.product_id, category_id=original.category_id,
                            constraints=constraints, items_to_recommend=k, similarity_weight=weight, ideal=ideal,
                            original_title=original.title, original_stated=rng.random() >= axes.p_missing)
    return Scenario(
        env_id=ENV_ID, difficulty=difficulty, seed=seed, today=today, catalog=catalog.ref(), axes=axes,
        customer=pick_customer(rng, today, shared),
        orders=make_order_history(rng, catalog, today, axes.order_history),
        browsing_history=_browsing_history(rng, catalog, original),
        stock_changes=(StockChange(product_id=original.product_id, stock=0),), sell_outs=rules,
        policy=pick_policy(rng, shared, catalog), system_prompt=system_prompt(catalog.currency),
        opening_message=opening_message(rng, goal, original, axes.p_noise),
        goal=goal,
    )
