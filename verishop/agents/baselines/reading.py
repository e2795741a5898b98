"""Reading the customer's words the way a goal-blind baseline can: the category it names and
the requirements it states in the shop's own phrasing ("under $40", "under €40", "made by Anker",
"colour Black"), turned into search_catalog filters. Whatever the customer left out, or typo noise
garbled, is simply missed; that is what makes the baseline weaken as difficulty rises.
"""

from __future__ import annotations

import re
from typing import Any

from verishop.scenarios.money import amount_pattern, figure_of
from verishop.scenarios.taxonomy import SHOPPABLE_CATEGORIES, Category

# The customer's words for its main priority, and the search order that serves it.
PRIORITY_SORT = {"low price": "price", "great reviews": "rating", "fast delivery": "delivery"}


def named_category(text: str) -> Category | None:
    lowered = text.lower()
    return next((c for c in SHOPPABLE_CATEGORIES if c.name.lower() in lowered), None)


_UNDER = re.compile(rf"under ({amount_pattern(capture=False)})", re.IGNORECASE)
_FIGURE = re.compile(amount_pattern(), re.IGNORECASE)


def price_cap(amount: str) -> dict[str, float]:
    """The search filter for a price cap the customer wrote (`amount`, "$40", "€40", "40 AED"): in
    US dollars by the dollar name every version of the shop reads (so a dollar shop's transcripts
    keep their bytes), in any other currency by the neutral name, in the shop's currency."""
    value = figure_of(_FIGURE.search(amount).group(1))
    return {"max_price_usd" if amount.startswith("$") else "max_price": value}


def numeric_filters(lowered: str, category_id: str) -> dict[str, Any]:
    """search_catalog filters for the price cap, rating floor and delivery days a lowercased
    request states, in the customer's template phrasing."""
    filters: dict[str, Any] = {"category_id": category_id}
    if price := _UNDER.search(lowered):
        filters |= price_cap(price.group(1))
    if rating := re.search(r"rated at least (\d(?:\.\d)?) stars", lowered):
        filters["min_rating"] = float(rating.group(1))
    if "delivered by tomorrow" in lowered:
        filters["max_ship_days"] = 1
    elif days := re.search(r"delivered within (\d+) days", lowered):
        filters["max_ship_days"] = int(days.group(1))
    return filters


def stated_filters(text: str, cat: Category) -> dict[str, Any]:
    """search_catalog filters for the requirements `text` states about products of `cat`."""
    lowered = text.lower()
    filters = numeric_filters(lowered, cat.id)
    if brand := next((b for b in cat.brands if f"made by {b.lower()}" in lowered), None):
        filters["brand"] = brand
    attributes = {a.name: v for a in cat.attributes for v in a.values
                  if re.search(rf"\b{re.escape(a.name.replace('_', ' '))} {re.escape(v.lower())}\b", lowered)}
    if attributes:
        filters["attributes"] = [{"name": name, "value": value} for name, value in attributes.items()]
    return filters


def stated_sort(text: str) -> str:
    """The search order for the priority the customer states, else the shop's featured order."""
    lowered = text.lower()
    return next((order for words, order in PRIORITY_SORT.items() if f"{words} matters most" in lowered),
                "featured")
