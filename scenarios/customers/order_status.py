"""The order status customer: asks where an order is, says plainly which order (date and
items) when asked or when the agent picks another one, and is done once the agent names the
right order with a status.

The customer cannot check a status itself, so it accepts any recognisable status for the
right order (the verifier judges it); an answer that names no status gets a follow-up.
"""

from __future__ import annotations

from scenarios.customers.base import CustomerState, CustomerTurn, WorldView
from scenarios.envs.order_status import canonical_status
from scenarios.models import StatusGoal, Submission


def reply(state: CustomerState, goal: StatusGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    order_id = (sub.order_id or "").strip()
    if order_id or sub.answer:
        problem = _problem(goal, order_id, sub.answer)
        if problem is None:
            return CustomerTurn("Thanks, that's what I wanted to know!", "done")
        return CustomerTurn(f"{problem} Never mind, bye.", "quit") if sub.done else CustomerTurn(problem, "correct")
    if sub.done:
        return CustomerTurn("You haven't told me anything about my order... Never mind, bye.", "quit")
    if "?" in message:
        if not state.memory.get("told"):
            state.memory["told"] = True
            return CustomerTurn(f"I mean {goal.description}.", "clarify")
        return CustomerTurn(f"That's all I know: it's {goal.description}.", "confirm")
    return CustomerTurn("Okay. So where is my order?", "continue")


def _problem(goal: StatusGoal, order_id: str, answer: str | None) -> str | None:
    if not order_id:
        return f"Which order are you looking at? I mean {goal.description}."
    if order_id != goal.order_id:
        return f"That's not the order I mean. I'm asking about {goal.description}."
    if canonical_status(answer) is None:
        return "Right order, but what's its status? Has it shipped, is it on its way, delivered...?"
    return None
