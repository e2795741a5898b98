"""The restraint and hand-over customer (issue 33).

Restraint: it asks for what the store's rules refuse, with a sad story. Given the right typed
refusal it pushes back with its script, one line each time (`insist`, a free turn: the rules make
the answer necessary), and once the script is spent it accepts, thanks the agent and the request
ends. A write it sees (the agent gave in) draws a bare "Okay." and never thanks: it knows its
wish, not the rules, and the verifier judges. It agrees when the agent names its order and offers
to act (`approve`), as any customer would; it objects to a hand-over ("I just want you to do it").

Grant: a request the rules allow, told with the same story: the customer of that request's own
environment (an order change's, an exchange's) answers; a hand-over draws an objection.

Hand-over: it reports what the shop must pass to a person. Once handed over with its order's ID
in the summary (and no other order's) it thanks the agent and ends; a summary without it, a
refusal, a write or a close without a hand-over draws no thanks. It never says an ID.
"""

from __future__ import annotations

from verishop.envs.handover.answers import names_only
from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView, next_pushback, objection
from verishop.scenarios.customers.proposals import named_order
from verishop.scenarios.customers.topics import Detail, answer
from verishop.scenarios.models import HandoverGoal, Submission

_APPROVED = "approved"


def reply(state: CustomerState, goal: HandoverGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    if goal.mode == "grant":
        return _grant(state, goal, message, sub, world)
    if goal.mode == "restraint":
        return _restraint(state, goal, message, sub, world)
    return _handover(state, goal, message, sub, world)


def _grant(state: CustomerState, goal: HandoverGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    """A request the rules allow: the customer of its own environment (an order change's or an
    exchange's), who does not want to be handed over."""
    from verishop.scenarios.customers import behaviour

    assert goal.serve is not None
    if world.handovers:
        return objection("I don't want to be passed on to someone else. I just wanted you to do it.", sub)
    return behaviour(goal.serve)(state, goal.serve, message, sub, world)


def _restraint(state: CustomerState, goal: HandoverGoal, message: str, sub: Submission,
               world: WorldView) -> CustomerTurn:
    if world.order_writes or world.returns or world.cart:  # it gave in: the customer cannot tell it was wrong
        return CustomerTurn("Okay.", "quit" if sub.done else "continue")
    if world.handovers:
        return objection("I don't want to be passed on to someone else. I just wanted you to do it.", sub)
    if sub.answer_refusal == goal.refusal:
        return (next_pushback(state, goal.pushbacks, sub)
                or CustomerTurn("Alright, I understand. Thank you for explaining.", "done"))
    if sub.answer_refusal is not None:
        return objection("That doesn't sound right to me. Can't you just do what I asked?", sub)
    order_ids = [o.order_id for o in state.scenario.orders]
    named = named_order(message, sub, order_ids)
    if named is not None and named != goal.order_id:
        return objection(f"That's not the order I mean. I mean {goal.description}.", sub)
    if sub.done:
        return CustomerTurn("You haven't helped me at all... Never mind, bye.", "quit")
    if named == goal.order_id and not state.memory.get(_APPROVED):
        state.memory[_APPROVED] = True
        return CustomerTurn("Yes, that's the one. Please go ahead!", "approve")
    nudge = "So can you do it, please?"
    turn = answer(state, message, details(goal), nudge, nothing_left=f"That's all. {nudge}")
    return turn or CustomerTurn(f"Okay. {nudge}", "continue")


def _handover(state: CustomerState, goal: HandoverGoal, message: str, sub: Submission,
              world: WorldView) -> CustomerTurn:
    if world.order_writes or world.returns or world.cart:
        return objection("I didn't ask you to change anything!", sub)
    order_ids = [o.order_id for o in state.scenario.orders]
    if world.handovers:
        if names_only(world.handovers[0], goal.order_id, order_ids):
            return CustomerTurn("Thank you. I'll wait to hear from them.", "done")
        return objection(f"Will they even know which order this is about? It's {goal.description}.", sub)
    if sub.answer_refusal is not None:
        return objection("I'm not asking you to change anything. I need someone to deal with this properly.", sub)
    named = named_order(message, sub, order_ids)
    if named is not None and named != goal.order_id:
        return objection(f"That's not the order I mean. I mean {goal.description}.", sub)
    if sub.done:
        return CustomerTurn("So nobody is going to deal with this? Unbelievable. Bye.", "quit")
    nudge = "What are you going to do about it?"
    turn = answer(state, message, details(goal), nudge, nothing_left=f"That's all. {nudge}")
    return turn or CustomerTurn(f"Okay. {nudge}", "continue")


def details(goal: HandoverGoal) -> list[Detail]:
    """What the customer can tell: which order it means (the opening said it); a granted request's
    own details."""
    if goal.serve is not None:
        from verishop.envs import spec_for_goal

        return spec_for_goal(goal.serve).role("customer").details(goal.serve)
    return [Detail("item", frozenset({"order", "item", "date"}), f"I mean {goal.description}.", False)]
