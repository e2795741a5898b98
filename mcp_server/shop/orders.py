"""The customer's orders and returns in the episode world."""

from __future__ import annotations

import json
from datetime import date, timedelta

from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.errors import NotFound, Rejected
from verishop.mcp_server.models import (OrderDetails, OrderLineView, OrderList, OrderSummary, ReturnEligibility,
                               ReturnReceipt)
from verishop.mcp_server.shop.catalog import figure, in_dollars, variant_group, variant_options
from verishop.scenarios.policy import return_window_days
from verishop.scenarios.tool_names import EXCHANGE_ITEMS


async def list_orders(ep: Episode) -> OrderList:
    async with ep.db.execute(
        "SELECT o.order_id, o.placed_on, o.status, SUM(l.quantity), SUM(l.quantity * l.unit_price_cents), "
        "GROUP_CONCAT(l.title, '\x1f') FROM orders o JOIN order_lines l USING (order_id) "
        "WHERE o.customer_id = ? GROUP BY o.order_id ORDER BY o.placed_on DESC, o.order_id",
        (ep.scenario.customer.customer_id,),  # the shop's other customers' orders are theirs (issue 33)
    ) as cur:
        rows = await cur.fetchall()
    currency = ep.scenario.catalog.currency
    return OrderList(orders=[
        OrderSummary(order_id=r[0], placed_on=date.fromisoformat(r[1]), status=r[2], item_count=r[3],
                     total_usd=in_dollars(currency, r[4]), total=figure(r[4]), currency=currency,
                     items=r[5].split("\x1f"))
        for r in rows
    ])


async def _order_row(ep: Episode, order_id: str) -> tuple:
    async with ep.db.execute(
        "SELECT order_id, placed_on, status, carrier, tracking_number, eta, delivered_on FROM orders "
        "WHERE order_id = ?", (order_id.strip(),)
    ) as cur:
        row = await cur.fetchone()
    if row is None:
        raise NotFound(f"no order with ID {order_id!r}; order IDs look like 'W1234567' and come from list_orders")
    return tuple(row)


async def check_order(ep: Episode, order_id: str) -> OrderDetails:
    o = await _order_row(ep, order_id)
    async with ep.db.execute(
        "SELECT l.line_id, l.product_id, l.title, l.quantity, l.unit_price_cents, r.return_id IS NOT NULL "
        "FROM order_lines l LEFT JOIN returns r USING (line_id) WHERE l.order_id = ? ORDER BY l.rowid", (o[0],)
    ) as cur:
        rows = await cur.fetchall()
    currency = ep.scenario.catalog.currency
    lines = [OrderLineView(line_id=r[0], product_id=r[1], title=r[2], quantity=r[3],
                           unit_price_usd=in_dollars(currency, r[4]), unit_price=figure(r[4]), returned=bool(r[5]))
             for r in rows]
    total_cents = sum(r[3] * r[4] for r in rows)
    opt = lambda v: date.fromisoformat(v) if v else None  # noqa: E731
    details = OrderDetails(order_id=o[0], placed_on=date.fromisoformat(o[1]), status=o[2], carrier=o[3],
                           tracking_number=o[4], estimated_delivery=opt(o[5]), delivered_on=opt(o[6]), lines=lines,
                           total_usd=in_dollars(currency, total_cents), total=figure(total_cents), currency=currency)
    if ep.scenario.account is None:
        return details
    return await _with_account(ep, details)


async def _with_account(ep: Episode, details: OrderDetails) -> OrderDetails:
    """An account shop's order (issue 32): where it ships, how it was paid, what changed, and what
    each line could become (its variants)."""
    async with ep.db.execute("SELECT address_id, ship_to, payment_id, cancel_reason FROM orders WHERE order_id = ?",
                             (details.order_id,)) as cur:
        address_id, ship_to, payment_id, cancel_reason = await cur.fetchone()
    async with ep.db.execute("SELECT tool, detail FROM order_changes WHERE order_id = ? ORDER BY created_seq",
                             (details.order_id,)) as cur:
        changes = [(tool, json.loads(detail)) for tool, detail in await cur.fetchall()]
    exchanged = {line: new for tool, detail in changes if tool == EXCHANGE_ITEMS
                 for line, new in detail.get("lines", {}).items()}
    currency = ep.scenario.catalog.currency
    lines = []
    for line in details.lines:
        variants = None
        if details.status != "cancelled":
            product = ep.product(line.product_id)
            if product is not None:
                variants = variant_options(*await variant_group(ep, product), currency) or None
        lines.append(line.model_copy(update={"variants": variants, "exchanged_for": exchanged.get(line.line_id)}))
    address = json.loads(ship_to) if ship_to else None
    return details.model_copy(update={
        "lines": lines, "address_id": address_id, "payment_method_id": payment_id, "cancel_reason": cancel_reason,
        "ship_to": f"{address['street']}, {address['city']} {address['zip']}" if address else None,
        "changes": [f"{tool}: {json.dumps(detail, sort_keys=True)}" for tool, detail in changes] or None})


async def _eligibility(ep: Episode, order_id: str, line_id: str) -> tuple[ReturnEligibility, int]:
    o = await _order_row(ep, order_id)
    async with ep.db.execute(
        "SELECT l.category_id, l.quantity, l.unit_price_cents, r.return_id FROM order_lines l "
        "LEFT JOIN returns r USING (line_id) WHERE l.line_id = ? AND l.order_id = ?", (line_id.strip(), o[0])
    ) as cur:
        row = await cur.fetchone()
    if row is None:
        raise NotFound(f"order {o[0]} has no line {line_id!r}; check_order lists its line IDs")
    category_id, quantity, unit_cents, return_id = row
    policy = ep.scenario.policy
    currency = ep.scenario.catalog.currency
    base = dict(order_id=o[0], line_id=line_id.strip(), currency=currency)
    if return_id is not None:
        return ReturnEligibility(**base, eligible=False, reason=f"already returned ({return_id})"), quantity
    if category_id in policy.final_sale_categories:
        return ReturnEligibility(**base, eligible=False, reason="final sale item; cannot be returned"), quantity
    if o[2] != "delivered":
        return ReturnEligibility(**base, eligible=False,
                                 reason=f"order is {o[2]}; only delivered orders can be returned"), quantity
    return_by = date.fromisoformat(o[6]) + timedelta(days=return_window_days(policy, category_id))
    if ep.scenario.today > return_by:
        return ReturnEligibility(**base, eligible=False, return_by=return_by,
                                 reason=f"the return window ended on {return_by.isoformat()}"), quantity
    refund_cents = unit_cents * quantity
    return ReturnEligibility(**base, eligible=True, return_by=return_by, refund_usd=in_dollars(currency, refund_cents),
                             refund=figure(refund_cents), reason="within the return window"), quantity


async def check_return_eligibility(ep: Episode, order_id: str, line_id: str) -> ReturnEligibility:
    return (await _eligibility(ep, order_id, line_id))[0]


async def initiate_return(ep: Episode, order_id: str, line_id: str, reason: str) -> ReturnReceipt:
    verdict, quantity = await _eligibility(ep, order_id, line_id)
    if not verdict.eligible:
        raise Rejected(f"line {verdict.line_id} of order {verdict.order_id} cannot be returned: {verdict.reason}")
    return_id = f"RT-{ep.calls:04d}"
    refund_cents = round((verdict.refund or 0) * 100)
    await ep.db.execute("INSERT INTO returns VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (return_id, verdict.order_id, verdict.line_id, quantity, reason, refund_cents, ep.calls))
    return ReturnReceipt(return_id=return_id, order_id=verdict.order_id, line_id=verdict.line_id,
                         quantity=quantity, refund_usd=in_dollars(verdict.currency, refund_cents),
                         refund=figure(refund_cents), currency=verdict.currency,
                         instructions=f"Print the label sent to the customer's email and ship the item by "
                                      f"{(ep.scenario.today + timedelta(days=14)).isoformat()}.")
