"""The policy customer: asks one question and gives the details it left out when asked (one
per question). It cannot know the answer itself, so it never judges one: it takes the first
definite answer it is given, thanks the agent, and the request ends (the verifier scores the
answer). An answer it cannot pin down (nothing readable, or a hedge across several values) is
no answer: it asks back, as a person would (`verishop.scenarios.commitments`)."""

from __future__ import annotations

from verishop.scenarios.answers import AMBIGUOUS
from verishop.scenarios.commitments import answered, policy_ask_back, policy_commitment, policy_reading
from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView
from verishop.scenarios.models import PolicyGoal, Submission
from verishop.scenarios.policy import policy_figures


def reply(state: CustomerState, goal: PolicyGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    # Read as the verifier reads it: figures the shop's policy states are restatements.
    given = policy_figures(state.scenario.policy)
    if policy_commitment(goal, sub, given) is not None:
        return CustomerTurn("Okay, thanks for checking. That answers my question!", "done")
    if sub.done:
        return CustomerTurn("You haven't answered my question... never mind, bye.", "quit")
    if answered(sub):
        return CustomerTurn(policy_ask_back(goal, policy_reading(goal, sub, given) is AMBIGUOUS), "continue")
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
