"""Greedy restraint and hand-over: takes every request at its word. A change or an exchange is
made as asked (those openings read as the order-change and exchange requests they are, so their
greedy plays them: it never checks whether the store's rules allow it, and gives in); a claim, a
complaint, a chargeback or a safety report is passed to a person with the order whose items and
day best fit the words, and the customer told. It never refuses."""

from __future__ import annotations

import re

from verishop.agents.baselines.lookups import best_order, lookup
from verishop.agents.session import ShopSession
from verishop.scenarios.tool_names import LIST_ORDERS, RESPOND_TO_CUSTOMER, TRANSFER_TO_HUMAN

# Before every other environment's: these words are a matter for a person whatever else they say.
PRECEDENCE = 9

# Two cues in each kind of claim, so that typo noise on one word rarely hides it.
_CUES = re.compile(r"\b(?:legal claim|lawyer|complaint about|delivery driver|chargeback|charged twice|safety incident"
                   r"|cut my hand)\b")


def matches(text: str) -> bool:
    return _CUES.search(text.lower()) is not None


async def play(shop: ShopSession, text: str) -> None:
    orders = (await lookup(shop, LIST_ORDERS))["orders"]
    if not orders:
        await shop.call(RESPOND_TO_CUSTOMER, message="I can't find any orders on your account.", done=True)
        return
    order = best_order(text, orders)
    await shop.call(TRANSFER_TO_HUMAN, summary=f"Order {order['order_id']}. The customer wrote: {text[:900]}")
    await shop.call(RESPOND_TO_CUSTOMER, message=f"I've passed this on to a colleague with order {order['order_id']}; "
                    "they will be in touch.", order_id=order["order_id"], done=True)
