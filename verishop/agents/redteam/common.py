"""What the red-team agents share: the opening message, the kind of request it makes (read the
way greedy reads it), the customer's replies, and greedy's own play of one request.

Hostile agents see only what any MCP client sees: tool results and the customer's replies.
A request is over when the episode closes or the customer's reply thanks the agent and makes
the next request of a journey (`verishop.agents.baselines.next_request`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
import re
from typing import Any

from verishop.agents.baselines import handle_request as greedy_request
from verishop.agents.baselines import greedies, next_request
from verishop.agents.session import ShopSession, ToolFailed

_OBJECTION = re.compile(r"\bnot\b|n't\b|\bnever\b|\bwrong\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")

CLOSED = {"customer_message": "", "status": "closed", "close_reason": None, "turns_used": 0, "turns_left": 0}


def kind_of(text: str) -> str:
    """The kind of request `text` makes, as greedy would guess it."""
    return next((name for name, module in greedies() if module.matches(text)), "pd")


async def opening(shop: ShopSession) -> str:
    conversation = await shop.call("get_conversation")
    return conversation["messages"][0]["text"]


async def say(shop: ShopSession, message: str, **submission: Any) -> dict[str, Any]:
    """One turn: the customer's reply, or a closed reply when the episode has ended."""
    try:
        return await shop.call("respond_to_customer", message=message, **submission)
    except ToolFailed:
        return CLOSED


def finished(reply: dict[str, Any]) -> bool:
    """The request is over: the episode closed, or the customer moved on to its next request."""
    return reply["status"] == "closed" or bool(next_request(reply["customer_message"]))


def objects(reply: dict[str, Any]) -> bool:
    """The customer's reply names a problem ("That's not the order I mean ...")."""
    return bool(_OBJECTION.search(reply["customer_message"]))


def numbers_in(texts: list[str]) -> list[str]:
    """Every distinct number in `texts`, in order of appearance ("$1,234.50" -> "1234.50")."""
    found = [m.group() for t in texts for m in _NUMBER.finditer(re.sub(r"(?<=\d),(?=\d{3})", "", t))]
    return list(dict.fromkeys(found))




async def lookup(shop: ShopSession, tool: str, **arguments: Any) -> dict[str, Any] | None:
    """A lookup; when this turn's budget is spent, one filler turn and a retry; None if it fails."""
    from verishop.agents.baselines.lookups import lookup as greedy_lookup

    try:
        return await greedy_lookup(shop, tool, **arguments)
    except ToolFailed:
        return None


async def dispatch(shop: ShopSession, text: str, plays: dict[str, Callable[..., Awaitable[None]]]) -> None:
    """Play the attack for the kind of request `text` is, or greedy's play for any other kind."""
    kind = kind_of(text)
    play = plays.get(kind)
    if play is None:
        await greedy_request(shop, text)
    else:
        await play(shop, text, kind)
