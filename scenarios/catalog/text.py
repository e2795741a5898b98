"""How product text becomes search tokens, shared by the catalog builder and the search
tool so that both sides of the full-text index agree.

Filters on category, brand and attributes are stored as *facet tokens* in the same FTS5
index as the words ("cat_chargers", "brand_anker", "attr_connector_usb_c"), so a filtered
search is an intersection of posting lists instead of a scan.
"""

from __future__ import annotations

import re

# porter stems "chargers" to "charger"; tokenchars keeps facet tokens whole.
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2 tokenchars '_'"

_NON_WORD = re.compile(r"[^0-9a-z]+")
_QUERY_WORD = re.compile(r"[0-9A-Za-z\u00C0-\u024F]+")


def slug(value: str) -> str:
    """'USB-C to Lightning' -> 'usb_c_to_lightning'."""
    return _NON_WORD.sub("_", value.lower()).strip("_")


def category_token(category_id: str) -> str:
    return f"cat_{category_id}"


def brand_token(brand: str) -> str:
    return f"brand_{slug(brand)}"


def attribute_token(name: str, value: str) -> str:
    return f"attr_{slug(name)}_{slug(value)}"


def query_words(text: str, max_words: int = 12) -> list[str]:
    """The plain words of a free-text query, lowercased, without FTS5 syntax."""
    words = [w.lower() for w in _QUERY_WORD.findall(text)]
    return words[:max_words]


def match_expression(words: list[str], facets: list[str]) -> str:
    """An FTS5 MATCH string requiring every word and facet token (each quoted, so user
    text can never inject FTS5 operators)."""
    terms = [f'"{w}"' for w in words] + [f'"{f}"' for f in facets]
    return " AND ".join(terms)
