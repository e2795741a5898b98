"""The toy's check: +1 when every (order, status) the agent committed is the goal's, else −1."""

from __future__ import annotations

from verishop.scenarios.models import StatusGoal
from verishop.verifier.checks.base import Options, Scored, TaskScore, compose, messages
from verishop.verifier.exposure import exposure
from verishop.verifier.files import Episode
from verishop.verifier.models import Check
from verishop.verifier.requirements import SHOWN, Requirement, shop


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    seen = exposure(ep.transcript)
    said = [{"order_id": s.order_id, "status": s.answer_status, "shown": seen.shown(s.order_id or "", m["seq"])}
            for m, s in messages(ep) if s.order_id or s.answer_status]
    if not said:
        return TaskScore(-1.0, False, [Check(name="answer", expected=goal.status, found=None, passed=False,
                                             score=-1.0)], attempted=False)
    right = [a["order_id"] == goal.order_id and a["status"] == goal.status and a["shown"] for a in said]
    r_task, ok, check = compose([Scored(1.0 if r else -1.0, r, a) for r, a in zip(right, said)], name="answer")
    return TaskScore(r_task, ok, [check])


def charges(ep: Episode, goal: StatusGoal, check: Check, checks: list[Check]) -> list[Requirement]:
    return [Requirement(f"where {goal.description} is", "stated"), shop(SHOWN)]


def contradiction(ep: Episode, goal: StatusGoal) -> str | None:
    order = next((o for o in ep.scenario.orders if o.order_id == goal.order_id), None)
    return None if order is not None and order.status == goal.status else "the goal's order is not in the world"
