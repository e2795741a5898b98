"""What an environment's task check returns, and the options it may take."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

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
