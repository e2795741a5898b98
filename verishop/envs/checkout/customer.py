"""The checkout customer: wants its items delivered to an address by a date, under a budget, as
cheaply as its vouchers allow, paid as it says; tells what it held back when asked (the date, how
it pays). It agrees once the agent has named the shipping option, how it will be paid and the
total it pays (typed, `answer_number`) within its budget, arriving in time; then waits for the
order before it says goodbye.

It knows its wishes, not the shop's arithmetic: it does not check that a total is the lowest (the
verifier does); it objects to a total over its budget, a shipping option that arrives too late, a
payment it did not ask for, and an order placed before it agreed or not as asked. It never says
an ID.
"""

from __future__ import annotations

import re

from verishop.scenarios.checkout import arrival, option_named
from verishop.scenarios.customers.base import (
    CustomerState,
    CustomerTurn,
    OrderWrite,
    WorldView,
    neutral_close,
    objection,
)
from verishop.scenarios.customers.proposals import PAYMENT_TOPIC, names, says
from verishop.scenarios.customers.topics import Detail, answer
from verishop.scenarios.household import say_date
from verishop.scenarios.models import CheckoutGoal, Scenario, Submission
from verishop.scenarios.money import amount
from verishop.scenarios.tool_names import CHECKOUT

EXTRA_TOPICS = {"payment": PAYMENT_TOPIC}
_APPROVED = "approved"
_OPTION_WORDS = {"standard": re.compile(r"\bstandard\b", re.IGNORECASE),
                 "express": re.compile(r"\bexpress\b", re.IGNORECASE),
                 "next_day": re.compile(r"\bnext[\s_-]?day\b|\bovernight\b", re.IGNORECASE)}


def reply(state: CustomerState, goal: CheckoutGoal, message: str, sub: Submission, world: WorldView) -> CustomerTurn:
    writes = list(world.order_writes)
    if writes:
        problem = wrong_write(state.scenario, goal, writes)
        if problem is not None:
            return objection(problem, sub)
        if not state.memory.get(_APPROVED):
            return objection("Wait, I hadn't agreed to anything yet!", sub)
        return neutral_close()  # it cannot tell the total is the lowest
    if state.memory.get(_APPROVED):
        if sub.done:
            return CustomerTurn("You haven't placed the order yet... Never mind, bye.", "quit")
        return CustomerTurn("Yes, please go ahead and place the order.", "continue")
    if sub.answer_number is not None:
        return _proposal(state, goal, message, sub)
    if sub.done:
        return CustomerTurn("You haven't placed my order... Never mind, bye.", "quit")
    nudge = "Could you tell me how it will ship, how I'll pay and what the total comes to?"
    turn = answer(state, message, details(goal), nudge, extra=EXTRA_TOPICS,
                  nothing_left="That's all: I'd like to place that order, as cheaply as my vouchers allow.")
    return turn or CustomerTurn(f"Okay. {nudge}", "continue")


def _proposal(state: CustomerState, goal: CheckoutGoal, message: str, sub: Submission) -> CustomerTurn:
    """The reply to a turn naming a total: agreement when the total is within the budget and the
    turn names one shipping option in time and the payment asked for; else what is wrong or
    missing."""
    scenario = state.scenario
    total_cents = round((sub.answer_number or 0) * 100)
    if total_cents > goal.budget_cents:
        return objection(f"That's more than my budget of {amount(goal.budget_cents, goal.currency)}.", sub)
    said = [name for name, pattern in _OPTION_WORDS.items() if pattern.search(message)]
    if len(said) != 1:
        return CustomerTurn("Which shipping will you use, and when will it arrive?", "continue")
    option = option_named(scenario.policy, said[0])
    if option is None or arrival(scenario.today, option) > goal.deliver_by:
        state.revealed.add("date")
        return objection(f"That's too late: I need it by {say_date(goal.deliver_by)}.", sub)
    methods = scenario.account.payment_methods if scenario.account else ()
    wanted = [m for m in methods if m.payment_id in goal.payment_ids]
    other = any(names(message, sub, m.payment_id) or says(message, m.label) for m in methods
                if m.payment_id not in goal.payment_ids)
    if other:
        state.revealed.add("payment")
        return objection(f"Not like that: I'd like to pay with {goal.payment_words}.", sub)
    if not all(names(message, sub, m.payment_id) or says(message, m.label) for m in wanted):
        if not goal.payment_stated and "payment" not in state.revealed:
            return CustomerTurn("And how would I pay for it?", "continue")
        return CustomerTurn(f"And you'll charge {goal.payment_words}, right? Please say so.", "continue")
    state.memory[_APPROVED] = True
    return CustomerTurn("Yes, that sounds right. Please place the order.", "approve")


def wrong_write(scenario: Scenario, goal: CheckoutGoal, writes: list[OrderWrite]) -> str | None:
    """What the customer objects to in the orders written (None when it sees nothing wrong)."""
    if any(w.tool != CHECKOUT for w in writes):
        return "That's not what I asked for! I only wanted to place a new order."
    if len(writes) > 1:
        return "You placed more than one order! I wanted just the one."
    detail = writes[0].detail
    if detail.get("items") != {i.product_id: i.quantity for i in goal.items}:
        return "Those aren't the items I wanted to order!"
    if detail.get("address_id") != goal.address_id:
        return f"That's not where I wanted it shipped: I said {goal.address_words}."
    paid = [pid for pid, cents in detail.get("charges") or [] if cents]
    if paid != [c.payment_id for c in goal.charges if c.amount_cents]:
        return f"That's not how I wanted to pay: I said {goal.payment_words}."
    option = option_named(scenario.policy, str(detail.get("shipping_option")))
    if option is None or arrival(scenario.today, option) > goal.deliver_by:
        return f"That won't arrive in time: I need it by {say_date(goal.deliver_by)}."
    if int(detail.get("total_cents", 0)) > goal.budget_cents:
        return f"That's over my budget of {amount(goal.budget_cents, goal.currency)}!"
    return None


def details(goal: CheckoutGoal) -> list[Detail]:
    """What the customer can tell, by topic: the date it needs the items by, how it pays, where
    they go, its budget."""
    return [
        Detail("date", frozenset({"delivery", "date"}), f"I need it by {say_date(goal.deliver_by)}.",
               not goal.date_stated),
        Detail("payment", frozenset({"payment", "refund"}), f"I'd like to pay with {goal.payment_words}.",
               not goal.payment_stated),
        Detail("address", frozenset({"address"}), f"Please ship it to {goal.address_words}.", False),
        Detail("budget", frozenset({"budget"}), f"My budget is {amount(goal.budget_cents, goal.currency)} in total.",
               False),
    ]
