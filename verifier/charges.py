"""The charge of each goal kind: which requirements one failed check of its breakdown failed
(`verishop.verifier.blame` dispatches here and handles journeys and the shared checks).

Each function reads the check's `found` with the goal and the episode's world. A list check
charges the misfits of the products offered (a constraint missed, never shown, sold out); only
a list whose every item fits charges the quality asked for (the ranking, closeness).
"""

from __future__ import annotations

from verishop.scenarios.constraints import describe, satisfies
from verishop.scenarios.envs.bundle import dollars, say_category
from verishop.scenarios.envs.product_discovery import PRIORITY_WORDS
from verishop.scenarios.models import (
    BundleGoal,
    CartGoal,
    PolicyGoal,
    ProductDiscoveryGoal,
    ReturnGoal,
    StatusGoal,
    SubstitutionGoal,
)
from verishop.scenarios.taxonomy import category, is_denied
from verishop.verifier.exposure import exposure
from verishop.verifier.files import Episode
from verishop.verifier.models import Check
from verishop.verifier.requirements import IN_STOCK, SHOWN, Requirement, hidden_or_stated, shop, told

# --- recommendation lists (PD, SUB, return replacements, bundles) ----------------------------


def _constraint(ep: Episode, c) -> Requirement:
    return hidden_or_stated(ep, describe(c), c.stated)


def _product_misses(ep: Episode, pid: str, constraints: tuple, shown: bool | None = None) -> list[Requirement]:
    """What one offered product fails: being shown by the shop's tools, the constraints, stock."""
    p = ep.shop.product(pid)
    if p is None or not (exposure(ep.transcript).shown(pid) if shown is None else shown):
        return [shop(SHOWN)]
    missed = [_constraint(ep, c) for c in constraints if not satisfies(p, c)]
    return missed or ([shop(IN_STOCK)] if p.stock <= 0 else [])


def _list_misses(ep: Episode, ids: list[str], constraints: tuple) -> list[Requirement]:
    return [r for pid in ids for r in _product_misses(ep, pid, constraints)]


def _shown_flag(found: object) -> bool | None:
    """What an item check's `found` says about the product having been shown, if anything."""
    if not isinstance(found, dict):
        return None
    flag = found.get("exists_and_shown", found.get("exists"))
    return flag if isinstance(flag, bool) else None


def _ids(found: object) -> list[str]:
    if isinstance(found, dict):
        return [str(found["product_id"])] if "product_id" in found else []
    return [str(x) for x in found] if isinstance(found, list) else []


def _first_id(found: object) -> str:
    ids = _ids(found)
    return ids[0] if ids else ""


def _commitment_lists(check: Check) -> list[list[str]]:
    return [_ids(c.get("found")) for c in check.found if isinstance(c, dict) and not c.get("passed")] \
        if isinstance(check.found, list) else []


def _ranked(ep: Episode, goal: ProductDiscoveryGoal | SubstitutionGoal, check: Check, checks: list[Check],
            quality: Requirement) -> list[Requirement]:
    """PD and SUB: a list check charges its misfits, or (all fitting) the quality asked for."""
    constraints = goal.constraints
    if check.name.startswith("item_"):
        return _product_misses(ep, _first_id(check.found), constraints, _shown_flag(check.found)) or [quality]
    if check.name == "recommended":
        return [Requirement(f"{goal.items_to_recommend} products recommended", "stated")]
    if check.name == "ideal_recomputed":
        return [Requirement("the stored ideal list matches the catalog", "shop", "environment")]
    if check.name == "commitments":
        return [r for ids in _commitment_lists(check)
                for r in (_list_misses(ep, ids, constraints) + _fits(ep, goal, ids) or [quality])]
    last = next((c for c in checks if c.name == "ranking_ndcg"), None)
    ids = _ids(last.found) if last else []
    misses = _list_misses(ep, ids, constraints) + _fits(ep, goal, ids)
    if check.name == "out_of_stock":
        return [r for r in misses if r.source == "shop"] or [Requirement(f"at most {goal.items_to_recommend} "
                                                                          "products", "stated")]
    return misses or [quality]


def _fits(ep: Episode, goal: ProductDiscoveryGoal | SubstitutionGoal, ids: list[str]) -> list[Requirement]:
    """SUB only: an offered product of another category, or the sold-out original itself."""
    if not isinstance(goal, SubstitutionGoal):
        return []
    out = []
    for pid in ids:
        p = ep.shop.product(pid)
        if p is not None and (p.category_id != goal.category_id or pid == goal.original_product_id):
            out.append(_original(ep, goal, "an alternative to"))
    return out


def _original(ep: Episode, goal: SubstitutionGoal, how: str) -> Requirement:
    title = goal.original_title or category(goal.category_id).name.lower()
    return hidden_or_stated(ep, f"{how} the {title}", goal.original_stated, said=goal.original_title or None)


_BEST = {"price": "prices", "rating": "reviews", "ship": "delivery times"}


def _pd(ep: Episode, goal: ProductDiscoveryGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    priority = goal.persona.priority
    if priority is None:
        quality = Requirement("the best matches for the customer's taste", "withheld")
    else:
        quality = hidden_or_stated(ep, f"the best {_BEST[priority]} among products that fit",
                                   goal.persona.priority_stated, said=PRIORITY_WORDS[priority])
    if check.name == "best_constraint_share":
        last = next((c for c in checks if c.name == "ranking_ndcg"), None)
        ids = _ids(last.found) if last else []
        shares = [(sum(satisfies(p, c) for c in goal.constraints), pid) for pid in ids
                  if (p := ep.shop.product(pid)) is not None]
        best = max(shares, default=(0, ids[0] if ids else ""))[1]
        return [_constraint(ep, c) for c in goal.constraints
                if (p := ep.shop.product(best)) is None or not satisfies(p, c)] or [shop(SHOWN)]
    return _ranked(ep, goal, check, checks, quality)


def _sub(ep: Episode, goal: SubstitutionGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    quality = _original(ep, goal, "as close as the best alternatives to")
    if check.name.startswith("item_"):
        ids = _ids(check.found)
        return (_product_misses(ep, _first_id(check.found), goal.constraints, _shown_flag(check.found))
                + _fits(ep, goal, ids) or [quality])
    return _ranked(ep, goal, check, checks, quality)


# --- the other goal kinds ---------------------------------------------------------------------


def _variant(ep: Episode, item) -> Requirement:
    said = f"{str(item.variant_attribute).replace('_', ' ')} {item.variant_value}"
    return hidden_or_stated(ep, f"the {item.description} in {said}", item.variant_stated, said=said)


def _cart(ep: Episode, goal: CartGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    by_group = {p.group_id: item for item in goal.items if (p := ep.shop.product(item.product_id)) is not None}
    wanted = {item.product_id: item for item in goal.items}

    def item_misses(item) -> list[Requirement]:
        have = ep.world.cart.get(item.product_id, 0)
        target = ep.shop.product(item.product_id)
        siblings = [pid for pid in ep.world.cart if pid != item.product_id and target is not None
                    and (p := ep.shop.product(pid)) is not None and p.group_id == target.group_id]
        if siblings and item.variant_attribute:
            return [_variant(ep, item)]
        if have != item.quantity:
            return [Requirement(f"{item.quantity} × the {item.description}", "stated")]
        return []

    def extra(pid: str) -> Requirement:
        p = ep.shop.product(pid)
        item = by_group.get(p.group_id) if p is not None else None
        if item is not None and pid != item.product_id and item.variant_attribute:
            return _variant(ep, item)
        if pid in wanted:
            return Requirement(f"{wanted[pid].quantity} × the {wanted[pid].description}", "stated")
        return Requirement("only the items asked for", "stated")

    if check.name.startswith("item: "):
        item = next((i for i in goal.items if check.name == f"item: {i.description}"), None)
        return item_misses(item) if item else []
    if check.name == "units_beyond_wanted_ever_in_cart":
        return [extra(pid) for pid in (check.found or {})]
    if check.name == "several_variants_carted":
        return [_variant(ep, wanted[pid]) for pid in check.found if pid in wanted]
    if check.name == "carted_before_shown":
        return [shop(SHOWN)]
    beyond = next((c for c in checks if c.name == "units_beyond_wanted_ever_in_cart"), None)
    return ([r for item in goal.items for r in item_misses(item)]
            + [extra(pid) for pid in ((beyond.found or {}) if beyond else {})]
            + ([shop(SHOWN)] if any(c.name == "carted_before_shown" for c in checks) else []))


def _the_line(ep: Episode, goal: ReturnGoal) -> Requirement:
    words = f"return {goal.description}"
    if not goal.details:
        return Requirement(words, "stated")
    if told(ep, goal.description) or all(told(ep, d) for d in goal.details):
        return Requirement(words, "revealed")
    return hidden_or_stated(ep, words, False, said=next(d for d in goal.details if not told(ep, d)))


def _return(ep: Episode, goal: ReturnGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    if check.name in ("selected_line", "returned_lines"):
        return [_the_line(ep, goal)]
    constraints = goal.replacement or ()
    if not check.found:
        return [Requirement("a replacement", "stated")]
    found = check.found if isinstance(check.found, list) else []
    lists = [[p for p in c.get("found", [])] for c in found if isinstance(c, dict) and not c.get("passed")]
    return [r for offers in lists for offer in offers if isinstance(offer, dict)
            for r in _product_misses(ep, str(offer.get("product_id")), constraints, _shown_flag(offer))]


def _status(ep: Episode, goal: StatusGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    order = hidden_or_stated(ep, goal.description, not goal.indirect)
    answers = [c.get("found") or {} for c in check.found if isinstance(c, dict) and not c.get("passed")] \
        if isinstance(check.found, list) else []
    if not answers:
        return [Requirement(f"an answer: where {goal.description} is", "stated")]
    out: list[Requirement] = []
    for a in answers:
        if a.get("order_id") != goal.order_id:
            out.append(order)
        elif not exposure(ep.transcript).shown(goal.order_id):
            out.append(shop(SHOWN))
        if a.get("status") != goal.status:
            out.append(shop(f"its status: {goal.status.replace('_', ' ')}"))
    return out


def _policy(ep: Episode, goal: PolicyGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    if check.found is None:
        return [Requirement("an answer to the question", "stated")]
    # An answer given before every detail was told is charged to the details never asked for.
    untold = [hidden_or_stated(ep, detail, False) for detail in goal.unstated]
    withheld = [r for r in untold if r.source == "withheld"]
    return withheld or [shop(f"the policy's answer: {goal.answer}")]


def _bundle(ep: Episode, goal: BundleGoal, check: Check, checks: list[Check]) -> list[Requirement]:
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
            out.append(Requirement(f"within {dollars(goal.budget_cents)}", "stated"))
        return out

    if check.name == "budget":
        return [Requirement(f"within {dollars(goal.budget_cents or 0)}", "stated")]
    if check.name.startswith("item_"):
        pid = _first_id(check.found)
        if _shown_flag(check.found) is False:
            return [shop(SHOWN)]
        items = [c for c in checks if c.name.startswith("item_")]
        before = {p.category_id for c in items[:items.index(check)] if c.passed
                  for p in [ep.shop.product(_first_id(c.found))] if p is not None}
        return wrong(pid, before) or [Requirement(f"only what the {goal.project} needs", "stated")]
    if check.name == "commitments":
        return [r for ids in _commitment_lists(check) for r in list_misses(ids)]
    items = [_first_id(c.found) for c in checks if c.name.startswith("item_")]
    if not items:
        return [needs(cat) for cat in goal.categories]
    return list_misses(items)


CHARGES = {ProductDiscoveryGoal: _pd, SubstitutionGoal: _sub, CartGoal: _cart, ReturnGoal: _return,
           StatusGoal: _status, PolicyGoal: _policy, BundleGoal: _bundle}
