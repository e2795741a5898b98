"""Which agent turn commits an answer: one rule, read the same way by the simulated customer
and by the verifier.

Unsure is not wrong. A turn commits a policy answer only when it states one definite value:
a typed value that fits the question (`Submission.answer_yes_no`, `answer_number`,
`answer_refund_method`), which is read exactly and wins over the words, else the one value the
`answer` text states (`verishop.scenarios.policy.read_answer`). A turn whose answer states
nothing readable, or hedges across several values, commits nothing: the customer asks back
("Sorry — is that a yes or a no?"), which costs the agent a turn.

A status turn commits when it states one definite status (`answer_status`, else the `answer`
text, else the message), or when it names an order that is not the customer's: the customer
knows its own orders, so naming the wrong one is a mistake it objects to. A turn that names
the right order and no status ("I found your order W…; one moment while I check") commits
nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from verishop.scenarios.answers import AMBIGUOUS, Reading, status_claim
from verishop.scenarios.models import PolicyGoal, StatusGoal, Submission
from verishop.scenarios.policy import REFUND_METHODS, read_answer


def definite(value: Reading) -> bool:
    """Whether a reading is one value (not nothing, not a hedge)."""
    return value is not None and value is not AMBIGUOUS


def answered(sub: Submission) -> bool:
    """Whether the turn carries an answer at all, typed or in words."""
    return bool((sub.answer or "").strip()) or any(
        v is not None for v in (sub.answer_yes_no, sub.answer_number, sub.answer_status, sub.answer_refund_method))


# --- policy --------------------------------------------------------------------------------


def policy_reading(goal: PolicyGoal, sub: Submission, given: Iterable[float] = ()) -> Reading:
    """What the turn answers to the policy question: the typed value that fits the question's
    kind, else the words of `answer` (`given`: the policy's own figures, restatements and not
    hedges). A typed value of another kind answers nothing here."""
    if goal.answer_kind == "numeric":
        if sub.answer_number is not None:
            return abs(float(sub.answer_number))
    elif goal.answer in ("yes", "no"):
        if sub.answer_yes_no is not None:
            return "yes" if sub.answer_yes_no else "no"
    elif goal.answer in REFUND_METHODS:
        if sub.answer_refund_method is not None:
            return sub.answer_refund_method
    return read_answer(goal, sub.answer, given)


def policy_commitment(goal: PolicyGoal, sub: Submission, given: Iterable[float] = ()) -> Reading:
    """The definite answer the turn commits, or None when it commits none."""
    said = policy_reading(goal, sub, given)
    return said if definite(said) else None


def policy_ask_back(goal: PolicyGoal, hedged: bool) -> str:
    """What a person says to an answer they could not pin down."""
    sorry = "Sorry, you've lost me there." if hedged else "Sorry, I didn't quite catch that."
    question = goal.question.lower()
    if goal.answer_kind == "categorical":
        if goal.answer in REFUND_METHODS:
            return f"{sorry} So how will I get my money back?"
        return "Sorry — is that a yes or a no?"
    if "percent" in question:
        return f"{sorry} So what percentage is it?"
    if "how much" in question or "$" in question or "dollars" in question:
        return f"{sorry} So how much is it, exactly?"
    if "days" in question:
        return f"{sorry} So how many days is it?"
    return f"{sorry} So what's the number?"


# --- order status --------------------------------------------------------------------------


@dataclass(frozen=True)
class StatusClaim:
    order: Reading
    status: Reading

    @property
    def hedged(self) -> bool:
        return self.order is AMBIGUOUS or self.status is AMBIGUOUS


def status_reading(message: str, sub: Submission) -> StatusClaim:
    """(order, status) the turn states: the typed status first, then the `answer` text, then
    the message's words; the order field first, then the one order ID the message names."""
    order, status = status_claim(message, sub.order_id, sub.answer)
    return StatusClaim(order, sub.answer_status if sub.answer_status is not None else status)


def status_turn(sub: Submission) -> bool:
    """Whether the turn is about an order at all: it fills the order field or gives an answer
    (a message alone is conversation: "Has it arrived yet?" asks, it does not tell)."""
    return bool((sub.order_id or "").strip()) or answered(sub)


def status_commitment(goal: StatusGoal, message: str, sub: Submission) -> StatusClaim | None:
    """The claim the turn commits (module docstring), or None."""
    if not status_turn(sub):
        return None
    claim = status_reading(message, sub)
    if definite(claim.status):
        return claim
    if definite(claim.order) and claim.order != goal.order_id:
        return claim
    return None
