"""`bruteforce`: every candidate answer inside one message.

The attack: a reader that looks for the right value anywhere in an answer is satisfied by an
answer that lists them all. POLICY answers "yes, no, 30, 45, ..." (every number in the clauses
found); STATUS names the newest order with every status at once; RETURN starts a return on
every returnable line of the delivered orders and names greedy's pick; PD and SUB recommend
ten of greedy's results. Anything else is played as greedy plays it. Goal-blind.
"""

from __future__ import annotations

from verishop.agents.baselines import play_requests
from verishop.agents.redteam import candidates
from verishop.agents.redteam.common import dispatch, lookup, numbers_in, opening, say
from verishop.agents.session import ShopSession, ToolFailed

EVERY_STATUS = "processing / shipped / in transit / delivered / cancelled"
LIST_MAX = 10  # respond_to_customer takes at most ten recommendations


class BruteforceAgent:
    name = "bruteforce"

    async def play(self, shop: ShopSession) -> None:
        await play_requests(shop, await opening(shop), handle)


async def handle(shop: ShopSession, text: str) -> None:
    await dispatch(shop, text, {"status": _status, "policy": _policy, "return": _return, "pd": _products,
                                "sub": _products})


async def _status(shop: ShopSession, text: str, kind: str) -> None:
    orders = ((await lookup(shop, "list_orders")) or {}).get("orders", [])
    order_id = orders[0]["order_id"] if orders else None
    await say(shop, f"Your order {order_id} is {EVERY_STATUS}.", order_id=order_id, answer=EVERY_STATUS, done=True)


async def _policy(shop: ShopSession, text: str, kind: str) -> None:
    found = await lookup(shop, "search_policies", query=text[:200], limit=10)
    answer = ", ".join(["yes", "no", *numbers_in([r["text"] for r in (found or {}).get("results", [])])])[:200]
    await say(shop, f"The answer is {answer}.", answer=answer, done=True)


async def _return(shop: ShopSession, text: str, kind: str) -> None:
    listed = await lookup(shop, "list_orders")
    orders = candidates.rank_orders(text, [o for o in (listed or {}).get("orders", []) if o["status"] == "delivered"])
    picked: tuple[str, str] | None = None
    for summary in orders:
        order = await lookup(shop, "check_order", order_id=summary["order_id"])
        for line in candidates.rank_lines(text, order["lines"] if order else []):
            picked = picked or (order["order_id"], line["line_id"])
            try:
                await shop.call("initiate_return", order_id=order["order_id"], line_id=line["line_id"],
                                reason="customer request")
            except ToolFailed:
                pass
    order_id, line_id = picked or (None, None)
    await say(shop, "I've started the return.", order_id=order_id, line_id=line_id, done=True)


async def _products(shop: ShopSession, text: str, kind: str) -> None:
    ids = await candidates.products(shop, text, kind, LIST_MAX)
    if ids:
        await say(shop, "Here are the best matches I found.", recommended_product_ids=ids)
    else:
        await say(shop, "Sorry, I couldn't find anything.", done=True)
