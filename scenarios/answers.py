"""Reading an agent's answer the way a person reads it.

Each reader returns one value, `None` when the text names none, or `AMBIGUOUS` when it names
several different ones. A hedge ("yes or no", "30 or 45 days", "shipped / in transit") is an
answer that could be anything, so it scores as wrong: brute force inside one message cannot
pass. What a sentence says is *not* the case does not count ("it hasn't been delivered yet,
it's on its way" names one status, in transit).

    read_yes_no     a yes or a no opening a sentence ("No, I'm afraid not."), else the gist
                    of a sentence without one ("You can't return it." / "There's no fee.")
    read_number     digits, "$1,250.00", "15%", number words ("thirty", "forty-five");
                    dates ("March 3, 2026", "2026-03-03") are not numbers of the answer
    read_status     an order status in words ("on its way", "delivered on March 3", "still
                    being processed", "not shipped yet")
    read_choice     one of a few named options ("refunded as store credit")

The table of accepted and rejected phrasings lives in tests/test_answers.py.
"""

from __future__ import annotations

import re
from typing import Final


class _Ambiguous:
    def __repr__(self) -> str:
        return "AMBIGUOUS"


AMBIGUOUS: Final = _Ambiguous()
Reading = object  # a value, None, or AMBIGUOUS

_NEGATION = re.compile(r"(?:\bnot|n't|\bnever|\bno longer|\byet to be)\s+(?:\w+\s+){0,2}$")
_SENTENCES = re.compile(r"(?<=[.!?;])\s+|\n+")


def _one(found: set) -> Reading:
    if not found:
        return None
    return found.pop() if len(found) == 1 else AMBIGUOUS


def _negated(text: str, start: int) -> bool:
    """Whether the words just before `start` deny what follows ("not", "hasn't been")."""
    return bool(_NEGATION.search(text[max(0, start - 30):start]))


# --- yes / no ------------------------------------------------------------------------------

_YES_OPENERS = re.compile(r"^(?:yes|yeah|yep|yup|sure|absolutely|certainly|of course|correct|definitely|indeed)\b")
_NO_OPENERS = re.compile(r"^(?:no|nope|nah|unfortunately|sadly|i'?m afraid|i am afraid|sorry|none)\b")
_NO_GIST = re.compile(r"\b(?:can'?t|cannot|can not|won'?t|will not|isn'?t|is not|aren'?t|are not|doesn'?t|does not|"
                      r"not eligible|not possible|no longer|there(?:'s| is) no|no \w*\s?fee|free of charge|"
                      r"no charge|not charged)\b")
_YES_GIST = re.compile(r"\b(?:you can|you may|it can|it will|it does|it is eligible|is eligible|are eligible|"
                       r"there is a|there's a|it qualifies|still can|can still)\b(?!'t| not)")


def read_yes_no(text: str | None) -> Reading:
    """"yes", "no", None or AMBIGUOUS. Sentence openers decide; a text with none is read by
    its gist (a denial reads as no, an affirmation as yes)."""
    if not text:
        return None
    sentences = [s.strip(" \"'*-—–(").lower() for s in _SENTENCES.split(text.strip()) if s.strip()]
    found: set[str] = set()
    for s in sentences:
        if _YES_OPENERS.match(s):
            found.add("yes")
        elif _NO_OPENERS.match(s):
            found.add("no")
    lowered = text.lower()
    if re.search(r"\byes\b", lowered) and re.search(r"\bno\b", lowered):
        return AMBIGUOUS
    if found:
        return _one(found)
    no, yes = _NO_GIST.search(lowered), _YES_GIST.search(lowered)
    if no and yes:
        return AMBIGUOUS
    return "no" if no else "yes" if yes else None


# --- numbers -------------------------------------------------------------------------------

_UNITS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                     "fourteen fifteen sixteen seventeen eighteen nineteen".split())}
_TENS = {w: 10 * i for i, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()) if i > 1}
_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_DATES = re.compile(rf"\b(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|"
                    rf"\b\d{{1,2}}/\d{{1,2}}(?:/\d{{2,4}})?\b", re.IGNORECASE)
_DIGITS = re.compile(r"(?<![\w.])\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?\s?%?")
_TWO_DIGITS = (r"(?:(?:" + "|".join(_TENS) + r")(?:[\s-](?:" + "|".join(list(_UNITS)[1:10]) + r"))?|"
               + "|".join(sorted(_UNITS, key=len, reverse=True)) + r")")
_WORD_NUMBER = re.compile(rf"\b(?:(?P<hundreds>{_TWO_DIGITS}|a)\s+hundred(?:\s+and)?(?:[\s-]+(?P<rest>{_TWO_DIGITS}))?"
                          rf"|(?P<small>{_TWO_DIGITS}))\b", re.IGNORECASE)


def _two_digits(words: str) -> int:
    parts = re.split(r"[\s-]+", words.lower())
    return sum(_TENS.get(w, 0) + _UNITS.get(w, 0) for w in parts)


# "one" is usually not a number ("the one you bought"); it is when a unit follows.
_ONE_AS_NUMBER = re.compile(r"\s+(?:day|business day|dollar|percent|week)", re.IGNORECASE)


def read_number(text: str | None) -> Reading:
    """The one number `text` states, or None, or AMBIGUOUS when it states several different
    ones. Dates are left out; "$1,250.00" is 1250.0 and "15%" is 15.0."""
    if not text:
        return None
    text = _DATES.sub(" ", text)
    found: set[float] = set()
    for m in _DIGITS.finditer(text):
        found.add(float(m.group(1).replace(",", "") + (m.group(2) or "")))
    for m in _WORD_NUMBER.finditer(text):
        if m.group("hundreds"):
            hundreds = 1 if m.group("hundreds").lower() == "a" else _two_digits(m.group("hundreds"))
            found.add(float(hundreds * 100 + (_two_digits(m.group("rest")) if m.group("rest") else 0)))
        elif m.group("small").lower() != "one" or _ONE_AS_NUMBER.match(text, m.end()):
            found.add(float(_two_digits(m.group("small"))))
    return _one(found)


# --- order status --------------------------------------------------------------------------

# Order matters: "not shipped yet" is read as processing before "shipped" is looked for.
STATUS_PHRASES: tuple[tuple[str, str], ...] = (
    ("processing", r"not (?:yet )?(?:been )?(?:shipped|dispatched)(?: yet)?|(?:hasn'?t|has not|haven'?t|have not) "
                   r"(?:yet )?(?:been )?(?:shipped|dispatched)(?: yet)?|yet to (?:ship|be shipped)|processing|"
                   r"being processed|pending|being prepared|preparing"),
    ("cancelled", r"cancell?ed|cancell?ation"),
    ("in_transit", r"in transit|on (?:its|the|their) way|en route|out for delivery"),
    ("delivered", r"delivered|arrived"),
    ("shipped", r"shipped|dispatched|has shipped|sent out"),
)
STATUSES = tuple(status for status, _ in STATUS_PHRASES)


def read_status(text: str | None) -> Reading:
    """The order status `text` states ("It's on its way" -> "in_transit"), None, or AMBIGUOUS."""
    if not text:
        return None
    lowered = re.sub(r"[_\-]+", " ", text.lower())
    found: set[str] = set()
    for status, pattern in STATUS_PHRASES:
        for m in re.finditer(rf"\b(?:{pattern})\b", lowered):
            if status == "processing" or not _negated(lowered, m.start()):
                found.add(status)
        lowered = re.sub(rf"\b(?:{pattern})\b", " ", lowered)  # each phrase is read once
    return _one(found)


# --- a few named options -------------------------------------------------------------------

def read_choice(text: str | None, options: dict[str, tuple[str, ...]]) -> Reading:
    """Which of `options` (name -> phrasings) the text chooses; an option it denies ("not to
    your card", "instead of a refund to your card") does not count."""
    if not text:
        return None
    lowered = text.lower()
    found: set[str] = set()
    for name, phrasings in options.items():
        for phrasing in phrasings:
            for m in re.finditer(rf"\b{re.escape(phrasing)}\b", lowered):
                before = lowered[max(0, m.start() - 60):m.start()]
                if not _negated(lowered, m.start()) and not re.search(r"(?:instead of|rather than)\s+(?:\w+\s+){0,5}$",
                                                                       before):
                    found.add(name)
    return _one(found)


REFUND_OPTIONS: dict[str, tuple[str, ...]] = {
    "store credit": ("store credit", "gift card", "shop credit", "credit to your account", "account credit"),
    "original payment method": ("original payment method", "original payment", "original form of payment",
                                "card you paid with", "original card", "refunded to your card",
                                "back to your card"),
}


# --- what a message claims -----------------------------------------------------------------

ORDER_ID_WORD = re.compile(r"\bW\d{7}\b")


def read_order_id(text: str | None) -> Reading:
    """The one order ID a message names ("W1234567"), None, or AMBIGUOUS."""
    return _one(set(ORDER_ID_WORD.findall(text or "")))


def status_claim(message: str, order_id: str | None, answer: str | None) -> tuple[Reading, Reading]:
    """(order, status) an agent's turn states about an order: the structured fields first, the
    message's words where a field is empty."""
    order = (order_id or "").strip() or read_order_id(message)
    status = read_status(answer)
    if status is None:
        status = read_status(message)
    return order, status
