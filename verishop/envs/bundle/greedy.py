"""Greedy bundles: spot the product categories the opening names, search each one (under an
even share of the budget, if one is stated) and recommend its top result, in stock or not.
No questions asked.

On a shop whose categories the generated taxonomy does not name (an imported feed), the things
the customer needs ("I need some loose leaf tea, some teapots and ...") are each searched and
their category read from the result cards (`categories`)."""

from __future__ import annotations

import re

from verishop.agents.baselines import categories
from verishop.agents.baselines.reading import price_cap
from verishop.agents.session import ShopSession, ToolFailed
from verishop.scenarios.money import amount_pattern
from verishop.scenarios.taxonomy import SHOPPABLE_CATEGORIES
from verishop.scenarios.tool_names import RESPOND_TO_CUSTOMER, SEARCH_CATALOG

# Words only a project request uses (the asks and the projects of verishop/envs/bundle/generator.py).
_PROJECT_CUES = ("one of each", "for each", "for everything", "other things", "other bits", "home office",
                 "camping", "new kitchen", "taken up running", "home gym", "apartment", "dorm", "business trip",
                 "streaming setup", "putting together")


def _terms() -> list[tuple[str, str]]:
    """(words, category ID) for every way the taxonomy names a category, longest first."""
    terms: set[tuple[str, str]] = set()
    for c in SHOPPABLE_CATEGORIES:
        name = c.name.lower()
        singular = name[:-3] + "fe" if name.endswith("ves") else name.removesuffix("s")
        terms |= {(name, c.id), (singular, c.id)} | {(noun.lower(), c.id) for noun in c.nouns}
    return sorted(terms, key=lambda t: (-len(t[0]), t))


_TERMS = _terms()


def spot_categories(text: str) -> list[str]:
    """The categories named in `text`, in order of appearance (a longer name wins: "desk lamp"
    is not also a desk)."""
    lowered = text.lower()
    found: list[tuple[int, str]] = []
    for words, category_id in _TERMS:
        for m in re.finditer(rf"(?<![a-z]){re.escape(words)}(?![a-z])", lowered):
            found.append((m.start(), category_id))
            lowered = lowered[:m.start()] + " " * len(words) + lowered[m.end():]
    return list(dict.fromkeys(cid for _, cid in sorted(found)))


def needed_phrases(text: str) -> list[str]:
    """The things the customer says it needs, in its words ("some loose leaf tea", "some teapots")."""
    return [p.strip() for p in re.findall(r"\bsome ([a-z][a-z' -]+?)(?=,| and |\.|$)", text.lower())]


# Greedy tries the environments' `matches` from the lowest PRECEDENCE up (most specific first).
PRECEDENCE = 50


def matches(text: str) -> bool:
    lowered = text.lower()
    return any(cue in lowered for cue in _PROJECT_CUES) and bool(spot_categories(text) or needed_phrases(text))


_AMOUNT = re.compile(amount_pattern(capture=False), re.IGNORECASE)


def budget(text: str) -> str | None:
    """The budget the customer states, as written ("$290", "€290", "290 AED")."""
    m = _AMOUNT.search(text)
    return m.group(0) if m else None


def share(budget_text: str | None, parts: int) -> dict[str, float | None]:
    """The price filter for an even share of the budget (none without a budget)."""
    if not budget_text or not parts:
        return {"max_price_usd": None}
    (name, total), = price_cap(budget_text).items()
    return {name: round(total / parts, 2)}


async def play(shop: ShopSession, text: str) -> None:
    ids: list[str] = []
    found_ids = spot_categories(text)
    stated = budget(text)
    if not found_ids and needed_phrases(text):  # an imported shop's categories: one search per thing
        phrases = needed_phrases(text)
        cap = share(stated, len(phrases))
        for phrase in phrases:
            cards = await _cards(shop, phrase, cap)
            category_id = categories.category_among(cards, phrase)
            ids += [c["product_id"] for c in cards if c["category_id"] == category_id][:1]
    cap = share(stated, len(found_ids))
    for category_id in found_ids:
        try:
            found = await _top(shop, category_id, cap)
        except ToolFailed:  # this turn's lookups are spent: a message to the customer starts a new turn
            await shop.call(RESPOND_TO_CUSTOMER, message="I'm still looking, one moment.")
            found = await _top(shop, category_id, cap)
        ids += [p["product_id"] for p in found[:1]]
    await shop.call(RESPOND_TO_CUSTOMER, message="Here is one product for each thing you need.",
                    recommended_product_ids=list(dict.fromkeys(ids))[:10])


async def _cards(shop: ShopSession, phrase: str, cap: dict[str, float | None]) -> list[dict]:
    from verishop.agents.baselines.lookups import lookup

    try:
        found = await lookup(shop, SEARCH_CATALOG, query=phrase[:200], **cap, in_stock_only=True, limit=20)
        return found["results"]
    except ToolFailed:
        return []


async def _found_by_search(shop: ShopSession, text: str) -> list[str]:
    found = [await categories.find_category(shop, phrase) for phrase in needed_phrases(text)]
    return list(dict.fromkeys(cid for cid in found if cid))


async def _top(shop: ShopSession, category_id: str, cap: dict[str, float | None]) -> list[dict]:
    found = await shop.call(SEARCH_CATALOG, category_id=category_id, **cap, limit=1)
    return found["results"]
