"""The product discovery customer: states some constraints (and what matters most to it),
answers questions about the others, corrects recommendations that miss, accepts one that fits."""

from __future__ import annotations

import re

from verishop.scenarios.constraints import describe, describe_violation, satisfies, share_met
from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView
from verishop.scenarios.envs.product_discovery import PRIORITY_WORDS
from verishop.scenarios.models import ProductDiscoveryGoal, Submission

# `state.revealed` index for the priority (constraints use their own indices).
_PRIORITY = -2
_ASKS_PRIORITY = re.compile(r"\b(matters?|important|priorit\w*|prefer\w*|care|value)\b", re.IGNORECASE)


def reply(state: CustomerState, goal: ProductDiscoveryGoal, message: str, sub: Submission,
          world: WorldView) -> CustomerTurn:
    if sub.recommended_product_ids:
        return _judge_recommendations(state, goal, sub.recommended_product_ids)
    if sub.done:
        return CustomerTurn("You haven't suggested anything yet... never mind, bye.", "quit")
    if "?" in message:
        return _answer_question(state, goal, message)
    return CustomerTurn("Okay. What would you recommend?", "continue")


def _answer_question(state: CustomerState, goal: ProductDiscoveryGoal, message: str) -> CustomerTurn:
    """A question about what matters gets the priority; any other question gets the next
    requirement the opening left out, then the priority, then "that's everything"."""
    priority = goal.persona.priority
    priority_open = priority is not None and not goal.persona.priority_stated and _PRIORITY not in state.revealed
    if priority_open and _ASKS_PRIORITY.search(message):
        return _tell_priority(state, priority)
    for i, c in enumerate(goal.constraints):
        if not c.stated and i not in state.revealed:
            state.revealed.add(i)
            return CustomerTurn(f"Good question. It should be {describe(c)}.", "clarify")
    if priority_open:
        return _tell_priority(state, priority)
    return CustomerTurn("No, that's everything I need. What do you suggest?", "confirm")


def _tell_priority(state: CustomerState, priority: str) -> CustomerTurn:
    state.revealed.add(_PRIORITY)
    return CustomerTurn(f"{PRIORITY_WORDS[priority]} Otherwise I'm flexible.", "clarify")


def _judge_recommendations(state: CustomerState, goal: ProductDiscoveryGoal,
                           ids: tuple[str, ...]) -> CustomerTurn:
    products = [state.lookup(pid) for pid in ids]
    unknown = [pid for pid, p in zip(ids, products) if p is None]
    if unknown:
        return CustomerTurn(f"I can't find {unknown[0]} in your shop. Are you sure that's right?", "correct")
    known = [p for p in products if p is not None]
    fits = [p for p in known if all(satisfies(p, c) for c in goal.constraints) and p.stock > 0]
    if fits:
        return CustomerTurn(f"The {fits[0].title} looks perfect. Thanks, that's all I needed!", "done")
    best = max(known, key=lambda p: share_met(p, goal.constraints))
    if best.stock <= 0:
        return CustomerTurn(f"The {best.title} is sold out. Anything in stock?", "correct")
    for i, c in enumerate(goal.constraints):
        if not satisfies(best, c):
            state.revealed.add(i)
            return CustomerTurn(f"Hmm, {describe_violation(best, c)}", "correct")
    return CustomerTurn("None of these are quite what I want.", "dissatisfied")
