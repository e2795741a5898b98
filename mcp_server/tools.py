"""The MCP façade: the shop's tools as an agent sees them.

Each tool declares typed, described arguments and a pydantic result, says in its docstring
when to use it, and delegates to a plain function in `verishop.mcp_server.shop`. `ShopError`s become
`ToolError`s, whose text the agent reads. The tools' names and arguments are stated once in
`verishop.scenarios.tool_names` (where the verifier and the agents read them without importing the
server); a tool declared here with another name or other arguments is refused when it is built.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cache
from typing import Annotated, Any, TypeVar

from mcp import MCPError
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.prompts import Prompt
from mcp.server.mcpserver.tools import Tool
from mcp.types import INVALID_PARAMS, ToolAnnotations
from pydantic import BaseModel, Field

from verishop import __version__
from verishop.mcp_server.episodes.episode import Episode
from verishop.mcp_server.errors import ShopError
from verishop.mcp_server.episodes.hub import EpisodeHub
from verishop.mcp_server.inprocess import ShopServer
from verishop.mcp_server.schema import AttributeFilters, ShopTool, ToolSet, attribute_map
from verishop.mcp_server.models import (BrowsingHistory, Cart, CartQuote, CheckoutReceipt, Conversation, CurrentDate,
                               CustomerMatch, CustomerProfile, CustomerReply, HandoverReceipt, ShippingOptions,
                               VoucherList, OrderChangeReceipt, OrderDetails, OrderList, PolicyResults,
                               ProductComparison, ProductDetails, ReturnEligibility, ReturnReceipt, SearchResults)
from verishop.mcp_server.shop import (account, cart, catalog, compensation, handover, identity, info, order_changes,
                                   orders)
from verishop.mcp_server.shop import checkout as checkout_shop
from verishop.scenarios import tool_names
from verishop.scenarios.models import (MAX_ANSWER_NUMBER, CancelReason, CreditReason, NewAddress, OrderStatus, RefundMethod, Refusal,
                                      Submission)

T = TypeVar("T", bound=BaseModel)

EPISODE_HEADER = "x-episode-id"

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False,
                        open_world_hint=False)
WRITE_IDEMPOTENT = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True,
                                   open_world_hint=False)
DESTRUCTIVE = ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=False,
                              open_world_hint=False)

INSTRUCTIONS = """\
Verishop is an online store, and you are its shopping assistant. A customer is waiting.
Start with `get_conversation` to read what they said, use the shop's tools to help them, and
answer them with `respond_to_customer` (its result is their reply). Only use product, order and
line IDs that a tool showed you. When their request is handled, send a final message with
done=true."""

ProductId = Annotated[str, Field(description="A product ID such as 'P12345678', from search or product results.",
                                 min_length=1, max_length=32)]
OrderId = Annotated[str, Field(description="An order ID such as 'W1234567', from list_orders.",
                               min_length=1, max_length=32)]
LineId = Annotated[str, Field(description="An order line ID such as 'LN12345678', from check_order.",
                              min_length=1, max_length=32)]


class LineSwitch(BaseModel):
    """One order line and the variant of the same product it becomes."""

    line_id: LineId
    product_id: Annotated[str, Field(description="The variant it becomes: one of the line's `variants` in "
                                                 "check_order.", min_length=1, max_length=32)]


LineSwitches = Annotated[list[LineSwitch], Field(min_length=1, max_length=10, description=(
    "Every line to change, each once, with the variant it becomes, e.g. [{\"line_id\": \"LN12345678\", "
    "\"product_id\": \"P12345678\"}]."))]
# Every number an agent sends is finite and bounded here, at the schema: a value the SDK lets
# through must be one the shop's arithmetic and SQLite's 64-bit integers can hold. A price in the
# shop's currency goes as high as an imported feed's (10**9 units, scenarios/catalog/feeds/rows.py);
# the dollar-only names keep the bound they always had.
MAX_PRICE = 1_000_000_000
MAX_PRICE_USD = 1_000_000


def _episode_id(ctx: Context) -> str | None:
    return (ctx.headers or {}).get(EPISODE_HEADER)


@dataclass(frozen=True)
class ServerState:
    hub: EpisodeHub
    # An in-process server may be bound to one episode (no headers exist in memory).
    episode_id: str | None = None

    async def episode(self, ctx: Context) -> Episode:
        return self.hub.resolve(_episode_id(ctx) or self.episode_id or await self.hub.default_episode_id())


async def _run(ctx: Context, name: str, arguments: dict[str, Any], body: Callable[[Episode], Awaitable[T]]) -> T:
    state: ServerState = ctx.request_context.lifespan_context
    hub = state.hub
    try:
        episode = await state.episode(ctx)
        result = await episode.call(name, arguments, lambda: body(episode))
    except ShopError as exc:
        raise ToolError(str(exc)) from None
    if not episode.is_open:
        await hub.retire(episode, episode.close_reason or "closed")
    return result


def create_server(hub: EpisodeHub, *, instructions: str = INSTRUCTIONS, episode_id: str | None = None) -> ShopServer:
    """An MCP server over `hub` (owned by the caller, it outlives the server). Calls go to the
    episode named by the `x-episode-id` header, else `episode_id`, else the hub's default. In this
    process, talk to it with `verishop.mcp_server.inprocess.InProcessClient`."""
    state = ServerState(hub, episode_id)

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[ServerState]:
        yield state

    tools, prompt = _shop_tools(), _shop_prompt()
    mcp = ShopServer("verishop", title="Verishop shop", version=__version__, instructions=instructions,
                     lifespan=lifespan, log_level="WARNING", tools=list(tools))
    mcp.typed_tool_names = frozenset(tool.name for tool in tools if isinstance(tool, ShopTool))
    mcp.add_prompt(prompt)
    return mcp


@cache
def _shop_tools() -> tuple[Tool, ...]:
    """The shop's tools, built once per process and shared by every server: building them (argument
    models, schemas) costs tens of milliseconds, and a tool holds nothing of a server's own, since
    it finds its episode through the request's lifespan state. `verishop eval --transport memory`
    builds a server per episode."""
    tools = ToolSet()
    _register_catalog_tools(tools)
    _register_cart_tools(tools)
    _register_order_tools(tools)
    _register_order_change_tools(tools)
    _register_compensation_tools(tools)
    _register_checkout_tools(tools)
    _register_info_tools(tools)
    _register_conversation(tools)
    return tuple(tools.tools)


def _register_catalog_tools(tools: ToolSet) -> None:
    @tools(READ_ONLY)
    async def search_catalog(
        ctx: Context,
        query: Annotated[str, Field(description="Free-text words, e.g. 'usb-c wall charger'. Every word must "
                                                "match; may be empty when filters are given.", max_length=200)] = "",
        category_id: Annotated[str | None, Field(description="Restrict to one category, e.g. 'chargers', "
                                                             "'t_shirts', 'cookware'.", max_length=40)] = None,
        brand: Annotated[str | None, Field(description="Exact brand name, e.g. 'Anker'.", max_length=60)] = None,
        min_price: Annotated[float | None, Field(ge=0, le=MAX_PRICE, allow_inf_nan=False,
                                                 description="Lowest price, in the shop's currency (the "
                                                             "`currency` of every product card).")] = None,
        max_price: Annotated[float | None, Field(ge=0, le=MAX_PRICE, allow_inf_nan=False,
                                                 description="Highest price, in the shop's currency.")] = None,
        min_price_usd: Annotated[float | None, Field(ge=0, le=MAX_PRICE_USD, allow_inf_nan=False,
                                                     description="Deprecated: min_price, in a shop whose currency "
                                                                 "is USD only.")] = None,
        max_price_usd: Annotated[float | None, Field(ge=0, le=MAX_PRICE_USD, allow_inf_nan=False,
                                                     description="Deprecated: max_price, in a shop whose currency "
                                                                 "is USD only.")] = None,
        min_rating: Annotated[float | None, Field(ge=1, le=5, allow_inf_nan=False,
                                                  description="Minimum average stars.")] = None,
        max_ship_days: Annotated[int | None, Field(ge=1, le=60, description="Latest delivery, in days.")] = None,
        attributes: Annotated[AttributeFilters, Field(
            description="Exact attribute values, e.g. [{\"name\": \"connector\", \"value\": \"USB-C\"}, "
                        "{\"name\": \"color\", \"value\": \"Black\"}]. get_product shows a product's "
                        "attributes.")] = None,
        in_stock_only: Annotated[bool, Field(description="Hide sold-out products.")] = False,
        limit: Annotated[int, Field(ge=1, le=catalog.MAX_LIMIT, description="How many results.")] = 10,
        sort_by: Annotated[catalog.SortBy, Field(
            description="Result order: 'featured' (most popular first, the default), 'price' (lowest "
                        "first, then best rated), 'rating' (highest first, then cheapest) or 'delivery' "
                        "(fastest first, then cheapest). A sorted search ranks every match; it needs a "
                        "query, category_id, brand or attributes.")] = "featured",
    ) -> SearchResults:
        """Search the product catalog by words and filters; results come in the shop's featured
        order (most popular first) unless sort_by says otherwise, as compact product cards. Prices
        are in the shop's currency, which each card states (`currency`). Use get_product for a
        product's attributes and variants."""
        args = dict(query=query, category_id=category_id, brand=brand, min_price_usd=min_price_usd,
                    max_price_usd=max_price_usd, min_rating=min_rating, max_ship_days=max_ship_days,
                    attributes=attribute_map(attributes), in_stock_only=in_stock_only, limit=limit, sort_by=sort_by)
        # The neutral names only when given: a transcript of an agent that never sends them keeps its bytes.
        args |= {name: value for name, value in (("min_price", min_price), ("max_price", max_price))
                 if value is not None}
        return await _run(ctx, tool_names.SEARCH_CATALOG, args, lambda ep: catalog.search_catalog(ep, **args))

    @tools(READ_ONLY)
    async def get_product(ctx: Context, product_id: ProductId) -> ProductDetails:
        """Details of one product: all attributes, units in stock, and its variants (sibling
        products differing in one attribute such as colour or size, each with its own ID)."""
        args = dict(product_id=product_id)
        return await _run(ctx, tool_names.GET_PRODUCT, args, lambda ep: catalog.get_product(ep, **args))


    @tools(READ_ONLY)
    async def compare_products(
        ctx: Context,
        product_ids: Annotated[list[ProductId], Field(min_length=1, max_length=10,
                                                description="Up to 10 product IDs, e.g. ['P12345678', 'P87654321'].")],
    ) -> ProductComparison:
        """Details of several products at once (the same as get_product for each), to compare
        them side by side in a single lookup."""
        args = dict(product_ids=product_ids)
        return await _run(ctx, tool_names.COMPARE_PRODUCTS, args, lambda ep: catalog.compare_products(ep, **args))


def _register_cart_tools(tools: ToolSet) -> None:
    @tools(WRITE)
    async def add_to_cart(ctx: Context, product_id: ProductId,
                          quantity: Annotated[int, Field(ge=1, le=20, description="Units to add (1-20).")] = 1) -> Cart:
        """Add units of a product (a specific variant's ID) to the customer's cart. Adding a
        product already in the cart raises its quantity. Fails if it is sold out or the stock
        is too low. Returns the whole cart."""
        args = dict(product_id=product_id, quantity=quantity)
        return await _run(ctx, tool_names.ADD_TO_CART, args, lambda ep: cart.add_to_cart(ep, **args))

    @tools(WRITE_IDEMPOTENT)
    async def update_cart_item(ctx: Context, product_id: ProductId,
                               quantity: Annotated[int, Field(ge=0, le=20, description="New quantity; 0 removes "
                                                                                       "the line.")]) -> Cart:
        """Set the quantity of a product already in the cart (0 removes it). Returns the cart."""
        args = dict(product_id=product_id, quantity=quantity)
        return await _run(ctx, tool_names.UPDATE_CART_ITEM, args, lambda ep: cart.update_cart_item(ep, **args))

    @tools(DESTRUCTIVE)
    async def remove_from_cart(ctx: Context, product_id: ProductId) -> Cart:
        """Remove a product from the cart entirely. Returns the cart."""
        args = dict(product_id=product_id)
        return await _run(ctx, tool_names.REMOVE_FROM_CART, args, lambda ep: cart.remove_from_cart(ep, **args))

    @tools(READ_ONLY)
    async def view_cart(ctx: Context) -> Cart:
        """The customer's cart: lines with quantities and prices, item count and subtotal, in the
        shop's currency (`currency`)."""
        return await _run(ctx, tool_names.VIEW_CART, {}, cart.view_cart)


def _register_order_tools(tools: ToolSet) -> None:
    @tools(READ_ONLY)
    async def list_orders(ctx: Context) -> OrderList:
        """The customer's orders, newest first: ID, date, status, item titles and total.
        Use it to find the order a customer describes ("the headphones I bought last month")."""
        return await _run(ctx, tool_names.LIST_ORDERS, {}, orders.list_orders)

    @tools(READ_ONLY)
    async def check_order(ctx: Context, order_id: OrderId) -> OrderDetails:
        """One order in full: status, carrier, tracking number, estimated or actual delivery
        date, and its lines (each with a line ID, needed for returns)."""
        args = dict(order_id=order_id)
        return await _run(ctx, tool_names.CHECK_ORDER, args, lambda ep: orders.check_order(ep, **args))

    @tools(READ_ONLY)
    async def check_return_eligibility(ctx: Context, order_id: OrderId, line_id: LineId) -> ReturnEligibility:
        """Whether one order line can be returned today, why (or why not), the last day to
        return it and the refund (in `currency`). Check this before initiate_return."""
        args = dict(order_id=order_id, line_id=line_id)
        return await _run(ctx, tool_names.CHECK_RETURN_ELIGIBILITY, args,
                          lambda ep: orders.check_return_eligibility(ep, **args))

    @tools(DESTRUCTIVE)
    async def initiate_return(
        ctx: Context, order_id: OrderId, line_id: LineId,
        reason: Annotated[str, Field(min_length=1, max_length=200,
                                     description="The customer's reason, in a few words.")],
    ) -> ReturnReceipt:
        """Start a return for a whole order line (all its units). It cannot be undone, so make
        sure it is the line the customer means. Fails if the line is not returnable."""
        args = dict(order_id=order_id, line_id=line_id, reason=reason)
        return await _run(ctx, tool_names.INITIATE_RETURN, args, lambda ep: orders.initiate_return(ep, **args))


def _register_order_change_tools(tools: ToolSet) -> None:
    @tools(READ_ONLY)
    async def get_customer_profile(ctx: Context) -> CustomerProfile:
        """The customer's account: name, email, saved addresses (with IDs, the default first) and
        payment methods (cards, gift card and store credit with their balances)."""
        return await _run(ctx, tool_names.GET_CUSTOMER_PROFILE, {}, account.get_customer_profile)

    @tools(READ_ONLY)
    async def find_customer(
        ctx: Context,
        email: Annotated[str | None, Field(max_length=254, description="The customer's email, as they give "
                                                                      "it.")] = None,
        name: Annotated[str | None, Field(max_length=100, description="The customer's full name; with zip, or to "
                                                                     "check an email.")] = None,
        zip: Annotated[str | None, Field(max_length=10, description="The zip code of the customer's address; "
                                                                   "with name.")] = None,
    ) -> CustomerMatch:
        """Identify the customer: by their email, or by their name and zip code together (a name
        alone never identifies anyone). When the shop asks for it, the order and account tools
        act only after the customer was identified. Give the name with an email the customer
        gave to make sure the account is theirs. Returns the customer found."""
        args = dict(email=email, name=name, zip=zip)
        return await _run(ctx, tool_names.FIND_CUSTOMER, args, lambda ep: identity.find_customer(ep, **args))

    @tools(DESTRUCTIVE)
    async def cancel_order(ctx: Context, order_id: OrderId,
                           reason: Annotated[CancelReason, Field(description="Why the customer cancels.")]
                           ) -> OrderChangeReceipt:
        """Cancel a whole order; what was paid goes back to its payment method. It cannot be undone.
        The store's policy says which orders may be cancelled (search_policies): this tool does
        what it is told, so check the order's status first and name the order to the customer,
        and write only after they agree."""
        args = dict(order_id=order_id, reason=reason)
        return await _run(ctx, tool_names.CANCEL_ORDER, args, lambda ep: order_changes.cancel_order(ep, **args))

    @tools(DESTRUCTIVE)
    async def modify_order_items(ctx: Context, order_id: OrderId, changes: LineSwitches) -> OrderChangeReceipt:
        """Switch lines of an order to other variants of the same product (another size or colour),
        all lines in this one call: an order's items can be modified once. The price difference is
        charged or refunded to the order's payment method. The store's policy says which orders may
        be changed: check the status first, name the change to the customer, and write only after
        they agree."""
        args = dict(order_id=order_id, changes=[c.model_dump() for c in changes])
        return await _run(ctx, tool_names.MODIFY_ORDER_ITEMS, args,
                          lambda ep: order_changes.modify_order_items(ep, **args))

    @tools(WRITE_IDEMPOTENT)
    async def change_order_address(
        ctx: Context, order_id: OrderId,
        address_id: Annotated[str | None, Field(min_length=1, max_length=32, description=(
            "A saved address's ID, from get_customer_profile.")) ] = None,
        address: Annotated[NewAddress | None, Field(description="A new address in full, when it is not a saved "
                                                              "one.")] = None,
    ) -> OrderChangeReceipt:
        """Ship an order to another address: a saved one (address_id) or a new one (address), not
        both. The store's policy says which orders may be changed: check the status first, name
        the address to the customer, and write only after they agree."""
        args = dict(order_id=order_id, address_id=address_id, address=address)
        recorded = dict(order_id=order_id, address_id=address_id,
                        address=address.model_dump() if address is not None else None)
        return await _run(ctx, tool_names.CHANGE_ORDER_ADDRESS, recorded,
                          lambda ep: order_changes.change_order_address(ep, **args))

    @tools(DESTRUCTIVE)
    async def exchange_items(
        ctx: Context, order_id: OrderId, changes: LineSwitches,
        payment_method_id: Annotated[str, Field(min_length=1, max_length=32, description=(
            "Where the price difference is charged or refunded, from get_customer_profile."))],
    ) -> OrderChangeReceipt:
        """Exchange delivered lines of an order for other variants of the same product, all lines
        in this one call (once per order); the price difference (new minus old, times the
        quantity) is charged to, or refunded to, the payment method given. The store's policy says
        what may be exchanged (the return window, final sale): check it, name the exchange and the
        difference to the customer, and write only after they agree."""
        args = dict(order_id=order_id, changes=[c.model_dump() for c in changes], payment_method_id=payment_method_id)
        return await _run(ctx, tool_names.EXCHANGE_ITEMS, args, lambda ep: order_changes.exchange_items(ep, **args))

    @tools(WRITE)
    async def transfer_to_human(
        ctx: Context,
        summary: Annotated[str, Field(min_length=1, max_length=1000, description=(
            "For the person who takes over: what the customer needs and which order it concerns (its ID)."))],
    ) -> HandoverReceipt:
        """Hand the conversation to a person, for what the shop's assistant must not handle
        itself: a legal claim, a complaint about an employee, a chargeback, a safety incident. Not
        for a request the store's rules refuse (say why instead). Once per conversation; it ends
        nothing: tell the customer, then close with done=true."""
        args = dict(summary=summary)
        return await _run(ctx, tool_names.TRANSFER_TO_HUMAN, args, lambda ep: handover.transfer_to_human(ep, **args))


def _register_compensation_tools(tools: ToolSet) -> None:
    @tools(DESTRUCTIVE)
    async def request_price_adjustment(ctx: Context, order_id: OrderId, line_id: LineId) -> OrderChangeReceipt:
        """Refund the difference between the price paid for an order line and its product's
        current price (times the quantity) to the order's original payment method, once per line.
        The store's policy says when a price adjustment is due (the window after delivery):
        check it, tell the customer the amount, and write only after they agree."""
        args = dict(order_id=order_id, line_id=line_id)
        return await _run(ctx, tool_names.REQUEST_PRICE_ADJUSTMENT, args,
                          lambda ep: compensation.request_price_adjustment(ep, **args))

    @tools(DESTRUCTIVE)
    async def issue_store_credit(
        ctx: Context, order_id: OrderId,
        amount: Annotated[float, Field(gt=0, le=100_000, allow_inf_nan=False, description=(
            "The credit, in the shop's currency, to the cent (at most the order's item total)."))],
        reason: Annotated[CreditReason, Field(description="Why: late_delivery, damaged, price_drop or goodwill.")],
    ) -> OrderChangeReceipt:
        """Give the customer store credit on an order (added to their store-credit balance). The
        store's policy says what is due and how much (late deliveries, damaged items) and when
        nothing is: compute it from the policy, tell the customer the exact amount, and write only
        after they agree."""
        args = dict(order_id=order_id, amount=amount, reason=reason)
        return await _run(ctx, tool_names.ISSUE_STORE_CREDIT, args, lambda ep: compensation.issue_store_credit(ep, **args))


VoucherCode = Annotated[str, Field(min_length=1, max_length=32, description="A voucher's code, from list_vouchers.")]


def _register_checkout_tools(tools: ToolSet) -> None:
    @tools(READ_ONLY)
    async def list_shipping_options(ctx: Context) -> ShippingOptions:
        """The ways a new order can ship: each option's price for the cart as it stands (standard
        is free once the items, after vouchers, reach the free-shipping threshold), the days it
        takes and the day it arrives."""
        return await _run(ctx, tool_names.LIST_SHIPPING_OPTIONS, {}, checkout_shop.list_shipping_options)

    @tools(READ_ONLY)
    async def list_vouchers(ctx: Context) -> VoucherList:
        """The customer's vouchers and their rules: percent or fixed amount off, minimum spend on
        the items it covers, a category it is limited to, whether it excludes final-sale items,
        whether it stacks with another voucher (one non-stackable voucher per order), its expiry
        day (compare with get_current_date), and whether it is applied or used."""
        return await _run(ctx, tool_names.LIST_VOUCHERS, {}, checkout_shop.list_vouchers)

    @tools(WRITE_IDEMPOTENT)
    async def apply_voucher(ctx: Context, code: VoucherCode) -> CartQuote:
        """Put a voucher on the coming order (the cart); returns what each applied voucher takes
        off. Refused, with the reason and nothing changed, when it has expired, covers none of
        the cart's items, its minimum spend is not met, it was used already, or it does not
        stack with a voucher already applied."""
        args = dict(code=code)
        return await _run(ctx, tool_names.APPLY_VOUCHER, args, lambda ep: checkout_shop.apply_voucher(ep, **args))

    @tools(WRITE_IDEMPOTENT)
    async def remove_voucher(ctx: Context, code: VoucherCode) -> CartQuote:
        """Take an applied voucher off the coming order."""
        args = dict(code=code)
        return await _run(ctx, tool_names.REMOVE_VOUCHER, args, lambda ep: checkout_shop.remove_voucher(ep, **args))

    @tools(DESTRUCTIVE)
    async def checkout(
        ctx: Context,
        address_id: Annotated[str, Field(min_length=1, max_length=32, description=(
            "The saved address it ships to, from get_customer_profile."))],
        payment_method_ids: Annotated[list[Annotated[str, Field(min_length=1, max_length=32)]], Field(
            min_length=1, max_length=3, description=(
                "The payment methods, in the order they pay (from get_customer_profile): a gift card or store "
                "credit pays what its balance holds of what is left, a card pays all the rest, so a card comes "
                "last; e.g. [gift card ID, card ID]."))],
        shipping_option: Annotated[str, Field(min_length=1, max_length=16, description=(
            "'standard', 'express' or 'next_day' (list_shipping_options)."))],
    ) -> CheckoutReceipt:
        """Place an order of everything in the cart, with the vouchers applied, shipped by the
        option given to a saved address, paid by the methods given in order. It empties the cart
        and cannot be undone: name the items, the shipping, the payment and the total to the
        customer, and place it only after they agree."""
        args = dict(address_id=address_id, payment_method_ids=list(payment_method_ids),
                    shipping_option=shipping_option)
        return await _run(ctx, tool_names.CHECKOUT, args, lambda ep: checkout_shop.checkout(ep, **args))


def _register_info_tools(tools: ToolSet) -> None:
    @tools(READ_ONLY)
    async def search_policies(
        ctx: Context,
        query: Annotated[str, Field(min_length=1, max_length=200,
                                    description="What the customer asks about, e.g. 'return window electronics'.")],
        limit: Annotated[int, Field(ge=1, le=10, description="How many clauses.")] = 3,
    ) -> PolicyResults:
        """Search the store's policies (returns, refunds, shipping, cancellations ...) and get
        the matching clauses verbatim. Answer policy questions from these, not from memory."""
        args = dict(query=query, limit=limit)
        return await _run(ctx, tool_names.SEARCH_POLICIES, args, lambda ep: info.search_policies(ep, **args))

    @tools(READ_ONLY)
    async def get_browsing_history(ctx: Context) -> BrowsingHistory:
        """Products the customer viewed recently, as product cards."""
        return await _run(ctx, tool_names.GET_BROWSING_HISTORY, {}, info.get_browsing_history)

    @tools(READ_ONLY)
    async def get_current_date(ctx: Context) -> CurrentDate:
        """The shop's current date (use it for return windows and delivery estimates)."""
        return await _run(ctx, tool_names.GET_CURRENT_DATE, {}, info.get_current_date)


def _register_conversation(tools: ToolSet) -> None:
    @tools(READ_ONLY)
    async def get_conversation(ctx: Context) -> Conversation:
        """The conversation so far (the customer's opening message first), the turns used and
        the turn budget. Call it first."""
        return await _run(ctx, tool_names.GET_CONVERSATION, {}, info.get_conversation)

    @tools(WRITE)
    async def respond_to_customer(
        ctx: Context,
        message: Annotated[str, Field(min_length=1, max_length=2000, description="What you say to the customer.")],
        recommended_product_ids: Annotated[list[ProductId] | None, Field(
            max_length=10, description="Product IDs you recommend, best first (only IDs a tool showed you).")] = None,
        order_id: Annotated[str | None, Field(max_length=32, description="The order you identified, if any.")] = None,
        line_id: Annotated[str | None, Field(max_length=32, description="The order line you identified.")] = None,
        answer: Annotated[str | None, Field(max_length=200, description="Your short answer, when the customer "
                                            "asked for one: a policy value (a number or a phrase) or an order's "
                                            "status, in words.")] = None,
        answer_yes_no: Annotated[bool | None, Field(description="Your answer to a yes/no question, exactly: true "
                                                    "for yes, false for no. Wins over `answer`.")] = None,
        answer_number: Annotated[float | None, Field(
            allow_inf_nan=False, ge=-MAX_ANSWER_NUMBER, le=MAX_ANSWER_NUMBER,
            description="Your answer to a question asking for a number, exactly: the shop's currency for an "
                        "amount (7.99), days for a period (30), percent for a rate (15); a price difference is what "
                        "the customer pays, negative when refunded (-4.5). Wins over `answer`.")] = None,
        answer_status: Annotated[OrderStatus | None, Field(
            description="The order's status, exactly, when the customer asked where an order is. Wins over "
                        "`answer`.")] = None,
        answer_refund_method: Annotated[RefundMethod | None, Field(
            description="How a refund is paid, exactly, when the customer asked. Wins over `answer`.")] = None,
        answer_refusal: Annotated[Refusal | None, Field(
            description="When a change or exchange the customer asks for cannot be made, why, exactly: "
                        "'return_instead' (the order has shipped: it can be returned once delivered), "
                        "'not_eligible' (outside the exchange window, or final sale), 'out_of_stock' (the "
                        "variant wanted is sold out).")] = None,
        done: Annotated[bool, Field(description="True when the request is handled; ends the episode.")] = False,
    ) -> CustomerReply:
        """Send one message to the customer, with your structured answer, and get their reply.
        Each call is one turn of the limited turn budget. Ask a question when a requirement
        is unclear; recommend products with recommended_product_ids. Give an answer either in
        words (`answer`) or exactly as a typed value (answer_yes_no, answer_number,
        answer_status, answer_refund_method): the typed value that fits the question is read
        as given. An answer that states no single value (nothing, or "30 or 45 days") is not
        taken: the customer asks again, and that costs a turn."""
        submission = Submission(recommended_product_ids=tuple(recommended_product_ids or ()), order_id=order_id,
                                line_id=line_id, answer=answer, answer_yes_no=answer_yes_no,
                                answer_number=answer_number, answer_status=answer_status,
                                answer_refund_method=answer_refund_method, answer_refusal=answer_refusal, done=done)
        args = dict(message=message, **submission.model_dump(mode="json"))

        async def body(ep: Episode) -> CustomerReply:
            reply = await ep.respond(message, submission)
            return CustomerReply(customer_message=reply, status="open" if ep.is_open else "closed",
                                 close_reason=ep.close_reason, turns_used=ep.turns_used, turns_left=ep.turns_left)

        return await _run(ctx, tool_names.RESPOND_TO_CUSTOMER, args, body)


@cache
def _shop_prompt() -> Prompt:
    """The assistant's prompt, built once per process like the tools."""

    async def shop_assistant(ctx: Context) -> str:
        state: ServerState = ctx.request_context.lifespan_context
        try:
            episode = await state.episode(ctx)
        except ShopError as exc:
            raise MCPError(INVALID_PARAMS, str(exc)) from None
        return f"{episode.scenario.system_prompt}\nThe customer says:\n{episode.scenario.opening_message}"

    return Prompt.from_function(shop_assistant, name="shop_assistant",
                                description="The assistant's role and the customer's opening message.")
