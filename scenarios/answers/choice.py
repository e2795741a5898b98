"""Reading which of a few named options an answer chooses ("refunded as store credit").

An option the sentence denies or sets aside does not count: "not to your card", "instead of a
refund to your card", "rather than your original payment method", "unlike regular returns,
which go back to your card". Two options both chosen, or offered as alternatives ("as store
credit or to your card"), and an answer that says it is unsure, are a hedge: AMBIGUOUS.
"""

from __future__ import annotations

import re

from verishop.scenarios.answers.scope import doubted, restrictions, unsure
from verishop.scenarios.answers.text import AMBIGUOUS, Reading, one, plain

REFUND_OPTIONS: dict[str, tuple[str, ...]] = {
    "store credit": ("store credit", "gift card", "shop credit", "credit to your account", "account credit",
                     "credit on your account", "store balance", "account balance", "voucher", "credit note",
                     "site credit", "verishop credit", "in credit", "as credit", "e-gift card", "egift card",
                     "store voucher", "store gift card", "credit to your verishop account",
                     "credited to your verishop account", "credited to your account", "credit on your verishop account",
                     "verishop account", "store account", "shop account", "store wallet"),
    "original payment method": ("original payment method", "original payment", "original form of payment",
                                "original method of payment", "original method", "card you paid with",
                                "card you used", "original card", "to your card", "your card", "the card",
                                "credit card", "debit card", "bank card", "payment card", "same card",
                                "way you paid", "same payment method", "your payment method", "method you paid with",
                                "refunded to your card", "back to your card", "to your bank", "paypal",
                                "back where it came from", "cash refund", "payer's card", "purchaser's card",
                                "buyer's card", "payer's payment method", "purchaser's payment method",
                                "buyer's payment method", "original payer"),
}
# A denial reaches to the end of its clause; a contrast ("unlike regular returns, which ...") a little further.
_DENIED = re.compile(r"(?:\bnot|n't|\bnever|\bno longer|\binstead of|\brather than|\bas opposed to|\bin place of|"
                     r"\bexcept)\b(?:(?!\bbut\b)[^.;:,!?]){0,50}$")
_CONTRAST = re.compile(r"(?:\bunlike|\bnormally|\busually|\bregular (?:returns?|refunds?|orders?)|"
                       r"\bother (?:returns?|refunds?)|\bstandard (?:returns?|"
                       r"refunds?))\b[^.;:!?,]{0,60}(?:,[^.;:!?,]{0,60})?$")


def read_choice(text: str | None, options: dict[str, tuple[str, ...]]) -> Reading:
    """Which of `options` (name -> phrasings) the text chooses (see the module docstring)."""
    if not text:
        return None
    t = plain(text)
    found: set[str] = set()
    # Longest phrasings first, each read once: "store gift card" is not also "gift card".
    phrasings = sorted(((p, name) for name, ps in options.items() for p in ps), key=lambda x: -len(x[0]))
    marked = t
    for phrasing, name in phrasings:
        regex = re.compile(rf"(?<![\w-]){re.escape(phrasing)}(?![\w-])")
        for m in regex.finditer(marked):
            before = marked[max(0, m.start() - 80):m.start()]
            if not _DENIED.search(before) and not _CONTRAST.search(before) and not doubted(marked, m.start()):
                found.add(name)
        marked = regex.sub(lambda m: "#" * len(m[0]), marked)
    # "Store credit, unless you paid by card": which case is the customer's, the answer does not say.
    if found and (unsure(t) or restrictions(t)):
        return AMBIGUOUS
    return one(found)
