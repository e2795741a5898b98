"""How an order-status answer is read: one rule, read the same way by the simulated customer and
by the verifier (`verishop.envs.status.customer`, `verishop.envs.status.check`).

A status turn commits when it states one definite status (`answer_status`, else the `answer`
text, else the message), or when it names an order that is not the customer's: the customer
knows its own orders, so naming the wrong one is a mistake it objects to. A turn that names
the right order and no status ("I found your order W…; one moment while I check") commits
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from verishop.scenarios.answers import AMBIGUOUS, Reading, answered, definite, status_claim
from verishop.scenarios.models import StatusGoal, Submission


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
