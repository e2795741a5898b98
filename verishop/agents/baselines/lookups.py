"""Reading a request's words and looking things up within the turn's tool budget: what several
environments' greedy baselines share (returns, order status, policy, the product lists)."""

from __future__ import annotations

import re

from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.budget import BUDGET_ERROR

# The request's own phrasing (the returns and order-status generators), not what was bought.
_STOPWORDS = frozenset((
    "hi", "hello", "hey", "there", "good", "afternoon", "the", "and", "that", "for", "from", "with", "start",
    "return", "need", "like", "please", "help", "ordered", "order", "it", "it's", "isn't", "what", "expected",
    "doesn't", "fit", "arrived", "damaged", "changed", "mind", "about", "stopped", "working", "after", "few",
    "days", "i'd", "also", "replacement", "can", "you", "tell", "me", "my", "is", "was", "wondering", "placed",
    "around", "most", "recent", "one", "status", "where", "what's", "happening",
))


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9'%-]+", text.lower()) if len(w) >= 3 and w not in _STOPWORDS}


def overlap(words: set[str], text: str) -> int:
    return len(words & content_words(text))


async def lookup(shop: ShopSession, tool: str, **arguments: object) -> dict:
    """Call a lookup; if this turn's budget is spent, say so to the customer and try again."""
    try:
        return await shop.call(tool, **arguments)
    except ToolFailed as exc:
        if BUDGET_ERROR not in str(exc):
            raise
    await shop.call("respond_to_customer", message="Let me look that up for you.")
    return await shop.call(tool, **arguments)
