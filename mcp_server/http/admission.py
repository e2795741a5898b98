"""Admitting a scenario a client sent (`POST /episodes {"scenario": ...}`).

A generated scenario is right by construction; one from a client is input. Before any file
is written it must hold together the way generated ones do: ids unique and consistent (a
goal's order is one of the customer's orders), categories the shop knows, dates in a window
the date arithmetic can hold, numbers in range, and every text and list of a bounded size
(the world and every tool call stay small). `check_scenario` raises `InvalidScenario` with
the first problem found, naming where it is and echoing at most a short prefix of the value.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from datetime import date
from typing import Any

from verishop.mcp_server.errors import ShopError
from verishop.scenarios.catalog.generate import PRODUCT_ID_FORMAT
from verishop.scenarios.catalog.reader import CatalogReader
from verishop.scenarios.difficulty import MAX_DIFFICULTY
from verishop.scenarios.envs import REGISTRY
from verishop.scenarios.models import Scenario
from verishop.scenarios.stock import HASH_MODULUS
from verishop.scenarios.taxonomy import is_category

# Generated scenarios stay far inside these; they only keep a hostile one small.
MAX_TEXT_CHARS = 2_000
MAX_PROMPT_CHARS = 20_000  # the system prompt and policy clauses are the long texts
MAX_LIST_ITEMS = 500
MAX_ORDERS = 100
MAX_ORDER_LINES = 20
MAX_BROWSING_HISTORY = 100
MAX_TASKS = 10
MAX_QUANTITY = 100
MAX_STOCK = 1_000_000
MAX_CENTS = 10**9
MAX_SEED = 2**63 - 1
MAX_SELL_OUT_RULES = 10  # one per request of the longest journey
MAX_KEPT = 50
# Dates the shop's arithmetic (today ± a year of return windows) can always hold.
EARLIEST = date(1970, 1, 1)
LATEST = date(2200, 12, 31)
ECHO_CHARS = 40
AXIS_RANGES: dict[str, tuple[float, float]] = {
    "constraints": (0, 50), "items_to_recommend": (1, 50), "max_turns": (1, 500), "search_top_k": (1, 100_000),
    "order_history": (0, MAX_ORDERS), "policy_branches": (0, 50), "tool_calls_per_turn": (1, 1_000),
    "p_missing": (0, 1), "p_noise": (0, 1), "p_switch": (0, 1), "retrieval_noise": (0, 1), "p_out_of_stock": (0, 1),
}
POLICY_RANGES: dict[str, tuple[int, int]] = {
    "return_window_days": (0, 3650), "electronics_return_window_days": (0, 3650),
    "free_shipping_threshold_cents": (0, MAX_CENTS), "standard_shipping_cents": (0, MAX_CENTS),
    "restocking_fee_percent": (0, 100),
}
RULE_RANGES: dict[str, tuple[int, int]] = {
    "plus_extension_days": (0, 3650), "premier_extension_days": (0, 3650), "plus_free_shipping_cents": (0, MAX_CENTS),
    "holiday_extension_days": (0, 3650), "gift_extension_days": (0, 3650), "defect_extension_days": (0, 3650),
    "oversize_surcharge_cents": (0, MAX_CENTS), "price_adjustment_days": (0, 3650),
}


class InvalidScenario(ShopError):
    pass


def echo(value: object, limit: int = ECHO_CHARS) -> str:
    """A value as an error message may show it: its repr, cut to a short prefix."""
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + "…"


def check_scenario(scenario: Scenario, catalog: CatalogReader) -> None:
    """Raise `InvalidScenario` with the first problem of a client's scenario, if any."""
    for problem in _problems(scenario, catalog):
        raise InvalidScenario(f"invalid scenario: {problem}")


def _problems(s: Scenario, catalog: CatalogReader) -> Iterator[str]:
    yield from _sizes(s.model_dump(mode="python"), "scenario")
    if s.env_id not in REGISTRY:
        yield f"env_id {echo(s.env_id)} is not a registered environment ({', '.join(REGISTRY)})"
    yield from _in_range("difficulty", s.difficulty, 0, MAX_DIFFICULTY)
    yield from _in_range("seed", s.seed, 0, MAX_SEED)
    for name, (low, high) in AXIS_RANGES.items():
        yield from _in_range(f"axes.{name}", getattr(s.axes, name), low, high)
    yield from _dates(s)
    yield from _orders(s)
    yield from _products(s, catalog)
    yield from _policy(s)
    if len(s.opening_message.strip()) == 0:
        yield "opening_message is empty"
    yield from _goal(s)


def _sizes(value: Any, path: str) -> Iterator[str]:
    """Every text and list of a bounded size (the long texts of the policy and prompt aside)."""
    if isinstance(value, str):
        limit = MAX_PROMPT_CHARS if path == "scenario.system_prompt" or path.endswith(".text") else MAX_TEXT_CHARS
        if len(value) > limit:
            yield f"{path} has {len(value)} characters (at most {limit})"
    elif isinstance(value, dict):
        if len(value) > MAX_LIST_ITEMS:
            yield f"{path} has {len(value)} entries (at most {MAX_LIST_ITEMS})"
        for key, item in value.items():
            if len(str(key)) > MAX_TEXT_CHARS:
                yield f"{path} has a key of {len(str(key))} characters"
            yield from _sizes(item, f"{path}.{str(key)[:ECHO_CHARS]}")
    elif isinstance(value, (list, tuple)):
        if len(value) > MAX_LIST_ITEMS:
            yield f"{path} has {len(value)} items (at most {MAX_LIST_ITEMS})"
        for i, item in enumerate(value):
            yield from _sizes(item, f"{path}[{i}]")
    elif isinstance(value, float) and not math.isfinite(value):
        yield f"{path} is not a finite number"


def _in_range(path: str, value: float, low: float, high: float) -> Iterator[str]:
    if not (isinstance(value, (int, float)) and math.isfinite(value) and low <= value <= high):
        yield f"{path} = {echo(value)} is outside [{low}, {high}]"


def _dates(s: Scenario) -> Iterator[str]:
    named = [("today", s.today), ("customer.member_since", s.customer.member_since)]
    for i, o in enumerate(s.orders):
        named += [(f"orders[{i}].{k}", getattr(o, k)) for k in ("placed_on", "eta", "delivered_on")]
    for path, day in named:
        if day is not None and not EARLIEST <= day <= LATEST:
            yield f"{path} = {day.isoformat()} is outside {EARLIEST.isoformat()}..{LATEST.isoformat()}"


def _duplicate(ids: Iterable[str]) -> str | None:
    seen: set[str] = set()
    for i in ids:
        if i in seen:
            return i
        seen.add(i)
    return None


def _category(path: str, category_id: str) -> Iterator[str]:
    if not is_category(category_id):
        yield f"{path} {echo(category_id)} is not a category of the shop"


def _orders(s: Scenario) -> Iterator[str]:
    if len(s.orders) > MAX_ORDERS:
        yield f"orders has {len(s.orders)} orders (at most {MAX_ORDERS})"
    if (dup := _duplicate(o.order_id for o in s.orders)) is not None:
        yield f"order id {echo(dup)} appears twice"
    if (dup := _duplicate(line.line_id for o in s.orders for line in o.lines)) is not None:
        yield f"order line id {echo(dup)} appears twice"
    for i, o in enumerate(s.orders):
        if not 1 <= len(o.lines) <= MAX_ORDER_LINES:
            yield f"orders[{i}] has {len(o.lines)} lines (1 to {MAX_ORDER_LINES})"
        for j, line in enumerate(o.lines):
            path = f"orders[{i}].lines[{j}]"
            yield from _category(f"{path}.category_id", line.category_id)
            yield from _in_range(f"{path}.quantity", line.quantity, 1, MAX_QUANTITY)
            yield from _in_range(f"{path}.unit_price_cents", line.unit_price_cents, 0, MAX_CENTS)


def _products(s: Scenario, catalog: CatalogReader) -> Iterator[str]:
    if len(s.browsing_history) > MAX_BROWSING_HISTORY:
        yield f"browsing_history has {len(s.browsing_history)} products (at most {MAX_BROWSING_HISTORY})"
    if (dup := _duplicate(c.product_id for c in s.stock_changes)) is not None:
        yield f"stock_changes names product {echo(dup)} twice"
    for i, c in enumerate(s.stock_changes):
        yield from _in_range(f"stock_changes[{i}].stock", c.stock, 0, MAX_STOCK)
    yield from _sell_outs(s)
    if (dup := _duplicate(p.product_id for p in s.extra_products)) is not None:
        yield f"extra_products has product id {echo(dup)} twice"
    for i, p in enumerate(s.extra_products):
        path = f"extra_products[{i}]"
        if not PRODUCT_ID_FORMAT.fullmatch(p.product_id):
            yield f"{path}.product_id {echo(p.product_id)} is not 'P' and 8 digits, like the catalog's"
        if catalog.product(p.product_id) is not None:
            yield f"{path}.product_id {echo(p.product_id)} is already a catalog product"
        yield from _category(f"{path}.category_id", p.category_id)
        yield from _in_range(f"{path}.price_cents", p.price_cents, 0, MAX_CENTS)
        yield from _in_range(f"{path}.rating", p.rating, 0, 5)
        yield from _in_range(f"{path}.rating_count", p.rating_count, 0, MAX_CENTS)
        yield from _in_range(f"{path}.ship_days", p.ship_days, 0, 365)
        yield from _in_range(f"{path}.stock", p.stock, 0, MAX_STOCK)


def _sell_outs(s: Scenario) -> Iterator[str]:
    if len(s.sell_outs) > MAX_SELL_OUT_RULES:
        yield f"sell_outs has {len(s.sell_outs)} rules (at most {MAX_SELL_OUT_RULES})"
    for i, rule in enumerate(s.sell_outs):
        path = f"sell_outs[{i}]"
        yield from _category(f"{path}.category_id", rule.category_id)
        yield from _in_range(f"{path}.multiplier", rule.multiplier, 1, HASH_MODULUS - 1)
        yield from _in_range(f"{path}.offset", rule.offset, 0, HASH_MODULUS - 1)
        yield from _in_range(f"{path}.below", rule.below, 0, HASH_MODULUS)
        if len(rule.keep) > MAX_KEPT:
            yield f"{path}.keep has {len(rule.keep)} products (at most {MAX_KEPT})"
        for product_id in rule.keep:
            if not PRODUCT_ID_FORMAT.fullmatch(product_id):
                yield f"{path}.keep names {echo(product_id)}, not a product ID ('P' and 8 digits)"


def _policy(s: Scenario) -> Iterator[str]:
    policy = s.policy
    for name, (low, high) in POLICY_RANGES.items():
        yield from _in_range(f"policy.{name}", getattr(policy, name), low, high)
    for name, (low, high) in RULE_RANGES.items():
        if policy.rules is not None:
            yield from _in_range(f"policy.rules.{name}", getattr(policy.rules, name), low, high)
    categories = [*policy.final_sale_categories, *(policy.rules.oversize_categories if policy.rules else ())]
    if policy.shop is not None:  # an imported shop's own rules (scenarios/shop_policy.py)
        for category_id, days in policy.shop.category_return_window_days:
            categories.append(category_id)
            yield from _in_range(f"policy.shop.category_return_window_days.{category_id}", days, 0, 3650)
        categories += policy.shop.restocking_fee_categories
        yield from _in_range("policy.shop.return_shipping_cents", policy.shop.return_shipping_cents, 0, MAX_CENTS)
        for name in ("refund_days", "gift_extra_days", "price_match_days"):
            if getattr(policy.shop, name) is not None:
                yield from _in_range(f"policy.shop.{name}", getattr(policy.shop, name), 0, 3650)
    for category_id in categories:
        yield from _category("policy category", category_id)
    if (dup := _duplicate(c.policy_id for c in policy.clauses)) is not None:
        yield f"policy clause id {echo(dup)} appears twice"


def _goal(s: Scenario) -> Iterator[str]:
    goal = s.goal
    tasks = goal.tasks if goal.kind == "journey" else (goal,)
    if goal.kind == "journey":
        if not 1 <= len(goal.tasks) <= MAX_TASKS:
            yield f"goal.tasks has {len(goal.tasks)} requests (a journey has 1 to {MAX_TASKS})"
        if len(goal.openings) != len(goal.tasks):
            yield f"goal.openings has {len(goal.openings)} messages for {len(goal.tasks)} requests"
    orders = {o.order_id: {line.line_id for line in o.lines} for o in s.orders}
    for i, task in enumerate(tasks):
        path = f"goal.tasks[{i}]" if goal.kind == "journey" else "goal"
        for name in ("category_id",):
            if (value := getattr(task, name, None)) is not None:
                yield from _category(f"{path}.{name}", value)
        for category_id in getattr(task, "categories", ()):
            yield from _category(f"{path}.categories", category_id)
        order_id = getattr(task, "order_id", None)
        if order_id is not None and order_id not in orders:
            yield f"{path}.order_id {echo(order_id)} is not one of the customer's orders"
        line_id = getattr(task, "line_id", None)
        if line_id is not None and order_id in orders and line_id not in orders[order_id]:
            yield f"{path}.line_id {echo(line_id)} is not a line of order {echo(order_id)}"
        for count in ("items_to_recommend",):
            if (value := getattr(task, count, None)) is not None:
                yield from _in_range(f"{path}.{count}", value, 1, 50)
        for j, item in enumerate(getattr(task, "items", ())):
            yield from _in_range(f"{path}.items[{j}].quantity", item.quantity, 1, MAX_QUANTITY)
