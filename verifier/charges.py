"""The charges kit: what the environments' `charges` functions share. Each environment's
`check.py` names which requirements one failed check of its breakdown failed;
`verishop.verifier.blame` dispatches there through the registry and handles the shared checks.

A list check charges the misfits of the products offered (a constraint missed, never shown,
sold out); only a list whose every item fits charges the quality asked for (the ranking,
closeness).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from verishop.scenarios.constraints import describe, satisfies
from verishop.verifier.exposure import exposure
from verishop.verifier.files import Episode
from verishop.verifier.models import Check
from verishop.verifier.requirements import IN_STOCK, SHOWN, Requirement, hidden_or_stated, kept_for_view, shop


def constraint(ep: Episode, c) -> Requirement:
    return hidden_or_stated(ep, describe(c), c.stated)


def product_misses(ep: Episode, pid: str, constraints: tuple, shown: bool | None = None) -> list[Requirement]:
    """What one offered product fails: being shown by the shop's tools, the constraints, stock."""
    p = ep.shop.product(pid)
    if p is None or not (exposure(ep.transcript).shown(pid) if shown is None else shown):
        return [shop(SHOWN)]
    return list(_misses_of_shown(ep, p, constraints))


def _misses_of_shown(ep: Episode, p, constraints: tuple) -> tuple[Requirement, ...]:
    """The constraints and stock a shown product fails (kept: an item's check, then the list's
    ranking, stock and commitments ask it of the same product)."""
    def misses() -> tuple[Requirement, ...]:
        requirements = _constraint_requirements(ep, constraints)
        missed = [r for c, r in zip(constraints, requirements) if not satisfies(p, c)]
        return tuple(missed or ([shop(IN_STOCK)] if p.stock <= 0 else []))

    return kept_for_view(ep, "misses_of_shown", (p.product_id,), misses, constraints)


def _constraint_requirements(ep: Episode, constraints: tuple) -> tuple[Requirement, ...]:
    """`constraint` of each of `constraints`, in order (kept: every product offered asks them)."""
    return kept_for_view(ep, "constraint_requirements", (), lambda: tuple(constraint(ep, c) for c in constraints),
                         constraints)


def list_misses(ep: Episode, ids: list[str], constraints: tuple) -> list[Requirement]:
    """The misses of every product of a list (kept: a list's checks ask it of the same list)."""
    return list(kept_for_view(ep, "list_misses", tuple(ids),
                              lambda: tuple(r for pid in ids for r in product_misses(ep, pid, constraints)),
                              constraints))


def shown_flag(found: object) -> bool | None:
    """What an item check's `found` says about the product having been shown, if anything."""
    if not isinstance(found, dict):
        return None
    flag = found.get("exists_and_shown", found.get("exists"))
    return flag if isinstance(flag, bool) else None


def found_ids(found: object) -> list[str]:
    if isinstance(found, dict):
        return [str(found["product_id"])] if "product_id" in found else []
    return [str(x) for x in found] if isinstance(found, list) else []


def first_found_id(found: object) -> str:
    ids = found_ids(found)
    return ids[0] if ids else ""


def commitment_lists(check: Check) -> list[list[str]]:
    return [found_ids(c.get("found")) for c in check.found if isinstance(c, dict) and not c.get("passed")] \
        if isinstance(check.found, list) else []


def ranked(ep: Episode, goal: Any, check: Check, checks: list[Check], quality: Requirement,
           fits: Callable[[list[str]], list[Requirement]] = lambda ids: []) -> list[Requirement]:
    """A ranked list (PD, SUB): a list check charges its misfits (`fits`: what else an offered
    product must be), or (all fitting) the quality asked for."""
    constraints = goal.constraints
    if check.name.startswith("item_"):
        return product_misses(ep, first_found_id(check.found), constraints, shown_flag(check.found)) or [quality]
    if check.name == "recommended":
        return [Requirement(f"{goal.items_to_recommend} products recommended", "stated")]
    if check.name == "ideal_recomputed":
        return [Requirement("the stored ideal list matches the catalog", "shop", "environment")]
    if check.name == "commitments":
        return [r for ids in commitment_lists(check)
                for r in (list_misses(ep, ids, constraints) + fits(ids) or [quality])]
    last = next((c for c in checks if c.name == "ranking_ndcg"), None)
    ids = found_ids(last.found) if last else []
    misses = list_misses(ep, ids, constraints) + fits(ids)
    if check.name == "out_of_stock":
        return [r for r in misses if r.source == "shop"] or [Requirement(f"at most {goal.items_to_recommend} "
                                                                          "products", "stated")]
    return misses or [quality]
