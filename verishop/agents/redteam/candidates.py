"""Greedy's searches, widened: the product lists a hostile agent draws its submissions from.

Each function runs the search greedy would run for the request (the same filters, order and
ranking of the result cards) but returns up to `limit` products instead of greedy's top few,
so an attacker can offer more of them, or offer them page by page. A failed lookup (the turn's
budget spent) costs one filler turn and is tried again once.
"""

from __future__ import annotations

import re

from verishop.agents.baselines import search_words
from verishop.agents.baselines.lookups import content_words, overlap
from verishop.agents.baselines.reading import named_category, stated_filters, stated_sort
from verishop.agents.redteam.common import lookup
from verishop.agents.session import ShopSession
from verishop.envs.bundle import greedy as greedy_bundle
from verishop.envs.pd import greedy as greedy_pd
from verishop.envs.sub import greedy as greedy_sub

MAX_LIMIT = 50  # search_catalog's largest page


def wanted(text: str, kind: str) -> int:
    """How many products the customer asked for (greedy's reading), else 3."""
    if kind == "sub":
        asked = re.search(r"(\d+)\s+(?:similar|in-stock)", text)
        return int(asked.group(1)) if asked else 3
    return greedy_pd._wanted(text)


async def pd_products(shop: ShopSession, text: str, limit: int) -> list[str]:
    cat = named_category(text)
    if cat is None:
        return [p["product_id"] for p in await search_words(shop, text, limit)]
    found = await lookup(shop, "search_catalog", **stated_filters(text, cat), in_stock_only=True,
                         sort_by=stated_sort(text), limit=limit)
    return [p["product_id"] for p in found["results"]] if found else []


async def sub_products(shop: ShopSession, text: str, limit: int) -> list[str]:
    named = re.search(r"buy the (.+?)(?: I was looking at earlier)?, but", text)
    name = named.group(1) if named else text
    cat = greedy_sub._category(name)
    if cat is None:
        return await greedy_sub._found_by_search(shop, text, name, limit)
    results = await greedy_sub._search(shop, text, name, cat)
    return [c["product_id"] for c in greedy_sub._closest(results, name, greedy_sub._brand(name, cat), limit)]


async def bundle_products(shop: ShopSession, text: str, per_category: int) -> list[list[str]]:
    """For each category the request names, its top `per_category` results under an even
    share of the budget."""
    categories = greedy_bundle.spot_categories(text) or await greedy_bundle._found_by_search(shop, text)
    cap = greedy_bundle.share(greedy_bundle.budget(text), len(categories))
    lists = []
    for category_id in categories:
        found = await lookup(shop, "search_catalog", category_id=category_id, **cap, limit=per_category)
        lists.append([p["product_id"] for p in found["results"]] if found else [])
    return lists


async def products(shop: ShopSession, text: str, kind: str, limit: int) -> list[str]:
    """PD or SUB: greedy's ranked results, up to `limit`."""
    return await (sub_products if kind == "sub" else pd_products)(shop, text, limit)


def rank_orders(text: str, orders: list[dict]) -> list[dict]:
    """Orders by how many words their items share with the request (greedy's guess first),
    the newest first among equals."""
    words = content_words(text.partition("replacement:")[0])
    return sorted(orders, key=lambda o: -overlap(words, " ".join(o["items"])))


def rank_lines(text: str, lines: list[dict]) -> list[dict]:
    words = content_words(text.partition("replacement:")[0])
    return sorted(lines, key=lambda li: -overlap(words, li["title"]))
