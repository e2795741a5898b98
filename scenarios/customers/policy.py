"""The policy customer: asks one question, gives the details it left out when asked (one per
question), and judges an answer the way the verifier does. A wrong answer is met with a detail
still unsaid, when there is one (the likely cause), else with plain doubt."""

from __future__ import annotations

from scenarios.customers.base import CustomerState, CustomerTurn, WorldView
from scenarios.models import PolicyGoal, Submission
from scenarios.policy import answer_reward

SOLVED_AT = 0.95


def reply(state: CustomerState, goal: PolicyGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    if sub.answer is not None and sub.answer.strip():
        if round(answer_reward(goal, sub.answer), 6) >= SOLVED_AT:
            return CustomerTurn("Great, that answers my question. Thank you!", "done")
        detail = _next_detail(state, goal)
        if detail is not None:
            return CustomerTurn(f"Hmm, does that take into account my situation? {detail}", "correct")
        if sub.done:
            return CustomerTurn("That doesn't sound right to me, but never mind. Bye.", "quit")
        return CustomerTurn("That doesn't match what I expected. Could you check the policy again?", "dissatisfied")
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
