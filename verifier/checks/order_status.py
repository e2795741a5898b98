"""Order status: the right order identified and its status stated.

    r_task = 2·(0.5·[order right] + 0.5·[status right]) − 1,  solved when both are right

The answer is the last submission that names an order or gives an answer; its status is
compared after normalisation (`scenarios.envs.order_status.canonical_status`: case, spaces,
underscores and hyphens ignored, a few documented synonyms such as "on its way" for in_transit).
"""

from __future__ import annotations

from scenarios.envs.order_status import canonical_status
from scenarios.models import StatusGoal
from verifier.checks.base import Options, TaskScore
from verifier.files import Episode
from verifier.models import Check


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, StatusGoal)
    final = next((s for s in reversed(ep.transcript.submissions) if s.order_id or s.answer), None)
    order_id = (final.order_id or "").strip() if final else None
    answer = final.answer if final else None
    order_right = order_id == goal.order_id
    status_right = canonical_status(answer) == goal.status
    checks = [
        Check(name="order", expected=goal.order_id, found=order_id, passed=order_right,
              score=1.0 if order_right else -1.0),
        Check(name="status", expected=goal.status, found={"answer": answer, "read_as": canonical_status(answer)},
              passed=status_right, score=1.0 if status_right else -1.0),
    ]
    r_task = 2 * (0.5 * order_right + 0.5 * status_right) - 1
    return TaskScore(r_task=r_task, is_correct=order_right and status_right, checks=checks)
