"""The order-change customer: asks for its change, tells what it held back when asked (the
reason, the size or colour, the address), agrees once the agent has named the order and every
change it wants (and, when switching lines costs or refunds money, the exact difference as
`answer_number`), then waits for the change to be made before it says goodbye (never between
agreeing and the write). It objects to a proposal or a write on another order, or of another
change, and to a refusal of a change it can have.

It knows its own order (what it holds, when it was placed), not the shop's rules: told that an
order it wants changed has shipped and must be returned instead, it takes that, thanks the agent
and the request ends; the verifier judges whether that was right. It never says an ID.
"""

from __future__ import annotations

import re

from verishop.envs.change.answers import REASON_WORDS, address_matches
from verishop.scenarios.customers.base import (CustomerState, CustomerTurn, OrderWrite, WorldView, objection,
                                                seen_close)
from verishop.scenarios.customers.proposals import (ADDRESS_TOPIC, named_order, named_products, names, names_amount,
                                                     says, values_said)
from verishop.scenarios.customers.topics import Detail, answer, attribute_topics
from verishop.scenarios.models import OrderChangeGoal, Submission
from verishop.scenarios.tool_names import CANCEL_ORDER, CHANGE_ORDER_ADDRESS, MODIFY_ORDER_ITEMS

EXTRA_TOPICS = {"address": ADDRESS_TOPIC}
_CANCEL = re.compile(r"\bcancel\w*", re.IGNORECASE)
_APPROVED = "approved"


def reply(state: CustomerState, goal: OrderChangeGoal, message: str, sub: Submission, world: WorldView
          ) -> CustomerTurn:
    writes = list(world.order_writes)
    problem = _wrong_write(goal, writes)
    if problem is not None:
        return objection(problem, sub)
    if goal.refusal is not None:
        if writes:  # a change it was given, which the verifier judges: it cannot tell, and says no more
            return CustomerTurn("Okay.", "quit" if sub.done else "continue")
        if sub.answer_refusal == goal.refusal:
            return CustomerTurn("Oh, it has shipped already? Then I'll return it once it arrives. Thanks!", "done")
    elif sub.answer_refusal is not None:
        return objection(f"Really? I placed {goal.description.removeprefix('my ')} only just now, so it "
                          f"can't have shipped yet. I'd still like the change, please.", sub)
    if writes and state.memory.get(_APPROVED):
        return _after_writes(state, goal, writes, sub)
    if writes:
        return objection("Wait, I hadn't agreed to anything yet!", sub)
    return _before_writes(state, goal, message, sub)


def _before_writes(state: CustomerState, goal: OrderChangeGoal, message: str, sub: Submission) -> CustomerTurn:
    order_ids = [o.order_id for o in state.scenario.orders]
    named = named_order(message, sub, order_ids)
    if state.memory.get(_APPROVED):
        if sub.done:
            return CustomerTurn("You haven't made the change yet... Never mind, bye.", "quit")
        return CustomerTurn("Yes, please go ahead and make the change.", "continue")
    if named is not None and named != goal.order_id:
        return objection(f"That's not the order I mean. I mean {goal.description}.", sub)
    if named == goal.order_id:
        problem = _wrong_proposal(state, goal, message, sub)
        if problem is not None:
            return objection(problem, sub)
        if _complete(state, goal, message, sub):
            if goal.refusal is None and goal.difference_cents and sub.answer_number is None:
                return CustomerTurn("And how much will the difference in price be, exactly?", "continue")
            if goal.refusal is None and goal.difference_cents and not names_amount(sub, goal.difference_cents):
                return CustomerTurn("Are you sure about that amount? Could you check the difference again?", "continue")
            state.memory[_APPROVED] = True
            return CustomerTurn("Yes, that's right. Please go ahead.", "approve")
    if sub.done:
        return CustomerTurn("You haven't changed anything yet... Never mind, bye.", "quit")
    nudge = "Could you tell me exactly what you'll change?"
    turn = answer(state, message, details(goal), nudge, extra=EXTRA_TOPICS,
                  nothing_left=f"That's all: {_request(goal)}")
    if turn is not None:
        return turn
    if named == goal.order_id:
        return CustomerTurn("Yes, that's the order. What exactly will you change?", "continue")
    return CustomerTurn(f"Okay. {nudge}", "continue")


def _complete(state: CustomerState, goal: OrderChangeGoal, message: str, sub: Submission) -> bool:
    """Whether the proposal names every change the customer wants."""
    if goal.cancel_reason is not None and not _CANCEL.search(message):
        return False
    found = values_said(message, {v for c in goal.line_changes for v in (c.value, *c.others)})
    for change in goal.line_changes:
        if not (names(message, sub, change.product_id) or change.value in found):
            return False
    if goal.address is not None:
        return _names_address(goal, message)
    return True


def _names_address(goal: OrderChangeGoal, message: str) -> bool:
    assert goal.address is not None
    return says(message, goal.address.street) or says(message, goal.address.zip) or bool(
        goal.address_id and says(message, goal.address_id))


def _wrong_proposal(state: CustomerState, goal: OrderChangeGoal, message: str, sub: Submission) -> str | None:
    """What is wrong with a proposal on the right order, in the customer's words: a variant it did
    not ask for, or several where it wants one (a list of every ID or size names no change), a
    cancellation it did not ask for, another address or several. The correction says what it meant
    (a person would), so it reveals that detail."""
    lines = {line.line_id: line for o in state.scenario.orders if o.order_id == goal.order_id for line in o.lines}
    allowed = {c.product_id for c in goal.line_changes} | {line.product_id for line in lines.values()}
    stray = named_products(message, sub) - allowed
    # Values a right proposal may say besides the new ones: each line's current one ("from M to L").
    said_anyway = {c.value for c in goal.line_changes} | {
        p.attrs.get(c.attribute, "") for c in goal.line_changes
        if c.line_id in lines and (p := state.lookup(lines[c.line_id].product_id)) is not None}
    found = values_said(message, said_anyway | {v for c in goal.line_changes for v in c.others})
    for change in goal.line_changes:
        wanted = names(message, sub, change.product_id) or change.value in found
        others = any(v in found for v in change.others if v not in said_anyway)
        if stray or others or (sub.recommended_product_ids and not wanted):
            state.revealed.add(("variant", change.line_id))
            title = lines[change.line_id].title if change.line_id in lines else "item"
            return f"That's not the one I want: for the {title}, I'd like {change.value}, just that."
    if stray and not goal.line_changes:
        return "I didn't ask for any other product."
    if goal.cancel_reason is None and _CANCEL.search(message) and not re.search(r"\bnot cancel", message, re.I):
        return "I don't want to cancel it! I just want it changed."
    if goal.address is not None:
        account = state.scenario.account
        others = [a for a in account.addresses if a.street != goal.address.street] if account else []
        if any(says(message, a.street) or says(message, a.zip) or says(message, a.address_id) for a in others):
            state.revealed.add("address")  # a person says where they meant
            return f"Not that address: please ship it to {goal.address.words()}, just there."
    return None


def _after_writes(state: CustomerState, goal: OrderChangeGoal, writes: list[OrderWrite], sub: Submission
                  ) -> CustomerTurn:
    wanted = _wanted_tools(goal)
    made = {w.tool for w in writes}
    if made >= wanted:
        return seen_close(state, "Perfect, that's everything. Thank you!")
    if sub.done:
        return CustomerTurn("You've only done part of what I asked... Never mind, bye.", "quit")
    return CustomerTurn(f"Thanks. Could you also finish the rest? {_request(goal)}", "continue")


def _wanted_tools(goal: OrderChangeGoal) -> set[str]:
    tools = set()
    if goal.cancel_reason is not None:
        tools.add(CANCEL_ORDER)
    if goal.line_changes:
        tools.add(MODIFY_ORDER_ITEMS)
    if goal.address is not None:
        tools.add(CHANGE_ORDER_ADDRESS)
    return tools


def _wrong_write(goal: OrderChangeGoal, writes: list[OrderWrite]) -> str | None:
    """What is wrong with the changes made, in the customer's words (None when nothing is)."""
    for w in writes:
        if w.order_id != goal.order_id:
            return f"You changed another order, but that's not the one I meant! I meant {goal.description}."
        if w.tool not in _wanted_tools(goal):
            return "That's not the change I asked for!"
        if w.tool == CANCEL_ORDER and w.detail.get("reason") != goal.cancel_reason:
            return f"That's not why I'm cancelling: {REASON_WORDS.get(goal.cancel_reason or '', '')}".strip()
        if w.tool == MODIFY_ORDER_ITEMS and w.detail.get("lines") != {c.line_id: c.product_id
                                                                        for c in goal.line_changes}:
            return "Those aren't the sizes or colours I asked for!"
        if w.tool == CHANGE_ORDER_ADDRESS and not address_matches(goal, w.detail):
            return "That's not the address I wanted it shipped to!"
    return None


def _request(goal: OrderChangeGoal) -> str:
    parts = []
    if goal.cancel_reason is not None:
        parts.append(f"cancel {goal.description}")
    if goal.line_changes:
        parts.append(f"switch the items I mentioned in {goal.description}")
    if goal.address is not None:
        parts.append(f"ship {goal.description} to the address I gave")
    return f"I'd like you to {' and '.join(parts)}."


def details(goal: OrderChangeGoal) -> list[Detail]:
    """What the customer can tell, by topic: the reason, each variant and the address it held back,
    and which order it means."""
    told = [Detail("order", frozenset({"order", "item", "date"}), f"I mean {goal.description}.", False)]
    if goal.cancel_reason is not None:
        told.append(Detail("reason", frozenset({"condition"}), REASON_WORDS[goal.cancel_reason],
                           not goal.reason_stated))
    for change in goal.line_changes:
        said = change.attribute.replace("_", " ")
        told.append(Detail(("variant", change.line_id), attribute_topics(change.attribute),
                           f"For the {said}, I'd like {change.value}.", not change.stated))
    if goal.address is not None:
        told.append(Detail("address", frozenset({"address"}), f"Please ship it to {goal.address.words()}.",
                           not goal.address_stated))
    return told
