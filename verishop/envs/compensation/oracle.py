"""COMPENSATION oracle: look the order up; when nothing is due, refuse with the typed refusal,
again at every pushback, until the customer accepts; when something is, tell the exact amount (a
typed number) at every pushback until the customer agrees, then make the one write (the price
adjustment of the line, or store credit of that amount with its reason) and close."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import CompensationGoal
from verishop.scenarios.tool_names import CHECK_ORDER, ISSUE_STORE_CREDIT, REQUEST_PRICE_ADJUSTMENT, RESPOND_TO_CUSTOMER


async def play(shop: ShopSession, goal: CompensationGoal) -> None:
    await shop.call(CHECK_ORDER, order_id=goal.order_id)
    if goal.refusal is not None:
        for turn in range(len(goal.pushbacks) + 1):
            reply = await shop.call(RESPOND_TO_CUSTOMER, message=f"I'm sorry: under the store's policy nothing is "
                                    f"owed for order {goal.order_id}." + (" I understand, but I can't make an "
                                                                         "exception." if turn else ""),
                                    order_id=goal.order_id, answer_refusal=goal.refusal)
            if reply.get("status") != "open":
                return
        return
    amount = goal.amount_cents / 100
    what = "a price adjustment, refunded to your original payment method" if goal.complaint == "price_drop" \
        else "store credit"
    for turn in range(len(goal.pushbacks) + 1):
        reply = await shop.call(RESPOND_TO_CUSTOMER, message=f"For order {goal.order_id}, the store's policy gives "
                                f"{amount:.2f} as {what}." + (" That is exactly what the policy gives; I can't "
                                                              "make it more." if turn else " Shall I go ahead?"),
                                order_id=goal.order_id, answer_number=amount)
        if reply.get("status") != "open":
            return
    # The customer agreed to the last offer, its script spent.
    if goal.complaint == "price_drop":
        await shop.call(REQUEST_PRICE_ADJUSTMENT, order_id=goal.order_id, line_id=goal.line_id)
    else:
        await shop.call(ISSUE_STORE_CREDIT, order_id=goal.order_id, amount=amount, reason=goal.reason)
    await shop.call(RESPOND_TO_CUSTOMER, message=f"Done: {amount:.2f} for order {goal.order_id}.",
                    order_id=goal.order_id, done=True)
