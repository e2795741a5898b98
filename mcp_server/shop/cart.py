"""The customer's cart in the episode world."""

from __future__ import annotations

from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.errors import NotFound, Rejected
from verishop.mcp_server.models import Cart, CartLine
from verishop.mcp_server.shop.catalog import fetch_product, figure, in_dollars

MAX_QUANTITY = 20


async def view_cart(ep: Episode) -> Cart:
    lines, subtotal_cents = [], 0
    currency = ep.scenario.catalog.currency
    async with ep.db.execute("SELECT product_id, quantity FROM cart ORDER BY added_seq") as cur:
        rows = await cur.fetchall()
    for product_id, quantity in rows:
        p = await fetch_product(ep, product_id)
        total_cents = p.price_cents * quantity
        subtotal_cents += total_cents
        lines.append(CartLine(product_id=product_id, title=p.title, quantity=quantity,
                              unit_price_usd=in_dollars(currency, p.price_cents),
                              line_total_usd=in_dollars(currency, total_cents),
                              unit_price=figure(p.price_cents), line_total=figure(total_cents)))
    return Cart(lines=lines, item_count=sum(line.quantity for line in lines),
                subtotal_usd=in_dollars(currency, subtotal_cents), subtotal=figure(subtotal_cents), currency=currency)


async def _cart_quantity(ep: Episode, product_id: str) -> int | None:
    async with ep.db.execute("SELECT quantity FROM cart WHERE product_id = ?", (product_id,)) as cur:
        row = await cur.fetchone()
    return None if row is None else row[0]


def _check_stock(title: str, product_id: str, stock: int, wanted: int) -> None:
    if stock <= 0:
        raise Rejected(f"{product_id} ({title}) is sold out; suggest an in-stock alternative")
    if wanted > stock:
        raise Rejected(f"only {stock} units of {product_id} are in stock; {wanted} requested")
    if wanted > MAX_QUANTITY:
        raise Rejected(f"at most {MAX_QUANTITY} units of one product per cart; {wanted} requested")


async def add_to_cart(ep: Episode, product_id: str, quantity: int) -> Cart:
    p = await fetch_product(ep, product_id)
    current = await _cart_quantity(ep, p.product_id) or 0
    _check_stock(p.title, p.product_id, p.stock, current + quantity)
    await ep.db.execute(
        "INSERT INTO cart (product_id, quantity, added_seq) VALUES (?, ?, ?) "
        "ON CONFLICT(product_id) DO UPDATE SET quantity = quantity + excluded.quantity",
        (p.product_id, quantity, ep.calls),
    )
    return await view_cart(ep)


async def update_cart_item(ep: Episode, product_id: str, quantity: int) -> Cart:
    product_id = product_id.strip()
    if await _cart_quantity(ep, product_id) is None:
        raise NotFound(f"{product_id!r} is not in the cart; view_cart shows what is")
    if quantity == 0:
        await ep.db.execute("DELETE FROM cart WHERE product_id = ?", (product_id,))
    else:
        p = await fetch_product(ep, product_id)
        _check_stock(p.title, p.product_id, p.stock, quantity)
        await ep.db.execute("UPDATE cart SET quantity = ? WHERE product_id = ?", (quantity, product_id))
    return await view_cart(ep)


async def remove_from_cart(ep: Episode, product_id: str) -> Cart:
    return await update_cart_item(ep, product_id, 0)
