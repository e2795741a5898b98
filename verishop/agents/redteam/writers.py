"""Goal-blind writers (issue 32): agents that change the customer's orders without knowing what
the customer wants, the way a careless assistant would, to show the order-change and exchange
checks pay none of them more than greedy.

    cancel-all    cancels every order the customer has, then plays the request as greedy does
    modify-first  the first line of the newest order that can take it switched (CHANGE) or
                  exchanged (EXCHANGE) to its first other variant, named first, made either way
    refuse        refuses every request: the typed refusal its kind most often has, and done (a
                  compensation request: the refusal held through every pushback, issue 34)
    credit-max    a compensation request (issue 34) answered with the most the tools allow: the
                  order whose items and day best fit the words credited its whole item total,
                  offered until the customer agrees; any other request played as greedy does
    ask-only      asks, every turn, about everything a change could need and whether to go ahead,
                  and never acts (asking that learns the details and then acts is `askall`, which
                  does the task: docs/reward.md)

Like every red-team agent they read only tool results and the customer's replies.
"""

from __future__ import annotations

from verishop.agents.baselines import play_requests
from verishop.agents.baselines import handle_request as greedy_request
from verishop.agents.baselines.lookups import best_order
from verishop.agents.redteam.common import dispatch, kind_of, lookup, opening, say
from verishop.agents.session import ShopSession, ToolFailed

# The refusal each kind of request most often earns (change: a shipped order; exchange: the window).
_REFUSALS = {"change": "return_instead", "exchange": "not_eligible"}


async def _orders(shop: ShopSession) -> list[dict]:
    return ((await lookup(shop, "list_orders")) or {}).get("orders", [])


async def _attempt(shop: ShopSession, tool: str, **arguments: object) -> None:
    try:
        await shop.call(tool, **arguments)
    except ToolFailed:
        pass


class CancelAllAgent:
    name = "cancel-all"

    async def play(self, shop: ShopSession) -> None:
        for order in await _orders(shop):
            if order["status"] != "cancelled":
                await _attempt(shop, "cancel_order", order_id=order["order_id"], reason="other")
        await play_requests(shop, await opening(shop), greedy_request)


class ModifyFirstAgent:
    name = "modify-first"

    async def play(self, shop: ShopSession) -> None:
        await play_requests(shop, await opening(shop), self.handle)

    async def handle(self, shop: ShopSession, text: str) -> None:
        await dispatch(shop, text, {"change": self._first_line, "exchange": self._first_line})

    async def _first_line(self, shop: ShopSession, text: str, kind: str) -> None:
        wanted = "processing" if kind == "change" else "delivered"
        order = next((o for o in await _orders(shop) if o["status"] == wanted), None)
        details = await lookup(shop, "check_order", order_id=order["order_id"]) if order else None
        line = next((li for li in (details or {}).get("lines", [])
                     if any(v["product_id"] != li["product_id"] and v["in_stock"] for v in li.get("variants") or [])),
                    None)
        if order is None or line is None:
            await say(shop, "I couldn't find anything to change.", done=True)
            return
        variant = next(v for v in line["variants"] if v["product_id"] != line["product_id"] and v["in_stock"])
        difference = round((variant["price"] - line["unit_price"]) * line["quantity"], 2)
        changes = [{"line_id": line["line_id"], "product_id": variant["product_id"]}]
        await say(shop, f"For order {order['order_id']}, I will switch the {line['title']} to {variant['product_id']} "
                  f"({variant['value']}); the difference is {difference:.2f}. Shall I go ahead?",
                  order_id=order["order_id"], answer_number=difference)
        if kind == "change":
            await _attempt(shop, "modify_order_items", order_id=order["order_id"], changes=changes)
        else:
            profile = await lookup(shop, "get_customer_profile") or {"payment_methods": []}
            method = next(iter(profile["payment_methods"]), None)
            if method is not None:
                await _attempt(shop, "exchange_items", order_id=order["order_id"], changes=changes,
                               payment_method_id=method["payment_method_id"])
        await say(shop, "Done: your order is changed.", order_id=order["order_id"])


# Turns a goal-blind writer keeps its answer through the customer's pushback.
HOLD_TURNS = 5


class RefuseAgent:
    name = "refuse"

    async def play(self, shop: ShopSession) -> None:
        text = await opening(shop)
        kind = kind_of(text)
        refusal = _REFUSALS.get(kind, "not_eligible")
        orders = await _orders(shop)
        submission = {"order_id": orders[0]["order_id"]} if orders else {}
        if kind == "compensation":  # the customer pushes back: the refusal is held, never withdrawn
            for _ in range(HOLD_TURNS):
                reply = await say(shop, "I'm sorry, nothing is owed under the store's policy.", answer_refusal=refusal,
                                  **submission)
                if reply["status"] != "open":
                    return
        await say(shop, "I'm sorry, that can't be done under the store's policy.", answer_refusal=refusal, done=True,
                  **submission)


class CreditMaxAgent:
    name = "credit-max"

    async def play(self, shop: ShopSession) -> None:
        await play_requests(shop, await opening(shop), self.handle)

    async def handle(self, shop: ShopSession, text: str) -> None:
        await dispatch(shop, text, {"compensation": self._credit_all})

    async def _credit_all(self, shop: ShopSession, text: str, kind: str) -> None:
        orders = [o for o in await _orders(shop) if o["status"] != "cancelled"]
        if not orders:
            await say(shop, "I couldn't find any order to compensate.", done=True)
            return
        order = best_order(text, orders)
        amount = order["total"]
        for _ in range(HOLD_TURNS):
            reply = await say(shop, f"For order {order['order_id']} I'll give you {amount:.2f} in store credit, the "
                              "whole order. Shall I go ahead?", order_id=order["order_id"], answer_number=amount)
            if reply["status"] != "open" or "go ahead" in reply["customer_message"].lower():
                break
        await _attempt(shop, "issue_store_credit", order_id=order["order_id"], amount=amount, reason="goodwill")
        await say(shop, "Done: the credit is on your account.", order_id=order["order_id"], done=True)


ASKS = ("Which order do you mean, and why do you want the change?",
        "Which size or colour would you like, and which address should it ship to?",
        "Which payment method should I use for any difference?",
        "Shall I go ahead?")


class AskOnlyAgent:
    name = "ask-only"

    async def play(self, shop: ShopSession) -> None:
        await opening(shop)
        turn = 0
        while True:
            reply = await say(shop, ASKS[turn % len(ASKS)])
            turn += 1
            if reply["status"] == "closed" or reply["turns_left"] <= 1:
                break
        await say(shop, "Thanks, that's all I needed.", done=True)
