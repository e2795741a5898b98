"""Greedy exchanges: the delivered order whose items and day best fit the request, its line that
best fits the words, the variant the words name (else the first other one in stock), the payment
method the words name (else the first card), the difference worked out from the prices; named
to the customer, then made once they agree. It checks neither the return window nor final sale,
and asks nothing: a correction the customer makes ("Not that one: please use my gift card") is
read, and the exchange proposed again."""

from __future__ import annotations

import re

from verishop.agents.baselines.lookups import best_order, content_words, lookup, overlap
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.tool_names import (CHECK_ORDER, EXCHANGE_ITEMS, GET_CUSTOMER_PROFILE, LIST_ORDERS,
                                           RESPOND_TO_CUSTOMER)

# Greedy tries the environments' `matches` from the lowest PRECEDENCE up (most specific first).
PRECEDENCE = 11


def matches(text: str) -> bool:
    return "exchange" in text.lower()


def _named(text: str, value: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value.lower())}(?!\w)", text.lower()) is not None


# Proposals greedy makes before it gives up: the first, then one per correction the customer makes.
ATTEMPTS = 3


async def play(shop: ShopSession, text: str) -> None:
    wish = text.lower().partition(" for ")[2]  # "... from my order of March 3 for size M."
    orders = (await shop.call(LIST_ORDERS))["orders"]
    delivered = [o for o in orders if o["status"] == "delivered"] or orders
    if not delivered:
        await shop.call(RESPOND_TO_CUSTOMER, message="I can't find any orders.")
        return
    words = content_words(text)
    order = await lookup(shop, CHECK_ORDER, order_id=best_order(text, delivered)["order_id"])
    line = max(order["lines"], key=lambda li: overlap(words, li["title"]))
    others = [v for v in line.get("variants") or [] if v["product_id"] != line["product_id"] and v["in_stock"]]
    if not others:
        await shop.call(RESPOND_TO_CUSTOMER, message="I'm sorry, that item has no other variant to exchange for.",
                        order_id=order["order_id"])
        return
    methods = (await lookup(shop, GET_CUSTOMER_PROFILE))["payment_methods"]
    heard = ""  # the corrections the customer made since the request
    for _ in range(ATTEMPTS):
        variant = next((v for v in others if _named(heard, v["value"])),
                       next((v for v in others if _named(wish, v["value"])), others[0]))
        method = next((m for m in methods if _named(heard, m["label"])),
                      next((m for m in methods if _named(text, m["label"])),
                           next((m for m in methods if m["kind"] == "card"), methods[0])))
        difference = round((variant["price"] - line["unit_price"]) * line["quantity"], 2)
        reply = await shop.call(RESPOND_TO_CUSTOMER, message=(
            f"For order {order['order_id']}, I will exchange the {line['title']} for {variant['product_id']} "
            f"({variant['value']}) using your {method['label']}; the difference is {difference:.2f}. "
            "Shall I go ahead?"), order_id=order["order_id"], answer_number=difference)
        if reply.get("status") != "open":
            return
        if "please go ahead" in reply["customer_message"].lower():
            try:
                await shop.call(EXCHANGE_ITEMS, order_id=order["order_id"],
                                changes=[{"line_id": line["line_id"], "product_id": variant["product_id"]}],
                                payment_method_id=method["payment_method_id"])
            except ToolFailed:
                pass
            await shop.call(RESPOND_TO_CUSTOMER, message="Your exchange is on its way.", order_id=order["order_id"])
            return
        heard = f"{heard} {reply['customer_message']}"
