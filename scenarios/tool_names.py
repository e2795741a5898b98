"""The shop's tools by name, with their arguments: stated once, here, for every layer.

The server (mcp_server/tools.py) registers a tool only if it is named here with exactly these
arguments (mcp_server/schema.py `ToolSet` refuses any other), and tests/test_tool_names.py checks
that it registers every one. The verifier, each environment's check, oracle and baseline, and the
per-turn budget name a tool through these constants and groups. This lives in the scenario core,
not in the server, because the verifier and the agents may never import `verishop.mcp_server`
(docs/ARCHITECTURE.md) while every layer may import the core; it imports nothing.

The names and arguments are the public tool schema: renaming one changes what every client and
every stored transcript says, so it never happens silently here.
"""

from __future__ import annotations

SEARCH_CATALOG = "search_catalog"
GET_PRODUCT = "get_product"
COMPARE_PRODUCTS = "compare_products"
ADD_TO_CART = "add_to_cart"
UPDATE_CART_ITEM = "update_cart_item"
REMOVE_FROM_CART = "remove_from_cart"
VIEW_CART = "view_cart"
LIST_ORDERS = "list_orders"
CHECK_ORDER = "check_order"
CHECK_RETURN_ELIGIBILITY = "check_return_eligibility"
INITIATE_RETURN = "initiate_return"
GET_CUSTOMER_PROFILE = "get_customer_profile"
FIND_CUSTOMER = "find_customer"
CANCEL_ORDER = "cancel_order"
MODIFY_ORDER_ITEMS = "modify_order_items"
CHANGE_ORDER_ADDRESS = "change_order_address"
EXCHANGE_ITEMS = "exchange_items"
TRANSFER_TO_HUMAN = "transfer_to_human"
REQUEST_PRICE_ADJUSTMENT = "request_price_adjustment"
ISSUE_STORE_CREDIT = "issue_store_credit"
LIST_SHIPPING_OPTIONS = "list_shipping_options"
LIST_VOUCHERS = "list_vouchers"
APPLY_VOUCHER = "apply_voucher"
REMOVE_VOUCHER = "remove_voucher"
CHECKOUT = "checkout"
SEARCH_POLICIES = "search_policies"
GET_BROWSING_HISTORY = "get_browsing_history"
GET_CURRENT_DATE = "get_current_date"
GET_CONVERSATION = "get_conversation"
RESPOND_TO_CUSTOMER = "respond_to_customer"

# Each tool's arguments, in the order the server declares them (the order of its input schema).
ARGUMENTS: dict[str, tuple[str, ...]] = {
    SEARCH_CATALOG: ("query", "category_id", "brand", "min_price", "max_price", "min_price_usd", "max_price_usd",
                     "min_rating", "max_ship_days", "attributes", "in_stock_only", "limit", "sort_by"),
    GET_PRODUCT: ("product_id",),
    COMPARE_PRODUCTS: ("product_ids",),
    ADD_TO_CART: ("product_id", "quantity"),
    UPDATE_CART_ITEM: ("product_id", "quantity"),
    REMOVE_FROM_CART: ("product_id",),
    VIEW_CART: (),
    LIST_ORDERS: (),
    CHECK_ORDER: ("order_id",),
    CHECK_RETURN_ELIGIBILITY: ("order_id", "line_id"),
    INITIATE_RETURN: ("order_id", "line_id", "reason"),
    GET_CUSTOMER_PROFILE: (),
    FIND_CUSTOMER: ("email", "name", "zip"),
    CANCEL_ORDER: ("order_id", "reason"),
    MODIFY_ORDER_ITEMS: ("order_id", "changes"),
    CHANGE_ORDER_ADDRESS: ("order_id", "address_id", "address"),
    EXCHANGE_ITEMS: ("order_id", "changes", "payment_method_id"),
    TRANSFER_TO_HUMAN: ("summary",),
    REQUEST_PRICE_ADJUSTMENT: ("order_id", "line_id"),
    ISSUE_STORE_CREDIT: ("order_id", "amount", "reason"),
    LIST_SHIPPING_OPTIONS: (),
    LIST_VOUCHERS: (),
    APPLY_VOUCHER: ("code",),
    REMOVE_VOUCHER: ("code",),
    CHECKOUT: ("address_id", "payment_method_ids", "shipping_option"),
    SEARCH_POLICIES: ("query", "limit"),
    GET_BROWSING_HISTORY: (),
    GET_CURRENT_DATE: (),
    GET_CONVERSATION: (),
    RESPOND_TO_CUSTOMER: ("message", "recommended_product_ids", "order_id", "line_id", "answer", "answer_yes_no",
                          "answer_number", "answer_status", "answer_refund_method", "answer_refusal", "done"),
}
TOOLS = tuple(ARGUMENTS)

# Read-only shop tools: the lookups the per-turn budget counts (scenarios/budget.py).
LOOKUPS = frozenset({SEARCH_CATALOG, GET_PRODUCT, COMPARE_PRODUCTS, VIEW_CART, LIST_ORDERS, CHECK_ORDER,
                     CHECK_RETURN_ELIGIBILITY, SEARCH_POLICIES, GET_BROWSING_HISTORY, GET_CURRENT_DATE,
                     GET_CUSTOMER_PROFILE, FIND_CUSTOMER, LIST_SHIPPING_OPTIONS, LIST_VOUCHERS})
# The tools that put units of a product in the cart, those that change it at all, and every write.
CART_ADDS = frozenset({ADD_TO_CART, UPDATE_CART_ITEM})
CART_CHANGES = CART_ADDS | {REMOVE_FROM_CART}
# The writes on an order other than a return (issue 32): each needs the customer's approval first.
# Compensation (issue 34): money back on an order, logged with the order changes, approved first too.
COMPENSATION_WRITES = frozenset({REQUEST_PRICE_ADJUSTMENT, ISSUE_STORE_CREDIT})
# Placing an order from the cart (issue 34) is one too: it writes a new order, and moves money.
ORDER_WRITES = (frozenset({CANCEL_ORDER, MODIFY_ORDER_ITEMS, CHANGE_ORDER_ADDRESS, EXCHANGE_ITEMS, CHECKOUT})
                | COMPENSATION_WRITES)
# Putting a voucher on the coming order, or taking it off (issue 34): the account's, no order's.
VOUCHER_WRITES = frozenset({APPLY_VOUCHER, REMOVE_VOUCHER})
# Handing the conversation to a person (issue 33): it writes the world (the `handovers` table) but
# touches no order, so it needs no approval and is no order write.
HANDOVER_WRITES = frozenset({TRANSFER_TO_HUMAN})
WRITES = CART_CHANGES | {INITIATE_RETURN} | ORDER_WRITES | HANDOVER_WRITES | VOUCHER_WRITES
# The tools that read or write an order or the customer's account: in an episode that carries the
# identity minefield (issue 33) each refuses until `find_customer` has matched the customer.
IDENTITY_LOCKED = frozenset({LIST_ORDERS, CHECK_ORDER, CHECK_RETURN_ELIGIBILITY, INITIATE_RETURN, GET_CUSTOMER_PROFILE,
                             CANCEL_ORDER, MODIFY_ORDER_ITEMS, CHANGE_ORDER_ADDRESS, EXCHANGE_ITEMS,
                             REQUEST_PRICE_ADJUSTMENT, ISSUE_STORE_CREDIT, LIST_VOUCHERS, APPLY_VOUCHER, REMOVE_VOUCHER,
                             CHECKOUT})
# Identifying the customer: read-only, but a gate the shop sets rather than a search of the task, so
# it has its own per-turn cap instead of spending the lookup budget (scenarios/budget.py).
IDENTIFICATION = frozenset({FIND_CUSTOMER})
# Talking with the customer: free of the lookup budget, and not an action on the shop.
CONVERSATIONAL = frozenset({GET_CONVERSATION, RESPOND_TO_CUSTOMER})
