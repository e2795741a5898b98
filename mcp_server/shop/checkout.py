"""Checkout (issue 34): the shipping options, the account's vouchers, and turning the cart into an
order of the customer's, paid by a gift card or store credit and a card.

The rules are `verishop.scenarios.checkout`'s, shared with the generator and the verifier. A
voucher is checked when it is applied (expired, none of its items in the cart, its minimum spend
not met, a second voucher that does not stack) and again at checkout (the cart may have changed
since). Every refused call changes nothing. The order goes in `orders`/`order_lines` as the
customer's, processing, and is logged in `order_changes` (tool `checkout`) with what it cost.
"""

from __future__ import annotations

import json
from datetime import date

from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.errors import NotFound, Rejected
from verishop.mcp_server.models import (
    CartQuote,
    Charge,
    CheckoutReceipt,
    Discount,
    ShippingOptions,
    ShippingOptionView,
    VoucherList,
    VoucherView,
)
from verishop.mcp_server.shop.cart import view_cart
from verishop.mcp_server.shop.catalog import fetch_product, figure
from verishop.scenarios.checkout import (
    Line,
    arrival,
    option_named,
    quote,
    shipping_cents,
    split,
    split_problem,
    stacking_problem,
    voucher_problem,
)
from verishop.scenarios.models import PaymentMethod, Voucher
from verishop.scenarios.shop_policy import NO_FREE_SHIPPING_CENTS
from verishop.scenarios.tool_names import CHECKOUT
from verishop.scenarios.world_db import address_json

_VOUCHER_COLUMNS = "code, kind, amount, min_spend_cents, category_id, excludes_final_sale, stackable, expires_on"


def _voucher(row: tuple) -> Voucher:
    return Voucher(code=row[0], kind=row[1], amount=row[2], min_spend_cents=row[3], category_id=row[4],
                   excludes_final_sale=bool(row[5]), stackable=bool(row[6]), expires_on=date.fromisoformat(row[7]))


def _no_checkout(ep: Episode) -> None:
    if not ep.scenario.policy.shipping_options or ep.scenario.account is None:
        raise Rejected("this shop does not take orders through the assistant here: there is no checkout in this "
                       "conversation")


async def _lines(ep: Episode) -> list[Line]:
    async with ep.db.execute("SELECT product_id, quantity FROM cart ORDER BY added_seq") as cur:
        rows = await cur.fetchall()
    lines = []
    for product_id, quantity in rows:
        p = await fetch_product(ep, product_id)
        lines.append(Line(p.product_id, p.category_id, p.price_cents, quantity))
    return lines


async def _applied(ep: Episode) -> list[Voucher]:
    async with ep.db.execute(f"SELECT {_VOUCHER_COLUMNS} FROM vouchers WHERE applied_seq IS NOT NULL "
                             "ORDER BY applied_seq") as cur:
        return [_voucher(r) for r in await cur.fetchall()]


def _shipping(ep: Episode, merchandise_cents: int) -> ShippingOptions:
    policy = ep.scenario.policy
    threshold = policy.free_shipping_threshold_cents
    return ShippingOptions(
        options=[ShippingOptionView(name=o.name, price=figure(shipping_cents(o, merchandise_cents, policy)),
                                    list_price=figure(o.price_cents), days=o.days,
                                    arrives_by=arrival(ep.scenario.today, o)) for o in policy.shipping_options],
        free_shipping_threshold=None if threshold >= NO_FREE_SHIPPING_CENTS else figure(threshold),
        cart_after_vouchers=figure(merchandise_cents), currency=ep.scenario.catalog.currency)


async def _merchandise(ep: Episode) -> tuple[int, list[tuple[str, int]]]:
    """The cart's items after the vouchers applied, and each voucher's discount."""
    lines, applied = await _lines(ep), await _applied(ep)
    q = quote(lines, applied, ep.scenario.policy.shipping_options[0], ep.scenario.policy)
    return max(0, q.subtotal_cents - sum(d for _, d in q.discounts)), list(q.discounts)


async def _cart_quote(ep: Episode) -> CartQuote:
    lines = await _lines(ep)
    after, discounts = await _merchandise(ep)
    subtotal = sum(line.total_cents for line in lines)
    return CartQuote(applied=[Discount(code=c, amount=figure(d)) for c, d in discounts],
                     subtotal=figure(subtotal), discount=figure(subtotal - after), after_vouchers=figure(after),
                     shipping=_shipping(ep, after), currency=ep.scenario.catalog.currency)


async def list_shipping_options(ep: Episode) -> ShippingOptions:
    _no_checkout(ep)
    return _shipping(ep, (await _merchandise(ep))[0])


async def list_vouchers(ep: Episode) -> VoucherList:
    _no_checkout(ep)
    async with ep.db.execute(f"SELECT {_VOUCHER_COLUMNS}, applied_seq, order_id FROM vouchers ORDER BY rowid") as cur:
        rows = await cur.fetchall()
    views = []
    for r in rows:
        v = _voucher(r)
        views.append(VoucherView(code=v.code, kind=v.kind, amount=v.amount if v.kind == "percent" else figure(v.amount),
                                 min_spend=figure(v.min_spend_cents), category_id=v.category_id,
                                 excludes_final_sale=v.excludes_final_sale, stackable=v.stackable,
                                 expires_on=v.expires_on, applied=r[8] is not None, used=r[9] is not None))
    return VoucherList(vouchers=views, shipping=_shipping(ep, (await _merchandise(ep))[0]),
                       currency=ep.scenario.catalog.currency)


async def _voucher_row(ep: Episode, code: str) -> tuple:
    async with ep.db.execute(f"SELECT {_VOUCHER_COLUMNS}, applied_seq, order_id FROM vouchers WHERE code = ?",
                             (code.strip().upper(),)) as cur:
        row = await cur.fetchone()
    if row is None:
        raise NotFound(f"no voucher {code!r} on the customer's account; list_vouchers shows their codes")
    return tuple(row)


async def apply_voucher(ep: Episode, code: str) -> CartQuote:
    _no_checkout(ep)
    row = await _voucher_row(ep, code)
    voucher = _voucher(row)
    if row[9] is not None:
        raise Rejected(f"voucher {voucher.code} was used already, on order {row[9]}")
    if row[8] is not None:
        raise Rejected(f"voucher {voucher.code} is applied already")
    lines = await _lines(ep)
    if not lines:
        raise Rejected("the cart is empty: add the items first, then apply a voucher")
    problem = voucher_problem(voucher, lines, ep.scenario.today, ep.scenario.policy.final_sale_categories)
    problem = problem or stacking_problem([*await _applied(ep), voucher])
    if problem is not None:
        raise Rejected(problem)
    await ep.db.execute("UPDATE vouchers SET applied_seq = ? WHERE code = ?", (ep.calls, voucher.code))
    return await _cart_quote(ep)


async def remove_voucher(ep: Episode, code: str) -> CartQuote:
    _no_checkout(ep)
    row = await _voucher_row(ep, code)
    if row[8] is None:
        raise Rejected(f"voucher {row[0]} is not applied; list_vouchers shows which are")
    await ep.db.execute("UPDATE vouchers SET applied_seq = NULL WHERE code = ?", (row[0],))
    return await _cart_quote(ep)


async def _methods(ep: Episode, payment_method_ids: list[str]) -> list[PaymentMethod]:
    methods = []
    for pid in payment_method_ids:
        async with ep.db.execute("SELECT payment_id, kind, label, balance_cents FROM payment_methods "
                                 "WHERE payment_id = ?", (pid.strip(),)) as cur:
            row = await cur.fetchone()
        if row is None:
            raise NotFound(f"no payment method {pid!r}; get_customer_profile lists them")
        methods.append(PaymentMethod(payment_id=row[0], kind=row[1], label=row[2],
                                     balance_cents=None if row[1] == "card" else (row[3] or 0)))
    return methods


async def _new_order_id(ep: Episode) -> str:
    n = 9_000_000 + ep.calls
    while True:
        order_id = f"W{n % 10**7:07d}"
        async with ep.db.execute("SELECT 1 FROM orders WHERE order_id = ?", (order_id,)) as cur:
            if await cur.fetchone() is None:
                return order_id
        n += 1


async def checkout(ep: Episode, address_id: str, payment_method_ids: list[str], shipping_option: str) -> CheckoutReceipt:
    _no_checkout(ep)
    policy, currency = ep.scenario.policy, ep.scenario.catalog.currency
    lines = await _lines(ep)
    if not lines:
        raise Rejected("the cart is empty: add the items to order first")
    for line in lines:
        p = await fetch_product(ep, line.product_id)
        if p.stock < line.quantity:
            raise Rejected(f"{p.product_id} is sold out" if p.stock <= 0 else
                           f"only {p.stock} of {p.product_id} in stock; the cart has {line.quantity}")
    async with ep.db.execute("SELECT street, city, zip FROM addresses WHERE address_id = ?",
                             (address_id.strip(),)) as cur:
        address = await cur.fetchone()
    if address is None:
        raise NotFound(f"no saved address {address_id!r}; get_customer_profile lists the customer's addresses")
    option = option_named(policy, shipping_option.strip())
    if option is None:
        raise NotFound(f"no shipping option {shipping_option!r}; list_shipping_options names them: "
                       + ", ".join(o.name for o in policy.shipping_options))
    applied = await _applied(ep)
    for v in applied:
        problem = voucher_problem(v, lines, ep.scenario.today, policy.final_sale_categories)
        if problem is not None:
            raise Rejected(f"{problem} (the cart changed since it was applied): remove it with remove_voucher")
    q = quote(lines, applied, option, policy)
    methods = await _methods(ep, payment_method_ids)
    problem = split_problem(methods, q.total_cents)
    if problem is not None:
        raise Rejected(problem)
    charges = split(methods, q.total_cents)
    order_id = await _new_order_id(ep)
    arrives = arrival(ep.scenario.today, option)
    cart = await view_cart(ep)
    await ep.db.execute("INSERT INTO orders VALUES (?, ?, 'processing', NULL, NULL, ?, NULL, ?, ?, ?, NULL, ?)",
                        (order_id, ep.scenario.today.isoformat(), arrives.isoformat(), address_id.strip(),
                         address_json(*address), methods[0].payment_id, ep.scenario.customer.customer_id))
    for i, line in enumerate(lines):
        p = await fetch_product(ep, line.product_id)
        await ep.db.execute("INSERT INTO order_lines VALUES (?, ?, ?, ?, ?, ?, ?)",
                            (f"LN{order_id[1:]}{i:02d}", order_id, p.product_id, p.title, p.category_id,
                             line.quantity, p.price_cents))
    for pid, cents in charges:
        await ep.db.execute("UPDATE payment_methods SET balance_cents = balance_cents - ? "
                            "WHERE payment_id = ? AND balance_cents IS NOT NULL", (cents, pid))
    await ep.db.execute("UPDATE vouchers SET applied_seq = NULL, order_id = ? WHERE applied_seq IS NOT NULL",
                        (order_id,))
    await ep.db.execute("DELETE FROM cart")
    detail = {"items": {line.product_id: line.quantity for line in lines},
              "vouchers": sorted(v.code for v in applied), "shipping_option": option.name,
              "address_id": address_id.strip(), "charges": [[pid, cents] for pid, cents in charges],
              "subtotal_cents": q.subtotal_cents, "shipping_cents": q.shipping_cents, "total_cents": q.total_cents}
    await ep.db.execute("INSERT INTO order_changes VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (f"CH-{ep.calls:04d}", order_id, CHECKOUT,
                         json.dumps(detail, separators=(",", ":"), sort_keys=True), q.total_cents,
                         methods[0].payment_id, ep.calls))
    labels = {m.payment_id: m.label for m in methods}
    return CheckoutReceipt(
        order_id=order_id, status="processing", items=cart.lines,
        discounts=[Discount(code=c, amount=figure(d)) for c, d in q.discounts], subtotal=figure(q.subtotal_cents),
        discount=figure(q.subtotal_cents + q.shipping_cents - q.total_cents), shipping_option=option.name,
        shipping=figure(q.shipping_cents), total=figure(q.total_cents),
        charges=[Charge(payment_method_id=pid, label=labels[pid], amount=figure(c)) for pid, c in charges],
        address_id=address_id.strip(), arrives_by=arrives, currency=currency)
