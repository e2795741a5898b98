"""Oracle plays, one module per goal kind (`agents/oracles/<module>.py`, a `play` coroutine).

An oracle reads the hidden goal and plays the shortest correct episode through MCP, so it is
the proof that every episode is solvable. It must still look up every ID it uses (the
verifier counts an ID no tool result showed as hallucinated) and stay within the per-turn
tool budget.
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from typing import Any

from verishop.agents.session import ShopSession

PLAYS: dict[str, str] = {
    "product_discovery": "verishop.agents.oracles.product_discovery",
    "cart": "verishop.agents.oracles.cart",
    "substitution": "verishop.agents.oracles.substitution",
    "return": "verishop.agents.oracles.returns",
    "status": "verishop.agents.oracles.order_status",
    "policy": "verishop.agents.oracles.policy",
    "bundle": "verishop.agents.oracles.bundle",
    "journey": "verishop.agents.oracles.journey",
}

Play = Callable[[ShopSession, Any], Awaitable[None]]


def play_for(kind: str) -> Play:
    return importlib.import_module(PLAYS[kind]).play
