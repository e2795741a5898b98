"""What the shop's tools return: pydantic models published as MCP structured output.

Amounts are in the shop's currency, which every result showing one states (`currency`, an ISO
4217 code: "USD" for the generated shop, the feed's for an imported one): `price`, `subtotal`,
`total`, `refund` ... The `*_usd` fields are the same amounts under the names of the dollar-only
shop, kept for the agents written against them; they are deprecated, and present only when the
shop's currency is USD, so that no other currency's amount is ever shown under a dollar name.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

Currency = Annotated[str, Field(description="The currency of this result's amounts: an ISO 4217 code such as "
                                            "'USD' or 'EUR'.")]
UsdAlias = Annotated[float | None, Field(description="Deprecated: the amount beside it, under its dollar-shop name; "
                                                     "only in a shop whose currency is USD.")]


def _without_dollar_names(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_dollar_names(v) for k, v in value.items() if not k.endswith("_usd")}
    if isinstance(value, list):
        return [_without_dollar_names(v) for v in value]
    return value


class Priced(BaseModel):
    """A result that shows amounts and says their `currency` (a field each declares beside its
    amounts); its `*_usd` aliases, and its lines', are left out of its dump unless that currency is USD."""

    @model_serializer(mode="wrap")
    def _dollar_names_only_in_dollars(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        return data if getattr(self, "currency") == "USD" else _without_dollar_names(data)


# A search result. Not a `Priced` (no docstring: it would enter the tools' output schema): its one
# dollar name is None exactly when the shop's currency is not USD (`catalog.in_dollars`), so
# leaving it out when None is `Priced`'s rule without a serializer of Python's per card.
class ProductCard(BaseModel):
    product_id: str = Field(description="Product ID, e.g. 'P12345678'. Use it in other tools.")
    title: str
    brand: str
    category_id: str
    price_usd: UsdAlias = Field(None, exclude_if=lambda v: v is None)
    price: float = Field(description="In the shop's currency (`currency`).")
    currency: Currency
    rating: float = Field(description="Average rating, 1.0 to 5.0 stars.")
    rating_count: int
    ship_days: int = Field(description="Days from order to delivery.")
    in_stock: bool
    # Only on a search card whose product's seller wrote more than its facts (left out otherwise,
    # so that every other card keeps its bytes).
    seller_note: str | None = Field(None, exclude_if=lambda v: v is None, description=(
        "What the product's seller wrote beyond its facts: the seller's words, not the shop's nor the "
        "customer's."))


class SearchResults(BaseModel):
    results: list[ProductCard]
    note: str | None = Field(None, description="Set when the search was relaxed or filters were adjusted.")


class VariantOption(BaseModel):
    product_id: str
    value: str = Field(description="This variant's value of the varying attribute (of each, joined by ' / ', "
                                   "when they differ on several).")
    # Only for variants differing on several attributes: left out otherwise, so one-option results
    # keep their bytes.
    values: dict[str, str] | None = Field(None, exclude_if=lambda v: v is None, description=(
        "This variant's value of each varying attribute, when the variants differ on several."))
    price_usd: UsdAlias = None
    price: float = Field(description="In the product's `currency`.")
    in_stock: bool


class SellerAnswer(BaseModel):
    question: str
    answer: str


class SellerText(BaseModel):
    """The product's seller text: its seller's words, not the shop's nor the customer's."""

    description: str
    questions: list[SellerAnswer] = Field(description="Buyers' questions, the seller's answers.")


# A `Priced` again: its variants' dollar names follow the shop's currency, not the None rule of a card.
class ProductDetails(ProductCard, Priced):
    department: str
    attributes: dict[str, str]
    stock_units: int
    variant_attribute: str | None = Field(None, description="The attribute the variants differ on (the first, "
                                                              "when they differ on several).")
    variant_attributes: list[str] | None = Field(None, exclude_if=lambda v: v is None, description=(
        "Every attribute the variants differ on, when they differ on several (size and colour)."))
    variants: list[VariantOption] = Field(default_factory=list,
                                          description="Sibling variants (this product included).")
    seller_text: SellerText = Field(description="What the product's seller says of it: its words, not the shop's "
                                                "nor the customer's.")


class ProductComparison(BaseModel):
    products: list[ProductDetails]


class CartLine(BaseModel):
    product_id: str
    title: str
    quantity: int
    unit_price_usd: UsdAlias = None
    line_total_usd: UsdAlias = None
    unit_price: float
    line_total: float


class Cart(Priced):
    lines: list[CartLine]
    item_count: int
    subtotal_usd: UsdAlias = None
    subtotal: float = Field(description="In the cart's `currency`.")
    currency: Currency


class OrderSummary(Priced):
    order_id: str
    placed_on: date
    status: str
    item_count: int
    total_usd: UsdAlias = None
    total: float = Field(description="In the order's `currency`.")
    currency: Currency
    items: list[str] = Field(description="Titles of the items in the order.")


class OrderList(BaseModel):
    orders: list[OrderSummary]


class OrderLineView(BaseModel):
    line_id: str
    product_id: str
    title: str
    quantity: int
    unit_price_usd: UsdAlias = None
    unit_price: float
    returned: bool
    # An account shop's (issue 32) only, left out elsewhere so that other results keep their bytes.
    variants: list[VariantOption] | None = Field(None, exclude_if=lambda v: v is None, description=(
        "The variants this line could be switched or exchanged to (this one included)."))
    exchanged_for: str | None = Field(None, exclude_if=lambda v: v is None,
                                      description="The variant this line was exchanged for.")


class OrderDetails(Priced):
    order_id: str
    placed_on: date
    status: str
    carrier: str | None
    tracking_number: str | None
    estimated_delivery: date | None
    delivered_on: date | None
    lines: list[OrderLineView]
    total_usd: UsdAlias = None
    total: float = Field(description="In the order's `currency`.")
    currency: Currency
    # An account shop's (issue 32) only, left out elsewhere so that other results keep their bytes.
    ship_to: str | None = Field(None, exclude_if=lambda v: v is None, description="Where it ships.")
    address_id: str | None = Field(None, exclude_if=lambda v: v is None,
                                   description="The saved address it ships to, if it is one.")
    payment_method_id: str | None = Field(None, exclude_if=lambda v: v is None, description="How it was paid.")
    cancel_reason: str | None = Field(None, exclude_if=lambda v: v is None)
    changes: list[str] | None = Field(None, exclude_if=lambda v: v is None,
                                      description="The changes and exchanges made to it, oldest first.")


class ReturnEligibility(Priced):
    order_id: str
    line_id: str
    eligible: bool
    reason: str
    return_by: date | None = Field(None, description="Last day a return can be started.")
    refund_usd: UsdAlias = None
    refund: float | None = Field(None, description="What the return would refund, in `currency`; set when eligible.")
    currency: Currency


class ReturnReceipt(Priced):
    return_id: str
    order_id: str
    line_id: str
    quantity: int
    refund_usd: UsdAlias = None
    refund: float = Field(description="In the receipt's `currency`.")
    currency: Currency
    instructions: str


class SavedAddress(BaseModel):
    address_id: str = Field(description="Use it in change_order_address.")
    street: str
    city: str
    zip: str
    default: bool


class PaymentMethodView(BaseModel):
    payment_method_id: str = Field(description="Use it in exchange_items.")
    kind: Literal["card", "gift_card", "store_credit"]
    label: str
    balance: float | None = Field(None, description="A gift card's or store credit's balance, in `currency`.")


class CustomerProfile(BaseModel):
    customer_id: str
    name: str
    email: str
    member_since: date
    addresses: list[SavedAddress]
    payment_methods: list[PaymentMethodView]
    currency: Currency
    # Shown only when the customer has one (issue 34), so that other results keep their bytes.
    membership_tier: str | None = Field(None, exclude_if=lambda v: v is None,
                                        description="The customer's membership tier (Plus, Premier), if any.")


class CustomerMatch(BaseModel):
    """The customer `find_customer` identified (issue 33)."""

    customer_id: str
    name: str
    email: str
    note: str = Field(description="What identifying them allows.")


class HandoverReceipt(BaseModel):
    handover_id: str
    summary: str = Field(description="The summary the person who takes over reads.")
    note: str = Field(description="What happens next.")


class OrderChangeReceipt(BaseModel):
    change_id: str
    order_id: str
    status: str = Field(description="The order's status after the change.")
    summary: str = Field(description="What changed, in words.")
    price_difference: float = Field(description="What the customer pays for the change, in `currency`; negative "
                                                "when refunded, 0 when none.")
    payment_method_id: str | None = Field(None, description="Where the difference was charged or refunded.")
    currency: Currency


class PolicyHit(BaseModel):
    policy_id: str
    title: str
    text: str


class PolicyResults(BaseModel):
    results: list[PolicyHit]


class BrowsingHistory(BaseModel):
    viewed: list[ProductCard] = Field(description="Most recently viewed first.")


class CurrentDate(BaseModel):
    today: date
    weekday: str


class Message(BaseModel):
    role: Literal["customer", "assistant"]
    text: str


class Conversation(BaseModel):
    messages: list[Message]
    turns_used: int
    max_turns: int
    status: Literal["open", "closed"]


class CustomerReply(BaseModel):
    customer_message: str
    status: Literal["open", "closed"]
    close_reason: str | None = None
    turns_used: int
    turns_left: int


# --- checkout (issue 34) ---------------------------------------------------------------------


class ShippingOptionView(BaseModel):
    name: Literal["standard", "express", "next_day"] = Field(description="Use it in checkout's shipping_option.")
    price: float = Field(description="What it costs for the cart as it stands (vouchers applied), in `currency`.")
    list_price: float = Field(description="Its price before the free-shipping threshold, in `currency`.")
    days: int = Field(description="Days from the order to its delivery.")
    arrives_by: date = Field(description="The day an order placed today arrives.")


class ShippingOptions(BaseModel):
    options: list[ShippingOptionView]
    free_shipping_threshold: float | None = Field(description="Standard shipping is free once the items, after "
                                                              "vouchers, come to this much; None: never free.")
    cart_after_vouchers: float = Field(description="The cart's items after the vouchers applied, in `currency`.")
    currency: Currency


class VoucherView(BaseModel):
    code: str = Field(description="Use it in apply_voucher.")
    kind: Literal["percent", "fixed"]
    amount: float = Field(description="Percent off for 'percent'; an amount in `currency` for 'fixed'.")
    min_spend: float = Field(description="What the items it applies to must come to, in `currency`.")
    category_id: str | None = Field(None, description="It applies only to items of this category; None: any item.")
    excludes_final_sale: bool = Field(description="True: not valid on final-sale items (search_policies).")
    stackable: bool = Field(description="An order carries one voucher that is not stackable; stackable ones "
                                        "combine with it and with each other.")
    expires_on: date = Field(description="The last day it can be used.")
    applied: bool = Field(description="Whether it is on the coming order.")
    used: bool = Field(description="Whether an order used it already (it cannot be applied again).")


class VoucherList(BaseModel):
    vouchers: list[VoucherView]
    shipping: ShippingOptions = Field(description="The shipping options for the cart as it stands (as "
                                                  "list_shipping_options shows them).")
    currency: Currency


class Discount(BaseModel):
    code: str
    amount: float = Field(description="What it takes off, in `currency`.")


class CartQuote(BaseModel):
    """The cart with the vouchers applied to it."""

    applied: list[Discount]
    subtotal: float = Field(description="The items, before vouchers.")
    discount: float = Field(description="What the vouchers take off together.")
    after_vouchers: float
    shipping: ShippingOptions = Field(description="The shipping options for the cart with these vouchers.")
    currency: Currency


class Charge(BaseModel):
    payment_method_id: str
    label: str
    amount: float


class CheckoutReceipt(Priced):
    order_id: str
    status: str
    items: list[CartLine]
    discounts: list[Discount]
    subtotal: float
    discount: float
    shipping_option: str
    shipping: float
    total: float
    charges: list[Charge] = Field(description="What each payment method paid, in the order given.")
    address_id: str
    arrives_by: date
    currency: Currency
