"""Product discovery: the recommended list against the ideal list (reference section 3).

    rel(p)  = persona utility if p meets every constraint and is in stock, else 0
    r_rank  = 2·nDCG@k − 1
    r_cons  = 2·s_best^α − 1,  s_best = best share of constraints met,  α = 4 + ⌊d/4⌋
    r_oos   = 1 − 2·(share of offered items out of stock or beyond the k asked)
    r_task  = 0.55·r_rank + 0.35·r_cons + 0.10·r_oos   (−1 when nothing was recommended)

r_oos is rescaled from the reference's −share to [−1, 1] (see `verifier` docstring): with
−share a perfect answer scores r_task = 0.9 and is_correct (r_task ≥ 0.95) is unreachable.
Each distinct list recommended is a commitment, scored this way (duplicates dropped, cut to
k, an ID no tool had shown counts as a product that does not exist and is never in stock);
the lists compose by the commitment rule of `verishop.verifier.checks.base`.
"""

from __future__ import annotations

from verishop.scenarios.catalog.reader import Product
from verishop.scenarios.constraints import describe, satisfies
from verishop.envs.pd.generator import PRIORITY_WORDS
from verishop.scenarios.models import Constraint, ProductDiscoveryGoal, RankedProduct
from verishop.scenarios.ranking import ideal_ranking, utility
from verishop.verifier.charges import constraint, found_ids, ranked
from verishop.verifier.requirements import SHOWN, Requirement, hidden_or_stated, shop
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

W_RANK, W_CONS, W_OOS = 0.55, 0.35, 0.10
SOLVED_AT = 0.95


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, ProductDiscoveryGoal)
    k = goal.items_to_recommend
    notes: list[str] = []
    ideal = list(goal.ideal[:k])
    checks: list[Check] = []
    if options.recompute_ideal:
        ideal = _recompute_ideal(ep, goal, ideal, checks)
    lists = recommendation_lists(ep, k, notes)
    if not lists:
        return nothing_recommended(ideal, checks, notes)
    seen = exposure(ep.transcript)
    reference = ep.shop.product(goal.persona.reference_product_id)
    scored: list[Scored] = []
    for seq, recommended, beyond in lists:
        r_list, list_checks = _score_list(ep, goal, ideal, recommended, seen_products(ep, recommended, seq, seen),
                                          reference, beyond)
        scored.append(Scored(r_list, round(r_list, 6) >= SOLVED_AT, recommended))
    r_task, is_correct, commitments = compose(scored)
    return TaskScore(r_task=r_task, is_correct=is_correct, checks=[*checks, *list_checks, commitments], notes=notes)


def _score_list(ep: Episode, goal: ProductDiscoveryGoal, ideal: list[RankedProduct], recommended: list[str],
                products: list[Product | None], reference: Product | None, beyond: int) -> tuple[float, list[Check]]:
    """r_task of one recommended list, and the checks that show it."""
    # The constraints each product misses, read once: its relevance, share and item check all ask.
    misses = [None if p is None else [c for c in goal.constraints if not satisfies(p, c)] for p in products]
    rels = [_relevance(p, missed, goal, reference) for p, missed in zip(products, misses)]
    r_rank, rank = ranking_check(ideal, recommended, rels)
    s_best = max((_share_met(missed, goal.constraints) for missed in misses if missed is not None), default=0.0)
    r_cons = 2 * s_best ** (4 + ep.scenario.difficulty // 4) - 1
    r_oos, stock = stock_check(recommended, products, beyond)
    checks = [
        rank,
        Check(name="best_constraint_share", expected=1.0, found=round(s_best, 6), passed=s_best >= 1.0,
              score=round(r_cons, 6)),
        stock,
    ]
    checks += [_item_check(i, pid, p, missed, rel)
               for i, (pid, p, missed, rel) in enumerate(zip(recommended, products, misses, rels))]
    return W_RANK * r_rank + W_CONS * r_cons + W_OOS * r_oos, checks


def _share_met(missed: list[Constraint], constraints: tuple[Constraint, ...]) -> float:
    """`share_met` of a product that misses `missed` of `constraints`."""
    if not constraints:
        return 1.0
    return (len(constraints) - len(missed)) / len(constraints)


def _relevance(p: Product | None, missed: list[Constraint] | None, goal: ProductDiscoveryGoal,
               reference: Product | None) -> float:
    if p is None or reference is None or p.stock <= 0:
        return 0.0
    if missed:
        return 0.0
    return utility(p, goal.persona, reference)


def _item_check(i: int, pid: str, p: Product | None, missed_constraints: list[Constraint] | None,
                rel: float) -> Check:
    if p is None:
        return Check(name=f"item_{i + 1}", expected="a product that meets every constraint, in stock",
                     found={"product_id": pid, "exists_and_shown": False}, passed=False, score=0.0)
    missed = [describe(c) for c in missed_constraints]
    found = {"product_id": pid, "exists": True, "in_stock": p.stock > 0, "constraints_missed": missed}
    return Check(name=f"item_{i + 1}", expected="a product that meets every constraint, in stock", found=found,
                 passed=not missed and p.stock > 0, score=round(rel, 6))


def _recompute_ideal(ep: Episode, goal: ProductDiscoveryGoal, stored: list[RankedProduct],
                     checks: list[Check]) -> list[RankedProduct]:
    # The whole catalog's best (pd-v4's ranking); a pd-v3 goal ranked only the first 20,000 feasible
    # products, which differs only on a catalog with more of them (about 800,000 products and up).
    recomputed = ideal_ranking(ep.shop.catalog, goal.constraints, goal.persona, ep.shop.stock,
                               goal.items_to_recommend, list(ep.world.extra_products.values()))
    same = [(r.product_id, r.utility) for r in recomputed] == [(r.product_id, r.utility) for r in stored]
    checks.append(Check(name="ideal_recomputed", expected=[r.product_id for r in stored],
                        found=[r.product_id for r in recomputed], passed=same))
    return recomputed


# --- what a failed check charges (verishop.verifier.blame) -----------------------------------


_BEST = {"price": "prices", "rating": "reviews", "ship": "delivery times"}


def charges(ep: Episode, goal: ProductDiscoveryGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    priority = goal.persona.priority
    if priority is None:
        quality = Requirement("the best matches for the customer's taste", "withheld")
    else:
        quality = hidden_or_stated(ep, f"the best {_BEST[priority]} among products that fit",
                                   goal.persona.priority_stated, said=PRIORITY_WORDS[priority])
    if check.name == "best_constraint_share":
        last = next((c for c in checks if c.name == "ranking_ndcg"), None)
        ids = found_ids(last.found) if last else []
        shares = [(sum(satisfies(p, c) for c in goal.constraints), pid) for pid in ids
                  if (p := ep.shop.product(pid)) is not None]
        best = max(shares, default=(0, ids[0] if ids else ""))[1]
        return [constraint(ep, c) for c in goal.constraints
                if (p := ep.shop.product(best)) is None or not satisfies(p, c)] or [shop(SHOWN)]
    return ranked(ep, goal, check, checks, quality)


def contradiction(ep: Episode, goal: ProductDiscoveryGoal) -> str | None:
    """How the world contradicts the goal (so no answer could pass), or None."""
    if not goal.ideal:
        return "the goal's ideal list is empty"
    best = ep.shop.product(goal.ideal[0].product_id)
    if best is None or best.stock <= 0:
        return f"the ideal product {goal.ideal[0].product_id} is missing or sold out in the world"
    return None
