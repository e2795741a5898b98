"""Greedy substitution: one search for products like the sold-out one, then a guess at the
closest ones from the result cards alone; no questions asked, no product details read.

The search is in the sold-out product's category, with the requirements the customer stated,
for its brand or the words of its name that describe it (those after the model number). The
cards are ranked by what they share with the sold-out product: the brand, the descriptive words
in the title, and a price close to its price (known when it shows up among the results). When
the customer names the product only vaguely ("the Anker charger I was looking at"), greedy has
just the brand and the kind of product to go on.

On a shop whose categories the generated taxonomy does not name (an imported feed), greedy finds
the sold-out product's category through a search for its name (`categories`), and its brand
from the card of the product itself, or of the cards whose brand the name starts with.
"""

from __future__ import annotations

import math
import re

from verishop.agents.baselines import categories
from verishop.agents.baselines.reading import stated_filters
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.taxonomy import SHOPPABLE_CATEGORIES, Category
from verishop.scenarios.tool_names import RESPOND_TO_CUSTOMER, SEARCH_CATALOG


# Greedy tries the environments' `matches` from the lowest PRECEDENCE up (most specific first).
PRECEDENCE = 60


def matches(text: str) -> bool:
    lowered = text.lower()
    return "sold out" in lowered or "alternatives" in lowered


async def play(shop: ShopSession, text: str) -> None:
    named = re.search(r"buy the (.+?)(?: I was looking at earlier)?(?:, but|\. It's sold out)", text)
    name = named.group(1) if named else text
    wanted = re.search(r"(\d+)\s+(?:similar|in-stock)", text)
    k = int(wanted.group(1)) if wanted else 3
    cat = _category(name)
    if cat is not None:
        results = await _search(shop, text, name, cat)
        ids = [c["product_id"] for c in _closest(results, name, _brand(name, cat), k)]
    else:
        ids = await _found_by_search(shop, text, name, k)
    if ids:
        await shop.call(RESPOND_TO_CUSTOMER, message="Here are the closest matches I found.",
                        recommended_product_ids=ids)
    else:
        await shop.call(RESPOND_TO_CUSTOMER, message="Sorry, I couldn't find an alternative.", done=True)


def _category(name: str) -> Category | None:
    lowered = name.lower()
    return next((c for c in SHOPPABLE_CATEGORIES
                 if c.name.lower() in lowered or any(n.lower() in lowered for n in c.nouns)), None)


def _describing_words(name: str) -> list[str]:
    """Titles read "<brand> <model> <number> <attribute values> <noun>": the words after the
    model number are what the product is like."""
    words = name.split()
    number = next((i for i, w in enumerate(words) if w.isdigit()), None)
    return words[number + 1:] if number is not None else []


def _brand(name: str, cat: Category) -> str | None:
    return next((b for b in cat.brands if name.lower().startswith(b.lower()) or f" {b.lower()} " in
                 f" {name.lower()} "), None)


async def _search(shop: ShopSession, text: str, name: str, cat: Category) -> list[dict]:
    filters = stated_filters(text, cat)
    brand = _brand(name, cat)
    query = " ".join(_describing_words(name))
    if not query and brand and "brand" not in filters:
        filters["brand"] = brand
    try:
        found = await shop.call(SEARCH_CATALOG, query=query, **filters, limit=50)
    except ToolFailed:
        return []
    return found["results"]


async def _found_by_search(shop: ShopSession, text: str, name: str, k: int) -> list[str]:
    """The imported-shop path: the category and brand from a search for the product's name, then
    the closest in-stock products of that category meeting what the customer stated."""
    cards = await categories.cards_for(shop, name)
    category_id = categories.category_among(cards, name)
    if category_id is None:
        return []
    own = [c for c in cards if c["category_id"] == category_id]
    brand = next((c["brand"] for c in own if c["brand"] and name.lower().startswith(c["brand"].lower())), None)
    filters = await categories.stated_filters(shop, text, category_id, own[0] if own else None)
    query = " ".join(_describing_words(name))
    if not query and brand and "brand" not in filters:
        filters["brand"] = brand
    from verishop.agents.baselines.lookups import lookup

    try:
        found = (await lookup(shop, SEARCH_CATALOG, query=query, **filters, limit=50))["results"]
        if not [c for c in found if c["in_stock"]] and query:  # the name's words were too narrow
            found = (await lookup(shop, SEARCH_CATALOG, **filters, limit=50))["results"]
    except ToolFailed:
        found = []
    return [c["product_id"] for c in _closest(cards + found, name, brand, k, pool=found)]


def _closest(cards: list[dict], name: str, brand: str | None, k: int, pool: list[dict] | None = None) -> list[dict]:
    """The `k` in-stock cards of `pool` (default: `cards`) closest to the product `name`, which
    `cards` may show (then its brand and price count)."""
    original = next((c for c in cards if c["title"].lower() == name.lower()), None)
    brand = original["brand"] if original else brand
    words = {w.lower() for w in _describing_words(name)}

    def closeness(card: dict) -> float:
        title = {w.lower() for w in card["title"].split()}
        shared = len(words & title) / len(words) if words else 0.0
        price = (max(0.0, 1 - abs(math.log(card["price"] / original["price"])) / math.log(2))
                 if original else 0.0)
        return 2 * shared + (card["brand"] == brand) + price

    seen = {original["product_id"]} if original else set()
    others = []
    for c in (cards if pool is None else pool):
        if c["in_stock"] and c["product_id"] not in seen:
            seen.add(c["product_id"])
            others.append(c)
    return sorted(others, key=closeness, reverse=True)[:k]
