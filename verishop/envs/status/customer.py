"""The order status customer: asks where an order is and knows which of its own orders it
means. It says plainly which one (date and items) when asked, once, if its opening was vague,
and objects when the agent names another order. It cannot check a status itself, so it never
judges one: the right order with one definite status ends the request with thanks (the verifier
scores the status). A turn that names the right order but no status, or hedges between
statuses, commits nothing: it asks back "So where is my order now?" (a paid turn). It reads the
claim as the verifier does (`verishop.envs.status.answers.status_commitment`).
"""

from __future__ import annotations

from verishop.scenarios.answers import AMBIGUOUS
from verishop.envs.status.answers import StatusClaim, status_commitment, status_reading, status_turn
from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView, neutral_close
from verishop.scenarios.customers.topics import Detail, answer
from verishop.scenarios.models import StatusGoal, Submission


def reply(state: CustomerState, goal: StatusGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    if status_turn(sub):
        claim = status_commitment(goal, message, sub)
        turn = _judge(goal, claim.order, claim.status) if claim else _ask_back(goal, status_reading(message, sub))
        if sub.done and turn.tag != "done":
            return CustomerTurn(f"{turn.text} Never mind, bye.", "quit")
        return turn
    if sub.done:
        return CustomerTurn("You haven't told me anything about my order... Never mind, bye.", "quit")
    which = Detail("order", frozenset({"item", "order", "date"}), f"I mean {goal.description}.", goal.indirect)
    turn = answer(state, message, [which], "So where is my order?",
                  nothing_left=f"That's all I know: it's {goal.description}.")
    return turn or CustomerTurn("Okay. So where is my order?", "continue")


def details(goal: StatusGoal) -> list[Detail]:
    """What the customer can tell, by topic: which order it means, when its opening was vague."""
    return [Detail("order", frozenset({"order"}), goal.description, True)] if goal.indirect else []


def _ask_back(goal: StatusGoal, claim: StatusClaim) -> CustomerTurn:
    """No status committed: the right order without one, several orders, or a hedge."""
    if claim.order is AMBIGUOUS:
        return CustomerTurn(f"Which one are you talking about? I mean {goal.description}.", "continue")
    if claim.status is AMBIGUOUS:
        return CustomerTurn("Sorry, which is it? So where is my order now?", "continue")
    if claim.order == goal.order_id:
        return CustomerTurn("Yes, that's the one. So where is my order now?", "continue")
    return CustomerTurn(f"Which order are you looking at? I mean {goal.description}.", "continue")


def _judge(goal: StatusGoal, order: object, status: object) -> CustomerTurn:
    if order is AMBIGUOUS:
        return CustomerTurn(f"Which one are you talking about? I mean {goal.description}.", "correct")
    if not order:
        return CustomerTurn(f"Which order are you looking at? I mean {goal.description}.", "continue")
    if order != goal.order_id:
        return CustomerTurn(f"That's not the order I mean. I'm asking about {goal.description}.", "correct")
    return neutral_close()  # it cannot check the status
