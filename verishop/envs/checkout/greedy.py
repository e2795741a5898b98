"""Greedy checkout: the items the words list, each the first search result for its words; the
one voucher that takes most off on its own (each tried, read and removed); the cheapest shipping option (or, told it arrives too late, the
cheapest in time for the date the customer says); the saved address whose street the words name
(else the default); the gift card first when the words ask for it, and the card they name (else
the first). It names the total to the customer and places the order once they agree. It never
combines vouchers nor thinks of the free-shipping threshold."""

from __future__ import annotations

import re
from datetime import date, timedelta

from verishop.agents.baselines.lookups import lookup
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.tool_names import (
    ADD_TO_CART,
    APPLY_VOUCHER,
    CHECKOUT,
    GET_CUSTOMER_PROFILE,
    LIST_VOUCHERS,
    REMOVE_VOUCHER,
    RESPOND_TO_CUSTOMER,
    SEARCH_CATALOG,
)

# Greedy tries the environments' `matches` from the lowest PRECEDENCE up (most specific first).
PRECEDENCE = 8
SAID_OPTION = {"standard": "standard", "express": "express", "next_day": "next-day"}
_MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"]
ATTEMPTS = 2


def matches(text: str) -> bool:
    return "voucher" in text.lower() and "order" in text.lower()


def wanted_items(text: str) -> list[tuple[str, int]]:
    """(words, quantity) of each item the request lists: "order A, 2 × B and the C, shipped to"."""
    # "…, shipped to", or the two sentences some customers say it in ("… Please ship it to").
    listed = re.search(r"\border (.+?)(?:, shipped to|\. (?:please|pls) ship it to)\b", text, re.IGNORECASE | re.DOTALL)
    if listed is None:
        return []
    parts = re.split(r", | and ", listed.group(1))
    out = []
    for part in parts:
        counted = re.match(r"\s*(\d+)\s*×\s*(.+)", part)
        words = counted.group(2) if counted else re.sub(r"^\s*(?:the|teh)\s+", "", part, flags=re.IGNORECASE)
        out.append((words.strip(), int(counted.group(1)) if counted else 1))
    return out


def said_date(text: str, today: date) -> date | None:
    found = re.search(rf"\b({'|'.join(_MONTHS)}) (\d{{1,2}})\b", text.lower())
    if found is None:
        return None
    day = date(today.year, _MONTHS.index(found.group(1)) + 1, int(found.group(2)))
    return day if day >= today else date(today.year + 1, day.month, day.day)


async def _fill_cart(shop: ShopSession, text: str) -> bool:
    added = False
    for words, quantity in wanted_items(text):
        found = (await lookup(shop, SEARCH_CATALOG, query=words, limit=1))["results"]
        if found:
            try:
                await shop.call(ADD_TO_CART, product_id=found[0]["product_id"], quantity=quantity)
                added = True
            except ToolFailed:
                pass
    return added


async def _best_single_voucher(shop: ShopSession, vouchers: list[dict]) -> dict | None:
    """Try each voucher alone (apply, read what it takes off, remove) and keep the one that takes
    off most: the shipping options with it applied (None when the shop accepts none)."""
    best: tuple[float, str] | None = None
    for voucher in vouchers:
        try:
            quoted = await shop.call(APPLY_VOUCHER, code=voucher["code"])
        except ToolFailed:
            continue
        await shop.call(REMOVE_VOUCHER, code=voucher["code"])
        if best is None or quoted["discount"] > best[0]:
            best = (quoted["discount"], voucher["code"])
    if best is None:
        return None
    return (await shop.call(APPLY_VOUCHER, code=best[1]))["shipping"]


def _payment(text: str, methods: list[dict]) -> list[dict]:
    lowered = text.lower()
    cards = [m for m in methods if m["kind"] == "card"]
    card = next((m for m in cards if m["label"].lower() in lowered), cards[0] if cards else methods[0])
    gift = next((m for m in methods if m["kind"] == "gift_card"), None)
    return [gift, card] if gift is not None and "gift card" in lowered else [card]


async def play(shop: ShopSession, text: str) -> None:
    await play_with(shop, text)


async def play_with(shop: ShopSession, text: str, *, every_voucher: bool = False, heed_date: bool = True) -> None:
    """Greedy's play; the red team's variants (verishop/agents/redteam/vouchers.py) apply every
    voucher the shop accepts (`every_voucher`) or always ship the cheapest way (`heed_date` off)."""
    if not await _fill_cart(shop, text):
        await shop.call(RESPOND_TO_CUSTOMER, message="I couldn't find those items, sorry.", done=True)
        return
    listed = await lookup(shop, LIST_VOUCHERS)
    shipping = listed["shipping"]
    if every_voucher:
        for voucher in listed["vouchers"]:
            try:
                shipping = (await shop.call(APPLY_VOUCHER, code=voucher["code"]))["shipping"]
            except ToolFailed:
                continue
    else:
        shipping = await _best_single_voucher(shop, listed["vouchers"]) or shipping
    profile = await lookup(shop, GET_CUSTOMER_PROFILE)
    address = next((a for a in profile["addresses"] if a["street"].lower() in text.lower()),
                   next((a for a in profile["addresses"] if a["default"]), profile["addresses"][0]))
    methods = _payment(text, profile["payment_methods"])
    heard = text
    for _ in range(ATTEMPTS):
        first = shipping["options"][0]
        today = date.fromisoformat(str(first["arrives_by"])) - timedelta(days=first["days"])
        by = said_date(heard, today) if heed_date else None
        timely = [o for o in shipping["options"] if by is None or date.fromisoformat(str(o["arrives_by"])) <= by]
        option = min(timely or shipping["options"], key=lambda o: o["price"])
        total = round(shipping["cart_after_vouchers"] + option["price"], 2)
        paying = " first, then the rest on your ".join(m["label"] for m in methods)
        reply = await shop.call(RESPOND_TO_CUSTOMER, message=(
            f"I'll ship it {SAID_OPTION[option['name']]}, paid with your {paying}: the total is {total:.2f}. "
            "Shall I place the order?"), answer_number=total)
        if reply.get("status") != "open":
            return
        if "place the order" in reply["customer_message"].lower():
            try:
                await shop.call(CHECKOUT, address_id=address["address_id"],
                                payment_method_ids=[m["payment_method_id"] for m in methods],
                                shipping_option=option["name"])
            except ToolFailed:
                pass
            await shop.call(RESPOND_TO_CUSTOMER, message="Your order is placed.", done=True)
            return
        heard = f"{heard} {reply['customer_message']}"
