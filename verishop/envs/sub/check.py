"""Substitution: the recommended alternatives against the ideal list (reference section 3).

    rel(p)  = λ·sim(p, original) + (1 − λ)·share of constraints met,
              0 if p is sold out, unknown, of another category, or the original itself
    r_rank  = 2·nDCG@k − 1        (ideal: goal.ideal, computed from the catalog at generation)
    r_oos   = 1 − 2·(share of offered items out of stock or beyond the k asked)
    r_task  = 0.8·r_rank + 0.2·r_oos   (−1 when nothing was recommended)

r_oos is rescaled from the reference's −share to [−1, 1] like PD's (see the `verifier`
docstring): with −share a perfect answer scores r_task = 0.8 and is never solved (≥ 0.95).
Each distinct list recommended is a commitment scored this way (duplicates dropped, cut to k,
an ID no tool had shown is a product that does not exist); lists compose by the commitment
rule of `verishop.verifier.checks.base`.
"""

from __future__ import annotations

from verishop.scenarios.catalog.reader import Product
from verishop.scenarios.constraints import describe, satisfies
from verishop.scenarios.taxonomy import category
from verishop.scenarios.models import RankedProduct, SubstitutionGoal
from verishop.scenarios.ranking import best_substitutes, substitute_relevance
from verishop.verifier.charges import first_found_id, found_ids, product_misses, ranked, shown_flag
from verishop.verifier.requirements import Requirement, hidden_or_stated
from verishop.verifier.checks.base import (
    Options,
    Scored,
    TaskScore,
    compose,
    nothing_recommended,
    ranking_check,
    recommendation_lists,
    seen_products,
    stock_check,
)
from verishop.verifier.exposure import exposure
from verishop.verifier.files import Episode
from verishop.verifier.models import Check

W_RANK, W_OOS = 0.8, 0.2
SOLVED_AT = 0.95


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, SubstitutionGoal)
    k = goal.items_to_recommend
    notes: list[str] = []
    original = ep.shop.product(goal.original_product_id)
    ideal = list(goal.ideal[:k])
    checks: list[Check] = []
    if options.recompute_ideal and original is not None:
        ideal = _recompute_ideal(ep, goal, original, ideal, checks)
    lists = recommendation_lists(ep, k, notes)
    if not lists:
        return nothing_recommended(ideal, checks, notes)
    seen = exposure(ep.transcript)
    scored: list[Scored] = []
    for seq, recommended, beyond in lists:
        products = seen_products(ep, recommended, seq, seen)
        rels = [relevance(p, goal, original) for p in products]
        r_rank, rank = ranking_check(ideal, recommended, rels)
        r_oos, stock = stock_check(recommended, products, beyond)
        r_list = W_RANK * r_rank + W_OOS * r_oos
        scored.append(Scored(r_list, round(r_list, 6) >= SOLVED_AT, recommended))
        list_checks = [rank, stock, *(_item_check(i, pid, p, rel, goal)
                                      for i, (pid, p, rel) in enumerate(zip(recommended, products, rels)))]
    r_task, is_correct, commitments = compose(scored)
    return TaskScore(r_task=r_task, is_correct=is_correct, checks=[*checks, *list_checks, commitments], notes=notes)


def relevance(p: Product | None, goal: SubstitutionGoal, original: Product | None) -> float:
    if p is None or original is None or p.stock <= 0:
        return 0.0
    return substitute_relevance(p, original, goal.constraints, goal.similarity_weight)


def _item_check(i: int, pid: str, p: Product | None, rel: float, goal: SubstitutionGoal) -> Check:
    expected = "an in-stock alternative of the same category, close to the original"
    if p is None:
        return Check(name=f"item_{i + 1}", expected=expected, found={"product_id": pid, "exists": False},
                     passed=False, score=0.0)
    missed = [describe(c) for c in goal.constraints if not satisfies(p, c)]
    bar = min((r.utility for r in goal.ideal), default=0.0)
    found = {"product_id": pid, "exists": True, "in_stock": p.stock > 0, "constraints_missed": missed,
             "relevance": round(rel, 6)}
    return Check(name=f"item_{i + 1}", expected=expected, found=found, passed=rel > 0 and rel >= bar,
                 score=round(rel, 6))


def _recompute_ideal(ep: Episode, goal: SubstitutionGoal, original: Product, stored: list[RankedProduct],
                     checks: list[Check]) -> list[RankedProduct]:
    # The whole category's best (sub-v3's ranking); a sub-v2 goal ranked only the first 20,000
    # products of the category, which differs only on a catalog with more of them.
    recomputed = best_substitutes(ep.shop.catalog, original, goal.constraints, goal.similarity_weight,
                                  ep.shop.stock, goal.items_to_recommend)
    same = [(r.product_id, r.utility) for r in recomputed] == [(r.product_id, r.utility) for r in stored]
    checks.append(Check(name="ideal_recomputed", expected=[r.product_id for r in stored],
                        found=[r.product_id for r in recomputed], passed=same))
    return recomputed


# --- what a failed check charges (verishop.verifier.blame) -----------------------------------


def _fits(ep: Episode, goal: SubstitutionGoal, ids: list[str]) -> list[Requirement]:
    """An offered product of another category, or the sold-out original itself."""
    out = []
    for pid in ids:
        p = ep.shop.product(pid)
        if p is not None and (p.category_id != goal.category_id or pid == goal.original_product_id):
            out.append(_original(ep, goal, "an alternative to"))
    return out


def _original(ep: Episode, goal: SubstitutionGoal, how: str) -> Requirement:
    title = goal.original_title or category(goal.category_id).name.lower()
    return hidden_or_stated(ep, f"{how} the {title}", goal.original_stated, said=goal.original_title or None)


def charges(ep: Episode, goal: SubstitutionGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    quality = _original(ep, goal, "as close as the best alternatives to")
    if check.name.startswith("item_"):
        ids = found_ids(check.found)
        return (product_misses(ep, first_found_id(check.found), goal.constraints, shown_flag(check.found))
                + _fits(ep, goal, ids) or [quality])
    return ranked(ep, goal, check, checks, quality, lambda ids: _fits(ep, goal, ids))


def contradiction(ep: Episode, goal: SubstitutionGoal) -> str | None:
    """How the world contradicts the goal (so no answer could pass), or None."""
    if not goal.ideal:
        return "the goal's ideal list is empty"
    best = ep.shop.product(goal.ideal[0].product_id)
    if best is None or best.stock <= 0:
        return f"the ideal product {goal.ideal[0].product_id} is missing or sold out in the world"
    if best.category_id != goal.category_id:
        return f"the ideal substitute {best.product_id} is not of the category asked for"
    return None
