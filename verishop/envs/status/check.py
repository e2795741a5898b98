"""Order status: the right order identified and its status stated.

    s      = 2·(0.5·[order right] + 0.5·[status right]) − 1   for each answer committed
    r_task = the answers composed by the commitment rule (`verishop.verifier.checks.base`);
             solved when every answer names the right order and its status

An answer is a turn that commits one (`verishop.envs.status.answers.status_commitment`, the
rule the customer follows too): it states one definite status, or names an order that is not
the customer's. The order is the submitted order_id, else the one order ID the message names;
it counts only if a tool had shown it. The status is the typed `answer_status` (read exactly),
else read from `answer`, else from the message, the way a person reads it
(`verishop.scenarios.answers.read_status`): "It's on its way", "delivered on March 3". A turn
that names the right order and no status, or hedges between statuses, commits nothing (the
customer asks back, a paid turn); naming several orders with a status is a hedge and wrong.
"""

from __future__ import annotations

from verishop.scenarios.answers import AMBIGUOUS
from verishop.envs.status.answers import status_commitment
from verishop.scenarios.models import StatusGoal
from verishop.verifier.requirements import SHOWN, Requirement, hidden_or_stated, shop
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
        claim = status_commitment(goal, str(message.get("text", "")), sub)
        if claim is None:
            continue
        order, status = claim.order, claim.status
        order_right = order == goal.order_id and seen.shown(goal.order_id, message["seq"])
        status_right = status == goal.status
        found = {"order_id": None if order is AMBIGUOUS else order, "status": None if status is AMBIGUOUS else status,
                 "answer": sub.answer if sub.answer_status is None else sub.answer_status, "hedged": order is AMBIGUOUS or status is AMBIGUOUS}
        scored.append(Scored(2 * (0.5 * order_right + 0.5 * status_right) - 1, order_right and status_right, found))
    expected = {"order_id": goal.order_id, "status": goal.status}
    if not scored:
        return TaskScore(r_task=-1.0, is_correct=False, attempted=False,
                         checks=[Check(name="answer", expected=expected, found=None, passed=False, score=-1.0)])
    r_task, is_correct, check = compose(scored, name="answer")
    return TaskScore(r_task=r_task, is_correct=is_correct, checks=[check.model_copy(update={"expected": expected})])


# --- what a failed check charges (verishop.verifier.blame) -----------------------------------


def charges(ep: Episode, goal: StatusGoal, check: Check, checks: list[Check]) -> list[Requirement]:
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


def contradiction(ep: Episode, goal: StatusGoal) -> str | None:
    """How the world contradicts the goal (so no answer could pass), or None."""
    order = next((o for o in ep.scenario.orders if o.order_id == goal.order_id), None)
    if order is None:
        return f"the order {goal.order_id} asked about is not among the customer's orders"
    if order.status.replace("_", " ") != goal.status.replace("_", " "):
        return f"the order's status is {order.status}, the goal says {goal.status}"
    return None
