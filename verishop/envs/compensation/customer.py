"""The compensation customer (issue 34): complains about an order and wants something back.

It knows its order and its grievance, not the store's rules: it cannot tell a right amount from a
wrong one, nor a right refusal from a wrong one, and the verifier judges. Whatever the agent
answers, an offer (an amount, typed `answer_number`, for its order) or the typed refusal
`not_eligible`, it pushes back with its script, one line each time (`insist`), as many times as the
script holds. Then it accepts: a refusal ends the request with thanks; an offer is agreed to
(`approve`) and it waits for the write, which it thanks for. A write before it agreed draws an
objection; a refusal of another kind ("return it instead") makes no sense to it. It never says an ID.
"""

from __future__ import annotations

from verishop.scenarios.customers.base import (CustomerState, CustomerTurn, WorldView, neutral_close, next_pushback,
                                                objection)
from verishop.scenarios.customers.proposals import named_order
from verishop.scenarios.customers.topics import Detail, answer
from verishop.scenarios.models import CompensationGoal, Submission

_APPROVED = "approved"


def reply(state: CustomerState, goal: CompensationGoal, message: str, sub: Submission,
          world: WorldView) -> CustomerTurn:
    if world.order_writes or world.returns or world.cart:
        if not state.memory.get(_APPROVED):
            return objection("Wait, I hadn't agreed to anything yet!", sub)
        return neutral_close()  # it cannot know the amount it is owed
    order_ids = [o.order_id for o in state.scenario.orders]
    named = named_order(message, sub, order_ids)
    if named is not None and named != goal.order_id:
        return objection(f"That's not the order I mean. I mean {goal.description}.", sub)
    if sub.answer_refusal is not None:
        if sub.answer_refusal != "not_eligible":
            return objection("That doesn't make sense to me. Am I owed anything for this or not?", sub)
        return _pushed(state, goal, sub, CustomerTurn("Alright, I understand. Thank you for explaining.", "done"))
    if state.memory.get(_APPROVED):
        if sub.done:
            return CustomerTurn("You said you'd sort it out, and you haven't... Never mind, bye.", "quit")
        return CustomerTurn("Yes, please go ahead.", "continue")
    if named == goal.order_id and sub.answer_number is not None and sub.answer_number > 0:
        turn = _pushed(state, goal, sub, CustomerTurn("Fine, I'll take that. Please go ahead.", "approve"))
        if turn.tag == "approve":
            state.memory[_APPROVED] = True
        return turn
    if sub.done:
        return CustomerTurn("You haven't helped me at all... Never mind, bye.", "quit")
    nudge = "So what can you do for me?"
    turn = answer(state, message, details(goal), nudge, nothing_left=f"That's all. {nudge}")
    return turn or CustomerTurn(f"Okay. {nudge}", "continue")


def _pushed(state: CustomerState, goal: CompensationGoal, sub: Submission, accepted: CustomerTurn) -> CustomerTurn:
    """The next line of the script while it lasts (leaving if the agent closed), else `accepted`."""
    return next_pushback(state, goal.pushbacks, sub) or accepted


def details(goal: CompensationGoal) -> list[Detail]:
    """What the customer can tell: which order or item it means (the opening said it), and how late
    the order came (the opening may have said only "late")."""
    said = [Detail("item", frozenset({"order", "item", "date"}), f"I mean {goal.description}.", False)]
    if goal.complaint == "late":
        said.append(Detail("late", frozenset({"delivery"}), "Check the order: it came days after the date you "
                           "promised.", False))
    return said
