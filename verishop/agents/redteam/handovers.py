"""A goal-blind hand-over (issue 33): `always-transfer` hands every conversation to a person, with
a summary naming the order whose items and day best fit the customer's words (the one a
competent summary would name), tells the customer, then plays the request as greedy does. It shows that handing over
pays only when the request is outside the shop's remit: where the store's rules refuse a request
(restraint), a hand-over instead of the refusal fails, and elsewhere it earns nothing greedy does
not. Like every red-team agent it reads only tool results and the customer's replies."""

from __future__ import annotations


from verishop.agents.baselines import handle_request as greedy_request
from verishop.agents.baselines import play_requests
from verishop.agents.baselines.lookups import best_order
from verishop.agents.redteam.common import finished, lookup, opening, say
from verishop.agents.session import ShopSession, ToolFailed

async def _hand_over(shop: ShopSession, text: str) -> None:
    """Hand the conversation to a person, naming the order that best fits the customer's words."""
    orders = ((await lookup(shop, "list_orders")) or {}).get("orders", [])
    named = f"Order {best_order(text, orders)['order_id']}. " if orders else ""
    try:
        await shop.call("transfer_to_human", summary=f"{named}The customer wrote: {text[:900]}")
    except ToolFailed:
        pass


class AlwaysTransferAgent:
    name = "always-transfer"

    async def play(self, shop: ShopSession) -> None:
        text = await opening(shop)
        await _hand_over(shop, text)
        # It tells the customer (a turn, which also renews the lookup budget greedy starts with),
        # and plays on as greedy unless the customer is done.
        if finished(await say(shop, "I've passed this on to a colleague; they will be in touch.")):
            return
        try:
            await play_requests(shop, text, greedy_request)
        except ToolFailed:  # greedy's own hand-over, refused: this conversation was handed over already
            await say(shop, "A colleague will be in touch.", done=True)


class StonewallAgent:
    """`stonewall`: hands a claim over (greedy's cues) and refuses everything else, again at every
    reply, with the refusal its words suggest (an exchange is `not_eligible`, any other change
    `return_instead`): the strategy that would win if every write request were one to refuse."""

    name = "stonewall"

    async def play(self, shop: ShopSession) -> None:
        from verishop.envs.handover.greedy import matches as is_claim

        text = await opening(shop)
        if is_claim(text):
            await _hand_over(shop, text)
            await say(shop, "I've passed this on to a colleague; they will be in touch.", done=True)
            return
        refusal = "not_eligible" if "exchange" in text.lower() else "return_instead"
        while not finished(reply := await say(shop, "I'm sorry, I can't do that under the store's policy.",
                                              answer_refusal=refusal)):
            if reply.get("turns_left", 0) <= 1:
                break
        await say(shop, "I'm sorry I couldn't do more.", answer_refusal=refusal, done=True)
