"""Efficiency: how many agent turns the episode took, and how the tools were used.

    r_eff = 1 − 2·(T_eff − 1)/(T_max − 1),  T_eff = max(1, T − free turns − owed turns)

T counts assistant messages. A turn is free only when it was a real question: the customer's
reply is tagged "clarify", which it is only when it tells something it had held back (an
omitted requirement, a detail of its situation, which item it means). Confirmations ("no,
that's everything"), pleasantries and repeats cost a turn, in every environment. Owed turns:
a journey of n requests needs one answer per request, so n − 1 of its turns (one per request
reached after the first) are not charged. An agent that never spoke gets −1. Tool calls beyond
the per-turn budget are reported, not penalised (the server refuses them).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from verishop.scenarios.budget import LOOKUP_TOOLS
from verishop.scenarios.models import Axes
from verishop.verifier.transcript import Transcript, succeeded, turn_of

# `approve`: the customer agreeing to the write the agent named, which the shop requires before an
# order change or exchange (issue 32): a turn the rules demand is not a wasted one. The customer
# approves once per write it wants, so no agent earns free turns by proposing.
# `insist`: the customer pushing back on a refusal the store's rules make right (issue 33): the
# agent must answer it, refusing again, so that turn is not wasted either. It cannot be farmed: the
# customer insists only right after the right typed refusal, at most as many times as its script
# holds (`HandoverGoal.pushbacks`, 0 to 3), and the episode then ends.
FREE_REPLY_TAGS = frozenset({"clarify", "approve", "insist"})


@dataclass(frozen=True)
class Efficiency:
    r_eff: float
    turns: int
    free_turns: int
    owed_turns: int
    effective_turns: int
    tool_calls: int
    tool_errors: int
    calls_over_budget: int


def efficiency(transcript: Transcript, axes: Axes) -> Efficiency:
    turns = len(transcript.assistant)
    agent_turns = {turn_of(m) for m in transcript.assistant}
    free = len({turn_of(m) for m in transcript.customer
                if m.get("tag") in FREE_REPLY_TAGS and turn_of(m) in agent_turns})
    requests = {m["task"] for m in transcript.customer if type(m.get("task")) is int}
    owed = max(0, len(requests) - 1)
    effective = max(1, turns - free - owed)
    if turns == 0:
        r_eff = -1.0
    elif axes.max_turns <= 1:
        r_eff = 1.0 if effective <= 1 else -1.0
    else:
        r_eff = max(-1.0, min(1.0, 1 - 2 * (effective - 1) / (axes.max_turns - 1)))
    # Lookup attempts per turn, refused ones included: the server refuses those beyond the budget.
    per_turn = Counter(turn_of(c) for c in transcript.tool_calls if c["tool"] in LOOKUP_TOOLS)
    over = sum(max(0, n - axes.tool_calls_per_turn) for n in per_turn.values())
    errors = sum(1 for c in transcript.tool_calls if not succeeded(c))
    return Efficiency(r_eff=r_eff, turns=turns, free_turns=free, owed_turns=owed, effective_turns=effective,
                      tool_calls=len(transcript.tool_calls), tool_errors=errors, calls_over_budget=over)
