"""What the shop's tools return: pydantic models published as MCP structured output."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field


class ProductCard(BaseModel):
    product_id: str = Field(description="Product ID, e.g. 'P12345678'. Use it in other tools.")
    title: str
    brand: str
    category_id: str
    price_usd: float
    rating: float = Field(description="Average rating, 1.0 to 5.0 stars.")
    rating_count: int
    ship_days: int = Field(description="Days from order to delivery.")
    in_stock: bool


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
    price_usd: float
    in_stock: bool


class ProductDetails(ProductCard):
    department: str
    attributes: dict[str, str]
    stock_units: int
    variant_attribute: str | None = Field(None, description="The attribute the variants differ on (the first, "
                                                              "when they differ on several).")
    variant_attributes: list[str] | None = Field(None, exclude_if=lambda v: v is None, description=(
        "Every attribute the variants differ on, when they differ on several (size and colour)."))
    variants: list[VariantOption] = Field(default_factory=list,
                                          description="Sibling variants (this product included).")


class ProductComparison(BaseModel):
    products: list[ProductDetails]


class CartLine(BaseModel):
    product_id: str
    title: str
    quantity: int
    unit_price_usd: float
    line_total_usd: float


class Cart(BaseModel):
    lines: list[CartLine]
    item_count: int
    subtotal_usd: float


class OrderSummary(BaseModel):
    order_id: str
    placed_on: date
    status: str
    item_count: int
    total_usd: float
    items: list[str] = Field(description="Titles of the items in the order.")


class OrderList(BaseModel):
    orders: list[OrderSummary]


class OrderLineView(BaseModel):
    line_id: str
    product_id: str
    title: str
    quantity: int
    unit_price_usd: float
    returned: bool


class OrderDetails(BaseModel):
    order_id: str
    placed_on: date
    status: str
    carrier: str | None
    tracking_number: str | None
    estimated_delivery: date | None
    delivered_on: date | None
    lines: list[OrderLineView]
    total_usd: float


class ReturnEligibility(BaseModel):
    order_id: str
    line_id: str
    eligible: bool
    reason: str
    return_by: date | None = Field(None, description="Last day a return can be started.")
    refund_usd: float | None = None


class ReturnReceipt(BaseModel):
    return_id: str
    order_id: str
    line_id: str
    quantity: int
    refund_usd: float
    instructions: str


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
