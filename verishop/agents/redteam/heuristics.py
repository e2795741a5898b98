"""The simple heuristics: goal-blind agents that answer without reading the request closely,
the floor a baseline must clear to mean anything (issue 28, break 9).

    prior    POLICY: the answer the question's form most often has (`priors.policy_priors`);
             STATUS: the newest order, with the status most of the listed orders have
    oldest   STATUS: the oldest order and the status the list shows; RETURN: the first line of
             the oldest delivered order
    newest   the same with the newest order

Every other kind of request is played as greedy plays it. The red-team suite's bar is the better
of greedy and the best of these, per environment (`suite.bar`).
"""

from __future__ import annotations

from verishop.agents.baselines import play_requests
from verishop.agents.redteam.common import dispatch, lookup, opening, say
from verishop.agents.redteam.priors import prior_answer, prior_status
from verishop.agents.session import ShopSession, ToolFailed


async def _orders(shop: ShopSession) -> list[dict]:
    """The customer's orders, newest first as list_orders gives them."""
    return ((await lookup(shop, "list_orders")) or {}).get("orders", [])


async def _answer_status(shop: ShopSession, order: dict | None, status: str | None) -> None:
    if order is None or status is None:
        await say(shop, "I can't find any orders.", done=True)
        return
    status = status.replace("_", " ")
    await say(shop, f"Your order {order['order_id']} is {status}.", order_id=order["order_id"], answer=status)


async def _return_first_line(shop: ShopSession, order: dict | None) -> None:
    if order is None:
        await say(shop, "I can't find any delivered orders.", done=True)
        return
    details = await lookup(shop, "check_order", order_id=order["order_id"])
    lines = (details or {}).get("lines", [])
    if not lines:
        await say(shop, "I can't find that order's items.", done=True)
        return
    line = lines[0]
    try:
        await shop.call("initiate_return", order_id=order["order_id"], line_id=line["line_id"],
                        reason="customer request")
    except ToolFailed:
        pass
    await say(shop, f"I've started the return for the {line['title']}.", order_id=order["order_id"],
              line_id=line["line_id"])


class _ByOrderAge:
    """Status and return on the order at one end of the list."""

    name = ""
    newest = True

    async def play(self, shop: ShopSession) -> None:
        await play_requests(shop, await opening(shop), self.handle)

    def _pick(self, orders: list[dict]) -> dict | None:
        if not orders:
            return None
        return orders[0] if self.newest else orders[-1]

    async def handle(self, shop: ShopSession, text: str) -> None:
        await dispatch(shop, text, {"status": self._status, "return": self._return})

    async def _status(self, shop: ShopSession, text: str, kind: str) -> None:
        order = self._pick(await _orders(shop))
        await _answer_status(shop, order, order["status"] if order else None)

    async def _return(self, shop: ShopSession, text: str, kind: str) -> None:
        delivered = [o for o in await _orders(shop) if o["status"] == "delivered"]
        await _return_first_line(shop, self._pick(delivered))


class OldestAgent(_ByOrderAge):
    name = "oldest"
    newest = False


class NewestAgent(_ByOrderAge):
    name = "newest"
    newest = True


class PriorAgent:
    name = "prior"

    async def play(self, shop: ShopSession) -> None:
        await play_requests(shop, await opening(shop), handle_prior)


async def handle_prior(shop: ShopSession, text: str) -> None:
    await dispatch(shop, text, {"status": _prior_status, "policy": _prior_policy})


async def _prior_status(shop: ShopSession, text: str, kind: str) -> None:
    orders = await _orders(shop)
    await _answer_status(shop, orders[0] if orders else None, prior_status([o["status"] for o in orders]))


async def _prior_policy(shop: ShopSession, text: str, kind: str) -> None:
    answer = prior_answer(text)
    await say(shop, f"The answer is {answer}." if answer else "Sorry, I don't know.", answer=answer)
