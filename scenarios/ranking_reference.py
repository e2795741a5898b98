"""Full-scan rankings: the definitions that the bounded rankings of `verishop.scenarios.ranking` (read
through the category indexes) are checked against, in tests and in `bench/ranking_equivalence.py`.

They read every candidate row into Python, so they are for checking only: at 2M products one
ranking takes 0.2 to 1 s.
"""

from __future__ import annotations

from verishop.scenarios.catalog.reader import CatalogReader, Product, feasible_products
from verishop.scenarios.constraints import feasible_sql, satisfies
from verishop.scenarios.models import Constraint, Persona, RankedProduct, Scenario
from verishop.scenarios.ranking import substitute_ranking, utility
from verishop.scenarios.stock import EpisodeStock


def pd_ideal_by_full_scan(catalog: CatalogReader, constraints: tuple[Constraint, ...], persona: Persona,
                          stock: EpisodeStock, k: int, extra: list[Product] = ()) -> list[RankedProduct]:
    """Every feasible product of the catalog (and of `extra`), in stock with the episode's `stock`
    applied, by utility, best first (ties by ID): the first k."""
    where, args = feasible_sql(constraints)
    candidates = feasible_products(catalog, where, args, limit=catalog.size)
    candidates += [p for p in extra if all(satisfies(p, c) for c in constraints)]
    reference = catalog.product(persona.reference_product_id)
    ranked = [RankedProduct(product_id=p.product_id, utility=utility(p, persona, reference))
              for p in candidates if stock.units(p) > 0]
    ranked.sort(key=lambda r: (-r.utility, r.product_id))
    return ranked[:k]


def sub_ideal_by_full_scan(catalog: CatalogReader, original: Product, constraints: tuple[Constraint, ...],
                           similarity_weight: float, stock: EpisodeStock, k: int) -> list[RankedProduct]:
    """Every other product of the original's category, in stock with the episode's `stock` applied,
    by relevance, best first (ties by ID): the first k."""
    candidates = [p for p in feasible_products(catalog, "category_id = ?", [original.category_id], limit=catalog.size)
                  if p.product_id != original.product_id]
    return substitute_ranking(candidates, original, constraints, similarity_weight, stock)[:k]


def ideal_mismatches(catalog: CatalogReader, scenario: Scenario) -> list[str]:
    """Where a scenario's stored ideal lists differ from the full scan of the catalog and the
    scenario's world (its stock changes, sell-out rules and episode products); empty when they agree. A journey's
    PD and SUB requests are checked against the merged world of the journey."""
    stock = EpisodeStock.of_scenario(scenario)
    extra = list(scenario.extra_products)
    goals = scenario.goal.tasks if scenario.goal.kind == "journey" else (scenario.goal,)
    problems = []
    for i, goal in enumerate(goals):
        if goal.kind == "product_discovery":
            expected = pd_ideal_by_full_scan(catalog, goal.constraints, goal.persona, stock,
                                             goal.items_to_recommend, extra)
        elif goal.kind == "substitution":
            original = catalog.product(goal.original_product_id)
            expected = sub_ideal_by_full_scan(catalog, original, goal.constraints, goal.similarity_weight,
                                              stock, goal.items_to_recommend)
        else:
            continue
        if list(goal.ideal) != expected:
            problems.append(f"{scenario.env_id} d={scenario.difficulty} seed={scenario.seed} request {i}: "
                            f"stored {list(goal.ideal)} != full scan {expected}")
    return problems
