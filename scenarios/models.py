"""The scenario: everything generated for one episode, hidden goal included.

A `Scenario` is the first file of an episode directory (`scenario.json`). The server seeds
the world from it; the verifier scores against it. It is never shown over MCP.
"""

from __future__ import annotations

import hashlib
from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

SCENARIO_SCHEMA_VERSION = 1


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class CatalogRef(Frozen):
    """Which shared catalog the episode runs on: rebuilt from (seed, size), checked by hash."""

    seed: int
    size: int
    content_hash: str


class Customer(Frozen):
    customer_id: str
    name: str
    email: str
    city: str
    member_since: date


class OrderLine(Frozen):
    line_id: str
    product_id: str
    title: str
    category_id: str
    quantity: int
    unit_price_cents: int


OrderStatus = Literal["processing", "shipped", "in_transit", "delivered", "cancelled"]


class Order(Frozen):
    order_id: str
    placed_on: date
    status: OrderStatus
    carrier: str | None = None
    tracking_number: str | None = None
    eta: date | None = None
    delivered_on: date | None = None
    lines: tuple[OrderLine, ...]


class StockChange(Frozen):
    """A per-episode change to the shared catalog (the catalog file itself never changes)."""

    product_id: str
    stock: int


class PolicyClause(Frozen):
    policy_id: str
    topic: str
    title: str
    text: str


class StorePolicy(Frozen):
    """The numbers the policy text is written from; tools and the verifier use these."""

    return_window_days: int
    electronics_return_window_days: int
    final_sale_categories: tuple[str, ...]
    free_shipping_threshold_cents: int
    standard_shipping_cents: int
    restocking_fee_percent: int
    clauses: tuple[PolicyClause, ...]


class Axes(Frozen):
    """The twelve difficulty axes at this episode's difficulty (reference section 4)."""

    constraints: int
    items_to_recommend: int
    max_turns: int
    p_missing: float
    p_noise: float
    p_switch: float
    search_top_k: int
    retrieval_noise: float
    p_out_of_stock: float
    order_history: int
    policy_branches: int
    tool_calls_per_turn: int


class Constraint(Frozen):
    """One thing the customer requires of a product.

    `kind` says which product field is tested; `stated` says whether the opening message
    mentions it (an unstated constraint is revealed only when the agent asks).
    """

    kind: Literal["category", "brand", "attribute", "price_max", "rating_min", "ship_days_max", "in_stock"]
    attribute: str | None = None
    value: str | int | float | bool
    stated: bool = True


class ProductDiscoveryGoal(Frozen):
    kind: Literal["product_discovery"] = "product_discovery"
    category_id: str
    constraints: tuple[Constraint, ...]
    items_to_recommend: int
    # The product the scenario was built around; it meets every constraint.
    anchor_product_id: str


Goal = Annotated[ProductDiscoveryGoal, Field(discriminator="kind")]


class Submission(Frozen):
    """The agent's structured answer, sent with a message to the customer."""

    recommended_product_ids: tuple[str, ...] = ()
    order_id: str | None = None
    line_id: str | None = None
    policy_answer: str | None = None
    done: bool = False


CustomerTag = Literal["open", "confirm", "clarify", "correct", "dissatisfied", "continue", "quit", "done"]


class Scenario(Frozen):
    schema_version: int = SCENARIO_SCHEMA_VERSION
    env_id: str
    difficulty: int
    seed: int
    today: date
    catalog: CatalogRef
    axes: Axes
    customer: Customer
    orders: tuple[Order, ...]
    browsing_history: tuple[str, ...]
    stock_changes: tuple[StockChange, ...]
    policy: StorePolicy
    system_prompt: str
    opening_message: str
    goal: Goal

    def to_json(self) -> str:
        """Canonical JSON: the bytes that must be identical on every machine."""
        return self.model_dump_json(indent=2)

    def sha256(self) -> str:
        return hashlib.sha256(self.to_json().encode()).hexdigest()
