"""The policy customer: asks one question and gives the details it left out when asked (one
per question). It cannot know the answer itself, so it never judges one: it takes the first
answer it is given, thanks the agent, and the request ends (the verifier scores the answer)."""

from __future__ import annotations

from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView
from verishop.scenarios.models import PolicyGoal, Submission


def reply(state: CustomerState, goal: PolicyGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    if sub.answer is not None and sub.answer.strip():
        return CustomerTurn("Okay, thanks for checking. That answers my question!", "done")
    if sub.done:
        return CustomerTurn("You haven't answered my question... never mind, bye.", "quit")
    if "?" in message:
        detail = _next_detail(state, goal)
        if detail is not None:
            return CustomerTurn(f"Good question. {detail}", "clarify")
        return CustomerTurn("No, that's all there is to it. So what's the answer?", "confirm")
    return CustomerTurn("So, what's the answer?", "continue")


def _next_detail(state: CustomerState, goal: PolicyGoal) -> str | None:
    for i, detail in enumerate(goal.unstated):
        if i not in state.revealed:
            state.revealed.add(i)
            return detail
    return None
