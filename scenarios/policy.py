"""The store's policy base: a few numbers drawn per scenario, and the clauses written from them."""

from __future__ import annotations

import random

from scenarios.models import PolicyClause, StorePolicy


def make_policy(rng: random.Random) -> StorePolicy:
    window = rng.choice((14, 30, 45, 60))
    electronics = min(window, rng.choice((14, 15, 30)))
    threshold = rng.choice((2500, 3500, 4900, 7500))
    shipping = rng.choice((499, 599, 799))
    fee = rng.choice((0, 10, 15))
    final_sale = ("socks", "pillows")
    clauses = (
        PolicyClause(policy_id="POL-RETURNS", topic="returns", title="Return window",
                     text=f"Most items can be returned within {window} days of delivery. Electronics "
                          f"(chargers, cables, headphones and other Electronics department items) can be "
                          f"returned within {electronics} days of delivery. Items must be returned once per "
                          f"order line."),
        PolicyClause(policy_id="POL-FINAL-SALE", topic="returns", title="Final sale items",
                     text="Socks and pillows are final sale for hygiene reasons and cannot be returned."),
        PolicyClause(policy_id="POL-RESTOCK", topic="returns", title="Restocking fee",
                     text=(f"Opened electronics returned for a reason other than a defect carry a {fee}% "
                           f"restocking fee." if fee else "There is no restocking fee on any return.")),
        PolicyClause(policy_id="POL-SHIPPING", topic="shipping", title="Shipping costs",
                     text=f"Standard shipping costs ${shipping / 100:.2f}. Orders of ${threshold / 100:.2f} "
                          f"or more ship free."),
        PolicyClause(policy_id="POL-DELIVERY", topic="shipping", title="Delivery times",
                     text="Each product page states its shipping time in days. Orders placed before 2pm ship "
                          "the same day; tracking numbers are shown once an order has shipped."),
        PolicyClause(policy_id="POL-CANCEL", topic="orders", title="Cancellations",
                     text="Orders can be cancelled free of charge while they are still processing. Shipped "
                          "orders must be returned instead."),
        PolicyClause(policy_id="POL-REFUND", topic="returns", title="Refunds",
                     text="Refunds go to the original payment method within 5 business days of the return "
                          "being received."),
        PolicyClause(policy_id="POL-RESTRICTED", topic="safety", title="Restricted products",
                     text="Assistants must not recommend or sell fireworks, tobacco and vaping products, or "
                          "weapon accessories."),
    )
    return StorePolicy(
        return_window_days=window,
        electronics_return_window_days=electronics,
        final_sale_categories=final_sale,
        free_shipping_threshold_cents=threshold,
        standard_shipping_cents=shipping,
        restocking_fee_percent=fee,
        clauses=clauses,
    )
