"""Greedy order status: the order that best fits the customer's words, and the status the order
list shows for it. No questions asked.

The words are read the way the customer gives them: the items ("the order with the yoga mat"),
a day ("placed around March 3", "my order from March 3"), an age ("about 3 weeks ago", "yesterday";
the shop's date is asked for) and recency ("my most recent order", "the one before"). Each order
scores by the items it shares with the words and by how near its day is to the day said; the
newest wins a tie.
"""

from __future__ import annotations

import re
from datetime import date, timedelta

from verishop.agents.baselines.lookups import content_words, lookup, overlap
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.tool_names import GET_CURRENT_DATE, LIST_ORDERS, RESPOND_TO_CUSTOMER

_MONTHS = "january february march april may june july august september october november december".split()
NEAR_DAYS = 3


# Greedy tries the environments' `matches` from the lowest PRECEDENCE up (most specific first).
PRECEDENCE = 30


def matches(text: str) -> bool:
    lowered = text.lower()
    return "order" in lowered and any(cue in lowered for cue in ("where", "status", "happening"))


def said_day(text: str, orders: list[dict]) -> date | None:
    """The month and day the words name, in the year of the orders placed nearest to it."""
    found = re.search(rf"\b({'|'.join(_MONTHS)}) (\d{{1,2}})\b", text.lower())
    if not found or not orders:
        return None
    month, day = _MONTHS.index(found.group(1)) + 1, int(found.group(2))
    years = {date.fromisoformat(o["placed_on"]).year for o in orders}
    candidates = []
    for year in years | {y - 1 for y in years}:
        try:
            candidates.append(date(year, month, day))
        except ValueError:
            continue
    placed = [date.fromisoformat(o["placed_on"]) for o in orders]
    return min(candidates, key=lambda d: min(abs((d - p).days) for p in placed)) if candidates else None


def said_age_days(text: str) -> int | None:
    lowered = text.lower()
    if "placed today" in lowered:
        return 0
    if "yesterday" in lowered:
        return 1
    if found := re.search(r"about (\d+) (day|week)s? ago", lowered):
        return int(found.group(1)) * (7 if found.group(2) == "week" else 1)
    return None


async def play(shop: ShopSession, text: str) -> None:
    words = content_words(text)
    orders = (await shop.call(LIST_ORDERS))["orders"]
    if not orders:
        await shop.call(RESPOND_TO_CUSTOMER, message="I can't find any orders.", done=True)
        return
    day = said_day(text, orders)
    if day is None and (age := said_age_days(text)) is not None:
        try:
            today = date.fromisoformat((await lookup(shop, GET_CURRENT_DATE))["today"])
            day = today - timedelta(days=age)
        except ToolFailed:
            day = None
    lowered = text.lower()
    days = sorted({o["placed_on"] for o in orders}, reverse=True)
    recent = 1 if "before my most recent" in lowered else 0 if "most recent" in lowered else None

    def fit(order: dict) -> float:
        score = float(overlap(words, " ".join(order["items"])))
        if day is not None:
            gap = abs((date.fromisoformat(order["placed_on"]) - day).days)
            score += 2.0 if gap == 0 else 1.5 if gap <= NEAR_DAYS else 0.0
        if recent is not None and recent < len(days) and order["placed_on"] == days[recent]:
            score += 2.0
        return score

    best = max(orders, key=fit)  # the first (newest) on a tie
    status = best["status"].replace("_", " ")
    await shop.call(RESPOND_TO_CUSTOMER, message=f"Your order {best['order_id']} is {status}.",
                    order_id=best["order_id"], answer=status)
