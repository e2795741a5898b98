"""The order status customer: asks where an order is and knows which of its own orders it
means. It says plainly which one (date and items) when asked, once, if its opening was vague,
and objects when the agent names another order. It cannot check a status itself, so it never
judges one: the right order with any status named ends the request with thanks (the verifier
scores the status). It reads the order and the status from the structured answer, else from
the message's words (`verishop.scenarios.answers.status_claim`).
"""

from __future__ import annotations

from verishop.scenarios.answers import AMBIGUOUS, status_claim
from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView
from verishop.scenarios.models import StatusGoal, Submission


def reply(state: CustomerState, goal: StatusGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    if (sub.order_id or "").strip() or (sub.answer or "").strip():
        order, status = status_claim(message, sub.order_id, sub.answer)
        turn = _judge(goal, order, status)
        if sub.done and turn.tag != "done":
            return CustomerTurn(f"{turn.text} Never mind, bye.", "quit")
        return turn
    if sub.done:
        return CustomerTurn("You haven't told me anything about my order... Never mind, bye.", "quit")
    if "?" in message:
        if goal.indirect and not state.memory.get("told"):
            state.memory["told"] = True
            return CustomerTurn(f"I mean {goal.description}.", "clarify")
        return CustomerTurn(f"That's all I know: it's {goal.description}.", "confirm")
    return CustomerTurn("Okay. So where is my order?", "continue")


def _judge(goal: StatusGoal, order: object, status: object) -> CustomerTurn:
    if order is AMBIGUOUS:
        return CustomerTurn(f"Which one are you talking about? I mean {goal.description}.", "correct")
    if not order:
        return CustomerTurn(f"Which order are you looking at? I mean {goal.description}.", "continue")
    if order != goal.order_id:
        return CustomerTurn(f"That's not the order I mean. I'm asking about {goal.description}.", "correct")
    if status is None or status is AMBIGUOUS:
        return CustomerTurn("Right order, but what's its status? Has it shipped, is it on its way, delivered...?",
                            "continue")
    return CustomerTurn("Okay, thanks for letting me know!", "done")
