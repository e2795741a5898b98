"""Efficiency: how many agent turns the episode took, and how the tools were used.

    r_eff = 1 − 2·(T_eff − 1)/(T_max − 1),  T_eff = max(1, T − free turns)

T counts assistant messages; a turn is free when the customer's reply to it is tagged
"confirm" or "clarify" (the agent asked a question it had to ask). An agent that never
spoke gets −1. Tool calls beyond the per-turn budget are reported, not penalised.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from scenarios.models import Axes
from scenarios.budget import LOOKUP_TOOLS
from verifier.transcript import Transcript, succeeded, turn_of

FREE_REPLY_TAGS = frozenset({"confirm", "clarify"})


@dataclass(frozen=True)
class Efficiency:
    r_eff: float
    turns: int
    free_turns: int
    effective_turns: int
    tool_calls: int
    tool_errors: int
    calls_over_budget: int


def efficiency(transcript: Transcript, axes: Axes) -> Efficiency:
    turns = len(transcript.assistant)
    agent_turns = {turn_of(m) for m in transcript.assistant}
    free = len({turn_of(m) for m in transcript.customer
                if m.get("tag") in FREE_REPLY_TAGS and turn_of(m) in agent_turns})
    effective = max(1, turns - free)
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
    return Efficiency(r_eff=r_eff, turns=turns, free_turns=free, effective_turns=effective,
                      tool_calls=len(transcript.tool_calls), tool_errors=errors, calls_over_budget=over)
