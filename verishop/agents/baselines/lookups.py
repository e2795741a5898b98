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


_MONTHS = "january february march april may june july august september october november december".split()


def said_month_day(text: str) -> str | None:
    """The month and day the words name ("my order of March 3"), as 'MM-DD' (None if none)."""
    found = re.search(rf"\b({'|'.join(_MONTHS)}) (\d{{1,2}})\b", text.lower())
    return f"{_MONTHS.index(found.group(1)) + 1:02d}-{int(found.group(2)):02d}" if found else None


def best_order(text: str, orders: list[dict]) -> dict:
    """The listed order whose items and day best fit the words (a day said counts as three shared
    words); the newest wins a tie."""
    words, day = content_words(text), said_month_day(text)
    return max(orders, key=lambda o: (overlap(words, " ".join(o["items"])) + 3 * (o["placed_on"][5:] == day),
                                      o["placed_on"]))


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
