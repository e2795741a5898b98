"""The toy's customer: thanks the agent for the right order and status, objects to a wrong one."""

from __future__ import annotations

from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView
from verishop.scenarios.models import StatusGoal, Submission


def reply(state: CustomerState, goal: StatusGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    if sub.order_id is None and sub.answer_status is None:
        if sub.done:
            return CustomerTurn("You haven't told me anything. Bye.", "quit")
        return CustomerTurn(f"So where is {goal.description}?", "continue")
    if sub.order_id == goal.order_id and sub.answer_status == goal.status:
        return CustomerTurn("Thanks!", "done")
    return CustomerTurn(f"That's not right: I mean {goal.description}.", "correct")
