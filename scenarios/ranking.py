"""Persona utility and the ideal ranking for product discovery (reference section 3).

Shared by the generator (which stores the ideal list in the scenario) and the verifier
(which scores recommended products with the same utility and may recompute the list). Both
read the k best through a category index (`verishop.scenarios.topk`); `verishop.scenarios.ranking_reference`
ranks every candidate instead, for the tests that prove the two agree.
"""

from __future__ import annotations

import math
import random

from verishop.scenarios.catalog.reader import CatalogReader, Product, feasible_products
from verishop.scenarios.catalog.text import attribute_token, brand_token, match_expression
from verishop.scenarios.constraints import admits_all, constraint_sql, feasible_sql, satisfies
from verishop.scenarios.models import Constraint, Persona, RankedProduct
from verishop.scenarios.taxonomy import category
from verishop.scenarios.stock import EpisodeStock
from verishop.scenarios.topk import IN_FACET_LIST, THRESHOLD_STEPS, Head, RankQuery, top_k

DIMENSIONS = ("price", "rating", "ship", "brand", "sim")
_BASE_ALPHA = {"price": 2.0, "rating": 2.0, "ship": 1.0, "brand": 1.0, "sim": 1.0}
_CONSTRAINT_DIMENSION = {"price_max": "price", "rating_min": "rating", "ship_days_max": "ship", "brand": "brand"}
MAX_FEASIBLE = 20_000
# The dimensions a customer can name as its main priority, and how much that boosts its
# Dirichlet parameter (the reference boosts constrained dimensions by +3 only). Without a
# stated priority the ranking the verifier scores against follows weights nobody says. With
# +40 the named dimension carries about 80% of the weight, and an agent that knows what the
# customer says (when asked) and sorts by the priority meets the bar in 95-100% of pd-v3
# episodes at every difficulty; with the boost off the same agent meets it in 2% at d=0 and
# 35% at d=4 (bench/pd_priority_bound.py, 40 seeds per level, default catalog; on pd-v2,
# +12 gave 60% at d=0 and +24 82-100%).
PRIORITIES = ("price", "rating", "ship")
PRIORITY_BOOST = 40.0


def make_persona(rng: random.Random, constraints: tuple[Constraint, ...], anchor: Product,
                 priority: str | None = None, priority_stated: bool = False) -> Persona:
    """Weights from a Dirichlet(2,2,1,1,1), boosted +3 on the dimensions the customer constrained
    and +PRIORITY_BOOST on the one it says matters most (`priority`), if any."""
    boosted = {_CONSTRAINT_DIMENSION[c.kind] for c in constraints if c.kind in _CONSTRAINT_DIMENSION}
    draws = {d: rng.gammavariate(_BASE_ALPHA[d] + (3.0 if d in boosted else 0.0)
                                 + (PRIORITY_BOOST if d == priority else 0.0), 1.0) for d in DIMENSIONS}
    total = sum(draws.values())
    return Persona(weights={d: round(v / total, 6) for d, v in draws.items()},
                   preferred_brand=anchor.brand, reference_product_id=anchor.product_id,
                   priority=priority, priority_stated=priority_stated)


def log_price_span(lo_cents: int, hi_cents: int) -> float:
    """log(hi) − log(lo) of a category's price range, the price score's scale; 1.0 for a category
    whose products all cost the same (an imported shop's), where every product scores 1 on price
    (its distance from the cheapest is 0 whatever the scale)."""
    return (math.log(hi_cents) - math.log(lo_cents)) or 1.0


def utility(p: Product, persona: Persona, reference: Product) -> float:
    """Σ weight·score over `DIMENSIONS`, rounded to 6 decimals (a ranking asks it of every product
    of a category, so the scores come as a tuple, not a dictionary)."""
    w = persona.weights
    return round(sum(w[d] * score for d, score in zip(DIMENSIONS, _scores(p, persona, reference))), 6)


def dimension_scores(p: Product, persona: Persona, reference: Product) -> dict[str, float]:
    """Each utility dimension's score of `p`, from 0 (worst) to 1 (best), before the weights."""
    return dict(zip(DIMENSIONS, _scores(p, persona, reference)))


def _scores(p: Product, persona: Persona, reference: Product) -> tuple[float, ...]:
    """`dimension_scores`' values, in `DIMENSIONS` order."""
    lo, hi = category(p.category_id).price_cents
    attrs = reference.attrs
    return (
        1 - min(1.0, max(0.0, (math.log(p.price_cents) - math.log(lo)) / log_price_span(lo, hi))),
        (p.rating - 1) / 4,
        1 - (min(p.ship_days, 10) - 1) / 9,
        1.0 if p.brand == persona.preferred_brand else 0.0,
        sum(p.attrs.get(k) == v for k, v in attrs.items()) / len(attrs) if attrs else 0.0,
    )


def feasible(catalog: CatalogReader, constraints: tuple[Constraint, ...]) -> list[Product]:
    """Catalog products meeting every constraint (stock aside), featured order (the first
    MAX_FEASIBLE): for tests and benchmarks that look at the fitting products themselves."""
    where, args = feasible_sql(constraints)
    return feasible_products(catalog, where, args, limit=MAX_FEASIBLE)


def ideal_ranking(catalog: CatalogReader, constraints: tuple[Constraint, ...], persona: Persona,
                  stock: EpisodeStock, k: int, extra: list[Product] = ()) -> list[RankedProduct]:
    """The k feasible, in-stock products (episode stock applied, episode `extra` products meeting
    every constraint added) of highest utility, best first (ties by ID), over the whole catalog,
    read through the category index of the customer's heaviest sort dimension (pd-v4)."""
    reference = catalog.product(persona.reference_product_id)
    assert reference is not None, "the persona's reference product is in the catalog"
    extra = [p for p in extra if all(satisfies(p, c) for c in constraints)]
    query = pd_rank_query(constraints, persona, reference, wide_index=catalog.schema_version >= 3)
    return top_k(catalog, query, k, stock, extra)


# The category index whose leading sort column is each utility dimension (scenarios/catalog/build.py).
_DIMENSION_INDEX = {"price": "products_by_category", "rating": "products_by_category_rating",
                    "ship": "products_by_category_ship"}


# Each index's two leading sort columns, as utility dimensions, and their terms of `utility` in SQL
# (the weight is the first argument).
_INDEX_HOLDS = {"price": ("price", "rating"), "rating": ("rating", "price"), "ship": ("ship", "price")}
_PHI_SQL = {"price": "? * (1 - min(1.0, max(0.0, (ln(price_cents) - ?) / ?)))", "rating": "? * (rating - 1) / 4.0",
            "ship": "? * (1 - (min(ship_days, 10) - 1) / 9.0)"}


def heaviest_sort_dimension(weights: dict[str, float]) -> str:
    """The sort dimension (price, rating or delivery) whose category index PD's ranking walks."""
    return max(_DIMENSION_INDEX, key=lambda d: (weights[d], d))


# The thresholds below the best possible utility that PD's walk tries in turn (scenarios.topk).
PD_STEPS = THRESHOLD_STEPS


def pd_rank_query(constraints: tuple[Constraint, ...], persona: Persona, reference: Product,
                  wide_index: bool = False) -> RankQuery:
    """`utility` as a ranking over the catalog: its SQL form, and index bounds for a threshold.
    `wide_index`: the category indexes hold price, rating, delivery and brand (catalog schema 3),
    so every term but the similarity is bounded before SQLite reads a table row."""
    w = persona.weights
    lo, hi = category(reference.category_id).price_cents
    log_lo, log_span = math.log(lo), log_price_span(lo, hi)
    sim_terms = " + ".join("(json_extract(attrs, ?) IS ?)" for _ in reference.attrs) or "0"
    sim_args = [a for key, value in reference.attrs.items() for a in (f"$.{key}", value)]
    score_sql = (f"{_PHI_SQL['price']} + {_PHI_SQL['rating']} + {_PHI_SQL['ship']} + ? * (brand = ?)"
                 f" + ? * ({sim_terms}) / {max(1, len(reference.attrs))}.0")
    score_args = [w["price"], log_lo, log_span, w["rating"], w["ship"], w["brand"], persona.preferred_brand,
                  w["sim"], *sim_args]
    total = sum(w.values())
    phi_args = {"price": [log_lo, log_span], "rating": [], "ship": []}
    heaviest = heaviest_sort_dimension(w)

    def bounds(threshold: float) -> tuple[str, list[object]]:
        # Each of price, rating and delivery must reach what the threshold leaves it with every
        # other dimension at its best (phi = 1).
        need = {d: (threshold - (total - w[d])) / w[d] if w[d] > 0 else 0.0 for d in _DIMENSION_INDEX}
        sql, args = [], []
        if need["price"] > 0:
            sql.append("price_cents <= ?")
            args.append(math.floor(math.exp(log_lo + (1 - need["price"]) * log_span) * (1 + 1e-9)) + 1)
        if need["rating"] > 0:
            sql.append("rating >= ?")
            args.append(1 + 4 * need["rating"] - 1e-9)
        if need["ship"] > 0 and 1 + 9 * (1 - need["ship"]) < 10:
            sql.append("ship_days <= ?")
            args.append(math.floor(1 + 9 * (1 - need["ship"]) + 1e-9))
        if wide_index:
            # Every term but the similarity, exactly (in `score_sql`'s order), the similarity at its
            # best: checked on the index entry, before SQLite reads the table row.
            sql.append(f"{_PHI_SQL['price']} + {_PHI_SQL['rating']} + {_PHI_SQL['ship']} + ? * (brand = ?) + ? >= ?")
            args += [w["price"], log_lo, log_span, w["rating"], w["ship"], w["brand"], persona.preferred_brand,
                     w["sim"], threshold]
            return " AND ".join(sql), args
        # The two dimensions the index holds, exactly, with the other three at their best: checked
        # before SQLite reads the table row.
        held = _INDEX_HOLDS[heaviest]
        sql.append(" + ".join(_PHI_SQL[d] for d in held) + " + ? >= ?")
        args += [w[held[0]], *phi_args[held[0]], w[held[1]], *phi_args[held[1]],
                 total - w[held[0]] - w[held[1]], threshold]
        return " AND ".join(sql), args

    where, where_args = feasible_sql(constraints)
    facets = [brand_token(str(c.value)) if c.kind == "brand" else attribute_token(str(c.attribute), str(c.value))
              for c in constraints if c.kind in ("brand", "attribute")]
    return RankQuery(where=f"{where} AND stock > 0", where_args=where_args, score_sql=score_sql,
                     score_args=score_args, score=lambda p: utility(p, persona, reference),
                     admits=admits_all(constraints),
                     index=_DIMENSION_INDEX[heaviest], bounds=bounds, best_possible=total,
                     category_id=reference.category_id, steps=PD_STEPS,
                     facets=match_expression([], facets) if facets else None)


def ndcg(relevances: list[float], ideal: list[float]) -> float:
    """DCG = Σ rel_i / log2(i + 1) over the list (i from 1), normalised by the ideal DCG."""
    dcg = sum(rel / math.log2(i + 2) for i, rel in enumerate(relevances))
    idcg = sum(rel / math.log2(i + 2) for i, rel in enumerate(ideal))
    return 0.0 if idcg <= 0 else min(1.0, dcg / idcg)


# --- substitution (SUB): similarity to a sold-out original --------------------------------

SIM_WEIGHTS = {"attributes": 0.5, "brand": 0.25, "price": 0.25}


def similarity(p: Product, original: Product) -> float:
    """How close `p` is to `original`: the share of the original's attributes `p` has, the same
    brand, and price closeness (1 at the same price, 0 at half or double it), weighted 2:1:1."""
    attrs = (sum(p.attrs.get(k) == v for k, v in original.attrs.items()) / len(original.attrs)
             if original.attrs else 1.0)
    return round(SIM_WEIGHTS["attributes"] * attrs + SIM_WEIGHTS["brand"] * (p.brand == original.brand)
                 + SIM_WEIGHTS["price"] * price_closeness(p, original), 6)


def price_closeness(p: Product, original: Product) -> float:
    """1 at the original's price, falling to 0 at half or double it (on a log scale)."""
    return max(0.0, 1 - abs(math.log(p.price_cents / original.price_cents)) / math.log(2))


def substitute_relevance(p: Product, original: Product, constraints: tuple[Constraint, ...],
                         similarity_weight: float) -> float:
    """rel = λ·sim(p, original) + (1 − λ)·share of constraints met; 0 for another category or the
    original itself. Stock is the caller's business (a sold-out product is worth nothing)."""
    if p.category_id != original.category_id or p.product_id == original.product_id:
        return 0.0
    met = sum(satisfies(p, c) for c in constraints) / len(constraints) if constraints else 1.0
    return round(similarity_weight * similarity(p, original) + (1 - similarity_weight) * met, 6)


def substitute_ranking(candidates: list[Product], original: Product, constraints: tuple[Constraint, ...],
                       similarity_weight: float, stock: EpisodeStock) -> list[RankedProduct]:
    """In-stock candidates (episode stock applied) by relevance, best first (ties by ID)."""
    ranked = [RankedProduct(product_id=p.product_id,
                            utility=substitute_relevance(p, original, constraints, similarity_weight))
              for p in candidates if stock.units(p) > 0]
    ranked.sort(key=lambda r: (-r.utility, r.product_id))
    return ranked


def best_substitutes(catalog: CatalogReader, original: Product, constraints: tuple[Constraint, ...],
                     similarity_weight: float, stock: EpisodeStock, k: int) -> list[RankedProduct]:
    """The k most relevant in-stock substitutes (episode stock applied) over the whole category,
    best first (ties by ID), read through the category's price index around the original's price
    (sub-v3)."""
    wide = catalog.schema_version >= 3
    query = substitute_rank_query(original, constraints, similarity_weight, wide_index=wide,
                                  fine_steps=SUB_FINE_STEPS if wide and catalog.size >= SUB_FINE_FROM_SIZE else ())
    return top_k(catalog, query, k, stock)


# On a catalog this large the k best substitutes are within 0.01 of relevance 1 in about half the
# episodes (at 2M products; at 100k in almost none): walking the price index near the original's
# price first, the brand checked on the index entry, reads fewer rows than the twins' full-text list
# (whose read grows with the catalog). 10% off sub's p50 at 2M, 4% more at 100k without the gate.
SUB_FINE_STEPS, SUB_FINE_FROM_SIZE = (0.0025, 0.01), 1_000_000
# After the twins, SUB steps down in fewer, wider steps than PD: since sub-v4 half a category may be
# sold out, and the narrow steps mostly found too few in-stock substitutes (100k: p50 3.3 -> 2.75 ms
# over 150 episodes; 2M unchanged).
SUB_STEPS = (0.1, 0.4, None)
# The constraints whose columns every category index holds in catalog schema 3.
_ON_WIDE_INDEX = {"category", "brand", "price_max", "rating_min", "ship_days_max"}


def substitute_rank_query(original: Product, constraints: tuple[Constraint, ...],
                          similarity_weight: float, wide_index: bool = False,
                          fine_steps: tuple[float, ...] = ()) -> RankQuery:
    """`substitute_relevance` as a ranking over the catalog: its SQL form, and the price band
    around the original that a threshold leaves. `wide_index`: the category's price index holds
    the rating, delivery and brand too (catalog schema 3), so the brand and every constraint but
    the attributes are checked on the index entry."""
    lam = similarity_weight
    attr_terms = " + ".join("(json_extract(attrs, ?) IS ?)" for _ in original.attrs)
    attr_share = f"({attr_terms}) / {len(original.attrs)}.0" if original.attrs else "1.0"
    attr_args = [a for key, value in original.attrs.items() for a in (f"$.{key}", value)]
    met_parts = [constraint_sql(c) for c in constraints]
    met_share = (f"({' + '.join(f'coalesce(({sql}), 0)' for sql, _ in met_parts)}) / {len(met_parts)}.0"
                 if met_parts else "1.0")
    score_sql = (f"? * ({SIM_WEIGHTS['attributes']} * {attr_share} + {SIM_WEIGHTS['brand']} * (brand = ?)"
                 f" + {SIM_WEIGHTS['price']} * max(0.0, 1 - abs(ln(price_cents) - ?) / ?)) + ? * {met_share}")
    score_args = [lam, *attr_args, original.brand, math.log(original.price_cents), math.log(2), 1 - lam,
                  *(a for _, args in met_parts for a in args)]

    def bounds(threshold: float) -> tuple[str, list[object]]:
        # Price closeness must reach what the threshold leaves it with attributes, brand and
        # constraints all met; closeness c means a price within a factor 2^(1 - c) of the original's.
        need = (threshold - lam * (1 - SIM_WEIGHTS["price"]) - (1 - lam)) / (lam * SIM_WEIGHTS["price"])
        if need > 1:
            return "0", []
        sql, args = [], []
        if need > 0:
            factor = 2 ** (1 - need) * (1 + 1e-9)
            sql.append("price_cents BETWEEN ? AND ?")
            args += [math.floor(original.price_cents / factor), math.ceil(original.price_cents * factor)]
        if wide_index:
            # The brand, the price closeness and the constraints on the index's columns exactly,
            # the attributes (theirs and the constraints') at their best: on the index entry.
            met_held = " + ".join(f"coalesce(({sql_}), 0)" if c.kind in _ON_WIDE_INDEX else "1"
                                  for c, (sql_, _) in zip(constraints, met_parts))
            sql.append(f"? * ({SIM_WEIGHTS['attributes']} + {SIM_WEIGHTS['brand']} * (brand = ?)"
                       f" + {SIM_WEIGHTS['price']} * max(0.0, 1 - abs(ln(price_cents) - ?) / ?))"
                       f" + ? * ({met_held or '1'}) / {max(1, len(met_parts))}.0 >= ?")
            args += [lam, original.brand, math.log(original.price_cents), math.log(2), 1 - lam,
                     *(a for c, (_, a_) in zip(constraints, met_parts) if c.kind in _ON_WIDE_INDEX for a in a_),
                     threshold]
            return " AND ".join(sql), args
        # Then the brand and the price closeness exactly, the rest at its best: the brand from the
        # full-text facet list, checked on the rowid before SQLite reads the row.
        sql.append(f"? * ({SIM_WEIGHTS['attributes']} + {SIM_WEIGHTS['brand']} * ({IN_FACET_LIST})"
                   f" + {SIM_WEIGHTS['price']} * max(0.0, 1 - abs(ln(price_cents) - ?) / ?)) + ? >= ?")
        args += [lam, match_expression([], [brand_token(original.brand)]), math.log(original.price_cents),
                 math.log(2), 1 - lam, threshold]
        return " AND ".join(sql), args

    # The original's twins (same brand, every attribute alike) first: on a large catalog the k
    # best are among them, and any other product loses at least the brand's or one attribute's share.
    twins = Head(match=match_expression([], [brand_token(original.brand),
                                             *(attribute_token(a, v) for a, v in original.attrs.items())]),
                 others_max=1 - lam * min(SIM_WEIGHTS["brand"],
                                          SIM_WEIGHTS["attributes"] / max(1, len(original.attrs))))
    return RankQuery(where="category_id = ? AND product_id != ? AND stock > 0",
                     where_args=[original.category_id, original.product_id], score_sql=score_sql,
                     score_args=score_args,
                     score=lambda p: substitute_relevance(p, original, constraints, lam),
                     admits=lambda p: p.category_id == original.category_id and p.product_id != original.product_id,
                     index="products_by_category", bounds=bounds, best_possible=1.0, head=twins,
                     category_id=original.category_id, fine_steps=fine_steps, steps=SUB_STEPS)
