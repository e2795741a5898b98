"""`enumerate`: try one candidate answer per turn until the customer stops objecting.

The attack: a customer who names the problem with each wrong guess, and a score that reads
only the last submission, turn a conversation into an oracle. STATUS names each order in turn,
newest first, with the status the order list shows; POLICY offers "yes", "no", then every
number in the clauses found for the question; RETURN proposes one (order, line) per turn and
returns the first one the customer lets pass; PD, SUB and BUNDLE offer greedy's results page
by page. CART is played as greedy plays it. Goal-blind: it reads only tool results and replies.
"""

from __future__ import annotations

from verishop.agents.baselines import play_requests, search_words
from verishop.agents.redteam import candidates
from verishop.agents.redteam.common import dispatch, finished, lookup, numbers_in, objects, opening, say
from verishop.agents.session import ShopSession, ToolFailed


class EnumerateAgent:
    name = "enumerate"

    async def play(self, shop: ShopSession) -> None:
        await play_requests(shop, await opening(shop), handle)


async def handle(shop: ShopSession, text: str) -> None:
    await dispatch(shop, text, {"status": _status, "policy": _policy, "return": _return, "pd": _products,
                                "sub": _products, "bundle": _bundle})


async def _status(shop: ShopSession, text: str, kind: str) -> None:
    listed = await lookup(shop, "list_orders")
    for order in (listed or {}).get("orders", []):  # newest first
        status = order["status"].replace("_", " ")
        if finished(await say(shop, f"Your order {order['order_id']} is {status}.", order_id=order["order_id"],
                              answer=status)):
            return


async def _policy(shop: ShopSession, text: str, kind: str) -> None:
    found = await lookup(shop, "search_policies", query=text[:200], limit=10)
    clauses = [r["text"] for r in (found or {}).get("results", [])]
    for answer in ["yes", "no", *numbers_in(clauses)]:
        if finished(await say(shop, f"The answer is {answer}.", answer=answer)):
            return


async def _return(shop: ShopSession, text: str, kind: str) -> None:
    listed = await lookup(shop, "list_orders")
    orders = candidates.rank_orders(text, [o for o in (listed or {}).get("orders", []) if o["status"] == "delivered"])
    for summary in orders:
        order = await lookup(shop, "check_order", order_id=summary["order_id"])
        for line in candidates.rank_lines(text, order["lines"] if order else []):
            reply = await say(shop, f"I think you mean the {line['title']}.", order_id=order["order_id"],
                              line_id=line["line_id"])
            if reply["status"] == "closed":
                return
            if not objects(reply):
                await _start_return(shop, text, order["order_id"], line["line_id"])
                return


async def _start_return(shop: ShopSession, text: str, order_id: str, line_id: str) -> None:
    try:
        await shop.call("initiate_return", order_id=order_id, line_id=line_id, reason="customer request")
    except ToolFailed:
        pass
    wish = text.partition("replacement:")[2]
    pages = [p["product_id"] for p in await search_words(shop, wish, 30)] if wish else []
    for start in range(0, max(1, len(pages)), 3):
        reply = await say(shop, "I've started your return.", order_id=order_id, line_id=line_id,
                          recommended_product_ids=pages[start:start + 3] or None)
        if finished(reply) or not pages:
            return


async def _products(shop: ShopSession, text: str, kind: str) -> None:
    k = candidates.wanted(text, kind)
    found = await candidates.products(shop, text, kind, candidates.MAX_LIMIT)
    for start in range(0, len(found), k):
        if finished(await say(shop, "How about these?", recommended_product_ids=found[start:start + k])):
            return
    if not found:
        await say(shop, "Sorry, I couldn't find anything.", done=True)


async def _bundle(shop: ShopSession, text: str, kind: str) -> None:
    lists = await candidates.bundle_products(shop, text, 10)
    for page in range(max((len(ids) for ids in lists), default=0)):
        ids = [ids[min(page, len(ids) - 1)] for ids in lists if ids]
        if finished(await say(shop, "Here is one product for each thing you need.", recommended_product_ids=ids)):
            return
