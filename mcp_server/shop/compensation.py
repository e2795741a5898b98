"""Compensation (issue 34): a price adjustment refunded to the order's payment method, and store
credit on an order, in the episode world.

Like every order write, each checks only what makes it impossible to carry out: an order or line
that is not there, a cancelled order, a price that did not drop (there is no difference to
refund), a line adjusted already (its difference was refunded), an amount that is not positive,
not in cents, or more than the order's item total. The store's *policy* (the adjustment window,
the lateness threshold, the damage window, the percentages and caps, once per order) is the
agent's to apply: the tools do what they are told and the verifier judges whether they should have
been told, so that refusing is the agent's decision. Every write is logged in `order_changes`
with the money it moved (negative: paid back to the customer).
"""

from __future__ import annotations

import json

from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.errors import NotFound, Rejected
from verishop.mcp_server.models import OrderChangeReceipt
from verishop.mcp_server.shop.catalog import fetch_product, figure
# The order-change log and payments are shared with the other order writes.
from verishop.mcp_server.shop.order_changes import _log, _order, _pay
from verishop.scenarios.tool_names import ISSUE_STORE_CREDIT, REQUEST_PRICE_ADJUSTMENT

# A float amount is in cents when it is this close to a whole number of hundredths.
_CENT_TOLERANCE = 1e-6


async def _adjusted_before(ep: Episode, order_id: str, line_id: str) -> bool:
    async with ep.db.execute("SELECT detail FROM order_changes WHERE order_id = ? AND tool = ?",
                             (order_id, REQUEST_PRICE_ADJUSTMENT)) as cur:
        return any(json.loads(detail).get("line_id") == line_id for (detail,) in await cur.fetchall())


async def request_price_adjustment(ep: Episode, order_id: str, line_id: str) -> OrderChangeReceipt:
    order = await _order(ep, order_id)
    line = line_id.strip()
    async with ep.db.execute("SELECT product_id, quantity, unit_price_cents FROM order_lines "
                             "WHERE line_id = ? AND order_id = ?", (line, order.order_id)) as cur:
        row = await cur.fetchone()
    if row is None:
        raise NotFound(f"order {order.order_id} has no line {line_id!r}; check_order lists its line IDs")
    product_id, quantity, paid_cents = row
    if await _adjusted_before(ep, order.order_id, line):
        raise Rejected(f"line {line} of order {order.order_id} was price-adjusted already; its difference was "
                       "refunded")
    current = await fetch_product(ep, product_id)
    if current.price_cents >= paid_cents:
        raise Rejected(f"nothing to adjust: line {line} was bought at {figure(paid_cents)} and {product_id} costs "
                       f"{figure(current.price_cents)} now, not less")
    refund = (paid_cents - current.price_cents) * quantity
    await _pay(ep, order.payment_id, -refund)
    detail = {"line_id": line, "paid_cents": paid_cents, "current_cents": current.price_cents, "quantity": quantity}
    return await _log(ep, order.order_id, REQUEST_PRICE_ADJUSTMENT, detail, -refund, order.payment_id,
                      f"line {line}: the price difference {figure(refund)} refunded to the order's payment method")


async def issue_store_credit(ep: Episode, order_id: str, amount: float, reason: str) -> OrderChangeReceipt:
    order = await _order(ep, order_id)
    cents = round(amount * 100)
    if abs(amount * 100 - cents) > _CENT_TOLERANCE:
        raise Rejected(f"amount {amount} is not in cents; give at most two decimals")
    if cents <= 0:
        raise Rejected(f"amount {amount} is not positive; store credit is a positive amount")
    async with ep.db.execute("SELECT COALESCE(SUM(quantity * unit_price_cents), 0) FROM order_lines "
                             "WHERE order_id = ?", (order.order_id,)) as cur:
        (total,) = await cur.fetchone()
    if cents > total:
        raise Rejected(f"{figure(cents)} is more than order {order.order_id}'s item total {figure(total)}; credit on "
                       "an order never exceeds what was paid for it")
    async with ep.db.execute("SELECT payment_id FROM payment_methods WHERE kind = 'store_credit' ORDER BY rowid "
                             "LIMIT 1") as cur:
        found = await cur.fetchone()
    credit_id = found[0] if found else None
    if credit_id is not None:
        await _pay(ep, credit_id, -cents)
    detail = {"reason": reason, "amount_cents": cents}
    return await _log(ep, order.order_id, ISSUE_STORE_CREDIT, detail, -cents, credit_id,
                      f"{figure(cents)} of store credit for order {order.order_id} ({reason})")
