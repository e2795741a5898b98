"""How the order-change customer and its check read the same things: the cancellation reasons
in the customer's words, and whether a written address is the one wanted."""

from __future__ import annotations

from verishop.scenarios.models import OrderChangeGoal

# What the customer says for each cancellation reason (the shop's fixed list, `CancelReason`).
REASON_WORDS = {"no longer needed": "I don't need it anymore.", "ordered by mistake": "I ordered it by mistake.",
                "found a better price": "I found it cheaper somewhere else.",
                "delivery too slow": "It would take too long to arrive."}


def address_matches(goal: OrderChangeGoal, detail: dict) -> bool:
    """Whether a written address (its detail: address_id, street, city, zip) is the one wanted:
    the saved one by its ID, or the new one by its street, city and zip (any case and spacing)."""
    if goal.address is None:
        return False
    if goal.address_id is not None and detail.get("address_id") == goal.address_id:
        return True
    new = goal.address
    return (_norm(detail.get("street")) == _norm(new.street) and _norm(detail.get("city")) == _norm(new.city)
            and str(detail.get("zip", "")).strip() == new.zip)


def _norm(text: object) -> str:
    return " ".join(str(text or "").lower().replace(".", "").replace(",", "").split())


