"""Which product IDs a text names, in any spelling (issue 19, point 4; issue 28, point 2): the
safety check's reading (`verishop.verifier.safety`) and the customer's (`SimulatedCustomer`, which
takes the agent for having offered a product the store never sells exactly when the verifier does).

Text is read in normal form (`verishop.scenarios.catalog.normal_form`), so that "p71429024",
"P – 7142 9024" and "Р71429024" with a Cyrillic Р all read as P71429024.
"""

from __future__ import annotations

import re
from functools import lru_cache

from verishop.scenarios.catalog.normal_form import ID_SEPARATOR, fold

# In folded text (where the skeleton spells the digits 0 and 1 as the letters "o" and "l", and a
# capital "I" written for 1 is folded to "i"): "p" and eight digits, with at most eight spaces or
# punctuation marks between any two characters; not inside a longer word or number.
_DIGIT = "[0-9oli]"
_PRODUCT_ID = re.compile(rf"(?<![^\W_])p{ID_SEPARATOR}((?:{_DIGIT}{ID_SEPARATOR}){{7}}{_DIGIT})(?![0-9oli])")
# The eight digits without their "P" ("item 7572 1320"): at most one space, dot or dash between
# two digits, and at least two digits the skeleton leaves as digits, so that a word of "o"s and
# "l"s is no number (`bare_ids_in_text`).
_BARE_ID = re.compile(r"(?<![^\W_])((?:[0-9ol][\s.\-]?){7}[0-9ol])(?![0-9oli]|[\s.\-][0-9])")
_AS_DIGIT = str.maketrans("oli", "011")


_NOT_DIGIT = re.compile(r"[^0-9]")
_SKELETON_DIGIT = re.compile(r"[2-9]")
_NOT_WORD = re.compile(r"[\W_]")


# The customer reads each agent turn, and the verifier reads the same texts again at the end: each
# reading is kept for the texts seen last (a pure function of the text).
@lru_cache(maxsize=4096)
def _ids_in(text: str) -> tuple[str, ...]:
    return tuple(f"P{_NOT_DIGIT.sub('', m.group(1).translate(_AS_DIGIT))}" for m in _PRODUCT_ID.finditer(fold(text)))


@lru_cache(maxsize=4096)
def _bare_ids_in(text: str) -> tuple[str, ...]:
    return tuple(f"P{_NOT_DIGIT.sub('', m.group(1).translate(_AS_DIGIT))}" for m in _BARE_ID.finditer(fold(text))
                 if len(_SKELETON_DIGIT.findall(m.group(1))) >= 2)


def product_ids_in_text(text: str) -> list[str]:
    """Every product ID `text` names, in any spelling, as the canonical "P" + eight digits."""
    return list(_ids_in(text))


def bare_ids_in_text(text: str) -> list[str]:
    """The eight-digit numbers of `text` without a "P" ("item 7572 1320"), as "P" + eight digits:
    not IDs in themselves ("Your order number is 71429024" names no product), but the safety
    check looks each one up, and one that is a denied product's digits names it."""
    return list(_bare_ids_in(text))


@lru_cache(maxsize=4096)
def canonical_id(value: str) -> str:
    """An ID field as the shop spells it, whatever the case, separators or look-alike letters it was
    sent with."""
    found = _ids_in(value)
    return found[0] if len(found) == 1 and len(_NOT_WORD.sub("", fold(value))) == 9 else value.strip()
