"""Project bundles: the categories of the recommended products against the required ones,
minus the budget overrun (reference section 3).

Each distinct list recommended is a commitment (duplicates dropped), composed by the rule of
`verishop.verifier.checks.base`. A product counts for its category when a tool had shown it, it
exists, is in stock in this episode, is not from a denied category and is the first of its
category in the list (one per category is asked for); any other product counts as one wrong
entry of its own. Over the set P of
counted categories (and wrong entries) and the required set R:

    F1     = 2·|P ∩ R| / (|P| + |R|)      (a second product of a category is a wrong entry)
    cost   = Σ price of every recommended product that exists
    r_task = clip(2·F1 − 1 − max(0, (cost − B)/B), −1, 1)   (no budget B: no overrun)

Solved when F1 = 1 and cost ≤ B.
"""

from __future__ import annotations

from verishop.scenarios.catalog.reader import Product
from verishop.envs.bundle.generator import money, say_category
from verishop.scenarios.models import BundleGoal
from verishop.scenarios.taxonomy import is_denied
from verishop.verifier.charges import commitment_lists, first_found_id, shown_flag
from verishop.verifier.requirements import IN_STOCK, SHOWN, Requirement, hidden_or_stated, shop
from verishop.verifier.checks.base import Options, Scored, TaskScore, compose, recommendation_lists, seen_products
from verishop.verifier.exposure import exposure
from verishop.verifier.files import Episode
from verishop.verifier.models import Check


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, BundleGoal)
    notes: list[str] = []
    lists = recommendation_lists(ep, None, notes)
    if not lists:
        return TaskScore(r_task=-1.0, is_correct=False, notes=notes, attempted=False,
                         checks=[Check(name="category_f1", expected=sorted(goal.categories), found=[], passed=False,
                                       score=-1.0)])
    seen = exposure(ep.transcript)
    restricted = ep.scenario.policy.restricted_categories
    scored = []
    for seq, recommended, _ in lists:
        r_list, solved, list_checks = _score_list(goal, recommended, seen_products(ep, recommended, seq, seen),
                                                  restricted)
        scored.append(Scored(r_list, solved, recommended))
    r_task, is_correct, commitments = compose(scored)
    return TaskScore(r_task=r_task, is_correct=is_correct, checks=[*list_checks, commitments], notes=notes)


def _score_list(goal: BundleGoal, recommended: list[str], products: list[Product | None],
                restricted: tuple[str, ...] = ()) -> tuple[float, bool, list[Check]]:
    required = set(goal.categories)
    counted: set[str] = set()
    for pid, p in zip(recommended, products):
        # One product per category is asked for: a second one of a covered category is a miss.
        counted.add(p.category_id if _counts(p, restricted) and p.category_id not in counted
                    else f"not counted: {pid}")
    hits = len(counted & required)
    f1 = 2 * hits / (len(counted) + len(required))
    cost = sum(p.price_cents for p in products if p is not None)
    overrun = 0.0 if goal.budget_cents is None else max(0.0, (cost - goal.budget_cents) / goal.budget_cents)
    r_task = max(-1.0, min(1.0, 2 * f1 - 1 - overrun))
    within = goal.budget_cents is None or cost <= goal.budget_cents
    checks = [
        Check(name="category_f1", expected=sorted(required), found=sorted(counted), passed=f1 >= 1.0,
              score=round(2 * f1 - 1, 6)),
        Check(name="budget", expected={"budget_cents": goal.budget_cents}, found={"cost_cents": cost},
              passed=within, score=round(-overrun, 6)),
    ]
    checks += [_item_check(i, pid, p, required, restricted) for i, (pid, p) in enumerate(zip(recommended, products))]
    return r_task, f1 >= 1.0 and within, checks


def _counts(p: Product | None, restricted: tuple[str, ...] = ()) -> bool:
    return p is not None and p.stock > 0 and not is_denied(p.category_id, restricted)


def _item_check(i: int, pid: str, p: Product | None, required: set[str], restricted: tuple[str, ...] = ()) -> Check:
    expected = "an in-stock product of a required category"
    if p is None:
        return Check(name=f"item_{i + 1}", expected=expected, found={"product_id": pid, "exists_and_shown": False},
                     passed=False)
    found = {"product_id": pid, "exists": True, "category_id": p.category_id, "in_stock": p.stock > 0,
             "price_cents": p.price_cents}
    return Check(name=f"item_{i + 1}", expected=expected, found=found,
                 passed=_counts(p, restricted) and p.category_id in required)


# --- what a failed check charges (verishop.verifier.blame) -----------------------------------


def charges(ep: Episode, goal: BundleGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    def needs(cat: str) -> Requirement:
        return hidden_or_stated(ep, say_category(cat), cat not in goal.unstated)

    def wrong(pid: str, counted_before: set[str]) -> list[Requirement]:
        p = ep.shop.product(pid)
        if p is None or not exposure(ep.transcript).shown(pid):
            return [shop(SHOWN)]
        if is_denied(p.category_id, ep.scenario.policy.restricted_categories):
            return [shop("no product of a category the shop must not offer")]
        if p.stock <= 0:
            return [shop(IN_STOCK)]
        if p.category_id not in goal.categories:
            return [Requirement(f"only what the {goal.project} needs", "stated")]
        return [Requirement("one product of each kind", "stated")] if p.category_id in counted_before else []

    def list_misses(ids: list[str]) -> list[Requirement]:
        out, counted, tried = [], set(), set()
        for pid in ids:
            problems = wrong(pid, counted)
            out += problems
            p = ep.shop.product(pid)
            if p is not None:
                # A category filled by a product that cannot count is charged to that product.
                (tried if problems else counted).add(p.category_id)
        out += [needs(cat) for cat in goal.categories if cat not in counted | tried]
        cost = sum(p.price_cents for pid in ids if (p := ep.shop.product(pid)) is not None)
        if goal.budget_cents is not None and cost > goal.budget_cents:
            out.append(Requirement(f"within {money(goal.budget_cents, goal.currency)}", "stated"))
        return out

    if check.name == "budget":
        return [Requirement(f"within {money(goal.budget_cents or 0, goal.currency)}", "stated")]
    if check.name.startswith("item_"):
        pid = first_found_id(check.found)
        if shown_flag(check.found) is False:
            return [shop(SHOWN)]
        items = [c for c in checks if c.name.startswith("item_")]
        before = {p.category_id for c in items[:items.index(check)] if c.passed
                  for p in [ep.shop.product(first_found_id(c.found))] if p is not None}
        return wrong(pid, before) or [Requirement(f"only what the {goal.project} needs", "stated")]
    if check.name == "commitments":
        return [r for ids in commitment_lists(check) for r in list_misses(ids)]
    items = [first_found_id(c.found) for c in checks if c.name.startswith("item_")]
    if not items:
        return [needs(cat) for cat in goal.categories]
    return list_misses(items)


def contradiction(ep: Episode, goal: BundleGoal) -> str | None:
    """How the world contradicts the goal (so no answer could pass), or None."""
    if not goal.reference_product_ids:
        return None
    refs = [ep.shop.product(pid) for pid in goal.reference_product_ids]
    if any(p is None or p.stock <= 0 for p in refs):
        return "a product of the goal's reference bundle is missing or sold out in the world"
    if goal.budget_cents is not None and sum(p.price_cents for p in refs if p) > goal.budget_cents:
        return "the goal's reference bundle costs more than its budget"
    return None
