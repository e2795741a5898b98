"""What every customer behaviour shares: its turn, its memory, and what it sees of the world."""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from verishop.scenarios.catalog.reader import Product
from verishop.scenarios.models import CustomerTag, Scenario, Submission

ProductLookup = Callable[[str], Product | None]


@dataclass(frozen=True)
class CustomerTurn:
    text: str
    tag: CustomerTag
    # In a journey, the request this message belongs to (0-based); None elsewhere.
    task: int | None = None
    # The words before typo noise, when the noise changed them (`text` is what the agent reads).
    said: str | None = None
    # Words said after the reply that carry their own noise (a journey's next request, noised when
    # it was generated): never noised again, so what the next request says does not depend on how
    # many turns the agent took before it.
    then: str | None = None

    @property
    def ends_episode(self) -> bool:
        return self.tag in ("done", "quit")


def objection(text: str, sub: Submission) -> CustomerTurn:
    """The customer names a problem (`correct`), or, when the agent closed the conversation with
    it, says so and leaves (`quit`)."""
    return CustomerTurn(f"{text} Never mind, bye.", "quit") if sub.done else CustomerTurn(text, "correct")


NEUTRAL_THANKS = "Okay, thank you."


def neutral_close(words: str = NEUTRAL_THANKS) -> CustomerTurn:
    """The customer accepts (`done`) in neutral words: the verdict needs what it cannot know (a
    ranking against an ideal list, a policy figure, an order's status, an optimum, an exact
    amount, who the shop checked it was), so it neither praises nor objects (issue 35)."""
    return CustomerTurn(words, "done")


def seen_close(state: CustomerState, happy: str) -> CustomerTurn:
    """The customer accepts (`done`) what it sees matching its goal (its cart, the writes on its
    orders): happily, unless the episode carries a minefield, whose verdict needs what it cannot
    see (whether the shop checked who it is, what it told others): then in neutral words."""
    if state.scenario.minefields is not None and state.scenario.minefields.carried:
        return neutral_close()
    return CustomerTurn(happy, "done")


@dataclass(frozen=True)
class OrderWrite:
    """One change made to an order (issue 32): the tool, the order, what it did (the tool's
    `detail`: a cancellation's reason, the lines' new variants, the new address), the money it
    moved (positive: charged) and through which payment method."""

    tool: str
    order_id: str
    detail: dict[str, Any]
    amount_cents: int = 0
    payment_id: str | None = None


@dataclass(frozen=True)
class WorldView:
    """What the customer can see after the agent's turn: their cart, the returns started and the
    changes made to their orders, and whether (with what summary) they were handed to a person."""

    cart: dict[str, int] = field(default_factory=dict)
    returns: tuple[tuple[str, str], ...] = ()  # (order_id, line_id)
    order_writes: tuple[OrderWrite, ...] = ()
    handovers: tuple[str, ...] = ()  # the summary of each hand-over to a person (issue 33)


@dataclass
class CustomerState:
    scenario: Scenario
    lookup: ProductLookup
    rng: random.Random
    turns_taken: int = 0
    objections: int = 0  # replies tagged correct or dissatisfied so far
    # What the customer has said aloud (answered or corrected): requirement indices, or a
    # behaviour's own keys for other details (`topics.Detail.key`).
    revealed: set[Hashable] = field(default_factory=set)
    # Anything else a behaviour needs to remember between turns.
    memory: dict[str, Any] = field(default_factory=dict)


Behaviour = Callable[[CustomerState, Any, str, Submission, WorldView], CustomerTurn]


INSISTED = "insisted"  # `CustomerState.memory` key: how many scripted pushbacks the customer has said


def next_pushback(state: CustomerState, pushbacks: tuple[str, ...], sub: Submission) -> CustomerTurn | None:
    """The next line of a scripted pushback (tagged `insist`, a free turn) while the script lasts,
    or the customer leaving when the agent closed the conversation on it; None once it is spent."""
    insisted = state.memory.get(INSISTED, 0)
    if insisted >= len(pushbacks):
        return None
    if sub.done:
        return CustomerTurn("You're just going to leave it at that? Unbelievable. Bye.", "quit")
    state.memory[INSISTED] = insisted + 1
    return CustomerTurn(pushbacks[insisted], "insist")
