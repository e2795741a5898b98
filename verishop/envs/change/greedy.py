"""Greedy order changes: the order whose items and day best fit the request (its status never
checked: a shipped order is changed like any other), the change read off the words (cancel with
the reason its words suggest, else "other"; switch each mentioned item to the variant its words
name, else the first other one; ship to the address written out, else the first saved one that
is not the order's), named to the customer, then made once they agree. No questions asked: a
correction the customer makes ("Not that address: please ship it to ...") is read like the request,
and the change proposed again."""

from __future__ import annotations

import re

from verishop.agents.baselines.lookups import best_order, content_words, lookup, overlap
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.tool_names import (CANCEL_ORDER, CHANGE_ORDER_ADDRESS, CHECK_ORDER, GET_CUSTOMER_PROFILE,
                                           LIST_ORDERS, MODIFY_ORDER_ITEMS, RESPOND_TO_CUSTOMER)

# Greedy tries the environments' `matches` from the lowest PRECEDENCE up (most specific first).
PRECEDENCE = 12

_REASONS = (("need", "no longer needed"), ("mistake", "ordered by mistake"), ("cheaper", "found a better price"),
            ("too long", "delivery too slow"))
_ADDRESS = re.compile(r"\bto ([^,.!?]+?), ([^,]+?) (\d{5})\b")


# What a request to change an order says (not "noise cancelling" headphones, not a "Blue Switch"
# keyboard, not a return).
_CHANGE = re.compile(r"\b(?:cancel my order|could you switch|ship my order|ship it to)\b")


def matches(text: str) -> bool:
    lowered = text.lower()
    return _CHANGE.search(lowered) is not None and "return" not in lowered


def _variant(text: str, line: dict) -> str | None:
    """The variant of `line` the words name, else its first other one."""
    others = [v for v in line.get("variants") or [] if v["product_id"] != line["product_id"] and v["in_stock"]]
    named = [v for v in others if re.search(rf"(?<!\w){re.escape(v['value'].lower())}(?!\w)", text.lower())]
    chosen = (named or others or [None])[0]
    return chosen["product_id"] if chosen else None


# Proposals greedy makes before it gives up: the first, then one per correction the customer makes.
ATTEMPTS = 3


async def play(shop: ShopSession, text: str) -> None:
    orders = (await shop.call(LIST_ORDERS))["orders"]
    if not orders:
        await shop.call(RESPOND_TO_CUSTOMER, message="I can't find any orders.")
        return
    heard = text  # the request and every correction the customer made since
    profile: dict | None = None
    for _ in range(ATTEMPTS):
        order = await lookup(shop, CHECK_ORDER, order_id=best_order(heard, orders)["order_id"])
        if "ship" in text.lower() and "cancel" not in text.lower() and profile is None and not _ADDRESS.search(heard):
            profile = await lookup(shop, GET_CUSTOMER_PROFILE)
        plan = _plan(text, heard, order, profile)
        if plan is None:
            await shop.call(RESPOND_TO_CUSTOMER, message="I couldn't work out what to change.",
                            order_id=order["order_id"])
            return
        amount = {"answer_number": round(plan.difference, 2)} if plan.switches else {}
        reply = await shop.call(RESPOND_TO_CUSTOMER, message=f"For order {order['order_id']}, I will "
                                f"{' and '.join(plan.parts)}. Shall I go ahead?", order_id=order["order_id"], **amount)
        if reply.get("status") != "open":
            return
        if "please go ahead" in reply["customer_message"].lower():
            await _make(shop, order["order_id"], plan)
            await shop.call(RESPOND_TO_CUSTOMER, message="Done: your order is changed.", order_id=order["order_id"])
            return
        heard = f"{heard} {reply['customer_message']}"


class _Plan:
    def __init__(self) -> None:
        self.parts: list[str] = []
        self.reason: str | None = None
        self.switches: list[dict] = []
        self.address: dict | None = None
        self.address_id: str | None = None
        self.difference = 0.0  # what switching the lines costs, from the variants' prices


def _plan(text: str, heard: str, order: dict, profile: dict | None) -> _Plan | None:
    """What greedy will do: read off the request, and the corrections heard since."""
    lowered = text.lower()
    plan = _Plan()
    if "cancel" in lowered:
        plan.reason = next((r for cue, r in _REASONS if cue in heard.lower()), "other")
        plan.parts.append("cancel it")
    words = content_words(text)
    if "switch" in lowered:
        for line in order["lines"]:
            if overlap(words, line["title"]) and (product_id := _variant(heard, line)):
                plan.switches.append({"line_id": line["line_id"], "product_id": product_id})
                plan.parts.append(f"switch line {line['line_id']} to {product_id}")
                price = next(v["price"] for v in line["variants"] if v["product_id"] == product_id)
                plan.difference += (price - line["unit_price"]) * line["quantity"]
    if "ship" in lowered and "cancel" not in lowered:
        written = _ADDRESS.findall(heard)
        if written:
            street, city, zip_code = written[-1]
            plan.address = {"street": street.strip(), "city": city.strip(), "zip": zip_code}
            plan.parts.append(f"ship it to {street.strip()}, {city.strip()} {zip_code}")
        elif profile is not None:
            other = next((a for a in profile["addresses"] if a["address_id"] != order.get("address_id")), None)
            if other is not None:
                plan.address_id = other["address_id"]
                plan.parts.append(f"ship it to {other['street']}, {other['city']} {other['zip']}")
    return plan if plan.parts else None


async def _make(shop: ShopSession, order_id: str, plan: _Plan) -> None:
    try:
        if plan.reason is not None:
            await shop.call(CANCEL_ORDER, order_id=order_id, reason=plan.reason)
        if plan.switches:
            await shop.call(MODIFY_ORDER_ITEMS, order_id=order_id, changes=plan.switches)
        if plan.address is not None:
            await shop.call(CHANGE_ORDER_ADDRESS, order_id=order_id, address=plan.address)
        elif plan.address_id is not None:
            await shop.call(CHANGE_ORDER_ADDRESS, order_id=order_id, address_id=plan.address_id)
    except ToolFailed:
        pass
