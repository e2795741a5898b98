"""The product discovery customer: states some constraints (and what matters most to it),
answers questions about the others, corrects recommendations that miss, accepts one that fits."""

from __future__ import annotations

from verishop.scenarios.constraints import describe, describe_violation, satisfies, share_met
from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView, neutral_close
from verishop.scenarios.customers.topics import Detail, answer, constraint_topics
from verishop.envs.pd.generator import PRIORITY_WORDS
from verishop.scenarios.models import ProductDiscoveryGoal, Submission

# `state.revealed` index for the priority (constraints use their own indices).
_PRIORITY = -2
NUDGE = "What would you recommend?"


def reply(state: CustomerState, goal: ProductDiscoveryGoal, message: str, sub: Submission,
          world: WorldView) -> CustomerTurn:
    if sub.recommended_product_ids:
        return _judge_recommendations(state, goal, sub.recommended_product_ids)
    if sub.done:
        return CustomerTurn("You haven't suggested anything yet... never mind, bye.", "quit")
    turn = answer(state, message, details(goal), NUDGE, nothing_left="No, that's everything I need. What do you "
                                                                      "suggest?")
    return turn or CustomerTurn(f"Okay. {NUDGE}", "continue")


def details(goal: ProductDiscoveryGoal) -> list[Detail]:
    """What the customer can tell, by topic: each requirement, then what matters most to it."""
    told = [Detail(i, constraint_topics(c.kind, c.attribute), f"It should be {describe(c)}.", not c.stated)
            for i, c in enumerate(goal.constraints)]
    priority = goal.persona.priority
    if priority is not None:
        told.append(Detail(_PRIORITY, frozenset({"priority"}), PRIORITY_WORDS[priority],
                           not goal.persona.priority_stated))
    return told


def _judge_recommendations(state: CustomerState, goal: ProductDiscoveryGoal,
                           ids: tuple[str, ...]) -> CustomerTurn:
    products = [state.lookup(pid) for pid in ids]
    unknown = [pid for pid, p in zip(ids, products) if p is None]
    if unknown:
        return CustomerTurn(f"I can't find {unknown[0]} in your shop. Are you sure that's right?", "correct")
    known = [p for p in products if p is not None]
    fits = [p for p in known if all(satisfies(p, c) for c in goal.constraints) and p.stock > 0]
    if fits:
        # It sees a product that fits; the verdict ranks the list against an ideal one it cannot compute.
        return neutral_close(f"Thanks, I'll go with the {fits[0].title}.")
    best = max(known, key=lambda p: share_met(p, goal.constraints))
    if best.stock <= 0:
        return CustomerTurn(f"The {best.title} is sold out. Anything in stock?", "correct")
    for i, c in enumerate(goal.constraints):
        if not satisfies(best, c):
            state.revealed.add(i)
            return CustomerTurn(f"Hmm, {describe_violation(best, c)}", "correct")
    return CustomerTurn("None of these are quite what I want.", "dissatisfied")
