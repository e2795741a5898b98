"""Order status: the right order identified and its status stated.

    s      = 2·(0.5·[order right] + 0.5·[status right]) − 1   for each answer committed
    r_task = the answers composed by the commitment rule (`verishop.verifier.checks.base`);
             solved when every answer names the right order and its status

An answer is a turn whose submission names an order or gives an `answer`. The order is the
submitted order_id, else the one order ID the message names; it counts only if a tool had
shown it. The status is read from `answer`, else from the message, the way a person reads it
(`verishop.scenarios.answers.read_status`): "It's on its way", "delivered on March 3". Naming several
orders or several statuses is a hedge and counts as wrong.
"""

from __future__ import annotations

from verishop.scenarios.answers import AMBIGUOUS, status_claim
from verishop.scenarios.models import StatusGoal
from verishop.verifier.checks.base import Options, Scored, TaskScore, compose, messages
from verishop.verifier.exposure import exposure
from verishop.verifier.files import Episode
from verishop.verifier.models import Check


def score(ep: Episode, options: Options) -> TaskScore:
    goal = ep.scenario.goal
    assert isinstance(goal, StatusGoal)
    seen = exposure(ep.transcript)
    scored: list[Scored] = []
    for message, sub in messages(ep):
        if not ((sub.order_id or "").strip() or (sub.answer or "").strip()):
            continue
        order, status = status_claim(str(message.get("text", "")), sub.order_id, sub.answer)
        order_right = order == goal.order_id and seen.shown(goal.order_id, message["seq"])
        status_right = status == goal.status
        found = {"order_id": None if order is AMBIGUOUS else order, "status": None if status is AMBIGUOUS else status,
                 "answer": sub.answer, "hedged": order is AMBIGUOUS or status is AMBIGUOUS}
        scored.append(Scored(2 * (0.5 * order_right + 0.5 * status_right) - 1, order_right and status_right, found))
    expected = {"order_id": goal.order_id, "status": goal.status}
    if not scored:
        return TaskScore(r_task=-1.0, is_correct=False, attempted=False,
                         checks=[Check(name="answer", expected=expected, found=None, passed=False, score=-1.0)])
    r_task, is_correct, check = compose(scored, name="answer")
    return TaskScore(r_task=r_task, is_correct=is_correct, checks=[check.model_copy(update={"expected": expected})])
