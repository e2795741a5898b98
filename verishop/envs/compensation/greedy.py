"""Greedy compensation: the delivered order whose items and day best fit the complaint, the
store's compensation clause read for its numbers, and the amount worked out from what it shows:
for a late order the base percent of the order's total (it never looks at the customer's
membership tier), capped, nothing if less late than the threshold; for a damaged item the damage
percent of its line, capped (it never checks when the damage was reported); for a price drop the
difference to the current price (it never checks the window after delivery), nothing if the price
did not drop. It offers that amount until the customer agrees and writes it, or refuses when its
sum is nothing, and holds either through the customer's pushback."""

from __future__ import annotations

import re
from datetime import date

from verishop.agents.baselines.lookups import best_order, content_words, lookup, overlap
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.tool_names import (CHECK_ORDER, GET_PRODUCT, ISSUE_STORE_CREDIT, LIST_ORDERS,
                                           REQUEST_PRICE_ADJUSTMENT, RESPOND_TO_CUSTOMER, SEARCH_POLICIES)

# Before the policy questions' (10): a complaint is no question about the rules.
PRECEDENCE = 8
# Two or more cues for each complaint, so that typo noise on one word rarely hides it.
_CUES = re.compile(r"\b(?:came \d+ days? late|came later|than you promised|box was crushed|damaged: the box"
                   r"|it's scratched|price dropped|dropped since|compensation for that|owed something)\b")
# Turns greedy keeps its answer through the customer's pushback before it gives up.
ATTEMPTS = 5


def matches(text: str) -> bool:
    return _CUES.search(text.lower()) is not None


def _cents(value: float) -> int:
    return round(value * 100)


def _numbers(clause: str) -> dict[str, float]:
    """The clause's numbers greedy reads: the lateness threshold, the base and damage percents, the caps."""
    found = {}
    for key, pattern in (("late_after", r"(\d+) or more days after"), ("late_percent", r"(\d+)% of the order"),
                         ("damage_percent", r"(\d+)% of what was paid")):
        m = re.search(pattern, clause)
        if m:
            found[key] = float(m.group(1))
    caps = re.findall(r"at most [^\d]*([\d,]+(?:\.\d+)?)", clause)
    for key, cap in zip(("late_cap", "damage_cap"), caps):
        found[key] = float(cap.replace(",", ""))
    return found


async def _amount(shop: ShopSession, text: str, order: dict) -> tuple[int, str | None, dict]:
    """(the amount greedy works out in cents, the credit's reason or None for an adjustment, the line)."""
    words = content_words(text)
    line = max(order["lines"], key=lambda li: overlap(words, li["title"]))
    lower = text.lower()
    if "price" in lower or "dropped" in lower:
        product = await lookup(shop, GET_PRODUCT, product_id=line["product_id"])
        paid, now = _cents(line["unit_price"]), _cents(product["price"])
        return max(0, paid - now) * line["quantity"], None, line
    policies = await lookup(shop, SEARCH_POLICIES, query="compensation late delivery damaged items store credit",
                            limit=3)
    numbers = _numbers(" ".join(hit["text"] for hit in policies["results"]))
    if "late" in lower or "promised" in lower:
        late = (date.fromisoformat(order["delivered_on"]) - date.fromisoformat(order["estimated_delivery"])).days \
            if order.get("delivered_on") and order.get("estimated_delivery") else 0
        if late < numbers.get("late_after", 1):
            return 0, "late_delivery", line
        credit = _cents(order["total"]) * int(numbers.get("late_percent", 10)) // 100
        return min(credit, _cents(numbers.get("late_cap", 1e9))), "late_delivery", line
    credit = _cents(line["unit_price"]) * line["quantity"] * int(numbers.get("damage_percent", 20)) // 100
    return min(credit, _cents(numbers.get("damage_cap", 1e9))), "damaged", line


async def play(shop: ShopSession, text: str) -> None:
    orders = (await lookup(shop, LIST_ORDERS))["orders"]
    delivered = [o for o in orders if o["status"] == "delivered"] or orders
    if not delivered:
        await shop.call(RESPOND_TO_CUSTOMER, message="I can't find any orders on your account.", done=True)
        return
    order = await lookup(shop, CHECK_ORDER, order_id=best_order(text, delivered)["order_id"])
    order_id = order["order_id"]
    cents, reason, line = await _amount(shop, text, order)
    if cents <= 0:
        for _ in range(ATTEMPTS):
            reply = await shop.call(RESPOND_TO_CUSTOMER, message=f"I'm sorry: nothing is owed for order {order_id} "
                                    "under the store's policy.", order_id=order_id, answer_refusal="not_eligible")
            if reply.get("status") != "open":
                return
        return
    amount = cents / 100
    for _ in range(ATTEMPTS):
        reply = await shop.call(RESPOND_TO_CUSTOMER, message=f"For order {order_id} I can give you {amount:.2f}. "
                                "Shall I go ahead?", order_id=order_id, answer_number=amount)
        if reply.get("status") != "open":
            return
        if "go ahead" in reply["customer_message"].lower():
            break
    try:
        if reason is None:
            await shop.call(REQUEST_PRICE_ADJUSTMENT, order_id=order_id, line_id=line["line_id"])
        else:
            await shop.call(ISSUE_STORE_CREDIT, order_id=order_id, amount=amount, reason=reason)
    except ToolFailed:
        pass
    await shop.call(RESPOND_TO_CUSTOMER, message=f"Done: {amount:.2f} for order {order_id}.", order_id=order_id,
                    done=True)
