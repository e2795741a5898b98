"""The exchange customer: asks to swap a delivered item for another size or colour and what the
price difference is; tells what it held back when asked (the variant, which payment method, the
one it would take if its first choice is sold out); agrees once the agent has named the order,
the new variant, the payment method and the exact difference (typed, `answer_number`: what it
pays, negative when refunded), then waits for the exchange before it says goodbye.

Told that its first choice is sold out, it names the other it would take, or, having none, asks
whether the exchange is off (it ends with the typed refusal `out_of_stock`). It knows its items,
not the store's rules: told that the item cannot be exchanged (`not_eligible`) it accepts, and the
verifier judges whether that was right. It never says an ID.
"""

from __future__ import annotations

import re

from verishop.scenarios.customers.base import (CustomerState, CustomerTurn, OrderWrite, WorldView, objection,
                                                seen_close)
from verishop.scenarios.customers.proposals import (PAYMENT_TOPIC, named_order, named_products, names, names_amount,
                                                     says, values_said)
from verishop.scenarios.customers.topics import Detail, answer, attribute_topics
from verishop.scenarios.models import ExchangeGoal, LineChange, Submission
from verishop.scenarios.tool_names import EXCHANGE_ITEMS

EXTRA_TOPICS = {"payment": PAYMENT_TOPIC}
_SOLD_OUT = re.compile(r"\b(sold out|out of stock|unavailable|not available|no longer available|none left)\b",
                       re.IGNORECASE)
_APPROVED = "approved"
_TOLD_SOLD_OUT = "told_sold_out"


def reply(state: CustomerState, goal: ExchangeGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    writes = list(world.order_writes)
    problem = _wrong_write(goal, writes)
    if problem is not None:
        return objection(problem, sub)
    if writes and not state.memory.get(_APPROVED):
        return objection("Wait, I hadn't agreed to anything yet!", sub)
    if writes:
        return seen_close(state, "Perfect, that's everything. Thank you!")
    if sub.answer_refusal is not None:
        return _refused(goal, sub)
    if state.memory.get(_APPROVED):
        if sub.done:
            return CustomerTurn("You haven't made the exchange yet... Never mind, bye.", "quit")
        return CustomerTurn("Yes, please go ahead with the exchange.", "continue")
    if _SOLD_OUT.search(message) and not state.memory.get(_TOLD_SOLD_OUT):
        state.memory[_TOLD_SOLD_OUT] = True
        if goal.fallback is not None:
            state.revealed.add("fallback")
            return CustomerTurn(f"Oh, that's a pity. {goal.fallback.value} would be fine too, then.", "continue")
        return CustomerTurn(f"Oh no. I only want it in {goal.wanted.value}. So you can't exchange it?", "continue")
    order_ids = [o.order_id for o in state.scenario.orders]
    named = named_order(message, sub, order_ids)
    if named is not None and named != goal.order_id:
        return objection(f"That's not the order I mean. I mean {goal.description}.", sub)
    if named == goal.order_id:
        turn = _proposal(state, goal, message, sub)
        if turn is not None:
            return turn
    if sub.done:
        return CustomerTurn("You haven't exchanged anything yet... Never mind, bye.", "quit")
    nudge = "Could you tell me what the exchange will be, and the difference?"
    turn = answer(state, message, details(goal), nudge, extra=EXTRA_TOPICS,
                  nothing_left=f"That's all: I'd like to exchange {goal.description}.")
    return turn or CustomerTurn(f"Okay. {nudge}", "continue")


def _refused(goal: ExchangeGoal, sub: Submission) -> CustomerTurn:
    if goal.refusal == "out_of_stock" and sub.answer_refusal == "out_of_stock":
        return CustomerTurn("Oh well, then I'll keep the one I have. Thanks anyway!", "done")
    if goal.refusal == "not_eligible" and sub.answer_refusal == "not_eligible":
        return CustomerTurn("Oh, I see, it can't be exchanged. Thanks for checking!", "done")
    if goal.fallback is not None and sub.answer_refusal == "out_of_stock":
        return objection(f"Then {goal.fallback.value} would be fine too, I'd still like to exchange it.", sub)
    return objection("Really? I'd still like to exchange it, please.", sub)


def _acceptable(goal: ExchangeGoal) -> list[LineChange]:
    """The variants the customer takes: its first choice, and the other one if it has one."""
    return [goal.wanted] + ([goal.fallback] if goal.fallback is not None else [])


def _proposal(state: CustomerState, goal: ExchangeGoal, message: str, sub: Submission) -> CustomerTurn | None:
    """The reply to a turn naming the right order: agreement when it names one exchange and all it
    needs (the variant, the payment method, the exact difference), an objection to another variant
    or method, or to several where it wants one (the objection says what it meant), a request for
    what is missing; None when it proposes nothing."""
    acceptable = _acceptable(goal)
    line = next((li for o in state.scenario.orders if o.order_id == goal.order_id for li in o.lines
                 if li.line_id == goal.line_id), None)
    current = state.lookup(line.product_id) if line is not None else None
    allowed = {c.product_id for c in acceptable} | ({line.product_id} if line is not None else set())
    said_anyway = {c.value for c in acceptable} | ({current.attrs.get(goal.wanted.attribute, "")} if current else set())
    found = values_said(message, said_anyway | set(goal.wanted.others))
    chosen = [c for c in acceptable if names(message, sub, c.product_id) or c.value in found]
    stray = named_products(message, sub) - allowed or any(v in found for v in goal.wanted.others
                                                         if v not in said_anyway)
    if stray or len(chosen) > 1 or (not chosen and sub.recommended_product_ids):
        state.revealed.add("variant")
        return objection(f"That's not what I want: I'd like it in {goal.wanted.value}, just that.", sub)
    if not chosen:
        return None
    methods = state.scenario.account.payment_methods if state.scenario.account else ()
    other_method = any(names(message, sub, m.payment_id) or says(message, m.label) for m in methods
                       if m.payment_id != goal.payment_id and m.label != goal.payment_label)
    if other_method:
        state.revealed.add("payment")  # a person says which one they meant
        return objection(f"Not that one: please use my {goal.payment_label}, just that.", sub)
    if not (names(message, sub, goal.payment_id) or says(message, goal.payment_label)):
        return CustomerTurn("And which of my payment methods will you use for the difference?", "continue")
    if sub.answer_number is None:
        return CustomerTurn("And how much will the difference be, exactly?", "continue")
    change = chosen[0]
    if goal.line_changes and change.product_id != goal.line_changes[0].product_id:
        return None  # its first choice, sold out: the agent finds out when it tries
    if goal.line_changes and not names_amount(sub, goal.difference_cents):
        return CustomerTurn("Are you sure about that amount? Could you check the difference again?", "continue")
    state.memory[_APPROVED] = True
    return CustomerTurn("Yes, that's right. Please go ahead.", "approve")


def _wrong_write(goal: ExchangeGoal, writes: list[OrderWrite]) -> str | None:
    for w in writes:
        if w.order_id != goal.order_id or w.tool != EXCHANGE_ITEMS:
            return f"That's not what I asked for! I wanted to exchange {goal.description}."
        if w.detail.get("lines") != {c.line_id: c.product_id for c in goal.line_changes}:
            return "That's not the variant I asked for!"
        if w.payment_id != goal.payment_id:
            return f"I asked you to use my {goal.payment_label}!"
    return None


def details(goal: ExchangeGoal) -> list[Detail]:
    """What the customer can tell, by topic: the variant it wants and the one it would take instead,
    the payment method, and which item it means."""
    said = goal.wanted.attribute.replace("_", " ")
    topics = attribute_topics(goal.wanted.attribute)
    told = [Detail("item", frozenset({"order", "item", "date"}), f"I mean {goal.description}.", False),
            Detail("variant", topics, f"I'd like the {said} {goal.wanted.value}.", not goal.wanted.stated)]
    if goal.fallback is not None:
        told.append(Detail("fallback", topics | {"stock"}, f"If {goal.wanted.value} is sold out, "
                           f"{goal.fallback.value} would be fine too.", not goal.fallback_stated))
    told.append(Detail("payment", frozenset({"payment", "refund"}), f"Please use my {goal.payment_label}.",
                       not goal.payment_stated))
    return told
