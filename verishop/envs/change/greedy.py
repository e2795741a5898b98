"""Greedy order changes: the order whose items and day best fit the request (its status never
checked: a shipped order is changed like any other), the change read off the words (cancel with
the reason its words suggest, else "other"; switch each mentioned item to the variant its words
name, else the first other one; ship to the address written out, else the first saved one that
is not the order's), named to the customer, then made once they agree. No questions asked."""

from __future__ import annotations

import re

from verishop.agents.baselines.lookups import content_words, lookup, overlap
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.tool_names import (CANCEL_ORDER, CHANGE_ORDER_ADDRESS, CHECK_ORDER, GET_CUSTOMER_PROFILE,
                                           LIST_ORDERS, MODIFY_ORDER_ITEMS, RESPOND_TO_CUSTOMER)

# Greedy tries the environments' `matches` from the lowest PRECEDENCE up (most specific first).
PRECEDENCE = 12

_REASONS = (("need", "no longer needed"), ("mistake", "ordered by mistake"), ("cheaper", "found a better price"),
            ("too long", "delivery too slow"))
_MONTHS = "january february march april may june july august september october november december".split()
_ADDRESS = re.compile(r"\bto (.+?), ([^,]+?) (\d{5})\b")


def matches(text: str) -> bool:
    lowered = text.lower()
    return "order" in lowered and any(cue in lowered for cue in ("cancel", "switch", "ship my order", "ship it to",
                                                                 "instead"))


def _day(text: str) -> str | None:
    """The month and day the words name, as 'MM-DD'."""
    found = re.search(rf"\b({'|'.join(_MONTHS)}) (\d{{1,2}})\b", text.lower())
    return f"{_MONTHS.index(found.group(1)) + 1:02d}-{int(found.group(2)):02d}" if found else None


def _best_order(text: str, orders: list[dict]) -> dict:
    words, day = content_words(text), _day(text)
    return max(orders, key=lambda o: (overlap(words, " ".join(o["items"])) + 3 * (day is not None
                                                                                    and o["placed_on"][5:] == day),
                                      o["placed_on"]))


def _variant(text: str, line: dict) -> str | None:
    """The variant of `line` the words name, else its first other one."""
    others = [v for v in line.get("variants") or [] if v["product_id"] != line["product_id"] and v["in_stock"]]
    named = [v for v in others if re.search(rf"(?<!\w){re.escape(v['value'].lower())}(?!\w)", text.lower())]
    chosen = (named or others or [None])[0]
    return chosen["product_id"] if chosen else None


async def play(shop: ShopSession, text: str) -> None:
    lowered = text.lower()
    orders = (await shop.call(LIST_ORDERS))["orders"]
    if not orders:
        await shop.call(RESPOND_TO_CUSTOMER, message="I can't find any orders.")
        return
    order = await lookup(shop, CHECK_ORDER, order_id=_best_order(text, orders)["order_id"])
    order_id = order["order_id"]
    cancel = "cancel" in lowered
    words = content_words(text)
    switches = []
    if "switch" in lowered:
        for line in order["lines"]:
            if overlap(words, line["title"]) and (product_id := _variant(text, line)):
                switches.append({"line_id": line["line_id"], "product_id": product_id})
    address = _ADDRESS.search(text)
    moving = "ship" in lowered and not cancel
    parts = (["cancel it"] if cancel else []) + [f"switch line {s['line_id']} to {s['product_id']}" for s in switches]
    new_address = None
    saved_id = None
    if moving:
        if address:
            new_address = {"street": address.group(1).strip(), "city": address.group(2).strip(),
                           "zip": address.group(3)}
            parts.append(f"ship it to {address.group(1)}, {address.group(2)} {address.group(3)}")
        else:
            profile = await lookup(shop, GET_CUSTOMER_PROFILE)
            other = next((a for a in profile["addresses"] if a["address_id"] != order.get("address_id")), None)
            if other is not None:
                saved_id = other["address_id"]
                parts.append(f"ship it to {other['street']}, {other['city']} {other['zip']}")
    if not parts:
        await shop.call(RESPOND_TO_CUSTOMER, message="I couldn't work out what to change.", order_id=order_id)
        return
    reply = await shop.call(RESPOND_TO_CUSTOMER, message=f"For order {order_id}, I will {' and '.join(parts)}. "
                            "Shall I go ahead?", order_id=order_id)
    if reply.get("status") != "open" or "go ahead" not in reply["customer_message"].lower():
        return
    try:
        if cancel:
            reason = next((r for cue, r in _REASONS if cue in lowered), "other")
            await shop.call(CANCEL_ORDER, order_id=order_id, reason=reason)
        if switches:
            await shop.call(MODIFY_ORDER_ITEMS, order_id=order_id, changes=switches)
        if new_address is not None:
            await shop.call(CHANGE_ORDER_ADDRESS, order_id=order_id, address=new_address)
        elif saved_id is not None:
            await shop.call(CHANGE_ORDER_ADDRESS, order_id=order_id, address_id=saved_id)
    except ToolFailed:
        pass
    await shop.call(RESPOND_TO_CUSTOMER, message="Done: your order is changed.", order_id=order_id)
