"""Changing an order and exchanging delivered items (issue 32), in the episode world.

Each write checks only what makes it impossible to carry out: an order or line that is not
there, a product that is not a variant of the line's own, one sold out, a change a tool allows
once per order made already, a cancelled order, a gift card that cannot cover a charge. The
shop's *policy* (only processing orders change, exchanges within the return window and not on
final sale) is the agent's to apply: the tools do what they are told, and the verifier judges
whether they should have been told (otherwise refusing would never be the agent's decision).
Every write is logged in `order_changes`, with the money it moved.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.errors import NotFound, Rejected
from verishop.mcp_server.models import OrderChangeReceipt
from verishop.mcp_server.shop.catalog import fetch_product, figure, variant_group
from verishop.scenarios.catalog.reader import Product
from verishop.scenarios.models import NewAddress
from verishop.scenarios.tool_names import CANCEL_ORDER, CHANGE_ORDER_ADDRESS, EXCHANGE_ITEMS, MODIFY_ORDER_ITEMS
from verishop.scenarios.world_db import address_json


@dataclass(frozen=True)
class _Order:
    order_id: str
    status: str
    payment_id: str | None


@dataclass(frozen=True)
class _Switch:
    line_id: str
    quantity: int
    old_cents: int
    new: Product

    @property
    def difference_cents(self) -> int:
        return (self.new.price_cents - self.old_cents) * self.quantity


async def _order(ep: Episode, order_id: str) -> _Order:
    async with ep.db.execute("SELECT order_id, status, payment_id FROM orders WHERE order_id = ?",
                             (order_id.strip(),)) as cur:
        row = await cur.fetchone()
    if row is None:
        raise NotFound(f"no order with ID {order_id!r}; order IDs look like 'W1234567' and come from list_orders")
    order = _Order(*row)
    if order.status == "cancelled":
        raise Rejected(f"order {order.order_id} is cancelled; nothing about it can be changed")
    return order


async def _done_before(ep: Episode, order_id: str, tool: str) -> bool:
    async with ep.db.execute("SELECT 1 FROM order_changes WHERE order_id = ? AND tool = ?", (order_id, tool)) as cur:
        return await cur.fetchone() is not None


async def _switches(ep: Episode, order: _Order, changes: list[dict[str, str]]) -> list[_Switch]:
    """The line changes asked for, checked: each line of the order once, each to another variant
    of its own product that is in stock for the line's quantity."""
    lines = [c["line_id"].strip() for c in changes]
    if len(set(lines)) < len(lines):
        raise Rejected("a line appears twice in changes; give each line once, with the variant it becomes")
    switches = []
    for change, line_id in zip(changes, lines):
        async with ep.db.execute("SELECT product_id, quantity, unit_price_cents FROM order_lines "
                                 "WHERE line_id = ? AND order_id = ?", (line_id, order.order_id)) as cur:
            row = await cur.fetchone()
        if row is None:
            raise NotFound(f"order {order.order_id} has no line {line_id!r}; check_order lists its line IDs")
        current = await fetch_product(ep, row[0])
        new = await fetch_product(ep, change["product_id"])
        if new.product_id == current.product_id:
            raise Rejected(f"line {line_id} is already {new.product_id}; name the variant it should become")
        siblings, _ = await variant_group(ep, current)
        if new.product_id not in {s.product_id for s in siblings}:
            raise Rejected(f"{new.product_id} is not a variant of line {line_id}'s product {current.product_id}; "
                           f"check_order lists each line's variants")
        if new.stock < row[1]:
            raise Rejected(f"{new.product_id} is sold out" if new.stock <= 0 else
                           f"only {new.stock} of {new.product_id} in stock; line {line_id} needs {row[1]}")
        switches.append(_Switch(line_id, row[1], row[2], new))
    return switches


async def _pay(ep: Episode, payment_id: str | None, amount_cents: int) -> None:
    """Charge `amount_cents` to a payment method (refund, when negative). A card takes any
    amount; a gift card or store credit must hold a charge, and takes a refund as balance."""
    if payment_id is None or amount_cents == 0:
        return
    async with ep.db.execute("SELECT kind, balance_cents FROM payment_methods WHERE payment_id = ?",
                             (payment_id,)) as cur:
        row = await cur.fetchone()
    if row is None or row[1] is None:
        return
    if row[1] < amount_cents:
        raise Rejected(f"the {row[0].replace('_', ' ')} {payment_id} holds {figure(row[1])} "
                       f"{ep.scenario.catalog.currency}, less than the {figure(amount_cents)} to charge")
    await ep.db.execute("UPDATE payment_methods SET balance_cents = balance_cents - ? WHERE payment_id = ?",
                        (amount_cents, payment_id))


async def _log(ep: Episode, order_id: str, tool: str, detail: dict, amount_cents: int, payment_id: str | None,
               summary: str) -> OrderChangeReceipt:
    change_id = f"CH-{ep.calls:04d}"
    await ep.db.execute("INSERT INTO order_changes VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (change_id, order_id, tool, json.dumps(detail, separators=(",", ":"), sort_keys=True),
                         amount_cents, payment_id, ep.calls))
    async with ep.db.execute("SELECT status FROM orders WHERE order_id = ?", (order_id,)) as cur:
        (status,) = await cur.fetchone()
    return OrderChangeReceipt(change_id=change_id, order_id=order_id, status=status, summary=summary,
                              price_difference=figure(amount_cents), payment_method_id=payment_id if amount_cents
                              else None, currency=ep.scenario.catalog.currency)


async def cancel_order(ep: Episode, order_id: str, reason: str) -> OrderChangeReceipt:
    order = await _order(ep, order_id)
    async with ep.db.execute("SELECT COALESCE(SUM(quantity * unit_price_cents), 0) FROM order_lines "
                             "WHERE order_id = ?", (order.order_id,)) as cur:
        (total,) = await cur.fetchone()
    await ep.db.execute("UPDATE orders SET status = 'cancelled', cancel_reason = ? WHERE order_id = ?",
                        (reason, order.order_id))
    await _pay(ep, order.payment_id, -total)
    return await _log(ep, order.order_id, CANCEL_ORDER, {"reason": reason}, -total, order.payment_id,
                      f"order {order.order_id} cancelled ({reason}); {figure(total)} refunded")


async def modify_order_items(ep: Episode, order_id: str, changes: list[dict[str, str]]) -> OrderChangeReceipt:
    order = await _order(ep, order_id)
    if await _done_before(ep, order.order_id, MODIFY_ORDER_ITEMS):
        raise Rejected(f"the items of order {order.order_id} were modified already; an order's items change once, "
                       f"all lines in one call")
    switches = await _switches(ep, order, changes)
    for s in switches:
        await ep.db.execute("UPDATE order_lines SET product_id = ?, title = ?, unit_price_cents = ? WHERE line_id = ?",
                            (s.new.product_id, s.new.title, s.new.price_cents, s.line_id))
    amount = sum(s.difference_cents for s in switches)
    await _pay(ep, order.payment_id, amount)
    detail = {"lines": {s.line_id: s.new.product_id for s in switches}}
    return await _log(ep, order.order_id, MODIFY_ORDER_ITEMS, detail, amount, order.payment_id,
                      "; ".join(f"line {s.line_id} is now {s.new.title} ({s.new.product_id})" for s in switches))


async def change_order_address(ep: Episode, order_id: str, address_id: str | None,
                               address: NewAddress | None) -> OrderChangeReceipt:
    order = await _order(ep, order_id)
    if (address_id is None) == (address is None):
        raise Rejected("give either address_id (a saved address, from get_customer_profile) or address, not both")
    if address_id is not None:
        async with ep.db.execute("SELECT address_id, street, city, zip FROM addresses WHERE address_id = ?",
                                 (address_id.strip(),)) as cur:
            row = await cur.fetchone()
        if row is None:
            raise NotFound(f"no saved address {address_id!r}; get_customer_profile lists the customer's addresses")
        saved, street, city, zip_code = row
    else:
        assert address is not None
        saved, street, city, zip_code = None, address.street.strip(), address.city.strip(), address.zip
    await ep.db.execute("UPDATE orders SET address_id = ?, ship_to = ? WHERE order_id = ?",
                        (saved, address_json(street, city, zip_code), order.order_id))
    detail = {"address_id": saved, "street": street, "city": city, "zip": zip_code}
    return await _log(ep, order.order_id, CHANGE_ORDER_ADDRESS, detail, 0, None,
                      f"order {order.order_id} now ships to {street}, {city} {zip_code}")


async def exchange_items(ep: Episode, order_id: str, changes: list[dict[str, str]],
                         payment_method_id: str) -> OrderChangeReceipt:
    order = await _order(ep, order_id)
    async with ep.db.execute("SELECT payment_id FROM payment_methods WHERE payment_id = ?",
                             (payment_method_id.strip(),)) as cur:
        if await cur.fetchone() is None:
            raise NotFound(f"no payment method {payment_method_id!r}; get_customer_profile lists them")
    if await _done_before(ep, order.order_id, EXCHANGE_ITEMS):
        raise Rejected(f"order {order.order_id} was exchanged already; an order's items are exchanged once, all "
                       f"lines in one call")
    switches = await _switches(ep, order, changes)
    amount = sum(s.difference_cents for s in switches)
    payment = payment_method_id.strip()
    await _pay(ep, payment, amount)
    detail = {"lines": {s.line_id: s.new.product_id for s in switches}}
    return await _log(ep, order.order_id, EXCHANGE_ITEMS, detail, amount, payment,
                      "; ".join(f"line {s.line_id} exchanged for {s.new.title} ({s.new.product_id})"
                                for s in switches))
