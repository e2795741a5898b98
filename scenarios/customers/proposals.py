"""Reading the agent's proposal of a write (issue 32): the shop asks the customer's agreement
before it changes an order, so the customer agrees only once the agent has named what it will do
(the order, the lines' new variants, the address, the amount), and only to what it wants.

What a turn names is read from its words and its structured answer alike: an ID in the text or in
a field, a variant's value or an address's street as whole words in any case, an amount as the
typed number (`answer_number`, in the shop's currency: what the customer pays, negative when
refunded). A proposal must name one change: one that names the wanted variant beside others
(every ID the agent saw, every size), or two payment methods or addresses, names none, and the
customer says which it meant instead of agreeing (a goal-blind list of everything never wins
its agreement).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from verishop.scenarios.models import Submission

# Words that say the agent is about to act, not asking or telling: none needed; a proposal is any
# turn that names the order. These are what a refusal or a question sounds like instead.
ADDRESS_TOPIC = ("address", "addresses", "ship it to", "ship them to", "send it to", "street", "zip", "zip code",
                 "postcode", "which location")
PAYMENT_TOPIC = ("payment", "payment method", "pay", "pay for", "card", "gift card", "store credit", "charge",
                 "charged", "refund it to", "put the difference", "which method")


def _normal(text: str) -> str:
    return " ".join(text.replace("’", "'").lower().split())


def says(message: str, words: str) -> bool:
    """Whether `message` holds `words` as whole words, in any case and spacing (an apostrophe
    joins a word: the "m" of "I'm" is not size M)."""
    words = _normal(words)
    return bool(words) and re.search(rf"(?<![\w']){re.escape(words)}(?![\w'])", _normal(message)) is not None


def values_said(message: str, values: Iterable[str]) -> set[str]:
    """Which of `values` the message says, each as whole words, the longest read first and taken
    out: "Light Pink" is not also "Pink", nor "Rose red" "red"."""
    text = _normal(message)
    found = set()
    for value in sorted({v for v in values if v.strip()}, key=lambda v: len(_normal(v)), reverse=True):
        pattern = rf"(?<![\w']){re.escape(_normal(value))}(?![\w'])"
        if re.search(pattern, text):
            found.add(value)
            text = re.sub(pattern, " ", text)
    return found


def names(message: str, sub: Submission, value: str) -> bool:
    """Whether the agent's turn names `value` (an ID, a value): in its words or any field."""
    fields = (sub.order_id, sub.line_id, *sub.recommended_product_ids, sub.answer)
    return says(message, value) or any(f is not None and f.strip() == value for f in fields)


def named_order(message: str, sub: Submission, order_ids: list[str]) -> str | None:
    """The order the turn is about: its `order_id` field, else the one order ID its words name
    among the customer's (None when none, or several)."""
    if (sub.order_id or "").strip():
        return sub.order_id.strip()  # type: ignore[union-attr]
    named = [o for o in order_ids if says(message, o)]
    return named[0] if len(named) == 1 else None


_PRODUCT_ID = re.compile(r"\bP\d{8}\b")


def named_products(message: str, sub: Submission) -> set[str]:
    """Every product ID the turn names, in its words or its recommendations."""
    return set(_PRODUCT_ID.findall(message)) | {pid.strip() for pid in sub.recommended_product_ids}


def names_amount(sub: Submission, cents: int) -> bool:
    """Whether the turn states the amount exactly as a typed number (hundredths of the currency)."""
    return sub.answer_number is not None and round(sub.answer_number * 100) == cents
