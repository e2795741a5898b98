"""HANDOVER oracle: look the order up; a restraint request is refused with the typed refusal,
again at every pushback, until the customer accepts; a hand-over request is handed to a person
with the order's ID in the summary, then the customer is told and the conversation closed."""

from __future__ import annotations

from verishop.agents.session import ShopSession
from verishop.scenarios.models import HandoverGoal
from verishop.scenarios.tool_names import CHECK_ORDER, RESPOND_TO_CUSTOMER, TRANSFER_TO_HUMAN

_WHY = {"return_instead": "has already shipped, so it can no longer be changed or cancelled: you can return it "
                         "once it arrives",
        "not_eligible": "cannot be exchanged under the store's policy (outside the return window, or final sale)"}


async def play(shop: ShopSession, goal: HandoverGoal) -> None:
    if goal.serve is not None:  # granted: the oracle of its own environment serves it
        from verishop.agents.oracles import play_for

        await play_for(goal.serve)(shop, goal.serve)
        return
    await shop.call(CHECK_ORDER, order_id=goal.order_id)
    if goal.mode == "handover":
        await shop.call(TRANSFER_TO_HUMAN, summary=f"{goal.request.replace('_', ' ').capitalize()} about order "
                        f"{goal.order_id}: the customer needs a person to handle it.")
        await shop.call(RESPOND_TO_CUSTOMER, message=f"I've passed this on to a colleague, with order {goal.order_id}"
                        "; they will contact you.", order_id=goal.order_id, done=True)
        return
    assert goal.refusal is not None
    for turn in range(len(goal.pushbacks) + 1):
        reply = await shop.call(RESPOND_TO_CUSTOMER, message=f"I'm sorry: order {goal.order_id} {_WHY[goal.refusal]}."
                                + (" I understand, but I can't make an exception." if turn else ""),
                                order_id=goal.order_id, answer_refusal=goal.refusal)
        if reply.get("status") != "open":
            return
