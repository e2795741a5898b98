"""How a customer-service agent says an answer: order statuses as sentences, policy answers as
"Yes, you can.", "thirty days", "$1,250.00" or "15%". The natural agent picks one phrasing per
episode with its own seeded generator, so every phrasing is played across seeds.

The phrasings are written the way people write, not copied from the canonical strings or the
synonym lists the scorer knows today; a fair reader must accept every one of them.
"""

from __future__ import annotations

import random
import re
from datetime import date

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
         "sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()

STATUS_SENTENCES: dict[str, tuple[str, ...]] = {
    "processing": ("It's still being processed.", "It is still being prepared at our warehouse.",
                   "We're still processing it."),
    "shipped": ("It has shipped.", "It's been shipped{carrier}.", "Good news, it has shipped{carrier}."),
    "in_transit": ("It's on its way with the carrier.", "It is in transit.", "It's on the way to you{carrier}."),
    "delivered": ("It was delivered on {day}.", "It arrived on {day}.", "It was delivered on {day}, to your address."),
    "cancelled": ("I'm sorry, that order was cancelled.", "That order was canceled, I'm afraid.",
                  "I'm sorry, it was cancelled."),
}


def number_words(n: int) -> str:
    """0..999 in words ("one hundred twenty-five")."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("" if n % 10 == 0 else "-" + _ONES[n % 10])
    rest = n % 100
    return f"{_ONES[n // 100]} hundred" + ("" if rest == 0 else " " + number_words(rest))


def long_date(day: date) -> str:
    return f"{day:%B} {day.day}, {day.year}"


def status_sentence(rng: random.Random, status: str, carrier: str | None, delivered_on: date | None) -> str:
    template = rng.choice(STATUS_SENTENCES[status])
    return template.format(carrier=f" with {carrier}" if carrier else "",
                           day=long_date(delivered_on) if delivered_on else "its estimated date")


def yes_no_sentence(rng: random.Random, question: str, yes: bool) -> str:
    q = question.lower()
    if "restocking fee" in q:
        return rng.choice(("No, there's no restocking fee.", "No, there isn't one.")) if not yes else "Yes, there is."
    if re.search(r"\bwill\b", q):
        return rng.choice(("Yes, it will ship free.", "Yes, it will.")) if yes else \
            rng.choice(("No, I'm afraid not.", "No, it won't ship free."))
    return rng.choice(("Yes, you can.", "Yes, you still can.")) if yes else \
        rng.choice(("No, I'm afraid not.", "No, you can't, I'm sorry."))


def categorical_sentence(rng: random.Random, question: str, answer: str) -> str:
    if answer in ("yes", "no"):
        return yes_no_sentence(rng, question, answer == "yes")
    if answer == "store credit":
        return rng.choice(("It is refunded as store credit.", "Gift returns are refunded as store credit.",
                           "You'll get store credit."))
    return f"It's {answer}."


def numeric_sentence(rng: random.Random, question: str, answer: str) -> str:
    """A number in a sentence: digits, words, money or a percentage, as the question calls for."""
    q = question.lower()
    value = float(answer)
    if "percentage" in q:
        return rng.choice((f"It's {value:g}%.", f"A {number_words(int(value))} percent restocking fee applies."))
    if "$" in q or "how much" in q or "dollars" in q:
        return rng.choice((f"It comes to ${value:,.2f}.", f"That would be ${value:,.2f}.", f"${value:,.2f}."))
    unit = "business days" if "business days" in q else "days"
    n = int(value)
    if "left" in q:
        return rng.choice((f"You have {n} days left.", f"You have {number_words(n)} days left."))
    return rng.choice((f"You have {n} {unit}.", f"It's {number_words(n)} {unit}.",
                       f"{number_words(n).capitalize()} {unit}."))
