"""The return customer: describes the item, tells one more detail each time the agent asks,
objects when the agent names or returns the wrong item, asks for the return until it is
started, then (if they want one) for a replacement that fits, and is done when both are right.

It sees only the messages and its world (the returns started); it never says an order or
line ID, and describes any item in its own words.
"""

from __future__ import annotations

from verishop.scenarios.constraints import describe, describe_violation, satisfies, share_met
from verishop.scenarios.customers.base import CustomerState, CustomerTurn, WorldView, neutral_close, seen_close
from verishop.scenarios.customers.topics import Detail, answer, attribute_topics, constraint_topics
from verishop.scenarios.models import ReturnGoal, Submission
from verishop.scenarios.taxonomy import CATEGORIES

ATTRIBUTE_NAMES = frozenset(a.name for c in CATEGORIES for a in c.attributes)


def reply(state: CustomerState, goal: ReturnGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    target = (goal.order_id, goal.line_id)
    if goal.replacement and sub.recommended_product_ids:
        state.memory["replacement_problem"] = _replacement_problem(state, goal, sub.recommended_product_ids)
    problem = _wrong_item(state, goal, sub, world)
    if problem is not None:
        return CustomerTurn(f"{problem} Never mind, bye.", "quit") if sub.done else CustomerTurn(problem, "correct")
    if target not in world.returns:
        if sub.done:
            return CustomerTurn("You haven't started my return yet... Never mind, bye.", "quit")
        return _answer(state, goal, message, "Could you go ahead and start the return?") \
            or CustomerTurn("Okay. Could you go ahead and start the return?", "continue")
    problem = state.memory.get("replacement_problem", "Nothing recommended yet.")
    if goal.replacement and problem is not None:
        if sub.recommended_product_ids:
            return CustomerTurn(f"{problem} Never mind, bye.", "quit") if sub.done else CustomerTurn(problem, "correct")
        if sub.done:
            return CustomerTurn("Thanks for the return, but I also wanted a replacement. Bye.", "quit")
        return _answer(state, goal, message, "What would you suggest as a replacement?") \
            or CustomerTurn("Thanks, the return is started. What would you suggest as a replacement?", "continue")
    if goal.replacement:  # the verdict also needs each replacement shown by the shop's tools: it cannot tell
        return neutral_close()
    return seen_close(state, "Perfect, that's everything I needed. Thank you!")


def _wrong_item(state: CustomerState, goal: ReturnGoal, sub: Submission, world: WorldView) -> str | None:
    """What is wrong with the item the agent returned or named, in the customer's words."""
    wrong = [r for r in world.returns if r != (goal.order_id, goal.line_id)]
    if wrong:
        return (f"You started a return for the {_title(state, wrong[-1][1])}, but that's not what I wanted to "
                f"return. I meant {goal.description}.")
    order_id, line_id = (sub.order_id or "").strip(), (sub.line_id or "").strip()
    if order_id and order_id != goal.order_id:
        return f"That's not the order I mean. I want to return {goal.description}."
    if line_id and line_id != goal.line_id:
        title = _title(state, line_id)
        return f"Not the {title}: I want to return {goal.description}."
    return None


def _title(state: CustomerState, line_id: str) -> str:
    """The customer knows their own items by name."""
    titles = {line.line_id: line.title for order in state.scenario.orders for line in order.lines}
    return titles.get(line_id, "item you mentioned")


def _answer(state: CustomerState, goal: ReturnGoal, message: str, nudge: str) -> CustomerTurn | None:
    return answer(state, message, details(goal), nudge,
                  nothing_left=f"That's all I can tell you: I want to return {goal.description}.")


def details(goal: ReturnGoal) -> list[Detail]:
    """What the customer can tell, by topic: each detail of the item the opening left out, the
    item as a whole (said again when asked), then each requirement of the replacement."""
    told = [Detail(("detail", i), item_detail_topics(d) | {"item"}, d, True) for i, d in enumerate(goal.details)]
    told.append(Detail("item", frozenset({"item", "order"}), f"I want to return {goal.description}.", False))
    return told + [Detail(i, constraint_topics(c.kind, c.attribute), f"For the replacement, it should be "
                          f"{describe(c)}.", not c.stated) for i, c in enumerate(goal.replacement or ())]


def item_detail_topics(detail: str) -> frozenset[str]:
    """The topics of one detail sentence `verishop/envs/return_/generator.py` writes (`Description.detail`):
    "It's made by …", "I ordered it on …", "It's the Black one.", "It's the one with size M."."""
    if detail.startswith("It's made by "):
        return frozenset({"brand"})
    if detail.startswith("I ordered it on "):
        return frozenset({"order", "date"})
    if detail.startswith("It's the one with "):
        said = detail.removeprefix("It's the one with ")
        name = max((a for a in ATTRIBUTE_NAMES if said.startswith(a.replace("_", " ") + " ")), key=len, default="")
        return attribute_topics(name) if name else frozenset({"features"})
    return attribute_topics("color")


def _replacement_problem(state: CustomerState, goal: ReturnGoal, ids: tuple[str, ...]) -> str | None:
    """None when every replacement offered is in stock and meets every constraint, else the
    first problem."""
    constraints = goal.replacement or ()
    ids = tuple(dict.fromkeys(pid.strip() for pid in ids))
    products = [state.lookup(pid) for pid in ids]
    known = [p for p in products if p is not None]
    if not known:
        return f"I can't find {ids[0]} in your shop. Are you sure that's right?"
    if len(known) == len(products) and all(p.stock > 0 and all(satisfies(p, c) for c in constraints) for p in known):
        return None
    if len(known) < len(products):
        return f"I can't find {ids[[p is None for p in products].index(True)]} in your shop. Are you sure that's right?"
    worst = min(known, key=lambda p: (share_met(p, constraints), p.stock > 0))
    if all(satisfies(worst, c) for c in constraints):
        return f"The {worst.title} is sold out. Anything in stock?"
    i, c = next((i, c) for i, c in enumerate(constraints) if not satisfies(worst, c))
    state.revealed.add(i)
    return f"As a replacement? Hmm, {describe_violation(worst, c)}"
