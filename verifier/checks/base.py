"""What an environment's task check returns, and the options it may take."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from scenarios.catalog.reader import Product
from scenarios.models import RankedProduct
from scenarios.ranking import ndcg
from verifier.files import Episode
from verifier.models import Check


@dataclass(frozen=True)
class Options:
    # PD: rank against an ideal list recomputed from the catalog instead of the scenario's.
    recompute_ideal: bool = False


@dataclass
class TaskScore:
    r_task: float
    is_correct: bool
    checks: list[Check] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # False for a task that needs no ID at all (a policy answer): an agent that used none is
    # then clean (r_hall = 1) rather than idle (r_hall = 0, the rule where IDs are the work).
    needs_ids: bool = True


TaskCheck = Callable[[Episode, Options], TaskScore]


def final_recommendations(ep: Episode, k: int | None, notes: list[str]) -> list[str]:
    """The product IDs of the agent's last non-empty recommendation, duplicates dropped, the
    first `k` kept (all when `k` is None); what was dropped is noted."""
    last = next((s.recommended_product_ids for s in reversed(ep.transcript.submissions)
                 if s.recommended_product_ids), ())
    unique = list(dict.fromkeys(pid.strip() for pid in last))
    if len(unique) < len(last):
        notes.append(f"{len(last) - len(unique)} duplicate recommendations dropped")
    if k is not None and len(unique) > k:
        notes.append(f"{len(unique)} products recommended, only the first {k} scored")
    return unique if k is None else unique[:k]


# --- ranked recommendations (PD, SUB) -------------------------------------------------------


def nothing_recommended(ideal: list[RankedProduct], checks: list[Check], notes: list[str]) -> TaskScore:
    checks.append(Check(name="recommended", expected=[r.product_id for r in ideal], found=[], passed=False,
                        score=-1.0))
    return TaskScore(r_task=-1.0, is_correct=False, checks=checks, notes=notes)


def ranking_check(ideal: list[RankedProduct], recommended: list[str], rels: list[float]) -> tuple[float, Check]:
    """r_rank = 2·nDCG − 1 of the recommended relevances against the ideal list's."""
    n = ndcg(rels, [r.utility for r in ideal])
    r_rank = 2 * n - 1
    return r_rank, Check(name="ranking_ndcg", expected=[r.product_id for r in ideal], found=recommended,
                         passed=n >= 1.0, score=round(r_rank, 6))


def stock_check(recommended: list[str], products: list[Product | None]) -> tuple[float, Check]:
    """r_oos = 1 − 2·(share of recommended items out of stock)."""
    sold_out = sum(1 for p in products if p is not None and p.stock <= 0)
    r_oos = 1 - 2 * sold_out / len(recommended)
    return r_oos, Check(name="out_of_stock", expected=0, found=sold_out, passed=sold_out == 0,
                        score=round(r_oos, 6))
