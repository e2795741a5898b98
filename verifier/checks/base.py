"""What every environment's task check shares: its result, its options, and the one rule for
commitments.

Committed answers count. Whatever the agent commits (a recommendation list, an order and its
status, a policy answer, a selected or returned line, a bundle) is scored as committed, each
commitment by the environment's own scoring, in order. A later correction does not erase an
earlier mistake:

    r_task     = clip(s_last − Σ_{earlier i} (1 − s_i), −1, 1)
    is_correct = every commitment passes

Each earlier commitment costs its whole shortfall from a perfect answer, so no sequence of
answers scores above its first one alone (r_task ≤ s_1): trying candidates until the customer
stops objecting is never worth it. A wrong binary answer (s = −1) followed by the right one
scores −1; an almost-right list (s = 0.9) followed by the ideal one scores 0.9, as the almost-
right list alone would; repeating a right answer gains and costs nothing.

Every item offered must fit, in every environment: PD and SUB rank the first k items and count
each one beyond k as a miss in the out-of-stock share; in a bundle a second product of a
category is a wrong entry; every replacement offered must fit.
An ID no tool had shown the agent before it was committed earns nothing: it is treated as a
product that does not exist, never in stock (`verishop.verifier.exposure`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from verishop.scenarios.catalog.reader import Product
from verishop.scenarios.models import RankedProduct, Submission
from verishop.scenarios.ranking import ndcg
from verishop.verifier.exposure import Exposure, exposure
from verishop.verifier.files import Episode
from verishop.verifier.models import Check


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
    # Whether the agent committed anything at all: one that did not earns no hallucination credit.
    attempted: bool = True


TaskCheck = Callable[[Episode, Options], TaskScore]


@dataclass(frozen=True)
class Scored:
    """One commitment, scored as if the episode had ended with it."""

    score: float
    passed: bool
    found: Any = None


def compose(commitments: list[Scored], name: str = "commitments") -> tuple[float, bool, Check]:
    """The commitment rule (module docstring): r_task, is_correct, and the check that shows it."""
    *earlier, last = commitments
    penalty = sum(1 - c.score for c in earlier)
    r_task = max(-1.0, min(1.0, last.score - penalty))
    is_correct = all(c.passed for c in commitments)
    check = Check(name=name, expected="every commitment right",
                  found=[{"found": c.found, "score": round(c.score, 6), "passed": c.passed} for c in commitments],
                  passed=is_correct, score=round(r_task, 6))
    return r_task, is_correct, check


def recommendation_lists(ep: Episode, k: int | None, notes: list[str]) -> list[tuple[int, list[str], int]]:
    """Every distinct recommendation the agent committed, in order, as (seq of its message,
    IDs with duplicates dropped and cut to `k`, how many were offered beyond `k`). Sending the
    same list again is one commitment."""
    lists: list[tuple[int, list[str], int]] = []
    for message, submission in zip(ep.transcript.assistant, ep.transcript.submissions):
        if not submission.recommended_product_ids:
            continue
        ids = list(dict.fromkeys(pid.strip() for pid in submission.recommended_product_ids))
        if len(ids) < len(submission.recommended_product_ids):
            notes.append(f"{len(submission.recommended_product_ids) - len(ids)} duplicate recommendations dropped")
        beyond = 0
        if k is not None and len(ids) > k:
            notes.append(f"{len(ids)} products recommended for {k} asked: the {len(ids) - k} beyond count as misses")
            ids, beyond = ids[:k], len(ids) - k
        if not lists or lists[-1][1:] != (ids, beyond):
            lists.append((message["seq"], ids, beyond))
    return lists


def seen_products(ep: Episode, ids: list[str], seq: int, seen: Exposure | None = None) -> list[Product | None]:
    """The products behind `ids` as the agent may use them at event `seq`: None for an ID that
    does not exist or that no tool had shown it yet."""
    seen = seen or exposure(ep.transcript)
    return [ep.shop.product(pid) if seen.shown(pid, seq) else None for pid in ids]


def messages(ep: Episode) -> list[tuple[dict, Submission]]:
    return list(zip(ep.transcript.assistant, ep.transcript.submissions))


# --- ranked recommendations (PD, SUB) -------------------------------------------------------


def nothing_recommended(ideal: list[RankedProduct], checks: list[Check], notes: list[str]) -> TaskScore:
    checks.append(Check(name="recommended", expected=[r.product_id for r in ideal], found=[], passed=False,
                        score=-1.0))
    return TaskScore(r_task=-1.0, is_correct=False, checks=checks, notes=notes, attempted=False)


def ranking_check(ideal: list[RankedProduct], recommended: list[str], rels: list[float]) -> tuple[float, Check]:
    """r_rank = 2·nDCG − 1 of the recommended relevances against the ideal list's."""
    n = ndcg(rels, [r.utility for r in ideal])
    r_rank = 2 * n - 1
    return r_rank, Check(name="ranking_ndcg", expected=[r.product_id for r in ideal], found=recommended,
                         passed=n >= 1.0, score=round(r_rank, 6))


def stock_check(recommended: list[str], products: list[Product | None], beyond: int = 0) -> tuple[float, Check]:
    """r_oos = 1 − 2·(share of offered items out of stock or beyond the number asked); a
    product that does not exist, or that no tool showed, is never in stock."""
    sold_out = sum(1 for p in products if p is None or p.stock <= 0)
    r_oos = 1 - 2 * (sold_out + beyond) / (len(recommended) + beyond)
    return r_oos, Check(name="out_of_stock", expected=0, found={"sold_out": sold_out, "beyond_asked": beyond},
                        passed=sold_out + beyond == 0, score=round(r_oos, 6))
